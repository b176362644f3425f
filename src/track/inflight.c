// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * inflight.c - the number of I/Os in flight over time: a step function
 * integrated as it goes, so that nothing is kept per I/O.
 *
 * Events reach a consumer in time order, but a timestamp earlier than the
 * last one (two CPUs' clocks a few ns apart) must not make time run back:
 * such a step is taken as happening at the last time seen.
 */
#include <string.h>

#include "track/inflight.h"

void inflight_init(struct inflight *f)
{
	memset(f, 0, sizeof(*f));
}

void inflight_window(struct inflight *f, uint64_t ts)
{
	uint64_t now = f->now, underflow = f->underflow;

	inflight_init(f);
	f->now = f->max = now;
	f->underflow = underflow;
	f->start = f->last = ts;
	f->started = true;
}

/* Integrate the level held since the last change up to @ts. */
static void advance(struct inflight *f, uint64_t ts)
{
	if (!f->started) {
		f->start = f->last = ts;
		f->started = true;
		return;
	}
	if (ts <= f->last)
		return;
	f->area += f->now * (ts - f->last);
	if (f->now)
		f->busy += ts - f->last;
	f->last = ts;
}

void inflight_inc(struct inflight *f, uint64_t ts)
{
	advance(f, ts);
	if (++f->now > f->max)
		f->max = f->now;
}

void inflight_arrive(struct inflight *f, uint64_t ts)
{
	f->samples++;
	f->sampled += f->now;
	inflight_inc(f, ts);
}

void inflight_dec(struct inflight *f, uint64_t ts)
{
	advance(f, ts);
	if (f->now)
		f->now--;
	else
		f->underflow++;
}

double inflight_avg(const struct inflight *f, uint64_t end)
{
	uint64_t area = f->area;

	if (end > f->last)
		area += f->now * (end - f->last);
	if (end <= f->start)
		return 0.0;
	return (double)area / (double)(end - f->start);
}

uint64_t inflight_busy(const struct inflight *f, uint64_t end)
{
	uint64_t busy = f->busy;

	if (end > f->last && f->now)
		busy += end - f->last;
	return busy;
}

double inflight_sampled_avg(const struct inflight *f)
{
	return f->samples ? (double)f->sampled / (double)f->samples : 0.0;
}
