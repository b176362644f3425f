// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session.c - the private tracefs instance of one live run (libtracefs).
 *
 * Everything is configured inside instances/blkstack-<pid>: the top-level
 * buffer, and any trace-cmd, perf or blk tracer running beside us, are never
 * touched. Filters are written before events are enabled, so that other
 * devices' events are never committed to our ring buffer.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/localfmt.h"
#include "capture/session.h"

/* The events "blkstack trace" records: every block event with a blkparse
 * letter. block_io_start/done and block_rq_error have none and would only
 * add ring-buffer load. */
static const enum blk_kind trace_kinds[] = {
	BLK_EV_BIO_QUEUE, BLK_EV_BIO_BACKMERGE, BLK_EV_BIO_FRONTMERGE, BLK_EV_BIO_BOUNCE,
	BLK_EV_GETRQ, BLK_EV_SLEEPRQ, BLK_EV_RQ_INSERT, BLK_EV_RQ_ISSUE, BLK_EV_RQ_MERGE,
	BLK_EV_RQ_REQUEUE, BLK_EV_RQ_COMPLETE, BLK_EV_BIO_COMPLETE, BLK_EV_BIO_REMAP,
	BLK_EV_RQ_REMAP, BLK_EV_SPLIT, BLK_EV_PLUG, BLK_EV_UNPLUG,
};

/* With diskstats: where the kernel counts a request in and out (6.5 and later). */
static const enum blk_kind acct_kinds[] = { BLK_EV_IO_START, BLK_EV_IO_DONE };

int session_tracefs_ready(void)
{
	const char *dir = tracefs_tracing_dir();
	char path[4096];

	if (!dir)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/instances", dir);
	/* a user who may not even look into tracefs gets EACCES, not "not mounted" */
	if (access(path, F_OK))
		return errno == EACCES ? -EACCES : -ENODEV;
	if (access(path, W_OK))
		return -EACCES;
	return 0;
}

/* Where an instance asks the kernel for copies of the top level's markers (6.17 and later). */
#define COPY_MARKER "options/copy_trace_marker"

/* Disable every event of an instance and remove it. */
static int instance_remove(struct tracefs_instance *inst)
{
	int ret;

	/* no copies first: an instance with tracing off stops them (markers_copy_set()) */
	if (tracefs_file_exists(inst, COPY_MARKER))
		tracefs_instance_file_write(inst, COPY_MARKER, "0");
	tracefs_trace_off(inst);
	tracefs_event_disable(inst, NULL, NULL);
	ret = tracefs_instance_destroy(inst);
	return ret ? (errno ? -errno : -EIO) : 0;
}

/* Whether the pid in "blkstack-<pid>" is gone. */
static bool stale_pid(const char *name)
{
	const char *p = name + strlen(SESSION_PREFIX);
	char *end;
	long pid;

	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || *end || end == p || pid <= 0)
		return false;
	if (pid == getpid())
		return false;
	return kill(pid, 0) < 0 && errno == ESRCH;
}

int session_remove_stale(session_stale_fn fn, void *ctx)
{
	/* libtracefs compiles a basic regex: no "+" */
	char **names = tracefs_instances("^" SESSION_PREFIX "[0-9][0-9]*$");
	int found = 0;

	if (!names)
		return errno ? -errno : 0;
	for (int i = 0; names[i]; i++) {
		struct tracefs_instance *inst;
		int err;

		if (!stale_pid(names[i]))
			continue;
		found++;
		inst = tracefs_instance_alloc(NULL, names[i]);
		err = inst ? instance_remove(inst) : -errno;
		tracefs_instance_free(inst);
		if (fn)
			fn(names[i], err, ctx);
	}
	tracefs_list_free(names);
	return found;
}

/* "dev == 7340033 || dev == ..." for the selected devices. */
static char *dev_filter(const uint32_t *devs, size_t n)
{
	size_t len = n * 32 + 1;
	char *s = malloc(len), *p = s;

	if (!s)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < n; i++)
		p += snprintf(p, len - (p - s), "%sdev == %u", i ? " || " : "", devs[i]);
	return s;
}

/*
 * One block event, with the device filter where it names a device; left
 * off (s->skipped) where it names none and plugs are not asked for, and
 * noted in s->missing where this kernel lacks it. Returns 0 or -1 (errno).
 */
static int block_event_enable(const struct session_params *p, struct session *s,
			      enum blk_kind k, const char *filter, const char **what)
{
	const char *ev = blk_kind_name(k);
	struct tep_event *event = tep_find_event_by_name(s->tep, "block", ev);

	if (!event) {
		s->missing[k] = true;
		return 0;
	}
	if (filter && !tep_find_field(event, "dev") && !p->plugs) {
		/* unfilterable: would commit every device's events */
		s->skipped[k] = true;
		return 0;
	}
	*what = ev;
	if (filter && tep_find_field(event, "dev")) {
		if (tracefs_event_file_write(s->instance, "block", ev, "filter", filter) < 0)
			return -1;
		s->filtered[k] = true;
	}
	return tracefs_event_enable(s->instance, "block", ev) < 0 ? -1 : 0;
}

/*
 * The workload's markers in the instance: the print event's format to read
 * them by, and whether the kernel can copy the top level's trace_marker
 * writes here (6.17 and later; session_start() asks it to).
 */
static int markers_copy(struct session *s, const char **what)
{
	*what = "events/ftrace/print/format";
	if (localfmt_add_event(s->tep, "ftrace", "print") < 0)
		return -ENOENT;
	s->markers_copied = tracefs_file_exists(s->instance, COPY_MARKER);
	return 0;
}

