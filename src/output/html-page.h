/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * html-page.h - what the parts of the HTML page share: the page being
 * written, the layers in the stack's order with a colour each, and the
 * charts, tables and script that html.c puts together.
 *
 * Every chart is drawn twice over: as a static SVG that reads without
 * script (printed, in a mail client), and as data for the zoomable chart
 * that the inlined charting library (Debian's libjs-dygraphs) draws in its
 * place when the page is opened in a browser. The data stays bounded: the
 * series have at most SERIES_BINS bins whatever the trace's length.
 */
#ifndef BLKSTACK_OUT_HTML_PAGE_H
#define BLKSTACK_OUT_HTML_PAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "output/report-time.h"
#include "output/report.h"
#include "track/series.h"
#include "track/stats.h"

/* The charting library's files, as Debian's libjs-dygraphs installs them. */
#define HTML_DYGRAPHS_JS	"/usr/share/javascript/dygraphs/dygraph.min.js"
#define HTML_DYGRAPHS_CSS	"/usr/share/javascript/dygraphs/dygraph.min.css"
/* The environment variable naming another copy of dygraph.min.js (its CSS beside it). */
#define HTML_DYGRAPHS_ENV	"BLKSTACK_DYGRAPHS"

/**
 * struct html_page - the page being written
 * @fp: where
 * @r: the report
 * @s: the series (NULL: none, no chart over time)
 * @order: the layers' indices in @r->st, in the stack's order (each layer,
 *	   then the layers under it), @n of them
 * @depth: the depth of each in that tree
 * @n: how many layers
 * @lib_js, @lib_css: the charting library's text, NULL when it is absent
 * @lib_note: why it is absent (said on the page)
 * @data: the charts' data, a JSON object's members written as charts are
 * @data_buf, @data_len: @data's memory
 * @ncharts: charts so far (their ids)
 */
struct html_page {
	FILE *fp;
	const struct report *r;
	const struct series *s;
	size_t *order;
	uint8_t *depth;
	size_t n;
	char *lib_js, *lib_css;
	char lib_note[320];
	FILE *data;
	char *data_buf;
	size_t data_len;
	unsigned int ncharts;
};

/* ---- html.c ---- */

/** html_label - the layer's name ("dm-3"), as the text report gives it */
const char *html_label(const struct html_page *pg, uint32_t dev, char *buf, size_t len);

/** html_layer_colour - the colour of the layer at position @pos of @pg->order */
const char *html_layer_colour(size_t pos);

/** html_op_title - "Reads", "Writes", "Discards", "Flushes", "Other I/O" */
const char *html_op_title(enum st_op op);

/** html_fmt_lat - a latency with its unit, 3 significant digits ("87.2 us") */
void html_fmt_lat(char *buf, size_t len, double ns);

/** html_time - seconds of the trace clock of ns @ts */
static inline double html_time(uint64_t ts)
{
	return ts / 1e9;
}

/* ---- html-charts.c ---- */

/**
 * enum html_line_what - what a chart of every layer over time shows for
 * one operation
 */
enum html_line_what {
	HTML_LINE_LATENCY,	/* mean C - Q per bin, log scale, with the slowest I/Os */
	HTML_LINE_MIBS,		/* MiB/s completed */
	HTML_LINE_IOPS,		/* I/Os completed per second */
	HTML_LINE_INFLIGHT,	/* average in flight, every operation together */
};

/**
 * html_chart_layers - one chart: a line per layer of @what for @op, the
 * workload's markers as labelled lines; with the library, zoomable
 * @cls: extra class of the figure ("wide" spans the grid's columns)
 * Returns true when it drew something (some layer had such I/O).
 */
bool html_chart_layers(struct html_page *pg, enum html_line_what what, enum st_op op,
		       const char *cls);

/**
 * html_chart_heat - the latency heatmap of one layer and operation
 * (time x log latency, colour: I/Os, with its legend)
 * @device: the device's time (D to C) at a request-based layer; else C - Q
 * Returns true when it drew something.
 */
bool html_chart_heat(struct html_page *pg, size_t pos, enum st_op op, bool device);

/** html_chart_offsets - iowatcher's I/O graph of one layer: offsets against time */
bool html_chart_offsets(struct html_page *pg, size_t pos);

/**
 * html_time_range - the time axis of every chart, trace clock seconds:
 * the series' bins, and the workload's markers around them
 */
void html_time_range(const struct html_page *pg, double *t0, double *t1);

/** html_time_note - the time axis's note: trace clock, wall clock when known */
void html_time_note(struct html_page *pg);

/* ---- html-tables.c ---- */

/** html_table_layers - every layer and operation: I/Os, sizes, latencies (sortable) */
void html_table_layers(struct html_page *pg);

/** html_table_amp - the amplification table (report --amplification), when there is one */
void html_table_amp(struct html_page *pg);

/** html_slowest - the slowest I/Os: a table, and each as a waterfall through the stack */
void html_slowest(struct html_page *pg);

/**
 * html_pre - the text of @fn, escaped into a <pre> (the tables the page
 * does not draw itself)
 * Returns 0 or -errno.
 */
int html_pre(struct html_page *pg, int (*fn)(FILE *, const struct report *));

/* ---- html-script.c ---- */

/** html_json_str - @s as a JSON string that cannot end a <script> early */
void html_json_str(FILE *fp, const char *s);

/** html_lib_load - read the charting library when it is installed, else say why not */
void html_lib_load(struct html_page *pg);

/** html_lib_free - release it */
void html_lib_free(struct html_page *pg);

/** html_lib_style - the library's CSS into the page's <style>, when it is there */
void html_lib_style(struct html_page *pg);

/**
 * html_script - the library, the charts' data and the page's own script,
 * at the end of the page; without the library, only what sorts the tables
 * and zooms the heatmaps
 */
void html_script(struct html_page *pg);

#endif /* BLKSTACK_OUT_HTML_PAGE_H */
