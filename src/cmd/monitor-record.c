// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * monitor-record.c - the flight recorder of blkstack monitor.
 *
 * Every page the reader takes is copied into a ring of fixed size before
 * it is decoded; when a trigger fires, the stack is written into the
 * instance's buffer as markers, the rings are flushed (so the markers and
 * the last partial pages are in), and the ring's pages in the window are
 * assembled into DIR/blkstack-flight-TIME-REASON.dat, FILE.partial renamed
 * when complete. Recordings are rate-limited (--record-gap) and at most
 * --record-keep of them stay in DIR, the oldest removed: disk use is
 * bounded by keep x memory.
 *
 * The write happens in the reading thread: reading pauses meanwhile, and
 * the kernel's per-CPU buffers (-b) absorb the pause.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "cmd/opt.h"
#include "capture/datsource.h"
#include "capture/flight.h"
#include "capture/ring.h"
#include "cmd/monitor-record.h"
#include "cmd/monitor-trigger.h"
#include "cmd/host.h"
#include "cmd/record.h"
#include "format/datwrite.h"
#include "output/outfile.h"
#include "track/topo.h"

#define FLIGHT_PREFIX "blkstack-flight-"
#define FLIGHT_SUFFIX ".dat"

struct mrec {
	const struct monitor_record_params *p;
	struct live *l;
	struct flight *ring;
	struct dat_formats formats;
	struct mtrig trig;		/* latency>, p99>, p99>@DEV */
	char reason[128];		/* the pending trigger, "" if none */
	uint64_t http_seen;		/* POST /record requests already taken */
	uint64_t last;			/* when the last recording was written */
	uint64_t count;
	bool suppressed_said;		/* a suppression was said since the last recording */
};

/* p99>TIME@DEV: DEV named as -d names one, resolved when the monitor starts */
static enum cli_result record_on_layer(const char *arg, const char *at,
				       struct monitor_record_params *r, char *err, size_t errlen)
{
	char time[32];
	uint64_t ns;
	size_t n = at - (arg + 4);

	if (!at[1])
		return opt_error(err, errlen, "invalid --record-on '%s': a device goes after '@' (p99>TIME@DEV)",
				 arg);
	/* too long for a duration: said as such, never parsed cut short */
	if (n >= sizeof(time))
		n = 0;
	memcpy(time, arg + 4, n);
	time[n] = '\0';
	if (!n || parse_duration(time, &ns) || !ns)
		return opt_error(err, errlen,
				 "invalid --record-on '%s': '%.*s' is not a duration (p99>TIME@DEV, TIME as 100ms)",
				 arg, (int)(at - (arg + 4)), arg + 4);
	if (r->nlayers >= MONITOR_MAX_RECORD_LAYERS)
		return opt_error(err, errlen, "at most %d --record-on p99>TIME@DEV can be given",
				 MONITOR_MAX_RECORD_LAYERS);
	r->layers[r->nlayers++] = (struct monitor_record_layer){
		.cond = arg, .dev = at + 1, .p99_ns = ns,
	};
	return CLI_RUN;
}

/* latency>TIME, p99>TIME, p99>TIME@DEV, signal, http */
static enum cli_result record_on(const char *arg, struct monitor_record_params *r,
				       char *err, size_t errlen)
{
	const char *at;
	uint64_t ns;

	r->on = true;
	if (!strcmp(arg, "signal")) {
		r->on_signal = true;
		return CLI_RUN;
	}
	if (!strcmp(arg, "http")) {
		r->on_http = true;
		return CLI_RUN;
	}
	if (!strncmp(arg, "latency>", 8) && !parse_duration(arg + 8, &ns) && ns) {
		r->on_latency = true;
		r->latency_ns = ns;
		return CLI_RUN;
	}
	/* a duration has no '@': the first one ends it, a name may have more */
	if (!strncmp(arg, "p99>", 4) && (at = strchr(arg + 4, '@')))
		return record_on_layer(arg, at, r, err, errlen);
	if (!strncmp(arg, "p99>", 4) && !parse_duration(arg + 4, &ns) && ns) {
		r->on_p99 = true;
		r->p99_ns = ns;
		return CLI_RUN;
	}
	return opt_error(err, errlen,
			 "invalid --record-on '%s' (latency>TIME, p99>TIME, p99>TIME@DEV, signal or http; TIME as 100ms)",
			 arg);
}

