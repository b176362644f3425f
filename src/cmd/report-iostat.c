// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-iostat.c - the glue of "blkstack report --iostat": source events
 * -> diskstats accounting -> iostat -x's table over the trace (its first to
 * its last event).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pcevent.h"
#include "base/tickevent.h"
#include "cmd/report-iostat.h"
#include "output/iostat.h"

void report_iostat_basis(const struct trace_host *h, unsigned int given_hz,
			 struct iostat_basis *b)
{
	int started = h->release[0] ? iostat_release_counts_started(h->release) : -EINVAL;

	*b = (struct iostat_basis){ .release = h->release, .from = h->from };
	/* unknown: the counting of every kernel before 6.16, and of recordings until now */
	b->started = started == 1;
	b->started_assumed = started < 0;
	b->hz = given_hz ? given_hz : h->hz ? h->hz : REPORT_IOSTAT_DEFAULT_HZ;
	b->hz_given = given_hz;
	b->hz_assumed = !given_hz && !h->hz;
}

void report_iostat_configure(struct iostat *s, const struct iostat_basis *b)
{
	iostat_set_hz(s, b->hz);
	iostat_count_started(s, b->started);
}

int report_iostat_init(struct report_iostat *ri)
{
	ri->s = iostat_alloc(REPORT_IOSTAT_DEFAULT_HZ);
	return ri->s ? 0 : -ENOMEM;
}

void report_iostat_host(struct report_iostat *ri, const struct trace_host *h,
			unsigned int given_hz)
{
	ri->host = *h;
	report_iostat_basis(&ri->host, given_hz, &ri->basis);
	report_iostat_configure(ri->s, &ri->basis);
}

void report_iostat_destroy(struct report_iostat *ri)
{
	iostat_free(ri->s);
	ri->s = NULL;
}

int report_iostat_event(const struct blk_event *ev, void *ctx)
{
	struct report_iostat *ri = ctx;

	if (pc_kind_is(ev->kind))
		return 0;
	/* a tick places the kernel's jiffies; it is no I/O and spans no time */
	if (tick_kind_is(ev->kind))
		return iostat_event(ev, ri->s);
	if (!ri->first)
		ri->first = ev->ts;
	ri->last = ev->ts;
	return iostat_event(ev, ri->s);
}

int report_iostat_output(FILE *fp, struct report_iostat *ri, bool json, report_name_fn name,
			 void *ctx)
{
	int ret;

	if (json)
		return out_iostat_json(fp, ri->s, ri->first, ri->last, name, ctx, &ri->basis);
	ret = out_iostat_text(fp, ri->s, ri->first, ri->last, name, ctx, true);
	return ret ? ret : out_iostat_basis_text(fp, &ri->basis);
}
