/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - the options of "blkstack diff" (two recordings' per-layer
 * figures side by side): the parameters, the parser and the usage text.
 * The parser does no I/O (check_cli tests it).
 */
#ifndef BLKSTACK_CMD_DIFF_H
#define BLKSTACK_CMD_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "cmd/opt.h"

/**
 * struct diff_params - blkstack diff
 * @a, @b: the two recordings
 * @output: -o file, NULL for stdout
 * @json: --json
 * @debug: -D
 * @topology_a, @topology_b: --topology-a, --topology-b: each recording's
 *	stack, NULL for the one it carries (if any)
 */
struct diff_params {
	const char *a;
	const char *b;
	const char *output;
	bool json;
	bool debug;
	const char *topology_a;
	const char *topology_b;
};

/** cli_parse_diff - parse "blkstack diff" arguments */
enum cli_result cli_parse_diff(int argc, char **argv, struct diff_params *p, char *err,
			       size_t errlen);

/** cli_usage_diff - the usage text of "blkstack diff" */
const char *cli_usage_diff(void);

#endif /* BLKSTACK_CMD_DIFF_H */
