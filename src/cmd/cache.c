// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cache.c - "blkstack cache": the page cache per file, live, every
 * interval; or with --log one line per run of pages a task inserted.
 *
 * Glue only: live tracing with the page-cache events (cmd/live) -> the
 * attribution (pagecache, through pc_run) -> out_files_interval() or
 * out_files_log_line().
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/array.h"
#include "base/util.h"
#include "cmd/cache.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "cmd/opt.h"
#include "cmd/pagecache.h"
#include "output/files.h"
#include "output/outfile.h"

enum {
	OPT_TOP = CHAR_MAX + 1,
	OPT_RESOLVE_PATHS,
	OPT_LOG,
};

/* ---- options ---- */

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
	       "     --resolve-paths MODE  proc (opens seen by fanotify while tracing, then open\n"
	       "                         files and maps of live processes; the default), walk\n"
	       "                         (proc, then a walk of the filesystems), none\n"
	       "                         (MAJ:MIN:ino)\n"
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
			r = opt_add_dev(p->devs, &p->ndevs, optarg, err, errlen);
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
			return opt_bad(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc && p->log)
		return opt_error(err, errlen,
				 "--log prints as it goes: no interval (stop it with -w or Ctrl-C)");
	r = opt_interval_count(argc, argv, &p->interval_ns, &p->count, &p->has_count, err,
			       errlen);
	if (r != CLI_RUN)
		return r;
	if (p->log && p->top)
		return opt_error(err, errlen, "--top is for the tables: not with --log");
	return CLI_RUN;
}

/* ---- the command ---- */

/* Files shown per interval without --top. */
#define CACHE_ROWS 20

struct cache {
	const struct cache_params *p;
	FILE *fp;
	struct pc_run run;
	uint64_t start;
	unsigned long long shown;
	int err;
	struct pc_log_range *lines;	/* --log: the runs of this pass, to name then print */
	size_t nlines, lines_cap;
};

/* --log: keep the run; it is named and printed at the end of the pass. */
static void log_line(const struct pc_log_range *lr, void *ctx)
{
	struct cache *c = ctx;

	if (ARRAY_ROOM(c->lines, c->nlines, c->lines_cap, 256) < 0) {
		c->err = -ENOMEM;
		return;
	}
	c->lines[c->nlines++] = *lr;
}

/*
 * --log, at the end of a pass: name the files of the runs (the open files
 * of their tasks, then a walk with --resolve-paths=walk), print the runs.
 */
static void print_log(struct cache *c)
{
	struct pc_run *r = &c->run;
	struct pathres_key *want = NULL;
	size_t m = 0;

	pagecache_flush_log(r->pc);
	pc_run_pass(r);
	if (r->resolve == CLI_RESOLVE_WALK && c->nlines)
		want = malloc(c->nlines * sizeof(*want));
	for (size_t i = 0; want && i < c->nlines; i++)
		if (!pathres_lookup(r->pr, c->lines[i].sdev, c->lines[i].ino, NULL))
			want[m++] = (struct pathres_key){ c->lines[i].sdev, c->lines[i].ino };
	if (m && pc_run_walk(r, want, m) == -ENOMEM)
		c->err = -ENOMEM;
	free(want);
	for (size_t i = 0; i < c->nlines && !c->err; i++) {
		int ret = out_files_log_line(c->fp, r->pr, &c->lines[i]);

		if (ret < 0)
			c->err = ret;
	}
	c->nlines = 0;
	if (!c->err && fflush(c->fp))
		c->err = -errno;
}

/* After each pass: name new files; print the interval when its time is up. */
static int cache_pass(void *ctx)
{
	struct cache *c = ctx;
	uint64_t now = mono_now_ns();
	char label[64];
	time_t t;
	struct tm tm;
	int ret;

	if (c->p->log) {
		print_log(c);
		return c->err;
	}
	pc_run_pass(&c->run);
	if (now < c->start + c->p->interval_ns)
		return 0;
	if (c->run.resolve == CLI_RESOLVE_WALK && pc_run_walk_unnamed(&c->run, true) < 0) {
		c->err = -ENOMEM;
		return c->err;
	}
	t = time(NULL);
	strftime(label, sizeof(label), "%H:%M:%S", localtime_r(&t, &tm));
	ret = out_files_interval(c->fp, c->run.pc, c->run.pr, label,
				 c->p->top ? c->p->top : CACHE_ROWS);
	if (ret == 0 && fflush(c->fp))
		ret = -errno;
	if (ret < 0) {
		c->err = ret;
		return ret;
	}
	pagecache_interval_reset(c->run.pc);
	c->start = now;
	c->shown++;
	return c->p->has_count && c->shown >= c->p->count ? 1 : 0;
}

static int run(struct cache *c, struct live *l)
{
	const struct cache_params *p = c->p;
	struct live_opts lo = {
		.devs = p->devs, .ndevs = p->ndevs, .buffer_kb = p->buffer_kb,
		.pagecache = true, .fsmap = &c->run.map,
	};
	int ret;

	live_signals();
	if (live_open(l, &lo) < 0)
		return -1;
	if (p->ndevs && !l->pcf.nsdevs) {
		err_msg("no filesystem is mounted on the devices given with -d");
		return -1;
	}
	if (l->s.pc_missing[PC_EV_ADD - PC_EV_ADD]) {
		err_msg("this kernel has no filemap:mm_filemap_add_to_page_cache event: the page cache cannot be watched");
		return -1;
	}
	pc_run_watch(&c->run, &l->pcf);
	if (live_start(l) < 0)
		return -1;
	if (!p->log)
		fprintf(c->fp, "blkstack cache, every %.3f s: per file, pages inserted (MISSES; RA-SYNC "
			       "and RA-ASYNC by readahead), EVICTED, LOOKUPS asked of the cache, HIT%% "
			       "of them served, disk KiB\n\n", p->interval_ns / 1e9);
	fflush(c->fp);
	c->start = mono_now_ns();
	ret = live_loop(l, p->has_duration ? p->duration_ns : 0, pc_run_event, &c->run,
			cache_pass, c);
	if (ret == 0 && !c->err)
		ret = live_finish(l, pc_run_event, &c->run);
	if (p->log && !c->err)
		print_log(c);
	live_report_losses(live_stats(l));
	return ret < 0 ? -1 : 0;
}

int cmd_cache(int argc, char **argv)
{
	struct outfile of = { 0 };
	struct cache_params p;
	struct live l = { 0 };
	struct cache c = { 0 };
	char err[CLI_ERR_LEN];
	int rc = EXIT_RUNTIME;
	int ret;

	switch (cli_parse_cache(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_cache(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " cache --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	c.p = &p;
	if (pc_run_init(&c.run, true, p.resolve, NULL, NULL) < 0)
		goto out;
	if (p.log)
		pagecache_set_log(c.run.pc, log_line, &c);
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	c.fp = of.fp;
	signal(SIGPIPE, SIG_IGN);
	ret = run(&c, &l);
	if (c.err == -EPIPE) {
		rc = EXIT_OK;	/* the reader left (| head) */
		goto out;
	}
	if (c.err) {
		err_msg("cannot write to '%s': %s", p.output ? p.output : "standard output",
			strerror(-c.err));
		goto out;
	}
	if (ret < 0)
		goto out;
	ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write to '%s': %s", p.output ? p.output : "standard output",
			strerror(-ret));
		goto out;
	}
	rc = EXIT_OK;
out:
	if (of.fp)
		outfile_abort(&of);
	live_close(&l);
	pc_run_destroy(&c.run);
	free(c.lines);
	return rc;
}
