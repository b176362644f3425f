// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * access.c - access pattern and in-flight I/Os per layer, in entry order.
 *
 * A record becomes two events: its entry into the layer (Q) and its exit
 * (C). They wait in a binary min-heap on (time, exits first, arrival), so
 * that an I/O leaving at the very time another enters is not counted in
 * flight by the newcomer; the caller releases them up to the horizon.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "track/access.h"

enum { EV_EXIT = 0, EV_ENTER = 1 };

struct access_ev {
	uint64_t ts;
	uint64_t seq;
	uint64_t sector;
	uint32_t sectors;
	uint16_t layer;
	uint8_t kind;
	uint8_t dir;	/* enum access_dir, or ACCESS_DIRS for neither */
};

void access_init(struct access *a)
{
	memset(a, 0, sizeof(*a));
}

void access_destroy(struct access *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nlayers; i++) {
		for (int d = 0; d < ACCESS_DIRS; d++)
			seek_destroy(&a->layers[i]->seek[d]);
		free(a->layers[i]);
	}
	free(a->layers);
	free(a->heap);
	memset(a, 0, sizeof(*a));
}

const struct access_layer *access_layer_of(const struct access *a, uint32_t dev)
{
	for (size_t i = 0; i < a->nlayers; i++)
		if (a->layers[i]->dev == dev)
			return a->layers[i];
	return NULL;
}

/* The index of @dev's layer, made if new; -1 without memory (or past 65535 layers). */
static int layer_index(struct access *a, uint32_t dev)
{
	struct access_layer *l;

	for (size_t i = 0; i < a->nlayers; i++)
		if (a->layers[i]->dev == dev)
			return (int)i;
	if (a->nlayers > UINT16_MAX)
		return -1;
	if (ARRAY_ROOM(a->layers, a->nlayers, a->cap, 8) < 0)
		return -1;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -1;
	l->dev = dev;
	for (int d = 0; d < ACCESS_DIRS; d++)
		seek_init(&l->seek[d]);
	inflight_init(&l->inflight);
	a->layers[a->nlayers++] = l;
	return (int)a->nlayers - 1;
}

static bool before(const struct access_ev *x, const struct access_ev *y)
{
	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->kind != y->kind)
		return x->kind < y->kind;
	return x->seq < y->seq;
}

static void heap_swap(struct access_ev *x, struct access_ev *y)
{
	struct access_ev t = *x;

	*x = *y;
	*y = t;
}

/* Take one event: the layer's counters and streams move on. */
static void take(struct access *a, const struct access_ev *e)
{
	struct access_layer *l = a->layers[e->layer];

	if (e->ts < a->done_ts)
		a->late++;
	else
		a->done_ts = e->ts;
	if (!a->first_ts || e->ts < a->first_ts)
		a->first_ts = e->ts;
	if (e->ts > a->last_ts)
		a->last_ts = e->ts;
	if (e->kind == EV_EXIT) {
		inflight_dec(&l->inflight, e->ts);
		return;
	}
	inflight_arrive(&l->inflight, e->ts);
	if (e->dir < ACCESS_DIRS) {
		struct seek *s = &l->seek[e->dir];
		bool first = !s->nseeks;
		int64_t d = seek_add(s, e->sector, e->sectors);

		if (!first)
			hist_add(&l->dist[e->dir], (uint64_t)(d < 0 ? -d : d));
	}
}

/* Remove the heap's top into @out. */
static void pop(struct access *a, struct access_ev *out)
{
	size_t i = 0;

	*out = a->heap[0];
	a->heap[0] = a->heap[--a->npending];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < a->npending && before(&a->heap[l], &a->heap[m]))
			m = l;
		if (r < a->npending && before(&a->heap[r], &a->heap[m]))
			m = r;
		if (m == i)
			break;
		heap_swap(&a->heap[i], &a->heap[m]);
		i = m;
	}
}

static int push(struct access *a, const struct access_ev *e)
{
	size_t i;

	if (a->npending == ACCESS_MAX_PENDING) {
		struct access_ev old;

		/* full: the oldest goes now, before the horizon says it may */
		pop(a, &old);
		take(a, &old);
		a->forced++;
	}
	if (ARRAY_ROOM(a->heap, a->npending, a->heap_cap, 1024) < 0)
		return -ENOMEM;
	i = a->npending++;
	a->heap[i] = *e;
	a->heap[i].seq = ++a->seq;
	while (i && before(&a->heap[i], &a->heap[(i - 1) / 2])) {
		heap_swap(&a->heap[i], &a->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return 0;
}

int access_io(struct access *a, const struct tk_io *io)
{
	for (size_t i = 0; i < io->nrecs; i++) {
		const struct tk_rec *r = &io->recs[i];
		uint64_t q = tk_rec_q(r);
		struct access_ev e;
		int idx;

		/* an interval needs both ends, in order; from the layer's Q, as its total */
		if (!q || r->c < q)
			continue;
		idx = layer_index(a, r->dev);
		if (idx < 0)
			return -ENOMEM;
		e = (struct access_ev){
			.ts = q, .sector = r->sector, .sectors = r->sectors,
			.layer = (uint16_t)idx, .kind = EV_ENTER,
			/* an empty preflush write is a flush: it has no position */
			.dir = tk_rec_is_flush(r) ? ACCESS_DIRS :
			       r->op == BLK_OP_READ ? ACCESS_READ :
			       r->op == BLK_OP_WRITE ? ACCESS_WRITE : ACCESS_DIRS,
		};
		if (push(a, &e))
			return -ENOMEM;
		e.ts = r->c;
		e.kind = EV_EXIT;
		if (push(a, &e))
			return -ENOMEM;
	}
	return 0;
}

void access_release(struct access *a, uint64_t horizon)
{
	while (a->npending && a->heap[0].ts < horizon) {
		struct access_ev e;

		pop(a, &e);
		take(a, &e);
	}
}

void access_finish(struct access *a)
{
	access_release(a, UINT64_MAX);
}

void access_mark(struct access *a)
{
	for (size_t i = 0; i < a->nlayers; i++)
		for (int d = 0; d < ACCESS_DIRS; d++) {
			a->layers[i]->mark_seeks[d] = a->layers[i]->seek[d].nseeks;
			a->layers[i]->mark_seq[d] = a->layers[i]->seek[d].nseq;
		}
}

double access_seq_since_mark(const struct access_layer *l, enum access_dir dir, uint64_t *n)
{
	*n = l->seek[dir].nseeks - l->mark_seeks[dir];
	return *n ? (double)(l->seek[dir].nseq - l->mark_seq[dir]) / (double)*n : 0.0;
}

double access_entropy(const struct hist *dist)
{
	double h = 0;

	if (!dist->count)
		return 0;
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		double p;

		if (!dist->bucket[b])
			continue;
		p = (double)dist->bucket[b] / (double)dist->count;
		h -= p * log2(p);
	}
	/* -0.0 for a single bucket reads badly */
	return h > 0 ? h : 0;
}