/*
 * Copying on only while tracing is on: the kernel copies a marker to each
 * instance that asked, the newest first, and stops at the first whose
 * buffer refuses it (tracing off): an instance of ours being set up or
 * torn down would keep the markers from every older one.
 */
static int markers_copy_set(struct session *s, bool on)
{
	if (!s->markers_copied)
		return 0;
	return tracefs_instance_file_write(s->instance, COPY_MARKER, on ? "1" : "0") < 0 ?
	       (errno ? -errno : -EIO) : 0;
}

int session_open(const struct session_params *p, struct session *s, const char **what)
{
	const char *systems[8] = { "block" };	/* NULL-terminated */
	size_t nsys = 1;
	char name[64];
	char *filter = NULL;
	int ret;

	memset(s, 0, sizeof(*s));
	*what = "tracefs";

	snprintf(name, sizeof(name), SESSION_PREFIX "%d", (int)getpid());
	if (tracefs_instance_exists(name)) {
		/* left by an earlier process that had our pid */
		struct tracefs_instance *old = tracefs_instance_alloc(NULL, name);

		if (old) {
			instance_remove(old);
			tracefs_instance_free(old);
		}
	}
	*what = "instances/" SESSION_PREFIX "<pid>";
	s->instance = tracefs_instance_create(name);
	if (!s->instance)
		goto fail_errno;

	if (p->pagecache) {
		systems[nsys++] = "filemap";
		systems[nsys++] = "readahead";
		systems[nsys++] = "writeback";
		systems[nsys++] = "iomap";
	}
	if (p->diskstats || p->ticks)
		systems[nsys++] = TICK_EV_SYSTEM;
	*what = "the block event formats";
	s->tep = localfmt_load(systems);
	if (!s->tep)
		goto fail_errno;
	s->ncpu = tep_get_cpus(s->tep);
	if (s->ncpu <= 0)
		s->ncpu = sysconf(_SC_NPROCESSORS_CONF);

	*what = "trace_clock";
	if (tracefs_instance_file_write(s->instance, "trace_clock", "mono") < 0)
		goto fail_errno;
	if (p->buffer_kb) {
		*what = "buffer_size_kb";
		if (tracefs_instance_set_buffer_size(s->instance, p->buffer_kb, -1) < 0)
			goto fail_errno;
	}
	/* wake the reader when a quarter of a CPU's buffer is full */
	*what = "buffer_percent";
	if (tracefs_instance_file_write(s->instance, "buffer_percent", "25") < 0)
		goto fail_errno;
	tracefs_trace_off(s->instance);

	if (p->ndevs) {
		filter = dev_filter(p->devs, p->ndevs);
		if (!filter)
			goto fail_errno;
	}
	for (size_t i = 0; i < sizeof(trace_kinds) / sizeof(trace_kinds[0]); i++)
		if (block_event_enable(p, s, trace_kinds[i], filter, what) < 0)
			goto fail_errno;
	for (size_t i = 0; p->diskstats && i < sizeof(acct_kinds) / sizeof(acct_kinds[0]); i++)
		if (block_event_enable(p, s, acct_kinds[i], filter, what) < 0)
			goto fail_errno;
	if (p->pagecache && session_pagecache_enable(p, s, what) < 0)
		goto fail_errno;
	if (p->diskstats || p->ticks) {
		/* unfiltered: tens of timers a second, and any timer marks the tick */
		if (!tep_find_event_by_name(s->tep, TICK_EV_SYSTEM, TICK_EV_NAME)) {
			s->tick_missing = true;
		} else {
			*what = TICK_EV_NAME;
			if (tracefs_event_enable(s->instance, TICK_EV_SYSTEM, TICK_EV_NAME) < 0)
				goto fail_errno;
		}
	}
	if (p->markers) {
		ret = markers_copy(s, what);
		if (ret < 0) {
			errno = -ret;
			goto fail_errno;
		}
	}
	free(filter);
	*what = NULL;
	return 0;

fail_errno:
	ret = errno ? -errno : -EIO;
	free(filter);
	session_close(s);
	return ret;
}

char *session_marker_path(struct session *s)
{
	char *path = tracefs_instance_get_file(s->instance, "trace_marker");
	char *copy = path ? strdup(path) : NULL;

	tracefs_put_tracing_file(path);
	return copy;
}

int session_start(struct session *s)
{
	if (tracefs_trace_on(s->instance) < 0)
		return -errno;
	return markers_copy_set(s, true);
}

int session_stop(struct session *s)
{
	markers_copy_set(s, false);
	return tracefs_trace_off(s->instance) < 0 ? -errno : 0;
}

void session_close(struct session *s)
{
	if (s->instance) {
		instance_remove(s->instance);
		tracefs_instance_free(s->instance);
		s->instance = NULL;
	}
	if (s->tep) {
		tep_free(s->tep);
		s->tep = NULL;
	}
}

int session_cpu_stats(struct session *s, int cpu, struct session_cpu_stats *st)
{
	char file[64], *text, *line, *save;

	memset(st, 0, sizeof(*st));
	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(s->instance, file, NULL);
	if (!text)
		return errno ? -errno : -EIO;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;

		if (sscanf(line, "entries: %llu", &v) == 1)
			st->entries = v;
		else if (sscanf(line, "overrun: %llu", &v) == 1)
			st->overrun = v;
		else if (sscanf(line, "dropped events: %llu", &v) == 1)
			st->dropped = v;
		else if (sscanf(line, "read events: %llu", &v) == 1)
			st->read_events = v;
	}
	free(text);
	return 0;
}
