// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-trace.c - "blkstack trace": live tracing into the blkparse text log.
 *
 * Glue only: options -> device selection -> session -> ring -> merge ->
 * formatter, and the cleanup of the tracefs instance on every way out.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd.h"
#include "decode.h"
#include "merge.h"
#include "out-blkparse.h"
#include "outfile.h"
#include "ring.h"
#include "session.h"
#include "topo.h"
#include "util.h"

/* How long the reader sleeps at most: the latency of the live log at low rates. */
#define TRACE_POLL_MS 250

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll() must return so that the loop sees the flag */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void on_stale(const char *name, int err, void *ctx __attribute__((unused)))
{
	if (err)
		warn_msg("cannot remove stale tracefs instance '%s' left by a dead run: %s",
			 name, strerror(-err));
	else
		note_msg("removed stale tracefs instance '%s' left by a run that did not exit cleanly",
			 name);
}

static int has_dev(const void *ctx, uint32_t dev)
{
	return topo_selection_has(ctx, dev);
}

/* -d arguments to the whole stack of each, as kernel dev_t values. */
static int select_devices(const struct trace_params *p, struct topo_selection *sel)
{
	uint32_t devs[CLI_MAX_DEVS];
	int ret;

	for (size_t i = 0; i < p->ndevs; i++) {
		ret = topo_resolve("", p->devs[i], &devs[i]);
		if (ret == -ENOENT) {
			err_msg("unknown device '%s': no such block device", p->devs[i]);
			hint_msg("give a device path (/dev/sda1), a name (sda1, dm-0), MAJ:MIN or a mounted directory; lsblk lists them");
			return ret;
		}
		if (ret == -ENOTBLK) {
			err_msg("'%s' is not on a block device (its filesystem has no disk)",
				p->devs[i]);
			return ret;
		}
		if (ret < 0) {
			err_msg("cannot resolve device '%s': %s", p->devs[i], strerror(-ret));
			return ret;
		}
	}
	ret = topo_stack_expand("", devs, p->ndevs, sel);
	if (ret < 0) {
		err_msg("cannot read the device stack from /sys/class/block: %s", strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < sel->n; i++) {
		char name[64] = "?";

		topo_dev_name("", sel->devs[i], name, sizeof(name));
		debug_msg("tracing %s (%u:%u)", name, KDEV_MAJOR(sel->devs[i]),
			  KDEV_MINOR(sel->devs[i]));
	}
	return 0;
}

static int report_tracefs_problem(int ret)
{
	if (ret == -ENODEV) {
		err_msg("tracefs is not mounted and could not be mounted");
		hint_msg("mount it: mount -t tracefs nodev /sys/kernel/tracing");
	} else if (ret == -EACCES || ret == -EPERM) {
		err_msg("no permission to create tracefs instances: %s", strerror(-ret));
		hint_msg("run as root (blkstack trace needs CAP_SYS_ADMIN or tracefs write access)");
	} else {
		err_msg("cannot use tracefs: %s", strerror(-ret));
	}
	return EXIT_RUNTIME;
}

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

/* The loop: read, merge, print, until a signal, -w, or the reader leaves. */
static int trace_loop(const struct trace_params *p, struct ring *r, struct merge *m,
		      struct blkparse_out *out, FILE *fp)
{
	uint64_t deadline = p->has_duration ? mono_now_ns() + p->duration_ns : 0;
	int ret;

	while (!stop_requested) {
		int timeout = TRACE_POLL_MS;

		if (deadline) {
			uint64_t now = mono_now_ns();

			if (now >= deadline)
				break;
			if (deadline - now < (uint64_t)timeout * 1000000ULL)
				timeout = (deadline - now) / 1000000ULL + 1;
		}
		ret = ring_read(r, timeout);
		if (ret < 0) {
			err_msg("cannot read the trace buffers: %s", strerror(-ret));
			return ret;
		}
		ret = merge_drain(m, false, blkparse_out_event, out);
		if (!ret)
			ret = blkparse_out_flush(out);
		if (ret < 0)
			return ret;
		if (reader_gone(fp))
			return -EPIPE;
	}
	return 0;
}

static void report_losses(const struct source_stats *st)
{
	for (int c = 0; c < st->ncpu; c++) {
		const struct source_cpu_stats *cs = &st->cpu[c];
		uint64_t lost = cs->missed + cs->overrun + cs->dropped;

		if (lost)
			warn_msg("%llu events lost on cpu%d (ring buffer full); a larger -b helps",
				 (unsigned long long)lost, c);
		if (cs->malformed)
			warn_msg("%llu malformed records skipped on cpu%d",
				 (unsigned long long)cs->malformed, c);
	}
}

int cmd_trace(int argc, char **argv)
{
	struct topo_selection sel = { 0 };
	struct blkparse_filter filter = { 0 };
	struct session_params sp = { 0 };
	struct session s = { 0 };
	struct blkparse_out *out = NULL;
	struct decoder *dec = NULL;
	struct merge *m = NULL;
	struct ring *r = NULL;
	struct trace_params p;
	struct outfile of = { 0 };
	const struct source_stats *st;
	const char *what;
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
	install_signals();

	ret = session_tracefs_ready();
	if (ret < 0)
		return report_tracefs_problem(ret);
	if (p.ndevs) {
		if (select_devices(&p, &sel) < 0)
			goto out;
		filter.has = has_dev;
		filter.ctx = &sel;
	}
	session_remove_stale(on_stale, NULL);

	sp.buffer_kb = p.buffer_kb;
	sp.devs = sel.devs;
	sp.ndevs = sel.n;
	sp.plugs = p.plugs;
	ret = session_open(&sp, &s, &what);
	if (ret < 0) {
		if (ret == -EACCES || ret == -EPERM) {
			report_tracefs_problem(ret);
		} else {
			err_msg("cannot set up the tracefs instance (%s): %s", what, strerror(-ret));
			if (ret == -ENOMEM && p.buffer_kb)
				hint_msg("the kernel could not allocate %u KiB per CPU: try a smaller -b",
					 p.buffer_kb);
		}
		goto out;
	}
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++) {
		if (s.missing[k])
			debug_msg("this kernel has no block:%s event", blk_kind_name(k));
		if (s.skipped[k])
			debug_msg("block:%s names no device: not traced with -d (see --plugs)",
				  blk_kind_name(k));
	}
	if (s.missing[BLK_EV_BIO_QUEUE] || s.missing[BLK_EV_RQ_COMPLETE])
		note_msg("this kernel lacks %s: the log will have no such lines",
			 s.missing[BLK_EV_BIO_QUEUE] ? "block:block_bio_queue" : "block:block_rq_complete");

	dec = decoder_alloc(s.tep);
	if (!dec) {
		err_msg("this kernel's block events cannot be decoded: %s", strerror(errno));
		goto out;
	}
	m = merge_alloc(s.ncpu);
	r = m ? ring_open(&s, dec, m) : NULL;
	if (!r) {
		err_msg("cannot open the per-CPU trace buffers of instance '%s': %s",
			tracefs_instance_get_name(s.instance), strerror(errno));
		goto out;
	}
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	out = blkparse_out_alloc(of.fp, filter.has ? &filter : NULL);
	if (!out) {
		err_msg("out of memory");
		goto out;
	}

	ret = session_start(&s);
	if (ret < 0) {
		err_msg("cannot turn tracing on in instance '%s': %s",
			tracefs_instance_get_name(s.instance), strerror(-ret));
		goto out;
	}

	if (isatty(STDERR_FILENO))
		fprintf(stderr, PROGRAM_NAME ": tracing %s; Ctrl-C to stop\n",
			p.ndevs ? "the stack of the given devices" : "every block device");
	ret = trace_loop(&p, r, m, out, of.fp);
	session_stop(&s);
	if (ret == 0) {
		ret = ring_flush(r);
		if (ret >= 0)
			ret = merge_drain(m, true, blkparse_out_event, out);
		if (ret >= 0)
			ret = blkparse_out_finish(out);
	}
	st = ring_stats(r);
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
		blkparse_out_summary(out, of.fp, st);
	ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write '%s': %s", p.output ? p.output : "standard output",
			strerror(-ret));
		goto out;
	}
	report_losses(st);
	if (p.output)
		fprintf(stderr, PROGRAM_NAME ": %llu events written to '%s', %llu lost\n",
			(unsigned long long)blkparse_out_lines(out), p.output,
			(unsigned long long)source_lost_total(st));
	rc = EXIT_OK;
out:
	if (of.fp)
		outfile_abort(&of);
	blkparse_out_free(out);
	ring_close(r);
	merge_free(m);
	decoder_free(dec);
	session_close(&s);
	topo_selection_free(&sel);
	return rc;
}
