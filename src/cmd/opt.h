/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cli.h - command-line parsing of every subcommand into a params struct.
 *
 * The parsers do no I/O and no privilege check, so they can be unit-tested;
 * the commands check root and tracefs when they run.
 */
#ifndef BLKSTACK_CLI_H
#define BLKSTACK_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_MAX_DEVS 64
#define CLI_ERR_LEN 256

/* Default per-CPU ring buffer, in KiB: large enough not to lose events at
 * the IOPS this tool is built for, while the reader sleeps between wake-ups. */
#define CLI_DEFAULT_BUFFER_KB 8192

/* --by of report: the values of enum files_by (out-files.h), or none */
enum { CLI_BY_NONE = -1, CLI_BY_FILE = 0, CLI_BY_DIR, CLI_BY_PROCESS };

/* --resolve-paths: how inode numbers become paths */
enum cli_resolve {
	CLI_RESOLVE_DEFAULT = 0,	/* proc when live, none for a recording */
	CLI_RESOLVE_NONE,		/* dev:ino only */
	CLI_RESOLVE_PROC,		/* open files and maps of live processes */
	CLI_RESOLVE_WALK,		/* those, then a walk of the filesystems */
};

enum cli_result {
	CLI_RUN = 0,		/* parsed: run the command */
	CLI_HELP,		/* -h/--help: print usage to stdout, exit 0 */
	CLI_USAGE_ERROR,	/* message in err: print it, exit 2 */
};

/**
 * struct trace_params - blkstack trace
 * @devs: the -d arguments as given
 * @ndevs: how many
 * @duration_ns: -w, when @has_duration
 * @output: -o file, NULL for stdout
 * @buffer_kb: -b, per-CPU buffer in KiB
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
	bool no_summary;
	bool plugs;
	bool debug;
};

/**
 * struct parse_params - blkstack parse
 * @input: -i trace.dat
 * @output: -o file, NULL for stdout
 * @devs: -d devices (MAJ:MIN only: the file is from another machine)
 * @ndevs: how many
 * @no_summary: --no-summary
 * @debug: -D
 */
struct parse_params {
	const char *input;
	const char *output;
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	bool no_summary;
	bool debug;
};

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
 * @top: --top, rows of that table (0: the default)
 * @folded: --folded, folded stacks of bytes per path instead
 * @flame: --flame FILE.svg, NULL if none
 * @resolve: --resolve-paths, or CLI_RESOLVE_DEFAULT
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
	unsigned long long top;
	bool folded;
	const char *flame;
	int resolve;
};

/** cli_parse_report - parse "blkstack report" arguments */
enum cli_result cli_parse_report(int argc, char **argv, struct report_params *p,
				 char *err, size_t errlen);

/** cli_usage_report - the usage text of "blkstack report" */
const char *cli_usage_report(void);

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
};

/** cli_parse_top - parse "blkstack top" arguments */
enum cli_result cli_parse_top(int argc, char **argv, struct top_params *p,
			      char *err, size_t errlen);

/** cli_usage_top - the usage text of "blkstack top" */
const char *cli_usage_top(void);

/**
 * cli_parse_trace - parse "blkstack trace" arguments (argv[0] is "trace")
 * @err: on CLI_USAGE_ERROR, the message (without program name)
 */
enum cli_result cli_parse_trace(int argc, char **argv, struct trace_params *p,
				char *err, size_t errlen);

/** cli_parse_parse - parse "blkstack parse" arguments (argv[0] is "parse") */
enum cli_result cli_parse_parse(int argc, char **argv, struct parse_params *p,
				char *err, size_t errlen);

/** cli_usage_trace - the usage text of "blkstack trace" */
const char *cli_usage_trace(void);

/** cli_usage_parse - the usage text of "blkstack parse" */
const char *cli_usage_parse(void);

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

/**
 * struct record_params - blkstack record
 * @devs: -d: devices whose stacks to record (none: every device)
 * @ndevs: how many
 * @duration_ns: -w, when @has_duration
 * @command: the COMMAND ARGS after "--" (NULL-terminated), NULL if none
 * @output: -o file (default "trace.dat")
 * @buffer_kb: -b
 * @page_cache: --page-cache: the page-cache events too, and the names of
 *		the files they touched
 * @resolve: --resolve-paths (CLI_RESOLVE_DEFAULT: proc)
 * @debug: -D
 */
struct record_params {
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	uint64_t duration_ns;
	bool has_duration;
	char **command;
	const char *output;
	unsigned int buffer_kb;
	bool page_cache;
	int resolve;
	bool debug;
};

/** cli_parse_record - parse "blkstack record" arguments */
enum cli_result cli_parse_record(int argc, char **argv, struct record_params *p,
				 char *err, size_t errlen);

/** cli_usage_record - the usage text of "blkstack record" */
const char *cli_usage_record(void);

/* What "blkstack convert" writes. */
enum convert_format {
	CONVERT_BLKTRACE = 1,	/* blktrace's per-CPU binary files */
	CONVERT_CSV,		/* one row per I/O, comma-separated */
	CONVERT_JSONL,		/* one JSON object per I/O and line */
	CONVERT_PERFETTO,	/* Chrome trace-event JSON */
};

/**
 * struct convert_params - blkstack convert
 * @input: -i trace.dat
 * @output: -o: the file, or for blktrace the prefix of the files; NULL or
 *	    "-" for standard output
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

/**
 * struct cache_params - blkstack cache
 * @devs: -d (devices or mounted directories whose filesystems to watch)
 * @ndevs: how many; 0 watches every filesystem
 * @interval_ns: the interval argument (default 1 s)
 * @count: the count argument, when @has_count
 * @duration_ns: -w, when @has_duration
 * @output: -o file, NULL for stdout
 * @buffer_kb: -b
 * @log: --log, one line per run of pages inserted instead of tables
 * @top: --top, files per interval (0: the default)
 * @resolve: --resolve-paths (CLI_RESOLVE_DEFAULT: proc)
 * @debug: -D
 */
struct cache_params {
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	uint64_t interval_ns;
	unsigned long long count;
	bool has_count;
	uint64_t duration_ns;
	bool has_duration;
	const char *output;
	unsigned int buffer_kb;
	bool log;
	unsigned long long top;
	int resolve;
	bool debug;
};

/** cli_parse_cache - parse "blkstack cache" arguments */
enum cli_result cli_parse_cache(int argc, char **argv, struct cache_params *p,
				char *err, size_t errlen);

/** cli_usage_cache - the usage text of "blkstack cache" */
const char *cli_usage_cache(void);

#endif /* BLKSTACK_CLI_H */