enum cli_result monitor_record_option(int opt, const char *arg, struct monitor_record_params *r,
				      char *err, size_t errlen)
{
	enum cli_result ret = CLI_RUN;
	bool has;

	if (opt == MREC_OPT_ON)
		return record_on(arg, r, err, errlen);
	/* any other --record-* option needs --record-on (checked after parsing) */
	r->set = true;
	switch (opt) {
	case MREC_OPT_DIR:
		if (!*arg)
			return opt_error(err, errlen, "--record-dir needs a directory");
		r->dir = arg;
		break;
	case MREC_OPT_WINDOW:
		ret = opt_duration(arg, &r->window_ns, &has, err, errlen);
		if (ret == CLI_RUN && r->window_ns < 1000000000ULL)
			return opt_error(err, errlen, "--record-window '%s' is too short (at least 1s)",
					 arg);
		break;
	case MREC_OPT_GAP:
		/* 0: no rate limit (tests, or a trigger that is rare by itself) */
		if (!strcmp(arg, "0"))
			r->gap_ns = 0;
		else
			ret = opt_duration(arg, &r->gap_ns, &has, err, errlen);
		break;
	case MREC_OPT_MEMORY:
		if (parse_uint(arg, 1, 65536, &r->memory_mb))
			return opt_error(err, errlen,
					 "invalid --record-memory '%s' (MiB, from 1 to 65536)", arg);
		break;
	case MREC_OPT_KEEP:
		if (parse_uint(arg, 1, 100000, &r->keep))
			return opt_error(err, errlen,
					 "invalid --record-keep '%s' (a number from 1 to 100000)", arg);
		break;
	}
	return ret;
}

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1 = 1;
}

static int tap(void *ctx, int cpu, const void *page, size_t size)
{
	struct mrec *r = ctx;

	return flight_add(r->ring, cpu, page, size, mono_now_ns());
}

/*
 * The devices of p99>TIME@DEV, named as -d names them, into @t; each must
 * be traced: in the stack of a -d device, or any device without -d.
 * Returns 0, or -1 after saying which and what to do.
 */
static int resolve_layers(const struct monitor_record_params *p, const struct live *l,
			  struct mtrig *t)
{
	for (size_t i = 0; i < p->nlayers; i++) {
		const struct monitor_record_layer *c = &p->layers[i];
		struct mtrig_layer *tl = &t->layers[i];
		int ret = topo_resolve("", c->dev, &tl->dev);

		tl->p99_ns = c->p99_ns;
		if (ret == -ENOENT) {
			err_msg("--record-on '%s': unknown device '%s': no such block device", c->cond,
				c->dev);
			hint_msg("give a device path (/dev/sda1), a name (sda1, dm-0), MAJ:MIN or a mounted directory; lsblk lists them");
			return -1;
		}
		if (ret == -ENOTBLK) {
			err_msg("--record-on '%s': '%s' is not on a block device (its filesystem has no disk)",
				c->cond, c->dev);
			return -1;
		}
		if (ret < 0) {
			err_msg("--record-on '%s': cannot resolve device '%s': %s", c->cond, c->dev,
				strerror(-ret));
			return -1;
		}
		if (topo_dev_name("", tl->dev, tl->name, sizeof(tl->name)) < 0)
			snprintf(tl->name, sizeof(tl->name), "%s", c->dev);
		if (l->sel.n && !topo_selection_has(&l->sel, tl->dev)) {
			err_msg("--record-on '%s': %s (%u:%u) is not traced: it is in the stack of no -d device",
				c->cond, tl->name, KDEV_MAJOR(tl->dev), KDEV_MINOR(tl->dev));
			hint_msg("name a layer of the monitored stacks, or add -d %s", c->dev);
			return -1;
		}
	}
	return 0;
}

