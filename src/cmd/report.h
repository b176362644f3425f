/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - the options of "blkstack report" (every I/O followed through
 * the stack): the parameters, the parser and the usage text, next to the
 * command that uses them. The parser does no I/O and no privilege check
 * (check_cli tests it).
 */
#ifndef BLKSTACK_CMD_REPORT_H
#define BLKSTACK_CMD_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/**
 * struct report_params - blkstack report
 * @input: -i trace.dat, NULL to trace live
 * @devs: -d (live: devices whose stacks to trace)
 * @ndevs: how many
 * @duration_ns: -w, when @has_duration
 * @command: the COMMAND ARGS after "--" (NULL-terminated), NULL if none
 * @output: -o file, NULL for stdout
 * @json: --json
 * @buffer_kb: -b
 * @max_inflight: --max-inflight, 0 for the default
 * @timeout_ns: --timeout, 0 for the default
 * @topology: --topology FILE (with -i), NULL if none
 * @debug: -D
 * @page_cache: --page-cache, or implied by @by, @folded, @flame (live)
 * @by: --by, the file table instead of the per-layer report; CLI_BY_NONE
 * @by_cgroup: --by cgroup, the table per cgroup instead (@by is then
 *	       CLI_BY_NONE: it is of block I/O, not of the page cache)
 * @top: --top, rows of that table (0: the default)
 * @folded: --folded, folded stacks of bytes per path instead
 * @flame: --flame FILE.svg, NULL if none
 * @resolve: --resolve-paths, or CLI_RESOLVE_DEFAULT
 * @slowest: --slowest N, 0 for none
 * @html: --html FILE.html, NULL if none
 * @access: --access
 * @btt: --btt, btt's report instead of the per-layer one
 * @iostat: --iostat, iostat -x's table instead of the per-layer report
 * @hz: --hz, the traced kernel's CONFIG_HZ (0: not given)
 * @amplification: --amplification, add the amplification per layer
 * @jobs: -j: live, threads reading the per-CPU buffers (0: one per CPU);
 *	  with -i, threads decoding the recording (0: the number of CPUs)
 */
struct report_params {
	const char *input;
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	uint64_t duration_ns;
	bool has_duration;
	char **command;
	const char *output;
	bool json;
	unsigned int buffer_kb;
	unsigned long long max_inflight;
	uint64_t timeout_ns;
	const char *topology;
	bool debug;
	bool page_cache;
	int by;
	bool by_cgroup;
	unsigned long long top;
	bool folded;
	const char *flame;
	int resolve;
	unsigned long long slowest;
	const char *html;
	bool access;
	bool btt;
	bool iostat;
	unsigned int hz;
	bool amplification;
	int jobs;
};

/* --slowest at most: each is a whole tree kept in memory */
#define CLI_MAX_SLOWEST 100000

/** cli_parse_report - parse "blkstack report" arguments */
enum cli_result cli_parse_report(int argc, char **argv, struct report_params *p,
				 char *err, size_t errlen);

/** cli_usage_report - the usage text of "blkstack report" */
const char *cli_usage_report(void);

#endif /* BLKSTACK_CMD_REPORT_H */
