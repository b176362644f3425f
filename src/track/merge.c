// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * merge.c - per-CPU event streams into one stream in time order.
 *
 * Each CPU has a FIFO of decoded events; a binary heap orders the CPUs whose
 * FIFO is not empty by (head timestamp, CPU), and the earliest CPU's events
 * go in a run, without the heap, up to the next CPU's head. The release
 * horizon is the earliest point that an empty CPU may still produce an
 * event at: nothing at or after it can be released until that CPU speaks
 * or is marked further.
 * A stream that has ended bounds nothing: it is flagged, not given a time,
 * because any time (UINT64_MAX too) is one a damaged file's events can hold.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "track/merge.h"

struct cpu_queue {
	struct blk_event *ev;	/* the events: own, or lent by merge_lend() */
	size_t cap;		/* slots at ev */
	size_t head;
	size_t len;
	struct blk_event *own;	/* the stream's own ring */
	size_t own_cap;
	uint64_t reached;	/* nothing earlier will come from this CPU */
	bool ended;		/* nothing more will come: it bounds nothing */
	bool lent;		/* ev is a caller's array, until it drains */
};

/*
 * A heap entry: a non-empty stream and its head's time, kept here so that
 * ordering the heap reads no event.
 */
struct heap_key {
	uint64_t ts;
	unsigned int cpu;
};

struct merge {
	unsigned int ncpu;
	struct cpu_queue *q;
	struct heap_key *heap;
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
	return m;
}

void merge_free(struct merge *m)
{
	if (!m)
		return;
	if (m->q)
		for (unsigned int i = 0; i < m->ncpu; i++)
			free(m->q[i].own);
	free(m->q);
	free(m->heap);
	free(m);
}

/* Whether a goes before b: by time, then by CPU number. */
static inline bool key_before(struct heap_key a, struct heap_key b)
{
	return a.ts < b.ts || (a.ts == b.ts && a.cpu < b.cpu);
}

static void sift_up(struct merge *m, unsigned int i)
{
	struct heap_key k = m->heap[i];

	while (i > 0) {
		unsigned int parent = (i - 1) / 2;

		if (!key_before(k, m->heap[parent]))
			break;
		m->heap[i] = m->heap[parent];
		i = parent;
	}
	m->heap[i] = k;
}

static void sift_down(struct merge *m, unsigned int i)
{
	struct heap_key k = m->heap[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= m->heap_len)
			break;
		if (c + 1 < m->heap_len && key_before(m->heap[c + 1], m->heap[c]))
			c++;
		if (!key_before(m->heap[c], k))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = k;
}

static inline size_t tail_of(const struct cpu_queue *q)
{
	size_t t = q->head + q->len;

	return t >= q->cap ? t - q->cap : t;
}

