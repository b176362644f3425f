// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btt.c - btt's statistics per device, by btt's rules (see btt.h).
 *
 * Each rule below is btt's (blktrace 1.2.0, the btt distributions ship),
 * kept even where it is odd, so that the same I/O gives the same figures:
 * an interval whose end is not after its start counts as 1 ns; events
 * before a device's first Q or A are ignored; a Q at a sector where a
 * followed bio starts takes that one's place (track/btt-qtree.h); G, S, I
 * and M find a bio that holds their sector, and D and C the followed bios
 * inside the request or completion, by btt's walks of its tree, which miss
 * some where bios overlap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track/btt.h"

/* I/O active periods that ended this long before the newest start are final */
#define LIVE_HORIZON_NS (30ULL * 1000000000ULL)
#define LIVE_KEEP 4096
/* periods lives_add looks back over from the newest before it searches */
#define LIVE_SCAN 8

static const char *const phase_names[BTT_PHASES] = {
	[BTT_Q2Q_DM] = "Q2Qdm", [BTT_Q2A_DM] = "Q2Adm", [BTT_Q2C_DM] = "Q2Cdm",
	[BTT_Q2Q] = "Q2Q", [BTT_Q2A] = "Q2A", [BTT_Q2G] = "Q2G", [BTT_S2G] = "S2G",
	[BTT_G2I] = "G2I", [BTT_Q2M] = "Q2M", [BTT_I2D] = "I2D", [BTT_M2D] = "M2D",
	[BTT_D2C] = "D2C", [BTT_Q2C] = "Q2C",
};

const uint64_t btt_q2d_bound[BTT_Q2D_BUCKETS - 1] = {
	5000000, 10000000, 25000000, 50000000, 75000000, 100000000,
	250000000, 500000000, 1000000000,
};

/* a pid's name, from the events that carry one (C and A do not) */
struct pid_name {
	int32_t pid;
	int32_t proc;		/* its slot in procs + 1, 0 not known yet */
	char comm[16];
};

#define PID_NAMES 4096

struct btt {
	struct btt_dev *devs;
	size_t ndevs, cap;
	size_t last;		/* the device dev_find() found last */
	struct btt_proc *procs;
	size_t nprocs;
	struct btt_avg all[BTT_PHASES];
	uint64_t last_q;
	struct btt_lives all_lives;
	bool started;
	uint64_t genesis;
	uint64_t unfollowed;
	const struct btt_sink *sink;
	struct pid_name pids[PID_NAMES];
};

void btt_set_sink(struct btt *b, const struct btt_sink *s)
{
	b->sink = s;
}

uint64_t btt_genesis(const struct btt *b)
{
	return b->genesis;
}

const char *btt_phase_name(enum btt_phase p)
{
	return p < BTT_PHASES ? phase_names[p] : "?";
}

struct btt *btt_alloc(void)
{
	struct btt *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->procs = calloc(BTT_MAX_PROCS + 1, sizeof(*b->procs));
	if (!b->procs) {
		free(b);
		errno = ENOMEM;
		return NULL;
	}
	return b;
}

void btt_free(struct btt *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->ndevs; i++) {
		seek_destroy(&b->devs[i].q2q_seek);
		seek_destroy(&b->devs[i].d2d_seek);
		free(b->devs[i].lives.v);
		btt_qtree_destroy(&b->devs[i].qs);
	}
	free(b->all_lives.v);
	free(b->devs);
	free(b->procs);
	free(b);
}

/* btt's avg_update */
static void avg_add(struct btt_avg *a, uint64_t v)
{
	if (a->n++ == 0) {
		a->min = a->max = a->total = v;
		return;
	}
	if (v < a->min)
		a->min = v;
	if (v > a->max)
		a->max = v;
	a->total += v;
}

/* btt's tdelta: an end not after the start counts as 1 ns */
static inline uint64_t tdelta(uint64_t from, uint64_t to)
{
	return from < to ? to - from : 1;
}

