// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-report.c - "blkstack report": every I/O followed through the stack,
 * summarised per layer, end to end and per process.
 *
 * Glue only: a recording (tracefile) or live tracing (cmd-live) -> the
 * tracker -> the statistics -> the text or JSON report.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/opt.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "cmd/report-files.h"
#include "output/report.h"
#include "output/outfile.h"
#include "base/pcevent.h"
#include "track/stats.h"
#include "format/tracefile.h"
#include "track/topo-record.h"
#include "track/tracker.h"
#include "base/util.h"

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

static int run_live(const struct report_params *p, struct tracker *t,
		    const struct source_stats **src, struct live *l, struct watched *w)
{
	struct live_opts lo = { .devs = p->devs, .ndevs = p->ndevs, .buffer_kb = p->buffer_kb };
	blk_event_fn fn = w->run ? pc_run_event : tracker_event;
	void *ctx = w->run ? (void *)w->run : (void *)t;
	int ret;

	if (w->run) {
		lo.pagecache = true;
		lo.fsmap = &w->run->map;
	}
	live_signals();
	if (live_open(l, &lo) < 0)
		return -1;
	live_mark_lower(l, t);
	if (live_start(l) < 0)
		return -1;
	if (p->command) {
		if (live_command_start(&w->cmd, p->command) < 0)
			return -1;
	} else if (isatty(STDERR_FILENO)) {
		fprintf(stderr, PROGRAM_NAME ": tracing; Ctrl-C to stop and report\n");
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

/* @stack: the stack given with --topology, else the one the file carries */
static int run_file(const struct report_params *p, struct tracker *t,
		    const struct source_stats **src, struct tracefile **fp,
		    const struct topo_record **stack, struct pc_run *run)
{
	int ret;

	*fp = tracefile_open(p->input, &ret);
	if (!*fp) {
		tracefile_open_error(p->input, ret);
		return -1;
	}
	if (!*stack && (*stack = tracefile_topology(*fp)))
		topo_record_mark_lower(*stack, t);
	if (run->pc && pc_run_recorded_names(run, *fp) < 0) {
		err_msg("out of memory");
		return -1;
	}
	ret = run->pc ? tracefile_read(*fp, pc_run_event, run) : tracefile_read(*fp, block_event, t);
	*src = tracefile_stats(*fp);
	if (tracefile_damage_said(p->input, *fp, ret, NULL))
		return -1;
	return ret < 0 ? -1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct watched w = { .cmd = { .pid = -1 } };
	struct pc_run run = { 0 };
	const struct source_stats *src = NULL;
	struct tracefile *file = NULL;
	struct tracker *t = NULL;
	struct stats *st = NULL;
	struct outfile of = { 0 };
	struct live l = { 0 };
	struct topo_record topology = { 0 };
	const struct topo_record *stack = NULL;
	struct report_params p;
	struct tk_params tp;
	struct report r;
	char err[CLI_ERR_LEN];
	int rc = EXIT_RUNTIME;
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
	tp = (struct tk_params){ .max_inflight = p.max_inflight, .timeout_ns = p.timeout_ns };
	st = stats_alloc();
	if (st && p.page_cache) {
		/* the files' side owns the tracker: completed I/O gives files their latency */
		if (pc_run_init(&run, !p.input, p.resolve, &tp, st) < 0)
			goto out;
		t = run.t;
		w.run = &run;
	} else if (st) {
		t = tracker_alloc(&tp, stats_io, st);
	}
	if (!t) {
		err_msg("out of memory");
		goto out;
	}
	if (p.topology) {
		if (topo_record_load_said(p.topology, &topology) < 0)
			goto out;
		stack = &topology;
		topo_record_mark_lower(stack, t);
	}
	if (p.input)
		ret = run_file(&p, t, &src, &file, &stack, &run);
	else
		ret = run_live(&p, t, &src, &l, &w);
	if (ret < 0)
		goto out;
	tracker_finish(t);
	if (run.pc && pc_run_finish(&run) < 0)
		goto out;

	r = (struct report){
		.st = st, .tk = tracker_counters(t), .src = src,
		.source = p.input ? p.input : "live tracing",
		.name = stack ? topo_record_name : p.input ? NULL : live_dev_name,
		.name_ctx = (void *)stack,
		.topology = stack,
		/* live, sysfs knows the stack: drawn as lsblk -s would, with dm targets */
		.sysfs = !p.input,
		.stack_devs = l.sel.n ? l.sel.devs : NULL, .nstack_devs = l.sel.n,
		.command = p.command ? p.command[0] : NULL,
		.command_done = w.cmd.exited, .command_status = w.cmd.status,
	};
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	if (p.by != CLI_BY_NONE || p.folded) {
		ret = report_files_output(of.fp, &p, &run, r.source, src, false);
	} else {
		ret = p.json ? out_report_json(of.fp, &r) : out_report_text(of.fp, &r);
		if (!ret && run.pc)
			ret = report_files_output(of.fp, &p, &run, r.source, src, !p.json);
	}
	if (ret == -ECANCELED)
		goto out;
	if (!ret)
		ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write the report to '%s': %s",
			p.output ? p.output : "standard output", strerror(-ret));
		goto out;
	}
	rc = EXIT_OK;
	if (w.cmd.exited && !(WIFEXITED(w.cmd.status) && WEXITSTATUS(w.cmd.status) == 0)) {
		if (WIFEXITED(w.cmd.status))
			note_msg("'%s' exited with status %d", p.command[0], WEXITSTATUS(w.cmd.status));
		else if (WIFSIGNALED(w.cmd.status))
			note_msg("'%s' was killed by signal %d", p.command[0], WTERMSIG(w.cmd.status));
	}
out:
	if (of.fp)
		outfile_abort(&of);
	if (run.pc)
		pc_run_destroy(&run);
	else
		tracker_free(t);
	stats_free(st);
	tracefile_close(file);
	live_close(&l);
	topo_record_free(&topology);
	return rc;
}
