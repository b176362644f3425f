// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * live.c - the live tracing every live command shares.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "cmd/live.h"
#include "cmd/signals.h"
#include "track/topo-record.h"

/* How long the reader sleeps at most: the latency of live output at low rates. */
#define LIVE_POLL_MS 250

static void on_stale(const char *name, int err, void *ctx __attribute__((unused)))
{
	if (err)
		warn_msg("cannot remove stale tracefs instance '%s' left by a dead run: %s",
			 name, strerror(-err));
	else
		note_msg("removed stale tracefs instance '%s' left by a run that did not exit cleanly",
			 name);
}

int live_has_dev(const void *live, uint32_t dev)
{
	return topo_selection_has(&((const struct live *)live)->sel, dev);
}

/* -d arguments to the whole stack of each, as kernel dev_t values. */
int live_select_devices(const struct live_opts *o, struct topo_selection *sel)
{
	uint32_t *devs = calloc(o->ndevs, sizeof(*devs));
	int ret = 0;

	if (!devs) {
		err_msg("out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < o->ndevs && !ret; i++) {
		ret = topo_resolve("", o->devs[i], &devs[i]);
		if (ret == -ENOENT) {
			err_msg("unknown device '%s': no such block device", o->devs[i]);
			hint_msg("give a device path (/dev/sda1), a name (sda1, dm-0), MAJ:MIN or a mounted directory; lsblk lists them");
		} else if (ret == -ENOTBLK) {
			err_msg("'%s' is not on a block device (its filesystem has no disk)",
				o->devs[i]);
		} else if (ret < 0) {
			err_msg("cannot resolve device '%s': %s", o->devs[i], strerror(-ret));
		}
	}
	if (!ret) {
		ret = topo_stack_expand("", devs, o->ndevs, sel);
		if (ret < 0)
			err_msg("cannot read the device stack from /sys/class/block: %s",
				strerror(-ret));
	}
	free(devs);
	for (size_t i = 0; !ret && i < sel->n; i++) {
		char name[64] = "?";

		topo_dev_name("", sel->devs[i], name, sizeof(name));
		debug_msg("tracing %s (%u:%u)", name, KDEV_MAJOR(sel->devs[i]),
			  KDEV_MINOR(sel->devs[i]));
	}
	return ret;
}

static void report_tracefs_problem(int ret)
{
	if (ret == -ENODEV) {
		err_msg("tracefs is not mounted and could not be mounted");
		hint_msg("mount it: mount -t tracefs nodev /sys/kernel/tracing");
	} else if (ret == -EACCES || ret == -EPERM) {
		err_msg("no permission to create tracefs instances: %s", strerror(-ret));
		hint_msg("run as root (live tracing needs CAP_SYS_ADMIN or tracefs write access)");
	} else {
		err_msg("cannot use tracefs: %s", strerror(-ret));
	}
}

/* The page-cache events, filtered to the filesystems on the selected devices. */
static int live_pagecache_params(struct live *l, const struct live_opts *o,
				 struct session_params *sp)
{
	if (pc_filter_from(o->fsmap, &l->sel, &l->pcf) < 0) {
		err_msg("out of memory");
		return -1;
	}
	if (l->sel.n && !l->pcf.nsdevs) {
		note_msg("no filesystem is mounted on the selected devices: no page-cache events to trace");
		return 0;
	}
	for (size_t i = 0; i < l->pcf.nsdevs; i++)
		debug_msg("page cache of the filesystem on %u:%u", KDEV_MAJOR(l->pcf.sdevs[i]),
			  KDEV_MINOR(l->pcf.sdevs[i]));
	sp->pagecache = true;
	sp->pc_sdevs = l->pcf.sdevs;
	sp->pc_nsdevs = l->pcf.nsdevs;
	sp->pc_bdis = (const char *const *)l->pcf.bdis;
	sp->pc_nbdis = l->pcf.nbdis;
	return 0;
}

int live_open(struct live *l, const struct live_opts *o)
{
	struct session_params sp = { 0 };
	const char *what;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = session_tracefs_ready();
	if (ret < 0) {
		report_tracefs_problem(ret);
		return -1;
	}
	if (o->ndevs && live_select_devices(o, &l->sel) < 0)
		return -1;
	session_remove_stale(on_stale, NULL);

	sp.buffer_kb = o->buffer_kb;
	sp.devs = l->sel.devs;
	sp.ndevs = l->sel.n;
	sp.plugs = o->plugs;
	sp.diskstats = o->diskstats;
	if (o->pagecache && live_pagecache_params(l, o, &sp) < 0)
		return -1;
	ret = session_open(&sp, &l->s, &what);
	if (ret < 0) {
		if (ret == -EACCES || ret == -EPERM) {
			report_tracefs_problem(ret);
		} else {
			err_msg("cannot set up the tracefs instance (%s): %s", what, strerror(-ret));
			if (ret == -ENOMEM && o->buffer_kb)
				hint_msg("the kernel could not allocate %u KiB per CPU: try a smaller -b",
					 o->buffer_kb);
		}
		return -1;
	}
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++) {
		if (l->s.missing[k])
			debug_msg("this kernel has no block:%s event", blk_kind_name(k));
		if (l->s.skipped[k])
			debug_msg("block:%s names no device: not traced with -d (see --plugs)",
				  blk_kind_name(k));
	}
	if (sp.pagecache)
		pc_session_notes(&l->s);
	if (sp.diskstats && l->s.tick_missing)
		note_msg("this kernel lacks timer:%s: %%util counts ticks of an unknown phase",
			 TICK_EV_NAME);
	if (l->s.missing[BLK_EV_BIO_QUEUE] || l->s.missing[BLK_EV_RQ_COMPLETE])
		note_msg("this kernel lacks %s: the output will have no such events",
			 l->s.missing[BLK_EV_BIO_QUEUE] ? "block:block_bio_queue"
							 : "block:block_rq_complete");
	l->dec = decoder_alloc(l->s.tep);
	if (!l->dec) {
		err_msg("this kernel's block events cannot be decoded: %s", strerror(errno));
		return -1;
	}
	l->m = merge_alloc(l->s.ncpu);
	l->r = l->m ? ring_open(&l->s, l->dec, l->m) : NULL;
	if (!l->r) {
		err_msg("cannot open the per-CPU trace buffers of instance '%s': %s",
			tracefs_instance_get_name(l->s.instance), strerror(errno));
		return -1;
	}
	return 0;
}

