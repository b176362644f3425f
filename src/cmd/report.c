// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report.c - "blkstack report": every I/O followed through the stack,
 * summarised per layer, end to end and per process.
 *
 * Glue only: a recording (tracefile) or live tracing (cmd/live) -> the
 * tracker -> the statistics -> the text or JSON report.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/pcevent.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "cmd/opt.h"
#include "cmd/report-btt.h"
#include "cmd/report-cgroup.h"
#include "cmd/report-files.h"
#include "cmd/report-iostat.h"
#include "cmd/report-time.h"
#include "cmd/report.h"
#include "cmd/roles.h"
#include "format/tracefile.h"
#include "output/amp.h"
#include "output/html.h"
#include "output/outfile.h"
#include "output/report.h"
#include "track/amp.h"
#include "track/stats.h"
#include "track/topo-record.h"
#include "track/tracker.h"

enum {
	OPT_JSON = CHAR_MAX + 1,
	OPT_MAX_INFLIGHT,
	OPT_TIMEOUT,
	OPT_TOPOLOGY,
	OPT_PAGE_CACHE,
	OPT_BY,
	OPT_TOP,
	OPT_FOLDED,
	OPT_FLAME,
	OPT_RESOLVE_PATHS,
	OPT_SLOWEST,
	OPT_HTML,
	OPT_ACCESS,
	OPT_BTT,
	OPT_IOSTAT,
	OPT_HZ,
	OPT_AMPLIFICATION,
};

