// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btt-rate.c - btt's completions per second and seeks per second, by its
 * rules (see btt-rate.h).
 */
#include <float.h>

#include "track/btt-rate.h"

void btt_persec_init(struct btt_persec *p)
{
	*p = (struct btt_persec){ .sec = -1 };
}

bool btt_persec_add(struct btt_persec *p, uint64_t ns, uint64_t blks, struct btt_persec *row)
{
	/* btt truncates its double time, as it does here */
	int64_t sec = (int64_t)btt_secs(ns);
	bool closed = false;

	if (p->sec < 0) {
		p->sec = sec;
	} else if (sec - p->sec >= 1) {
		*row = *p;
		closed = true;
		*p = (struct btt_persec){ .sec = sec };
	}
	p->ios++;
	p->blks += blks;
	return closed;
}

static struct btt_sps_row sps_row(const struct btt_sps *s)
{
	double span = s->last - s->start;
	struct btt_sps_row r = { .t = s->start, .rate = (double)s->n };

	if (s->n != 1 && span >= DBL_EPSILON)
		r.rate = (double)s->n / span;
	return r;
}

bool btt_sps_add(struct btt_sps *s, double t, struct btt_sps_row *row)
{
	bool closed = false;

	if (s->n && t - s->start >= 1.0) {
		*row = sps_row(s);
		closed = true;
		s->n = 0;
	}
	s->last = t;
	if (!s->n++)
		s->start = t;
	return closed;
}

bool btt_sps_end(const struct btt_sps *s, struct btt_sps_row *row)
{
	if (!s->n)
		return false;
	*row = sps_row(s);
	return true;
}
