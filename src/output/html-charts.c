// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * html-charts.c - the HTML page's charts over time: every layer's latency,
 * throughput, IOPS or in-flight I/Os per operation in one chart, latency
 * heatmaps per layer and operation, and offsets against time.
 *
 * Each is a <figure> with its title, a legend and a static SVG. Line charts
 * also leave their data in the page's JSON: the page's script has the
 * charting library draw them in place of the SVG, zoomable, and every
 * chart follows a zoom. Heatmaps and offset charts stay SVG: their cells
 * sit in a nested <svg> whose viewBox is the time window, so that a zoom
 * is one attribute. The x axis is the trace clock's seconds, as trace-cmd
 * report prints them, so that a time read here can be found there.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/html-page.h"
#include "output/html.h"
#include "output/svg.h"

/* The static SVG of a line chart: its viewBox, and the plot area in it. */
#define VB_W	600.0
#define VB_H	236.0
#define PL	62.0
#define PR	10.0
#define PT	8.0
#define PB	52.0

void html_time_range(const struct html_page *pg, double *t0, double *t1)
{
	const struct report_time *t = pg->r->time;
	const struct series *s = pg->s;

	*t0 = html_time(s->t0);
	*t1 = html_time(s->t0 + s->nbins * s->width_ns);
	/* the workload's phases around the I/O: a marker may come before the first one */
	if (t && t->nmarkers) {
		double m0 = html_time(t->markers[0].ts), m1 = html_time(t->markers[t->nmarkers - 1].ts);

		*t0 = m0 < *t0 ? m0 : *t0;
		*t1 = m1 > *t1 ? m1 : *t1;
	}
	if (*t1 <= *t0)
		*t1 = *t0 + 1e-3;
}

/* Decimals that tell ticks @step apart. */
static int tick_decimals(double step)
{
	int d = (int)ceil(-log10(step) - 1e-9);

	return d < 0 ? 0 : d > 9 ? 9 : d;
}

/* The time ticks and the x axis's label, under a plot area [x, x + w] for [t0, t1] s. */
static void time_axis(FILE *fp, double x, double y, double w, double t0, double t1)
{
	double step = svg_nice_step(t1 - t0, w > 400 ? 7 : 4);
	int dec = tick_decimals(step);

	fprintf(fp, "<g class=\"xt\" data-x=\"%.1f\" data-y=\"%.1f\" data-w=\"%.1f\">", x, y, w);
	for (double v = ceil(t0 / step) * step; v <= t1 + step * 1e-9; v += step) {
		double px = x + (v - t0) / (t1 - t0) * w;

		fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" "
			    "stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" class=\"tick\" "
			    "text-anchor=\"middle\">%.*f</text>", px, y, px, y + 4, px, y + 15, dec, v);
		if (v + step <= v)
			break;
	}
	fputs("</g>\n", fp);
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"xlabel\" text-anchor=\"middle\">trace "
		    "time (s)</text>\n", x + w / 2, y + 30);
}

static void y_label(FILE *fp, double y, double h, const char *label)
{
	fprintf(fp, "<text class=\"ylabel\" text-anchor=\"middle\" transform=\"translate(13 %.1f) "
		    "rotate(-90)\">", y + h / 2);
	svg_text(fp, label);
	fputs("</text>\n", fp);
}

/* The workload's markers as lines across a plot area, labelled when @labels. */
static void marker_lines(const struct html_page *pg, double x, double y, double w, double h,
			 double t0, double t1, bool labels)
{
	const struct report_time *t = pg->r->time;
	FILE *fp = pg->fp;

	for (size_t i = 0; t && i < t->nmarkers; i++) {
		double ts = html_time(t->markers[i].ts), px;

		if (ts < t0 || ts > t1)
			continue;
		px = x + (ts - t0) / (t1 - t0) * w;
		fprintf(fp, "<g class=\"marker\"><title>");
		svg_text(fp, t->markers[i].text);
		fprintf(fp, " (%.6f s)</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"#555\" stroke-dasharray=\"3 2\" stroke-width=\"0.8\"/>", ts, px, y,
			px, y + h);
		if (labels) {
			fprintf(fp, "<text class=\"mk\" transform=\"translate(%.1f %.1f) rotate(90)\">",
				px + 2, y + 3);
			svg_text(fp, t->markers[i].text);
			fputs("</text>", fp);
		}
		fputs("</g>\n", fp);
	}
}

