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

#include "cli.h"
#include "cmd.h"
#include "cmd-live.h"
#include "out-report.h"
#include "outfile.h"
#include "stats.h"
#include "tracefile.h"
#include "topo-record.h"
#include "tracker.h"
#include "util.h"

static int run_live(const struct report_params *p, struct tracker *t,
		    const struct source_stats **src, struct live *l, struct live_command *w)
{
	struct live_opts lo = { .devs = p->devs, .ndevs = p->ndevs, .buffer_kb = p->buffer_kb };
	int ret;

	live_signals();
	if (live_open(l, &lo) < 0)
		return -1;
	live_mark_lower(l, t);
	if (live_start(l) < 0)
		return -1;
	if (p->command) {
		if (live_command_start(w, p->command) < 0)
			return -1;
	} else if (isatty(STDERR_FILENO)) {
		fprintf(stderr, PROGRAM_NAME ": tracing; Ctrl-C to stop and report\n");
	}
	ret = live_loop(l, p->has_duration ? p->duration_ns : 0, tracker_event, t,
			live_command_check, w);
	if (ret == 0)
		ret = live_finish(l, tracker_event, t);
	live_command_end(w);
	if (ret < 0)
		return -1;
	*src = live_stats(l);
	live_report_losses(*src);
	return 0;
}

/* as live (live_mark_lower): I/O rooted at a device with holders is its
 * holder's own, such as dm-thin's metadata I/O */
static void mark_lower(struct tracker *t, const struct topo_record *rec)
{
	for (size_t i = 0; i < rec->n; i++)
		if (rec->devs[i].nholders)
			tracker_set_lower(t, rec->devs[i].dev);
}

/* @stack: the stack given with --topology, else the one the file carries */
static int run_file(const struct report_params *p, struct tracker *t,
		    const struct source_stats **src, struct tracefile **fp,
		    const struct topo_record **stack)
{
	int ret;

	*fp = tracefile_open(p->input, &ret);
	if (!*fp) {
		tracefile_open_error(p->input, ret);
		return -1;
	}
	if (!*stack && (*stack = tracefile_topology(*fp)))
		mark_lower(t, *stack);
	ret = tracefile_read(*fp, tracker_event, t);
	*src = tracefile_stats(*fp);
	if (ret == -EBADMSG) {
		err_msg("'%s' is corrupt: it could not be read to its end", p->input);
		return -1;
	}
	for (int c = 0; c < (*src)->ncpu; c++) {
		if ((*src)->cpu[c].truncated) {
			err_msg("'%s' is truncated: cpu%d lacks %llu bytes of its data", p->input, c,
				(unsigned long long)(*src)->cpu[c].truncated);
			return -1;
		}
	}
	return ret < 0 ? -1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct live_command w = { .pid = -1 };
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
	t = st ? tracker_alloc(&tp, stats_io, st) : NULL;
	if (!t) {
		err_msg("out of memory");
		goto out;
	}
	if (p.topology) {
		unsigned int line;

		ret = topo_record_load(p.topology, &topology, &line);
		if (ret == -EINVAL)
			err_msg("'%s' line %u: not a device of a recorded stack (blkstack topology "
				"writes them)", p.topology, line);
		else if (ret == -ENODATA)
			err_msg("'%s' describes no device (blkstack topology writes them)", p.topology);
		else if (ret)
			err_msg("cannot read '%s': %s", p.topology, strerror(-ret));
		if (ret)
			goto out;
		stack = &topology;
		mark_lower(t, stack);
	}
	if (p.input)
		ret = run_file(&p, t, &src, &file, &stack);
	else
		ret = run_live(&p, t, &src, &l, &w);
	if (ret < 0)
		goto out;
	tracker_finish(t);

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
		.command_done = w.exited, .command_status = w.status,
	};
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	ret = p.json ? out_report_json(of.fp, &r) : out_report_text(of.fp, &r);
	if (!ret)
		ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write the report to '%s': %s",
			p.output ? p.output : "standard output", strerror(-ret));
		goto out;
	}
	rc = EXIT_OK;
	if (w.exited && !(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0)) {
		if (WIFEXITED(w.status))
			note_msg("'%s' exited with status %d", p.command[0], WEXITSTATUS(w.status));
		else if (WIFSIGNALED(w.status))
			note_msg("'%s' was killed by signal %d", p.command[0], WTERMSIG(w.status));
	}
out:
	if (of.fp)
		outfile_abort(&of);
	tracker_free(t);
	stats_free(st);
	tracefile_close(file);
	live_close(&l);
	topo_record_free(&topology);
	return rc;
}