static struct btt_dev *dev_find(struct btt *b, uint32_t dev)
{
	/* runs of events of one device are the rule: the last one found first */
	if (b->ndevs && b->devs[b->last].dev == dev)
		return &b->devs[b->last];
	for (size_t i = 0; i < b->ndevs; i++)
		if (b->devs[i].dev == dev) {
			b->last = i;
			return &b->devs[i];
		}
	return NULL;
}

/* a device not seen before */
static struct btt_dev *dev_new(struct btt *b, uint32_t dev, uint64_t ts)
{
	struct btt_dev *d;

	if (b->ndevs == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		struct btt_dev *n = realloc(b->devs, cap * sizeof(*n));

		if (!n)
			return NULL;
		b->devs = n;
		b->cap = cap;
	}
	d = &b->devs[b->ndevs++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	d->remapper = btt_remapper(dev);
	d->culling = true;
	d->start = d->end = ts;
	inflight_init(&d->actq);
	seek_init(&d->q2q_seek);
	seek_init(&d->d2d_seek);
	btt_qtree_init(&d->qs);
	return d;
}

/* btt's dip_add: a device is known from its first event of any kind */
static inline struct btt_dev *dev_add(struct btt *b, uint32_t dev, uint64_t ts)
{
	struct btt_dev *d = dev_find(b, dev);

	return d ? d : dev_new(b, dev, ts);
}

/* ---- processes ---- */

static void pid_learn(struct btt *b, const struct blk_event *ev)
{
	struct pid_name *p = &b->pids[(uint32_t)ev->pid % PID_NAMES];

	if (!ev->comm[0] || ev->pid <= 0)
		return;
	/* a task's name changes only at exec: once known, it is kept */
	if (p->pid == ev->pid && p->comm[0])
		return;
	p->pid = ev->pid;
	p->proc = 0;
	memcpy(p->comm, ev->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
}

static int proc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct btt_proc *)a)->name, ((const struct btt_proc *)b)->name);
}

/* The process slot of the task that queued @ev, by its name cut at '/'. */
static int32_t proc_of(struct btt *b, const struct blk_event *ev)
{
	struct pid_name *p = &b->pids[(uint32_t)ev->pid % PID_NAMES];
	char name[16];
	size_t i;

	/* the slot of this task's name, found at its previous Q */
	if (p->pid == ev->pid && p->proc)
		return p->proc - 1;
	if (ev->comm[0])
		memcpy(name, ev->comm, sizeof(name));
	else if (p->pid == ev->pid && p->comm[0])
		memcpy(name, p->comm, sizeof(name));
	else
		snprintf(name, sizeof(name), "%d", ev->pid);
	name[sizeof(name) - 1] = '\0';
	name[strcspn(name, "/")] = '\0';
	for (i = 0; i < b->nprocs && strcmp(b->procs[i].name, name); i++)
		;
	if (i == b->nprocs && b->nprocs < BTT_MAX_PROCS)
		strcpy(b->procs[b->nprocs++].name, name);
	if (i < b->nprocs && i < BTT_MAX_PROCS) {
		if (p->pid == ev->pid && p->comm[0])
			p->proc = (int32_t)i + 1;
		return (int32_t)i;
	}
	if (b->nprocs == BTT_MAX_PROCS) {
		strcpy(b->procs[BTT_MAX_PROCS].name, "other");
		b->nprocs++;
	}
	return BTT_MAX_PROCS;
}

/* btt's UPDATE_AVGS: all devices, the device and the process at once */
static inline void update(struct btt *b, struct btt_dev *d, const struct btt_q *q,
			  enum btt_phase p, uint64_t v)
{
	avg_add(&b->all[p], v);
	avg_add(&d->avg[p], v);
	if (q && q->proc >= 0)
		avg_add(&b->procs[q->proc].avg[p], v);
}

