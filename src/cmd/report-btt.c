// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-btt.c - the glue of "blkstack report --btt": source events ->
 * plugdev -> btt's statistics -> btt's report (output/btt-*.c).
 */
#include <errno.h>

#include "base/pcevent.h"
#include "cmd/report-btt.h"
#include "output/btt.h"

int report_btt_init(struct report_btt *rb)
{
	rb->b = btt_alloc();
	rb->pd = rb->b ? plugdev_alloc(btt_event, rb->b) : NULL;
	return rb->pd ? 0 : -ENOMEM;
}

void report_btt_destroy(struct report_btt *rb)
{
	plugdev_free(rb->pd);
	btt_free(rb->b);
	rb->pd = NULL;
	rb->b = NULL;
}

int report_btt_event(const struct blk_event *ev, void *ctx)
{
	struct report_btt *rb = ctx;

	return pc_kind_is(ev->kind) ? 0 : plugdev_event(ev, rb->pd);
}

int report_btt_output(FILE *fp, struct report_btt *rb, bool json)
{
	int ret = plugdev_finish(rb->pd);

	if (ret < 0)
		return ret;
	btt_finish(rb->b);
	return json ? out_btt_json(fp, rb->b) : out_btt_text(fp, rb->b);
}
