/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * seek.h - seek distances of one stream of I/O (one device, or one device
 * and direction), as btt measures them: the distance from each I/O to the
 * one before it in the same stream, in sectors.
 *
 * btt keeps two streams per device, Q2Q (every queued bio) and D2D (every
 * request issued), reads and writes together; the caller decides what a
 * stream is, so the same code gives btt's tables and the per-direction
 * access pattern (the share of sequential I/O) of the time report.
 *
 * The distance rule is btt's (seek.c, not in absolute mode): an I/O that
 * overlaps the previous one, or starts where it ended, has distance 0;
 * one that starts past the previous end, start - previous end; one that
 * starts before, start - previous start (negative). The first I/O of a
 * stream is measured from sector 0, as btt does.
 *
 * btt keeps every distinct distance in a tree, so that its median and mode
 * are exact. Here distinct distances are kept exactly up to SEEK_MAX_DISTINCT
 * per stream (memory stays bounded whatever the trace); past that, a new
 * distance is counted only in the histogram and the median and mode are
 * said to be approximate (seek_exact()).
 */
#ifndef BLKSTACK_SEEK_H
#define BLKSTACK_SEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "track/hist.h"

/*
 * distinct distances kept exactly per stream: a table of 8192 slots of 16
 * bytes, 128 KiB, that stays in cache (at 65536 a random stream spent a
 * quarter of report --btt's time in cache misses on it)
 */
#define SEEK_MAX_DISTINCT	(1U << 12)

/*
 * bits of the filter of distances kept (8 KiB, in L1 where the table is
 * not): with SEEK_MAX_DISTINCT kept, one new distance in 16 finds its bit
 * set and probes the table
 */
#define SEEK_FILTER_BITS	(1U << 16)

/* one distinct absolute distance, @count times, first seen as the @seq'th */
struct seek_slot {
	uint64_t dist;
	uint32_t count;
	uint32_t seq;
};

/**
 * struct seek - one stream
 * @nseeks: I/Os measured (btt's NSEEKS)
 * @nzero: of those, at distance 0 (overlapping or contiguous: btt's rule)
 * @nseq: of those, starting exactly where the previous one ended
 * @total: sum of absolute distances in sectors (btt's MEAN is @total / @nseeks)
 * @last_start, @last_end: the previous I/O, in sectors (end exclusive)
 * @abs: absolute distances, for percentiles past the exact table
 * @slots: open-addressed table of distinct distances, @cap slots, @used used
 * @overflow: distances not kept in @slots (the table was full)
 * @kept: a bit per hash of the distances in @slots (SEEK_FILTER_BITS): once
 *	the table is full, a distance whose bit is clear is counted in
 *	@overflow without a probe of the table
 */
struct seek {
	uint64_t nseeks;
	uint64_t nzero;
	uint64_t nseq;
	double total;
	uint64_t last_start;
	uint64_t last_end;
	struct hist abs;
	struct seek_slot *slots;
	size_t cap;
	size_t used;
	uint64_t overflow;
	uint64_t *kept;
};

/** seek_init - an empty stream (no allocation until the first I/O) */
void seek_init(struct seek *s);

/** seek_destroy - release the table; the stream is empty afterwards */
void seek_destroy(struct seek *s);

/**
 * seek_add - measure one I/O of the stream
 * @s: the stream
 * @sector: its first sector
 * @nr_sectors: its size in sectors
 *
 * Returns the signed distance from the previous I/O, in sectors, by btt's
 * rule (the value btt writes in its -s seek files).
 */
int64_t seek_add(struct seek *s, uint64_t sector, uint32_t nr_sectors);

/** seek_mean - btt's MEAN: the average absolute distance; 0 when empty */
double seek_mean(const struct seek *s);

/** seek_seq_share - the share (0 to 1) of I/Os that started where the
 * previous one ended; 0 when empty */
double seek_seq_share(const struct seek *s);

/**
 * seek_median - the median absolute distance (the value at rank
 * ceil(n / 2) in increasing order); 0 when empty. Exact while seek_exact().
 */
uint64_t seek_median(const struct seek *s);

/**
 * seek_btt_median - what btt prints as MEDIAN
 *
 * btt's walk of its tree never adds up the counts it passes, so it finds
 * not the median but a distance that alone holds at least nseeks / 2
 * (integer division) of the seeks, and 0 when no distance does. Where two
 * distances qualify, btt takes the one higher in its red-black tree; this
 * takes the one seen first, which is the same whenever the stream has at
 * most two distinct distances.
 *
 * Returns that distance, or 0.
 */
uint64_t seek_btt_median(const struct seek *s);

/**
 * seek_modes - the most frequent absolute distances (btt's MODE)
 * @s: the stream
 * @modes: where to store the smallest @max of them, in increasing order;
 *	   may be NULL
 * @max: room at @modes
 * @most: where to store how many seeks each has (btt's number in brackets)
 *
 * Returns how many distances share the highest count (possibly more than
 * @max), 0 when empty.
 */
size_t seek_modes(const struct seek *s, uint64_t *modes, size_t max, uint32_t *most);

/** seek_exact - whether every distance was kept (median and modes exact) */
static inline bool seek_exact(const struct seek *s)
{
	return !s->overflow;
}

#endif /* BLKSTACK_SEEK_H */
