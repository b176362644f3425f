/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flaglat.h - latency per layer split by the rwbs flags that matter
 * (sync, meta, FUA, preflush, readahead) and the operation, as bcc's
 * biolatency -F splits it per disk: one histogram per combination seen.
 */
#ifndef BLKSTACK_FLAGLAT_H
#define BLKSTACK_FLAGLAT_H

#include <stddef.h>
#include <stdint.h>

#include "track/hist.h"
#include "track/stats.h"
#include "track/tracker.h"

/* The flags kept: the others (zone) do not tell a latency class apart. */
#define FLAGLAT_MASK (BLK_F_PREFLUSH | BLK_F_FUA | BLK_F_RAHEAD | BLK_F_SYNC | BLK_F_META)

/**
 * struct flaglat_row - one layer, operation and flag combination
 * @dev: the layer
 * @op: enum st_op (discard is an operation, not a flag)
 * @flags: enum blk_flag bits, within FLAGLAT_MASK
 * @total: C - Q at that layer, ns
 * @device: at a leaf (a record with no lower piece), its time in the
 *	    device: D to C at a request-based layer, Q to C at a bio-based one
 */
struct flaglat_row {
	uint32_t dev;
	uint8_t op;
	uint16_t flags;
	struct hist total;
	struct hist device;
};

/* Combinations kept at most; past it, the rest are not counted (and said). */
#define FLAGLAT_MAX_ROWS 256

/**
 * struct flaglat - every combination seen
 * @rows: @n of them, in order of first appearance
 * @over: records not counted because FLAGLAT_MAX_ROWS was reached
 */
struct flaglat {
	struct flaglat_row *rows;
	size_t n;
	size_t cap;
	uint64_t over;
};

/** flaglat_free - release the rows (the struct itself is the caller's); NULL is accepted */
void flaglat_free(struct flaglat *f);

/**
 * flaglat_io - account every record of a completed tree
 * Returns 0, or -ENOMEM (the tree is then partly counted).
 */
int flaglat_io(struct flaglat *f, const struct tk_io *io);

/**
 * flaglat_name - "sync", "sync,meta,fua", "none" for no flag: the
 * combination as words in @buf
 * Returns @buf.
 */
const char *flaglat_name(uint16_t flags, char *buf, size_t len);

/**
 * flaglat_sort - order the rows by layer (as @st lists them), operation,
 * then flag bits, for output
 */
void flaglat_sort(struct flaglat *f, const struct stats *st);

#endif /* BLKSTACK_FLAGLAT_H */
