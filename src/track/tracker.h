/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracker.h - the stack tracker: follows every I/O through the remaps,
 * splits, merges and completions of a stack of block devices.
 *
 * Input: merged block events in time order. Output: for each completed
 * I/O tree (a top-level I/O, or an I/O a layer issued on its own), one
 * record per bio per layer with its timestamps, handed to a callback.
 *
 * A layer is a device. A bio enters a layer when it is queued on it or
 * remapped into it (Q), leaves it downward at its first remap out or its
 * issue to the hardware (down), has its lower pieces completed (up) and
 * completes at the layer (C). The kernel gives no request id: bios are
 * found by device and sector, see tracker.c for the rules.
 */
#ifndef BLKSTACK_TRACKER_H
#define BLKSTACK_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/event.h"

/* How a bio joined a request at a request-based device. */
enum tk_merge {
	TK_MERGE_NONE = 0,	/* it started the request (getrq) */
	TK_MERGE_BACK,		/* appended to a request (M) */
	TK_MERGE_FRONT,		/* prepended to a request (F) */
};

/* How a bio passed through a layer. */
enum tk_layer_kind {
	TK_LAYER_BIO = 0,	/* bio-based: dm, md, zram (queue + bio completion) */
	TK_LAYER_REQUEST,	/* request-based: a disk (getrq/issue/rq completion) */
	TK_LAYER_REMAP,		/* remap only: a partition (no queue, no completion) */
};

/**
 * struct tk_rec - one bio's passage through one layer
 * @dev: the layer's device
 * @sector: its first sector when it entered the layer
 * @parent: index in tk_io.recs of the bio above it (-1 for the root)
 * @parent_dev: the layer above it in this tree (0 for the root)
 * @depth: 0 for the root of the tree, +1 per layer down
 * @kind: enum tk_layer_kind, as this bio crossed the layer
 * @op: enum blk_op
 * @merge: enum tk_merge (request-based layers)
 * @sectors: size when it entered the layer
 * @q: entered the layer (queue event, or remap into it)
 * @down: left it downward (first remap out, or issue to the device); 0 if
 *	  never (a bio-based leaf such as zram)
 * @up: the last of its lower pieces completed (the device finished, at a
 *	request-based layer); 0 if it had none
 * @c: completed at this layer
 * @g: got its request (request-based, when it started one)
 * @i: its request was inserted into the scheduler (0 if never)
 * @d: its request was issued to the device
 * @m: merged into a request (Q2M), when @merge is set; for the bio that
 *	started a request the scheduler merged into another, that merge
 * @qev: its queue event at this layer (0 if none: a bio that entered by a
 *	 remap shows its queue event after it; a request with no bio, such as
 *	 a flush of the flush machinery, has none); btt's Q
 * @splits: split events seen for this bio at this layer
 * @requeues: times its request was requeued
 * @error: completion error (negative errno), 0 for success
 * @complete: every step of this record was seen (nothing inferred)
 * @split_rest: the remainder of a bio split at this layer (no queue event
 *		of its own; @q and @qev are those of the bio it came from)
 * @rq_merged: its request was merged into another by the scheduler (btt
 *	       gives it no I2D: the request it started was never issued)
 * @linked: it entered this layer with no remap event: the layer above held
 *	    it (dm-snapshot's origin, until the chunk is copied) and released
 *	    it here; linked by device, sectors and operation
 * @flags: enum blk_flag bits as it entered the layer (PREFLUSH, FUA, ...)
 * @no_q: a request the layer made itself (the flush machinery's flush):
 *	  never queued nor remapped in; its @q is its issue
 * @end: enum tk_end: where the path ended, for a record with no record
 *	 below it in its tree (TK_END_NONE for the others)
 * @requeue_ns: time its request spent requeued, from each requeue to the
 *		issue that followed it (a request-based layer)
 */
struct tk_rec {
	uint32_t dev;
	uint64_t sector;
	int32_t parent;
	uint32_t parent_dev;
	uint8_t depth;
	uint8_t kind;
	uint8_t op;
	uint8_t merge;
	uint32_t sectors;
	uint64_t q, down, up, c;
	uint64_t g, i, d, m;
	uint64_t qev;
	uint16_t splits;
	uint16_t requeues;
	int32_t error;
	bool complete;
	bool split_rest;
	bool rq_merged;
	bool linked;
	bool no_q;
	uint8_t flags;
	uint8_t end;
	uint64_t requeue_ns;
};

/**
 * tk_rec_q - the Q of a bio at its layer, where "total = C - Q" and
 * "submission = down - Q" start: its queue event there, else its entry
 * into the layer (a remap into a partition, which queues nothing; a bio
 * whose queue event was not seen; a request no bio was queued for)
 */
