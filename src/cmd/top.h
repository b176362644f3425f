/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * top.h - the options of "blkstack top" (the per-layer table every
 * interval): the parameters, the parser and the usage text, next to the
 * command that uses them. The parser does no I/O and no privilege check
 * (check_cli tests it).
 */
#ifndef BLKSTACK_CMD_TOP_H
#define BLKSTACK_CMD_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/**
 * struct top_params - blkstack top
 * @input: -i trace.dat, NULL to trace live
 * @devs: -d (live: devices whose stacks to trace)
 * @ndevs: how many
 * @interval_ns: the interval argument (default 1 s)
 * @count: the count argument, when @has_count; otherwise until Ctrl-C or
 *	   the end of the recording
 * @output: -o file, NULL for stdout
 * @buffer_kb: -b
 * @max_inflight: --max-inflight, 0 for the default
 * @timeout_ns: --timeout, 0 for the default
 * @debug: -D
 * @access: --access
 * @extended: -x, iostat -x's columns per layer instead of the latency table
 * @hz: --hz, the traced kernel's CONFIG_HZ for -x (0: not given)
 * @topology: --topology FILE, the recording's stack (with -i), NULL if none
 */
struct top_params {
	const char *input;
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	uint64_t interval_ns;
	unsigned long long count;
	bool has_count;
	const char *output;
	unsigned int buffer_kb;
	unsigned long long max_inflight;
	uint64_t timeout_ns;
	bool debug;
	bool access;
	bool extended;
	unsigned int hz;
	const char *topology;
};

/** cli_parse_top - parse "blkstack top" arguments */
enum cli_result cli_parse_top(int argc, char **argv, struct top_params *p,
			      char *err, size_t errlen);

/** cli_usage_top - the usage text of "blkstack top" */
const char *cli_usage_top(void);

#endif /* BLKSTACK_CMD_TOP_H */
