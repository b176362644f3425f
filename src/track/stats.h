/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h - aggregation of the tracker's completed I/O trees: per layer and
 * operation, end to end per top-level operation with the waterfall of each
 * layer's share, and per originating process. No printing here: the
 * output/report-*.c render a struct stats.
 */
#ifndef BLKSTACK_STATS_H
#define BLKSTACK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "track/hist.h"
#include "track/tracker.h"

/* Operations reported: the op of enum blk_op, with secure erase counted as
 * discard and the rest as "other". */
enum st_op {
	ST_READ = 0,
	ST_WRITE,
	ST_DISCARD,
	ST_FLUSH,
	ST_OTHER,
	ST_OPS
};

/** st_op_of - the reported operation of an enum blk_op */
enum st_op st_op_of(uint8_t blk_op);

/**
 * st_op_of_rec - the reported operation of a bio at a layer: an empty bio
 * that asks for a cache flush is a "flush" at every layer (as the flush
 * requests of the flush machinery are), never a 0-byte write
 */
static inline enum st_op st_op_of_rec(const struct tk_rec *r)
{
	return tk_rec_is_flush(r) ? ST_FLUSH : st_op_of(r->op);
}

/** st_op_name - "read", "write", "discard", "flush", "other" */
const char *st_op_name(enum st_op op);

/**
 * struct st_layer_op - one operation at one layer
 * @ios: bios that completed at this layer
 * @issued: I/Os this layer issued itself (the root of a tree that is not
 *	    top-level: thin-pool zeroing, metadata, discards passed down,
 *	    md's stripe I/O to its members, counted here, not at the members)
 * @bytes: their bytes
 * @cls_ios, @cls_bytes: @ios and @bytes by the class of the I/O each bio
 *			 belongs to (enum tk_class: serving a top-level I/O,
 *			 caused by one, issued by a layer on its own,
 *			 unexplained); they add up to @ios and @bytes
 * @top_end: top-level I/Os of this operation whose worst path ended at
 *	     this layer, by enum tk_reach (TK_REACH_DISK unused): completed
 *	     by the layer itself, ended here, or lost here
 * @splits, @merges_back, @merges_front, @requeues, @errors: counts
 * @size: bio size in bytes
 * @sub: submission latency (down - Q), ns, where the bio went down and had
 *	a Q (tk_rec_q(): a request the layer made itself, the flush
 *	machinery's, has none)
 * @comp: completion latency (C - up), ns, where it had lower pieces
 * @total: C - Q, ns (from a request's issue where it had no Q)
 * @q2g, @g2i, @i2d, @d2c, @q2c, @q2m: btt phases at request-based layers
 * @g2d: get request to issue, for requests never inserted into a scheduler
 *	 (no scheduler, or dispatched directly): what G2I + I2D are otherwise
 * @size_last, @size_last_b: the last size taken and its bucket (a
 *			     workload's sizes repeat); zero is bucket zero
 */
struct st_layer_op {
	uint64_t ios;
	uint64_t issued;
	uint64_t bytes;
	uint64_t cls_ios[TK_CLASSES];
	uint64_t cls_bytes[TK_CLASSES];
	uint64_t top_end[TK_REACHES];
	uint64_t splits;
	uint64_t merges_back;
	uint64_t merges_front;
	uint64_t requeues;
	uint64_t errors;
	struct hist size;
	struct hist sub, comp, total;
	struct hist q2g, g2i, i2d, d2c, q2c, q2m;
	struct hist g2d;
	uint64_t size_last;
	unsigned int size_last_b;
};

/**
 * struct st_parent - a layer that sent bios to another
 * @dev: the layer above
 * @bios: bios it sent
 * @data_bios: of those, bios with data (not empty flushes)
 */
struct st_parent {
	uint32_t dev;
	uint64_t bios;
	uint64_t data_bios;
};

/* Layers above one layer, at most (a stack is a graph: dm-snapshot's origin
 * has the origin and the snapshot targets above it). */
#define ST_MAX_PARENTS 8

/**
 * struct st_layer - one device seen in the trace
 * @dev: the device
 * @kind: enum tk_layer_kind seen most recently
 * @depth: smallest depth at which it was seen in a top-level tree
 * @parent: the layer above it that sent it the most bios with data (then
 *	    the most bios): a few empty flushes dm sends straight to a disk
 *	    do not make dm the parent of a disk under a partition; 0 for a
 *	    top device
 * @parents: every layer that sent it bios, @nparents of them
 * @op: per operation
 */
struct st_layer {
	uint32_t dev;
	uint8_t kind;
	uint8_t depth;
	uint32_t parent;
	struct st_parent parents[ST_MAX_PARENTS];
	size_t nparents;
	struct st_layer_op op[ST_OPS];
};

