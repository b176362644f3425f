// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record.c - "blkstack record": the block events of a stack into a
 * trace-cmd trace.dat (version 6), for analysis elsewhere.
 *
 * Nothing is decoded on the recording path: the ring's sub-buffers are
 * spliced as they are into one spill file per CPU, by a thread per CPU as
 * trace-cmd's recorders do (unnamed files, in the output's directory: a
 * run killed with SIGKILL leaves nothing behind), and
 * datwrite.c assembles the file at the end, as FILE.partial renamed to
 * FILE once complete. Memory stays flat however long the recording.
 */
#include <errno.h>
#include <event-parse.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <tracefs.h>
#include <unistd.h>

#include "base/pcevent.h"
#include "base/util.h"
#include "capture/datsource.h"
#include "cmd/cmd.h"
#include "cmd/host.h"
#include "cmd/live.h"
#include "cmd/opt.h"
#include "cmd/pagecache.h"
#include "cmd/record-names.h"
#include "cmd/record.h"
#include "format/datwrite.h"
#include "output/outfile.h"
#include "track/topo-record.h"
#include "track/topo.h"

enum {
	OPT_PAGE_CACHE = CHAR_MAX + 1,
	OPT_RESOLVE_PATHS,
};

/* ---- options ---- */

const char *cli_usage_record(void)
{
	return "Usage:\n"
	       " blkstack record [options] [-- COMMAND [ARGS]]\n"
	       "\n"
	       "Record the block events of a device's stack (or of every device) into a\n"
	       "trace-cmd trace.dat (version 6), raw per-CPU pages untouched, for blkstack\n"
	       "report, parse and top -i, and trace-cmd report, on any machine.\n"
	       "\n"
	       "Options:\n"
	       " -d, --device DEV        record DEV's whole stack (repeatable); default: all\n"
	       " -w, --duration TIME     record for TIME (10, 10s, 500ms, 2m); default: until\n"
	       "                         Ctrl-C, or until COMMAND exits\n"
	       " -b, --buffer-size KB    per-CPU ring buffer in KiB (default 8192)\n"
	       " -j, --jobs N            threads reading the per-CPU buffers (default: one per\n"
	       "                         CPU, at most one per online CPU)\n"
	       " -o, --output FILE       the recording (default trace.dat; written as\n"
	       "                         FILE.partial and renamed when complete)\n"
	       "     --page-cache        the page-cache, readahead, writeback and direct-I/O\n"
	       "                         events of the stack's filesystems too, and the names\n"
	       "                         of the files they touched (for report -i --by file)\n"
	       "     --resolve-paths MODE  how those files are named: proc (opens seen by\n"
	       "                         fanotify while recording, then open files and maps\n"
	       "                         of live processes; the default), walk\n"
	       "                         (proc, then a walk of the filesystems), none\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-record(8).\n";
}

