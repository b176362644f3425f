// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * convert.c - "blkstack convert": a trace.dat recording to blktrace's
 * binary files, to rows (CSV, JSON lines), or to a Perfetto trace.
 *
 * Glue only: tracefile -> blktrace writer; or tracefile -> tracker -> rows
 * or Perfetto writer. Every output is written under a .partial name and
 * renamed once complete: a recording cut short, or a write that fails,
 * leaves the .partial files and exit status 1.
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
#include "cmd/convert-btt.h"
#include "cmd/convert.h"
#include "cmd/roles.h"
#include "cmd/opt.h"
#include "cmd/pagecache.h"
#include "format/tracefile.h"
#include "output/blktrace.h"
#include "output/outfile.h"
#include "output/perfetto.h"
#include "output/rows.h"
#include "track/topo-record.h"
#include "track/tracker.h"

enum {
	OPT_MAX_INFLIGHT = CHAR_MAX + 1,
	OPT_TIMEOUT,
	OPT_TOPOLOGY,
};

/* ---- options ---- */

static const char *const convert_formats[] = {
	[CONVERT_BLKTRACE] = "blktrace",
	[CONVERT_CSV] = "csv",
	[CONVERT_JSONL] = "jsonl",
	[CONVERT_PERFETTO] = "perfetto",
	[CONVERT_BTT_DATA] = "btt-data",
};

const char *cli_convert_format_name(int format)
{
	if (format < CONVERT_BLKTRACE || format > CONVERT_PERFETTO)
		return "?";
	return convert_formats[format];
}

const char *cli_usage_convert(void)
{
	return "Usage:\n"
	       " blkstack convert -i FILE -F FORMAT [-o OUT] [options]\n"
	       "\n"
	       "Convert a trace.dat recording for other tools: blktrace's binary files (for\n"
	       "blkparse, btt, iowatcher), one row per completed I/O with each layer's times\n"
	       "(CSV, JSON lines), or a trace with a track per device for ui.perfetto.dev.\n"
	       "\n"
	       "Input:\n"
	       " -i, --input FILE        the trace.dat file (blkstack record, or trace-cmd\n"
	       "                         record -e block)\n"
	       "     --topology FILE     the recording's device stack, as 'blkstack topology'\n"
	       "                         wrote it on the traced machine (a blkstack recording\n"
	       "                         carries its own): names for devmap and Perfetto\n"
	       "\n"
	       "Output:\n"
	       " -F, --to FORMAT         blktrace, csv, jsonl or perfetto; or btt-data: btt's\n"
	       "                         -l -q -z -Q -s -m -B files and its iops and mbps\n"
	       "                         files per device (and sys), into -o DIR\n"
	       " -o, --output OUT        the file to write (default: standard output); for\n"
	       "                         blktrace the prefix of OUT.blktrace.N (one file per\n"
	       "                         CPU) and OUT.devmap (btt -M), or - for one stream on\n"
	       "                         standard output (blkparse -i -)\n"
	       "\n"
	       "Tracking (csv, jsonl, perfetto):\n"
	       "     --max-inflight N    bios followed at once at most (default 1048576)\n"
	       "     --timeout TIME      drop a bio not completed after TIME (default 30s)\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-convert(8).\n";
}