/**
 * struct st_share - one layer's part of the end-to-end time of an operation,
 * summed along each I/O's critical path (the piece that completed last);
 * one per path through the stack, so that each leg of a mirror or stripe
 * is a row under its parent, never one row per device
 * @dev: the layer
 * @depth: its depth on the path
 * @parent: index in st_e2e.shares of the layer above on the path, -1 for
 *	    the top
 * @sub_ns: summed submission time (down - Q)
 * @sub_n: how many of the I/Os went down at this layer (0: it has no
 *	   submission on these paths, as at a layer that completed them)
 * @dev_ns: summed time in the device (D to completion) at request-based
 *	    leaves, or Q to C at a bio-based leaf
 * @comp_ns: summed completion time (C - up)
 */
struct st_share {
	uint32_t dev;
	uint8_t depth;
	int16_t parent;
	uint64_t sub_ns;
	uint64_t sub_n;
	uint64_t dev_ns;
	uint64_t comp_ns;
};

#define ST_MAX_SHARES 32

/**
 * struct st_e2e - end to end, per top-level operation
 * @ios, @bytes: completed top-level I/Os and their bytes
 * @matched: of those, followed through every layer to a disk
 * @reach: of those, by how far they were followed (enum tk_reach;
 *	   [TK_REACH_DISK] is @matched); where, in struct st_layer_op's
 *	   @top_end
 * @total: end-to-end latency (root C - root Q), ns
 * @total_ns: the sum of @total, the denominator of the shares
 * @shares: the waterfall, @nshares entries
 */
struct st_e2e {
	uint64_t ios;
	uint64_t bytes;
	uint64_t matched;
	uint64_t reach[TK_REACHES];
	struct hist total;
	uint64_t total_ns;
	struct st_share shares[ST_MAX_SHARES];
	size_t nshares;
};

/**
 * struct st_proc - per originating process of top-level I/O
 */
struct st_proc {
	int32_t pid;
	char comm[16];
	uint64_t ios;
	uint64_t bytes;
	struct hist total;
};

/*
 * Processes tracked individually at most; past them, the rest are summed
 * by command name (pid -1), up to ST_MAX_COMMS names, and the rest of
 * those as one entry, pid -2, "other".
 */
#define ST_MAX_PROCS 512
#define ST_MAX_COMMS 512
#define ST_PROC_SLOTS (ST_MAX_PROCS + ST_MAX_COMMS + 1)
/* Slots of the table from a pid to where its process was last found. */
#define ST_PROC_HINTS 64

/*
 * struct st_proc_hint - where the I/O of task @pid named @comm went last:
 * @idx - 1 among the procs (0: none), its own entry or its name's
 */
struct st_proc_hint {
	int32_t pid;
	uint16_t idx;
	char comm[16];
};

/**
 * struct stats - everything the report shows
 * @layers: every device seen, @nlayers of them
 * @e2e: per top-level operation
 * @procs: per originating process, @nprocs of them; past ST_MAX_PROCS
 *	   per command name, pid -1; past ST_MAX_COMMS of those, one entry,
 *	   pid -2 "other", sums the rest (ST_PROC_SLOTS in all)
 * @nnames: entries by command name (pid -1) among @procs
 * @first_ts, @last_ts: span of the completed I/Os
 * @last_layer: the index found last (most trees are rooted where the
 *		previous one was)
 * @proc_hint: by a hash of the pid, the entry the task last found with it
 *	       went to: N threads of a load take turns, and a search of the
 *	       table per I/O cost tens of instructions
 */
struct stats {
	struct st_layer *layers;
	size_t nlayers;
	size_t layers_cap;
	struct st_e2e e2e[ST_OPS];
	struct st_proc *procs;
	size_t nprocs;
	size_t nnames;
	uint64_t first_ts;
	uint64_t last_ts;
	size_t last_layer;
	struct st_proc_hint proc_hint[ST_PROC_HINTS];
};

/** stats_alloc - empty statistics; NULL with errno set on failure */
struct stats *stats_alloc(void);

/** stats_free - NULL is accepted */
void stats_free(struct stats *st);

/** stats_reset - back to empty, keeping allocations (interval views) */
void stats_reset(struct stats *st);

/** stats_io - account one completed tree (a tk_io_fn; @ctx is the stats) */
void stats_io(const struct tk_io *io, void *ctx);

/**
 * stats_size_percentile - a percentile of a size histogram in bytes
 * I/O sizes have few significant bits (4 KiB, 12 KiB, 64 KiB, 1280 KiB),
 * and such a value is the low bound of its bucket: the percentile is the
 * bucket's low bound (within [min, max], rounded up to whole sectors), so
 * a 64 KiB median is 65536, not the bucket's midpoint 66559. Other sizes
 * are underestimated by less than one bucket (1/32).
 */
uint64_t stats_size_percentile(const struct hist *h, double pct);

/** stats_layer - the layer of @dev, or NULL */
const struct st_layer *stats_layer(const struct stats *st, uint32_t dev);

#endif /* BLKSTACK_STATS_H */