static void legend_key(FILE *fp, const char *colour, const char *name, const char *shape)
{
	fprintf(fp, "<span class=\"key\"><i class=\"%s\" style=\"background:%s\"></i>", shape,
		colour);
	svg_text(fp, name);
	fputs("</span>", fp);
}

static void figure_open(struct html_page *pg, const char *cls, const char *title, unsigned int id)
{
	fprintf(pg->fp, "<figure class=\"chart %s\" id=\"c%u\"><figcaption class=\"title\">", cls,
		id);
	svg_text(pg->fp, title);
	fputs("</figcaption>\n", pg->fp);
}

/* ---- every layer in one chart ------------------------------------------- */

static const char *const line_units[] = {
	[HTML_LINE_LATENCY] = "latency (ms, log)",
	[HTML_LINE_MIBS] = "throughput (MiB/s)",
	[HTML_LINE_IOPS] = "I/Os per second (IOPS)",
	[HTML_LINE_INFLIGHT] = "I/Os in flight (average)",
};

/* The value of bin @b; NAN where a latency has no I/O to be the mean of. */
static double bin_value(const struct series *s, const struct series_layer *l,
			enum html_line_what what, enum series_dir d, size_t b)
{
	double w_s = s->width_ns / 1e9;
	uint64_t n = 0;

	switch (what) {
	case HTML_LINE_LATENCY:
		for (int k = 0; k < SERIES_LAT_BUCKETS; k++)
			n += l->heat_total[d][b][k];
		return n ? l->lat_sum_ns[d][b] / 1e6 / n : NAN;
	case HTML_LINE_MIBS:
		return l->bytes[d][b] / 1048576.0 / w_s;
	case HTML_LINE_IOPS:
		return l->ios[d][b] / w_s;
	case HTML_LINE_INFLIGHT:
		return (double)l->busy_ns[b] / s->width_ns;
	}
	return NAN;
}

static bool layer_has(const struct series_layer *l, enum html_line_what what, enum series_dir d,
		      size_t nbins)
{
	for (size_t b = 0; b < nbins; b++)
		if (what == HTML_LINE_INFLIGHT ? l->busy_ns[b] != 0 :
		    what == HTML_LINE_MIBS ? l->bytes[d][b] != 0 : l->ios[d][b] != 0)
			return true;
	return false;
}

/* The slowest I/Os of @op: the time they entered the stack and their latency, ms. */
static size_t slow_points(const struct html_page *pg, enum st_op op, double *x, double *y,
			  size_t max)
{
	const struct report_time *t = pg->r->time;
	size_t n = 0;

	for (size_t i = 0; t && t->slow && i < t->nslow && n < max; i++) {
		const struct tk_rec *root = &t->slow[i].recs[0];

		if (st_op_of_rec(root) != op)
			continue;
		x[n] = html_time(root->q);
		y[n++] = t->slow[i].lat / 1e6;
	}
	return n;
}

/* Log10 of the latency range, whole decades around [lo, hi] ms. */
static void log_range(double lo, double hi, double *a, double *b)
{
	*a = floor(log10(lo > 0 ? lo : 1e-3));
	*b = ceil(log10(hi > 0 ? hi : 1));
	if (*b <= *a)
		*b = *a + 1;
}

static void latency_tick(char *buf, size_t len, double ms)
{
	if (ms >= 1000)
		snprintf(buf, len, "%.0f s", ms / 1000);
	else if (ms >= 1)
		snprintf(buf, len, "%.0f ms", ms);
	else
		snprintf(buf, len, "%.0f us", ms * 1000);
}