int live_start(struct live *l)
{
	int ret = session_start(&l->s);

	if (ret < 0) {
		err_msg("cannot turn tracing on in instance '%s': %s",
			tracefs_instance_get_name(l->s.instance), strerror(-ret));
		return -1;
	}
	return 0;
}

int live_loop(struct live *l, uint64_t duration_ns, blk_event_fn fn, void *ctx,
	      int (*after)(void *after_ctx), void *after_ctx)
{
	uint64_t deadline = duration_ns ? mono_now_ns() + duration_ns : 0;
	int ret;

	while (!live_stop) {
		int timeout = LIVE_POLL_MS;

		if (deadline) {
			uint64_t now = mono_now_ns();

			if (now >= deadline)
				break;
			if (deadline - now < (uint64_t)timeout * 1000000ULL)
				timeout = (deadline - now) / 1000000ULL + 1;
		}
		ret = ring_read(l->r, timeout);
		if (ret < 0) {
			err_msg("cannot read the trace buffers: %s", strerror(-ret));
			return ret;
		}
		ret = merge_drain(l->m, false, fn, ctx);
		if (ret < 0)
			return ret;
		if (after) {
			ret = after(after_ctx);
			if (ret)
				return ret < 0 ? ret : 0;
		}
	}
	return 0;
}

int live_finish(struct live *l, blk_event_fn fn, void *ctx)
{
	int ret;

	session_stop(&l->s);
	ret = ring_flush(l->r);
	if (ret < 0) {
		err_msg("cannot read the trace buffers: %s", strerror(-ret));
		return ret;
	}
	return merge_drain(l->m, true, fn, ctx);
}

const struct source_stats *live_stats(struct live *l)
{
	return ring_stats(l->r);
}

void live_report_losses(const struct source_stats *st)
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

const char *live_dev_name(uint32_t dev, char *buf, size_t len, void *ctx)
{
	(void)ctx;
	return topo_dev_name("", dev, buf, len) == 0 ? buf : NULL;
}

