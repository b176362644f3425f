// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iostat.c - diskstats' accounting from the events (see iostat.h).
 *
 * A request starts at its getrq (G): its first bio's sector is the key,
 * a front merge moves it; a request with no G (the flush machinery's,
 * a requeued one) starts at its insert or issue. A completion finds its
 * request by first sector (oldest first among equals) and may complete it
 * in parts: the key moves past what completed, and the request counts
 * once, when nothing is left, as the kernel's blk_account_io_done does.
 * A bio-based device's bio is found by its end sector: device-mapper
 * completes a split bio's remainder under its own start, never its end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/tickevent.h"
#include "track/iostat.h"

/*
 * Where the kernel's ticks fall on the trace clock: a tick event read
 * jiffies J at time t, so tick J came at or before t, a few microseconds
 * before when the timer ran straight after it. The ticks are then at
 * tick_off + J * tick_ns for the smallest t - J * tick_ns seen (modulo
 * 2^64: only differences are compared), over the whole trace: the kernel
 * advances jiffies on CLOCK_MONOTONIC in whole ticks, and blkstack traces
 * on that clock, so the phase does not drift. (The smallest of each
 * second was taken once: in a quiet second every timer ran late, the
 * ticks were placed late, inside requests that the kernel saw start just
 * after a tick, and %util came out 1.1 s busy where the kernel had 20 ms.)
 */

struct iostat {
	struct ios_dev *devs;
	size_t ndevs, cap;
	uint64_t tick_ns;
	uint64_t tick_off;	/* the ticks' phase: 0 (unknown) until a tick is seen */
	uint64_t nticks;	/* tick events seen */
	bool inflight_started;	/* see iostat_count_started() */
};

struct iostat *iostat_alloc(unsigned int hz)
{
	struct iostat *s = calloc(1, sizeof(*s));

	if (s)
		iostat_set_hz(s, hz);
	return s;
}

void iostat_set_hz(struct iostat *s, unsigned int hz)
{
	s->tick_ns = hz ? 1000000000ULL / hz : 1;
}

void iostat_free(struct iostat *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->ndevs; i++)
		free(s->devs[i].pending);
	free(s->devs);
	free(s);
}

size_t iostat_ndevs(const struct iostat *s)
{
	return s->ndevs;
}

const struct ios_dev *iostat_dev(const struct iostat *s, size_t i)
{
	return i < s->ndevs ? &s->devs[i] : NULL;
}

static struct ios_dev *dev_of(struct iostat *s, uint32_t dev)
{
	struct ios_dev *d;

	for (size_t i = 0; i < s->ndevs; i++)
		if (s->devs[i].dev == dev)
			return &s->devs[i];
	if (ARRAY_ROOM(s->devs, s->ndevs, s->cap, 8) < 0)
		return NULL;
	d = &s->devs[s->ndevs++];
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	return d;
}

/* diskstats' group of an operation; flushes are empty REQ_OP_FLUSH requests */
static enum ios_grp grp_of(const struct blk_event *ev)
{
	switch (ev->op) {
	case BLK_OP_READ:
		return IOS_READ;
	case BLK_OP_DISCARD:
	case BLK_OP_SECURE_ERASE:
		return IOS_DISCARD;
	case BLK_OP_FLUSH:
		return IOS_FLUSH;
	default:
		/* an empty preflush bio is a flush to the kernel's accounting */
		if (!ev->nr_sector && (ev->flags & BLK_F_PREFLUSH))
			return IOS_FLUSH;
		return IOS_WRITE;
	}
}

/*
 * The kernel's update_io_ticks(): at each start and completion, the time
 * since the previous one is busy time if this is a completion or if some
 * I/O is in flight (issued requests before 6.16, started ones since;
 * started bios at a bio-based device). Not time with one in flight
 * exactly: before 6.16 a gap between a completion and the next start
 * while requests wait unissued is not busy.
 */
static void io_ticks(const struct iostat *s, struct ios_dev *d, uint64_t ts, bool end)
{
	uint64_t inflight = !d->rq_based ? d->npending : !s->inflight_started ? d->issued :
			    d->acct ? d->acct_inflight : d->npending;

	/* the kernel counts in jiffies: time within one tick adds nothing */
	uint64_t now = ts - (ts - s->tick_off) % s->tick_ns;

	if (now > d->stamp) {
		if (d->stamp && (end || inflight))
			d->io_ticks += now - d->stamp;
		d->stamp = now;
	}
}

static void start(const struct iostat *s, struct ios_dev *d, uint64_t key, uint32_t sectors, enum ios_grp grp,
		  uint64_t ts)
{
	struct ios_pending *p;

	if (d->npending >= IOS_MAX_PENDING)
		return;
	if (ARRAY_ROOM(d->pending, d->npending, d->cap, 64) < 0)
		return;
	if (!d->acct)
		io_ticks(s, d, ts, false);
	p = &d->pending[d->npending++];
	*p = (struct ios_pending){ .key = key, .start = ts, .left = sectors, .grp = grp };
}