bool html_chart_layers(struct html_page *pg, enum html_line_what what, enum st_op op,
		       const char *cls)
{
	const struct series *s = pg->s;
	enum series_dir d = (enum series_dir)op;
	const struct series_layer *ls[64];
	double t0, t1, lo = INFINITY, hi = 0, ya, yb, sx[64], sy[64];
	size_t pos[64], n = 0, nslow = 0;
	unsigned int id;
	char title[200], num[32];
	FILE *fp = pg->fp;
	bool logy = what == HTML_LINE_LATENCY;

	if (!s || !s->nbins)
		return false;
	for (size_t i = 0; i < pg->n && n < 64; i++) {
		const struct series_layer *l = series_layer_of(s, pg->r->st->layers[pg->order[i]].dev);

		if (l && layer_has(l, what, d, s->nbins)) {
			ls[n] = l;
			pos[n++] = i;
		}
	}
	if (!n)
		return false;
	if (what == HTML_LINE_LATENCY)
		nslow = slow_points(pg, op, sx, sy, 64);
	for (size_t j = 0; j < n; j++)
		for (size_t b = 0; b < s->nbins; b++) {
			double v = bin_value(s, ls[j], what, d, b);

			if (isnan(v) || (logy && v <= 0))
				continue;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	for (size_t j = 0; j < nslow; j++) {
		lo = sy[j] < lo ? sy[j] : lo;
		hi = sy[j] > hi ? sy[j] : hi;
	}
	html_time_range(pg, &t0, &t1);
	id = pg->ncharts++;
	switch (what) {
	case HTML_LINE_LATENCY:
		snprintf(title, sizeof(title), "%s: mean latency at each layer (C \xe2\x88\x92 Q, "
			 "per %.3g ms)%s", html_op_title(op), s->width_ns / 1e6,
			 nslow ? "; dots: the slowest I/Os, end to end" : "");
		break;
	case HTML_LINE_MIBS:
		snprintf(title, sizeof(title), "%s: throughput at each layer", html_op_title(op));
		break;
	case HTML_LINE_IOPS:
		snprintf(title, sizeof(title), "%s: I/Os per second at each layer", html_op_title(op));
		break;
	case HTML_LINE_INFLIGHT:
		snprintf(title, sizeof(title), "Every operation: I/Os in flight at each layer "
			 "(average per %.3g ms)", s->width_ns / 1e6);
		break;
	}
	figure_open(pg, cls, title, id);
	fputs("<div class=\"legend\">", fp);
	for (size_t j = 0; j < n; j++)
		legend_key(fp, html_layer_colour(pos[j]),
			   html_label(pg, ls[j]->dev, num, sizeof(num)), "line");
	if (nslow)
		legend_key(fp, "#000", "slowest I/Os", "dot");
	if (pg->r->time && pg->r->time->nmarkers)
		legend_key(fp, "#555", "markers", "dash");
	fprintf(fp, "</div><div class=\"readout\" id=\"r%u\"></div>\n<div class=\"plot\" "
		    "data-chart=\"c%u\"><svg class=\"static\" viewBox=\"0 0 %.0f %.0f\" "
		    "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", id, id, VB_W, VB_H);

	{
		struct svg_plot p = { .x = PL, .y = PT, .w = VB_W - PL - PR, .h = VB_H - PT - PB,
				      .xmin = t0, .xmax = t1 };

		if (logy) {
			log_range(lo, hi, &ya, &yb);
			p.ymin = ya;
			p.ymax = yb;
			for (double e = ya; e <= yb; e++) {
				double py = svg_py(&p, e);

				latency_tick(num, sizeof(num), pow(10, e));
				fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					    "stroke=\"#ddd\" stroke-width=\"0.5\"/><text x=\"%.1f\" "
					    "y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
					p.x, py, p.x + p.w, py, p.x - 4, py + 3, num);
			}
		} else {
			double step = svg_nice_step(hi > 0 ? hi * 1.05 : 1, 4);

			p.ymax = hi > 0 ? hi * 1.05 : 1;
			for (double v = 0; v <= p.ymax + step * 1e-9; v += step) {
				double py = svg_py(&p, v);

				fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					    "stroke=\"#ddd\" stroke-width=\"0.5\"/><text x=\"%.1f\" "
					    "y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s</text>\n",
					p.x, py, p.x + p.w, py, p.x - 4, py + 3,
					svg_num(v, num, sizeof(num)));
			}
		}
		fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
			    "stroke=\"#444\" stroke-width=\"0.5\"/>\n", p.x, p.y, p.w, p.h);
		time_axis(fp, p.x, p.y + p.h, p.w, t0, t1);
		y_label(fp, p.y, p.h, line_units[what]);
		marker_lines(pg, p.x, p.y, p.w, p.h, t0, t1, true);
		for (size_t j = 0; j < n; j++) {
			bool open = false;

			fprintf(fp, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
				    "stroke-linecap=\"round\" d=\"",
				html_layer_colour(pos[j]));
			for (size_t b = 0; b < s->nbins; b++) {
				double v = bin_value(s, ls[j], what, d, b);
				double x = html_time(s->t0 + (b * 2 + 1) * (s->width_ns / 2));

				if (isnan(v) || (logy && v <= 0)) {
					open = false;
					continue;
				}
				/* a bin alone between gaps is still seen: a dot */
				fprintf(fp, "%c%.1f %.1f%s", open ? 'L' : 'M', svg_px(&p, x),
					svg_py(&p, logy ? log10(v) : v), open ? "" : "l0 0");
				open = true;
			}
			fputs("\"/>\n", fp);
		}
		for (size_t j = 0; j < nslow; j++)
			fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.8\" fill=\"#000\"><title>"
				    "%.6f s: %.3f ms</title></circle>\n", svg_px(&p, sx[j]),
				svg_py(&p, log10(sy[j])), sx[j], sy[j]);
	}
	fputs("</svg></div></figure>\n", fp);

	/* the same for the charting library: rows of [time, a value per layer] */
	fprintf(pg->data, "%s\"c%u\":{\"y\":", id ? "," : "", id);
	html_json_str(pg->data, line_units[what]);
	fprintf(pg->data, ",\"log\":%s,\"gap\":%s,\"labels\":[\"time\"", logy ? "true" : "false",
		logy ? "true" : "false");
	for (size_t j = 0; j < n; j++) {
		fputc(',', pg->data);
		html_json_str(pg->data, html_label(pg, ls[j]->dev, num, sizeof(num)));
	}
	fputs("],\"colors\":[", pg->data);
	for (size_t j = 0; j < n; j++)
		fprintf(pg->data, "%s\"%s\"", j ? "," : "", html_layer_colour(pos[j]));
	fputs("],\"d\":[", pg->data);
	for (size_t b = 0; b < s->nbins; b++) {
		fprintf(pg->data, "%s[%.6f", b ? "," : "",
			html_time(s->t0 + (b * 2 + 1) * (s->width_ns / 2)));
		for (size_t j = 0; j < n; j++) {
			double v = bin_value(s, ls[j], what, d, b);

			if (isnan(v))
				fputs(",null", pg->data);
			else
				fprintf(pg->data, ",%.6g", v);
		}
		fputc(']', pg->data);
	}
	fputs("],\"slow\":[", pg->data);
	for (size_t j = 0; j < nslow; j++)
		fprintf(pg->data, "%s[%.6f,%.6g]", j ? "," : "", sx[j], sy[j]);
	fputs("]}", pg->data);
	return true;
}