/* ---- options ---- */

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
	       " -j, --jobs N            with -i: read the recording in N threads, one of\n"
	       "                         them merging (default: the number of CPUs; 1: one)\n"
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
	       "     --slowest N         add the N slowest top-level I/Os, each with its path\n"
	       "                         through the stack (per layer: Q, submission, time\n"
	       "                         below, completion, total), process and file\n"
	       "     --access            add per layer the access pattern (sequential share, seek\n"
	       "                         distances, their entropy) and I/Os in flight\n"
	       "     --by flag           latency per layer split by rwbs flags (sync, meta, FUA,\n"
	       "                         preflush, readahead) and operation, instead of the report\n"
	       "     --html FILE.html    also write one self-contained HTML page: the costliest\n"
	       "                         layer per operation, latency over time with markers,\n"
	       "                         heatmaps, the slowest I/Os (20 unless --slowest says)\n"
	       "     --amplification     add each layer's I/Os and bytes per top-level I/O,\n"
	       "                         for it and on the layer's own\n"
	       "     --btt               btt's report instead, per device of the stack: its\n"
	       "                         phase, merge, seek, plug, queue and Q2D tables\n"
	       "     --iostat            iostat -x's columns instead, per device of the stack,\n"
	       "                         over the whole trace\n"
	       "     --hz N              with --iostat: the traced kernel's CONFIG_HZ, in\n"
	       "                         whose ticks it counts %util (default: this kernel's\n"
	       "                         live, else 250)\n"
	       "\n"
	       "Files (page cache; live, these trace the page-cache events too):\n"
	       "     --page-cache        add the files that caused the disk I/O to the report\n"
	       "     --by file|dir|process  report per file, per directory (everything beneath\n"
	       "                         it) or per process instead of per layer\n"
	       "     --by cgroup         live: top-level I/O per cgroup of the task that queued\n"
	       "                         it, end to end, instead of per layer (no page cache)\n"
	       "     --top N             rows of that table (default 20)\n"
	       "     --folded            folded stacks of disk bytes per path (flamegraph.pl,\n"
	       "                         inferno, speedscope) instead of a table\n"
	       "     --flame FILE.svg    also write an SVG flame graph of bytes per directory\n"
	       "     --resolve-paths MODE  inode to path: proc (opens seen by fanotify while\n"
	       "                         tracing, then open files and maps of live processes;\n"
	       "                         the default live), walk (proc, then a walk\n"
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
		{ "jobs",	  required_argument, NULL, 'j' },
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
		{ "slowest",	  required_argument, NULL, OPT_SLOWEST },
		{ "html",	  required_argument, NULL, OPT_HTML },
		{ "access",	  no_argument,	     NULL, OPT_ACCESS },
		{ "btt",	  no_argument,	     NULL, OPT_BTT },
		{ "amplification", no_argument,	     NULL, OPT_AMPLIFICATION },
		{ "iostat",	  no_argument,	     NULL, OPT_IOSTAT },
		{ "hz",		  required_argument, NULL, OPT_HZ },
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
	while ((c = getopt_long(argc, argv, "+:i:d:w:b:j:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'i':
			r = opt_file(optarg, &p->input, 'i', err, errlen);
			break;
		case 'd':
			r = opt_add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'w':
			r = opt_duration(optarg, &p->duration_ns, &p->has_duration, err, errlen);
			break;
		case 'b':
			r = opt_buffer(optarg, &p->buffer_kb, err, errlen);
			break;
		case 'j':
			r = opt_jobs(optarg, &p->jobs, err, errlen);
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
			r = opt_topology(optarg, &p->topology, err, errlen);
			break;
		case OPT_PAGE_CACHE:
			page_cache_opt = true;
			break;
		case OPT_BY:
			/* the last --by wins: cgroup is of block I/O, the others of files */
			p->by_cgroup = !strcmp(optarg, "cgroup");
			if (p->by_cgroup)
				p->by = CLI_BY_NONE;
			else
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
				return opt_error(err, errlen, "--flame needs a file name");
			p->flame = optarg;
			break;
		case OPT_RESOLVE_PATHS:
			r = opt_resolve(optarg, &p->resolve, err, errlen);
			break;
		case OPT_SLOWEST:
			if (parse_uint(optarg, 1, CLI_MAX_SLOWEST, &p->slowest))
				return opt_error(err, errlen,
						 "invalid --slowest '%s' (a number of I/Os, 1 to %d)",
						 optarg, CLI_MAX_SLOWEST);
			break;
		case OPT_ACCESS:
			p->access = true;
			break;
		case OPT_HTML:
			if (!*optarg)
				return opt_error(err, errlen, "--html needs a file name");
			p->html = optarg;
			break;
		case OPT_BTT:
			p->btt = true;
			break;
		case OPT_IOSTAT:
			p->iostat = true;
			break;
		case OPT_AMPLIFICATION:
			p->amplification = true;
			break;
		case OPT_HZ:
			r = opt_hz(optarg, &p->hz, err, errlen);
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
	p->page_cache = page_cache_opt || (p->by != CLI_BY_NONE && p->by != CLI_BY_FLAG) ||
			p->folded || p->flame;
	if (p->input && page_cache_opt)
		return opt_error(err, errlen,
				 "--page-cache is for live tracing: a recording has the events it was made with");
	if (p->by_cgroup && p->input)
		return opt_error(err, errlen,
				 "--by cgroup reads the cgroups of live tasks: not with -i");
	if (p->by_cgroup && (p->page_cache || p->top || p->slowest || p->access || p->html ||
			     p->btt || p->iostat || p->amplification))
		return opt_error(err, errlen,
				 "--by cgroup is its own table of block I/O: not with --page-cache, --top, --folded, --flame, --slowest, --access, --html, --btt, --iostat or --amplification");
	if (p->top && (p->by == CLI_BY_NONE || p->by == CLI_BY_FLAG))
		return opt_error(err, errlen, "--top goes with --by file, dir or process");
	if (p->by == CLI_BY_FLAG && (page_cache_opt || p->slowest))
		return opt_error(err, errlen,
				 "--by flag is its own table: not with --page-cache or --slowest");
	if ((p->slowest || p->access) && p->by != CLI_BY_NONE)
		return opt_error(err, errlen,
				 "--slowest and --access add to the per-layer report: not with --by");
	if ((p->slowest || p->access) && p->folded)
		return opt_error(err, errlen,
				 "--folded prints stacks of paths: not with --slowest or --access");
	if (p->folded && (p->json || p->by == CLI_BY_PROCESS))
		return opt_error(err, errlen,
				 "--folded prints stacks of paths: not with --json or --by process");
	if (p->folded && p->by != CLI_BY_NONE && p->by != CLI_BY_DIR)
		return opt_error(err, errlen, "--folded goes with --by dir (or alone)");
	if (p->json && page_cache_opt && p->by == CLI_BY_NONE)
		return opt_error(err, errlen,
				 "--json and --page-cache: choose the table with --by file, dir or process");
	if (p->amplification && (p->btt || p->iostat || p->page_cache))
		return opt_error(err, errlen,
				 "--amplification adds to the per-layer report: not with --btt, --iostat "
				 "or the page-cache options");
	if (p->hz && !p->iostat)
		return opt_error(err, errlen, "--hz goes with --iostat");
	if (p->btt && p->iostat)
		return opt_error(err, errlen, "--btt and --iostat are mutually exclusive");
	if (p->iostat && p->page_cache)
		return opt_error(err, errlen,
				 "--iostat reports iostat's table: not with --page-cache, --by, --folded or --flame");
	if (p->btt && p->page_cache)
		return opt_error(err, errlen,
				 "--btt reports btt's tables: not with --page-cache, --by, --folded or --flame");
	if (p->resolve && !p->page_cache)
		return opt_error(err, errlen,
				 "--resolve-paths goes with --page-cache, --by, --folded or --flame");
	if (optind < argc) {
		/* getopt stops at "--" or at the first non-option: COMMAND starts here */
		if (strcmp(argv[optind - 1], "--") != 0)
			return opt_error(err, errlen,
					 "unexpected argument '%s' (a command goes after --)",
					 argv[optind]);
		p->command = &argv[optind];
	}
	if (p->input && (p->ndevs || p->has_duration || p->command))
		return opt_error(err, errlen,
				 "-i reads a recording: -d, -w and a command are for live tracing");
	if (p->jobs && !p->input)
		return opt_error(err, errlen,
				 "-j decodes a recording in threads: it goes with -i");
	if (p->has_duration && p->command)
		return opt_error(err, errlen, "-w and a command are mutually exclusive");
	if (p->topology && !p->input)
		return opt_error(err, errlen, OPT_TOPOLOGY_LIVE);
	return CLI_RUN;
}

/* ---- the command ---- */

/*
 * A truncated recording is reported up to where its first cut CPU's data
 * ends (@ns, trace clock; 0: not cut): the events after it are of I/Os
 * whose events on that CPU are gone. @fn and @ctx: the consumer wrapped.
 */
struct cut {
	uint64_t ns;
	blk_event_fn fn;
	void *ctx;
};

/* Past the cut, the read stops: what this returns ends it (not an error). */
#define CUT_REACHED (-ERANGE)

static int cut_event(const struct blk_event *ev, void *ctx)
{
	const struct cut *cut = ctx;

	return ev->ts > cut->ns ? CUT_REACHED : cut->fn(ev, cut->ctx);
}

/*
 * The consumers of one report, made by one function and freed by one, so
 * that a read that starts again at a remap (cmd/roles.h) forgets none:
 * @p: the options they were made for
 * @st: the statistics
 * @t: the tracker (@run's when the page-cache side runs)
 * @x: --slowest, --by flag, --access, --html
 * @amp: --amplification (fed through @x)
 * @run: the page-cache side (--by file, dir or process, --folded, --flame,
 *	 --page-cache), owner of the tracker; @run.pc is NULL when it does not run
 * @rcg: --by cgroup
 * @btt: --btt
 * @ios: --iostat
 * @feed: the consumer of the events when it is not the tracker (--btt,
 *	  --iostat, --by cgroup), else NULL
 * @feed_ctx: its context
 */
struct collectors {
	const struct report_params *p;
	struct stats *st;
	struct tracker *t;
	struct report_extra x;
	struct amp amp;
	struct pc_run run;
	struct report_cg rcg;
	struct report_btt btt;
	struct report_iostat ios;
	blk_event_fn feed;
	void *feed_ctx;
	struct cut cut;
};

/* Make @c's consumers for @p, empty; 0, or -1 after saying what failed (then free @c). */
static int collectors_build(struct collectors *c, const struct report_params *p)
{
	struct tk_params tp = { .max_inflight = p->max_inflight, .timeout_ns = p->timeout_ns };
	unsigned int hz;

	memset(c, 0, sizeof(*c));
	c->p = p;
	c->st = stats_alloc();
	if (c->st && report_extra_init(&c->x, c->st, p->slowest, p->by == CLI_BY_FLAG, p->access,
				       p->html) < 0) {
		stats_free(c->st);
		c->st = NULL;
	}
	/* the page has the amplification table whether or not the text report asks for it */
	if (p->amplification || p->html)
		c->x.amp = &c->amp;
	if (c->st && p->page_cache) {
		/* the files' side owns the tracker: completed I/O gives files their latency */
		if (pc_run_init(&c->run, !p->input, p->resolve, &tp, c->st) < 0)
			return -1;
		c->t = c->run.t;
		if (report_extra_any(&c->x)) {
			c->run.io_fn = report_extra_owner_io;
			c->run.io_ctx = &c->x;
			c->x.run = &c->run;
		}
	} else if (c->st && p->by_cgroup) {
		c->rcg.st = c->st;
		if (cg_stats_init(&c->rcg.cg, "", REPORT_MAX_CGROUPS) == 0)
			c->t = c->rcg.t = tracker_alloc(&tp, report_cg_io, &c->rcg);
		/* the cgroup of a queueing task is looked up before the tracker takes its event */
		c->feed = report_cg_event;
		c->feed_ctx = &c->rcg;
	} else if (c->st) {
		c->t = report_extra_any(&c->x) ? tracker_alloc(&tp, report_extra_io, &c->x)
					       : tracker_alloc(&tp, stats_io, c->st);
	}
	if (!c->t)
		goto enomem;
	c->x.t = c->t;
	if (p->btt) {
		if (report_btt_init(&c->btt) < 0)
			goto enomem;
		c->feed = report_btt_event;
		c->feed_ctx = &c->btt;
	} else if (p->iostat) {
		/* live, the running kernel's CONFIG_HZ is the traced one's */
		hz = p->hz ? p->hz : !p->input && report_iostat_hz() ? report_iostat_hz()
								  : REPORT_IOSTAT_DEFAULT_HZ;
		if (report_iostat_init(&c->ios, hz) < 0)
			goto enomem;
		c->feed = report_iostat_event;
		c->feed_ctx = &c->ios;
	}
	return 0;
enomem:
	err_msg("out of memory");
	return -1;
}

/* Free what collectors_build() made, even half of it. */
static void collectors_free(struct collectors *c)
{
	if (c->t != c->run.t)
		tracker_free(c->t);
	pc_run_destroy(&c->run);	/* its tracker too */
	report_extra_destroy(&c->x);
	stats_free(c->st);
	report_btt_destroy(&c->btt);
	amp_destroy(&c->amp);
	report_iostat_destroy(&c->ios);
	cg_stats_destroy(&c->rcg.cg);
	memset(c, 0, sizeof(*c));
}

/* The traced command of "report -- COMMAND", and the page-cache side to name files after each pass. */
struct watched {
	struct live_command cmd;
	struct pc_run *run;
};

static int after_pass(void *ctx)
{
	struct watched *w = ctx;

	if (w->run)
		pc_run_pass(w->run);
	return live_command_check(&w->cmd);
}

/* @feed, @feed_ctx: with --btt or --iostat, the consumer of the events instead of the tracker */
static int run_live(const struct report_params *p, struct tracker *t,
		    const struct source_stats **src, struct live *l, struct watched *w,
		    blk_event_fn feed, void *feed_ctx)
{
	/* btt's plug table: plugs name no device, so -d filters them out unless asked */
	struct live_opts lo = { .devs = p->devs, .ndevs = p->ndevs, .buffer_kb = p->buffer_kb,
				.plugs = p->btt && p->ndevs, .diskstats = p->iostat };
	blk_event_fn fn = w->run ? pc_run_event : feed ? feed : tracker_event;
	void *ctx = w->run ? (void *)w->run : feed ? feed_ctx : (void *)t;
	int ret;

	if (w->run) {
		lo.pagecache = true;
		lo.fsmap = &w->run->map;
	}
	live_signals();
	if (live_open(l, &lo) < 0)
		return -1;
	live_mark_roles(l, t);
	if (w->run) {
		pc_run_dio_events(w->run, !l->s.pc_missing[PC_EV_DIO_BEGIN - PC_EV_ADD],
				  !l->s.pc_missing[PC_EV_DIO_ITER - PC_EV_ADD]);
		/* before tracing starts: the traced command's opens are the first */
		pc_run_watch(w->run, &l->pcf);
	}
	if (live_start(l) < 0)
		return -1;
	if (p->command) {
		if (live_command_start(&w->cmd, p->command) < 0)
			return -1;
	} else if (!p->has_duration) {
		/* said whatever stderr is: nothing else says the command waits for a signal */
		live_say_tracing(l, "report");
	}
	ret = live_loop(l, p->has_duration ? p->duration_ns : 0, fn, ctx, after_pass, w);
	if (ret == 0)
		ret = live_finish(l, fn, ctx);
	live_command_end(&w->cmd);
	if (ret < 0)
		return -1;
	*src = live_stats(l);
	live_report_losses(*src);
	return 0;
}

/* A recording may hold page-cache events: without the file options, only block events count. */
static int block_event(const struct blk_event *ev, void *ctx)
{
	return pc_kind_is(ev->kind) ? 0 : tracker_event(ev, ctx);
}

/* One read of the recording into @ctx's collectors (a roles_reader's read). */
static int read_recording(struct tracefile *f, void *ctx)
{
	struct collectors *c = ctx;
	blk_event_fn fn;
	void *fn_ctx;
	int ret;

	if (c->run.pc) {
		if (pc_run_recorded_names(&c->run, f) < 0) {
			err_msg("out of memory");
			return -ECANCELED;
		}
		pc_run_dio_events(&c->run, tracefile_has(f, PC_EV_DIO_BEGIN),
				  tracefile_has(f, PC_EV_DIO_ITER));
		fn = pc_run_event;
		fn_ctx = &c->run;
	} else if (c->feed) {
		fn = c->feed;
		fn_ctx = c->feed_ctx;
	} else {
		/* the events no rule takes only move the tracker's clock */
		tracefile_bare_kinds(f, tracker_bare_kinds());
		/* most recordings have no page-cache event to leave out: no test per event */
		fn = tracefile_has_pagecache(f) ? block_event : tracker_event;
		fn_ctx = c->t;
	}
	if (!c->cut.ns)
		return tracefile_read(f, fn, fn_ctx);
	c->cut.fn = fn;
	c->cut.ctx = fn_ctx;
	ret = tracefile_read(f, cut_event, &c->cut);
	return ret == CUT_REACHED ? 0 : ret;
}

/* The collectors made again, empty, for a read that starts again (a roles_reader's rebuild). */
static struct tracker *rebuild(void *ctx)
{
	struct collectors *c = ctx;
	const struct report_params *p = c->p;
	uint64_t cut = c->cut.ns;

	collectors_free(c);
	if (collectors_build(c, p) < 0)
		return NULL;
	c->cut.ns = cut;
	return c->t;
}

/*
 * Where a truncated recording is reported up to: the time of the last
 * record of the CPU whose data ends first (@cpu set to it), 0 when no CPU
 * is cut or none of the cut ones has a record left. @missing: set to the
 * cut CPUs with no record at all ("cpu1, cpu3"; "" when none): their I/O
 * is missing from the whole report.
 */
static uint64_t recording_cut(const struct source_stats *st, int *cpu, char *missing,
			      size_t len)
{
	uint64_t cut = 0;
	size_t n = 0;

	missing[0] = '\0';
	for (int i = 0; i < st->ncpu; i++) {
		const struct source_cpu_stats *cs = &st->cpu[i];

		if (cs->truncated && !cs->last_ts && n < len)
			n += snprintf(missing + n, len - n, "%scpu%d", n ? ", " : "", i);
		if (cs->truncated && cs->last_ts && (!cut || cs->last_ts < cut)) {
			cut = cs->last_ts;
			*cpu = i;
		}
	}
	return cut;
}

/* One read of the recording into @c, the roles of its devices learnt first (not with --btt, --iostat). */
static int read_file(const struct report_params *p, struct collectors *c, struct tracefile *f,
		     const struct topo_record *stack, int jobs)
{
	struct roles_reader reader = { .read = read_recording, .rebuild = rebuild, .ctx = c };

	/* --btt and --iostat take the events themselves: no tracker needs roles */
	if (c->feed)
		return read_recording(f, c);
	return roles_read(p->input, f, stack, c->t, jobs, &reader);
}

/*
 * @stack: the stack given with --topology, else the one the file carries.
 * @cut, @cut_cpu: set where a truncated recording was reported up to (0: not cut).
 * @missing: set to the CPUs of a truncated recording with no data left (@len bytes).
 * Returns 0, 1 when the recording is truncated (reported up to the cut), or -1.
 */
static int run_file(const struct report_params *p, struct collectors *c,
		    const struct source_stats **src, struct tracefile **fp,
		    const struct topo_record **stack, uint64_t *cut, int *cut_cpu,
		    char *missing, size_t len)
{
	int jobs = p->jobs ? p->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
	bool truncated = false;
	int ret;

	*fp = tracefile_open(p->input, &ret);
	if (!*fp) {
		tracefile_open_error(p->input, ret);
		return -1;
	}
	if (!*stack)
		*stack = tracefile_topology(*fp);
	/* decoding in threads changes nothing of what the tracker is given */
	tracefile_set_jobs(*fp, jobs);
	ret = read_file(p, c, *fp, *stack, jobs);
	*src = tracefile_stats(*fp);
	*cut = ret >= 0 ? recording_cut(*src, cut_cpu, missing, len) : 0;
	if (*cut) {
		/* again, up to the cut: later events are of I/Os with events gone */
		if (!rebuild(c))
			return -1;
		c->cut.ns = *cut;
		ret = tracefile_rewind(*fp);
		if (ret < 0) {
			err_msg("cannot read '%s' again: %s", p->input, strerror(-ret));
			return -1;
		}
		ret = read_file(p, c, *fp, *stack, jobs);
	}
	if (ret == -ECANCELED)
		return -1;	/* said */
	for (int i = 0; i < (*src)->ncpu; i++)
		truncated |= (*src)->cpu[i].truncated != 0;
	/* cut short, the events before the cut are the report's: not a refusal */
	if (tracefile_damage_said(p->input, *fp, ret,
				  truncated && ret >= 0 ? "reported (see the warning)" : NULL) &&
	    !(truncated && ret >= 0))
		return -1;
	if (ret >= 0 && tracefile_no_block_said(p->input, *fp))
		return -1;
	if (ret < 0)
		return -1;
	return truncated ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct watched w = { .cmd = { .pid = -1 } };
	const struct source_stats *src = NULL;
	struct tracefile *file = NULL;
	struct outfile of = { 0 }, html = { 0 };
	struct live l = { 0 };
	struct topo_record topology = { 0 }, live_stack = { 0 };
	const struct topo_record *stack = NULL;
	struct report_time rtime, htime;
	struct collectors c = { 0 };
	struct report_files_opts fopts;
	struct report_params p;
	struct report r;
	char err[CLI_ERR_LEN];
	int rc = EXIT_RUNTIME, cut_cpu = -1;
	bool truncated = false;
	char missing[256] = "";
	uint64_t cut = 0;
	int ret;

	switch (cli_parse_report(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_report(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " report --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	fopts = (struct report_files_opts){ .by = p.by, .top = p.top, .folded = p.folded,
					    .flame = p.flame, .json = p.json, .recording = !!p.input };
	/* a page that cannot be written is said before tracing, not after */
	if (p.html && report_html_open(&html, p.html) < 0)
		goto out;
	if (collectors_build(&c, &p) < 0)
		goto out;
	if (c.run.pc)
		w.run = &c.run;
	if (p.iostat && !p.input)
		iostat_count_started(c.ios.s, report_iostat_counts_started());
	if (p.topology) {
		if (topo_record_load_said(p.topology, &topology) < 0)
			goto out;
		stack = &topology;
	}
	if (p.input) {
		ret = run_file(&p, &c, &src, &file, &stack, &cut, &cut_cpu, missing,
			       sizeof(missing));
		truncated = ret == 1;
	} else {
		ret = run_live(&p, c.t, &src, &l, &w, c.feed, c.feed_ctx);
	}
	if (ret < 0)
		goto out;
	tracker_finish(c.t);
	if (c.run.pc && pc_run_finish(&c.run) < 0)
		goto out;
	/* live, sysfs names the layers as a recorded stack does (a device gone since: MAJ:MIN) */
	if (!p.input && live_stack_record(&l, &live_stack) < 0)
		debug_msg("the traced devices could not all be described from sysfs");

	r = (struct report){
		.st = c.st, .tk = tracker_counters(c.t), .src = src,
		.source = p.input ? p.input : "live tracing",
		.name = stack ? topo_record_name : p.input ? NULL : live_dev_name,
		.name_ctx = (void *)stack,
		.names = stack ? stack : live_stack.n ? &live_stack : NULL,
		.topology = stack,
		/* live, sysfs knows the stack: drawn as lsblk -s would, with dm targets */
		.sysfs = !p.input,
		.stack_devs = l.sel.n ? l.sel.devs : NULL, .nstack_devs = l.sel.n,
		.command = p.command ? p.command[0] : NULL,
		.command_done = w.cmd.exited, .command_status = w.cmd.status,
		.time = report_extra_time(&c.x, &rtime, false),
		.amp = p.amplification ? &c.amp : NULL,
		.truncated = truncated, .cut_ns = cut, .cut_cpu = cut_cpu, .cut_missing = missing[0] ? missing : NULL,
	};
	if (cut)
		warn_msg("'%s' is reported up to %.6f s (trace clock), where the data of cpu%d "
			 "ends: the I/Os in flight there are counted as expired, in no latency, "
			 "and the events of the other CPUs after it are left out", p.input,
			 cut / 1e9, cut_cpu);
	if (missing[0])
		warn_msg("'%s' is truncated before any data of %s: the I/O those CPUs traced is "
			 "missing from the whole report, and the I/O they share with the others "
			 "is partly followed", p.input, missing);
	if (c.x.enomem)
		warn_msg("out of memory: the slowest I/Os, flag split or series are incomplete");
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	if (p.by_cgroup) {
		ret = report_cg_output(of.fp, &c.rcg, p.json, r.source, src);
	} else if (p.btt) {
		ret = report_btt_output(of.fp, &c.btt, p.json);
	} else if (p.iostat) {
		ret = report_iostat_output(of.fp, &c.ios, p.json, r.name, r.name_ctx);
	} else if (p.by == CLI_BY_FLAG) {
		r.time = report_extra_time(&c.x, &rtime, true);
		ret = p.json ? out_flags_json(of.fp, &r) : out_flags_text(of.fp, &r);
	} else if (p.by != CLI_BY_NONE || p.folded) {
		ret = report_files_output(of.fp, &fopts, &c.run, r.source, src, false);
	} else {
		ret = p.json ? out_report_json(of.fp, &r) : out_report_text(of.fp, &r);
		if (!ret && !p.json && p.amplification)
			ret = out_amp_text(of.fp, &r);
		if (!ret && c.run.pc)
			ret = report_files_output(of.fp, &fopts, &c.run, r.source, src, !p.json);
	}
	if (ret == -ECANCELED)
		goto out;
	ret = outfile_write_error(&of, ret);
	if (!ret)
		ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write the report to '%s': %s",
			p.output ? p.output : "standard output", strerror(-ret));
		goto out;
	}
	if (p.html) {
		r.time = report_extra_time(&c.x, &htime, true);
		r.amp = &c.amp;
		report_html_time(&htime, file);
		if (report_html_write(&html, p.html, &r) < 0)
			goto out;
	}
	/* a truncated recording: reported up to its cut, and said to be damaged */
	rc = truncated ? EXIT_RUNTIME : EXIT_OK;
	if (w.cmd.exited && !(WIFEXITED(w.cmd.status) && WEXITSTATUS(w.cmd.status) == 0)) {
		if (WIFEXITED(w.cmd.status))
			note_msg("'%s' exited with status %d", p.command[0], WEXITSTATUS(w.cmd.status));
		else if (WIFSIGNALED(w.cmd.status))
			note_msg("'%s' was killed by signal %d", p.command[0], WTERMSIG(w.cmd.status));
	}
out:
	if (of.fp)
		outfile_abort(&of);
	if (html.fp)
		outfile_abort(&html);
	collectors_free(&c);
	tracefile_close(file);
	live_close(&l);
	topo_record_free(&topology);
	topo_record_free(&live_stack);
	return rc;
}
