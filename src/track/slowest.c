// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * slowest.c - the N slowest top-level I/Os, as a min-heap on rank.
 *
 * The heap's root is the I/O that would leave first: the fastest kept, and
 * among equally fast ones the one queued last. A new I/O enters only when
 * it ranks above the root, so at most N trees are ever copied, and each
 * offer costs O(1) when it is not among the slowest (the common case) and
 * O(log N) plus one copy when it is.
 *
 * I/O a layer issued on behalf of another mostly completes first (the
 * read-modify-write reads before the write): it waits, copied, in a table
 * by the number of the I/O it served until that one completes, then goes
 * with it when it is kept, and is freed when it is not. One issued on
 * behalf of such an I/O waits, when that one completes, for the I/O that
 * one served. What waits is bounded: by SLOWEST_MAX_PENDING, and by age
 * (a cause that never completed expired in the tracker). One that completes
 * after the I/O it served, itself issued on behalf of another (the
 * post-flush of md's superblock write, which ends with + 0 after it), goes
 * on to that one: a completed such I/O leaves its number and its cause
 * behind, for a while (FORWARDS of them, the latest ones).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "track/slowest.h"

#define PENDING_BUCKETS 4096
/* a caused I/O whose cause has not completed this long after it is let go */
#define PENDING_MAX_AGE_NS (2 * TK_DEFAULT_TIMEOUT_NS)

/* Completed I/Os issued on behalf of another, by number modulo FORWARDS. */
#define FORWARDS 4096
/* a chain of causes followed this far at most */
#define FORWARD_HOPS 16

struct forward {
	uint64_t id;
	uint64_t cause;
};

/* A caused I/O waiting for the I/O it served (@key) to complete. */
struct pending {
	struct slow_caused c;
	uint64_t key;
	uint64_t done;			/* its completion */
	struct pending *next;		/* in its bucket */
	struct pending *older, *newer;	/* in order of arrival */
};

struct slowest {
	struct slow_io *heap;
	size_t n;
	size_t cap;
	uint64_t seq;
	bool sorted;	/* @heap is in rank order, not a heap (slowest_sorted) */
	struct pending *bucket[PENDING_BUCKETS];
	struct pending *oldest, *newest;
	size_t npending;
	uint64_t dropped;
	/* kept I/Os by number modulo PENDING_BUCKETS: most lookups need no scan */
	uint32_t kept_ids[PENDING_BUCKETS];
	struct forward fwd[FORWARDS];
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

static void caused_free(struct slow_caused *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].recs);
	free(c);
}

static void pending_free(struct pending *p)
{
	free(p->c.recs);
	free(p);
}

void slowest_free(struct slowest *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->cap; i++) {
		free(s->heap[i].recs);
		caused_free(s->heap[i].caused, s->heap[i].ncaused);
	}
	while (s->oldest) {
		struct pending *p = s->oldest;

		s->oldest = p->newer;
		pending_free(p);
	}
	free(s->heap);
	free(s);
}

/* ---- caused I/O waiting for its cause --------------------------------- */

/* Unlink @p from its bucket and from the order of arrival. */
static void pending_unlink(struct slowest *s, struct pending *p)
{
	struct pending **pp = &s->bucket[p->key % PENDING_BUCKETS];

	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	if (p->older)
		p->older->newer = p->newer;
	else
		s->oldest = p->newer;
	if (p->newer)
		p->newer->older = p->older;
	else
		s->newest = p->older;
	s->npending--;
}

/* Wait for @key; past the bound, the oldest waiting is let go. */
static void pending_add(struct slowest *s, struct pending *p, uint64_t key)
{
	struct pending **b = &s->bucket[key % PENDING_BUCKETS];

	if (s->npending >= SLOWEST_MAX_PENDING) {
		struct pending *old = s->oldest;

		pending_unlink(s, old);
		pending_free(old);
		s->dropped++;
	}
	p->key = key;
	p->next = *b;
	*b = p;
	p->newer = NULL;
	p->older = s->newest;
	if (s->newest)
		s->newest->newer = p;
	else
		s->oldest = p;
	s->newest = p;
	s->npending++;
}

static struct pending *reversed(struct pending *list)
{
	struct pending *rev = NULL;

	while (list) {
		struct pending *next = list->next;

		list->next = rev;
		rev = list;
		list = next;
	}
	return rev;
}

/* Those waiting for @key, out of the table, chained by ->next, oldest first. */
static struct pending *pending_take(struct slowest *s, uint64_t key)
{
	struct pending *head = NULL, **tail = &head, *p = s->bucket[key % PENDING_BUCKETS];

	if (!p)
		return NULL;
	while (p) {
		struct pending *next = p->next;

		if (p->key == key) {
			pending_unlink(s, p);
			p->next = NULL;
			*tail = p;
			tail = &p->next;
		}
		p = next;
	}
	/* a bucket is newest first: the oldest first */
	return reversed(head);
}

/* Let go of what waited longer than any cause stays in flight (@now: a completion). */
static void pending_age(struct slowest *s, uint64_t now)
{
	while (s->oldest && s->oldest->done + PENDING_MAX_AGE_NS < now) {
		struct pending *p = s->oldest;

		pending_unlink(s, p);
		pending_free(p);
	}
}