/* Move the stream's events to a larger own ring (from a lent array too). */
static int grow(struct cpu_queue *q)
{
	size_t cap = q->own_cap;
	struct blk_event *ev;

	while (cap < q->len + 1)
		cap = cap ? cap * 2 : 256;
	ev = malloc(cap * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	/* unwrap the ring into the new array */
	for (size_t i = 0, at = q->head; i < q->len; i++) {
		ev[i] = q->ev[at];
		if (++at == q->cap)
			at = 0;
	}
	free(q->own);
	q->ev = q->own = ev;
	q->cap = q->own_cap = cap;
	q->head = 0;
	q->lent = false;
	return 0;
}

/* Room for one more event in the stream's own ring. */
static inline int make_room(struct cpu_queue *q)
{
	return q->len == q->cap || q->lent ? grow(q) : 0;
}

struct blk_event *merge_slot(struct merge *m, unsigned int stream)
{
	struct cpu_queue *q;

	if (stream >= m->ncpu)
		return NULL;
	q = &m->q[stream];
	if (make_room(q))
		return NULL;
	return &q->ev[tail_of(q)];
}

/* A stream has its first queued event: it enters the heap. */
static void heap_add(struct merge *m, unsigned int stream)
{
	const struct cpu_queue *q = &m->q[stream];

	m->heap[m->heap_len] = (struct heap_key){ .ts = q->ev[q->head].ts, .cpu = stream };
	sift_up(m, m->heap_len++);
}

void merge_commit(struct merge *m, unsigned int stream)
{
	merge_commit_n(m, stream, 1, true);
}

struct blk_event *merge_reserve(struct merge *m, unsigned int stream, unsigned int *room)
{
	struct cpu_queue *q;
	size_t tail, n;

	if (stream >= m->ncpu)
		return NULL;
	q = &m->q[stream];
	if (make_room(q))
		return NULL;
	tail = tail_of(q);
	/* free slots from the tail, up to the ring's end */
	n = q->cap - q->len;
	if (n > q->cap - tail)
		n = q->cap - tail;
	*room = n > UINT_MAX ? UINT_MAX : (unsigned int)n;
	return &q->ev[tail];
}

void merge_commit_n(struct merge *m, unsigned int stream, unsigned int n, bool ordered)
{
	struct cpu_queue *q = &m->q[stream];
	struct blk_event *slot;
	uint64_t reached = q->reached;
	bool was_empty = !q->len;

	if (!n)
		return;	/* nothing reserved yet, maybe: q->ev can be NULL */
	slot = &q->ev[tail_of(q)];
	if (ordered && slot[0].ts >= reached) {
		/* in order among themselves and after the stream's last: no clamp */
		reached = slot[n - 1].ts;
	} else {
		for (unsigned int i = 0; i < n; i++) {
			if (slot[i].ts < reached) {
				/* a CPU's buffer is ordered: keep it so if the clock was not */
				slot[i].ts = reached;
				m->reordered++;
			}
			reached = slot[i].ts;
		}
	}
	q->reached = reached;
	q->len += n;
	m->queued += n;
	if (was_empty)
		heap_add(m, stream);
}

int merge_lend(struct merge *m, unsigned int stream, struct blk_event *ev, unsigned int n,
	       bool ordered)
{
	struct cpu_queue *q;

	if (stream >= m->ncpu)
		return -EINVAL;
	q = &m->q[stream];
	if (q->len)
		return -EBUSY;
	if (!n)
		return 0;
	q->ev = ev;
	q->cap = n;
	q->head = 0;
	q->lent = true;
	merge_commit_n(m, stream, n, ordered);
	return 0;
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

void merge_end(struct merge *m, unsigned int stream)
{
	if (stream < m->ncpu)
		m->q[stream].ended = true;
}

/*
 * After a run of the heap's top stream: its new head's time in the heap,
 * or, emptied, the stream leaves the heap, bounds the horizon @h (unless
 * @final or ended) and gives a lent array back.
 */
static void run_done(struct merge *m, struct cpu_queue *q, bool final, struct heap_key *h)
{
	if (q->len) {
		m->heap[0].ts = q->ev[q->head].ts;
		/* two streams, the usual case: the other goes first or not */
		if (m->heap_len == 2) {
			if (key_before(m->heap[1], m->heap[0])) {
				struct heap_key k = m->heap[0];

				m->heap[0] = m->heap[1];
				m->heap[1] = k;
			}
			return;
		}
		sift_down(m, 0);
		return;
	}
	m->heap[0] = m->heap[--m->heap_len];
	if (m->heap_len)
		sift_down(m, 0);
	if (!final && !q->ended) {
		struct heap_key k = { .ts = q->reached, .cpu = (unsigned int)(q - m->q) };

		if (key_before(k, *h))
			*h = k;
	}
	if (q->lent) {
		q->ev = q->own;
		q->cap = q->own_cap;
		q->lent = false;
	}
	q->head = 0;
}

int merge_drain(struct merge *m, bool final, blk_event_fn fn, void *ctx)
{
	/* the horizon: the earliest bound among empty CPUs; UINT_MAX: none */
	struct heap_key h = { .ts = UINT64_MAX, .cpu = UINT_MAX };

	if (!final)
		for (unsigned int i = 0; i < m->ncpu; i++)
			if (!m->q[i].len && !m->q[i].ended &&
			    key_before((struct heap_key){ m->q[i].reached, i }, h))
				h = (struct heap_key){ .ts = m->q[i].reached, .cpu = i };

	while (m->heap_len) {
		struct heap_key top = m->heap[0], lim = h;
		struct cpu_queue *q = &m->q[top.cpu];
		uint64_t bound;
		int ret = 0;

		/* an equal time on a lower CPU that is still to come goes first */
		if (key_before(h, top))
			break;
		/*
		 * A run: this CPU's events go one after the other, without the
		 * heap, while they stay before the lower (time, CPU) of the next
		 * CPUs' heads and of the horizon (neither is this CPU, and
		 * neither moves until this CPU's queue empties). The head goes
		 * first in any case; the run is the events at or before @bound.
		 */
		for (unsigned int c = 1; c <= 2 && c < m->heap_len; c++)
			if (key_before(m->heap[c], lim))
				lim = m->heap[c];
		bound = lim.ts - (top.cpu > lim.cpu);
		do {
			/* up to the ring's end; the slots stay valid during fn() */
			size_t seg = q->cap - q->head < q->len ? q->cap - q->head : q->len;
			const struct blk_event *e = &q->ev[q->head], *end = e + seg;
			size_t n;

			/*
			 * A stream's queue is in time order (merge_commit_n()):
			 * when its last event here is at or before @bound, so
			 * are the others, and only the end stops the run; else
			 * a later time stops it, at that last event at the
			 * latest, and the end needs no test.
			 */
			if (seg == 1 || end[-1].ts <= bound) {
				do {
					ret = fn(e++, ctx);
				} while (ret >= 0 && e < end);
			} else {
				do {
					ret = fn(e++, ctx);
				} while (ret >= 0 && e->ts <= bound);
			}
			n = e - &q->ev[q->head];
			q->head += n;
			if (q->head == q->cap)
				q->head = 0;
			q->len -= n;
			m->queued -= n;
			if (e < end || ret < 0)
				break;
		} while (q->len && q->ev[q->head].ts <= bound);
		run_done(m, q, final, &h);
		if (ret < 0)
			return ret;
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