/* ---- heatmaps ------------------------------------------------------------ */

/* Colour levels of a heatmap at most: I/Os per cell on a log2 scale. */
#define HEAT_LEVELS 8

static void lat_label(char *buf, size_t len, unsigned int b)
{
	uint64_t ns = series_lat_low_ns(b);

	if (!b)
		snprintf(buf, len, "0");
	else if (ns >= 1000000000)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g us", ns / 1e3);
}

static unsigned int level_of(uint64_t v)
{
	unsigned int lv = 0;

	while (v > 1 && lv < HEAT_LEVELS - 1) {
		v >>= 1;
		lv++;
	}
	return lv;
}

bool html_chart_heat(struct html_page *pg, size_t pos, enum st_op op, bool device)
{
	const struct series *s = pg->s;
	const struct series_layer *l;
	enum series_dir d = (enum series_dir)op;
	const uint32_t (*heat)[SERIES_LAT_BUCKETS];
	size_t group, cols;
	unsigned int lo = SERIES_LAT_BUCKETS, hi = 0, top = 0, rows;
	uint64_t max = 0, total = 0;
	double t0, t1, w = VB_W - PL - PR, rh, h, cw;
	char name[64], title[200], col[8], lab[32];
	FILE *fp = pg->fp;
	unsigned int id;

	if (!s || !s->nbins)
		return false;
	l = series_layer_of(s, pg->r->st->layers[pg->order[pos]].dev);
	if (!l || (device && !l->dev_seen))
		return false;
	heat = device ? l->heat_dev[d] : l->heat_total[d];
	group = (s->nbins + HTML_HEAT_COLS - 1) / HTML_HEAT_COLS;
	group = group ? group : 1;
	cols = (s->nbins + group - 1) / group;
	for (size_t c = 0; c < cols; c++)
		for (unsigned int k = 0; k < SERIES_LAT_BUCKETS; k++) {
			uint64_t v = 0;

			for (size_t b = c * group; b < (c + 1) * group && b < s->nbins; b++)
				v += heat[b][k];
			if (!v)
				continue;
			total += v;
			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
			max = v > max ? v : max;
		}
	if (!total)
		return false;
	/* at least two decades of latency, so that one bucket is not the whole height */
	if (hi - lo < 6)
		lo = hi >= 6 ? hi - 6 : 0;
	rows = hi - lo + 1;
	rh = rows * 9.0 < 130 ? 130.0 / rows : 9.0;
	h = PT + rows * rh + PB + 4;
	html_time_range(pg, &t0, &t1);
	cw = group * s->width_ns / 1e9;
	html_label(pg, l->dev, name, sizeof(name));
	snprintf(title, sizeof(title), "%s at %s: %s (%'" PRIu64 " I/Os)", html_op_title(op), name,
		 device ? "device time, D to C, heatmap" : "latency C \xe2\x88\x92 Q heatmap",
		 total);
	id = pg->ncharts++;
	figure_open(pg, "heat", title, id);
	top = level_of(max);
	fputs("<div class=\"legend\">I/Os per cell: ", fp);
	for (unsigned int lv = 0; lv <= top; lv++) {
		char range[48];

		if (lv == top && max > (1ULL << lv))
			snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, (uint64_t)1 << lv, max);
		else if (lv)
			snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64, (uint64_t)1 << lv,
				 ((uint64_t)2 << lv) - 1);
		else
			snprintf(range, sizeof(range), "1");
		legend_key(fp, svg_viridis(top ? (double)lv / top : 1, col), range, "box");
	}
	fprintf(fp, "</div>\n<div class=\"plot-static\"><svg class=\"static heatmap\" "
		    "viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n",
		VB_W, h);
	/* the cells, in seconds from t0 across and rows down, one path per colour */
	fprintf(fp, "<svg class=\"zoom\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "viewBox=\"0 0 %.6f %u\" preserveAspectRatio=\"none\" data-t0=\"%.6f\" "
		    "data-t1=\"%.6f\">\n", PL, PT, w, rows * rh, t1 - t0, rows, t0, t1);
	for (unsigned int lv = 0; lv <= top; lv++) {
		bool any = false;

		for (size_t c = 0; c < cols; c++)
			for (unsigned int k = lo; k <= hi; k++) {
				uint64_t v = 0;

				for (size_t b = c * group; b < (c + 1) * group && b < s->nbins; b++)
					v += heat[b][k];
				if (!v || level_of(v) != lv)
					continue;
				if (!any)
					fprintf(fp, "<path fill=\"%s\" d=\"",
						svg_viridis(top ? (double)lv / top : 1, col));
				any = true;
				fprintf(fp, "M%.5g %uh%.5gv1h-%.5gz",
					html_time(s->t0) - t0 + c * cw, hi - k, cw * 1.02, cw * 1.02);
			}
		if (any)
			fputs("\"/>\n", fp);
	}
	for (size_t i = 0; pg->r->time && i < pg->r->time->nmarkers; i++) {
		double ts = html_time(pg->r->time->markers[i].ts);

		if (ts >= t0 && ts <= t1)
			fprintf(fp, "<line x1=\"%.6f\" x2=\"%.6f\" y1=\"0\" y2=\"%u\" stroke=\"#d33\" "
				    "stroke-width=\"1\" stroke-dasharray=\"3 2\" "
				    "vector-effect=\"non-scaling-stroke\"/>\n", ts - t0, ts - t0, rows);
	}
	fputs("</svg>\n", fp);
	fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		    "stroke=\"#444\" stroke-width=\"0.5\"/>\n", PL, PT, w, rows * rh);
	for (unsigned int k = lo; k <= hi + 1; k++) {
		/* every row's edge when they are tall enough, else every other */
		if (rh < 12 && (k - lo) % 2)
			continue;
		lat_label(lab, sizeof(lab), k);
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s"
			    "</text>\n", PL - 4, PT + (hi + 1 - k) * rh + 3, lab);
	}
	time_axis(fp, PL, PT + rows * rh, w, t0, t1);
	y_label(fp, PT, rows * rh, device ? "device time (log2 buckets)" : "latency (log2 buckets)");
	fputs("</svg></div></figure>\n", fp);
	return true;
}

