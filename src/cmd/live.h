/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live.h - the live tracing every live command shares: device
 * selection, the tracefs session, the per-CPU reader and the merge, with
 * the messages a user sees when one of them fails, and the cleanup on
 * every way out. Command glue: it prints, the core modules do not.
 */
#ifndef BLKSTACK_CMD_LIVE_H
#define BLKSTACK_CMD_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/ring.h"
#include "capture/session.h"
#include "cmd/pagecache.h"
#include "cmd/signals.h"
#include "format/decode.h"
#include "track/merge.h"
#include "track/topo-record.h"
#include "track/topo.h"
#include "track/tracker.h"


/**
 * struct live_opts - what to trace
 * @devs: -d arguments as given (resolved and expanded to whole stacks)
 * @ndevs: how many; 0 traces every device
 * @buffer_kb: per-CPU ring buffer
 * @plugs: with devices, trace plug/unplug too (see session_params)
 * @pagecache: trace the page-cache events too, of the filesystems on the
 *	       selected devices (all without devices)
 * @fsmap: with @pagecache, this machine's filesystems
 * @diskstats: trace the kernel's disk accounting too (session_params), for iostat
 */
struct live_opts {
	const char *const *devs;
	size_t ndevs;
	unsigned int buffer_kb;
	bool plugs;
	bool pagecache;
	const struct fsmap *fsmap;
	bool diskstats;
};

/**
 * struct live - a live trace
 * @sel: the selected devices (empty: all)
 */
struct live {
	struct topo_selection sel;
	struct pc_filter pcf;
	struct session s;
	struct decoder *dec;
	struct merge *m;
	struct ring *r;
};

/**
 * live_select_devices - @o's -d arguments to the whole stack of each
 * Returns 0, or a negative errno after printing which device and what to do.
 */
int live_select_devices(const struct live_opts *o, struct topo_selection *sel);

/**
 * live_open - resolve devices, remove stale instances, create the session
 * and the reader; tracing is not on yet
 * Returns 0, or -1 after printing what failed and what to do.
 */
int live_open(struct live *l, const struct live_opts *o);

/** live_has_dev - whether @dev is selected (a predicate for filters) */
int live_has_dev(const void *live, uint32_t dev);

/** live_start - turn tracing on. Returns 0 or -1 (printed). */
int live_start(struct live *l);

/**
 * live_loop - read, merge and hand events to @fn in time order until a
 * signal, @duration_ns (0: none), or @after returning non-zero
 * @after: called with @after_ctx after each pass (flush output, watch a
 *	   child); may be NULL
 * Returns 0, or a negative errno from reading or from @fn/@after (-EPIPE:
 * the reader of the output left), the read error printed.
 */
int live_loop(struct live *l, uint64_t duration_ns, blk_event_fn fn, void *ctx,
	      int (*after)(void *after_ctx), void *after_ctx);

/**
 * live_finish - stop tracing, read what is left and hand it out
 * Returns 0 or a negative errno (from @fn).
 */
int live_finish(struct live *l, blk_event_fn fn, void *ctx);

/** live_stats - per-CPU accounting, kernel counters refreshed */
const struct source_stats *live_stats(struct live *l);

/** live_report_losses - warn about events lost and records skipped */
void live_report_losses(const struct source_stats *st);

/**
 * live_dev_name - this machine's name of @dev (a report_name_fn)
 * Returns @buf, or NULL when sysfs does not know the device.
 */
const char *live_dev_name(uint32_t dev, char *buf, size_t len, void *ctx);

/**
 * live_stack_record - the traced devices of this machine described as a
 * recorded stack (topo_record_from_sysfs()), to name a live report's
 * layers: the selection, or every block device
 * Returns 0 or a negative errno; @out is then empty.
 */
int live_stack_record(const struct live *l, struct topo_record *out);

/**
 * live_say_tracing - tell on standard error what is traced and how to stop
 * it, for a command that traces until stopped ("tracing the stack of sda1:
 * sda, sda1, dm-0; Ctrl-C (or SIGTERM) to stop and report")
 * @then: what happens when it stops ("report", "write the log")
 */
void live_say_tracing(const struct live *l, const char *then);

/**
 * live_mark_roles - tell @t what each traced device is in its stack, from
 * sysfs (holders, slaves, partitions, parity RAID): the class of its I/O
 * follows from it, whatever event comes first
 */
void live_mark_roles(const struct live *l, struct tracker *t);

/** live_close - remove the instance and free everything; safe on a partial open */
void live_close(struct live *l);

/**
 * struct live_command - the COMMAND of "-- COMMAND", run once tracing is on
 * @pid: its pid (0 or less: none)
 * @status: its wait status, once @exited
 * @exited: it was reaped
 */
struct live_command {
	pid_t pid;
	int status;
	bool exited;
};

/**
 * live_command_start - run @command (it inherits stdin, stdout, stderr)
 * Returns 0, or -1 after saying why.
 */
int live_command_start(struct live_command *w, char **command);

/** live_command_check - live_loop()'s after-pass hook: 1 once it exited */
int live_command_check(void *ctx);

/** live_command_end - tracing stopped first: pass the signal on, reap it */
void live_command_end(struct live_command *w);

#endif /* BLKSTACK_CMD_LIVE_H */