static inline uint64_t tk_rec_q(const struct tk_rec *r)
{
	return r->qev ? r->qev : r->q;
}

/*
 * Where one path of an I/O through the stack ended: at each record with
 * nothing below it in its tree. A disk is a device with nothing below it
 * in the stack (a whole disk or a partition of one, a zram device); a
 * layer that has devices below it and sent nothing down either completed
 * the I/O by its own means, which some layers do by design, or the path
 * was not followed further.
 */
enum tk_end {
	TK_END_NONE = 0,	/* not the end of a path: it went further down */
	TK_END_DISK,		/* a disk completed it */
	TK_END_SELF,		/* the layer completed it itself: dm-zero, dm-error,
				 * dm-thin's reads of unprovisioned blocks, its discards
				 * and flushes, or with I/O it issued for it */
	TK_END_LAYER,		/* a layer with devices below, nothing sent down */
	TK_END_LOST,		/* not seen completing at this layer */
};

/*
 * How far a whole I/O was followed: the worst of its paths, in this order
 * (TK_REACH_PARTIAL worst). Only TK_REACH_DISK is "followed": the I/O's
 * data reached a disk through every layer, every step seen.
 */
enum tk_reach {
	TK_REACH_DISK = 0,	/* every path reached a disk */
	TK_REACH_SELF,		/* every path reached a disk or a layer that completed it */
	TK_REACH_ENDED,		/* a path ended at a layer with devices below */
	TK_REACH_PARTIAL,	/* a step of it was not seen (lost events, a lost piece) */
	TK_REACHES
};

/**
 * tk_rec_is_flush - an empty bio that asks for a cache flush, or a flush
 * request: counted as "flush" at every layer, never as a 0-byte write
 */
static inline bool tk_rec_is_flush(const struct tk_rec *r)
{
	return r->op == BLK_OP_FLUSH || (!r->sectors && (r->flags & BLK_F_PREFLUSH));
}

/*
 * Who an I/O tree belongs to. A top-level I/O was queued by a user of the
 * stack's top device; every other tree was issued by a layer of the stack
 * itself (md's superblock and parity I/O, dm's flushes and copies,
 * thin-pool metadata, the flush machinery's flush requests), with the I/O
 * that caused it known where the events tell (a read-modify-write read of
 * a block a pending write covers, the flush a preflush write asked for).
 * I/O that came down from a layer where no I/O was in flight to send it,
 * at a layer that issues none of its own by design, is unexplained: an
 * event was lost, or the tracker does not know the layer's ways. The
 * class depends on the stack's roles (tracker_set_role()), never on which
 * event happened to come first.
 */
enum tk_class {
	TK_IO_TOP = 0,		/* queued by a user of the stack */
	TK_IO_LAYER,		/* issued by a layer on its own (or for its own I/O) */
	TK_IO_CAUSED,		/* issued by a layer for a top-level I/O in flight, or
				 * for I/O caused by one */
	TK_IO_UNEXPLAINED,	/* came down from a layer with nothing in flight to send it */
	TK_CLASSES
};

/**
 * struct tk_io - a completed I/O tree
 * @id: the tree's number, from 1, in the order the trees began (an I/O
 *	that expired keeps its number: the numbers handed out have gaps)
 * @pid: the task that queued the root bio (the originator, kept for every
 *	 layer even when a kworker or dm-crypt's thread submits below)
 * @comm: its name
 * @top: the root is top-level I/O (@cls is TK_IO_TOP); false for I/O a
 *	 layer issued itself (thin-pool zeroing, metadata, parity)
 * @cls: enum tk_class
 * @cause: the @id of the I/O it was issued for, 0 when none is known
 *	   (TK_IO_CAUSED always has one; TK_IO_LAYER has one when it was
 *	   issued for I/O of a layer's own)
 * @issuer: for I/O issued by a layer, that layer's device (md0 for its
 *	    stripe I/O on a member disk, which the tree is rooted at; the
 *	    layer that held the I/O it served, for caused I/O; the layer
 *	    above a device that got I/O with no remap from it, as a cache's
 *	    metadata device; the root's own device for other I/O queued
 *	    there); 0 for top-level I/O
 * @cause_dev, @cause_q: when @cause is known, that I/O's root: its device
 *			  and Q (tk_rec_q(), as its row gives them); else 0
 * @reach: enum tk_reach, the worst of the records' @end
 * @end_dev: where it was worst: the device of the first record (root
 *	     first, then by depth) at which its @reach shows; 0 for
 *	     TK_REACH_DISK
 * @matched: @reach is TK_REACH_DISK: every layer on the tree's paths was
 *	     followed from queue to completion and every path reached a disk
 * @root: the root record (recs[0])
 * @recs: every bio of the tree at every layer, root first, parents before
 *	  their children
 * @nrecs: how many
 */