/* btt's update_lq: the time since the previous Q (none before the first) */
static void update_lq(uint64_t *last, struct btt_avg *a, uint64_t ts)
{
	if (*last)
		avg_add(a, tdelta(*last, ts));
	*last = ts ? ts : 1;
}

/* ---- I/O active periods ---- */

/* Let go of the periods that ended long before @now: counted, not kept. */
static void lives_settle(struct btt_lives *l, uint64_t now)
{
	size_t k = 0;

	if (l->n < LIVE_KEEP || now < LIVE_HORIZON_NS || l->v[0].c >= now - LIVE_HORIZON_NS)
		return;
	while (k < l->n && l->v[k].c < now - LIVE_HORIZON_NS) {
		l->done_n++;
		l->done_ns += l->v[k].c - l->v[k].d;
		if (l->v[k].c > l->last_c)
			l->last_c = l->v[k].c;
		k++;
	}
	memmove(l->v, l->v + k, (l->n - k) * sizeof(*l->v));
	l->n -= k;
}

/* Add [d, c], merged with every period it touches (btt's p_live_add). */
static void lives_add(struct btt_lives *l, uint64_t d, uint64_t c)
{
	size_t lo = 0, hi = l->n, first, last;

	/*
	 * The first period that ends at or after d. A completion's issue is
	 * recent: that period is among the last few, where a search of the
	 * whole array (every period since the trace began, up to the
	 * horizon) would be ~18 probes.
	 */
	while (hi && l->n - hi < LIVE_SCAN && l->v[hi - 1].c >= d)
		hi--;
	if (!hi || l->v[hi - 1].c < d)
		lo = hi;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (l->v[mid].c < d)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = last = lo;
	while (last < l->n && l->v[last].d <= c) {
		if (l->v[last].d < d)
			d = l->v[last].d;
		if (l->v[last].c > c)
			c = l->v[last].c;
		last++;
	}
	if (last > first) {
		/* replace periods first..last-1 with the union */
		l->v[first].d = d;
		l->v[first].c = c;
		/* mostly one period, the newest, widened in place */
		if (last - first > 1) {
			memmove(l->v + first + 1, l->v + last, (l->n - last) * sizeof(*l->v));
			l->n -= last - first - 1;
		}
	} else {
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 64;
			void *n = realloc(l->v, cap * sizeof(*l->v));

			if (!n)
				return;
			l->v = n;
			l->cap = cap;
		}
		if (first < l->n)
			memmove(l->v + first + 1, l->v + first, (l->n - first) * sizeof(*l->v));
		l->v[first].d = d;
		l->v[first].c = c;
		l->n++;
	}
	lives_settle(l, d);
}

/* ---- the events ---- */

/* btt's io_setup: whether btt follows this event at all */
static inline struct btt_dev *setup(struct btt *b, uint32_t dev,
				    const struct blk_event *ev, bool starts)
{
	struct btt_dev *d = dev_add(b, dev, ev->ts);

	if (!d)
		return NULL;
	if (d->culling) {
		if (!starts)
			return NULL;
		d->culling = false;
	}
	d->end = ev->ts;
	return d;
}

