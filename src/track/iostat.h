/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iostat.h - what /proc/diskstats counts, per device, from the events:
 * iostat -x's columns at every layer of the stack.
 *
 * The kernel accounts a request-based device per request, from the
 * request's start (its allocation: getrq, G) to its completion, and a
 * bio-based device (dm, md, zram) per bio, from its submission (Q) to its
 * completion; merges are bios merged into a request (M, F). Busy time
 * (%util) is counted as the kernel's io_ticks are; the queue size
 * (aqu-sz) is the sum of the completed I/Os' times over the interval, as
 * the kernel's time_in_queue is. This module applies those rules to the
 * event stream, per device and operation, for one interval at a time
 * (iostat_interval() starts the next, keeping what is in flight).
 */
#ifndef BLKSTACK_IOSTAT_H
#define BLKSTACK_IOSTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/event.h"

/* iostat's groups: read, write, discard, flush */
enum ios_grp {
	IOS_READ = 0,
	IOS_WRITE,
	IOS_DISCARD,
	IOS_FLUSH,
	IOS_GRPS
};

/**
 * struct ios_grp_stat - one group of one device over the interval
 * @ios: I/Os completed (requests, or bios at a bio-based device)
 * @sectors: sectors completed
 * @merges: bios merged into a request
 * @ticks_ns: the completed I/Os' times from start to completion, summed
 */
struct ios_grp_stat {
	uint64_t ios;
	uint64_t sectors;
	uint64_t merges;
	uint64_t ticks_ns;
};

/* an I/O started and not yet completed */
struct ios_pending {
	uint64_t key;		/* request: its first sector; bio: its end sector */
	uint64_t start;
	uint32_t left;		/* sectors not completed yet */
	uint8_t grp;
	bool issued;		/* a request issued to the device (D) */
};

/**
 * struct ios_dev - one device
 * @dev: the device
 * @rq_based: request events were seen: accounted per request
 * @grp: per group, this interval
 * @io_ticks: busy time this interval (ns), as the kernel counts it
 * @stamp: the last start or completion
 * @issued: requests issued and not completed
 * @acct: block_io_start and block_io_done were seen: the kernel's own
 *	  accounting points time the busy jiffies, not G and C
 * @acct_inflight: requests between those two
 * @pending, @npending, @cap: the I/Os in flight
 * @unmatched: completions that matched no start
 */
struct ios_dev {
	uint32_t dev;
	bool rq_based;
	struct ios_grp_stat grp[IOS_GRPS];
	uint64_t io_ticks;
	uint64_t stamp;
	uint64_t issued;
	bool acct;
	uint64_t acct_inflight;
	struct ios_pending *pending;
	size_t npending, cap;
	uint64_t unmatched;
};

/* I/Os in flight followed per device at most */
#define IOS_MAX_PENDING 65536

struct iostat;

/**
 * iostat_alloc - empty accounting
 * @hz: the traced kernel's timer frequency (CONFIG_HZ): it counts busy time
 *	in whole jiffies, and so does this; 0 counts in ns
 * Returns the accounting, or NULL with errno set.
 */
struct iostat *iostat_alloc(unsigned int hz);

/**
 * iostat_set_hz - the traced kernel's CONFIG_HZ, once known (a recording
 * says it when opened); before the first event
 */
void iostat_set_hz(struct iostat *s, unsigned int hz);

/** iostat_free - NULL is accepted */
void iostat_free(struct iostat *s);

/**
 * iostat_event - take one event in time order (a blk_event_fn): a block
 * event, or a tick (tickevent.h), which says where the kernel's jiffies
 * fall; without ticks, they are taken to fall on multiples of the tick
 * on the trace clock. Returns 0.
 */
int iostat_event(const struct blk_event *ev, void *ctx);

/**
 * iostat_count_started - which requests keep a request-based device busy
 * @started: true: every request started (allocated) and not completed, as
 *	     kernels from 6.16 count them; false (the default): the requests
 *	     issued to the driver, as blk-mq's in-flight walk counted before
 */
void iostat_count_started(struct iostat *s, bool started);

/**
 * iostat_release_counts_started - whether a kernel of release @release
 * ("6.18.44-amd64") counts a request-based device busy while requests are
 * started, as 6.16 and later do, rather than issued (iostat_count_started())
 * Returns 1 (started), 0 (issued), or -EINVAL when @release does not
 * start with MAJOR.MINOR.
 */
int iostat_release_counts_started(const char *release);

/** iostat_ticks_seen - how many tick events iostat_event() was given */
uint64_t iostat_ticks_seen(const struct iostat *s);

/**
 * iostat_interval - begin a new interval at @ts: the counts restart, what
 * is in flight stays (it completes in the new interval, as in diskstats)
 */
void iostat_interval(struct iostat *s, uint64_t ts);

/** iostat_ndevs - devices seen */
size_t iostat_ndevs(const struct iostat *s);

/** iostat_dev - the @i'th device seen, in order of first appearance */
const struct ios_dev *iostat_dev(const struct iostat *s, size_t i);

/**
 * struct ios_row - iostat -x's columns of one device over an interval
 * (per second, kB, ms and % as iostat prints them)
 */
struct ios_row {
	double rs[IOS_GRPS];		/* r/s w/s d/s f/s */
	double kbs[IOS_GRPS];		/* rkB/s wkB/s dkB/s */
	double rqms[IOS_GRPS];		/* rrqm/s wrqm/s drqm/s */
	double pct_rqm[IOS_GRPS];	/* %rrqm %wrqm %drqm */
	double await[IOS_GRPS];		/* r_await w_await d_await f_await, ms */
	double areq_sz[IOS_GRPS];	/* rareq-sz wareq-sz dareq-sz, kB */
	double aqu_sz;
	double util;			/* % */
};

/**
 * iostat_row - the columns of @d for the interval from @start to @end
 * (ns): rates over its length, the busy time up to @end
 */
void iostat_row(const struct ios_dev *d, uint64_t start, uint64_t end, struct ios_row *row);

#endif /* BLKSTACK_IOSTAT_H */
