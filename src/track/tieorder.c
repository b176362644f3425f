// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tieorder.c - events of equal time put in the order btt reads them (see
 * tieorder.h): the events of one time are kept, then sorted by their CPU's
 * rank in blkparse's list of streams, each CPU's in the order they came.
 */
#include <errno.h>
#include <stdlib.h>

#include "base/array.h"
#include "track/tieorder.h"

struct kept {
	struct blk_event ev;
	uint32_t dev;
	uint32_t at;	/* arrival in the group: each CPU's stay in order */
	uint64_t rank;	/* its CPU's place in blkparse's list */
	bool timer;
	bool record;
};

/*
 * @last: when its last record went (a count of records), 0 before any
 * @first_ts: the time of its first record, blkparse's stream opening
 * @opened: a record of it has come (@first_ts is set)
 */
struct cpu_state {
	uint64_t last;
	uint64_t first_ts;
	bool opened;
};

struct tieorder {
	plugdev_fn fn;
	void *ctx;
	tieorder_recorded_fn recorded;
	struct kept *group;	/* the events of one time */
	size_t n, cap;
	struct cpu_state *cpu;
	size_t ncpu;
	uint64_t gone;		/* records handed on */
	unsigned int *list;	/* scratch: blkparse's opening order */
};

struct tieorder *tieorder_alloc(plugdev_fn fn, void *ctx, tieorder_recorded_fn recorded)
{
	struct tieorder *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fn = fn;
	t->ctx = ctx;
	t->recorded = recorded;
	return t;
}

void tieorder_free(struct tieorder *t)
{
	if (!t)
		return;
	free(t->group);
	free(t->cpu);
	free(t->list);
	free(t);
}

static int hand_on(struct tieorder *t, const struct kept *k)
{
	if (k->record)
		t->cpu[k->ev.cpu].last = ++t->gone;
	return t->fn(&k->ev, k->dev, k->timer, t->ctx);
}

/*
 * The place of @cpu among the streams blkparse opened with a record at or
 * before @ts, CPU by CPU: a stream goes before those of a later first time,
 * after those of an earlier one, and among those of its own time first,
 * unless the list's first is of its time: then right after that one.
 */
static uint32_t opening_rank(struct tieorder *t, unsigned int cpu, uint64_t ts)
{
	size_t len = 0;

	for (unsigned int c = 0; c < t->ncpu; c++) {
		const struct cpu_state *s = &t->cpu[c];
		size_t at;

		if (!s->opened || s->first_ts > ts)
			continue;
		if (!len || s->first_ts < t->cpu[t->list[0]].first_ts) {
			at = 0;
		} else {
			at = 1;
			while (at < len && t->cpu[t->list[at]].first_ts < s->first_ts)
				at++;
		}
		for (size_t i = len; i > at; i--)
			t->list[i] = t->list[i - 1];
		t->list[at] = c;
		len++;
	}
	for (size_t i = 0; i < len; i++)
		if (t->list[i] == cpu)
			return (uint32_t)i;
	return (uint32_t)len;
}

/*
 * A CPU's rank among those of the group: first the CPUs whose last record
 * went, the most recent first; then those with no record gone, in
 * blkparse's opening order; then those of no record at all (blkparse has
 * no stream of them, their place changes nothing btt reads).
 */
static uint64_t cpu_rank(struct tieorder *t, unsigned int cpu, uint64_t ts)
{
	const struct cpu_state *s = &t->cpu[cpu];

	if (s->last)
		return t->gone - s->last;
	if (s->opened)
		return t->gone + opening_rank(t, cpu, ts);
	return t->gone + t->ncpu + cpu;
}

static int by_rank(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* hand on the group, ties in blkparse's order */
static int flush(struct tieorder *t)
{
	size_t n = t->n;
	bool sort = false;

	t->n = 0;
	for (size_t i = 1; i < n && !sort; i++)
		sort = t->group[i].ev.cpu != t->group[0].ev.cpu;
	if (sort && !t->list) {
		t->list = malloc(t->ncpu * sizeof(*t->list));
		sort = t->list != NULL;	/* no room to rank them: as they came */
	}
	if (sort) {
		/* ranks are relative to the records gone before the group */
		for (size_t i = 0; i < n; i++)
			t->group[i].rank = cpu_rank(t, t->group[i].ev.cpu, t->group[i].ev.ts);
		qsort(t->group, n, sizeof(*t->group), by_rank);
	}
	for (size_t i = 0; i < n; i++) {
		int ret = hand_on(t, &t->group[i]);

		if (ret)
			return ret;
	}
	return 0;
}

/* room for the state of @cpu; -ENOMEM when there is none */
static int cpu_room(struct tieorder *t, unsigned int cpu)
{
	struct cpu_state *s;
	size_t n = t->ncpu;

	if (cpu < t->ncpu)
		return 0;
	while (n <= cpu)
		n = n ? n * 2 : 8;
	s = realloc(t->cpu, n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = t->ncpu; i < n; i++)
		s[i] = (struct cpu_state){ 0 };
	t->cpu = s;
	t->ncpu = n;
	/* the scratch list follows the CPU count */
	free(t->list);
	t->list = NULL;
	return 0;
}

int tieorder_event(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	struct tieorder *t = ctx;
	struct kept k = { .ev = *ev, .dev = dev, .timer = timer };
	int ret;

	if (t->n && (ev->ts != t->group[0].ev.ts || t->n == TIEORDER_MAX)) {
		ret = flush(t);
		if (ret)
			return ret;
	}
	/* no room to keep its CPU's state: on as it came, not as a record */
	if (cpu_room(t, ev->cpu))
		return t->fn(ev, dev, timer, t->ctx);
	k.record = t->recorded(ev, dev, timer);
	if (k.record && !t->cpu[ev->cpu].opened) {
		t->cpu[ev->cpu].opened = true;
		t->cpu[ev->cpu].first_ts = ev->ts;
	}
	/* no room to wait: the group on as ordered so far, this one after */
	if (ARRAY_ROOM(t->group, t->n, t->cap, 64)) {
		ret = flush(t);
		return ret ? ret : hand_on(t, &k);
	}
	k.at = (uint32_t)t->n;
	t->group[t->n++] = k;
	return 0;
}

int tieorder_finish(struct tieorder *t)
{
	return t->n ? flush(t) : 0;
}