static void on_queue(struct btt *b, struct btt_dev *d, const struct blk_event *ev, uint32_t nsec)
{
	struct btt_q q = { .sector = ev->sector, .nsec = nsec, .proc = -1,
			   .q = ev->ts ? ev->ts : 1 };
	struct btt_q *held;
	int64_t dist;

	/*
	 * One followed bio per first sector: a new one takes the place of the
	 * one held there, which is dropped and never completes (btt 1.2's
	 * rb_insert, "btt: Replace overlapping IO": it takes the held one for
	 * a bio whose completion was lost; a dm or md bio split and completed
	 * under a later sector is such a one, and so is counted anew).
	 */
	held = btt_qtree_put(&d->qs, &q, BTT_MAX_QS);
	if (!held) {
		b->unfollowed++;
		return;
	}
	q.proc = held->proc = proc_of(b, ev);
	d->end = ev->ts;
	dist = seek_add(&d->q2q_seek, ev->sector, nsec);
	if (b->sink && b->sink->seek)
		b->sink->seek(b->sink->ctx, d->dev, false, ev->ts, dist, !blk_event_writes(ev));
	update_lq(&d->last_q, &d->avg[d->remapper ? BTT_Q2Q_DM : BTT_Q2Q], ev->ts);
	update_lq(&b->procs[q.proc].last_q,
		  &b->procs[q.proc].avg[d->remapper ? BTT_Q2Q_DM : BTT_Q2Q], ev->ts);
	update_lq(&b->last_q, &b->all[d->remapper ? BTT_Q2Q_DM : BTT_Q2Q], ev->ts);
	d->n_qs++;
	inflight_arrive(&d->actq, ev->ts);
}

static void on_remap(struct btt *b, struct btt_dev *d, const struct blk_event *ev)
{
	struct btt_dev *from = dev_find(b, ev->old_dev);
	struct btt_q *q = from ? btt_qtree_holding(&from->qs, ev->aux_sector) : NULL;

	d->end = ev->ts;
	if (q)
		update(b, from, q, from->remapper ? BTT_Q2A_DM : BTT_Q2A, tdelta(q->q, ev->ts));
}

static void on_issue(struct btt *b, struct btt_dev *d, const struct blk_event *ev, uint32_t nsec)
{
	struct btt_q *const *in;
	int64_t dist;
	size_t n;

	inflight_dec(&d->actq, ev->ts);
	dist = seek_add(&d->d2d_seek, ev->sector, nsec);
	d->n_ds++;
	if (b->sink) {
		bool read = !blk_event_writes(ev);

		if (b->sink->seek)
			b->sink->seek(b->sink->ctx, d->dev, true, ev->ts, dist, read);
		if (b->sink->bno)
			b->sink->bno(b->sink->ctx, d->dev, ev->ts, ev->sector, ev->sector + nsec, read);
		if (b->sink->aqd)
			b->sink->aqd(b->sink->ctx, d->dev, ev->ts, d->aqd, d->aqd + 1);
	}
	d->aqd++;
	in = btt_qtree_inside(&d->qs, ev->sector, ev->sector + nsec, &n);
	for (size_t j = 0; j < n; j++) {
		struct btt_q *q = in[j];
		unsigned int k = 0;

		if (q->i)
			update(b, d, q, BTT_I2D, tdelta(q->i, ev->ts));
		else if (q->m)
			update(b, d, q, BTT_M2D, tdelta(q->m, ev->ts));
		q->d = ev->ts ? ev->ts : 1;
		while (k < BTT_Q2D_BUCKETS - 1 && tdelta(q->q, ev->ts) >= btt_q2d_bound[k])
			k++;
		d->q2d[k]++;
		if (b->sink && b->sink->latency)
			b->sink->latency(b->sink->ctx, d->dev, BTT_LAT_Q2D, ev->ts,
					 tdelta(q->q, ev->ts));
	}
}

