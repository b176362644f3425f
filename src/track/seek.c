// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * seek.c - seek distances of one stream of I/O, by btt's rules.
 *
 * The distinct distances live in an open-addressed table (linear probing,
 * load at most 1/2) rather than btt's tree: adding a seek is one hash and a
 * probe or two, and the median and modes, asked once at the end, sort a
 * copy. Sequential streams have very few distinct distances (0 and the odd
 * jump); random ones have one per I/O, hence the cap.
 */
#include <stdlib.h>
#include <string.h>

#include "track/seek.h"

void seek_init(struct seek *s)
{
	memset(s, 0, sizeof(*s));
}

void seek_destroy(struct seek *s)
{
	free(s->slots);
	free(s->kept);
	seek_init(s);
}

static inline size_t slot_hash(uint64_t v, size_t cap)
{
	/* Fibonacci hashing: distances are often multiples of a power of two */
	return (size_t)((v * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* the filter's bit of @v: other bits of the product than slot_hash's */
static inline size_t kept_bit(uint64_t v)
{
	return (size_t)((v * 0x9e3779b97f4a7c15ULL) >> (64 - 16)) & (SEEK_FILTER_BITS - 1);
}

/* Place a slot known to be absent into a table with room. */
static void slot_put(struct seek_slot *tab, size_t cap, const struct seek_slot *in)
{
	size_t i = slot_hash(in->dist, cap);

	while (tab[i].count)
		i = (i + 1) & (cap - 1);
	tab[i] = *in;
}

static int table_grow(struct seek *s)
{
	size_t cap = s->cap ? s->cap * 2 : 64;
	struct seek_slot *tab;

	if (!s->kept && !(s->kept = calloc(SEEK_FILTER_BITS / 64, sizeof(*s->kept))))
		return -1;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].count)
			slot_put(tab, cap, &s->slots[i]);
	free(s->slots);
	s->slots = tab;
	s->cap = cap;
	return 0;
}

/* Count @dist in the table; past the cap (or out of memory) count it apart. */
static void table_add(struct seek *s, uint64_t dist)
{
	size_t i, bit = kept_bit(dist);

	/* full, and surely not kept: the common case of a random stream */
	if (s->used >= SEEK_MAX_DISTINCT && !(s->kept[bit / 64] >> (bit % 64) & 1)) {
		s->overflow++;
		return;
	}
	if (s->cap) {
		for (i = slot_hash(dist, s->cap); s->slots[i].count; i = (i + 1) & (s->cap - 1))
			if (s->slots[i].dist == dist) {
				s->slots[i].count++;
				return;
			}
	}
	if (s->used >= SEEK_MAX_DISTINCT) {
		s->overflow++;
		return;
	}
	if ((s->used + 1) * 2 > s->cap && table_grow(s)) {
		s->overflow++;
		return;
	}
	slot_put(s->slots, s->cap, &(struct seek_slot){ .dist = dist, .count = 1,
							.seq = (uint32_t)s->used });
	s->kept[bit / 64] |= 1ULL << (bit % 64);
	s->used++;
}

int64_t seek_add(struct seek *s, uint64_t sector, uint32_t nr_sectors)
{
	uint64_t start = sector, end = sector + nr_sectors;
	uint64_t ls = s->last_start, le = s->last_end, adist;
	int64_t dist;
	bool touch;

	/*
	 * Without branches (& and |, selections the compiler makes
	 * conditional moves): the order of random I/O is a coin toss that
	 * a predicted branch would lose half the time, twice per I/O.
	 */
	touch = ((ls <= start) & (start <= le)) | ((ls <= end) & (end <= le));
	dist = (int64_t)(start - (start > le ? le : ls));
	dist = touch ? 0 : dist;
	/* the first I/O of a stream is not "sequential", even at sector 0 */
	s->nseq += (s->nseeks != 0) & (start == le);
	s->last_start = start;
	s->last_end = end;
	s->nseeks++;
	s->nzero += !dist;
	adist = (uint64_t)llabs(dist);
	s->total += (double)adist;
	hist_add(&s->abs, adist);
	table_add(s, adist);
	return dist;
}

double seek_mean(const struct seek *s)
{
	return s->nseeks ? s->total / (double)s->nseeks : 0.0;
}

double seek_seq_share(const struct seek *s)
{
	return s->nseeks ? (double)s->nseq / (double)s->nseeks : 0.0;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct seek_slot *x = a, *y = b;

	return x->dist < y->dist ? -1 : x->dist > y->dist;
}

/* The used slots sorted by distance, or NULL (empty, or out of memory). */
static struct seek_slot *sorted_slots(const struct seek *s)
{
	struct seek_slot *v;
	size_t n = 0;

	if (!s->used)
		return NULL;
	v = malloc(s->used * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].count)
			v[n++] = s->slots[i];
	qsort(v, n, sizeof(*v), slot_cmp);
	return v;
}

uint64_t seek_median(const struct seek *s)
{
	uint64_t rank = (s->nseeks + 1) / 2, sofar = 0, med = 0;
	struct seek_slot *v;

	if (!s->nseeks)
		return 0;
	if (s->overflow)
		return hist_percentile(&s->abs, 50.0);
	v = sorted_slots(s);
	if (!v)
		return hist_percentile(&s->abs, 50.0);
	for (size_t i = 0; i < s->used; i++) {
		sofar += v[i].count;
		if (sofar >= rank) {
			med = v[i].dist;
			break;
		}
	}
	free(v);
	return med;
}

uint64_t seek_btt_median(const struct seek *s)
{
	const struct seek_slot *best = NULL;
	uint64_t target = s->nseeks / 2;

	for (size_t i = 0; i < s->cap; i++) {
		const struct seek_slot *p = &s->slots[i];

		if (p->count && p->count >= target && (!best || p->seq < best->seq))
			best = p;
	}
	return best ? best->dist : 0;
}

size_t seek_modes(const struct seek *s, uint64_t *modes, size_t max, uint32_t *most)
{
	uint32_t top = 0;
	size_t n = 0, kept = 0;

	*most = 0;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i].count > top)
			top = s->slots[i].count;
	if (!top)
		return 0;
	/*
	 * The smallest @max of the distances with the top count: kept sorted
	 * in @modes as they are found (a random stream has thousands of modes,
	 * each seen once; the caller wants a few)
	 */
	for (size_t i = 0; i < s->cap; i++) {
		uint64_t v = s->slots[i].dist;
		size_t j;

		if (s->slots[i].count != top)
			continue;
		n++;
		if (!modes || !max || (kept == max && v >= modes[max - 1]))
			continue;
		if (kept < max)
			kept++;
		for (j = kept - 1; j > 0 && modes[j - 1] > v; j--)
			modes[j] = modes[j - 1];
		modes[j] = v;
	}
	*most = top;
	return n;
}
