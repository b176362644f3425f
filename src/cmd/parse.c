// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-parse.c - "blkstack parse": a trace.dat recording to the blkparse log.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/opt.h"
#include "cmd/cmd.h"
#include "output/blkparse.h"
#include "output/outfile.h"
#include "base/pcevent.h"
#include "format/tracefile.h"
#include "base/util.h"

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

int cmd_parse(int argc, char **argv)
{
	struct blkparse_filter filter = { 0 };
	struct blkparse_out *out = NULL;
	struct tracefile *f = NULL;
	struct outfile of = { 0 };
	struct dev_list devs = { .n = 0 };
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
	for (size_t i = 0; i < p.ndevs; i++) {
		unsigned int ma, mi;

		sscanf(p.devs[i], "%u:%u", &ma, &mi);
		devs.devs[devs.n++] = KDEV_MKDEV(ma, mi);
	}
	if (devs.n) {
		filter.has = in_list;
		filter.ctx = &devs;
	}

	f = tracefile_open(p.input, &ret);
	if (!f) {
		tracefile_open_error(p.input, ret);
		return EXIT_RUNTIME;
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
	ret = tracefile_read(f, block_event, out);
	if (ret == -EBADMSG) {
		blkparse_out_finish(out);
		err_msg("'%s' is corrupt: it could not be read to its end; the events before the damage were printed",
			p.input);
		goto out;
	}
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
	return rc;
}
