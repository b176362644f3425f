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
 * @m: merged into a request (Q2M), when @merge is set
 * @qev: its queue event at this layer (0 if none: a bio that entered by a
 *	 remap shows its queue event after it; a request with no bio, such as
 *	 a flush of the flush machinery, has none); btt's Q
 * @splits: split events seen for this bio at this layer
 * @requeues: times its request was requeued
 * @flags: the rwbs flags (enum blk_flag) it had at this layer: those of its
 *	   queue event here, else of the event that brought it in
 * @error: completion error (negative errno), 0 for success
 * @complete: every step of this record was seen (nothing inferred)
 * @split_rest: the remainder of a bio split at this layer (no queue event
 *		of its own; @q and @qev are those of the bio it came from)
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
	uint16_t flags;
	int32_t error;
	bool complete;
	bool split_rest;
};

/**
 * struct tk_io - a completed I/O tree
 * @pid: the task that queued the root bio (the originator, kept for every
 *	 layer even when a kworker or dm-crypt's thread submits below)
 * @comm: its name
 * @top: the root is top-level I/O (its device receives no remap from above);
 *	 false for I/O a layer issued itself (thin-pool zeroing, metadata)
 * @matched: every node of the tree was followed from queue to completion
 * @root: the root record (recs[0])
 * @recs: every bio of the tree at every layer, root first, parents before
 *	  their children
 * @nrecs: how many
 */
struct tk_io {
	int32_t pid;
	char comm[16];
	bool top;
	bool matched;
	const struct tk_rec *root;
	const struct tk_rec *recs;
	size_t nrecs;
};

/** typedef tk_io_fn - consumer of completed trees; the records are only
 * valid during the call */
typedef void (*tk_io_fn)(const struct tk_io *io, void *ctx);

/**
 * struct tk_counters - what the tracker could not follow
 * @events: events taken
 * @ios_top: top-level trees completed
 * @ios_top_matched: of those, followed through every layer
 * @ios_layer: trees issued by a layer itself
 * @expired: bios dropped after the timeout without completing
 * @dropped_cap: bios not tracked because the in-flight cap was reached
 * @unmatched_complete: completions that matched no bio in flight
 * @unmatched_remap: remaps whose source was not in flight (tracked as new)
 * @unmatched_rq: request events that matched no request
 * @inflight: bios in flight now
 * @inflight_peak: the most bios in flight at once
 */
struct tk_counters {
	uint64_t events;
	uint64_t ios_top;
	uint64_t ios_top_matched;
	uint64_t ios_layer;
	uint64_t expired;
	uint64_t dropped_cap;
	uint64_t unmatched_complete;
	uint64_t unmatched_remap;
	uint64_t unmatched_rq;
	uint64_t inflight;
	uint64_t inflight_peak;
};

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
 * tracker_event - take one event (a blk_event_fn: events in time order)
 * Returns 0 (the tracker never stops the stream).
 */
int tracker_event(const struct blk_event *ev, void *ctx);

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

/**
 * tracker_set_lower - tell that @dev is a lower layer (it has holders):
 * I/O rooted there is issued by a layer above it, not top-level, even when
 * no remap leads into it (dm-thin's metadata I/O goes straight to its disk)
 */
void tracker_set_lower(struct tracker *t, uint32_t dev);

/**
 * tracker_is_lower - whether @dev has received remaps from another device
 * (it is a lower layer of some stack in the trace)
 */
bool tracker_is_lower(const struct tracker *t, uint32_t dev);

#endif /* BLKSTACK_TRACKER_H */