/*
 * The oldest I/O in flight with @key and group @grp, or NULL. Flushes name
 * no sector (or a meaningless one): the oldest flush is the one.
 */
static struct ios_pending *find(struct ios_dev *d, uint64_t key, enum ios_grp grp)
{
	for (size_t i = 0; i < d->npending; i++)
		if (d->pending[i].grp == grp && (grp == IOS_FLUSH || d->pending[i].key == key))
			return &d->pending[i];
	return NULL;
}

/* @p leaves @d's I/Os in flight, the order of the rest kept */
static void forget(struct ios_dev *d, struct ios_pending *p)
{
	memmove(p, p + 1, (size_t)(d->pending + d->npending - (p + 1)) * sizeof(*p));
	d->npending--;
}

static void done(const struct iostat *s, struct ios_dev *d, struct ios_pending *p, uint64_t ts)
{
	struct ios_grp_stat *g = &d->grp[p->grp];

	g->ios++;
	g->ticks_ns += ts > p->start ? ts - p->start : 0;
	if (!d->acct)
		io_ticks(s, d, ts, true);
	if (p->issued && d->issued)
		d->issued--;
	/* the oldest of equal keys stays first */
	forget(d, p);
}

/*
 * A request merged into the one before it (attempt_merge(), event "M" of
 * the request merged away): the kernel counts a merge and frees it with no
 * completion, its sectors now the other's; since 6.16 its in-flight count
 * drops there too (blk_account_io_merge_request()).
 */
static void rq_merged(struct ios_dev *d, const struct blk_event *ev, enum ios_grp grp)
{
	struct ios_pending *p = find(d, ev->sector, grp);

	d->grp[grp].merges++;
	if (d->acct && d->acct_inflight)
		d->acct_inflight--;
	if (!p)
		return;
	for (size_t i = 0; i < d->npending; i++) {
		struct ios_pending *into = &d->pending[i];

		if (into->grp == grp && into->key + into->left == ev->sector) {
			into->left += p->left;
			break;
		}
	}
	if (p->issued && d->issued)
		d->issued--;
	forget(d, p);
}

static void rq_event(const struct iostat *s, struct ios_dev *d, const struct blk_event *ev,
		     enum ios_grp grp)
{
	struct ios_pending *p;

	switch (ev->kind) {
	case BLK_EV_GETRQ:
		start(s, d, ev->sector, 0, grp, ev->ts);
		return;
	case BLK_EV_BIO_FRONTMERGE:
		d->grp[grp].merges++;
		/* the request now starts at the merged bio */
		p = find(d, ev->sector + ev->nr_sector, grp);
		if (p)
			p->key = ev->sector;
		return;
	case BLK_EV_BIO_BACKMERGE:
		d->grp[grp].merges++;
		return;
	case BLK_EV_RQ_MERGE:
		rq_merged(d, ev, grp);
		return;
	case BLK_EV_RQ_INSERT:
	case BLK_EV_RQ_ISSUE:
		p = find(d, ev->sector, grp);
		if (!p) {
			start(s, d, ev->sector, ev->nr_sector, grp, ev->ts);
			p = find(d, ev->sector, grp);
		} else if (ev->nr_sector > p->left) {
			p->left = ev->nr_sector;
		}
		if (p && ev->kind == BLK_EV_RQ_ISSUE && !p->issued) {
			p->issued = true;
			d->issued++;
		}
		return;
	case BLK_EV_RQ_COMPLETE:
		/*
		 * An empty request that is not a flush is a preflush request
		 * ending its flush sequence: the kernel accounts the flush it
		 * caused (f/s, from this request's start), not the request
		 */
		if (!ev->nr_sector && grp != IOS_FLUSH)
			return;
		p = find(d, ev->sector, grp);
		if (!p) {
			d->unmatched++;
			return;
		}
		d->grp[grp].sectors += ev->nr_sector;
		if (ev->nr_sector && ev->nr_sector < p->left) {
			/* a partial completion: the rest completes later */
			p->left -= ev->nr_sector;
			p->key += ev->nr_sector;
			return;
		}
		done(s, d, p, ev->ts);
		return;
	default:
		return;
	}
}

static void bio_event(const struct iostat *s, struct ios_dev *d, const struct blk_event *ev,
		      enum ios_grp grp)
{
	struct ios_pending *p;

	if (ev->kind == BLK_EV_BIO_QUEUE) {
		start(s, d, ev->sector + ev->nr_sector, ev->nr_sector, grp, ev->ts);
		return;
	}
	p = find(d, ev->sector + ev->nr_sector, grp);
	if (!p) {
		d->unmatched++;
		return;
	}
	/*
	 * A split bio's pieces complete under the bio's end, the last one
	 * counts it, with every sector queued: device-mapper completes a bio
	 * it split under the remainder's start and size, not what was queued
	 * (the kernel's diskstats count every piece's sectors).
	 */
	d->grp[grp].sectors += p->left;
	done(s, d, p, ev->ts);
}

