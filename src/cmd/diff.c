// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diff.c - "blkstack diff A.dat B.dat": each recording through the tracker
 * into its statistics and amplification, then both side by side with the
 * change (output/diff.c), for before/after comparisons of a configuration.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/pcevent.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/diff.h"
#include "cmd/roles.h"
#include "format/tracefile.h"
#include "output/diff.h"
#include "output/outfile.h"
#include "track/amp.h"
#include "track/stats.h"
#include "track/topo-record.h"
#include "track/tracker.h"

enum {
	OPT_JSON = CHAR_MAX + 1,
	OPT_TOPOLOGY_A,
	OPT_TOPOLOGY_B,
};

const char *cli_usage_diff(void)
{
	return "Usage:\n"
	       " blkstack diff [options] A.dat B.dat\n"
	       "\n"
	       "Follow every I/O of two recordings through their stacks, pair their layers by\n"
	       "name and place in the stack, and print per layer and operation the figures of\n"
	       "each side by side with the change from A to B, the biggest change first: I/Os,\n"
	       "MiB/s, size, latency (average, p50, p99), merges, splits and the layer's byte\n"
	       "amplification.\n"
	       "\n"
	       "Stacks:\n"
	       "     --topology-a FILE   A's device stack, as 'blkstack topology' wrote it on\n"
	       "                         the machine A was recorded on (a blkstack recording\n"
	       "                         carries its own)\n"
	       "     --topology-b FILE   B's, likewise\n"
	       "\n"
	       "Output:\n"
	       " -o, --output FILE       write to FILE instead of standard output\n"
	       "     --json              one JSON document instead of a table\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-diff(8).\n";
}

enum cli_result cli_parse_diff(int argc, char **argv, struct diff_params *p, char *err,
			       size_t errlen)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "json",   no_argument,       NULL, OPT_JSON },
		{ "topology-a", required_argument, NULL, OPT_TOPOLOGY_A },
		{ "topology-b", required_argument, NULL, OPT_TOPOLOGY_B },
		{ "debug",  no_argument,       NULL, 'D' },
		{ "help",   no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_JSON:
			p->json = true;
			break;
		case OPT_TOPOLOGY_A:
			r = opt_topology(optarg, &p->topology_a, err, errlen);
			break;
		case OPT_TOPOLOGY_B:
			r = opt_topology(optarg, &p->topology_b, err, errlen);
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
	if (argc - optind != 2)
		return opt_error(err, errlen, "two recordings to compare: A.dat B.dat");
	p->a = argv[optind];
	p->b = argv[optind + 1];
	return CLI_RUN;
}

/* ---- the command ---- */

/* One recording: its statistics, amplification and stack. */
struct side {
	struct stats *st;
	struct amp amp;
	struct tracker *t;
	struct tracefile *f;
	struct topo_record given;		/* --topology-a or -b */
	const struct topo_record *stack;	/* that, or the one recorded in it */
	char stack_from[4200];			/* where it came from, for the output */
};

static void side_io(const struct tk_io *io, void *ctx)
{
	struct side *s = ctx;

	stats_io(io, s->st);
	amp_io(io, &s->amp);
}

/* A recording may hold page-cache events: only block events count. */
static int side_event(const struct blk_event *ev, void *ctx)
{
	struct side *s = ctx;

	return pc_kind_is(ev->kind) ? 0 : tracker_event(ev, s->t);
}

/* Free @s's statistics and tracker (not its file). */
static void side_collect_free(struct side *s)
{
	tracker_free(s->t);
	stats_free(s->st);
	amp_destroy(&s->amp);
	s->t = NULL;
	s->st = NULL;
}

/* Make @s's statistics and tracker, empty; NULL after saying why, or the tracker. */
static struct tracker *side_collect_build(void *ctx)
{
	struct side *s = ctx;
	struct tk_params tp = { 0 };

	side_collect_free(s);
	s->st = stats_alloc();
	s->t = s->st ? tracker_alloc(&tp, side_io, s) : NULL;
	if (!s->t)
		err_msg("out of memory");
	return s->t;
}

/* One read of the recording into @ctx (a roles_reader's read). */
static int side_read_once(struct tracefile *f, void *ctx)
{
	return tracefile_read(f, side_event, ctx);
}

/* Read @path into @s, with the stack of @topology (NULL: its own). Says what failed; returns 0 or -1. */
static int side_read(struct side *s, const char *path, const char *topology)
{
	struct roles_reader reader = { .read = side_read_once, .rebuild = side_collect_build,
				       .ctx = s };
	int ret;

	if (topology && topo_record_load_said(topology, &s->given) < 0)
		return -1;
	if (!side_collect_build(s))
		return -1;
	s->f = tracefile_open(path, &ret);
	if (!s->f) {
		tracefile_open_error(path, ret);
		return -1;
	}
	s->stack = topology ? &s->given : tracefile_topology(s->f);
	if (topology)
		snprintf(s->stack_from, sizeof(s->stack_from), "%s", topology);
	else if (s->stack)
		snprintf(s->stack_from, sizeof(s->stack_from), "recorded in it");
	/* as report -i: the stack, or the remaps, tell each device's role */
	tracefile_set_jobs(s->f, 1);
	ret = roles_read(path, s->f, s->stack, s->t, 1, &reader);
	if (ret == -ECANCELED)
		return -1;	/* said */
	if (tracefile_damage_said(path, s->f, ret, NULL) || ret < 0 ||
	    tracefile_no_block_said(path, s->f))
		return -1;
	tracker_finish(s->t);
	return 0;
}

static void side_free(struct side *s)
{
	side_collect_free(s);
	tracefile_close(s->f);
	topo_record_free(&s->given);
}

/* Whether @a and @b name the same file (a link, another path to it). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_diff(int argc, char **argv)
{
	struct side sa = { 0 }, sb = { 0 };
	struct diff_side da, db;
	struct outfile of = { 0 };
	struct diff_params p;
	char err[CLI_ERR_LEN];
	int rc = EXIT_RUNTIME;
	bool same;
	int ret;

	switch (cli_parse_diff(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_diff(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " diff --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	same = same_file(p.a, p.b);
	if (same)
		note_msg("'%s' and '%s' are the same file: every change is 0", p.a, p.b);
	if (side_read(&sa, p.a, p.topology_a) < 0 || side_read(&sb, p.b, p.topology_b) < 0)
		goto out;
	da = (struct diff_side){ .label = p.a, .st = sa.st, .amp = &sa.amp, .names = sa.stack,
				 .stack = sa.stack ? sa.stack_from : NULL };
	db = (struct diff_side){ .label = p.b, .st = sb.st, .amp = &sb.amp, .names = sb.stack,
				 .stack = sb.stack ? sb.stack_from : NULL };
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	ret = p.json ? out_diff_json(of.fp, &da, &db, same) : out_diff_text(of.fp, &da, &db, same);
	if (!ret)
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
	side_free(&sa);
	side_free(&sb);
	return rc;
}
