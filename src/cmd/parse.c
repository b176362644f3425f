// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * parse.c - "blkstack parse": a trace.dat recording to the blkparse log.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pcevent.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/opt.h"
#include "cmd/parse.h"
#include "format/tracefile.h"
#include "output/blkparse.h"
#include "output/outfile.h"
#include "track/topo-record.h"
#include "track/topo.h"

enum {
	OPT_NO_SUMMARY = CHAR_MAX + 1,
	OPT_TOPOLOGY,
};

/* ---- options ---- */

const char *cli_usage_parse(void)
{
	return "Usage:\n"
	       " blkstack parse -i FILE [options]\n"
	       "\n"
	       "Print the block events of a trace.dat recording in blkparse's format.\n"
	       "\n"
	       "Input:\n"
	       " -i, --input FILE        the trace.dat file (from trace-cmd record -e block)\n"
	       " -d, --device DEV        print only this device's events (repeatable): MAJ:MIN,\n"
	       "                         or a name, /dev path or mount point of the\n"
	       "                         recording's stack (this machine's when unknown)\n"
	       "     --topology FILE     the recording's device stack, as 'blkstack topology'\n"
	       "                         wrote it on the traced machine (a blkstack recording\n"
	       "                         carries its own)\n"
	       "\n"
	       "Output:\n"
	       " -o, --output FILE       write the log to FILE instead of standard output\n"
	       "     --no-summary        do not print the per-device summary at the end\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-parse(8).\n";
}