/*
 * block_io_start and block_io_done fire where the kernel counts a request
 * in and out (blk_account_io_start and _done), a few microseconds after the
 * G and C events, where its jiffies are read: from the first, they time
 * the device's busy jiffies. Its in-flight count (6.16 and later) is
 * theirs, taken after the start is counted and before the completion.
 */
static void acct_event(const struct iostat *s, struct ios_dev *d, const struct blk_event *ev)
{
	if (ev->kind == BLK_EV_IO_START) {
		d->acct = true;
		io_ticks(s, d, ev->ts, false);
		d->acct_inflight++;
	} else if (d->acct) {
		io_ticks(s, d, ev->ts, true);
		if (d->acct_inflight)
			d->acct_inflight--;
	}
}

/* A tick event: the phase of the ticks, see struct iostat. */
static void tick_seen(struct iostat *s, uint64_t ts, uint64_t jiffies)
{
	uint64_t off = ts - jiffies * s->tick_ns;

	if (!s->nticks++ || (int64_t)(off - s->tick_off) < 0)
		s->tick_off = off;
}

void iostat_count_started(struct iostat *s, bool started)
{
	s->inflight_started = started;
}

int iostat_release_counts_started(const char *release)
{
	unsigned int major, minor;
	char dot;

	if (sscanf(release, "%u%c%u", &major, &dot, &minor) != 3 || dot != '.')
		return -EINVAL;
	/* 6.16 counts started requests per CPU, no longer blk-mq's issued ones */
	return major > 6 || (major == 6 && minor >= 16);
}

uint64_t iostat_ticks_seen(const struct iostat *s)
{
	return s->nticks;
}

int iostat_event(const struct blk_event *ev, void *ctx)
{
	struct iostat *s = ctx;
	enum ios_grp grp = grp_of(ev);
	struct ios_dev *d;

	if (tick_kind_is(ev->kind)) {
		tick_seen(s, ev->ts, tick_ev_jiffies(ev));
		return 0;
	}
	switch (ev->kind) {
	case BLK_EV_IO_START:
	case BLK_EV_IO_DONE:
		d = dev_of(s, ev->dev);
		if (d)
			acct_event(s, d, ev);
		return 0;
	case BLK_EV_GETRQ:
	case BLK_EV_RQ_INSERT:
	case BLK_EV_RQ_ISSUE:
	case BLK_EV_RQ_COMPLETE:
		d = dev_of(s, ev->dev);
		if (!d)
			return 0;
		if (!d->rq_based) {
			/* bios counted before the first request event are forgotten */
			d->rq_based = true;
			d->npending = 0;
			memset(d->grp, 0, sizeof(d->grp));
		}
		rq_event(s, d, ev, grp);
		return 0;
	case BLK_EV_BIO_BACKMERGE:
	case BLK_EV_BIO_FRONTMERGE:
	case BLK_EV_RQ_MERGE:
		d = dev_of(s, ev->dev);
		if (d && d->rq_based)
			rq_event(s, d, ev, grp);
		return 0;
	case BLK_EV_BIO_QUEUE:
	case BLK_EV_BIO_COMPLETE:
		d = dev_of(s, ev->dev);
		if (d && !d->rq_based)
			bio_event(s, d, ev, grp);
		return 0;
	default:
		return 0;
	}
}

void iostat_interval(struct iostat *s, uint64_t ts)
{
	for (size_t i = 0; i < s->ndevs; i++) {
		memset(s->devs[i].grp, 0, sizeof(s->devs[i].grp));
		s->devs[i].io_ticks = 0;
		if (s->devs[i].stamp < ts)
			s->devs[i].stamp = ts;
	}
}

void iostat_row(const struct ios_dev *d, uint64_t start, uint64_t end, struct ios_row *row)
{
	double secs = end > start ? (double)(end - start) / 1e9 : 0.0;
	double ticks_ms = 0;

	memset(row, 0, sizeof(*row));
	if (secs <= 0)
		return;
	for (int g = 0; g < IOS_GRPS; g++) {
		const struct ios_grp_stat *s = &d->grp[g];

		row->rs[g] = (double)s->ios / secs;
		row->kbs[g] = (double)s->sectors / 2.0 / secs;
		row->rqms[g] = (double)s->merges / secs;
		if (s->merges + s->ios)
			row->pct_rqm[g] = 100.0 * (double)s->merges / (double)(s->merges + s->ios);
		if (s->ios) {
			row->await[g] = (double)s->ticks_ns / 1e6 / (double)s->ios;
			row->areq_sz[g] = (double)s->sectors / 2.0 / (double)s->ios;
		}
		ticks_ms += (double)s->ticks_ns / 1e6;
	}
	row->aqu_sz = ticks_ms / (secs * 1000.0);
	row->util = 100.0 * (double)d->io_ticks / 1e9 / secs;
	if (row->util > 100.0)
		row->util = 100.0;
}
