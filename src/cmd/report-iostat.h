/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-iostat.h - "blkstack report --iostat": the events go to the
 * diskstats accounting (track/iostat.h) instead of the stack tracker, and
 * iostat -x's table over the whole trace is written.
 */
#ifndef BLKSTACK_CMD_REPORT_IOSTAT_H
#define BLKSTACK_CMD_REPORT_IOSTAT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/event.h"
#include "base/tracehost.h"
#include "output/iostat.h"
#include "output/report.h"
#include "track/iostat.h"

/**
 * struct report_iostat - the consumer of report --iostat
 * @s: the accounting
 * @first, @last: the first and last event's time: the interval
 * @host: the traced machine, as the trace says it (report_iostat_host())
 * @basis: what the accounting takes of it
 */
struct report_iostat {
	struct iostat *s;
	uint64_t first, last;
	struct trace_host host;
	struct iostat_basis basis;
};

/* CONFIG_HZ taken when neither --hz nor the trace says it: Debian's,
 * Fedora's and Ubuntu's kernels have 250 or 1000 */
#define REPORT_IOSTAT_DEFAULT_HZ 250

/**
 * report_iostat_basis - what %util takes of the traced kernel @h: how it
 * counts busy time (from its release), and CONFIG_HZ (@given_hz, --hz,
 * before @h's); where @h does not say, issued requests and
 * REPORT_IOSTAT_DEFAULT_HZ, marked as assumed. @b points into @h.
 */
void report_iostat_basis(const struct trace_host *h, unsigned int given_hz,
			 struct iostat_basis *b);

/** report_iostat_configure - set @s to count as @b says; before the first event */
void report_iostat_configure(struct iostat *s, const struct iostat_basis *b);

/** report_iostat_init - empty accounting. Returns 0 or -ENOMEM. */
int report_iostat_init(struct report_iostat *ri);

/**
 * report_iostat_host - the traced machine, once known (live: this one; a
 * recording: what it says), with --hz (@given_hz, 0: none); before the
 * first event
 */
void report_iostat_host(struct report_iostat *ri, const struct trace_host *h,
			unsigned int given_hz);

/** report_iostat_destroy - half-built objects are accepted */
void report_iostat_destroy(struct report_iostat *ri);

/** report_iostat_event - take one event (a blk_event_fn). Returns 0. */
int report_iostat_event(const struct blk_event *ev, void *ctx);

/** report_iostat_output - iostat -x's table, text or JSON, with device
 * names from @name. Returns 0 or -errno. */
int report_iostat_output(FILE *fp, struct report_iostat *ri, bool json, report_name_fn name,
			 void *ctx);

#endif /* BLKSTACK_CMD_REPORT_IOSTAT_H */