enum cli_result cli_parse_parse(int argc, char **argv, struct parse_params *p,
				char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "input",	 required_argument, NULL, 'i' },
		{ "device",	 required_argument, NULL, 'd' },
		{ "output",	 required_argument, NULL, 'o' },
		{ "no-summary",	 no_argument,	    NULL, OPT_NO_SUMMARY },
		{ "topology",	 required_argument, NULL, OPT_TOPOLOGY },
		{ "debug",	 no_argument,	    NULL, 'D' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:d:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'i':
			r = opt_file(optarg, &p->input, 'i', err, errlen);
			break;
		case 'd':
			r = opt_add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case OPT_TOPOLOGY:
			r = opt_topology(optarg, &p->topology, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_NO_SUMMARY:
			p->no_summary = true;
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
	if (!p->input)
		return opt_error(err, errlen, "no input file: give one with -i FILE");
	return CLI_RUN;
}

/* ---- the command ---- */

struct dev_list {
	uint32_t devs[CLI_MAX_DEVS];
	size_t n;
};

/* A recording may hold page-cache events: blkparse's format has no line for them. */
static int block_event(const struct blk_event *ev, void *ctx)
{
	return pc_kind_is(ev->kind) ? 0 : blkparse_out_event(ev, ctx);
}

static int in_list(const void *ctx, uint32_t dev)
{
	const struct dev_list *l = ctx;

	for (size_t i = 0; i < l->n; i++)
		if (l->devs[i] == dev)
			return 1;
	return 0;
}

/*
 * -d's devices into @devs: by the recording's stack when it has one (names
 * travel with it), else by this machine's (a recording made here). Says
 * what it could not resolve; returns 0 or -1.
 */
static int resolve_devs(const struct parse_params *p, const struct topo_record *stack,
			struct dev_list *devs)
{
	for (size_t i = 0; i < p->ndevs; i++) {
		uint32_t *dev = &devs->devs[devs->n++];
		int ret;

		if (stack) {
			if (topo_record_resolve(stack, p->devs[i], dev) == 0)
				continue;
			err_msg("no device '%s' in the stack of '%s'", p->devs[i], p->input);
			hint_msg("give MAJ:MIN, a name (dm-0, a dm name), /dev/NAME or a mount point "
				 "of that stack; 'blkstack report -i %s' lists its layers", p->input);
			return -1;
		}
		ret = topo_resolve("", p->devs[i], dev);
		if (ret == 0) {
			/* unless a number, a name is this machine's: say which device it is */
			if (!strchr(p->devs[i], ':') || p->devs[i][0] == '/')
				note_msg("'%s' is %u:%u on this machine; '%s' carries no stack to "
					 "name it by (give --topology)", p->devs[i], KDEV_MAJOR(*dev),
					 KDEV_MINOR(*dev), p->input);
			continue;
		}
		err_msg("unknown device '%s': '%s' carries no stack, and this machine has no "
			"such block device", p->devs[i], p->input);
		hint_msg("give MAJ:MIN, or the recording's stack with --topology FILE");
		return -1;
	}
	return 0;
}

int cmd_parse(int argc, char **argv)
{
	struct blkparse_filter filter = { 0 };
	struct blkparse_out *out = NULL;
	struct tracefile *f = NULL;
	struct outfile of = { 0 };
	struct dev_list devs = { .n = 0 };
	struct topo_record topology = { 0 };
	const struct topo_record *stack;
	const struct source_stats *st;
	struct parse_params p;
	char err[CLI_ERR_LEN];
	bool truncated = false;
	int rc = EXIT_RUNTIME;
	int ret;

	switch (cli_parse_parse(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_parse(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " parse --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	signal(SIGPIPE, SIG_IGN);
	if (p.topology && topo_record_load_said(p.topology, &topology) < 0)
		return EXIT_RUNTIME;
	f = tracefile_open(p.input, &ret);
	if (!f) {
		tracefile_open_error(p.input, ret);
		topo_record_free(&topology);
		return EXIT_RUNTIME;
	}
	stack = p.topology ? &topology : tracefile_topology(f);
	if (resolve_devs(&p, stack, &devs) < 0)
		goto out;
	if (devs.n) {
		filter.has = in_list;
		filter.ctx = &devs;
	}
	if (!tracefile_has(f, BLK_EV_BIO_QUEUE))
		note_msg("'%s' has no block_bio_queue events: there will be no Q lines", p.input);

	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	out = blkparse_out_alloc(of.fp, devs.n ? &filter : NULL);
	if (!out) {
		err_msg("out of memory");
		goto out;
	}
	/* most recordings have no page-cache event to leave out: no test per event */
	ret = tracefile_read(f, tracefile_has_pagecache(f) ? block_event : blkparse_out_event, out);
	if (ret == -EBADMSG) {
		blkparse_out_finish(out);
		err_msg("'%s' is corrupt: it could not be read to its end; the events before the damage were printed",
			p.input);
		goto out;
	}
	if (ret == 0 && tracefile_no_block_said(p.input, f))
		goto out;	/* no line to print, no summary to give */
	if (ret == 0)
		ret = blkparse_out_finish(out);
	if (ret == -EPIPE) {
		rc = EXIT_OK;
		goto out;
	}
	if (ret < 0) {
		err_msg("cannot write the log%s%s: %s", p.output ? " to " : "",
			p.output ? p.output : "", strerror(-ret));
		goto out;
	}
	st = tracefile_stats(f);
	for (int c = 0; c < st->ncpu; c++)
		if (st->cpu[c].truncated)
			truncated = true;
	if (!p.no_summary)
		blkparse_out_summary(out, of.fp, st);
	if (truncated && p.output) {
		/* what could be read is kept, under a name that says it is partial */
		blkparse_out_flush(out);
		note_msg("the log of what could be read is in '%s.partial'", p.output);
		goto report;
	}
	ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write '%s': %s", p.output ? p.output : "standard output",
			strerror(-ret));
		goto out;
	}
report:
	/* the read ended without -EBADMSG: what is said is the cuts and the skips */
	tracefile_damage_said(p.input, f, 0, "printed");
	for (int c = 0; c < st->ncpu; c++)
		if (st->cpu[c].missed || st->cpu[c].missed_unknown)
			warn_msg("the recording lost events on cpu%d: %llu%s", c,
				 (unsigned long long)st->cpu[c].missed,
				 st->cpu[c].missed_unknown ? " and more of unknown count" : "");
	rc = truncated ? EXIT_RUNTIME : EXIT_OK;
out:
	if (of.fp)
		outfile_abort(&of);
	blkparse_out_free(out);
	tracefile_close(f);
	topo_record_free(&topology);
	return rc;
}