/* A copy of @io, caused on behalf of another, as a pending entry; NULL on ENOMEM. */
static struct pending *pending_of(const struct tk_io *io)
{
	struct pending *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->c.recs = malloc(io->nrecs * sizeof(*p->c.recs));
	if (!p->c.recs) {
		free(p);
		return NULL;
	}
	memcpy(p->c.recs, io->recs, io->nrecs * sizeof(*p->c.recs));
	p->c.nrecs = io->nrecs;
	p->c.id = io->id;
	p->c.cause = io->cause;
	p->c.cls = io->cls;
	p->c.issuer = io->issuer;
	p->done = io->root->c;
	return p;
}

/* Give the chain @list to @slot (the entries are freed, their records moved). */
static int attach(struct slow_io *slot, struct pending *list)
{
	int ret = 0;

	while (list) {
		struct pending *next = list->next;
		struct slow_caused *c = realloc(slot->caused, (slot->ncaused + 1) * sizeof(*c));

		if (c) {
			slot->caused = c;
			c[slot->ncaused++] = list->c;
			list->c.recs = NULL;
		} else {
			ret = -ENOMEM;
		}
		pending_free(list);
		list = next;
	}
	return ret;
}

static void free_list(struct pending *list)
{
	while (list) {
		struct pending *next = list->next;

		pending_free(list);
		list = next;
	}
}

/* The kept I/O numbered @id, or NULL. */
static struct slow_io *kept(struct slowest *s, uint64_t id)
{
	if (!s->kept_ids[id % PENDING_BUCKETS])
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (s->heap[i].id == id)
			return &s->heap[i];
	return NULL;
}

/*
 * The I/O a chain of causes from @id leads to that has not completed yet,
 * or is top-level: @id, unless it completed on behalf of another.
 */
static uint64_t cause_of(const struct slowest *s, uint64_t id)
{
	for (int hops = 0; hops < FORWARD_HOPS; hops++) {
		const struct forward *f = &s->fwd[id % FORWARDS];

		if (f->id != id || !f->cause)
			break;
		id = f->cause;
	}
	return id;
}

/*
 * A tree that is not top-level completed: with what waited for it, it goes
 * to the I/O it served, kept or still to come (through that one's cause
 * when it completed already); with no cause, all is let go.
 */
static int caused_io(struct slowest *s, const struct tk_io *io, struct pending *mine)
{
	struct slow_io *slot;
	struct pending *p;
	uint64_t to;

	if (!io->cause) {
		free_list(mine);
		return 0;
	}
	to = cause_of(s, io->cause);
	s->fwd[io->id % FORWARDS] = (struct forward){ .id = io->id, .cause = to };
	p = pending_of(io);
	if (!p) {
		free_list(mine);
		return -ENOMEM;
	}
	/* in order of completion: what it waited for, then itself */
	p->next = NULL;
	if (mine) {
		struct pending *last = mine;

		while (last->next)
			last = last->next;
		last->next = p;
		p = mine;
	}
	slot = kept(s, to);
	if (slot)
		return attach(slot, p);
	while (p) {
		struct pending *next = p->next;

		pending_add(s, p, to);
		p = next;
	}
	return 0;
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

/* Copy @io into @slot, reusing its record array; what the slot held before is let go. */
static int fill(struct slowest *s, struct slow_io *slot, const struct tk_io *io, uint64_t lat,
		int32_t owner)
{
	if (slot->recs_cap < io->nrecs) {
		struct tk_rec *n = realloc(slot->recs, io->nrecs * sizeof(*n));

		if (!n)
			return -ENOMEM;
		slot->recs = n;
		slot->recs_cap = io->nrecs;
	}
	/* a slot held an I/O when it has records (nrecs is 1 at least) */
	if (slot->nrecs)
		s->kept_ids[slot->id % PENDING_BUCKETS]--;
	s->kept_ids[io->id % PENDING_BUCKETS]++;
	caused_free(slot->caused, slot->ncaused);
	slot->caused = NULL;
	slot->ncaused = 0;
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
	uint64_t q = root ? tk_rec_q(root) : 0;
	struct pending *mine;
	struct slow_io probe;
	uint64_t lat;
	int ret;

	if (!io->nrecs)
		return 0;
	pending_age(s, root->c);
	/* what was issued on its behalf and completed before it */
	mine = s->npending ? pending_take(s, io->id) : NULL;
	if (!io->top)
		return caused_io(s, io, mine);
	if (!q || root->c < q) {
		free_list(mine);
		return 0;
	}
	lat = root->c - q;
	s->seq++;
	if (s->sorted)
		reheap(s);
	if (s->n < s->cap) {
		if (fill(s, &s->heap[s->n], io, lat, owner)) {
			free_list(mine);
			return -ENOMEM;
		}
		ret = attach(&s->heap[s->n], mine);
		sift_up(s, s->n++);
		return ret;
	}
	/* a probe of rank only: lat, q and id are all ranks_above() reads */
	probe = (struct slow_io){ .lat = lat, .id = io->id, .recs = (struct tk_rec *)root };
	if (!ranks_above(&probe, &s->heap[0])) {
		free_list(mine);
		return 0;
	}
	if (fill(s, &s->heap[0], io, lat, owner)) {
		free_list(mine);
		return -ENOMEM;
	}
	ret = attach(&s->heap[0], mine);
	sift_down(s, 0);
	return ret;
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

uint64_t slowest_caused_dropped(const struct slowest *s)
{
	return s->dropped;
}
