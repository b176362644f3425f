/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * convert.h - the options of "blkstack convert" (a recording to other
 * formats): the parameters, the parser and the usage text, next to the
 * command that uses them. The parser does no I/O and no privilege check
 * (check_cli tests it).
 */
#ifndef BLKSTACK_CMD_CONVERT_H
#define BLKSTACK_CMD_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/* What "blkstack convert" writes. */
enum convert_format {
	CONVERT_BLKTRACE = 1,	/* blktrace's per-CPU binary files */
	CONVERT_CSV,		/* one row per I/O, comma-separated */
	CONVERT_JSONL,		/* one JSON object per I/O and line */
	CONVERT_PERFETTO,	/* Chrome trace-event JSON */
	CONVERT_BTT_DATA,	/* btt's data files for plotting, in a directory */
};

/**
 * struct convert_params - blkstack convert
 * @input: -i trace.dat
 * @output: -o: the file, or for blktrace the prefix of the files, or for
 *	    btt-data the directory; NULL or "-" for standard output
 * @format: -F/--to, an enum convert_format
 * @max_inflight: --max-inflight, 0 for the default
 * @timeout_ns: --timeout, 0 for the default
 * @topology: --topology FILE, NULL if none
 * @debug: -D
 */
struct convert_params {
	const char *input;
	const char *output;
	int format;
	unsigned long long max_inflight;
	uint64_t timeout_ns;
	const char *topology;
	bool debug;
};

/** cli_parse_convert - parse "blkstack convert" arguments */
enum cli_result cli_parse_convert(int argc, char **argv, struct convert_params *p,
				  char *err, size_t errlen);

/** cli_usage_convert - the usage text of "blkstack convert" */
const char *cli_usage_convert(void);

/** cli_convert_format_name - "blktrace", "csv", "jsonl", "perfetto" */
const char *cli_convert_format_name(int format);

#endif /* BLKSTACK_CMD_CONVERT_H */
