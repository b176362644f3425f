// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cli.c - getopt_long tables, usage texts and validation of each command.
 * No I/O and no privilege checks here: the commands do those when they run.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd/opt.h"
#include "base/util.h"

enum {
	OPT_NO_SUMMARY = CHAR_MAX + 1,
	OPT_PLUGS,
	OPT_JSON,
	OPT_MAX_INFLIGHT,
	OPT_TIMEOUT,
	OPT_TOPOLOGY,
	/* page cache and files (report, cache) */
	OPT_PAGE_CACHE,
	OPT_BY,
	OPT_TOP,
	OPT_FOLDED,
	OPT_FLAME,
	OPT_RESOLVE_PATHS,
	OPT_LOG,
};

static enum cli_result opt_by(const char *arg, int *by, char *err, size_t errlen);
static enum cli_result opt_top(const char *arg, unsigned long long *top, char *err,
			       size_t errlen);
static enum cli_result opt_resolve(const char *arg, int *mode, char *err, size_t errlen);

static enum cli_result usage_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum cli_result usage_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return CLI_USAGE_ERROR;
}

/* getopt's own complaint for the option that failed, in our words. */
static enum cli_result bad_option(char *err, size_t errlen, char **argv, int c)
{
	if (c == ':')
		return usage_error(err, errlen, "option '%s' needs an argument",
				   argv[optind - 1]);
	if (optopt && optopt < CHAR_MAX)
		return usage_error(err, errlen, "unknown option '-%c'", optopt);
	return usage_error(err, errlen, "unknown option '%s'", argv[optind - 1]);
}

const char *cli_usage_trace(void)
{
	return "Usage:\n"
	       " blkstack trace [options]\n"
	       "\n"
	       "Trace block I/O live and print one line per event in blkparse's format.\n"
	       "\n"
	       "Tracing:\n"
	       " -d, --device DEV        trace DEV's whole stack (repeatable): a device path,\n"
	       "                         a name (sda1, dm-0), MAJ:MIN, or a mounted directory;\n"
	       "                         default: every block device\n"
	       " -w, --duration TIME     stop after TIME (10, 10s, 500ms, 2m); default: Ctrl-C\n"
	       " -b, --buffer-size KB    per-CPU ring buffer in KiB (default 8192)\n"
	       "     --plugs             with -d, trace plugs and unplugs (P, U) too: they name\n"
	       "                         no device, so every device's are committed to the\n"
	       "                         ring buffer and filtered afterwards\n"
	       "\n"
	       "Output:\n"
	       " -o, --output FILE       write the log to FILE instead of standard output\n"
	       "     --no-summary        do not print the per-device summary at the end\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-trace(8).\n";
}

const char *cli_usage_parse(void)
{
	return "Usage:\n"
	       " blkstack parse -i FILE [options]\n"
	       "\n"
	       "Print the block events of a trace.dat recording in blkparse's format.\n"
	       "\n"
	       "Input:\n"
	       " -i, --input FILE        the trace.dat file (from trace-cmd record -e block)\n"
	       " -d, --device MAJ:MIN    print only this device's events (repeatable)\n"
	       "\n"
	       "Output:\n"
	       " -o, --output FILE       write the log to FILE instead of standard output\n"
	       "     --no-summary        do not print the per-device summary at the end\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-parse(8).\n";
}

static enum cli_result add_dev(const char **devs, size_t *n, const char *arg,
			       char *err, size_t errlen)
{
	if (!*arg)
		return usage_error(err, errlen, "-d needs a device, not an empty string");
	if (*n >= CLI_MAX_DEVS)
		return usage_error(err, errlen, "at most %d devices can be given with -d",
				   CLI_MAX_DEVS);
	devs[(*n)++] = arg;
	return CLI_RUN;
}

/* -w: a duration */
static enum cli_result opt_duration(const char *arg, uint64_t *ns, bool *has, char *err,
				    size_t errlen)
{
	if (parse_duration(arg, ns))
		return usage_error(err, errlen,
				   "invalid duration '%s' (examples: 10, 10s, 500ms, 2m)", arg);
	*has = true;
	return CLI_RUN;
}

/* -b: the per-CPU ring buffer in KiB */
static enum cli_result opt_buffer(const char *arg, unsigned int *kb, char *err, size_t errlen)
{
	unsigned long long v;

