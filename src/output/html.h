/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html.h - "report --html": one self-contained HTML page (no network, no
 * external script, style or font) with SVG charts drawn by blkstack.
 */
#ifndef BLKSTACK_OUT_HTML_H
#define BLKSTACK_OUT_HTML_H

#include <stdio.h>

#include "output/report.h"

/* Columns of a heatmap at most: pairs of series bins are drawn as one beyond it. */
#define HTML_HEAT_COLS 120

/**
 * out_report_html - the page: the stack with each layer's I/Os, MiB/s and
 * p50/p99; per layer throughput, IOPS and in-flight over time, latency
 * heatmaps and offsets against time; the waterfall; the slowest I/Os as
 * span diagrams; the text report's tables. @r->time must hold the series
 * (report_extra_time() for HTML). Returns 0 or -errno.
 */
int out_report_html(FILE *fp, const struct report *r);

#endif /* BLKSTACK_OUT_HTML_H */
