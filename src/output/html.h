/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html.h - "report --html": one self-contained HTML page (no network, no
 * external script, style or font) that finds the costliest layer at a
 * glance; SVG charts drawn by blkstack, made zoomable by the charting
 * library inlined from its installed file when there is one.
 */
#ifndef BLKSTACK_OUT_HTML_H
#define BLKSTACK_OUT_HTML_H

#include <stdio.h>

#include "output/report.h"

/* Columns of a heatmap at most: pairs of series bins are drawn as one beyond it. */
#define HTML_HEAT_COLS 120

/**
 * out_report_html - the page: the overview (the costliest layer per
 * operation, the stack as a tree coloured by each layer's share of the
 * end-to-end time, what was not followed, the markers, every layer's
 * latency over time); each operation apart (waterfall, throughput, IOPS,
 * heatmaps); in-flight I/Os and offsets; the slowest I/Os as a table and
 * waterfalls; the tables. @r->time must hold the series
 * (report_extra_time() for HTML), @r->amp the amplification when there is
 * one. Returns 0 or -errno.
 */
int out_report_html(FILE *fp, const struct report *r);

#endif /* BLKSTACK_OUT_HTML_H */