struct tk_io {
	uint64_t id;
	int32_t pid;
	char comm[16];
	bool top;
	uint8_t cls;
	uint64_t cause;
	uint32_t issuer;
	uint32_t cause_dev;
	uint64_t cause_q;
	uint8_t reach;
	uint32_t end_dev;
	bool matched;
	const struct tk_rec *root;
	const struct tk_rec *recs;
	size_t nrecs;
};

/** typedef tk_io_fn - consumer of completed trees; the records are only
 * valid during the call */
typedef void (*tk_io_fn)(const struct tk_io *io, void *ctx);

/**
 * struct tk_counters - what the tracker followed, and what it could not
 * @events: events taken
 * @ios_top: top-level I/Os completed
 * @ios_top_reach: of those, by how far they were followed (enum
 *		   tk_reach): [TK_REACH_DISK] is the matched ones
 * @ios_top_matched: of those, matched: ios_top_reach[TK_REACH_DISK]
 * @ios_layer: I/Os a layer issued on its own (TK_IO_LAYER)
 * @ios_caused: I/Os a layer issued for a top-level I/O in flight
 * @ios_unexplained: I/Os that came down from a layer with nothing in
 *		     flight to send them (TK_IO_UNEXPLAINED)
 * @expired: I/Os (trees) not completed within the timeout, or still in
 *	     flight when the trace ended; an expired I/O stays one I/O: its
 *	     later events are taken by it, never start new ones
 * @expired_top: of those, top-level I/Os
 * @dropped_cap: bios not tracked because the in-flight cap was reached
 * @unmatched_complete: completions that matched no bio in flight
 * @unmatched_remap: remaps whose source was not in flight (tracked as I/O
 *		     of the layer they came from)
 * @unmatched_rq: request events that matched no request
 * @inflight: bios in flight now (expired ones included, until released)
 * @inflight_peak: the most bios in flight at once (never above the cap)
 * @lost_marks: stretches of lost events the stream marked (lostevent.h)
 * @broken_lost: I/O trees whose life met such a stretch: any of their
 *		 events may be among the lost, so they are left out of every
 *		 figure, counted here and never handed out
 * @broken_lost_top: of those, top-level I/Os
 * @unmatched_after_loss: of @unmatched_complete, those after a stretch of
 *			  lost events: I/Os whose start was lost, as a rule
 */
struct tk_counters {
	uint64_t events;
	uint64_t ios_top;
	uint64_t ios_top_reach[TK_REACHES];
	uint64_t ios_top_matched;
	uint64_t ios_layer;
	uint64_t ios_caused;
	uint64_t ios_unexplained;
	uint64_t expired;
	uint64_t expired_top;
	uint64_t dropped_cap;
	uint64_t unmatched_complete;
	uint64_t unmatched_remap;
	uint64_t unmatched_rq;
	uint64_t inflight;
	uint64_t inflight_peak;
	uint64_t lost_marks;
	uint64_t broken_lost;
	uint64_t broken_lost_top;
	uint64_t unmatched_after_loss;
};

/**
 * tk_top_seen - the top-level I/Os the tracker saw: those completed,
 * those broken by lost events, and the completions whose start was lost
 */
static inline uint64_t tk_top_seen(const struct tk_counters *tk)
{
	return tk->ios_top + tk->broken_lost_top + tk->unmatched_after_loss;
}

/**
 * tk_top_unseen - about how many top-level I/Os lost every event, so that
 * the tracker never saw them: @lost events, at the top-level I/Os per
 * event of what it saw (rounded up: none only when nothing was lost)
 */
static inline uint64_t tk_top_unseen(const struct tk_counters *tk, uint64_t lost)
{
	uint64_t seen = tk_top_seen(tk);

	if (!lost)
		return 0;
	if (!tk->events)
		return 1;	/* nothing seen to tell the rate by: one at least */
	return (uint64_t)((long double)lost * (seen ? seen : 1) / tk->events) + 1;
}

/**
 * tk_top_all - what the match rate is a share of: the top-level I/Os seen
 * and, when @lost events were lost, those estimated unseen (a report that
 * lost events never says it followed every I/O)
 */
static inline uint64_t tk_top_all(const struct tk_counters *tk, uint64_t lost)
{
	return tk_top_seen(tk) + tk_top_unseen(tk, lost);
}

/**
 * struct tk_params - limits
 * @max_inflight: bios tracked at once at most (memory bound); 0: default
 * @timeout_ns: a bio not completed after this long is dropped; 0: default
 */
struct tk_params {
	size_t max_inflight;
	uint64_t timeout_ns;
};

#define TK_DEFAULT_MAX_INFLIGHT	(1U << 20)
#define TK_DEFAULT_TIMEOUT_NS	(30ULL * 1000000000ULL)

