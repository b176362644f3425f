/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-time.h - the time side of "blkstack report" (--slowest, --by
 * flag, --html): what the completed trees also go to, and what the outputs
 * get at the end.
 */
#ifndef BLKSTACK_CMD_REPORT_TIME_H
#define BLKSTACK_CMD_REPORT_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/pagecache.h"
#include "format/tracefile.h"
#include "output/outfile.h"
#include "output/report-time.h"
#include "track/access.h"
#include "track/flaglat.h"
#include "track/series.h"
#include "track/slowest.h"
#include "track/stats.h"

/* The slowest I/Os an HTML page shows when --slowest does not say. */
#define REPORT_HTML_SLOWEST 20

/**
 * struct report_extra - the consumers of completed trees beside the statistics
 * @st: the statistics (report_extra_io() feeds them too)
 * @slow: --slowest (or --html), NULL if neither
 * @slow_asked: --slowest was given (the text and JSON show them)
 * @flags: --by flag or --html
 * @want_flags: @flags is fed
 * @series: --html
 * @want_series: @series is fed
 * @access: --access: the access pattern and in-flight I/Os
 * @want_access: @access is fed
 * @access_asked: --access was given (the text and JSON show it)
 * @amp: --amplification, fed with every completed tree (NULL if not asked)
 * @t: the tracker, whose horizon releases @access's events (set once made)
 * @run: the page-cache side, whose owners name files (NULL: none)
 * @enomem: some tree could not be kept for want of memory
 */
struct report_extra {
	struct stats *st;
	struct slowest *slow;
	bool slow_asked;
	struct flaglat flags;
	bool want_flags;
	struct series series;
	bool want_series;
	struct access access;
	bool want_access;
	bool access_asked;
	struct amp *amp;
	struct tracker *t;
	struct pc_run *run;
	bool enomem;
};

/**
 * report_extra_init - set up what @slowest (0: none), @by_flag, @access and
 * @html ask for
 * Returns 0 or -ENOMEM.
 */
int report_extra_init(struct report_extra *x, struct stats *st, size_t slowest, bool by_flag,
		      bool access, bool html);

/** report_extra_destroy - a zeroed or half-built one is accepted */
void report_extra_destroy(struct report_extra *x);

/** report_extra_any - whether anything beyond the statistics is fed */
bool report_extra_any(const struct report_extra *x);

/** report_extra_io - a tk_io_fn: the statistics, then the extras */
void report_extra_io(const struct tk_io *io, void *ctx);

/** report_extra_owner_io - pc_run's io_fn: the extras, with the tree's file */
void report_extra_owner_io(const struct tk_io *io, int32_t owner, void *ctx);

/**
 * report_extra_time - what an output shows, ready (sorted) in @t
 * @html: for the HTML page (everything); else for the text or JSON
 *	  report, which show the slowest I/Os and the access pattern when
 *	  --slowest and --access asked for them
 * Returns @t, or NULL when that output has nothing beyond the statistics.
 */
const struct report_time *report_extra_time(struct report_extra *x, struct report_time *t,
					   bool html);

/**
 * report_html_time - what the page adds to @t (report_extra_time()'s): the
 * markers of the recording @file, or for a live run (@file NULL) the wall
 * clock of its trace clock (CLOCK_MONOTONIC)
 */
void report_html_time(struct report_time *t, struct tracefile *file);

/**
 * report_html_open - create @path.partial for the page, before the trace
 * Returns 0, or -1 after printing what failed.
 */
int report_html_open(struct outfile *of, const char *path);

/**
 * report_html_write - write the HTML page into @of (report_html_open() of
 * @path) and rename it to @path
 * Returns 0, or -1 after printing what failed (@of is then closed).
 */
int report_html_write(struct outfile *of, const char *path, const struct report *r);

#endif /* BLKSTACK_CMD_REPORT_TIME_H */
