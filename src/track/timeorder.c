// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timeorder.c - plugdev's stream put back in time order (see timeorder.h):
 * a binary heap by time, then by arrival.
 */
#include <stdlib.h>

#include "track/timeorder.h"

struct kept {
	struct blk_event ev;
	uint64_t seq;
	uint32_t dev;
	bool timer;
};

struct timeorder {
	plugdev_fn fn;
	void *ctx;
	const struct plugdev *src;	/* whose held unplugs bound the release */
	struct kept *heap;
	size_t n, cap;
	uint64_t seq;
};

struct timeorder *timeorder_alloc(plugdev_fn fn, void *ctx)
{
	struct timeorder *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fn = fn;
	t->ctx = ctx;
	return t;
}

void timeorder_free(struct timeorder *t)
{
	if (!t)
		return;
	free(t->heap);
	free(t);
}

static inline bool before(const struct kept *a, const struct kept *b)
{
	return a->ev.ts != b->ev.ts ? a->ev.ts < b->ev.ts : a->seq < b->seq;
}

/* hand on the oldest kept event */
static int pop(struct timeorder *t)
{
	struct kept top = t->heap[0];
	size_t i = 0;

	t->heap[0] = t->heap[--t->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct kept tmp;

		if (l < t->n && before(&t->heap[l], &t->heap[m]))
			m = l;
		if (l + 1 < t->n && before(&t->heap[l + 1], &t->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		tmp = t->heap[i];
		t->heap[i] = t->heap[m];
		t->heap[m] = tmp;
		i = m;
	}
	return t->fn(&top.ev, top.dev, top.timer, t->ctx);
}

void timeorder_watch(struct timeorder *t, const struct plugdev *src)
{
	t->src = src;
}

int timeorder_event(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	struct timeorder *t = ctx;
	size_t i;

	/*
	 * Nothing kept and no unplug waiting from before it: the release
	 * that follows would hand it on at once, so hand it on now.
	 */
	if (!t->n && t->src && ev->ts < plugdev_held_from(t->src))
		return t->fn(ev, dev, timer, t->ctx);

	if (t->n == TIMEORDER_MAX) {
		int ret = pop(t);

		if (ret)
			return ret;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct kept *h = realloc(t->heap, cap * sizeof(*h));

		/* no room to wait: on as it came */
		if (!h)
			return t->fn(ev, dev, timer, t->ctx);
		t->heap = h;
		t->cap = cap;
	}
	i = t->n++;
	t->heap[i] = (struct kept){ .ev = *ev, .seq = t->seq++, .dev = dev, .timer = timer };
	while (i && before(&t->heap[i], &t->heap[(i - 1) / 2])) {
		struct kept tmp = t->heap[i];

		t->heap[i] = t->heap[(i - 1) / 2];
		t->heap[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
	return 0;
}

int timeorder_release(struct timeorder *t, uint64_t bound)
{
	while (t->n && (t->heap[0].ev.ts < bound || bound == UINT64_MAX)) {
		int ret = pop(t);

		if (ret)
			return ret;
	}
	return 0;
}
