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
#include "output/report.h"
#include "track/iostat.h"

/**
 * struct report_iostat - the consumer of report --iostat
 * @s: the accounting
 * @first, @last: the first and last event's time: the interval
 */
struct report_iostat {
	struct iostat *s;
	uint64_t first, last;
};

/** report_iostat_init - with the traced kernel's CONFIG_HZ (see
 * iostat_alloc()). Returns 0 or -ENOMEM. */
int report_iostat_init(struct report_iostat *ri, unsigned int hz);

/** report_iostat_hz - this kernel's CONFIG_HZ from /boot/config-RELEASE,
 * else /proc/config.gz (CONFIG_IKCONFIG_PROC), 0 when neither can be read */
unsigned int report_iostat_hz(void);

/**
 * report_iostat_counts_started - whether this kernel counts a device busy
 * while requests are started (6.16 and later) rather than issued (see
 * iostat_count_started())
 */
bool report_iostat_counts_started(void);

/* CONFIG_HZ taken for a recording, and when this kernel's is unknown:
 * Debian's, Fedora's and Ubuntu's kernels have 250 or 1000 */
#define REPORT_IOSTAT_DEFAULT_HZ 250

/** report_iostat_destroy - half-built objects are accepted */
void report_iostat_destroy(struct report_iostat *ri);

/** report_iostat_event - take one event (a blk_event_fn). Returns 0. */
int report_iostat_event(const struct blk_event *ev, void *ctx);

/** report_iostat_output - iostat -x's table, text or JSON, with device
 * names from @name. Returns 0 or -errno. */
int report_iostat_output(FILE *fp, struct report_iostat *ri, bool json, report_name_fn name,
			 void *ctx);

#endif /* BLKSTACK_CMD_REPORT_IOSTAT_H */
