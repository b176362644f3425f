/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source.h - what every event source (live rings, trace.dat files) reports
 * beside its events: how much it read and how much was lost, per CPU.
 * Lost events are always reported, never hidden.
 */
#ifndef BLKSTACK_SOURCE_H
#define BLKSTACK_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

/**
 * struct source_cpu_stats - accounting of one CPU's stream
 * @events: block events decoded
 * @other: records of other event types, skipped
 * @malformed: block records too short for their format, skipped
 * @missed: events the ring buffer reported lost between pages (kbuffer's
 *	    missed-events count, or the record's in a trace.dat)
 * @missed_unknown: pages that said "events were lost" without a count
 * @overrun: the kernel's per-CPU overrun counter at the end (live only)
 * @dropped: the kernel's per-CPU dropped-events counter (live only)
 * @pages: sub-buffers read
 * @bytes: bytes of sub-buffers read
 * @truncated: bytes of this CPU's data that a file announces but lacks
 * @time_back: records of a file timed before the previous one of their CPU
 *	       (a CPU's buffer is in time order: damage, or a wrapped time)
 * @time_jumps: records of a file timed more than a day after the previous
 *		one of their CPU (a damaged page time stamp, as a rule)
 * @last_ts: the time of the CPU's last record, for the two above
 */
struct source_cpu_stats {
	uint64_t events;
	uint64_t other;
	uint64_t malformed;
	uint64_t missed;
	uint64_t missed_unknown;
	uint64_t overrun;
	uint64_t dropped;
	uint64_t pages;
	uint64_t bytes;
	uint64_t truncated;
	uint64_t time_back;
	uint64_t time_jumps;
	uint64_t last_ts;
};

/**
 * struct source_stats - accounting of a whole source
 * @live: a live session (overrun and dropped come from the kernel)
 * @ncpu: entries in @cpu
 * @cpu: per-CPU accounting
 */
struct source_stats {
	bool live;
	int ncpu;
	struct source_cpu_stats *cpu;
};

/**
 * source_cpu_lost - events lost on one CPU, known counts only. The
 * pages' missed counts and the kernel's overrun count the same events
 * (the kernel overwrote them, and told the reader on the next page): the
 * larger is the loss so far, the reader learning of it a page late.
 */
static inline uint64_t source_cpu_lost(const struct source_cpu_stats *cs)
{
	return (cs->missed > cs->overrun ? cs->missed : cs->overrun) + cs->dropped;
}

/** source_lost_total - events lost on all CPUs, known counts only */
static inline uint64_t source_lost_total(const struct source_stats *st)
{
	uint64_t n = 0;

	for (int i = 0; i < st->ncpu; i++)
		n += source_cpu_lost(&st->cpu[i]);
	return n;
}

#endif /* BLKSTACK_SOURCE_H */
