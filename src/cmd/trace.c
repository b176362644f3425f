// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-trace.c - "blkstack trace": live tracing into the blkparse text log.
 *
 * Glue only: options -> live tracing (cmd-live.c) -> formatter, and the
 * output file committed only when the run ends well.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/opt.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "output/blkparse.h"
#include "output/outfile.h"
#include "base/util.h"

struct trace_out {
	struct blkparse_out *out;
	FILE *fp;
};

/*
 * Whether the reader of a pipe went away: a write would say so, but an idle
 * device writes nothing, and "blkstack trace | head" must still end.
 */
static bool reader_gone(FILE *fp)
{
	struct pollfd pfd = { .fd = fileno(fp), .events = 0 };
	struct stat st;

	if (fstat(pfd.fd, &st) < 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP));
}

/* After each pass: the text goes out, and a departed reader ends the run. */
static int after_pass(void *ctx)
{
	struct trace_out *t = ctx;
	int ret = blkparse_out_flush(t->out);

	if (ret)
		return ret;
	return reader_gone(t->fp) ? -EPIPE : 0;
}

static int on_event(const struct blk_event *ev, void *ctx)
{
	return blkparse_out_event(ev, ((struct trace_out *)ctx)->out);
}

int cmd_trace(int argc, char **argv)
{
	struct blkparse_filter filter = { .has = live_has_dev };
	struct trace_out t = { 0 };
	struct outfile of = { 0 };
	struct live l = { 0 };
	const struct source_stats *st;
	struct live_opts lo;
	struct trace_params p;
	char err[CLI_ERR_LEN];
	int rc = EXIT_RUNTIME;
	int ret;

	switch (cli_parse_trace(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_trace(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " trace --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	if (p.debug) {
		tracefs_set_loglevel(TEP_LOG_ALL);
		tep_set_loglevel(TEP_LOG_ALL);
	}
	live_signals();
	lo = (struct live_opts){ .devs = p.devs, .ndevs = p.ndevs, .buffer_kb = p.buffer_kb,
				 .plugs = p.plugs };
	if (live_open(&l, &lo) < 0)
		goto out;
	filter.ctx = &l;

	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	t.fp = of.fp;
	t.out = blkparse_out_alloc(of.fp, p.ndevs ? &filter : NULL);
	if (!t.out) {
		err_msg("out of memory");
		goto out;
	}
	if (live_start(&l) < 0)
		goto out;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, PROGRAM_NAME ": tracing %s; Ctrl-C to stop\n",
			p.ndevs ? "the stack of the given devices" : "every block device");

	ret = live_loop(&l, p.has_duration ? p.duration_ns : 0, on_event, &t, after_pass, &t);
	if (ret == 0)
		ret = live_finish(&l, on_event, &t);
	if (ret >= 0)
		ret = blkparse_out_finish(t.out);
	st = live_stats(&l);
	if (ret == -EPIPE) {
		/* the reader left (| head): not an error, but nothing more to print */
		rc = EXIT_OK;
		goto out;
	}
	if (ret < 0) {
		if (p.output)
			err_msg("cannot write '%s.partial': %s; the incomplete log is left there",
				p.output, strerror(-ret));
		else
			err_msg("cannot write the log: %s", strerror(-ret));
		goto out;
	}
	if (!p.no_summary)
		blkparse_out_summary(t.out, of.fp, st);
	ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write '%s': %s", p.output ? p.output : "standard output",
			strerror(-ret));
		goto out;
	}
	live_report_losses(st);
	if (p.output)
		fprintf(stderr, PROGRAM_NAME ": %llu events written to '%s', %llu lost\n",
			(unsigned long long)blkparse_out_lines(t.out), p.output,
			(unsigned long long)source_lost_total(st));
	rc = EXIT_OK;
out:
	if (of.fp)
		outfile_abort(&of);
	blkparse_out_free(t.out);
	live_close(&l);
	return rc;
}
