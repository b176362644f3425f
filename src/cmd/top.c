// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * top.c - "blkstack top": the per-layer table of every interval, as
 * iostat prints one per interval, with the submission/completion split.
 *
 * Glue only: live tracing (cmd/live) or a recording (tracefile) -> the
 * tracker, which keeps running across intervals -> the statistics, reset
 * after each interval -> out_report_interval().
 *
 * Live, intervals are of the monotonic clock (the trace clock); replaying a
 * recording, they are of trace time: an event past the end of the current
 * interval closes it first.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/pcevent.h"
#include "base/tickevent.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/host.h"
#include "cmd/live.h"
#include "cmd/opt.h"
#include "cmd/report-iostat.h"
#include "cmd/roles.h"
#include "cmd/top.h"
#include "format/tracefile.h"
#include "output/iostat.h"
#include "output/outfile.h"
#include "output/report.h"
#include "track/access.h"
#include "track/iostat.h"
#include "track/stats.h"
#include "track/topo-record.h"
#include "track/tracker.h"

enum {
	OPT_MAX_INFLIGHT = CHAR_MAX + 1,
	OPT_TIMEOUT,
	OPT_ACCESS,
	OPT_HZ,
	OPT_TOPOLOGY,
};

/* ---- options ---- */

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
	       " -j, --jobs N            threads reading the per-CPU buffers (default: one per\n"
	       "                         CPU, at most one per online CPU); with -i, threads\n"
	       "                         reading the recording (default 1)\n"
	       "\n"
	       "Tracking:\n"
	       "     --max-inflight N    bios followed at once at most (default 1048576)\n"
	       "     --timeout TIME      drop a bio not completed after TIME (default 30s)\n"
	       "     --topology FILE     with -i: the recording's device stack, as\n"
	       "                         'blkstack topology' wrote it on the traced machine\n"
	       "\n"
	       "Output:\n"
	       " -o, --output FILE       write the tables to FILE instead of standard output\n"
	       "     --access            add INFLT (average in flight) and SEQ% (sequential\n"
	       "                         share) per layer and operation\n"
	       " -x, --extended          iostat -x's columns per layer instead (r/s rkB/s rrqm/s\n"
	       "                         %rrqm r_await rareq-sz ... f/s f_await aqu-sz %util)\n"
	       "     --hz N              with -x: the traced kernel's CONFIG_HZ, in whose ticks\n"
	       "                         it counts %util (default: this kernel's live, the\n"
	       "                         recording's where it says, else 250)\n"
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
		{ "jobs",	 required_argument, NULL, 'j' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
		{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
		{ "access",	  no_argument,	     NULL, OPT_ACCESS },
		{ "extended",	  no_argument,	     NULL, 'x' },
		{ "hz",		  required_argument, NULL, OPT_HZ },
		{ "topology",	  required_argument, NULL, OPT_TOPOLOGY },
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
	while ((c = getopt_long(argc, argv, ":i:d:b:j:o:xDh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'i':
			r = opt_file(optarg, &p->input, 'i', err, errlen);
			break;
		case 'd':
			r = opt_add_dev(p->devs, &p->ndevs, optarg, err, errlen);
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
		case OPT_MAX_INFLIGHT:
			r = opt_max_inflight(optarg, &p->max_inflight, err, errlen);
			break;
		case OPT_TIMEOUT:
			r = opt_timeout(optarg, &p->timeout_ns, err, errlen);
			break;
		case OPT_ACCESS:
			p->access = true;
			break;
		case 'x':
			p->extended = true;
			break;
		case OPT_HZ:
			r = opt_hz(optarg, &p->hz, err, errlen);
			break;
		case OPT_TOPOLOGY:
			r = opt_topology(optarg, &p->topology, err, errlen);
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
	if (p->hz && !p->extended)
		return opt_error(err, errlen, "--hz goes with -x");
	r = opt_interval_count(argc, argv, &p->interval_ns, &p->count, &p->has_count, err,
			       errlen);
	if (r != CLI_RUN)
		return r;
	if (p->input && p->ndevs)
		return opt_error(err, errlen,
				 "-i replays a recording: -d is for live tracing");
	if (p->topology && !p->input)
		return opt_error(err, errlen, OPT_TOPOLOGY_LIVE);
	return CLI_RUN;
}

/* ---- the command ---- */

/* A tree ends in the tracker's callback: an interval counts what completed in it. */
struct top {
	const struct top_params *p;
	FILE *fp;
	struct tracker *t;
	struct stats *st;
	struct iostat *ios;		/* -x: iostat's accounting instead of the tracker's */
	struct trace_host host;		/* the traced machine, as far as the trace says */
	struct iostat_basis basis;	/* -x: what %util takes of it */
	uint64_t last_ts;		/* replay: the last event (a jump's start; -x: the end) */
	struct report r;
	unsigned long long shown;	/* intervals printed */
	uint64_t start;			/* this interval's start (trace or mono clock) */
	uint64_t origin;		/* the first interval's start, for labels */
	uint64_t lost_before;		/* events lost before this interval */
	uint64_t *cpu_lost_before;	/* the same per CPU, @ncpu_lost of them */
	uint64_t *cpu_lost;		/* per CPU, in this interval */
	int ncpu_lost;
	uint64_t broken_before;		/* I/Os broken by lost events before it */
	bool jumped;			/* replay: a jump of trace time was said */
	struct live *live;		/* live: where the loss counters come from */
	struct tracefile *file;		/* replay: likewise */
	struct access *access;		/* --access: in entry order, marked per interval */
	struct topo_record stack;	/* --topology's, or live, sysfs's */
	size_t marks_shown;		/* the workload's markers printed so far */
	int err;			/* a write error */
};

/* --access: the statistics, then the access pattern in entry order. */
static void top_io(const struct tk_io *io, void *ctx)
{
	struct top *tp = ctx;

	stats_io(io, tp->st);
	if (access_io(tp->access, io) < 0)
		tp->err = -ENOMEM;
	access_release(tp->access, tracker_oldest_q(tp->t));
}

static uint64_t lost_now(struct top *tp)
{
	const struct source_stats *src = tp->live ? live_stats(tp->live) :
				       tp->file ? tracefile_stats(tp->file) : NULL;

	tp->r.src = src;
	return report_lost(src);
}

/* Where the interval's events were lost: per CPU, into @iv. */
static void cpu_losses(struct top *tp, struct report_interval *iv)
{
	const struct source_stats *src = tp->r.src;
	int n = src ? src->ncpu : 0;

	if (n > tp->ncpu_lost) {
		uint64_t *before = realloc(tp->cpu_lost_before, n * sizeof(*before));
		uint64_t *now = before ? realloc(tp->cpu_lost, n * sizeof(*now)) : NULL;

		if (before)
			tp->cpu_lost_before = before;
		if (!now)
			return;	/* the total is said all the same */
		tp->cpu_lost = now;
		for (int c = tp->ncpu_lost; c < n; c++)
			before[c] = 0;
		tp->ncpu_lost = n;
	}
	for (int c = 0; c < n; c++) {
		uint64_t lost = source_cpu_lost(&src->cpu[c]);

		tp->cpu_lost[c] = lost - tp->cpu_lost_before[c];
		tp->cpu_lost_before[c] = lost;
	}
	iv->lost_cpu = tp->cpu_lost;
	iv->ncpu = n;
}

/*
 * The workload's markers of the interval that ends at @end, before its
 * label: replaying, the recording's, in time order; live, those the pages
 * read so far held, in the order they were read (about time order: a
 * marker is printed once, before the first interval that ends after it).
 */
static void show_markers(struct top *tp, uint64_t end)
{
	const struct tracefile_marker *m;
	size_t n = 0;

	if (tp->live) {
		m = tp->live->marks.marks;
		n = tp->live->marks.n;
	} else {
		m = tracefile_markers(tp->file, &n, NULL);
	}
	for (; tp->marks_shown < n && m[tp->marks_shown].ts < end; tp->marks_shown++) {
		const struct tracefile_marker *mk = &m[tp->marks_shown];

		if (tp->live) {
			int64_t wall = (int64_t)mk->ts + tp->host.wall_offset_ns;
			time_t sec = (time_t)(wall / 1000000000);
			char clock[32];
			struct tm tm;

			strftime(clock, sizeof(clock), "%H:%M:%S", localtime_r(&sec, &tm));
			fprintf(tp->fp, "marker %s.%03d %s\n", clock,
				(int)(wall % 1000000000 / 1000000), mk->text);
		} else {
			fprintf(tp->fp, "marker %+.3fs %s\n",
				((int64_t)mk->ts - (int64_t)tp->origin) / 1e9, mk->text);
		}
	}
}

/*
 * Print the interval that ends at @end and start the next one.
 * Returns 1 when the count is reached, a negative errno on a write error.
 */
static int close_interval(struct top *tp, uint64_t end)
{
	struct report_interval iv = { .len_ns = end - tp->start };
	uint64_t lost = lost_now(tp);
	char label[64];
	int ret;

	if (tp->live) {
		time_t now = time(NULL);
		struct tm tm;

		strftime(label, sizeof(label), "%H:%M:%S", localtime_r(&now, &tm));
	} else {
		snprintf(label, sizeof(label), "+%.3fs", (end - tp->origin) / 1e9);
	}
	/* in time order: the interval's label is the time it ends */
	show_markers(tp, end);
	iv.label = label;
	iv.lost = lost - tp->lost_before;
	iv.access = tp->access;
	tp->lost_before = lost;
	cpu_losses(tp, &iv);
	iv.broken = tp->t ? tracker_counters(tp->t)->broken_lost - tp->broken_before : 0;
	tp->broken_before += iv.broken;
	if (tp->ios) {
		/* iostat's layout: the time, the table, a blank line */
		fprintf(tp->fp, "%s\n", label);
		if (iv.lost)
			fprintf(tp->fp, "(%llu events lost in this interval)\n",
				(unsigned long long)iv.lost);
		ret = out_iostat_text(tp->fp, tp->ios, tp->start, end, tp->r.name, tp->r.name_ctx,
				      true);
		if (ret == 0 && fprintf(tp->fp, "\n") < 0)
			ret = -EIO;
		iostat_interval(tp->ios, end);
	} else {
		ret = out_report_interval(tp->fp, &tp->r, &iv);
	}
	if (ret == 0 && fflush(tp->fp))
		ret = -errno;
	if (ret < 0) {
		tp->err = ret;
		return ret;
	}
	stats_reset(tp->st);
	if (tp->access)
		access_mark(tp->access);
	tp->start = end;
	tp->shown++;
	return tp->p->has_count && tp->shown >= tp->p->count ? 1 : 0;
}

/* The traced machine, once known: -x counts busy time as its kernel does. */
static void set_host(struct top *tp, const struct trace_host *h)
{
	tp->host = *h;
	if (!tp->ios)
		return;
	report_iostat_basis(&tp->host, tp->p->hz, &tp->basis);
	report_iostat_configure(tp->ios, &tp->basis);
}

/* The first line, once the source is open: what the tables are. */
static void banner(const struct top *tp)
{
	if (tp->ios) {
		fprintf(tp->fp, "blkstack top -x of %s, every %.3f s (of %s): iostat -x's columns "
				"per layer\n", tp->r.source, tp->p->interval_ns / 1e9,
			tp->p->input ? "trace time" : "the clock");
		out_iostat_basis_text(tp->fp, &tp->basis);
		fputc('\n', tp->fp);
		return;
	}
	fprintf(tp->fp, "blkstack top of %s, every %.3f s (of %s); latencies in us: "
			"SUB = down - Q, COMP = C - up, TOT = C - Q\n\n",
		tp->r.source, tp->p->interval_ns / 1e9, tp->p->input ? "trace time" : "the clock");
}

/*
 * Replaying, a gap longer than this between two events is damage (a page
 * time stamp gone wrong), not an idle disk: its empty intervals are not shown.
 */
#define TOP_JUMP_MAX_NS (86400ULL * 1000000000ULL)
/* More empty intervals in a row than this are passed over with one note. */
#define TOP_EMPTY_MAX 1000

/* Replay: pass @n empty intervals without a table each; 1 when the count is reached. */
static int skip_empty(struct top *tp, uint64_t n)
{
	if (!tp->jumped)
		note_msg("'%s': no event for %llu intervals from +%.3fs: not shown one by one",
			 tp->p->input, (unsigned long long)n, (tp->start - tp->origin) / 1e9);
	tp->start += n * tp->p->interval_ns;
	tp->shown += n;
	if (tp->p->has_count && tp->shown >= tp->p->count)
		return 1;
	return 0;
}

/* Replay: close every interval the event is past, then track it. */
static int replay_event(const struct blk_event *ev, void *ctx)
{
	struct top *tp = ctx;
	uint64_t empty;
	int ret;

	if (pc_kind_is(ev->kind))
		return 0;	/* a recording's page-cache events: not the layers' */
	if (tick_kind_is(ev->kind))	/* the kernel's ticks: for -x's busy time only */
		return tp->ios ? iostat_event(ev, tp->ios) : 0;
	if (!tp->origin) {
		tp->origin = tp->start = tp->last_ts = ev->ts;
	}
	/* the merge gives events in time order: ev->ts >= start, no overflow */
	if (ev->ts - tp->start >= tp->p->interval_ns) {
		empty = (ev->ts - tp->start) / tp->p->interval_ns - 1;
		if (ev->ts - tp->last_ts > TOP_JUMP_MAX_NS && !tp->jumped) {
			warn_msg("'%s' is damaged: its trace time jumps ahead by %.0f s after +%.3fs; "
				 "the intervals go on after the jump",
				 tp->p->input, (ev->ts - tp->last_ts) / 1e9,
				 (tp->last_ts - tp->origin) / 1e9);
			tp->jumped = true;
		}
		ret = close_interval(tp, tp->start + tp->p->interval_ns);
		if (!ret && empty > TOP_EMPTY_MAX)
			ret = skip_empty(tp, empty);
		while (!ret && ev->ts - tp->start >= tp->p->interval_ns)
			ret = close_interval(tp, tp->start + tp->p->interval_ns);
		if (ret)
			return ret < 0 ? ret : -ECANCELED;	/* count reached: stop reading */
	}
	tp->last_ts = ev->ts;
	if (tp->ios)
		return iostat_event(ev, tp->ios);
	return tracker_event(ev, tp->t);
}

static int run_file(struct top *tp)
{
	const struct top_params *p = tp->p;
	const struct topo_record *stack;
	struct trace_host host;
	int ret;

	tp->file = tracefile_open(p->input, &ret);
	if (!tp->file) {
		tracefile_open_error(p->input, ret);
		return -1;
	}
	tracefile_host(tp->file, &host);
	set_host(tp, &host);
	if (tp->ios && tracefile_want_ticks(tp->file) < 0) {
		err_msg("out of memory");
		return -1;
	}
	/*
	 * as report -i: the stack given or recorded says which devices are
	 * lower, else the remaps do; top prints as it reads: it cannot read
	 * again at the first remap as report does, and looks for one first
	 */
	stack = tp->stack.n ? &tp->stack : tracefile_topology(tp->file);
	tp->r.names = stack;
	if (roles_of_recording(p->input, tp->file, stack, tp->t, 1) < 0)
		return -1;
	/* decoding in threads changes nothing of what the tracker is given */
	tracefile_set_jobs(tp->file, p->jobs ? p->jobs : 1);
	tracefile_loss_marks(tp->file, !tp->ios);
	banner(tp);
	ret = tracefile_read(tp->file, replay_event, tp);
	if (ret == -ECANCELED)
		return 0;	/* count intervals shown: the rest is not wanted */
	if (tracefile_damage_said(p->input, tp->file, ret, "shown"))
		return -1;
	if (ret < 0 || tracefile_no_block_said(p->input, tp->file))
		return -1;
	/* the last, partial interval: up to the last completion in it */
	tracker_finish(tp->t);
	if (tp->ios) {
		if (iostat_ndevs(tp->ios) && tp->last_ts > tp->start &&
		    close_interval(tp, tp->last_ts) < 0)
			return -1;
	} else if (tp->st->nlayers && tp->st->last_ts > tp->start &&
		   close_interval(tp, tp->st->last_ts) < 0) {
		return -1;
	}
	/* the workload's markers after its last I/O */
	show_markers(tp, UINT64_MAX);
	return 0;
}

/* Live: after each read pass, close the interval when its time is up. */
static int live_pass(void *ctx)
{
	struct top *tp = ctx;
	uint64_t now = mono_now_ns();

	if (now < tp->start + tp->p->interval_ns)
		return 0;
	return close_interval(tp, now);
}

static int run_live(struct top *tp, struct live *l)
{
	struct live_opts lo = {
		.devs = tp->p->devs, .ndevs = tp->p->ndevs, .buffer_kb = tp->p->buffer_kb, .threads = tp->p->jobs,
		.diskstats = tp->ios != NULL, .loss_marks = tp->ios == NULL, .markers = true,
	};
	struct trace_host host;
	int ret;

	host_live(&host);
	set_host(tp, &host);
	live_signals();
	if (live_open(l, &lo) < 0 || live_keep_markers(l) < 0)
		return -1;
	live_mark_roles(l, tp->t);
	/* sysfs names the layers as a recorded stack does */
	if (live_stack_record(l, &tp->stack) == 0)
		tp->r.names = &tp->stack;
	if (live_start(l) < 0)
		return -1;
	tp->live = l;
	banner(tp);
	fflush(tp->fp);
	tp->origin = tp->start = mono_now_ns();
	if (tp->ios)
		ret = live_loop(l, 0, iostat_event, tp->ios, live_pass, tp);
	else
		ret = live_loop(l, 0, tracker_event, tp->t, live_pass, tp);
	live_report_losses(live_stats(l));
	return ret < 0 ? -1 : 0;
}

int cmd_top(int argc, char **argv)
{
	struct outfile of = { 0 };
	struct live l = { 0 };
	struct top tp = { 0 };
	struct top_params p;
	struct tk_params kp;
	char err[CLI_ERR_LEN];
	int rc = EXIT_RUNTIME;
	int ret;

	switch (cli_parse_top(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_top(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " top --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	tp.p = &p;
	kp = (struct tk_params){ .max_inflight = p.max_inflight, .timeout_ns = p.timeout_ns };
	tp.st = stats_alloc();
	if (p.access) {
		tp.access = calloc(1, sizeof(*tp.access));
		if (tp.access)
			access_init(tp.access);
	}
	if (tp.st && (!p.access || tp.access))
		tp.t = p.access ? tracker_alloc(&kp, top_io, &tp) : tracker_alloc(&kp, stats_io, tp.st);
	/* its CONFIG_HZ and counting: set_host() once the traced kernel is known */
	if (tp.t && p.extended)
		tp.ios = iostat_alloc(REPORT_IOSTAT_DEFAULT_HZ);
	if (!tp.t || (p.extended && !tp.ios)) {
		err_msg("out of memory");
		goto out;
	}
	tp.r = (struct report){
		.st = tp.st, .tk = tracker_counters(tp.t),
		.source = p.input ? p.input : "live tracing",
		.name = p.input ? NULL : live_dev_name,
	};
	if (p.topology && topo_record_load_said(p.topology, &tp.stack) < 0)
		goto out;
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	tp.fp = of.fp;
	/* a reader that leaves (| head) is a write error to see, not a signal */
	signal(SIGPIPE, SIG_IGN);
	ret = p.input ? run_file(&tp) : run_live(&tp, &l);
	if (tp.err == -EPIPE) {
		/* the reader left (| head): not an error, nothing more to print */
		rc = EXIT_OK;
		goto out;
	}
	if (tp.err) {
		err_msg("cannot write to '%s': %s", p.output ? p.output : "standard output",
			strerror(-tp.err));
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
	tracker_free(tp.t);
	free(tp.cpu_lost_before);
	free(tp.cpu_lost);
	access_destroy(tp.access);
	free(tp.access);
	iostat_free(tp.ios);
	stats_free(tp.st);
	tracefile_close(tp.file);
	live_close(&l);
	topo_record_free(&tp.stack);
	return rc;
}
