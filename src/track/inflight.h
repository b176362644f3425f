/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inflight.h - how many I/Os are in flight at one layer, over time.
 *
 * One counter, raised when an I/O enters the state being measured and
 * lowered when it leaves, gives three figures:
 *
 * - the time-weighted average and the maximum number in flight: iostat's
 *   aqu-sz when the state is "issued to the device and not completed";
 * - the time with at least one in flight: iostat's %util (busy time);
 * - the average number found in flight by each arrival, sampled before the
 *   arrival is counted: btt's "Active Requests At Q", where the state is
 *   "queued and not yet merged or issued" (btt counts at Q and at requeue,
 *   and lowers at M and D, never below zero).
 *
 * Pure arithmetic on timestamps given by the caller (ns, any clock): no
 * allocation, no clock read, so interval views reset it with
 * inflight_window().
 */
#ifndef BLKSTACK_INFLIGHT_H
#define BLKSTACK_INFLIGHT_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct inflight - one counter
 * @now: in flight now
 * @max: the most in flight at once since the window began
 * @start: when the window began (the first change, or inflight_window())
 * @last: the last change or window start
 * @area: sum of (number in flight x time), ns, since @start up to @last
 * @busy: time with at least one in flight, ns, up to @last
 * @samples: arrivals sampled (inflight_arrive())
 * @sampled: sum of the numbers they found in flight
 * @underflow: departures while none was in flight (an arrival not seen:
 *	       the trace began with I/O in flight, or events were lost)
 * @started: the window has begun (@start is valid, even when 0)
 */
struct inflight {
	uint64_t now;
	uint64_t max;
	uint64_t start;
	uint64_t last;
	uint64_t area;
	uint64_t busy;
	uint64_t samples;
	uint64_t sampled;
	uint64_t underflow;
	bool started;
};

/** inflight_init - zero in flight, no window yet */
void inflight_init(struct inflight *f);

/**
 * inflight_window - begin a new measuring window at @ts: keep what is in
 * flight now, forget the averages, the maximum becomes the number now
 */
void inflight_window(struct inflight *f, uint64_t ts);

/** inflight_inc - one I/O enters the state at @ts */
void inflight_inc(struct inflight *f, uint64_t ts);

/**
 * inflight_arrive - one I/O enters the state at @ts, sampling first how
 * many it found there (btt's Active Requests At Q)
 */
void inflight_arrive(struct inflight *f, uint64_t ts);

/**
 * inflight_dec - one I/O leaves the state at @ts; with none in flight it
 * is counted in @underflow and the number stays at zero (btt's rule)
 */
void inflight_dec(struct inflight *f, uint64_t ts);

/**
 * inflight_avg - the time-weighted average number in flight from the
 * window's start to @end (iostat's aqu-sz); 0 for an empty window
 */
double inflight_avg(const struct inflight *f, uint64_t end);

/** inflight_busy - time with at least one in flight, from the window's
 * start to @end, in ns (iostat's %util is this over the window's length) */
uint64_t inflight_busy(const struct inflight *f, uint64_t end);

/** inflight_sampled_avg - the average number each arrival found in flight
 * (btt's "Avg Reqs @ Q"); 0 when nothing arrived */
double inflight_sampled_avg(const struct inflight *f);

#endif /* BLKSTACK_INFLIGHT_H */
