/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-btt.h - "blkstack report --btt": the events go to btt's
 * statistics (track/btt.h, after plugdev names the device of each plug)
 * instead of the stack tracker, and btt's report is written.
 */
#ifndef BLKSTACK_CMD_REPORT_BTT_H
#define BLKSTACK_CMD_REPORT_BTT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/event.h"
#include "track/btt.h"
#include "track/plugdev.h"
#include "track/tieorder.h"
#include "track/timeorder.h"

/**
 * struct report_btt - the consumer of report --btt
 * @pd: names the device of plugs and unplugs
 * @order: puts plugdev's stream back in time order, as btt reads it
 * @ties: puts the events of one time in the order btt reads them
 * @b: btt's statistics
 */
struct report_btt {
	struct plugdev *pd;
	struct timeorder *order;
	struct tieorder *ties;
	struct btt *b;
};

/** report_btt_init - Returns 0 or -ENOMEM. */
int report_btt_init(struct report_btt *rb);

/** report_btt_destroy - half-built objects are accepted */
void report_btt_destroy(struct report_btt *rb);

/** report_btt_event - take one event (a blk_event_fn; page-cache events
 * of a recording are passed over). Returns 0. */
int report_btt_event(const struct blk_event *ev, void *ctx);

/** report_btt_finish - end of the stream: hand on what plugdev and the
 * time and tie orders still hold. Returns 0 or -errno. */
int report_btt_finish(struct report_btt *rb);
/** report_btt_output - end of the stream: btt's report as text or JSON.
 * Returns 0 or -errno. */
int report_btt_output(FILE *fp, struct report_btt *rb, bool json);

#endif /* BLKSTACK_CMD_REPORT_BTT_H */
