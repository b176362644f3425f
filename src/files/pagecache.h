/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagecache.h - which file every disk I/O belongs to, from the generic
 * page-cache events and the block queue events, in time order.
 *
 * The rules (a task's "context" is the file it last worked on):
 *  - reads: the pages a task adds to the page cache for an inode, followed
 *    by the reads the same task queues on that filesystem's device, belong
 *    to that inode (readahead submits its bios in the task that inserted
 *    the pages);
 *  - writeback: the writes a flusher queues between
 *    writeback_single_inode_start and writeback_single_inode, and those a
 *    task queues after sb_mark_inode_writeback (fsync, sync_file_range),
 *    belong to that inode;
 *  - direct I/O: the I/O a task queues after its iomap_dio_rw_begin, until
 *    its iomap_dio_complete;
 *  - the rest is named by what it is: journal (jbd2), metadata (REQ_META,
 *    or a filesystem's own buffer cache), swap, raw device access, and
 *    "unattributed" filesystem I/O that no rule explains. Nothing is dropped.
 * Only top-level I/O counts: a queue event on a device that receives remaps
 * from a device above it is that I/O again, one layer down.
 *
 * Pure logic: no tracefs, no /proc, no printing. Memory grows with the
 * files seen, not with the trace.
 */
#ifndef BLKSTACK_PAGECACHE_H
#define BLKSTACK_PAGECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/event.h"
#include "files/fsmap.h"
#include "track/tracker.h"

/* What I/O that belongs to no file is. */
enum pc_cat {
	PC_CAT_JOURNAL = 0,	/* jbd2's commits */
	PC_CAT_METADATA,	/* REQ_META, or a filesystem's buffer cache */
	PC_CAT_SWAP,		/* a device in use as swap */
	PC_CAT_RAW,		/* the block device itself: no mounted filesystem, or its node opened */
	PC_CAT_DIRECT,		/* direct I/O of a file no event names (no iomap events) */
	PC_CAT_UNATTRIBUTED,	/* filesystem I/O no rule explains */
	PC_NCATS
};

/** pc_cat_name - "journal", "metadata", "swap", "raw", "direct", "unattributed" */
const char *pc_cat_name(enum pc_cat cat);

/**
 * struct pc_counts - what happened to a file (or a category, a process)
 * @read_bytes, @write_bytes: bytes of top-level I/O queued on its disk
 * @read_ios, @write_ios: that I/O, in bios
 * @direct_bytes: of those bytes, direct I/O
 * @misses: pages inserted into the page cache
 * @ra_sync, @ra_async: of those, inserted by synchronous or asynchronous
 *			readahead
 * @evicted: pages deleted from the page cache
 * @lookups: pages asked of the page cache by read() and page faults, where
 *	     the kernel has mm_filemap_get_pages / _fault / _map_pages
 * @dirtied: folios dirtied (the event names a folio, which may hold several
 *	     pages)
 * @lat_n, @lat_sum, @lat_max: latency of its I/O through the stack (queue
 *			       to completion of the top-level I/O), ns
 */
struct pc_counts {
	uint64_t read_bytes, write_bytes;
	uint64_t read_ios, write_ios;
	uint64_t direct_bytes;
	uint64_t misses;
	uint64_t ra_sync, ra_async;
	uint64_t evicted;
	uint64_t lookups;
	uint64_t dirtied;
	uint64_t lat_n, lat_sum, lat_max;
};

/** pc_counts_add - add @from into @to (roll-ups) */
void pc_counts_add(struct pc_counts *to, const struct pc_counts *from);

/**
 * struct pc_file - one file
 * @sdev: superblock device of its filesystem
 * @ino: inode number
 * @tot: since the start
 * @iv: since the last pc_interval_reset()
 */
struct pc_file {
	uint32_t sdev;
	uint64_t ino;
	struct pc_counts tot;
	struct pc_counts iv;
	int32_t dirtier;	/* the task that dirtied it last: its writeback's owner */
	int32_t first_pid;	/* the task that brought it to our notice */
};

/**
 * struct pc_proc - one task, by what it caused: its reads and direct I/O,
 * the writeback of the files it dirtied, the pages it inserted
 * @comm: its name where a block event told it, else ""
 */
struct pc_proc {
	int32_t pid;
	char comm[16];
	struct pc_counts tot;
};

/**
 * struct pc_log_range - a run of pages one task inserted into one file,
 * for "blkstack cache --log"
 * @ts: when the first was inserted
 * @pid: the task
 * @sdev, @ino: the file
 * @first, @last: page indexes, inclusive
 * @ra: 0 none, PC_EV_RA_SYNC or PC_EV_RA_ASYNC: inserted by readahead
 */
struct pc_log_range {
	uint64_t ts;
	int32_t pid;
	uint32_t sdev;
	uint64_t ino;
	uint64_t first, last;
	unsigned int ra;
};

typedef void (*pc_log_fn)(const struct pc_log_range *r, void *ctx);

struct pagecache;

/**
 * pagecache_alloc - an empty attribution
 * @map: the filesystems (may be empty: a recording from elsewhere; then a
 *	 superblock device that is a block device is taken as the device
 *	 itself); kept by reference
 * Returns it, or NULL with errno set.
 */
struct pagecache *pagecache_alloc(const struct fsmap *map);

/** pagecache_free - NULL is accepted */
void pagecache_free(struct pagecache *pc);

/**
 * pagecache_set_source - what the events and the map can tell
 * @map_traced: the map is the traced machine's (live): a device it knows no
 *	filesystem on is read and written raw; a recording's devices are not
 *	this machine's, and an I/O no rule explains stays unattributed
 * @dio_events: the kernel (or the recording) has iomap's direct-I/O events,
 *	which give direct I/O its file; without them, a read that inserted no
 *	page and a sync write outside writeback are direct I/O of some file
 * Both are true until set.
 */
void pagecache_set_source(struct pagecache *pc, bool map_traced, bool dio_events);

/**
 * pagecache_set_log - hand every run of inserted pages to @fn (NULL: off)
 */
void pagecache_set_log(struct pagecache *pc, pc_log_fn fn, void *ctx);

/**
 * pagecache_set_lower - tell that @dev is a lower layer (it has holders):
 * its queue events are I/O already counted above it
 */
void pagecache_set_lower(struct pagecache *pc, uint32_t dev);

/**
 * pagecache_event - take one event, block or page-cache, in time order
 * (a blk_event_fn). Returns 0, or -ENOMEM.
 */
int pagecache_event(const struct blk_event *ev, void *ctx);

/* What an I/O belongs to: a file index (>= 0), a category, or nothing. */
#define PC_OWNER_CAT(cat)	(-(int32_t)(cat) - 1)
#define PC_OWNER_IS_CAT(o)	((o) < 0 && (o) >= PC_OWNER_CAT(PC_NCATS - 1))
#define PC_OWNER_TO_CAT(o)	((enum pc_cat)(-(o) - 1))
#define PC_OWNER_NONE		INT32_MIN

/**
 * pagecache_io - take one completed I/O tree of the tracker: the latency
 * of the top-level I/O goes to the file it was attributed to
 * Returns its owner: an index into pagecache_files(), PC_OWNER_CAT(cat),
 * or PC_OWNER_NONE (no queue event of it was seen, or it did not complete)
 */
int32_t pagecache_io(struct pagecache *pc, const struct tk_io *io);

/** pagecache_flush_log - hand out the runs still open (end of a pass or of the trace) */
void pagecache_flush_log(struct pagecache *pc);

/** pagecache_interval_reset - zero every @iv count */
void pagecache_interval_reset(struct pagecache *pc);

/** pagecache_files - the files seen, @n of them (valid until the next event) */
const struct pc_file *pagecache_files(const struct pagecache *pc, size_t *n);

/** pagecache_cat - the counts of a category */
const struct pc_counts *pagecache_cat(const struct pagecache *pc, enum pc_cat cat);

/** pagecache_cat_iv - the counts of a category since the last interval reset */
const struct pc_counts *pagecache_cat_iv(const struct pagecache *pc, enum pc_cat cat);

/** pagecache_procs - the tasks seen, @n of them (valid until the next event) */
const struct pc_proc *pagecache_procs(const struct pagecache *pc, size_t *n);

/**
 * pagecache_set_comm - name a task that no block event named (from
 * /proc/PID/comm while it lives)
 */
void pagecache_set_comm(struct pagecache *pc, int32_t pid, const char *comm);

/**
 * struct pc_new - a file first seen, and the task that touched it: the
 * task whose open files may name it
 */
struct pc_new {
	uint32_t sdev;
	uint64_t ino;
	int32_t pid;
};

/**
 * pagecache_take_new - the files first seen since the last call
 * @out: where to copy them
 * @max: room in @out
 * Returns how many were copied; call again until 0.
 */
size_t pagecache_take_new(struct pagecache *pc, struct pc_new *out, size_t max);

/**
 * pagecache_has_events - whether any page-cache event was taken (a trace
 * without them attributes nothing to files)
 */
bool pagecache_has_events(const struct pagecache *pc);

#endif /* BLKSTACK_PAGECACHE_H */
