// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hist.c - log-linear histograms of fixed size.
 *
 * Values below 2 * HIST_SUB are their own bucket; above, the leading
 * HIST_SUB_BITS + 1 bits select the bucket: the exponent picks a group of
 * HIST_SUB buckets, the next HIST_SUB_BITS bits the bucket within it.
 */
#include <string.h>

#include "track/hist.h"

uint64_t hist_bucket_low(unsigned int b)
{
	unsigned int shift;

	if (b < 2 * HIST_SUB)
		return b;
	shift = b / HIST_SUB - 1;
	return ((uint64_t)HIST_SUB + (b % HIST_SUB)) << shift;
}

void hist_merge(struct hist *to, const struct hist *from)
{
	if (!from->count)
		return;
	if (from->min_not > to->min_not)
		to->min_not = from->min_not;
	if (from->max > to->max)
		to->max = from->max;
	to->count += from->count;
	to->sum += from->sum;
	for (unsigned int i = 0; i < HIST_BUCKETS; i++)
		to->bucket[i] += from->bucket[i];
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (pct <= 0)
		return hist_min(h);
	if (pct >= 100)
		return h->max;
	/* the smallest value with at least pct% of the values at or below it */
	rank = (uint64_t)(pct / 100.0 * h->count + 0.999999999);
	if (rank < 1)
		rank = 1;
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t lo = hist_bucket_low(b);
			uint64_t hi = b + 1 < HIST_BUCKETS ? hist_bucket_low(b + 1) - 1 : h->max;
			uint64_t mid = lo + (hi - lo) / 2;

			if (mid < hist_min(h))
				mid = hist_min(h);
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / h->count : 0;
}