/* ---- offsets against time -------------------------------------------------- */

static const char *const dir_colours[SERIES_DIRS] = {
	SVG_BLUE, SVG_ORANGE, SVG_GREEN, SVG_PURPLE, SVG_GREY,
};

bool html_chart_offsets(struct html_page *pg, size_t pos)
{
	const struct series *s = pg->s;
	const struct series_layer *l;
	uint64_t smin = UINT64_MAX, smax = 0;
	bool shown[SERIES_DIRS] = { false };
	double t0, t1, w = VB_W - PL - PR, h = VB_H - PT - PB, ymin, ymax;
	struct svg_plot p;
	char name[64], title[240], num[32];
	FILE *fp = pg->fp;

	if (!s || !s->nbins)
		return false;
	l = series_layer_of(s, pg->r->st->layers[pg->order[pos]].dev);
	if (!l || !l->npoints)
		return false;
	for (size_t i = 0; i < l->npoints; i++) {
		smin = l->points[i].sector < smin ? l->points[i].sector : smin;
		smax = l->points[i].sector > smax ? l->points[i].sector : smax;
		shown[l->points[i].dir] = true;
	}
	html_label(pg, l->dev, name, sizeof(name));
	if (l->npoints < l->offered)
		snprintf(title, sizeof(title), "%s: offset against time (a uniform sample: %zu of "
			 "%" PRIu64 " I/Os)", name, l->npoints, l->offered);
	else
		snprintf(title, sizeof(title), "%s: offset against time (all %" PRIu64 " I/Os)", name,
			 l->offered);
	figure_open(pg, "offsets", title, pg->ncharts++);
	fputs("<div class=\"legend\">", fp);
	for (int d = 0; d < SERIES_DIRS; d++)
		if (shown[d])
			legend_key(fp, dir_colours[d], st_op_name((enum st_op)d), "box");
	fprintf(fp, "</div>\n<div class=\"plot-static\"><svg class=\"static\" viewBox=\"0 0 %.0f "
		    "%.0f\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", VB_W, VB_H);
	html_time_range(pg, &t0, &t1);
	/* MiB from the device's start, so that the ticks read as positions */
	ymin = smin / 2048.0;
	ymax = smax > smin ? smax / 2048.0 : ymin + 1;
	p = (struct svg_plot){ .x = PL, .y = PT, .w = w, .h = h, .ymin = ymin, .ymax = ymax };
	{
		double step = svg_nice_step(ymax - ymin, 4);

		for (double v = ceil(ymin / step) * step; v <= ymax + step * 1e-9; v += step) {
			fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				    "stroke=\"#ddd\" stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" "
				    "class=\"tick\" text-anchor=\"end\">%s</text>\n", p.x, svg_py(&p, v),
				p.x + p.w, svg_py(&p, v), p.x - 4, svg_py(&p, v) + 3,
				svg_num(v, num, sizeof(num)));
			if (v + step <= v)
				break;
		}
	}
	/* points in seconds across and thousandths of the range down; strokes keep their size */
	fprintf(fp, "<svg class=\"zoom\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "viewBox=\"0 -10 %.6f 1020\" preserveAspectRatio=\"none\" data-t0=\"%.6f\" "
		    "data-t1=\"%.6f\">\n", PL, PT, w, h, t1 - t0, t0, t1);
	for (int d = 0; d < SERIES_DIRS; d++) {
		if (!shown[d])
			continue;
		fprintf(fp, "<path stroke=\"%s\" stroke-width=\"3\" stroke-linecap=\"square\" "
			    "vector-effect=\"non-scaling-stroke\" fill=\"none\" d=\"", dir_colours[d]);
		for (size_t i = 0; i < l->npoints; i++) {
			const struct series_point *pt = &l->points[i];
			double t = html_time(pt->ts) - t0;

			if (pt->dir == d)
				fprintf(fp, "M%.5g %.1fh0", t > 0 ? t : 0,
					1000 - (pt->sector / 2048.0 - ymin) / (ymax - ymin) * 1000);
		}
		fputs("\"/>\n", fp);
	}
	fputs("</svg>\n", fp);
	fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		    "stroke=\"#444\" stroke-width=\"0.5\"/>\n", p.x, p.y, p.w, p.h);
	time_axis(fp, p.x, p.y + p.h, p.w, t0, t1);
	y_label(fp, p.y, p.h, "offset (MiB)");
	fputs("</svg></div></figure>\n", fp);
	return true;
}

void html_time_note(struct html_page *pg)
{
	const struct report_time *t = pg->r->time;
	const struct series *s = pg->s;
	FILE *fp = pg->fp;

	if (!s)
		return;
	fprintf(fp, "Time is the trace clock's, in seconds, as <code>trace-cmd report</code> prints "
		    "it; bins of %.3g ms. ", s->width_ns / 1e6);
	if (t && t->wall_known) {
		time_t sec = (time_t)((t->wall_offset_ns + s->t0) / 1000000000);
		struct tm tm;
		char buf[64];

		localtime_r(&sec, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %Z", &tm);
		fprintf(fp, "Wall clock: trace time %.3f s was %s.", html_time(s->t0), buf);
	} else {
		fputs("Wall clock: unknown (a recording carries only the trace clock).", fp);
	}
}