/* every followed bio inside the completion completes */
static void on_complete(struct btt *b, struct btt_dev *d, const struct blk_event *ev,
			uint32_t nsec)
{
	struct btt_q *const *in;
	size_t n;

	avg_add(&d->blks, nsec);
	if (b->sink && b->sink->complete)
		b->sink->complete(b->sink->ctx, d->dev, ev->ts, nsec);
	if (d->aqd) {
		/* btt's -Q: one fewer issued at every completion while any is */
		if (b->sink && b->sink->aqd)
			b->sink->aqd(b->sink->ctx, d->dev, ev->ts, d->aqd, d->aqd - 1);
		d->aqd--;
	}
	in = btt_qtree_inside(&d->qs, ev->sector, ev->sector + nsec, &n);
	for (size_t j = 0; j < n; j++) {
		struct btt_q *q = in[j];

		update(b, d, q, d->remapper ? BTT_Q2C_DM : BTT_Q2C, tdelta(q->q, ev->ts));
		if (b->sink && b->sink->latency)
			b->sink->latency(b->sink->ctx, d->dev, BTT_LAT_Q2C, q->q, tdelta(q->q, ev->ts));
		if (q->d) {
			update(b, d, q, BTT_D2C, tdelta(q->d, ev->ts));
			if (b->sink && b->sink->latency)
				b->sink->latency(b->sink->ctx, d->dev, BTT_LAT_D2C, ev->ts,
						 tdelta(q->d, ev->ts));
			lives_add(&d->lives, q->d, ev->ts);
			lives_add(&b->all_lives, q->d, ev->ts);
		}
		btt_qtree_erase(&d->qs, q);
	}
}

static void on_plug(struct btt *b, uint32_t dev, const struct blk_event *ev, bool timer)
{
	struct btt_dev *d = dev_find(b, dev);

	if (!d)
		return;
	if (ev->kind == BLK_EV_PLUG) {
		if (!d->plugged) {
			d->plugged = true;
			d->last_plug = ev->ts;
		}
		return;
	}
	if (!d->plugged)
		return;
	if (timer) {
		d->nplugs_t++;
		d->nios_upt += ev->count;
	} else {
		d->nplugs++;
		d->nios_up += ev->count;
	}
	d->plugged = false;
	if (ev->ts > d->last_plug)
		d->plugged_ns += ev->ts - d->last_plug;
}

int btt_event(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	struct btt *b = ctx;
	uint32_t nsec = ev->nr_sector ? ev->nr_sector : ev->bytes >> 9;
	struct btt_dev *d;
	struct btt_q *q;

	/* btt leaves out passthrough (PC) requests, as blktrace records them */
	if (blk_event_passthrough(ev))
		return 0;
	if (!b->started) {
		b->started = true;
		b->genesis = ev->ts;
	}
	pid_learn(b, ev);
	switch (ev->kind) {
	case BLK_EV_PLUG:
	case BLK_EV_UNPLUG:
		on_plug(b, dev, ev, timer);
		return 0;
	case BLK_EV_BIO_REMAP:
	case BLK_EV_RQ_REMAP:
		d = setup(b, ev->dev, ev, true);
		if (d)
			on_remap(b, d, ev);
		return 0;
	case BLK_EV_BIO_QUEUE:
	case BLK_EV_BIO_BACKMERGE:
	case BLK_EV_BIO_FRONTMERGE:
	/* a request merged into another: blktrace writes it as a back merge */
	case BLK_EV_RQ_MERGE:
	case BLK_EV_GETRQ:
	case BLK_EV_SLEEPRQ:
	case BLK_EV_RQ_INSERT:
	case BLK_EV_RQ_ISSUE:
	case BLK_EV_RQ_COMPLETE:
	case BLK_EV_BIO_COMPLETE:
		/* btt skips every event of these kinds that carries no data */
		if (!nsec)
			return 0;
		break;
	case BLK_EV_RQ_REQUEUE:
		break;
	default:
		return 0;
	}
	d = setup(b, ev->dev, ev, ev->kind == BLK_EV_BIO_QUEUE);
	if (!d)
		return 0;
	switch (ev->kind) {
	case BLK_EV_BIO_QUEUE:
		on_queue(b, d, ev, nsec);
		return 0;
	case BLK_EV_RQ_ISSUE:
		on_issue(b, d, ev, nsec);
		return 0;
	case BLK_EV_RQ_COMPLETE:
	case BLK_EV_BIO_COMPLETE:
		on_complete(b, d, ev, nsec);
		return 0;
	case BLK_EV_RQ_REQUEUE:
		d->end = ev->ts;
		d->n_qs++;
		inflight_arrive(&d->actq, ev->ts);
		return 0;
	default:
		break;
	}
	/* G, S, I, M: the followed bio that holds the event's sector */
	d->end = ev->ts;
	if (ev->kind == BLK_EV_BIO_BACKMERGE || ev->kind == BLK_EV_BIO_FRONTMERGE ||
	    ev->kind == BLK_EV_RQ_MERGE)
		inflight_dec(&d->actq, ev->ts);
	q = btt_qtree_holding(&d->qs, ev->sector);
	if (!q)
		return 0;
	switch (ev->kind) {
	case BLK_EV_GETRQ:
		q->g = ev->ts;
		update(b, d, q, BTT_Q2G, tdelta(q->q, ev->ts));
		if (q->s)
			update(b, d, q, BTT_S2G, tdelta(q->s, ev->ts));
		break;
	case BLK_EV_SLEEPRQ:
		q->s = ev->ts;
		break;
	case BLK_EV_RQ_INSERT:
		q->i = ev->ts;
		if (q->g)
			update(b, d, q, BTT_G2I, tdelta(q->g, ev->ts));
		break;
	default:
		q->m = ev->ts;
		update(b, d, q, BTT_Q2M, tdelta(q->q, ev->ts));
		break;
	}
	return 0;
}

