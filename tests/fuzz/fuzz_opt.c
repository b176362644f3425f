// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_opt.c - the option value parsers: durations and numbers (base/util.c),
 * the shared option parsers (cmd/opt.c) and every command's cli_parse_*()
 * with its getopt table, on any argument vector.
 *
 * Input: one byte choosing the parser, then the arguments separated by NUL
 * bytes (at most 32). A usage error must come with its message.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cmd/cache.h"
#include "cmd/convert.h"
#include "cmd/opt.h"
#include "cmd/parse.h"
#include "cmd/record.h"
#include "cmd/report.h"
#include "cmd/top.h"
#include "cmd/topology.h"
#include "cmd/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

#define MAX_ARGS 32

/* argv[0] is the command's name, as main() passes it */
static enum cli_result command(unsigned int which, int argc, char **argv, char *err)
{
	static const char *const names[] = { "trace", "parse", "record", "report", "top",
					     "topology", "convert", "cache" };
	union {
		struct trace_params trace;
		struct parse_params parse;
		struct record_params record;
		struct report_params report;
		struct top_params top;
		struct topology_params topology;
		struct convert_params convert;
		struct cache_params cache;
	} p;

	which %= 8;
	argv[0] = (char *)names[which];
	memset(&p, 0, sizeof(p));
	switch (which) {
	case 0: return cli_parse_trace(argc, argv, &p.trace, err, CLI_ERR_LEN);
	case 1: return cli_parse_parse(argc, argv, &p.parse, err, CLI_ERR_LEN);
	case 2: return cli_parse_record(argc, argv, &p.record, err, CLI_ERR_LEN);
	case 3: return cli_parse_report(argc, argv, &p.report, err, CLI_ERR_LEN);
	case 4: return cli_parse_top(argc, argv, &p.top, err, CLI_ERR_LEN);
	case 5: return cli_parse_topology(argc, argv, &p.topology, err, CLI_ERR_LEN);
	case 6: return cli_parse_convert(argc, argv, &p.convert, err, CLI_ERR_LEN);
	default: return cli_parse_cache(argc, argv, &p.cache, err, CLI_ERR_LEN);
	}
}

/* one value through one of the shared parsers */
static enum cli_result value(unsigned int which, char *arg, char *err)
{
	unsigned long long u;
	unsigned int kb;
	const char *devs[CLI_MAX_DEVS], *file;
	size_t n = 0;
	uint64_t ns;
	bool has;
	int mode;

	switch (which % 9) {
	case 0:
		if (opt_duration(arg, &ns, &has, err, CLI_ERR_LEN) == CLI_RUN && !has)
			abort();
		return parse_duration(arg, &ns) ? CLI_USAGE_ERROR : CLI_RUN;
	case 1:
		if (opt_buffer(arg, &kb, err, CLI_ERR_LEN) == CLI_RUN && (kb < 4 || kb > 1U << 24))
			abort();
		return CLI_RUN;
	case 2:
		if (opt_max_inflight(arg, &u, err, CLI_ERR_LEN) == CLI_RUN &&
		    (u < 16 || u > 1ULL << 30))
			abort();
		return CLI_RUN;
	case 3:
		if (opt_timeout(arg, &ns, err, CLI_ERR_LEN) == CLI_RUN && !ns)
			abort();
		return CLI_RUN;
	case 4:
		if (opt_top(arg, &u, err, CLI_ERR_LEN) == CLI_RUN && (u < 1 || u > 1ULL << 30))
			abort();
		return CLI_RUN;
	case 5:
		return opt_by(arg, &mode, err, CLI_ERR_LEN);
	case 6:
		return opt_resolve(arg, &mode, err, CLI_ERR_LEN);
	case 7:
		return opt_file(arg, &file, 'o', err, CLI_ERR_LEN);
	default:
		return opt_add_dev(devs, &n, arg, err, CLI_ERR_LEN);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *argv[MAX_ARGS + 2], err[CLI_ERR_LEN];
	char *buf, *p, *end;
	enum cli_result r;
	int argc = 1;

	if (len < 1)
		return 0;
	/* the arguments, each NUL-terminated as the kernel passes them */
	buf = malloc(len);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len - 1);
	buf[len - 1] = '\0';
	for (p = buf, end = buf + len - 1; p <= end && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	err[0] = '\0';
	if (data[0] < 0x80)
		r = command(data[0], argc, argv, err);
	else
		r = value(data[0], argv[1], err);
	/* an error always says what was wrong */
	if (r == CLI_USAGE_ERROR && !err[0] && data[0] < 0x80)
		abort();
	free(buf);
	return 0;
}