struct tracker;

/**
 * tracker_alloc - a tracker handing completed trees to @fn
 * Returns the tracker, or NULL with errno set.
 */
struct tracker *tracker_alloc(const struct tk_params *p, tk_io_fn fn, void *ctx);

/** tracker_free - release everything; NULL is accepted */
void tracker_free(struct tracker *t);

/**
 * tracker_reset - back to a tracker just allocated, with the same limits
 * and consumer: nothing in flight, no device or role known, counters zero
 */
void tracker_reset(struct tracker *t);

/**
 * tracker_event - take one event (a blk_event_fn: events in time order)
 * Returns 0, or -ERESTART at a remap after tracker_stop_at_remap().
 */
int tracker_event(const struct blk_event *ev, void *ctx);

/**
 * tracker_bare_kinds - the block kinds (1ULL << kind bits) of which
 * tracker_event() reads only the kind and the time: no rule takes them. A
 * reader may leave their other fields unfilled (tracefile_bare_kinds()).
 */
uint64_t tracker_bare_kinds(void);

/**
 * tracker_stop_at_remap - have tracker_event() return -ERESTART at the
 * first remap, before it takes it: for a reader of a recording that learns
 * the roles of its devices (tracker_learn_event()) only when the recording
 * has remaps, and then starts again. The tracker is then only to be reset
 * or freed; tracker_reset() ends the stop.
 */
void tracker_stop_at_remap(struct tracker *t);

/**
 * tracker_finish - the trace ended: count what is still in flight as
 * expired (it never completed within the trace)
 */
void tracker_finish(struct tracker *t);

/**
 * tracker_oldest_q - when the oldest tree still in flight entered the stack
 * (its root's Q): no record completed from now on entered a layer before
 * it. UINT64_MAX when nothing is in flight.
 */
uint64_t tracker_oldest_q(const struct tracker *t);

/** tracker_counters - what was followed and what was not */
const struct tk_counters *tracker_counters(const struct tracker *t);

/* What a device is in the stack; the class of its I/O follows from it. */
enum tk_role {
	TK_ROLE_LOWER = 1 << 0,		/* under another layer (has holders, receives remaps) */
	TK_ROLE_UPPER = 1 << 1,		/* over other devices (has slaves, remaps down) */
	TK_ROLE_REMAP_ONLY = 1 << 2,	/* a partition: remaps, no queue of its own */
	TK_ROLE_PARITY = 1 << 3,	/* md raid4/5/6: stripe I/O of its own, remapped
					 * with the array sector of a block, or 0 for parity */
	TK_ROLE_COMPLETES = 1 << 4,	/* completes every I/O itself: dm-zero, dm-error */
	TK_ROLE_THIN = 1 << 5,		/* dm-thin and its pool: complete reads of
					 * unprovisioned blocks, discards (the pool's
					 * pieces are its own) and flushes themselves */
};

/**
 * tracker_set_role - tell what @dev is (enum tk_role bits, added to those
 * known), from the stack's topology or from a first pass over a recording
 * (tracker_learn_event()). Tell it before the events: I/O rooted at a
 * lower device is issued by a layer above it, even when no remap leads
 * into it (dm-thin's metadata, md's superblock), whenever it comes.
 */
void tracker_set_role(struct tracker *t, uint32_t dev, unsigned int roles);

/**
 * tracker_learn_event - a blk_event_fn for a first pass over a recording
 * whose stack is not known: remaps tell which devices are lower and upper,
 * queue events which devices queue (a partition never does). Then feed the
 * same events to tracker_event(): no class depends on their order.
 * Returns 0.
 */
int tracker_learn_event(const struct blk_event *ev, void *ctx);

/**
 * tracker_set_edge - tell that @upper sends its I/O to @lower (a slave of
 * it), from the topology; remaps tell it too. A layer that holds a bio and
 * releases it below with no remap event (dm-snapshot's origin) is linked
 * to it through this edge.
 */
void tracker_set_edge(struct tracker *t, uint32_t upper, uint32_t lower);

/**
 * tracker_set_stripe - the geometry of parity RAID @dev (md raid4/5/6):
 * @chunk sectors per member and @data_disks data blocks per stripe. With
 * it, the stripe I/O md does itself (the reads of a read-modify-write or
 * reconstruct-write, parity writes) is tied to the write in flight on the
 * same stripe, which caused it; without it, only a read of a block a
 * pending write covers is.
 */
void tracker_set_stripe(struct tracker *t, uint32_t dev, uint32_t chunk, uint32_t data_disks);

/** tracker_roles - the enum tk_role bits known or learnt for @dev */
unsigned int tracker_roles(const struct tracker *t, uint32_t dev);

#endif /* BLKSTACK_TRACKER_H */