struct mrec *mrec_open(const struct monitor_record_params *p, struct live *l)
{
	struct mrec *r;
	struct stat sb;
	int ret;

	if (stat(p->dir, &sb) < 0 || !S_ISDIR(sb.st_mode) || access(p->dir, W_OK) < 0) {
		err_msg("cannot use recording directory '%s': %s", p->dir,
			errno ? strerror(errno) : "not a directory");
		hint_msg("create it (it fills up to --record-keep recordings of --record-memory MiB each)");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		err_msg("out of memory");
		return NULL;
	}
	r->p = p;
	r->l = l;
	if (mtrig_init(&r->trig, p->on_latency ? p->latency_ns : 0, p->on_p99 ? p->p99_ns : 0,
		       p->nlayers) < 0) {
		err_msg("out of memory");
		goto fail;
	}
	if (resolve_layers(p, l, &r->trig) < 0)
		goto fail;
	r->ring = flight_alloc(l->s.ncpu, ring_subbuf_size(l->r), p->memory_mb << 20, p->window_ns);
	if (!r->ring) {
		err_msg("cannot allocate %llu MiB for the flight recorder: %s", p->memory_mb,
			strerror(errno));
		hint_msg("give less with --record-memory");
		goto fail;
	}
	ret = dat_formats_read(l->s.instance, false, &r->formats);
	if (ret < 0) {
		err_msg("cannot read the event formats from tracefs: %s", strerror(-ret));
		goto fail;
	}
	if (p->on_signal) {
		struct sigaction sa = { .sa_handler = on_usr1 };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
	}
	ring_set_page_tap(l->r, tap, r);
	debug_msg("flight recorder: %zu KiB of pages, %.0f s window", flight_bytes(r->ring) >> 10,
		  p->window_ns / 1e9);
	return r;
fail:
	mrec_close(r);
	return NULL;
}

void mrec_io(struct mrec *r, const struct tk_io *io)
{
	mtrig_io(&r->trig, io, r->reason, sizeof(r->reason));
}

void mrec_interval(struct mrec *r)
{
	mtrig_interval(&r->trig, r->reason, sizeof(r->reason));
}

/* The oldest of our recordings go while more than --record-keep are there. */
static void prune(struct mrec *r)
{
	struct dirent **names = NULL;
	int n = scandir(r->p->dir, &names, NULL, alphasort);
	size_t ours = 0;

	for (int i = 0; i < n; i++) {
		const char *s = names[i]->d_name;
		size_t len = strlen(s);

		if (!strncmp(s, FLIGHT_PREFIX, strlen(FLIGHT_PREFIX)) && len > 4 &&
		    !strcmp(s + len - 4, FLIGHT_SUFFIX))
			ours++;
	}
	/* names sort by their UTC time: the first ones are the oldest */
	for (int i = 0; i < n; i++) {
		const char *s = names[i]->d_name;
		size_t len = strlen(s);

		if (ours > r->p->keep && !strncmp(s, FLIGHT_PREFIX, strlen(FLIGHT_PREFIX)) &&
		    len > 4 && !strcmp(s + len - 4, FLIGHT_SUFFIX)) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", r->p->dir, s);
			if (unlink(path) == 0) {
				debug_msg("removed the old recording '%s' (--record-keep %llu)", path,
					  r->p->keep);
				ours--;
			}
		}
		free(names[i]);
	}
	free(names);
}

