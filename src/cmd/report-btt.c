// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-btt.c - the glue of "blkstack report --btt": source events ->
 * plugdev -> time order -> ties in blkparse's order -> btt's statistics ->
 * btt's report (output/btt-*.c).
 */
#include <errno.h>

#include "base/pcevent.h"
#include "cmd/report-btt.h"
#include "format/btrec.h"
#include "output/btt.h"

/* what convert --to blktrace writes a record of, for blkparse to merge */
static bool has_record(const struct blk_event *ev, uint32_t dev, bool timer)
{
	return dev && btrec_action(ev, timer);
}

int report_btt_init(struct report_btt *rb)
{
	rb->b = btt_alloc();
	rb->ties = rb->b ? tieorder_alloc(btt_event, rb->b, has_record) : NULL;
	rb->order = rb->ties ? timeorder_alloc(tieorder_event, rb->ties) : NULL;
	rb->pd = rb->order ? plugdev_alloc(timeorder_event, rb->order) : NULL;
	if (rb->pd)
		timeorder_watch(rb->order, rb->pd);
	return rb->pd ? 0 : -ENOMEM;
}

void report_btt_destroy(struct report_btt *rb)
{
	plugdev_free(rb->pd);
	timeorder_free(rb->order);
	tieorder_free(rb->ties);
	btt_free(rb->b);
	rb->pd = NULL;
	rb->order = NULL;
	rb->ties = NULL;
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

	if (!ret)
		ret = timeorder_release(rb->order, UINT64_MAX);
	return ret ? ret : tieorder_finish(rb->ties);
}

int report_btt_output(FILE *fp, struct report_btt *rb, bool json)
{
	int ret = report_btt_finish(rb);

	if (ret < 0)
		return ret;
	btt_finish(rb->b);
	return json ? out_btt_json(fp, rb->b) : out_btt_text(fp, rb->b);
}