void btt_finish(struct btt *b)
{
	for (size_t i = 0; i < b->ndevs; i++) {
		struct btt_dev *d = &b->devs[i];

		if (d->plugged) {
			/* btt counts an open plug as unplugged at the last event */
			d->nplugs++;
			d->plugged = false;
			if (d->end > d->last_plug)
				d->plugged_ns += d->end - d->last_plug;
		}
	}
	if (b->nprocs > 1)
		qsort(b->procs, b->nprocs, sizeof(*b->procs), proc_cmp);
}

size_t btt_ndevs(const struct btt *b)
{
	size_t n = 0;

	for (size_t i = 0; i < b->ndevs; i++)
		n += b->devs[i].n_qs || b->devs[i].n_ds;
	return n;
}

const struct btt_dev *btt_dev_at(const struct btt *b, size_t i)
{
	for (size_t k = 0; k < b->ndevs; k++)
		if (b->devs[k].n_qs || b->devs[k].n_ds) {
			if (!i)
				return &b->devs[k];
			i--;
		}
	return NULL;
}

const struct btt_dev *btt_devs(const struct btt *b, size_t *n)
{
	*n = b->ndevs;
	return b->devs;
}

const struct btt_proc *btt_procs(const struct btt *b, size_t *n)
{
	*n = b->nprocs;
	return b->procs;
}

const struct btt_avg *btt_all(const struct btt *b)
{
	return b->all;
}

uint64_t btt_unfollowed(const struct btt *b)
{
	return b->unfollowed;
}

struct btt_live_info btt_lives(const struct btt *b, const struct btt_dev *d)
{
	const struct btt_lives *l = d ? &d->lives : &b->all_lives;
	struct btt_live_info li = { 0 };
	uint64_t live = l->done_ns, end = l->last_c;
	double span;

	li.nlives = l->done_n + l->n;
	for (size_t i = 0; i < l->n; i++) {
		live += l->v[i].c - l->v[i].d;
		if (l->v[i].c > end)
			end = l->v[i].c;
	}
	if (li.nlives == 1) {
		/* btt leaves the average of a single period at 0 */
		li.pct_live = 100.0;
	} else if (li.nlives > 1) {
		/* btt measures the span from the trace's start, not the first period's */
		span = (double)(end - b->genesis);
		li.pct_live = span > 0 ? 100.0 * (double)live / span : 0.0;
		li.avg_live = (double)live / (double)li.nlives;
		li.avg_lull = (span - (double)live) / (double)(li.nlives - 1);
	}
	return li;
}
