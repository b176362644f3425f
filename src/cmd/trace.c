// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * trace.c - "blkstack trace": live tracing into the blkparse text log.
 *
 * Glue only: options -> live tracing (cmd/live.c) -> formatter, and the
 * output file committed only when the run ends well.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "cmd/opt.h"
#include "cmd/trace.h"
#include "output/blkparse.h"
#include "output/outfile.h"

enum {
	OPT_NO_SUMMARY = CHAR_MAX + 1,
	OPT_PLUGS,
};

/* ---- options ---- */

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
			return opt_bad(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc)
		return opt_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (p->plugs && !p->ndevs)
		return opt_error(err, errlen,
				 "--plugs goes with -d: without -d plugs and unplugs are traced anyway");
	return CLI_RUN;
}

/* ---- the command ---- */

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
	if (!p.has_duration)
		live_say_tracing(&l, "print the summary");

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