enum cli_result cli_parse_record(int argc, char **argv, struct record_params *p,
				 char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "device",	 required_argument, NULL, 'd' },
		{ "duration",	 required_argument, NULL, 'w' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "jobs",	 required_argument, NULL, 'j' },
		{ "output",	 required_argument, NULL, 'o' },
		{ "page-cache",	 no_argument,	    NULL, OPT_PAGE_CACHE },
		{ "resolve-paths", required_argument, NULL, OPT_RESOLVE_PATHS },
		{ "debug",	 no_argument,	    NULL, 'D' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	p->buffer_kb = CLI_DEFAULT_BUFFER_KB;
	p->output = "trace.dat";
	optind = 0;
	opterr = 0;
	/* "+": stop at the first non-option, so COMMAND's own options stay its own */
	while ((c = getopt_long(argc, argv, "+:d:w:b:j:o:Dh", opts, NULL)) != -1) {
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
		case 'j':
			r = opt_jobs(optarg, &p->jobs, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case OPT_PAGE_CACHE:
			p->page_cache = true;
			break;
		case OPT_RESOLVE_PATHS:
			r = opt_resolve(optarg, &p->resolve, err, errlen);
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
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--") != 0)
			return opt_error(err, errlen,
					 "unexpected argument '%s' (a command goes after --)",
					 argv[optind]);
		p->command = &argv[optind];
	}
	if (p->resolve && !p->page_cache)
		return opt_error(err, errlen, "--resolve-paths goes with --page-cache");
	if (p->has_duration && p->command)
		return opt_error(err, errlen, "-w and a command are mutually exclusive");
	if (!strcmp(p->output, "-"))
		return opt_error(err, errlen,
				 "-o -: a recording is written with seeks, give a file name");
	return CLI_RUN;
}

/* ---- the command ---- */

/* Refresh of the status line on a terminal. */
#define STATUS_EVERY_NS 1000000000ULL

struct recording {
	struct live *l;
	struct live_command *cmd;
	const char *output;
	int ncpu;
	FILE **spill;
	uint64_t *bytes;
	int err;		/* first write error of a spill: recording stops */
	int *fds;		/* the spills' descriptors, where the reader splices */
	bool status;		/* a live status line on stderr */
	uint64_t started, last_status;
};

/* The bytes of pages each CPU's spill holds, as the reader counted them. */
static void spill_bytes(struct recording *rec)
{
	const struct source_stats *st = live_stats(rec->l);

	for (int c = 0; c < rec->ncpu && c < st->ncpu; c++)
		rec->bytes[c] = st->cpu[c].bytes;
}

static uint64_t total_bytes(const struct recording *rec)
{
	uint64_t b = 0;

	for (int c = 0; c < rec->ncpu; c++)
		b += rec->bytes[c];
	return b;
}

/* After each pass: the status line, a write error, the command's end. */
static int after_pass(void *ctx)
{
	struct recording *rec = ctx;
	uint64_t now = mono_now_ns();

	rec->err = ring_spill_error(rec->l->r);
	if (rec->err)
		return 1;
	if (rec->status && now - rec->last_status >= STATUS_EVERY_NS) {
		rec->last_status = now;
		spill_bytes(rec);
		fprintf(stderr, "\r" PROGRAM_NAME ": recording %.0f s, %.1f MiB, %llu events lost ",
			(now - rec->started) / 1e9, total_bytes(rec) / 1048576.0,
			(unsigned long long)source_lost_total(live_stats(rec->l)));
	}
	return live_command_check(rec->cmd);
}

static int ignore_event(const struct blk_event *ev, void *ctx)
{
	(void)ev;
	(void)ctx;
	return 0;
}

/*
 * The stack being recorded, as markers in the instance's own buffer (one
 * print event per line of blkstack topology's format), so that the file
 * carries it to wherever it is read; trace-cmd report shows them too.
 */
int record_topology_markers(struct live *l)
{
	struct topo_selection all = { 0 };
	const struct topo_selection *sel = &l->sel;
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *mem;
	int ret;

	if (!sel->n) {
		ret = topo_all_devices("", &all);
		if (ret < 0)
			return ret;
		sel = &all;
	}
	mem = open_memstream(&text, &len);
	if (!mem) {
		topo_selection_free(&all);
		return -ENOMEM;
	}
	ret = topo_record_write(mem, "", sel->devs, sel->n);
	if (fclose(mem) && !ret)
		ret = -ENOMEM;
	topo_selection_free(&all);
	if (!ret && tracefs_print_init(l->s.instance) < 0)
		ret = errno ? -errno : -EIO;
	for (line = ret ? NULL : strtok_r(text, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		if (tracefs_printf(l->s.instance, "blkstack-topology: %s\n", line) < 0)
			ret = errno ? -errno : -EIO;
	tracefs_print_close(l->s.instance);
	free(text);
	return ret;
}

/*
 * What the recording says of this machine, as a marker in the instance's
 * own buffer: the kernel's release and CONFIG_HZ, which decide how it
 * counted busy time, and the wall clock of the trace clock (host-marker.h).
 */
int record_host_marker(struct live *l, const struct host_marker *m)
{
	char text[256];
	int ret;

	ret = host_marker_format(text, sizeof(text), m);
	if (ret < 0)
		return ret;
	if (tracefs_print_init(l->s.instance) < 0 ||
	    tracefs_printf(l->s.instance, "%s\n", text) < 0)
		ret = errno ? -errno : -EIO;
	else
		ret = 0;
	tracefs_print_close(l->s.instance);
	return ret;
}

/*
 * Tracing stopped: read the recorded pages back for the files the
 * page-cache events touched, name them, and append one marker per name
 * (the events off, tracing on again for the markers alone).
 */
static int record_file_names(struct recording *rec, struct pc_run *run)
{
	struct live *l = rec->l;
	size_t written, skipped;
	int ret;

	spill_bytes(rec);
	ret = record_names_scan(run, rec->spill, rec->bytes, rec->ncpu, ring_subbuf_size(l->r),
				tep_get_header_page_size(l->s.tep) == 4 ? 4 : 8, l->dec);
	if (ret < 0) {
		err_msg("cannot read back the recorded pages for the file names: %s",
			strerror(-ret));
		return ret;
	}
	if (rec->status) {
		size_t n;

		pagecache_files(run->pc, &n);
		fprintf(stderr, PROGRAM_NAME ": naming the %zu files of the recording%s\n", n,
			run->resolve == CLI_RESOLVE_WALK ? " (walking their filesystems; Ctrl-C stops the walk)" : "");
	}
	if (pc_run_finish(run) < 0)
		return -ENOMEM;
	if (tracefs_event_disable(l->s.instance, NULL, NULL) < 0 || session_start(&l->s) < 0) {
		ret = errno ? -errno : -EIO;
		err_msg("cannot write the file names into the recording: %s", strerror(-ret));
		return ret;
	}
	ret = record_names_write(l->s.instance, run, &written, &skipped);
	if (ret == 0)
		ret = live_finish(l, ignore_event, NULL);
	if (ret < 0) {
		err_msg("cannot write the file names into the recording: %s", strerror(-ret));
		return ret;
	}
	debug_msg("%zu file names in the recording", written);
	if (skipped)
		note_msg("%zu file names too long for a marker: those files show as MAJ:MIN:ino",
			 skipped);
	return 0;
}

static void print_summary(const struct recording *rec, const struct source_stats *st,
			  const char *file)
{
	uint64_t events = 0, bytes = total_bytes(rec);

	for (int c = 0; c < st->ncpu; c++)
		events += st->cpu[c].events;
	fprintf(stderr, PROGRAM_NAME ": %llu events, %.1f %s of pages in '%s'; lost:",
		(unsigned long long)events, bytes >= 1048576 ? bytes / 1048576.0 : bytes / 1024.0,
		bytes >= 1048576 ? "MiB" : "KiB", file);
	for (int c = 0; c < st->ncpu; c++)
		fprintf(stderr, " cpu%d %llu", c,
			(unsigned long long)source_cpu_lost(&st->cpu[c]));
	fputc('\n', stderr);
}

int cmd_record(int argc, char **argv)
{
	struct host_marker host;
	struct dat_formats formats = { 0 };
	struct live_command cmd = { .pid = -1 };
	struct pc_run run = { 0 };
	struct recording rec = { 0 };
	struct outfile of = { 0 };
	struct record_params p;
	struct live l = { 0 };
	struct live_opts lo;
	struct dat_source src;
	const struct source_stats *st;
	char err[CLI_ERR_LEN], dir[PATH_MAX], path[PATH_MAX];
	int rc = EXIT_RUNTIME;
	int ret;

	switch (cli_parse_record(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_record(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " record --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	snprintf(path, sizeof(path), "%s", p.output);
	snprintf(dir, sizeof(dir), "%s", dirname(path));	/* dirname may modify path */

	/* the ticks: report -i --iostat counts busy time in the jiffies the kernel did */
	lo = (struct live_opts){ .devs = p.devs, .ndevs = p.ndevs, .buffer_kb = p.buffer_kb,
				 .threads = p.jobs, .ticks = true, .markers = true };
	if (p.page_cache) {
		/* no tracker: the run only learns which files the recording touched */
		if (pc_run_init(&run, true, p.resolve, NULL, NULL) < 0)
			goto out;
		lo.pagecache = true;
		lo.fsmap = &run.map;
	}
	live_signals();
	if (live_open(&l, &lo) < 0)
		goto out;
	if (run.pc)
		pc_run_watch(&run, &l.pcf);
	rec.l = &l;
	rec.cmd = &cmd;
	rec.output = p.output;
	rec.ncpu = l.s.ncpu;
	rec.spill = calloc(rec.ncpu, sizeof(*rec.spill));
	rec.bytes = calloc(rec.ncpu, sizeof(*rec.bytes));
	rec.fds = calloc(rec.ncpu, sizeof(*rec.fds));
	if (!rec.spill || !rec.bytes || !rec.fds) {
		err_msg("out of memory");
		goto out;
	}
	for (int c = 0; c < rec.ncpu; c++) {
		rec.spill[c] = dat_spill_open(dir);
		if (!rec.spill[c]) {
			err_msg("cannot create a temporary file in '%s' for the recording: %s", dir,
				strerror(errno));
			goto out;
		}
		rec.fds[c] = fileno(rec.spill[c]);
	}
	/* the formats now: the file must describe what this kernel records */
	ret = dat_formats_read(l.s.instance, p.page_cache, &formats);
	if (ret) {
		err_msg("cannot read the event formats from tracefs: %s", strerror(-ret));
		goto out;
	}
	/* the pages go from the kernel to the spills, never through user space */
	ring_set_spill(l.r, rec.fds);
	/*
	 * what is said of this machine, read before tracing starts: reading its
	 * configuration takes milliseconds, and the clocks pair whenever read
	 */
	host_marker_now(&host);
	if (live_start(&l) < 0)
		goto out;
	ret = record_topology_markers(&l);
	if (ret < 0)
		warn_msg("the device stack could not be written into the recording (%s): save it "
			 "with 'blkstack topology' for report -i --topology", strerror(-ret));
	ret = record_host_marker(&l, &host);
	if (ret < 0)
		warn_msg("the recording carries no wall clock nor CONFIG_HZ: they could not be "
			 "written into it (%s)", strerror(-ret));
	rec.started = rec.last_status = mono_now_ns();
	rec.status = isatty(STDERR_FILENO);
	if (p.command) {
		if (live_command_start(&cmd, p.command) < 0)
			goto out;
	} else if (rec.status) {
		fprintf(stderr, PROGRAM_NAME ": recording to '%s'; Ctrl-C to stop\n", p.output);
	}
	ret = live_loop(&l, p.has_duration ? p.duration_ns : 0, ignore_event, NULL, after_pass,
			&rec);
	if (ret == 0)
		ret = live_finish(&l, ignore_event, NULL);
	live_command_end(&cmd);
	if (rec.status)
		fputc('\n', stderr);
	if (ret < 0)
		goto out;
	rec.err = ring_spill_error(l.r);
	if (rec.err)
		err_msg("writing the recording's pages in '%s' failed: %s; recording stopped "
			"after %.1f s", dir, strerror(-rec.err), (mono_now_ns() - rec.started) / 1e9);
	else if (p.page_cache && record_file_names(&rec, &run) < 0)
		/* the events are safe: a recording without names is still one */
		warn_msg("the recording carries no file names: its files show as MAJ:MIN:ino");

	/* what the pids of the recording were called, as trace-cmd saves them */
	dat_formats_read_cmdlines(&formats);
	st = live_stats(&l);
	rec.err = ring_spill_error(l.r);
	spill_bytes(&rec);
	dat_formats_source(&formats, ring_subbuf_size(l.r), rec.ncpu, rec.spill, rec.bytes, &src);
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	ret = datwrite_v6(of.fp, &src);
	if (!ret && !rec.err)
		ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write '%s.partial': %s; it is incomplete", p.output, strerror(-ret));
		goto out;
	}
	live_report_losses(st);
	if (rec.err) {
		/* readable, but cut short: it keeps the name that says so */
		print_summary(&rec, st, of.tmp ? of.tmp : p.output);
		note_msg("'%s' holds what was recorded before the write error; it is not renamed "
			 "to '%s'", of.tmp ? of.tmp : p.output, p.output);
		goto out;
	}
	print_summary(&rec, st, p.output);
	rc = EXIT_OK;
	if (cmd.exited && !(WIFEXITED(cmd.status) && WEXITSTATUS(cmd.status) == 0))
		note_msg("'%s' exited with status %d", p.command[0],
			 WIFEXITED(cmd.status) ? WEXITSTATUS(cmd.status) : 128 + WTERMSIG(cmd.status));
out:
	if (of.fp)
		outfile_abort(&of);
	live_command_end(&cmd);
	for (int c = 0; rec.spill && c < rec.ncpu; c++)
		if (rec.spill[c])
			fclose(rec.spill[c]);
	free(rec.spill);
	free(rec.bytes);
	free(rec.fds);
	dat_formats_free(&formats);
	live_close(&l);
	pc_run_destroy(&run);
	return rc;
}
