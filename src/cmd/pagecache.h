/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagecache.h - the page-cache glue the commands share: which
 * filesystems the selected devices hold (the kernel filters), what the
 * kernel lacks (notes), and a run that feeds events to the attribution and
 * the tracker, resolves names as it goes and at the end. Command glue: it
 * prints, the core modules do not.
 */
#ifndef BLKSTACK_CMD_PAGECACHE_H
#define BLKSTACK_CMD_PAGECACHE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/session.h"
#include "files/fanwatch.h"
#include "files/fsmap.h"
#include "files/pagecache.h"
#include "files/pathres.h"
#include "format/tracefile.h"
#include "track/stats.h"
#include "track/topo.h"
#include "track/tracker.h"

/**
 * struct pc_filter - what the page-cache events are filtered to
 * @sdevs: superblock devices of the selected filesystems
 * @nsdevs: how many
 * @bdis: their backing devices' names, for the writeback events
 * @nbdis: how many
 */
struct pc_filter {
	uint32_t *sdevs;
	size_t nsdevs;
	char **bdis;
	size_t nbdis;
};

/**
 * pc_filter_from - the filesystems that live on the devices of @sel
 * @sel: the selected devices (whole stacks); empty: every filesystem (the
 *	 filter stays empty)
 * Returns 0 or -ENOMEM.
 */
int pc_filter_from(const struct fsmap *map, const struct topo_selection *sel,
		   struct pc_filter *f);

/** pc_filter_free - release; a zeroed filter is accepted */
void pc_filter_free(struct pc_filter *f);

/** pc_session_notes - tell which page-cache events this kernel lacks, and what follows */
void pc_session_notes(const struct session *s);


/**
 * struct pc_run - the page-cache side of one run, live or from a recording
 * @map: this machine's filesystems
 * @pc: the attribution
 * @pr: the names
 * @t: the tracker block events also go to (NULL: none)
 * @st: the statistics completed trees also go to (NULL: none)
 * @resolve: enum cli_resolve, CLI_RESOLVE_DEFAULT already settled
 * @live: the processes of the trace are this machine's, alive
 * @recorded: names a recording carried (pc_run_recorded_names())
 * @io_fn: with the tracker, also called with each completed tree and its
 *	   owner (pagecache_io()); may be NULL
 * @io_ctx: its context
 * @waiting: files without a name yet, with the task whose open files may
 *	     name them while it lives; @nwaiting of them
 */
struct pc_run {
	struct fsmap map;
	struct pagecache *pc;
	struct pathres *pr;
	struct tracker *t;
	struct stats *st;
	int resolve;
	bool live;
	size_t recorded;
	const char *dio_note;	/* what the events tell of direct I/O, for the report */
	struct fanwatch *fw;	/* names from fanotify while tracing, or NULL */
	struct fanwatch_stats fw_st;	/* its counts, once stopped */
	char fw_note[160];	/* what it lost, for the report ("" none) */
	void (*io_fn)(const struct tk_io *io, int32_t owner, void *ctx);
	void *io_ctx;
	struct pc_new *waiting;
	size_t nwaiting, waiting_cap;
	sig_atomic_t walk_signals;	/* live_nsignals when the walk began */
};

/**
 * pc_run_init - load the filesystems, make an empty attribution and name
 * store; with @tk, a tracker whose completed trees go to @st (may be NULL)
 * and to the attribution
 * Returns 0, or -1 after printing what failed.
 */
int pc_run_init(struct pc_run *r, bool live, int resolve, const struct tk_params *tk,
		struct stats *st);

/**
 * pc_run_event - a blk_event_fn: page-cache and queue events to the
 * attribution, block events to the tracker
 * Returns 0, -ENOMEM, or what the tracker returned (-ERESTART).
 */
int pc_run_event(const struct blk_event *ev, void *ctx);

/**
 * pc_run_pass - after a pass of the live loop: name the files first seen,
 * from the open files and maps of the tasks that touched them; a file not
 * named yet is looked for again at the next passes, while its task lives
 */
void pc_run_pass(struct pc_run *r);

/**
 * pc_run_finish - the trace is over: name what is left (every process's
 * files, then a walk if asked), name the tasks no block event named
 * Returns 0, or -1 after printing what failed.
 */
int pc_run_finish(struct pc_run *r);

/**
 * pc_run_walk - pathres_walk() for @want, which a signal (Ctrl-C) stops
 * when the run is live: the files it did not reach keep no name, and that
 * is said
 * Returns 0 or -ENOMEM.
 */
int pc_run_walk(struct pc_run *r, const struct pathres_key *want, size_t n);

/**
 * pc_run_walk_unnamed - pc_run_walk() for the files without a name (all
 * of them, or with @interval those active in this interval)
 * Returns 0 or -ENOMEM.
 */
int pc_run_walk_unnamed(struct pc_run *r, bool interval);

/**
 * pc_run_recorded_names - take the file names a recording carries (they
 * come before any found on this machine)
 * Returns 0 or -ENOMEM.
 */
int pc_run_recorded_names(struct pc_run *r, const struct tracefile *f);

/**
 * pc_run_owner_name - what an owner pagecache_io() returned is called: the
 * file's path (or "MAJ:MIN:ino") in @buf, a category's
 * name, or NULL for PC_OWNER_NONE
 */
const char *pc_run_owner_name(const struct pc_run *r, int32_t owner, char *buf, size_t len);

/**
 * pc_run_dio_events - say in the report where direct I/O per file comes
 * from, or that it cannot be told, naming the events
 * @has_begin: iomap:iomap_dio_rw_begin was traced (recorded)
 * @has_iter: iomap:iomap_iter was
 */
void pc_run_dio_events(struct pc_run *r, bool has_begin, bool has_iter);

/**
 * pc_run_watch - name the files of the filesystems in @f while tracing,
 * from fanotify, for processes however short-lived; where it cannot (no
 * CAP_SYS_ADMIN, no file handles, an old kernel) say so and keep /proc
 * and the walk. Live only, and not with --resolve-paths=none.
 */
void pc_run_watch(struct pc_run *r, const struct pc_filter *f);

/** pc_run_names - how the names were found, for the report's heading */
const char *pc_run_names(const struct pc_run *r);

/** pc_run_destroy - release everything; safe on a zeroed or half-made run */
void pc_run_destroy(struct pc_run *r);

#endif /* BLKSTACK_CMD_PAGECACHE_H */
