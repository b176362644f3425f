/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * row.h - one completed I/O as a row of an export: the I/O as its
 * originator issued it, and its passage through each layer (device) of the
 * stack, built from the tracker's tree of bios.
 *
 * A layer here is a device: an I/O split into pieces, or striped over legs,
 * has several bios at a layer (or several layers at a depth); the row gives
 * each device once, from the first of its bios entering it to the last one
 * completing there. Times are nanoseconds of the recording's trace clock;
 * 0 means "not seen".
 */
#ifndef BLKSTACK_ROW_H
#define BLKSTACK_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "track/tracker.h"

/**
 * struct row_layer - one device's part in an I/O
 * @dev: the device
 * @parent_dev: the device above it (0 at the top)
 * @depth: layers above it (0 at the top)
 * @kind: enum tk_layer_kind of its first bio
 * @bios: bios of the I/O at this device
 * @bytes: their bytes
 * @q: the first entered the device (queue, or remap into it)
 * @down: the first left it downward (remap out, or issue to the hardware)
 * @up: the last of their lower pieces completed (the hardware completed,
 *	at a request-based device)
 * @c: the last completed at this device
 * @splits, @merges, @requeues: counts over its bios (merges: bios that
 *	joined a request already there)
 * @requeue_ns: time its requests spent requeued (struct tk_rec)
 * @end: where a path ended at this device, the worst of its bios' (enum
 *	 tk_end; TK_END_NONE when every bio went further down)
 * @no_q: every bio of it was a request the layer made itself (struct
 *	  tk_rec): @q is an issue, there is no submission
 * @error: the first error a bio completed with (negative errno), 0 if none
 */
struct row_layer {
	uint32_t dev;
	uint32_t parent_dev;
	uint8_t depth;
	uint8_t kind;
	uint32_t bios;
	uint64_t bytes;
	uint64_t q, down, up, c;
	uint32_t splits, merges, requeues;
	uint64_t requeue_ns;
	uint8_t end;
	bool no_q;
	int32_t error;
};

/**
 * struct row - one completed I/O
 * @io: its number, from 1, in the order I/Os began (struct tk_io's id: a
 *	caused I/O's @cause is the @io of the row it served)
 * @top: issued by a process to a top device; false for I/O a layer issued
 *	 itself (thin-pool zeroing, metadata, discards passed down)
 * @cls: enum tk_class
 * @cause: the @io of the I/O it was issued for, 0 if none is known
 * @cause_dev, @cause_q: and that I/O's @dev and @q, which name it when its
 *			  row is not there (it expired)
 * @issuer: the layer that issued it, 0 for top-level I/O
 * @reach: enum tk_reach: how far it was followed
 * @end_dev: where it ended, when @reach is not TK_REACH_DISK
 * @matched: every bio was followed from entry to completion, and its data
 *	     reached a disk (@reach is TK_REACH_DISK)
 * @op: enum blk_op
 * @dev: the device it was issued to
 * @sector: its first sector there
 * @bytes: its size
 * @pid, @comm: the task that issued it (the originator, whoever submitted
 *		the lower bios)
 * @q, @c: issued and completed; @c - @q is its latency
 * @error: completion error of the I/O (negative errno), 0 for success
 * @file: what it was for, by the page-cache attribution: a file's path (or
 *	  "MAJ:MIN:ino"), or "journal", "metadata", "swap", "raw",
 *	  "unattributed"; NULL without page-cache events. Set by the writer.
 * @layers: every device it crossed, by depth then by time of entry
 * @nlayers: how many
 */
struct row {
	uint64_t io;
	bool top;
	uint8_t cls;
	uint64_t cause;
	uint32_t cause_dev;
	uint64_t cause_q;
	uint32_t issuer;
	uint8_t reach;
	uint32_t end_dev;
	bool matched;
	uint8_t op;
	uint32_t dev;
	uint64_t sector;
	uint64_t bytes;
	int32_t pid;
	char comm[16];
	uint64_t q, c;
	int32_t error;
	const char *file;
	struct row_layer *layers;
	size_t nlayers;
	size_t layers_cap;
};

/**
 * row_build - fill @r from a completed tree
 * @r: a zeroed row the first time; its layers array is reused
 * @io: the tree, as the tracker hands it out
 * Returns 0 or -ENOMEM.
 */
int row_build(struct row *r, const struct tk_io *io);

/** row_release - free the layers array of @r */
void row_release(struct row *r);

/** row_span - @b - @a when both were seen and in order, else -1 */
static inline int64_t row_span(uint64_t a, uint64_t b)
{
	return a && b && b >= a ? (int64_t)(b - a) : -1;
}

/** row_sub - a layer's submission, down - Q; -1 when not seen or it had no Q */
static inline int64_t row_sub(const struct row_layer *l)
{
	return l->no_q ? -1 : row_span(l->q, l->down);
}

/** row_op_name - "read", "write", "discard", "secure-erase", "flush", "other" */
const char *row_op_name(uint8_t op);

/** row_kind_name - "bio", "request", "remap" for an enum tk_layer_kind */
const char *row_kind_name(uint8_t kind);

/**
 * row_class_name - "top", "caused", "own", "unexplained" for an enum
 * tk_class: the words of every output
 */
const char *row_class_name(uint8_t cls);

/** row_reach_name - "disk", "self", "ended", "partial" for an enum tk_reach */
const char *row_reach_name(uint8_t reach);

/** row_end_name - "disk", "self", "ended", "lost" for an enum tk_end; NULL for TK_END_NONE */
const char *row_end_name(uint8_t end);

#endif /* BLKSTACK_ROW_H */
