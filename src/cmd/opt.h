/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * opt.h - what the commands' option parsers share: the result of a parse,
 * the limits and defaults, and one parser per kind of value (devices,
 * durations, sizes, files, [interval [count]], the page-cache choices).
 *
 * Each command owns its options: its getopt_long table, usage text and
 * parameter struct are in cmd/NAME.c and cmd/NAME.h. The parsers do no I/O
 * and no privilege check, so they can be unit-tested (check_cli); the
 * commands check root and tracefs when they run. A parser that fails puts
 * its message (without the program name) in @err and returns
 * CLI_USAGE_ERROR.
 */
#ifndef BLKSTACK_OPT_H
#define BLKSTACK_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CLI_MAX_DEVS 64
#define CLI_ERR_LEN 256

/* Default per-CPU ring buffer, in KiB: large enough not to lose events at
 * the IOPS this tool is built for, while the reader sleeps between wake-ups. */
#define CLI_DEFAULT_BUFFER_KB 8192

/* --by of report: the values of enum files_by (output/files.h), or none */
enum { CLI_BY_NONE = -1, CLI_BY_FILE = 0, CLI_BY_DIR, CLI_BY_PROCESS, CLI_BY_FLAG };

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

/** opt_error - format a usage error into @err; returns CLI_USAGE_ERROR */
enum cli_result opt_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** opt_bad - getopt's complaint about option character @c, in our words */
enum cli_result opt_bad(char *err, size_t errlen, char **argv, int c);

/** opt_add_dev - one -d argument appended to @devs (at most CLI_MAX_DEVS) */
enum cli_result opt_add_dev(const char **devs, size_t *n, const char *arg, char *err,
			    size_t errlen);

/** opt_duration - -w: a duration into @ns; @has set */
enum cli_result opt_duration(const char *arg, uint64_t *ns, bool *has, char *err, size_t errlen);

/** opt_buffer - -b: the per-CPU ring buffer in KiB */
enum cli_result opt_buffer(const char *arg, unsigned int *kb, char *err, size_t errlen);

/** opt_file - -o, -i: a file name (not empty); @opt names the option */
enum cli_result opt_file(const char *arg, const char **file, char opt, char *err,
			 size_t errlen);

/** opt_topology - --topology FILE: a recorded stack's file (not empty) */
enum cli_result opt_topology(const char *arg, const char **file, char *err, size_t errlen);

/* the refusal of --topology without a recording, the same in every command */
#define OPT_TOPOLOGY_LIVE \
	"--topology describes a recording's stack: it goes with -i (live, the stack comes from sysfs)"

/** opt_max_inflight - --max-inflight: bios the tracker follows at once */
enum cli_result opt_max_inflight(const char *arg, unsigned long long *n, char *err,
				 size_t errlen);

/** opt_timeout - --timeout: a bio not completed after this long expires */
enum cli_result opt_timeout(const char *arg, uint64_t *ns, char *err, size_t errlen);

/**
 * opt_interval_count - iostat's positional [interval [count]], from optind
 * on; nothing may follow them. Unset values are left as they are.
 */
enum cli_result opt_interval_count(int argc, char **argv, uint64_t *interval_ns,
				   unsigned long long *count, bool *has_count, char *err,
				   size_t errlen);

/** opt_by - --by file|dir|process|flag into a CLI_BY_* value */
enum cli_result opt_by(const char *arg, int *by, char *err, size_t errlen);

/** opt_hz - --hz N: a kernel's timer frequency (CONFIG_HZ), 24 to 10000 */
enum cli_result opt_hz(const char *arg, unsigned int *hz, char *err, size_t errlen);

/** opt_top - --top N: rows of a table */
enum cli_result opt_top(const char *arg, unsigned long long *top, char *err, size_t errlen);

/** opt_resolve - --resolve-paths proc|walk|none into an enum cli_resolve */
enum cli_result opt_resolve(const char *arg, int *mode, char *err, size_t errlen);

/** opt_jobs - -j N: threads decoding a recording, from 1 to 1024 */
enum cli_result opt_jobs(const char *arg, int *jobs, char *err, size_t errlen);

#endif /* BLKSTACK_OPT_H */
