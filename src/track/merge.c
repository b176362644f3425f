// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * merge.c - per-CPU event streams into one stream in time order.
 *
 * Each CPU has a FIFO of decoded events; a binary heap orders the CPUs whose
 * FIFO is not empty by (head timestamp, CPU). The release horizon is the
 * earliest point that an empty CPU may still produce an event at: nothing
 * at or after it can be released until that CPU speaks or is marked further.
 * A stream that has ended bounds nothing: it is flagged, not given a time,
 * because any time (UINT64_MAX too) is one a damaged file's events can hold.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "track/merge.h"

struct cpu_queue {
	struct blk_event *ev;
	size_t cap;		/* a power of two */
	size_t head;
	size_t len;
	uint64_t reached;	/* nothing earlier will come from this CPU */
	bool ended;		/* nothing more will come: it bounds nothing */
	int heap_pos;		/* index in the heap, -1 when empty */
};

struct merge {
	unsigned int ncpu;
	struct cpu_queue *q;
	unsigned int *heap;
	unsigned int heap_len;
	uint64_t queued;
	uint64_t reordered;
};

struct merge *merge_alloc(unsigned int ncpu)
{
	struct merge *m;

	if (!ncpu) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->ncpu = ncpu;
	m->q = calloc(ncpu, sizeof(*m->q));
	m->heap = calloc(ncpu, sizeof(*m->heap));
	if (!m->q || !m->heap) {
		merge_free(m);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned int i = 0; i < ncpu; i++)
		m->q[i].heap_pos = -1;
	return m;
}

void merge_free(struct merge *m)
{
	if (!m)
		return;
	if (m->q)
		for (unsigned int i = 0; i < m->ncpu; i++)
			free(m->q[i].ev);
	free(m->q);
	free(m->heap);
	free(m);
}

static inline const struct blk_event *head_of(const struct merge *m, unsigned int cpu)
{
	const struct cpu_queue *q = &m->q[cpu];

	return &q->ev[q->head];
}

/* Whether CPU a's head goes before CPU b's: by time, then by CPU number. */
static inline bool before(const struct merge *m, unsigned int a, unsigned int b)
{
	uint64_t ta = head_of(m, a)->ts, tb = head_of(m, b)->ts;

	return ta < tb || (ta == tb && a < b);
}

static void heap_swap(struct merge *m, unsigned int i, unsigned int j)
{
	unsigned int t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
	m->q[m->heap[i]].heap_pos = i;
	m->q[m->heap[j]].heap_pos = j;
}

static void sift_up(struct merge *m, unsigned int i)
{
	while (i > 0) {
		unsigned int parent = (i - 1) / 2;

		if (!before(m, m->heap[i], m->heap[parent]))
			break;
		heap_swap(m, i, parent);
		i = parent;
	}
}