/* /sys/class/block/NAME/dev as a dev_t; 0 when unreadable */
static uint32_t sysfs_dev(const char *name)
{
	char path[PATH_MAX];
	unsigned int ma, mi;
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dev", name);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	n = fscanf(fp, "%u:%u", &ma, &mi);
	fclose(fp);
	return n == 2 ? KDEV_MKDEV(ma, mi) : 0;
}

int live_stack_record(const struct live *l, struct topo_record *out)
{
	struct topo_selection all = { 0 };
	int ret;

	if (l->sel.n)
		return topo_record_from_sysfs("", l->sel.devs, l->sel.n, out);
	memset(out, 0, sizeof(*out));
	ret = topo_all_devices("", &all);
	if (!ret)
		ret = topo_record_from_sysfs("", all.devs, all.n, out);
	topo_selection_free(&all);
	return ret;
}

/* Devices named in the message at most; the rest are counted. */
#define SAY_MAX_NAMES 8

void live_say_tracing(const struct live *l, const char *then)
{
	char names[512] = "";
	size_t len = 0;

	for (size_t i = 0; i < l->sel.n && i < SAY_MAX_NAMES; i++) {
		char name[64];

		if (topo_dev_name("", l->sel.devs[i], name, sizeof(name)))
			snprintf(name, sizeof(name), "%u:%u", KDEV_MAJOR(l->sel.devs[i]),
				 KDEV_MINOR(l->sel.devs[i]));
		len += snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "", name);
		if (len >= sizeof(names))
			break;
	}
	if (l->sel.n > SAY_MAX_NAMES && len < sizeof(names))
		snprintf(names + len, sizeof(names) - len, " and %zu more", l->sel.n - SAY_MAX_NAMES);
	if (l->sel.n)
		fprintf(stderr, PROGRAM_NAME ": tracing the stacks -d named (%s) until "
			"Ctrl-C or SIGTERM, then %s\n", names, then);
	else
		fprintf(stderr, PROGRAM_NAME ": tracing every block device (-d DEV for one stack, "
			"-w TIME for a time) until Ctrl-C or SIGTERM, then %s\n", then);
}

/* Tell @t the role of @dev in its stack, from sysfs. */
static void mark_roles(struct tracker *t, uint32_t dev)
{
	struct topo_dev_info info;

	if (topo_dev_info("", dev, &info))
		return;
	tracker_set_role(t, dev, topo_roles_of(&info));
	for (size_t i = 0; i < info.nslaves; i++)
		tracker_set_edge(t, dev, info.slaves[i]);
	topo_dev_info_free(&info);
}

void live_mark_roles(const struct live *l, struct tracker *t)
{
	if (!l->sel.n) {
		/* every device is traced: look at every device */
		struct dirent *de;
		DIR *dir = opendir("/sys/class/block");
		uint32_t dev;

		if (!dir)
			return;
		while ((de = readdir(dir)))
			if (de->d_name[0] != '.' && (dev = sysfs_dev(de->d_name)))
				mark_roles(t, dev);
		closedir(dir);
		return;
	}
	for (size_t i = 0; i < l->sel.n; i++)
		mark_roles(t, l->sel.devs[i]);
}

void live_close(struct live *l)
{
	ring_close(l->r);
	merge_free(l->m);
	decoder_free(l->dec);
	session_close(&l->s);
	topo_selection_free(&l->sel);
	pc_filter_free(&l->pcf);
	memset(l, 0, sizeof(*l));
}

int live_command_check(void *ctx)
{
	struct live_command *w = ctx;

	if (w->pid <= 0 || w->exited)
		return 0;
	if (waitpid(w->pid, &w->status, WNOHANG) == w->pid) {
		w->exited = true;
		return 1;	/* stop tracing: the command is done */
	}
	return 0;
}

int live_command_start(struct live_command *w, char **command)
{
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0) {
		err_msg("cannot start '%s': %s", command[0], strerror(errno));
		return -1;
	}
	if (w->pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(command[0], command);
		fprintf(stderr, PROGRAM_NAME ": cannot run '%s': %s\n", command[0], strerror(errno));
		_exit(127);
	}
	return 0;
}

void live_command_end(struct live_command *w)
{
	if (w->pid <= 0 || w->exited)
		return;
	/* stopped by a signal while the command runs: pass it on and reap it */
	kill(w->pid, live_stop ? live_stop : SIGTERM);
	waitpid(w->pid, &w->status, 0);
	w->exited = true;
}
