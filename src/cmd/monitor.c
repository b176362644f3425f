// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * monitor.c - "blkstack monitor": the live pipeline of report and top, run
 * until stopped, its statistics exposed to Prometheus over HTTP
 * (/metrics) and/or written for node_exporter's textfile collector.
 *
 * Glue only: live tracing (cmd/live) -> the tracker -> the statistics,
 * never reset (Prometheus wants counters that only grow) -> the
 * exposition (output/openmetrics) -> the endpoint (output/metrics-http)
 * or DIR/blkstack.prom, replaced atomically (output/outfile).
 *
 * The statistics belong to this thread alone: a scrape asks for a text and
 * this thread renders it between two reads of the rings.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "config.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "cmd/monitor-devices.h"
#include "cmd/monitor-http.h"
#include "cmd/monitor-record.h"
#include "cmd/monitor.h"
#include "cmd/opt.h"
#include "output/metrics-http.h"
#include "output/openmetrics.h"
#include "output/outfile.h"
#include "track/cgroup.h"
#include "track/stats.h"
#include "track/topo.h"
#include "track/tracker.h"

enum {
	OPT_LISTEN = CHAR_MAX + 1,
	OPT_TEXTFILE,
	OPT_INTERVAL,
	OPT_MAX_INFLIGHT,
	OPT_TIMEOUT,
	OPT_BY,
	OPT_MAX_CGROUPS,
	OPT_WEB_CONFIG,
	OPT_RECORD_WITHOUT_AUTH,
};

#define TEXTFILE_NAME "blkstack.prom"
#define TEXTFILE_MODE 0640

/* ---- options ---- */

const char *cli_usage_monitor(void)
{
	return "Usage:\n"
	       " blkstack monitor [options]\n"
	       "\n"
	       "Follow every I/O through the stack until stopped, and expose per layer and\n"
	       "operation its latency and size histograms and counters to Prometheus: over\n"
	       "HTTP at /metrics and/or as a file for node_exporter's textfile collector.\n"
	       "With neither --listen nor --textfile, serve on " MONITOR_DEFAULT_LISTEN ".\n"
	       "\n"
	       "Source:\n"
	       " -d, --device DEV        monitor DEV's whole stack (repeatable); default: all\n"
	       " -b, --buffer-size KB    per-CPU ring buffer in KiB (default 8192)\n"
	       "\n"
	       "Export:\n"
	       "     --listen ADDR:PORT  serve http://ADDR:PORT/metrics (:PORT: every address)\n"
	       "     --web-config FILE   TLS and basic-auth users of the endpoint, in the web\n"
	       "                         configuration format of Prometheus's exporters\n"
	       "     --textfile DIR      write DIR/" TEXTFILE_NAME " atomically every interval\n"
	       "     --interval TIME     how often the textfile is written (default 15s)\n"
	       "     --by cgroup         the layer and end-to-end series per cgroup of the task\n"
	       "                         that queued the I/O (a \"cgroup\" label)\n"
	       "     --max-cgroups N     cgroups counted apart, the rest as \"other\" (default 16)\n"
	       "\n"
	       "Flight recorder (keep the last seconds of raw pages; write them on a trigger):\n"
	       "     --record-on COND    write a recording when COND holds (repeatable):\n"
	       "                         latency>TIME  a bio slower than TIME at a layer\n"
	       "                         p99>TIME      an interval's end-to-end p99 above TIME\n"
	       "                         p99>TIME@DEV  an interval's p99 at layer DEV (a traced\n"
	       "                                       device, named as -d names it) above TIME\n"
	       "                         signal        SIGUSR1\n"
	       "                         http          POST /record on --listen's endpoint\n"
	       "     --record-without-auth  serve POST /record to anyone on a listener that is\n"
	       "                         not loopback, when --web-config has no users\n"
	       "     --record-dir DIR    where recordings go (needed with --record-on)\n"
	       "     --record-window TIME  how far back pages are kept (default 30s)\n"
	       "     --record-memory MIB memory for those pages, all CPUs (default 64)\n"
	       "     --record-gap TIME   least time between two recordings (default 60s)\n"
	       "     --record-keep N     recordings kept in DIR at most (default 10)\n"
	       "\n"
	       "Tracking:\n"
	       "     --max-inflight N    bios followed at once at most (default 1048576)\n"
	       "     --timeout TIME      drop a bio not completed after TIME (default 30s)\n"
	       "\n"
	       "General:\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-monitor(8).\n";
}

