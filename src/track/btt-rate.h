/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt-rate.h - btt's figures per interval of time: I/Os and blocks
 * completed per whole second of the trace (its iops_fp.dat and
 * mbps_fp.dat), and seeks per second over windows of one second (its -m
 * files). Pure logic: a row leaves when the event that closes its
 * interval arrives, and the last one at the end, as btt writes them.
 *
 * btt's rules (blktrace 1.2, rstats.c and seek.c):
 *
 * - per second: a completion at T seconds from the trace's first event
 *   counts in second floor(T); the first completion opens its second, and
 *   one in a later second closes the open one. Seconds with no completion
 *   have no row, and the last row is written at the end whatever it holds:
 *   "-1 0" when nothing completed at all.
 * - seeks per second: a window opens at a seek and takes every seek less
 *   than one second after its opening; the first seek one second or more
 *   after it closes it and opens the next. Its row is the opening time and
 *   the seeks divided by the time from its first to its last seek, or the
 *   number of seeks when that is one or no time passed.
 */
#ifndef BLKSTACK_BTT_RATE_H
#define BLKSTACK_BTT_RATE_H

#include <stdbool.h>
#include <stdint.h>

/**
 * btt_secs - @ns from the trace's first event as btt holds a time: whole
 * seconds plus nanoseconds / 1e9, so that comparisons and rows come out
 * as btt's, to the last bit
 */
static inline double btt_secs(uint64_t ns)
{
	return (double)(ns / 1000000000ULL) + (double)(ns % 1000000000ULL) / 1.0e9;
}

/**
 * struct btt_persec - completions per whole second (btt's rstat); at the
 * end, the open second is itself the last row
 * @sec: the second being counted, -1 before the first completion
 * @ios: completions in it
 * @blks: their 512-byte blocks
 */
struct btt_persec {
	int64_t sec;
	uint64_t ios, blks;
};

/** btt_persec_init - nothing counted yet */
void btt_persec_init(struct btt_persec *p);

/**
 * btt_persec_add - a completion of @blks at @ns from the trace's start
 * Returns true with *@row the second it closed (@row->sec, ios, blks).
 */
bool btt_persec_add(struct btt_persec *p, uint64_t ns, uint64_t blks, struct btt_persec *row);

/** btt_persec_mib - @row's blocks in MiB, btt's mbps column */
static inline double btt_persec_mib(const struct btt_persec *row)
{
	return ((double)row->blks * 512.0) / (1024.0 * 1024.0);
}

/**
 * struct btt_sps - one stream's window of seeks per second
 * @start, @last: the window's first and last seek (btt_secs)
 * @n: seeks in it, 0 before the first
 */
struct btt_sps {
	double start, last;
	uint64_t n;
};

/** struct btt_sps_row - a closed window: its opening time and rate */
struct btt_sps_row {
	double t;
	double rate;
};

/**
 * btt_sps_add - a seek at @t (btt_secs)
 * Returns true with *@row the window it closed.
 */
bool btt_sps_add(struct btt_sps *s, double t, struct btt_sps_row *row);

/**
 * btt_sps_end - the trace ended
 * Returns true with *@row the open window, false when it held no seek.
 */
bool btt_sps_end(const struct btt_sps *s, struct btt_sps_row *row);

#endif /* BLKSTACK_BTT_RATE_H */
