/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-time.h - when and which I/O was slow: the slowest top-level I/Os
 * with their path through the stack, latency split by rwbs flags, and the
 * per-layer series, for the text report, its JSON and the HTML page.
 */
#ifndef BLKSTACK_OUT_REPORT_TIME_H
#define BLKSTACK_OUT_REPORT_TIME_H

#include <json-c/json.h>
#include <libsmartcols/libsmartcols.h>
#include <stdio.h>

#include "format/tracefile.h"
#include "output/report.h"
#include "output/row.h"
#include "track/access.h"
#include "track/flaglat.h"
#include "track/series.h"
#include "track/slowest.h"

/* The file a page-cache owner names ("/mnt/x", "journal"), or NULL. */
typedef const char *(*report_file_fn)(int32_t owner, char *buf, size_t len, void *ctx);

/**
 * struct report_time - the time and outlier side of a report
 * @slow: the slowest top-level I/Os, slowest first (slowest_sorted());
 *	  NULL when not asked for
 * @nslow: how many
 * @slow_offered: top-level I/Os they were chosen from
 * @flags: latency per flag combination, sorted (flaglat_sort()); NULL when
 *	   not asked for
 * @series: the per-layer series (HTML only); NULL if none
 * @access: the access pattern and in-flight I/Os per layer, finished;
 *	    NULL when not asked for
 * @file: names the owner of a slow I/O; NULL: no file attribution
 * @file_ctx: passed to @file
 * @markers: the workload's markers (print events) in time order, HTML
 *	     only; NULL: none
 * @nmarkers: how many
 * @markers_note: why there are none, when the source could not see them
 *		  (live tracing on a kernel that cannot copy them); NULL otherwise
 * @wall_known: @wall_offset_ns is known (base/tracehost.h)
 * @wall_offset_ns: CLOCK_REALTIME minus the trace clock, ns
 * @wall_from: how the wall clock is known, or why it is not (static text)
 * @date_option: the recording carries trace-cmd's DATE option (tracehost.h)
 */
struct report_time {
	const struct slow_io *slow;
	size_t nslow;
	uint64_t slow_offered;
	const struct flaglat *flags;
	const struct series *series;
	const struct access *access;
	report_file_fn file;
	void *file_ctx;
	const struct tracefile_marker *markers;
	size_t nmarkers;
	const char *markers_note;
	bool wall_known;
	int64_t wall_offset_ns;
	const char *wall_from;
	bool date_option;
};

/**
 * out_time_text - the access pattern, in-flight I/Os and the slowest I/Os
 * as text, after the per-layer report (what @r->time holds)
 * Returns 0 or -errno.
 */
int out_time_text(FILE *fp, const struct report *r);

/** out_time_json - add "access", "slowest" and "slowest_of" to the report's document */
void out_time_json(json_object *doc, const struct report *r);

/**
 * out_flags_text - "report --by flag": the latency per layer and flag
 * combination, as its own report
 * Returns 0 or -errno.
 */
int out_flags_text(FILE *fp, const struct report *r);

/** out_flags_json - "report --by flag --json". Returns 0 or -errno. */
int out_flags_json(FILE *fp, const struct report *r);

/**
 * out_access_text - the access pattern and in-flight tables alone (the
 * HTML page's tables)
 * Returns 0 or -errno.
 */
int out_access_text(FILE *fp, const struct report *r);

/**
 * report_json_write - print @doc, pretty, and release it
 * Returns 0 or -EIO.
 */
int report_json_write(FILE *fp, json_object *doc);

/** report_cell_us - a latency in us in cell @col; "-" when @h has no sample */
void report_cell_us(struct libscols_line *ln, size_t col, const struct hist *h, double ns);

/** report_json_hist - a latency histogram as count, avg, min, p50, p90, p99, max */
json_object *report_json_hist(const struct hist *h);

/**
 * report_json_dev - add @dev as "MAJ:MIN" under @key, and for the key "dev"
 * its "name" when it has one
 */
void report_json_dev(json_object *o, const char *key, const struct report *r, uint32_t dev);

/**
 * report_time_row - a slow I/O as convert's row: one layer per device
 * @row: zeroed the first time; row_release() it after
 * Returns 0 or -ENOMEM.
 */
int report_time_row(const struct slow_io *s, struct row *row);

/**
 * report_time_caused_row - an I/O issued on behalf of a slow one, as
 * convert's row
 * @row: zeroed the first time; row_release() it after
 * Returns 0 or -ENOMEM.
 */
int report_time_caused_row(const struct slow_caused *c, struct row *row);

/** report_time_parent - the index of the layer above layer @i of @row, or -1 */
int report_time_parent(const struct row *row, size_t i);

#endif /* BLKSTACK_OUT_REPORT_TIME_H */