/* The ring's pages in the window into @path. Returns 0 or a negative errno. */
static int write_recording(struct mrec *r, const char *path, uint64_t *total)
{
	int ncpu = r->l->s.ncpu;
	FILE **spill = calloc(ncpu, sizeof(*spill));
	uint64_t *bytes = calloc(ncpu, sizeof(*bytes));
	struct outfile of = { 0 };
	struct dat_source src;
	uint64_t now = mono_now_ns();
	int ret = 0;

	*total = 0;
	if (!spill || !bytes) {
		ret = -ENOMEM;
		goto out;
	}
	for (int c = 0; c < ncpu && !ret; c++) {
		spill[c] = dat_spill_open(r->p->dir);
		if (!spill[c])
			ret = -errno;
		else
			ret = flight_spill(r->ring, c, now, spill[c], &bytes[c]);
		*total += bytes[c];
	}
	if (ret)
		goto out;
	dat_formats_read_cmdlines(&r->formats);
	dat_formats_source(&r->formats, ring_subbuf_size(r->l->r), ncpu, spill, bytes, &src);
	ret = outfile_open(&of, path);
	if (!ret)
		ret = datwrite_v6(of.fp, &src);
	if (!ret)
		ret = outfile_commit(&of);
	if (ret && of.fp) {
		/* a partial recording would only fill the disk */
		if (of.tmp)
			unlink(of.tmp);
		outfile_abort(&of);
	}
out:
	for (int c = 0; spill && c < ncpu; c++)
		if (spill[c])
			fclose(spill[c]);
	free(spill);
	free(bytes);
	return ret;
}

static void record_now(struct mrec *r, uint64_t now)
{
	struct host_marker host;
	char path[4096], stamp[32];
	struct timespec ts;
	uint64_t bytes;
	struct tm tm;
	int ret;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	snprintf(path, sizeof(path), "%s/" FLIGHT_PREFIX "%s.%03ldZ" FLIGHT_SUFFIX, r->p->dir,
		 stamp, ts.tv_nsec / 1000000);
	ret = record_topology_markers(r->l);
	if (ret < 0)
		warn_msg("the device stack could not be written into the recording: %s",
			 strerror(-ret));
	host_marker_now(&host);
	ret = record_host_marker(r->l, &host);
	if (ret < 0)
		warn_msg("the recording carries no wall clock nor CONFIG_HZ: %s", strerror(-ret));
	/* the markers and the last partial pages into the ring */
	ret = ring_flush(r->l->r);
	if (ret < 0)
		warn_msg("cannot read the trace buffers before recording: %s", strerror(-ret));
	ret = write_recording(r, path, &bytes);
	r->last = now;
	r->suppressed_said = false;
	if (ret < 0) {
		warn_msg("cannot write the flight recording '%s' (%s): %s", path, r->reason,
			 strerror(-ret));
		return;
	}
	r->count++;
	note_msg("flight recording '%s' written (%s): %.1f MiB of pages", path, r->reason,
		 bytes / 1048576.0);
	prune(r);
}

void mrec_pass(struct mrec *r, uint64_t http_requests)
{
	uint64_t now;

	if (!r)
		return;
	if (usr1) {
		usr1 = 0;
		if (!r->reason[0])
			snprintf(r->reason, sizeof(r->reason), "signal: SIGUSR1");
	}
	if (r->p->on_http && http_requests > r->http_seen) {
		r->http_seen = http_requests;
		if (!r->reason[0])
			snprintf(r->reason, sizeof(r->reason), "http: POST /record");
	}
	if (!r->reason[0])
		return;
	now = mono_now_ns();
	if (r->last && now - r->last < r->p->gap_ns) {
		if (!r->suppressed_said)
			note_msg("no recording for %s: the last one was %.1f s ago (--record-gap %.0f s)",
				 r->reason, (now - r->last) / 1e9, r->p->gap_ns / 1e9);
		r->suppressed_said = true;
	} else {
		record_now(r, now);
	}
	r->reason[0] = '\0';
}

uint64_t mrec_count(const struct mrec *r)
{
	return r ? r->count : 0;
}

void mrec_close(struct mrec *r)
{
	if (!r)
		return;
	if (r->p->on_signal)
		signal(SIGUSR1, SIG_DFL);
	if (r->l && r->l->r)
		ring_set_page_tap(r->l->r, NULL, NULL);
	flight_free(r->ring);
	dat_formats_free(&r->formats);
	mtrig_free(&r->trig);
	free(r);
}
