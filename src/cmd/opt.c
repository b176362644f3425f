// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * opt.c - the option parsers the commands share (see opt.h). No I/O and
 * no privilege checks here: the commands do those when they run.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "cmd/opt.h"

enum cli_result opt_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return CLI_USAGE_ERROR;
}

enum cli_result opt_bad(char *err, size_t errlen, char **argv, int c)
{
	if (c == ':')
		return opt_error(err, errlen, "option '%s' needs an argument",
				 argv[optind - 1]);
	if (optopt && optopt < CHAR_MAX)
		return opt_error(err, errlen, "unknown option '-%c'", optopt);
	return opt_error(err, errlen, "unknown option '%s'", argv[optind - 1]);
}

enum cli_result opt_add_dev(const char **devs, size_t *n, const char *arg,
			    char *err, size_t errlen)
{
	if (!*arg)
		return opt_error(err, errlen, "-d needs a device, not an empty string");
	if (*n >= CLI_MAX_DEVS)
		return opt_error(err, errlen, "at most %d devices can be given with -d",
				 CLI_MAX_DEVS);
	devs[(*n)++] = arg;
	return CLI_RUN;
}

enum cli_result opt_duration(const char *arg, uint64_t *ns, bool *has, char *err,
			     size_t errlen)
{
	if (parse_duration(arg, ns))
		return opt_error(err, errlen,
				 "invalid duration '%s' (examples: 10, 10s, 500ms, 2m)", arg);
	*has = true;
	return CLI_RUN;
}

enum cli_result opt_buffer(const char *arg, unsigned int *kb, char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_uint(arg, 4, 16ULL * 1024 * 1024, &v))
		return opt_error(err, errlen,
				 "invalid buffer size '%s' (KiB, from 4 to 16777216)", arg);
	*kb = v;
	return CLI_RUN;
}

enum cli_result opt_file(const char *arg, const char **file, char opt, char *err,
			 size_t errlen)
{
	if (!*arg)
		return opt_error(err, errlen, "-%c needs a file name", opt);
	*file = arg;
	return CLI_RUN;
}

enum cli_result opt_topology(const char *arg, const char **file, char *err, size_t errlen)
{
	if (!*arg)
		return opt_error(err, errlen, "--topology needs a file name");
	*file = arg;
	return CLI_RUN;
}

enum cli_result opt_max_inflight(const char *arg, unsigned long long *n, char *err,
				 size_t errlen)
{
	if (parse_uint(arg, 16, 1ULL << 30, n))
		return opt_error(err, errlen,
				 "invalid --max-inflight '%s' (from 16 to 1073741824)", arg);
	return CLI_RUN;
}

enum cli_result opt_timeout(const char *arg, uint64_t *ns, char *err, size_t errlen)
{
	if (parse_duration(arg, ns) || !*ns)
		return opt_error(err, errlen, "invalid --timeout '%s' (examples: 30s, 2m)", arg);
	return CLI_RUN;
}

enum cli_result opt_interval_count(int argc, char **argv, uint64_t *interval_ns,
				   unsigned long long *count, bool *has_count, char *err,
				   size_t errlen)
{
	if (optind < argc) {
		const char *arg = argv[optind++];

		if (parse_duration(arg, interval_ns) || *interval_ns < 1000000ULL)
			return opt_error(err, errlen,
					 "invalid interval '%s' (at least 1ms; examples: 1, 2s, 500ms)",
					 arg);
	}
	if (optind < argc) {
		const char *arg = argv[optind++];

		if (parse_uint(arg, 1, ULLONG_MAX, count))
			return opt_error(err, errlen,
					 "invalid count '%s' (a number of intervals, at least 1)", arg);
		*has_count = true;
	}
	if (optind < argc)
		return opt_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	return CLI_RUN;
}

enum cli_result opt_by(const char *arg, int *by, char *err, size_t errlen)
{
	if (!strcmp(arg, "file"))
		*by = CLI_BY_FILE;
	else if (!strcmp(arg, "dir"))
		*by = CLI_BY_DIR;
	else if (!strcmp(arg, "process"))
		*by = CLI_BY_PROCESS;
	else if (!strcmp(arg, "flag"))
		*by = CLI_BY_FLAG;
	else
		return opt_error(err, errlen, "invalid --by '%s' (file, dir, process or flag)", arg);
	return CLI_RUN;
}

enum cli_result opt_top(const char *arg, unsigned long long *top, char *err,
			size_t errlen)
{
	if (parse_uint(arg, 1, 1ULL << 30, top))
		return opt_error(err, errlen, "invalid --top '%s' (a number of rows, at least 1)",
				 arg);
	return CLI_RUN;
}

enum cli_result opt_hz(const char *arg, unsigned int *hz, char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_uint(arg, 24, 10000, &v))
		return opt_error(err, errlen,
				 "--hz '%s': a timer frequency from 24 to 10000 (CONFIG_HZ)", arg);
	*hz = (unsigned int)v;
	return CLI_RUN;
}

enum cli_result opt_jobs(const char *arg, int *jobs, char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_uint(arg, 1, 1024, &v))
		return opt_error(err, errlen, "invalid -j '%s' (a number of threads, 1 to 1024)",
				 arg);
	*jobs = v;
	return CLI_RUN;
}

enum cli_result opt_resolve(const char *arg, int *mode, char *err, size_t errlen)
{
	if (!strcmp(arg, "proc"))
		*mode = CLI_RESOLVE_PROC;
	else if (!strcmp(arg, "walk"))
		*mode = CLI_RESOLVE_WALK;
	else if (!strcmp(arg, "none"))
		*mode = CLI_RESOLVE_NONE;
	else
		return opt_error(err, errlen, "invalid --resolve-paths '%s' (proc, walk or none)",
				 arg);
	return CLI_RUN;
}

