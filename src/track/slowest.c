// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slowest.c - the N slowest top-level I/Os, as a min-heap on rank.
 *
 * The heap's root is the I/O that would leave first: the fastest kept, and
 * among equally fast ones the one queued last. A new I/O enters only when
 * it ranks above the root, so at most N trees are ever copied, and each
 * offer costs O(1) when it is not among the slowest (the common case) and
 * O(log N) plus one copy when it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "track/slowest.h"

struct slowest {
	struct slow_io *heap;
	size_t n;
	size_t cap;
	uint64_t seq;
	bool sorted;	/* @heap is in rank order, not a heap (slowest_sorted) */
};

struct slowest *slowest_alloc(size_t n)
{
	struct slowest *s;

	if (!n) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->heap = calloc(n, sizeof(*s->heap));
	if (!s->heap) {
		free(s);
		return NULL;
	}
	s->cap = n;
	return s;
}

void slowest_free(struct slowest *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++)
		free(s->heap[i].recs);
	free(s->heap);
	free(s);
}

/* Whether @a ranks above @b: slower, or as slow and queued earlier, or begun earlier. */
static bool ranks_above(const struct slow_io *a, const struct slow_io *b)
{
	if (a->lat != b->lat)
		return a->lat > b->lat;
	if (a->recs[0].q != b->recs[0].q)
		return a->recs[0].q < b->recs[0].q;
	return a->id < b->id;
}

static void swap_io(struct slow_io *a, struct slow_io *b)
{
	struct slow_io t = *a;

	*a = *b;
	*b = t;
}

/* Restore the heap below @i: the lowest rank on top. */
static void sift_down(struct slowest *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->n && ranks_above(&s->heap[m], &s->heap[l]))
			m = l;
		if (r < s->n && ranks_above(&s->heap[m], &s->heap[r]))
			m = r;
		if (m == i)
			return;
		swap_io(&s->heap[i], &s->heap[m]);
		i = m;
	}
}

static void sift_up(struct slowest *s, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;

		if (!ranks_above(&s->heap[p], &s->heap[i]))
			return;
		swap_io(&s->heap[i], &s->heap[p]);
		i = p;
	}
}

/* Copy @io into @slot, reusing its record array. */
static int fill(struct slow_io *slot, const struct tk_io *io, uint64_t lat, int32_t owner)
{
	if (slot->recs_cap < io->nrecs) {
		struct tk_rec *n = realloc(slot->recs, io->nrecs * sizeof(*n));

		if (!n)
			return -ENOMEM;
		slot->recs = n;
		slot->recs_cap = io->nrecs;
	}
	memcpy(slot->recs, io->recs, io->nrecs * sizeof(*slot->recs));
	slot->nrecs = io->nrecs;
	slot->lat = lat;
	slot->id = io->id;
	slot->pid = io->pid;
	memcpy(slot->comm, io->comm, sizeof(slot->comm));
	slot->comm[sizeof(slot->comm) - 1] = '\0';
	slot->owner = owner;
	slot->reach = io->reach;
	slot->end_dev = io->end_dev;
	slot->matched = io->matched;
	return 0;
}

/* Back to a heap after slowest_sorted(): a sorted array, reversed, is one. */
static void reheap(struct slowest *s)
{
	for (size_t i = 0, j = s->n ? s->n - 1 : 0; i < j; i++, j--)
		swap_io(&s->heap[i], &s->heap[j]);
	s->sorted = false;
}

int slowest_io(struct slowest *s, const struct tk_io *io, int32_t owner)
{
	const struct tk_rec *root = io->root;
	struct slow_io probe;
	uint64_t lat;

	if (!io->top || !io->nrecs || !root->q || root->c < root->q)
		return 0;
	lat = root->c - root->q;
	s->seq++;
	if (s->sorted)
		reheap(s);
	if (s->n < s->cap) {
		if (fill(&s->heap[s->n], io, lat, owner))
			return -ENOMEM;
		sift_up(s, s->n++);
		return 0;
	}
	/* a probe of rank only: lat, q and id are all ranks_above() reads */
	probe = (struct slow_io){ .lat = lat, .id = io->id, .recs = (struct tk_rec *)root };
	if (!ranks_above(&probe, &s->heap[0]))
		return 0;
	if (fill(&s->heap[0], io, lat, owner))
		return -ENOMEM;
	sift_down(s, 0);
	return 0;
}

static int cmp_rank(const void *a, const void *b)
{
	return ranks_above(a, b) ? -1 : ranks_above(b, a) ? 1 : 0;
}

const struct slow_io *slowest_sorted(struct slowest *s, size_t *n)
{
	if (!s->sorted) {
		qsort(s->heap, s->n, sizeof(*s->heap), cmp_rank);
		s->sorted = true;
	}
	*n = s->n;
	return s->heap;
}

uint64_t slowest_offered(const struct slowest *s)
{
	return s->seq;
}