static void sift_down(struct merge *m, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, min = i;

		if (l < m->heap_len && before(m, m->heap[l], m->heap[min]))
			min = l;
		if (r < m->heap_len && before(m, m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			break;
		heap_swap(m, i, min);
		i = min;
	}
}

static int grow(struct cpu_queue *q)
{
	size_t cap = q->cap ? q->cap * 2 : 256;
	struct blk_event *ev = malloc(cap * sizeof(*ev));

	if (!ev)
		return -ENOMEM;
	/* unwrap the ring into the new array */
	for (size_t i = 0; i < q->len; i++)
		ev[i] = q->ev[(q->head + i) & (q->cap - 1)];
	free(q->ev);
	q->ev = ev;
	q->cap = cap;
	q->head = 0;
	return 0;
}

struct blk_event *merge_slot(struct merge *m, unsigned int stream)
{
	struct cpu_queue *q;

	if (stream >= m->ncpu)
		return NULL;
	q = &m->q[stream];
	if (q->len == q->cap && grow(q))
		return NULL;
	return &q->ev[(q->head + q->len) & (q->cap - 1)];
}

void merge_commit(struct merge *m, unsigned int stream)
{
	struct cpu_queue *q = &m->q[stream];
	struct blk_event *slot = &q->ev[(q->head + q->len) & (q->cap - 1)];

	if (slot->ts < q->reached) {
		/* a CPU's buffer is ordered; keep the stream so if the clock was not */
		slot->ts = q->reached;
		m->reordered++;
	}
	q->reached = slot->ts;
	q->len++;
	m->queued++;
	if (q->len == 1) {
		q->heap_pos = m->heap_len;
		m->heap[m->heap_len++] = stream;
		sift_up(m, q->heap_pos);
	}
}

struct blk_event *merge_reserve(struct merge *m, unsigned int stream, unsigned int *room)
{
	struct cpu_queue *q;
	size_t tail, n;

	if (stream >= m->ncpu)
		return NULL;
	q = &m->q[stream];
	if (q->len == q->cap && grow(q))
		return NULL;
	tail = (q->head + q->len) & (q->cap - 1);
	/* free slots from the tail, up to the ring's end */
	n = q->cap - q->len;
	if (n > q->cap - tail)
		n = q->cap - tail;
	*room = n > UINT_MAX ? UINT_MAX : (unsigned int)n;
	return &q->ev[tail];
}

void merge_commit_n(struct merge *m, unsigned int stream, unsigned int n)
{
	struct cpu_queue *q = &m->q[stream];
	struct blk_event *slot;
	uint64_t reached = q->reached;
	bool was_empty = !q->len;

	if (!n)
		return;	/* nothing reserved yet, maybe: q->ev can be NULL */
	slot = &q->ev[(q->head + q->len) & (q->cap - 1)];
	for (unsigned int i = 0; i < n; i++) {
		if (slot[i].ts < reached) {
			/* a CPU's buffer is ordered; keep the stream so if the clock was not */
			slot[i].ts = reached;
			m->reordered++;
		}
		reached = slot[i].ts;
	}
	q->reached = reached;
	q->len += n;
	m->queued += n;
	if (was_empty) {
		q->heap_pos = m->heap_len;
		m->heap[m->heap_len++] = stream;
		sift_up(m, q->heap_pos);
	}
}

int merge_push(struct merge *m, unsigned int stream, const struct blk_event *ev)
{
	struct blk_event *slot;

	if (stream >= m->ncpu)
		return -EINVAL;
	slot = merge_slot(m, stream);
	if (!slot)
		return -ENOMEM;
	*slot = *ev;
	merge_commit(m, stream);
	return 0;
}

void merge_reached(struct merge *m, unsigned int cpu, uint64_t ts)
{
	if (cpu < m->ncpu && ts > m->q[cpu].reached)
		m->q[cpu].reached = ts;
}

/* The horizon: (time, cpu) of the earliest bound among empty CPUs. */
struct horizon {
	uint64_t ts;
	unsigned int cpu;
	bool none;		/* no empty CPU: everything may go */
};

static inline void horizon_lower(struct horizon *h, uint64_t ts, unsigned int cpu)
{
	if (h->none || ts < h->ts || (ts == h->ts && cpu < h->cpu)) {
		h->ts = ts;
		h->cpu = cpu;
		h->none = false;
	}
}

void merge_end(struct merge *m, unsigned int stream)
{
	if (stream < m->ncpu)
		m->q[stream].ended = true;
}

int merge_drain(struct merge *m, bool final, blk_event_fn fn, void *ctx)
{
	struct horizon h = { .none = true };
	int ret;

	if (!final)
		for (unsigned int i = 0; i < m->ncpu; i++)
			if (!m->q[i].len && !m->q[i].ended)
				horizon_lower(&h, m->q[i].reached, i);

	while (m->heap_len) {
		unsigned int cpu = m->heap[0];
		struct cpu_queue *q = &m->q[cpu];
		const struct blk_event *ev = &q->ev[q->head];
		uint64_t lim_ts = UINT64_MAX;
		unsigned int lim_cpu = UINT_MAX;
		bool lim_eq;

		/* an equal time on a lower CPU that is still to come goes first */
		if (!final && !h.none && (ev->ts > h.ts || (ev->ts == h.ts && cpu > h.cpu)))
			break;
		/*
		 * A run: this CPU's events go one after the other, without the
		 * heap, while they stay before the bound, the lower (time, CPU)
		 * of the next CPUs' heads and of the horizon (neither is this
		 * CPU, and neither moves until this CPU's queue empties).
		 */
		for (unsigned int c = 1; c <= 2 && c < m->heap_len; c++) {
			unsigned int o = m->heap[c];
			uint64_t t = head_of(m, o)->ts;

			if (t < lim_ts || (t == lim_ts && o < lim_cpu)) {
				lim_ts = t;
				lim_cpu = o;
			}
		}
		if (!final && !h.none && (h.ts < lim_ts || (h.ts == lim_ts && h.cpu < lim_cpu))) {
			lim_ts = h.ts;
			lim_cpu = h.cpu;
		}
		lim_eq = cpu < lim_cpu;	/* an event at lim_ts goes too */
		do {
			/* the slot stays valid during fn(): nothing is pushed meanwhile */
			ev = &q->ev[q->head];
			if (ev->ts > lim_ts || (ev->ts == lim_ts && !lim_eq))
				break;
			q->head = (q->head + 1) & (q->cap - 1);
			q->len--;
			m->queued--;
			if (!q->len) {
				m->heap[0] = m->heap[--m->heap_len];
				m->q[m->heap[0]].heap_pos = 0;
				q->heap_pos = -1;
				if (m->heap_len)
					sift_down(m, 0);
				if (!final && !q->ended)
					horizon_lower(&h, q->reached, cpu);
				ret = fn(ev, ctx);
				if (ret < 0)
					return ret;
				goto next;
			}
			ret = fn(ev, ctx);
			if (ret < 0) {
				sift_down(m, 0);
				return ret;
			}
		} while (1);
		sift_down(m, 0);
next:;
	}
	return 0;
}

size_t merge_stream_len(const struct merge *m, unsigned int stream)
{
	return stream < m->ncpu ? m->q[stream].len : 0;
}

uint64_t merge_queued(const struct merge *m)
{
	return m->queued;
}

uint64_t merge_reordered(const struct merge *m)
{
	return m->reordered;
}