/* ADDR:PORT, [ADDR6]:PORT or :PORT with a port from 1 to 65535. */
static enum cli_result check_listen(const char *arg, char *err, size_t errlen)
{
	const char *colon = strrchr(arg, ':');
	char *end;
	long port;

	if (!colon)
		return opt_error(err, errlen,
				 "invalid --listen '%s': give ADDR:PORT (127.0.0.1:9581, [::1]:9581, :9581)",
				 arg);
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || port < 1 || port > 65535)
		return opt_error(err, errlen,
				 "invalid port in --listen '%s' (a number from 1 to 65535)", arg);
	if (arg[0] == '[' && (colon == arg || colon[-1] != ']'))
		return opt_error(err, errlen, "invalid --listen '%s': an IPv6 address goes in brackets, [::1]:9581",
				 arg);
	return CLI_RUN;
}

enum cli_result cli_parse_monitor(int argc, char **argv, struct monitor_params *p,
				  char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "device",	  required_argument, NULL, 'd' },
		{ "buffer-size",  required_argument, NULL, 'b' },
		{ "listen",	  required_argument, NULL, OPT_LISTEN },
		{ "web-config",	  required_argument, NULL, OPT_WEB_CONFIG },
		{ "record-without-auth", no_argument, NULL, OPT_RECORD_WITHOUT_AUTH },
		{ "textfile",	  required_argument, NULL, OPT_TEXTFILE },
		{ "interval",	  required_argument, NULL, OPT_INTERVAL },
		{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
		{ "timeout",	  required_argument, NULL, OPT_TIMEOUT },
		{ "by",		  required_argument, NULL, OPT_BY },
		{ "max-cgroups",  required_argument, NULL, OPT_MAX_CGROUPS },
		{ "record-on",	  required_argument, NULL, MREC_OPT_ON },
		{ "record-dir",	  required_argument, NULL, MREC_OPT_DIR },
		{ "record-window", required_argument, NULL, MREC_OPT_WINDOW },
		{ "record-memory", required_argument, NULL, MREC_OPT_MEMORY },
		{ "record-gap",	  required_argument, NULL, MREC_OPT_GAP },
		{ "record-keep",  required_argument, NULL, MREC_OPT_KEEP },
		{ "debug",	  no_argument,	     NULL, 'D' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool has, has_max_cgroups = false;
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	p->buffer_kb = CLI_DEFAULT_BUFFER_KB;
	p->interval_ns = MONITOR_DEFAULT_INTERVAL_NS;
	p->max_cgroups = MONITOR_DEFAULT_MAX_CGROUPS;
	p->rec.window_ns = MONITOR_DEFAULT_RECORD_WINDOW_NS;
	p->rec.memory_mb = MONITOR_DEFAULT_RECORD_MEMORY_MB;
	p->rec.gap_ns = MONITOR_DEFAULT_RECORD_GAP_NS;
	p->rec.keep = MONITOR_DEFAULT_RECORD_KEEP;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:b:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'd':
			r = opt_add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'b':
			r = opt_buffer(optarg, &p->buffer_kb, err, errlen);
			break;
		case OPT_LISTEN:
			r = check_listen(optarg, err, errlen);
			p->listen = optarg;
			break;
		case OPT_WEB_CONFIG:
			if (!*optarg)
				return opt_error(err, errlen, "--web-config needs a file");
			p->web_config = optarg;
			break;
		case OPT_RECORD_WITHOUT_AUTH:
			p->record_without_auth = true;
			break;
		case OPT_TEXTFILE:
			if (!*optarg)
				return opt_error(err, errlen, "--textfile needs a directory");
			p->textfile = optarg;
			break;
		case OPT_INTERVAL:
			r = opt_duration(optarg, &p->interval_ns, &has, err, errlen);
			if (r == CLI_RUN && p->interval_ns < 100000000ULL)
				return opt_error(err, errlen,
						 "--interval '%s' is too short (at least 100ms)", optarg);
			break;
		case OPT_MAX_INFLIGHT:
			r = opt_max_inflight(optarg, &p->max_inflight, err, errlen);
			break;
		case OPT_TIMEOUT:
			r = opt_timeout(optarg, &p->timeout_ns, err, errlen);
			break;
		case OPT_BY:
			if (strcmp(optarg, "cgroup"))
				return opt_error(err, errlen,
						 "invalid --by '%s' (the monitor splits by cgroup only)",
						 optarg);
			p->by_cgroup = true;
			break;
		case OPT_MAX_CGROUPS:
			if (parse_uint(optarg, 1, 10000, &p->max_cgroups))
				return opt_error(err, errlen,
						 "invalid --max-cgroups '%s' (a number from 1 to 10000)",
						 optarg);
			has_max_cgroups = true;
			break;
		case MREC_OPT_ON:
		case MREC_OPT_DIR:
		case MREC_OPT_WINDOW:
		case MREC_OPT_MEMORY:
		case MREC_OPT_GAP:
		case MREC_OPT_KEEP:
			r = monitor_record_option(c, optarg, &p->rec, err, errlen);
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
	if (has_max_cgroups && !p->by_cgroup)
		return opt_error(err, errlen, "--max-cgroups goes with --by cgroup");
	if (p->rec.set && !p->rec.on)
		return opt_error(err, errlen,
				 "the --record-* options need --record-on: when to write a recording");
	if (p->rec.on && !p->rec.dir)
		return opt_error(err, errlen, "--record-on needs --record-dir: where recordings go");
	if (p->web_config && !p->listen && p->textfile)
		return opt_error(err, errlen,
				 "--web-config goes with --listen: it configures the HTTP endpoint");
	if (p->record_without_auth && !p->rec.on_http)
		return opt_error(err, errlen, "--record-without-auth goes with --record-on http");
	if (!p->listen && !p->textfile)
		p->listen = MONITOR_DEFAULT_LISTEN;
	if (p->rec.on_http && !p->listen)
		return opt_error(err, errlen,
				 "--record-on http needs --listen: POST /record goes to its endpoint");
	return CLI_RUN;
}

/* ---- the command ---- */

struct monitor {
	const struct monitor_params *p;
	struct live *l;
	struct tracker *t;
	struct stats *st;
	struct mhttp *http;
	struct mrec *rec;		/* the flight recorder, NULL when off */
	struct cg_stats cg;		/* --by cgroup: the statistics per cgroup */
	struct om_group *groups;	/* their exposition, rebuilt at each render */
	struct monitor_devices devs;	/* the names of the devices, read every interval */
	char kernel[65];
	uint64_t next_tick;		/* when the textfile and the names are next due */
	int textfile_err;		/* the last textfile error said, 0 when it works */
	char *textfile_path;
	gid_t textfile_gid;		/* the group of its directory, which may read it */
};

/* A completed tree: into the statistics, and past the recorder's triggers. */
static void monitor_io(const struct tk_io *io, void *ctx)
{
	struct monitor *m = ctx;

	stats_io(io, m->st);
	if (m->cg.map)
		cg_stats_io(&m->cg, io);
	if (m->rec)
		mrec_io(m->rec, io);
}

/*
 * Every event to the tracker; with --by cgroup, a queue event first looks
 * its task's cgroup up, while the task lives: by the completion it may
 * have exited. A cached pid costs a hash lookup.
 */
static int monitor_event(const struct blk_event *ev, void *ctx)
{
	struct monitor *m = ctx;

	if (m->cg.map)
		cg_stats_event(&m->cg, ev);
	return tracker_event(ev, m->t);
}

/* The groups of --by cgroup for the exposition, in index order. */
static size_t build_groups(struct monitor *m)
{
	size_t n = 0;

	if (!m->cg.map)
		return 0;
	for (size_t i = 0; i <= cg_cap(m->cg.map); i++)
		if (m->cg.st[i])
			m->groups[n++] = (struct om_group){ .cgroup = cg_name(m->cg.map, i),
							    .st = m->cg.st[i] };
	return n;
}

/* The exposition as a malloc'd text; NULL when out of memory. */
static char *render(struct monitor *m, bool openmetrics, size_t *len)
{
	struct om_input in = {
		.st = m->st, .tk = tracker_counters(m->t), .src = live_stats(m->l),
		.devs = m->devs.devs, .ndevs = m->devs.n, .version = PACKAGE_VERSION,
		.kernel = m->kernel, .openmetrics = openmetrics,
		.recorder = m->rec != NULL, .recordings = mrec_count(m->rec),
		.groups = m->groups, .ngroups = build_groups(m),
	};
	char *text = NULL;
	FILE *fp;

	monitor_devices_sample(&m->devs);
	*len = 0;
	fp = open_memstream(&text, len);
	if (!fp)
		return NULL;
	if (out_openmetrics(fp, &in) < 0) {
		fclose(fp);
		free(text);
		return NULL;
	}
	if (fclose(fp)) {
		free(text);
		return NULL;
	}
	return text;
}

/* DIR/blkstack.prom through DIR/blkstack.prom.partial and a rename. */
static int write_textfile(struct monitor *m)
{
	struct om_input in = {
		.st = m->st, .tk = tracker_counters(m->t), .src = live_stats(m->l),
		.devs = m->devs.devs, .ndevs = m->devs.n, .version = PACKAGE_VERSION,
		.kernel = m->kernel, .recorder = m->rec != NULL, .recordings = mrec_count(m->rec),
		.groups = m->groups, .ngroups = build_groups(m),
	};
	struct outfile of = { 0 };
	struct stat sb;
	int ret;

	monitor_devices_sample(&m->devs);
	/* node_exporter reads it through the directory's group, nobody else */
	ret = outfile_open_mode(&of, m->textfile_path, TEXTFILE_MODE);
	if (ret < 0)
		return ret;
	/* a set-group-ID directory gave it already: no capability needed */
	if (fstat(fileno(of.fp), &sb) < 0 ||
	    (sb.st_gid != m->textfile_gid && fchown(fileno(of.fp), -1, m->textfile_gid) < 0))
		ret = -errno;
	if (!ret)
		ret = out_openmetrics(of.fp, &in);
	if (ret < 0) {
		/* leaves blkstack.prom.partial, which the collector ignores (not *.prom) */
		outfile_abort(&of);
		return ret;
	}
	return outfile_commit(&of);
}

/* A failing textfile is said once per kind of failure, and when it recovers. */
static void textfile_tick(struct monitor *m)
{
	int ret = write_textfile(m);

	if (ret < 0 && ret != m->textfile_err)
		warn_msg("cannot write '%s': %s; still trying every %.3g s", m->textfile_path,
			 strerror(-ret), m->p->interval_ns / 1e9);
	else if (!ret && m->textfile_err)
		note_msg("'%s' is written again", m->textfile_path);
	m->textfile_err = ret;
}

/* After each read pass: answer scrapes, and on each tick the textfile. */
static int monitor_pass(void *ctx)
{
	struct monitor *m = ctx;
	uint64_t now = mono_now_ns();

	if (m->rec)
		mrec_pass(m->rec, m->http ? mhttp_record_requests(m->http) : 0);
	if (now >= m->next_tick) {
		if (m->rec)
			mrec_interval(m->rec);
		/* a pid reused by a task of another cgroup is read afresh */
		if (m->cg.map)
			cg_forget_pids(m->cg.map);
		monitor_devices_refresh(&m->devs, &m->l->sel, m->st);
		if (m->p->textfile)
			textfile_tick(m);
		m->next_tick = now + m->p->interval_ns;
	}
	if (m->http) {
		unsigned int want = mhttp_wanted(m->http);

		monitor_http_notes(m->http);
		for (int f = 0; f < MHTTP_FORMATS; f++) {
			char *text;
			size_t len;

			if (!(want & (1U << f)))
				continue;
			text = render(m, f == MHTTP_OPENMETRICS, &len);
			if (text)
				mhttp_publish(m->http, f, text, len);
		}
	}
	return 0;
}

/* The textfile directory must exist and be writable before tracing starts. */
static int check_textfile_dir(struct monitor *m)
{
	const char *dir = m->p->textfile;
	struct stat sb;

	if (stat(dir, &sb) < 0) {
		err_msg("cannot use textfile directory '%s': %s", dir, strerror(errno));
		hint_msg("create it, or give node_exporter's --collector.textfile.directory");
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		err_msg("cannot use textfile directory '%s': not a directory", dir);
		return -1;
	}
	m->textfile_gid = sb.st_gid;
	if (asprintf(&m->textfile_path, "%s/%s", dir, TEXTFILE_NAME) < 0) {
		m->textfile_path = NULL;
		err_msg("out of memory");
		return -1;
	}
	m->textfile_err = write_textfile(m);
	if (m->textfile_err == -EPERM) {
		err_msg("cannot give '%s' the group of its directory: %s", m->textfile_path,
			strerror(EPERM));
		hint_msg("make the directory set-group-ID (chmod g+s '%s'): its files then take its group", dir);
		return -1;
	}
	if (m->textfile_err < 0) {
		err_msg("cannot write '%s': %s", m->textfile_path, strerror(-m->textfile_err));
		hint_msg("the directory must be writable by blkstack monitor (it runs as root)");
		return -1;
	}
	return 0;
}

static int run(struct monitor *m)
{
	const struct monitor_params *p = m->p;
	struct live_opts lo = {
		.devs = p->devs, .ndevs = p->ndevs, .buffer_kb = p->buffer_kb,
	};
	struct utsname u;
	bool tls = false;
	int ret;

	if (uname(&u) == 0)
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
	/* a bad web configuration is said before anything is traced */
	if (p->listen) {
		m->http = monitor_http_open(p->listen, p->web_config, p->rec.on_http,
					    p->record_without_auth, &tls);
		if (!m->http)
			return -1;
	}
	live_signals();
	if (live_open(m->l, &lo) < 0)
		return -1;
	live_mark_roles(m->l, m->t);
	monitor_devices_refresh(&m->devs, &m->l->sel, m->st);
	if (p->rec.on) {
		m->rec = mrec_open(&p->rec, m->l);
		if (!m->rec)
			return -1;
	}
	if (p->textfile && check_textfile_dir(m) < 0)
		return -1;
	if (live_start(m->l) < 0)
		return -1;
	note_msg("monitoring %s%s%s%s%s%s", p->ndevs ? "the selected stacks" : "every device",
		 p->listen ? (tls ? ": metrics at https://" : ": metrics at http://") : "",
		 p->listen ? p->listen : "",
		 p->listen ? "/metrics" : "", p->textfile ? ", textfile written every interval" : "",
		 p->rec.on ? ", flight recorder on" : "");
	m->next_tick = mono_now_ns() + p->interval_ns;
	ret = live_loop(m->l, 0, monitor_event, m, monitor_pass, m);
	live_report_losses(live_stats(m->l));
	return ret < 0 ? -1 : 0;
}

int cmd_monitor(int argc, char **argv)
{
	struct monitor_params p;
	struct monitor m = { 0 };
	struct live l = { 0 };
	struct tk_params kp;
	char err[CLI_ERR_LEN];
	int rc = EXIT_RUNTIME;

	switch (cli_parse_monitor(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_monitor(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " monitor --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	m.p = &p;
	m.l = &l;
	kp = (struct tk_params){ .max_inflight = p.max_inflight, .timeout_ns = p.timeout_ns };
	m.st = stats_alloc();
	m.t = m.st ? tracker_alloc(&kp, monitor_io, &m) : NULL;
	if (m.t && p.by_cgroup && cg_stats_init(&m.cg, "", p.max_cgroups) == 0)
		m.groups = calloc(p.max_cgroups + 1, sizeof(*m.groups));
	if (!m.t || (p.by_cgroup && !m.groups)) {
		err_msg("out of memory");
		goto out;
	}
	if (run(&m) == 0)
		rc = EXIT_OK;
out:
	/* tracing off first: the instance must go even if the server is slow to stop */
	mrec_close(m.rec);
	live_close(&l);
	mhttp_close(m.http);
	/* a stopped monitor's file would look alive to node_exporter */
	if (m.textfile_path && m.textfile_err == 0)
		unlink(m.textfile_path);
	free(m.textfile_path);
	monitor_devices_free(&m.devs);
	free(m.groups);
	cg_stats_destroy(&m.cg);
	tracker_free(m.t);
	stats_free(m.st);
	return rc;
}
