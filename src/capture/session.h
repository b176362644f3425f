/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h - the private tracefs instance of one live run.
 *
 * blkstack never touches the top-level buffer: it creates an instance named
 * blkstack-<pid>, configures and enables events only there, and removes it on
 * every exit path. An instance left by a run that died (SIGKILL) is found by
 * its pid at the next start and removed.
 */
#ifndef BLKSTACK_SESSION_H
#define BLKSTACK_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tracefs.h>

#include "base/event.h"
#include "base/pcevent.h"
#include "base/tickevent.h"

#define SESSION_PREFIX "blkstack-"

/**
 * struct session_params - what to set up
 * @buffer_kb: per-CPU ring buffer size in KiB (0: leave the kernel default)
 * @devs: kernel dev_t values to trace, written into the event filters
 * @ndevs: number of @devs; 0 traces every device
 * @plugs: with @devs, trace plug/unplug too: they name no device, so the
 *	   kernel cannot filter them and every device's are committed
 * @pagecache: enable the page-cache events too (pcevent.h)
 * @pc_sdevs: with @pagecache, the superblock devices (s_dev) of the
 *	      filesystems to trace, written into their filters; none: all
 * @pc_nsdevs: how many
 * @pc_bdis: with @pc_sdevs, the names of those filesystems' backing
 *	     devices ("7:0", "btrfs-1"), the filter of the writeback events
 * @pc_nbdis: how many
 * @diskstats: enable the events of the kernel's disk accounting too:
 *	       block_io_start and block_io_done (6.5 and later), traced where
 *	       the kernel counts a request in and out, and the timer event
 *	       whose jiffies tell where its ticks fall (tickevent.h)
 * @ticks: enable that timer event alone (a recording keeps where the
 *	   ticks fall; the accounting events are in every request's path)
 * @markers: the workload's markers too: the kernel copies the writes to
 *	     the top level's trace_marker, where workload scripts write,
 *	     into the instance (options/copy_trace_marker, 6.17 and later);
 *	     and ftrace's print format, the event they are, is loaded
 */
struct session_params {
	unsigned int buffer_kb;
	const uint32_t *devs;
	size_t ndevs;
	bool plugs;
	bool pagecache;
	const uint32_t *pc_sdevs;
	size_t pc_nsdevs;
	const char *const *pc_bdis;
	size_t pc_nbdis;
	bool diskstats;
	bool ticks;
	bool markers;
};

/**
 * struct session - a live tracefs instance
 * @instance: the libtracefs instance
 * @tep: formats of the block events, read from this kernel
 * @ncpu: CPUs with a ring buffer
 * @missing: per enum blk_kind, true when this kernel has no such event
 * @filtered: per enum blk_kind, true when a device filter was written
 * @skipped: per enum blk_kind, true when left off because it cannot be
 *	     filtered by device (see session_params.plugs)
 * @pc_missing: per enum pc_kind (index kind - PC_EV_ADD), with @pagecache:
 *		true when this kernel has no such event
 * @pc_unfiltered: likewise, true when enabled without the filter asked for
 *		   (the event lacks the field): every filesystem's are committed
 * @tick_missing: with @diskstats or @ticks, true when this kernel has no
 *		  timer_expire_entry
 * @markers_copied: with @markers, the kernel copies the top level's
 *		    trace_marker writes here; false: it cannot (before 6.17),
 *		    and only writes to the instance's own trace_marker
 *		    (session_marker_path()) reach it
 */
struct session {
	struct tracefs_instance *instance;
	struct tep_handle *tep;
	int ncpu;
	bool missing[BLK_EV_KIND_MAX];
	bool filtered[BLK_EV_KIND_MAX];
	bool skipped[BLK_EV_KIND_MAX];
	bool pc_missing[PC_NKINDS];
	bool pc_unfiltered[PC_NKINDS];
	bool tick_missing;
	bool markers_copied;
};

/**
 * typedef session_stale_fn - told of each stale instance removed
 * @name: the instance's name
 * @err: 0 when it was removed, else the negative errno of the failure
 */
typedef void (*session_stale_fn)(const char *name, int err, void *ctx);

/**
 * session_remove_stale - remove blkstack-<pid> instances whose pid is dead
 * Returns how many were found, or a negative errno when tracefs cannot be read.
 */
int session_remove_stale(session_stale_fn fn, void *ctx);

/**
 * session_tracefs_ready - check that tracefs is mounted and writable
 * Returns 0, -ENODEV when it is not mounted, -EACCES when not permitted.
 */
int session_tracefs_ready(void);

/**
 * session_open - create and configure the instance, events still off
 * @p: what to set up
 * @s: filled on success; on failure everything created is removed again
 * @what: on failure, the file or object that failed (static or in @s)
 *
 * Returns 0 or a negative errno.
 */
int session_open(const struct session_params *p, struct session *s, const char **what);

/**
 * session_pagecache_enable - write the filters of the page-cache events and
 * enable them (session-pagecache.c); called by session_open()
 * @what: on failure, the event that failed
 * Returns 0 or a negative errno.
 */
int session_pagecache_enable(const struct session_params *p, struct session *s,
			     const char **what);

/**
 * session_saved_comms - the names of recently traced tasks, from the
 * kernel's saved_cmdlines (read only; the events of every instance record
 * their task's name there, so a task that has exited is still named)
 * @fn: called with each pid and name
 * Returns 0 or a negative errno.
 */
int session_saved_comms(void (*fn)(int pid, const char *comm, void *ctx), void *ctx);

/**
 * session_marker_path - the instance's own trace_marker, whose writes are
 * the instance's markers on every kernel
 * Returns the path (free() it), or NULL with errno set.
 */
char *session_marker_path(struct session *s);

/** session_start - turn tracing on in the instance. Returns 0 or -errno. */
int session_start(struct session *s);

/** session_stop - turn tracing off (events stay readable). Returns 0 or -errno. */
int session_stop(struct session *s);

/**
 * session_close - disable all events and remove the instance
 * Accepts a zeroed or half-opened session. Safe to call twice.
 */
void session_close(struct session *s);

/**
 * struct session_cpu_stats - the per-CPU "stats" file of the instance
 */
struct session_cpu_stats {
	uint64_t entries;
	uint64_t overrun;
	uint64_t dropped;
	uint64_t read_events;
};

/** session_cpu_stats - read per_cpu/cpuN/stats. Returns 0 or -errno. */
int session_cpu_stats(struct session *s, int cpu, struct session_cpu_stats *st);

#endif /* BLKSTACK_SESSION_H */
