/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.h - the options of "blkstack parse" (a recording to the blkparse
 * log): the parameters, the parser and the usage text, next to the command
 * that uses them. The parser does no I/O and no privilege check (check_cli
 * tests it).
 */
#ifndef BLKSTACK_CMD_PARSE_H
#define BLKSTACK_CMD_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/**
 * struct parse_params - blkstack parse
 * @input: -i trace.dat
 * @output: -o file, NULL for stdout
 * @devs: -d devices, as given: resolved in the recording's stack when it
 *	  is known, else on this machine
 * @ndevs: how many
 * @no_summary: --no-summary
 * @debug: -D
 * @topology: --topology FILE, the recording's stack; NULL: the one it carries
 */
struct parse_params {
	const char *input;
	const char *output;
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	bool no_summary;
	bool debug;
	const char *topology;
};

/** cli_parse_parse - parse "blkstack parse" arguments (argv[0] is "parse") */
enum cli_result cli_parse_parse(int argc, char **argv, struct parse_params *p,
				char *err, size_t errlen);

/** cli_usage_parse - the usage text of "blkstack parse" */
const char *cli_usage_parse(void);

#endif /* BLKSTACK_CMD_PARSE_H */
