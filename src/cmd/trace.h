/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace.h - the options of "blkstack trace" (live tracing into the blkparse
 * log): the parameters, the parser and the usage text, next to the command
 * that uses them. The parser does no I/O and no privilege check (check_cli
 * tests it).
 */
#ifndef BLKSTACK_CMD_TRACE_H
#define BLKSTACK_CMD_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/**
 * struct trace_params - blkstack trace
 * @devs: the -d arguments as given
 * @ndevs: how many
 * @duration_ns: -w, when @has_duration
 * @output: -o file, NULL for stdout
 * @buffer_kb: -b, per-CPU buffer in KiB
 * @jobs: -j, threads reading the per-CPU buffers (0: one per CPU)
 * @no_summary: --no-summary
 * @plugs: --plugs
 * @debug: -D
 */
struct trace_params {
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	uint64_t duration_ns;
	bool has_duration;
	const char *output;
	unsigned int buffer_kb;
	int jobs;
	bool no_summary;
	bool plugs;
	bool debug;
};

/**
 * cli_parse_trace - parse "blkstack trace" arguments (argv[0] is "trace")
 * @err: on CLI_USAGE_ERROR, the message (without program name)
 */
enum cli_result cli_parse_trace(int argc, char **argv, struct trace_params *p,
				char *err, size_t errlen);

/** cli_usage_trace - the usage text of "blkstack trace" */
const char *cli_usage_trace(void);

#endif /* BLKSTACK_CMD_TRACE_H */
