// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-btt.c - the glue of "blkstack report --btt": source events ->
 * plugdev -> time order -> btt's statistics -> btt's report (output/btt-*.c).
 */
#include <errno.h>

#include "base/pcevent.h"
#include "cmd/report-btt.h"
#include "output/btt.h"

int report_btt_init(struct report_btt *rb)
{
	rb->b = btt_alloc();
	rb->order = rb->b ? timeorder_alloc(btt_event, rb->b) : NULL;
	rb->pd = rb->order ? plugdev_alloc(timeorder_event, rb->order) : NULL;
	if (rb->pd)
		timeorder_watch(rb->order, rb->pd);
	return rb->pd ? 0 : -ENOMEM;
}

void report_btt_destroy(struct report_btt *rb)
{
	plugdev_free(rb->pd);
	timeorder_free(rb->order);
	btt_free(rb->b);
	rb->pd = NULL;
	rb->order = NULL;
	rb->b = NULL;
}

int report_btt_event(const struct blk_event *ev, void *ctx)
{
	struct report_btt *rb = ctx;
	int ret;

	if (pc_kind_is(ev->kind))
		return 0;
	ret = plugdev_event(ev, rb->pd);
	return ret ? ret : timeorder_release(rb->order, plugdev_held_from(rb->pd));
}

int report_btt_finish(struct report_btt *rb)
{
	int ret = plugdev_finish(rb->pd);

	return ret ? ret : timeorder_release(rb->order, UINT64_MAX);
}

int report_btt_output(FILE *fp, struct report_btt *rb, bool json)
{
	int ret = report_btt_finish(rb);

	if (ret < 0)
		return ret;
	btt_finish(rb->b);
	return json ? out_btt_json(fp, rb->b) : out_btt_text(fp, rb->b);
}
