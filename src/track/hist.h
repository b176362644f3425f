/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist.h - log-linear histograms of fixed size, for latencies and sizes.
 *
 * A value v lands in one of 32 linear sub-buckets of its power of two, so a
 * percentile is known to within 1/32 (about 3%) of its value, whatever the
 * range, and memory does not grow with the number of values.
 */
#ifndef BLKSTACK_HIST_H
#define BLKSTACK_HIST_H

#include <stdint.h>

#define HIST_SUB_BITS	5
#define HIST_SUB	(1U << HIST_SUB_BITS)
/* values from 0 to 2^48 - 1 (78 hours in ns); larger ones go to the top */
#define HIST_MAX_BITS	48
#define HIST_BUCKETS	((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_SUB)

/**
 * struct hist - counts per bucket, and the exact count, sum, min and max
 * @min_not: the smallest value, complemented (read it with hist_min()): a
 *	     histogram zeroed, empty, holds the largest, and a value takes
 *	     its place with one compare, without a test of @count
 */
struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min_not;
	uint64_t max;
	uint32_t bucket[HIST_BUCKETS];
};

/** hist_merge - add every value of @from into @to */
void hist_merge(struct hist *to, const struct hist *from);

/**
 * hist_percentile - the value below which @pct percent of the values lie
 * @pct: 0 to 100
 * Returns the midpoint of the bucket holding that rank (the exact value
 * for small values), clamped to [min, max]; 0 when the histogram is empty.
 */
uint64_t hist_percentile(const struct hist *h, double pct);

/** hist_min - the smallest value; 0 when empty */
static inline uint64_t hist_min(const struct hist *h)
{
	return h->count ? ~h->min_not : 0;
}

/** hist_mean - the exact average; 0 when empty */
double hist_mean(const struct hist *h);

/**
 * hist_bucket_of - the bucket index of @v
 * Inline, as hist_add(): several histograms take each completed bio.
 */
static inline unsigned int hist_bucket_of(uint64_t v)
{
	unsigned int shift;

	if (v < 2 * HIST_SUB)
		return v;
	/* the top bit's index: clz ^ 63 is one instruction (bsr), 63 - clz two more */
	shift = (__builtin_clzll(v) ^ 63) - HIST_SUB_BITS;
	if (shift + HIST_SUB_BITS >= HIST_MAX_BITS)
		return HIST_BUCKETS - 1;
	/* v >> shift is HIST_SUB plus the bucket in the group: group shift + 1 */
	return (shift << HIST_SUB_BITS) + (unsigned int)(v >> shift);
}

/**
 * hist_add_in - count one value whose bucket is known
 * @b: hist_bucket_of(@v), found once for a value several histograms take
 */
static inline void hist_add_in(struct hist *h, uint64_t v, unsigned int b)
{
	if (~v > h->min_not)
		h->min_not = ~v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->bucket[b]++;
}

/** hist_add - count one value */
static inline void hist_add(struct hist *h, uint64_t v)
{
	hist_add_in(h, v, hist_bucket_of(v));
}

/** hist_bucket_low - the smallest value of bucket @b (exposed for tests) */
uint64_t hist_bucket_low(unsigned int b);

#endif /* BLKSTACK_HIST_H */