enum cli_result cli_parse_convert(int argc, char **argv, struct convert_params *p,
				  char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "input",	  required_argument, NULL, 'i' },
		{ "to",		  required_argument, NULL, 'F' },
		{ "output",	  required_argument, NULL, 'o' },
		{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
		{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
		{ "topology",	  required_argument, NULL, OPT_TOPOLOGY },
		{ "debug",	  no_argument,	     NULL, 'D' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool tracking = false;
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:F:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'i':
			r = opt_file(optarg, &p->input, 'i', err, errlen);
			break;
		case 'F':
			p->format = 0;
			for (int f = CONVERT_BLKTRACE; f <= CONVERT_BTT_DATA; f++)
				if (strcmp(optarg, convert_formats[f]) == 0)
					p->format = f;
			if (!p->format)
				return opt_error(err, errlen,
						 "unknown format '%s' (blktrace, csv, jsonl, perfetto or btt-data)",
						 optarg);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_MAX_INFLIGHT:
			r = opt_max_inflight(optarg, &p->max_inflight, err, errlen);
			tracking = true;
			break;
		case OPT_TIMEOUT:
			r = opt_timeout(optarg, &p->timeout_ns, err, errlen);
			tracking = true;
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
	if (optind < argc)
		return opt_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	if (!p->input)
		return opt_error(err, errlen, "no input file: give one with -i FILE");
	if (!p->format)
		return opt_error(err, errlen,
				 "no output format: give one with --to (blktrace, csv, jsonl or perfetto)");
	if (p->format == CONVERT_BLKTRACE && !p->output)
		return opt_error(err, errlen,
				 "--to blktrace writes files named after -o OUT (or - for standard output)");
	if (p->format == CONVERT_BTT_DATA && (!p->output || !strcmp(p->output, "-")))
		return opt_error(err, errlen, "--to btt-data writes files into the directory -o DIR");
	if (p->format == CONVERT_BTT_DATA && tracking)
		return opt_error(err, errlen,
				 "--max-inflight and --timeout tune the I/O tracking of csv, jsonl and perfetto; btt-data follows btt's rules");
	if (p->format == CONVERT_BLKTRACE && tracking)
		return opt_error(err, errlen,
				 "--max-inflight and --timeout tune the I/O tracking of csv, jsonl and perfetto; blktrace copies events");
	return CLI_RUN;
}

/* ---- the command ---- */

/*
 * After the events were read: report what the recording lacks. Returns
 * true when it is cut short or corrupt (the output is then incomplete).
 */
static bool input_damaged(const char *path, struct tracefile *f, int read_ret)
{
	const struct source_stats *st = tracefile_stats(f);
	bool damaged = tracefile_damage_said(path, f, read_ret, "converted");

	for (int c = 0; c < st->ncpu; c++) {
		if (st->cpu[c].missed || st->cpu[c].missed_unknown)
			warn_msg("the recording lost events on cpu%d: %llu%s", c,
				 (unsigned long long)st->cpu[c].missed,
				 st->cpu[c].missed_unknown ? " and more of unknown count" : "");
	}
	return damaged;
}

static bool to_stdout(const char *out)
{
	return !out || strcmp(out, "-") == 0;
}

/*
 * A Perfetto track: the layer's label, as the report names it, and the
 * number ("bsk-crypt(crypt) 253:3")
 */
static const char *track_name(uint32_t dev, char *buf, size_t len, void *ctx)
{
	char name[96];

	if (!topo_record_label(dev, name, sizeof(name), ctx))
		return NULL;
	snprintf(buf, len, "%s %u:%u", name, KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return buf;
}

/* ---- blktrace ------------------------------------------------------------ */

/* @stack: the recorded stack (names), or NULL: devices are MAJ:MIN */
static int write_devmap(const struct convert_params *p, const struct bt_out *bt,
			const struct topo_record *stack)
{
	struct outfile of;
	char *path;
	int ret;

	if (asprintf(&path, "%s.devmap", p->output) < 0)
		return -ENOMEM;
	ret = outfile_open(&of, path);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", path, strerror(-ret));
		goto out;
	}
	ret = bt_out_devmap(bt, of.fp, stack ? topo_record_name : NULL, (void *)stack);
	if (!ret)
		ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write '%s.partial': %s", path, strerror(-ret));
		outfile_abort(&of);
	}
out:
	free(path);
	return ret;
}

/* a task's name from the recording's saved_cmdlines (a bt_out name source) */
static const char *recorded_name(void *ctx, int32_t pid)
{
	return tracefile_comm(ctx, pid);
}

static int run_blktrace(const struct convert_params *p, struct tracefile *f,
			const struct topo_record *stack)
{
	const struct bt_out_stats *bs;
	struct bt_out *bt;
	int rc = EXIT_RUNTIME;
	bool damaged;
	int ret;

	bt = bt_out_alloc(p->output);
	if (!bt) {
		err_msg("out of memory");
		return EXIT_RUNTIME;
	}
	ret = bt_out_open(bt, tracefile_stats(f)->ncpu);
	if (ret < 0) {
		err_msg("cannot create '%s': %s",
			bt_out_failed_path(bt) ? bt_out_failed_path(bt) : p->output,
			strerror(-ret));
		goto out;
	}
	bt_out_set_names(bt, recorded_name, f);
	ret = tracefile_read(f, bt_out_event, bt);
	if (ret >= 0 && tracefile_no_block_said(p->input, f))
		goto out;	/* said; no file is left */
	damaged = input_damaged(p->input, f, ret);
	/* the CPU count of a file is known once it is read: a file for each */
	if (ret == 0 || ret == -EBADMSG)
		ret = bt_out_open(bt, tracefile_stats(f)->ncpu);
	if (ret == 0)
		ret = bt_out_finish(bt);
	if (ret == -EPIPE && to_stdout(p->output)) {
		rc = EXIT_OK;	/* the reader of the stream went away */
		goto out;
	}
	if (ret < 0) {
		if (bt_out_failed_path(bt))
			err_msg("cannot write '%s': %s; what was written is left there",
				bt_out_failed_path(bt), strerror(-ret));
		else
			err_msg("cannot write to standard output: %s", strerror(-ret));
		goto out;
	}
	bs = bt_out_stats(bt);
	if (damaged) {
		if (!to_stdout(p->output))
			note_msg("the blktrace files of what could be read are '%s.blktrace.N.partial'",
				 p->output);
		goto out;
	}
	if (!to_stdout(p->output) && write_devmap(p, bt, stack) < 0)
		goto out;
	ret = bt_out_commit(bt);
	if (ret < 0) {
		err_msg("cannot write '%s': %s",
			bt_out_failed_path(bt) ? bt_out_failed_path(bt) : "standard output",
			strerror(-ret));
		goto out;
	}
	if (bs->unattributed)
		note_msg("%llu plugs and unplugs of tasks never seen queueing were left out: their device is unknown",
			 (unsigned long long)bs->unattributed);
	if (!to_stdout(p->output))
		fprintf(stderr, PROGRAM_NAME ": %llu records and %llu process notes in %d files %s.blktrace.N; device map %s.devmap\n",
			(unsigned long long)bs->records, (unsigned long long)bs->notes, bs->ncpu,
			p->output, p->output);
	rc = EXIT_OK;
out:
	bt_out_free(bt);
	return rc;
}

/* ---- rows and perfetto: through the tracker --------------------------------- */

struct tracked {
	struct tracker *t;
	struct rows_out *rows;
	struct perfetto_out *pf;
	struct pc_run *run;	/* a recording with page-cache events: each I/O's file */
	char file[PATH_MAX + 32];
	bool started;
};

/* An event to the tracker; a failed write stops the reading. */
static int tracked_event(const struct blk_event *ev, void *ctx)
{
	struct tracked *tr = ctx;

	if (!tr->started && tr->pf)
		perfetto_out_base(tr->pf, ev->ts);
	tr->started = true;
	if (tr->run) {
		int ret = pc_run_event(ev, tr->run);

		if (ret < 0)
			return ret;
	} else {
		tracker_event(ev, tr->t);
	}
	return tr->rows ? rows_out_error(tr->rows) : perfetto_out_error(tr->pf);
}

/* A completed tree and the file the page-cache attribution gave it. */
static void file_io(const struct tk_io *io, int32_t owner, void *ctx)
{
	struct tracked *tr = ctx;
	const char *file = pc_run_owner_name(tr->run, owner, tr->file, sizeof(tr->file));

	if (tr->rows)
		rows_out_io_file(tr->rows, io, file);
	else
		perfetto_out_io_file(tr->pf, io, file);
}

static void tracking_notes(const struct tk_counters *k)
{
	if (k->ios_top && k->ios_top_matched < k->ios_top)
		note_msg("%llu of %llu top-level I/Os reached a disk through every layer (%llu "
			 "completed by a layer itself, %llu ended at a layer, %llu partly followed: "
			 "their rows' \"reach\")",
			 (unsigned long long)k->ios_top_matched, (unsigned long long)k->ios_top,
			 (unsigned long long)k->ios_top_reach[TK_REACH_SELF],
			 (unsigned long long)k->ios_top_reach[TK_REACH_ENDED],
			 (unsigned long long)k->ios_top_reach[TK_REACH_PARTIAL]);
	if (k->ios_unexplained)
		note_msg("%llu I/Os came down from a layer with nothing in flight to send them: "
			 "their rows' class is \"unexplained\"", (unsigned long long)k->ios_unexplained);
	if (k->expired)
		note_msg("%llu I/Os never completed within the recording (or --timeout): no row",
			 (unsigned long long)k->expired);
	if (k->dropped_cap)
		note_msg("%llu bios were not followed: more were in flight than --max-inflight",
			 (unsigned long long)k->dropped_cap);
}

static int run_tracked(const struct convert_params *p, struct tracefile *f,
		       const struct topo_record *stack)
{
	struct tk_params tp = { .max_inflight = p->max_inflight, .timeout_ns = p->timeout_ns };
	struct tracked tr = { 0 };
	struct pc_run run = { 0 };
	struct outfile of = { 0 };
	int rc = EXIT_RUNTIME;
	bool damaged;
	int ret;

	ret = outfile_open(&of, p->output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p->output, strerror(-ret));
		return EXIT_RUNTIME;
	}
	if (p->format == CONVERT_PERFETTO) {
		tr.pf = perfetto_out_alloc(of.fp, stack ? track_name : NULL, (void *)stack);
		if (tr.pf)
			perfetto_out_stack(tr.pf, stack);
	} else {
		tr.rows = rows_out_alloc(of.fp, p->format == CONVERT_CSV ? ROWS_CSV : ROWS_JSONL);
	}
	if ((tr.pf || tr.rows) && tracefile_has(f, PC_EV_ADD)) {
		/* the attribution owns the tracker, and names each I/O's file */
		if (pc_run_init(&run, false, CLI_RESOLVE_DEFAULT, &tp, NULL) < 0)
			goto out;
		if (pc_run_recorded_names(&run, f) < 0) {
			err_msg("out of memory");
			goto out;
		}
		run.io_fn = file_io;
		run.io_ctx = &tr;
		tr.run = &run;
		tr.t = run.t;
	} else if (tr.pf) {
		tr.t = tracker_alloc(&tp, perfetto_out_io, tr.pf);
	} else if (tr.rows) {
		tr.t = tracker_alloc(&tp, rows_out_io, tr.rows);
	}
	if (!tr.t) {
		err_msg("out of memory");
		goto out;
	}
	/*
	 * as report: the I/O of a device with holders is not top-level; rows
	 * are written as the file is read: it cannot be read again at the
	 * first remap as report does, and is looked through for one first
	 */
	if (roles_of_recording(p->input, f, stack, tr.t, 1) < 0)
		goto out;
	ret = tracefile_read(f, tracked_event, &tr);
	if (ret >= 0 && tracefile_no_block_said(p->input, f))
		goto out;	/* said; no file is left */
	damaged = input_damaged(p->input, f, ret);
	if (ret == 0 || ret == -EBADMSG)
		tracker_finish(tr.t);
	ret = tr.pf ? perfetto_out_finish(tr.pf) : rows_out_finish(tr.rows);
	if (ret == -EPIPE && to_stdout(p->output)) {
		rc = EXIT_OK;
		goto out;
	}
	if (ret < 0) {
		if (of.tmp)
			err_msg("cannot write '%s': %s; what was written is left there", of.tmp,
				strerror(-ret));
		else if (to_stdout(p->output))
			err_msg("cannot write to standard output: %s", strerror(-ret));
		else
			err_msg("cannot write '%s': %s", p->output, strerror(-ret));
		goto out;
	}
	if (damaged) {
		if (of.tmp)
			note_msg("the %s of what could be read is in '%s'",
				 cli_convert_format_name(p->format), of.tmp);
		goto out;
	}
	ret = outfile_commit(&of);
	if (ret < 0) {
		if (to_stdout(p->output))
			err_msg("cannot write to standard output: %s", strerror(-ret));
		else
			err_msg("cannot write '%s': %s", p->output, strerror(-ret));
		goto out;
	}
	tracking_notes(tracker_counters(tr.t));
	if (!to_stdout(p->output)) {
		if (tr.pf)
			fprintf(stderr, PROGRAM_NAME ": %llu I/Os on %llu devices in %s\n",
				(unsigned long long)perfetto_out_stats(tr.pf)->ios,
				(unsigned long long)perfetto_out_stats(tr.pf)->devices, p->output);
		else
			fprintf(stderr, PROGRAM_NAME ": %llu I/Os in %s\n",
				(unsigned long long)rows_out_count(tr.rows), p->output);
	}
	rc = EXIT_OK;
out:
	if (of.fp)
		outfile_abort(&of);
	if (tr.run)
		pc_run_destroy(&run);	/* its tracker too */
	else
		tracker_free(tr.t);
	rows_out_free(tr.rows);
	perfetto_out_free(tr.pf);
	return rc;
}

int cmd_convert(int argc, char **argv)
{
	struct topo_record topology = { 0 };
	const struct topo_record *stack;
	struct convert_params p;
	char err[CLI_ERR_LEN];
	struct tracefile *f;
	int rc, ret;

	switch (cli_parse_convert(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_convert(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " convert --help'\n");
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
	/* the names: of --topology, else of the stack a blkstack recording carries */
	stack = p.topology ? &topology : tracefile_topology(f);
	if (p.format == CONVERT_BLKTRACE)
		rc = run_blktrace(&p, f, stack);
	else if (p.format == CONVERT_BTT_DATA)
		rc = convert_btt_data(p.input, f, p.output);
	else
		rc = run_tracked(&p, f, stack);
	tracefile_close(f);
	topo_record_free(&topology);
	return rc;
}
