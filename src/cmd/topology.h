/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.h - the options of "blkstack topology" (the device stack as
 * text): the parameters, the parser and the usage text, next to the command
 * that uses them. The parser does no I/O and no privilege check (check_cli
 * tests it).
 */
#ifndef BLKSTACK_CMD_TOPOLOGY_H
#define BLKSTACK_CMD_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/**
 * struct topology_params - blkstack topology
 * @devs: -d: devices whose stacks to write (none: every block device)
 * @ndevs: how many
 * @output: -o file, NULL for stdout
 * @debug: -D
 */
struct topology_params {
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	const char *output;
	bool debug;
};

/** cli_parse_topology - parse "blkstack topology" arguments */
enum cli_result cli_parse_topology(int argc, char **argv, struct topology_params *p,
				   char *err, size_t errlen);

/** cli_usage_topology - the usage text of "blkstack topology" */
const char *cli_usage_topology(void);

#endif /* BLKSTACK_CMD_TOPOLOGY_H */