	if (parse_uint(arg, 4, 16ULL * 1024 * 1024, &v))
		return usage_error(err, errlen,
				   "invalid buffer size '%s' (KiB, from 4 to 16777216)", arg);
	*kb = v;
	return CLI_RUN;
}

/* -o, -i: a file name */
static enum cli_result opt_file(const char *arg, const char **file, char opt, char *err,
				size_t errlen)
{
	if (!*arg)
		return usage_error(err, errlen, "-%c needs a file name", opt);
	*file = arg;
	return CLI_RUN;
}

/* --max-inflight: bios the tracker follows at once */
static enum cli_result opt_max_inflight(const char *arg, unsigned long long *n, char *err,
					size_t errlen)
{
	if (parse_uint(arg, 16, 1ULL << 30, n))
		return usage_error(err, errlen,
				   "invalid --max-inflight '%s' (from 16 to 1073741824)", arg);
	return CLI_RUN;
}

/* --timeout: a bio not completed after this long expires */
static enum cli_result opt_timeout(const char *arg, uint64_t *ns, char *err, size_t errlen)
{
	if (parse_duration(arg, ns) || !*ns)
		return usage_error(err, errlen, "invalid --timeout '%s' (examples: 30s, 2m)", arg);
	return CLI_RUN;
}

enum cli_result cli_parse_trace(int argc, char **argv, struct trace_params *p,
				char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "device",	 required_argument, NULL, 'd' },
		{ "duration",	 required_argument, NULL, 'w' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "output",	 required_argument, NULL, 'o' },
		{ "no-summary",	 no_argument,	    NULL, OPT_NO_SUMMARY },
		{ "plugs",	 no_argument,	    NULL, OPT_PLUGS },
		{ "debug",	 no_argument,	    NULL, 'D' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	p->buffer_kb = CLI_DEFAULT_BUFFER_KB;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:w:b:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'd':
			r = add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'w':
			r = opt_duration(optarg, &p->duration_ns, &p->has_duration, err, errlen);
			break;
		case 'b':
			r = opt_buffer(optarg, &p->buffer_kb, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_NO_SUMMARY:
			p->no_summary = true;
			break;
		case OPT_PLUGS:
			p->plugs = true;
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return bad_option(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc)
		return usage_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (p->plugs && !p->ndevs)
		return usage_error(err, errlen,
				   "--plugs goes with -d: without -d plugs and unplugs are traced anyway");
	return CLI_RUN;
}

enum cli_result cli_parse_parse(int argc, char **argv, struct parse_params *p,
				char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "input",	 required_argument, NULL, 'i' },
		{ "device",	 required_argument, NULL, 'd' },
		{ "output",	 required_argument, NULL, 'o' },
		{ "no-summary",	 no_argument,	    NULL, OPT_NO_SUMMARY },
		{ "debug",	 no_argument,	    NULL, 'D' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:d:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'i':
			r = opt_file(optarg, &p->input, 'i', err, errlen);
			break;
		case 'd': {
			unsigned int ma, mi;
			char extra;

			if (sscanf(optarg, "%u:%u%c", &ma, &mi, &extra) != 2)
				return usage_error(err, errlen,
						   "invalid device '%s': a recording is read by MAJ:MIN, e.g. 8:16",
						   optarg);
			r = add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		}
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_NO_SUMMARY:
			p->no_summary = true;
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return bad_option(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc)
		return usage_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (!p->input)
		return usage_error(err, errlen, "no input file: give one with -i FILE");
	return CLI_RUN;
}

const char *cli_usage_report(void)
{
	return "Usage:\n"
	       " blkstack report [options] [-- COMMAND [ARGS]]\n"
	       " blkstack report -i FILE [options]\n"
	       "\n"
	       "Follow every I/O through the layers of the stack and report, per layer and\n"
	       "operation, sizes and submission/completion latency, end to end latency with\n"
	       "each layer's share, and the processes that issued the I/O.\n"
	       "\n"
	       "Source:\n"
	       " -i, --input FILE        read a trace.dat (trace-cmd record -e block)\n"
	       " -d, --device DEV        trace DEV's whole stack live (repeatable); default: all\n"
	       " -w, --duration TIME     trace for TIME (10, 10s, 500ms, 2m); default: until\n"
	       "                         Ctrl-C, or until COMMAND exits\n"
	       " -b, --buffer-size KB    per-CPU ring buffer in KiB (default 8192)\n"
	       "\n"
	       "Tracking:\n"
	       "     --max-inflight N    bios followed at once at most (default 1048576)\n"
	       "     --timeout TIME      drop a bio not completed after TIME (default 30s)\n"
	       "     --topology FILE     with -i: the recording's device stack, as\n"
	       "                         'blkstack topology' wrote it on the traced machine\n"
	       "\n"
	       "Output:\n"
	       " -o, --output FILE       write the report to FILE instead of standard output\n"
	       "     --json              one JSON document instead of text tables\n"
	       "\n"
	       "Files (page cache; live, these trace the page-cache events too):\n"
	       "     --page-cache        add the files that caused the disk I/O to the report\n"
	       "     --by file|dir|process  report per file, per directory (everything beneath\n"
	       "                         it) or per process instead of per layer\n"
	       "     --top N             rows of that table (default 20)\n"
	       "     --folded            folded stacks of disk bytes per path (flamegraph.pl,\n"
	       "                         inferno, speedscope) instead of a table\n"
	       "     --flame FILE.svg    also write an SVG flame graph of bytes per directory\n"
	       "     --resolve-paths MODE  inode to path: proc (open files and maps of live\n"
	       "                         processes; the default live), walk (proc, then a walk\n"
	       "                         of the filesystems), none (MAJ:MIN:ino; the default\n"
	       "                         for a recording)\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-report(8).\n";
}

enum cli_result cli_parse_report(int argc, char **argv, struct report_params *p,
				 char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "input",	  required_argument, NULL, 'i' },
		{ "device",	  required_argument, NULL, 'd' },
		{ "duration",	  required_argument, NULL, 'w' },
		{ "buffer-size",  required_argument, NULL, 'b' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "json",	  no_argument,	     NULL, OPT_JSON },
		{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
		{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
		{ "topology",	  required_argument, NULL, OPT_TOPOLOGY },
		{ "page-cache",	  no_argument,	     NULL, OPT_PAGE_CACHE },
		{ "by",		  required_argument, NULL, OPT_BY },
		{ "top",	  required_argument, NULL, OPT_TOP },
		{ "folded",	  no_argument,	     NULL, OPT_FOLDED },
		{ "flame",	  required_argument, NULL, OPT_FLAME },
		{ "resolve-paths", required_argument, NULL, OPT_RESOLVE_PATHS },
		{ "debug",	  no_argument,	     NULL, 'D' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool page_cache_opt = false;
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	p->buffer_kb = CLI_DEFAULT_BUFFER_KB;
	p->by = CLI_BY_NONE;
	optind = 0;
	opterr = 0;
	/* "+": stop at the first non-option, so COMMAND's own options stay its own */
	while ((c = getopt_long(argc, argv, "+:i:d:w:b:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'i':
			r = opt_file(optarg, &p->input, 'i', err, errlen);
			break;
		case 'd':
			r = add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'w':
			r = opt_duration(optarg, &p->duration_ns, &p->has_duration, err, errlen);
			break;
		case 'b':
			r = opt_buffer(optarg, &p->buffer_kb, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_JSON:
			p->json = true;
			break;
		case OPT_MAX_INFLIGHT:
			r = opt_max_inflight(optarg, &p->max_inflight, err, errlen);
			break;
		case OPT_TIMEOUT:
			r = opt_timeout(optarg, &p->timeout_ns, err, errlen);
			break;
		case OPT_TOPOLOGY:
			if (!*optarg)
				return usage_error(err, errlen, "--topology needs a file name");
			p->topology = optarg;
			break;
		case OPT_PAGE_CACHE:
			page_cache_opt = true;
			break;
		case OPT_BY:
			r = opt_by(optarg, &p->by, err, errlen);
			break;
		case OPT_TOP:
			r = opt_top(optarg, &p->top, err, errlen);
			break;
		case OPT_FOLDED:
			p->folded = true;
			break;
		case OPT_FLAME:
			if (!*optarg)
				return usage_error(err, errlen, "--flame needs a file name");
			p->flame = optarg;
			break;
		case OPT_RESOLVE_PATHS:
			r = opt_resolve(optarg, &p->resolve, err, errlen);
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return bad_option(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	p->page_cache = page_cache_opt || p->by != CLI_BY_NONE || p->folded || p->flame;
	if (p->input && page_cache_opt)
		return usage_error(err, errlen,
				   "--page-cache is for live tracing: a recording has the events it was made with");
	if (p->top && p->by == CLI_BY_NONE)
		return usage_error(err, errlen, "--top goes with --by");
	if (p->folded && (p->json || p->by == CLI_BY_PROCESS))
		return usage_error(err, errlen,
				   "--folded prints stacks of paths: not with --json or --by process");
	if (p->folded && p->by != CLI_BY_NONE && p->by != CLI_BY_DIR)
		return usage_error(err, errlen, "--folded goes with --by dir (or alone)");
	if (p->json && page_cache_opt && p->by == CLI_BY_NONE)
		return usage_error(err, errlen,
				   "--json and --page-cache: choose the table with --by file, dir or process");
	if (p->resolve && !p->page_cache)
		return usage_error(err, errlen,
				   "--resolve-paths goes with --page-cache, --by, --folded or --flame");
	if (optind < argc) {
		/* getopt stops at "--" or at the first non-option: COMMAND starts here */
		if (strcmp(argv[optind - 1], "--") != 0)
			return usage_error(err, errlen,
					   "unexpected argument '%s' (a command goes after --)",
					   argv[optind]);
		p->command = &argv[optind];
	}
	if (p->input && (p->ndevs || p->has_duration || p->command))
		return usage_error(err, errlen,
				   "-i reads a recording: -d, -w and a command are for live tracing");
	if (p->has_duration && p->command)
		return usage_error(err, errlen, "-w and a command are mutually exclusive");
	if (p->topology && !p->input)
		return usage_error(err, errlen,
				   "--topology describes a recording's stack: it goes with -i "
				   "(live, the stack comes from sysfs)");
	return CLI_RUN;
}

/* iostat's positional [interval [count]], from optind on; nothing may follow */
static enum cli_result opt_interval_count(int argc, char **argv, uint64_t *interval_ns,
					  unsigned long long *count, bool *has_count, char *err,
					  size_t errlen)
{
	if (optind < argc) {
		const char *arg = argv[optind++];

		if (parse_duration(arg, interval_ns) || *interval_ns < 1000000ULL)
			return usage_error(err, errlen,
					   "invalid interval '%s' (at least 1ms; examples: 1, 2s, 500ms)",
					   arg);
	}
	if (optind < argc) {
		const char *arg = argv[optind++];

		if (parse_uint(arg, 1, ULLONG_MAX, count))
			return usage_error(err, errlen,
					   "invalid count '%s' (a number of intervals, at least 1)", arg);
		*has_count = true;
	}
	if (optind < argc)
		return usage_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	return CLI_RUN;
}

const char *cli_usage_top(void)
{
	return "Usage:\n"
	       " blkstack top [options] [interval [count]]\n"
	       " blkstack top -i FILE [options] [interval [count]]\n"
	       "\n"
	       "Every interval (default 1s; 10, 2s, 500ms), print per layer and operation the\n"
	       "I/O completed in it: rates, size, submission/completion/total latency, as\n"
	       "iostat does per device. Stop after count intervals, or at Ctrl-C.\n"
	       "\n"
	       "Source:\n"
	       " -i, --input FILE        replay a trace.dat by intervals of trace time\n"
	       " -d, --device DEV        trace DEV's whole stack live (repeatable); default: all\n"
	       " -b, --buffer-size KB    per-CPU ring buffer in KiB (default 8192)\n"
	       "\n"
	       "Tracking:\n"
	       "     --max-inflight N    bios followed at once at most (default 1048576)\n"
	       "     --timeout TIME      drop a bio not completed after TIME (default 30s)\n"
	       "\n"
	       "Output:\n"
	       " -o, --output FILE       write the tables to FILE instead of standard output\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-top(8).\n";
}

enum cli_result cli_parse_top(int argc, char **argv, struct top_params *p,
			      char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "input",	  required_argument, NULL, 'i' },
		{ "device",	  required_argument, NULL, 'd' },
		{ "buffer-size",  required_argument, NULL, 'b' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
		{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
		{ "debug",	  no_argument,	     NULL, 'D' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	p->buffer_kb = CLI_DEFAULT_BUFFER_KB;
	p->interval_ns = 1000000000ULL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:d:b:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'i':
			r = opt_file(optarg, &p->input, 'i', err, errlen);
			break;
		case 'd':
			r = add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'b':
			r = opt_buffer(optarg, &p->buffer_kb, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_MAX_INFLIGHT:
			r = opt_max_inflight(optarg, &p->max_inflight, err, errlen);
			break;
		case OPT_TIMEOUT:
			r = opt_timeout(optarg, &p->timeout_ns, err, errlen);
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return bad_option(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	r = opt_interval_count(argc, argv, &p->interval_ns, &p->count, &p->has_count, err,
			       errlen);
	if (r != CLI_RUN)
		return r;
	if (p->input && p->ndevs)
		return usage_error(err, errlen,
				   "-i replays a recording: -d is for live tracing");
	return CLI_RUN;
}

const char *cli_usage_topology(void)
{
	return "Usage:\n"
	       " blkstack topology [options]\n"
	       "\n"
	       "Write the device stack of this machine (names, device numbers, kinds, dm\n"
	       "names and target types, partition starts, holders and slaves), one line per\n"
	       "device, so that 'blkstack report -i FILE --topology STACK' can draw and follow\n"
	       "a recording's stack on another machine, or after the stack is gone.\n"
	       "\n"
	       "Options:\n"
	       " -d, --device DEV        the whole stack of DEV (repeatable); default: every\n"
	       "                         block device\n"
	       " -o, --output FILE       write to FILE instead of standard output\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-topology(8).\n";
}

enum cli_result cli_parse_topology(int argc, char **argv, struct topology_params *p,
				   char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "debug",  no_argument,       NULL, 'D' },
		{ "help",   no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'd':
			r = add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return bad_option(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc)
		return usage_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	return CLI_RUN;
}

const char *cli_usage_record(void)
{
	return "Usage:\n"
	       " blkstack record [options] [-- COMMAND [ARGS]]\n"
	       "\n"
	       "Record the block events of a device's stack (or of every device) into a\n"
	       "trace-cmd trace.dat (version 6), raw per-CPU pages untouched, for blkstack\n"
	       "report, parse and top -i, and trace-cmd report, on any machine.\n"
	       "\n"
	       "Options:\n"
	       " -d, --device DEV        record DEV's whole stack (repeatable); default: all\n"
	       " -w, --duration TIME     record for TIME (10, 10s, 500ms, 2m); default: until\n"
	       "                         Ctrl-C, or until COMMAND exits\n"
	       " -b, --buffer-size KB    per-CPU ring buffer in KiB (default 8192)\n"
	       " -o, --output FILE       the recording (default trace.dat; written as\n"
	       "                         FILE.partial and renamed when complete)\n"
	       "     --page-cache        the page-cache, readahead, writeback and direct-I/O\n"
	       "                         events of the stack's filesystems too, and the names\n"
	       "                         of the files they touched (for report -i --by file)\n"
	       "     --resolve-paths MODE  how those files are named at the end: proc (open\n"
	       "                         files and maps of live processes, the default), walk\n"
	       "                         (proc, then a walk of the filesystems), none\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-record(8).\n";
}

enum cli_result cli_parse_record(int argc, char **argv, struct record_params *p,
				 char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "device",	 required_argument, NULL, 'd' },
		{ "duration",	 required_argument, NULL, 'w' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "output",	 required_argument, NULL, 'o' },
		{ "page-cache",	 no_argument,	    NULL, OPT_PAGE_CACHE },
		{ "resolve-paths", required_argument, NULL, OPT_RESOLVE_PATHS },
		{ "debug",	 no_argument,	    NULL, 'D' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	p->buffer_kb = CLI_DEFAULT_BUFFER_KB;
	p->output = "trace.dat";
	optind = 0;
	opterr = 0;
	/* "+": stop at the first non-option, so COMMAND's own options stay its own */
	while ((c = getopt_long(argc, argv, "+:d:w:b:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'd':
			r = add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'w':
			r = opt_duration(optarg, &p->duration_ns, &p->has_duration, err, errlen);
			break;
		case 'b':
			r = opt_buffer(optarg, &p->buffer_kb, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_PAGE_CACHE:
			p->page_cache = true;
			break;
		case OPT_RESOLVE_PATHS:
			r = opt_resolve(optarg, &p->resolve, err, errlen);
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return bad_option(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return usage_error(err, errlen,
					   "unexpected argument '%s' (a command goes after --)",
					   argv[optind]);
		p->command = &argv[optind];
	}
	if (p->resolve && !p->page_cache)
		return usage_error(err, errlen, "--resolve-paths goes with --page-cache");
	if (p->has_duration && p->command)
		return usage_error(err, errlen, "-w and a command are mutually exclusive");
	if (!strcmp(p->output, "-"))
		return usage_error(err, errlen,
				   "-o -: a recording is written with seeks, give a file name");
	return CLI_RUN;
}

static const char *const convert_formats[] = {
	[CONVERT_BLKTRACE] = "blktrace",
	[CONVERT_CSV] = "csv",
	[CONVERT_JSONL] = "jsonl",
	[CONVERT_PERFETTO] = "perfetto",
};

const char *cli_convert_format_name(int format)
{
	if (format < CONVERT_BLKTRACE || format > CONVERT_PERFETTO)
		return "?";
	return convert_formats[format];
}

const char *cli_usage_convert(void)
{
	return "Usage:\n"
	       " blkstack convert -i FILE -F FORMAT [-o OUT] [options]\n"
	       "\n"
	       "Convert a trace.dat recording for other tools: blktrace's binary files (for\n"
	       "blkparse, btt, iowatcher), one row per completed I/O with each layer's times\n"
	       "(CSV, JSON lines), or a trace with a track per device for ui.perfetto.dev.\n"
	       "\n"
	       "Input:\n"
	       " -i, --input FILE        the trace.dat file (blkstack record, or trace-cmd\n"
	       "                         record -e block)\n"
	       "     --topology FILE     the recording's device stack, as 'blkstack topology'\n"
	       "                         wrote it on the traced machine (a blkstack recording\n"
	       "                         carries its own): names for devmap and Perfetto\n"
	       "\n"
	       "Output:\n"
	       " -F, --to FORMAT         blktrace, csv, jsonl or perfetto\n"
	       " -o, --output OUT        the file to write (default: standard output); for\n"
	       "                         blktrace the prefix of OUT.blktrace.N (one file per\n"
	       "                         CPU) and OUT.devmap (btt -M), or - for one stream on\n"
	       "                         standard output (blkparse -i -)\n"
	       "\n"
	       "Tracking (csv, jsonl, perfetto):\n"
	       "     --max-inflight N    bios followed at once at most (default 1048576)\n"
	       "     --timeout TIME      drop a bio not completed after TIME (default 30s)\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-convert(8).\n";
}

enum cli_result cli_parse_convert(int argc, char **argv, struct convert_params *p,
				  char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "input",	  required_argument, NULL, 'i' },
		{ "to",		  required_argument, NULL, 'F' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
		{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
		{ "topology",	  required_argument, NULL, OPT_TOPOLOGY },
		{ "debug",	  no_argument,	     NULL, 'D' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool tracking = false;
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:F:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'i':
			r = opt_file(optarg, &p->input, 'i', err, errlen);
			break;
		case 'F':
			p->format = 0;
			for (int f = CONVERT_BLKTRACE; f <= CONVERT_PERFETTO; f++)
				if (strcmp(optarg, convert_formats[f]) == 0)
					p->format = f;
			if (!p->format)
				return usage_error(err, errlen,
						   "unknown format '%s' (blktrace, csv, jsonl or perfetto)",
						   optarg);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_MAX_INFLIGHT:
			r = opt_max_inflight(optarg, &p->max_inflight, err, errlen);
			tracking = true;
			break;
		case OPT_TIMEOUT:
			r = opt_timeout(optarg, &p->timeout_ns, err, errlen);
			tracking = true;
			break;
		case OPT_TOPOLOGY:
			if (!*optarg)
				return usage_error(err, errlen, "--topology needs a file name");
			p->topology = optarg;
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return bad_option(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc)
		return usage_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (!p->input)
		return usage_error(err, errlen, "no input file: give one with -i FILE");
	if (!p->format)
		return usage_error(err, errlen,
				   "no output format: give one with --to (blktrace, csv, jsonl or perfetto)");
	if (p->format == CONVERT_BLKTRACE && !p->output)
		return usage_error(err, errlen,
				   "--to blktrace writes files named after -o OUT (or - for standard output)");
	if (p->format == CONVERT_BLKTRACE && tracking)
		return usage_error(err, errlen,
				   "--max-inflight and --timeout tune the I/O tracking of csv, jsonl and perfetto; blktrace copies events");
	return CLI_RUN;
}

/* ---- page cache and files: report's options and "blkstack cache" -------- */

/* --by file|dir|process */
static enum cli_result opt_by(const char *arg, int *by, char *err, size_t errlen)
{
	if (!strcmp(arg, "file"))
		*by = CLI_BY_FILE;
	else if (!strcmp(arg, "dir"))
		*by = CLI_BY_DIR;
	else if (!strcmp(arg, "process"))
		*by = CLI_BY_PROCESS;
	else
		return usage_error(err, errlen, "invalid --by '%s' (file, dir or process)", arg);
	return CLI_RUN;
}

/* --top N: rows of a table */
static enum cli_result opt_top(const char *arg, unsigned long long *top, char *err,
			       size_t errlen)
{
	if (parse_uint(arg, 1, 1ULL << 30, top))
		return usage_error(err, errlen, "invalid --top '%s' (a number of rows, at least 1)",
				   arg);
	return CLI_RUN;
}

/* --resolve-paths proc|walk|none */
static enum cli_result opt_resolve(const char *arg, int *mode, char *err, size_t errlen)
{
	if (!strcmp(arg, "proc"))
		*mode = CLI_RESOLVE_PROC;
	else if (!strcmp(arg, "walk"))
		*mode = CLI_RESOLVE_WALK;
	else if (!strcmp(arg, "none"))
		*mode = CLI_RESOLVE_NONE;
	else
		return usage_error(err, errlen, "invalid --resolve-paths '%s' (proc, walk or none)",
				   arg);
	return CLI_RUN;
}

const char *cli_usage_cache(void)
{
	return "Usage:\n"
	       " blkstack cache [options] [interval [count]]\n"
	       " blkstack cache --log [options]\n"
	       "\n"
	       "Every interval (default 1s), print per file the pages inserted into the page\n"
	       "cache (misses), those inserted by synchronous and asynchronous readahead, the\n"
	       "pages evicted, the pages asked of the cache and the share of those it served.\n"
	       "With --log, print one line per run of pages a task inserted into a file instead:\n"
	       "\"path ino first..last [RA sync|async]\". Works on any filesystem.\n"
	       "\n"
	       "Source:\n"
	       " -d, --device DEV|DIR    watch the filesystems on DEV's stack, or the one mounted\n"
	       "                         at DIR (repeatable); default: every filesystem\n"
	       " -w, --duration TIME     stop after TIME (10, 10s, 500ms, 2m); default: Ctrl-C,\n"
	       "                         or count intervals\n"
	       " -b, --buffer-size KB    per-CPU ring buffer in KiB (default 8192)\n"
	       "\n"
	       "Output:\n"
	       " -o, --output FILE       write to FILE instead of standard output\n"
	       "     --log               one line per run of inserted pages, not tables\n"
	       "     --top N             files per interval (default 20)\n"
	       "     --resolve-paths MODE  proc (open files and maps of live processes, the\n"
	       "                         default), walk (proc, then a walk of the filesystems),\n"
	       "                         none (MAJ:MIN:ino)\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-cache(8).\n";
}

enum cli_result cli_parse_cache(int argc, char **argv, struct cache_params *p,
				char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "device",	   required_argument, NULL, 'd' },
		{ "duration",	   required_argument, NULL, 'w' },
		{ "buffer-size",   required_argument, NULL, 'b' },
		{ "output",	   required_argument, NULL, 'o' },
		{ "log",	   no_argument,	      NULL, OPT_LOG },
		{ "top",	   required_argument, NULL, OPT_TOP },
		{ "resolve-paths", required_argument, NULL, OPT_RESOLVE_PATHS },
		{ "debug",	   no_argument,	      NULL, 'D' },
		{ "help",	   no_argument,	      NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	p->buffer_kb = CLI_DEFAULT_BUFFER_KB;
	p->interval_ns = 1000000000ULL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:w:b:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'd':
			r = add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'w':
			r = opt_duration(optarg, &p->duration_ns, &p->has_duration, err, errlen);
			break;
		case 'b':
			r = opt_buffer(optarg, &p->buffer_kb, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_LOG:
			p->log = true;
			break;
		case OPT_TOP:
			r = opt_top(optarg, &p->top, err, errlen);
			break;
		case OPT_RESOLVE_PATHS:
			r = opt_resolve(optarg, &p->resolve, err, errlen);
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return bad_option(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc && p->log)
		return usage_error(err, errlen,
				   "--log prints as it goes: no interval (stop it with -w or Ctrl-C)");
	r = opt_interval_count(argc, argv, &p->interval_ns, &p->count, &p->has_count, err,
			       errlen);
	if (r != CLI_RUN)
		return r;
	if (p->log && p->top)
		return usage_error(err, errlen, "--top is for the tables: not with --log");
	return CLI_RUN;
}
