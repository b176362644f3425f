/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * monitor-record.h - the flight recorder of blkstack monitor: the last
 * seconds of raw pages kept in a fixed ring (capture/flight), the
 * conditions that trigger a recording, and the trace.dat written then, as
 * blkstack record writes one, with the stack inside. Command glue: it
 * prints what it wrote and why.
 */
#ifndef BLKSTACK_CMD_MONITOR_RECORD_H
#define BLKSTACK_CMD_MONITOR_RECORD_H

#include <stdint.h>

#include "cmd/live.h"
#include "cmd/monitor.h"
#include "track/tracker.h"

struct mrec;

/**
 * mrec_open - set up the recorder on @l (opened, not started): the ring,
 * the formats of this kernel, the page tap, SIGUSR1 when asked
 * Returns the recorder, or NULL after printing what failed.
 */
struct mrec *mrec_open(const struct monitor_record_params *p, struct live *l);

/** mrec_io - look at a completed tree: a bio slower than latency>TIME triggers */
void mrec_io(struct mrec *r, const struct tk_io *io);

/** mrec_interval - an interval ended: p99>TIME is checked and starts afresh */
void mrec_interval(struct mrec *r);

/**
 * mrec_pass - after a read pass: take the triggers (and @http_requests, the
 * POST /record count so far) and write a recording when one is due
 */
void mrec_pass(struct mrec *r, uint64_t http_requests);

/** mrec_count - recordings written */
uint64_t mrec_count(const struct mrec *r);

/** mrec_close - NULL is accepted */
void mrec_close(struct mrec *r);

#endif /* BLKSTACK_CMD_MONITOR_RECORD_H */
