// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * html.c - the HTML report: one page, every chart an inline SVG.
 *
 * Everything the page shows comes from the statistics, the series and the
 * slowest set the text and JSON reports are made of, so that its numbers
 * are theirs: the stack diagram's boxes carry their figures as data-*
 * attributes (read by tests/test-html.sh against report --json). Size is
 * bounded whatever the trace length: series have at most SERIES_BINS bins,
 * heatmaps at most HTML_HEAT_COLS columns and only the cells that hold
 * I/O, offset charts at most SERIES_POINTS sampled points per layer, with
 * the sampling said on the chart. Hover titles (<title>) give the numbers;
 * sections fold with <details>, so the page needs no script at all.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/html.h"
#include "output/report-time.h"
#include "output/svg.h"

#define CHART_W		920.0
#define CHART_H		190.0
#define PAD_L		70.0
#define PAD_R		20.0
#define PAD_T		26.0
#define PAD_B		40.0

static const char *const dir_names[SERIES_DIRS] = { "read", "write", "other" };
static const char *const dir_colours[SERIES_DIRS] = { SVG_BLUE, SVG_ORANGE, SVG_GREEN };

static const char style[] =
	"body{font-family:sans-serif;margin:1em 2em;color:#222;max-width:1000px}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}h3{font-size:1em}"
	"pre{font-size:12px;background:#f6f6f6;padding:.5em;overflow-x:auto}"
	"svg{display:block;margin:.4em 0}"
	"svg text{font-family:sans-serif;font-size:11px;fill:#222}"
	"svg text.tick{font-size:10px;fill:#444}svg text.axis{font-size:11px}"
	"svg text.title{font-size:12px;font-weight:bold}"
	"summary{cursor:pointer;font-weight:bold;margin:.6em 0}"
	".note{color:#555;font-size:.9em}";

static void label(const struct report *r, uint32_t dev, char *buf, size_t len)
{
	const char *n = report_dev_label(r, dev, buf, len);

	if (n != buf)
		snprintf(buf, len, "%s", n);
}

/* The layer's operations merged: one latency histogram, counts and bytes. */
static void layer_sum(const struct st_layer *l, struct hist *total, uint64_t *ios,
		      uint64_t *bytes)
{
	memset(total, 0, sizeof(*total));
	*ios = *bytes = 0;
	for (int op = 0; op < ST_OPS; op++) {
		hist_merge(total, &l->op[op].total);
		*ios += l->op[op].ios;
		*bytes += l->op[op].bytes;
	}
}

static void fmt_lat(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 10000000)
		snprintf(buf, len, "%.0f ms", ns / 1e6);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.1f us", ns / 1e3);
}

/* ---- the stack diagram ---------------------------------------------------- */

#define BOX_W	210.0
#define BOX_H	74.0
#define BOX_GAP_X 20.0
#define BOX_GAP_Y 34.0

struct placed {
	size_t idx;
	double x, y;
};

/* Layers in the order of the text report's tree: each root, then depth-first below it. */
static void place(const struct report *r, size_t idx, int depth, struct placed *out, size_t *n,
		  double *next_x, bool *seen)
{
	const struct stats *st = r->st;
	double x0 = *next_x;
	size_t me = *n, children = 0;

	if (seen[idx] || depth > 16)
		return;
	seen[idx] = true;
	out[(*n)++] = (struct placed){ .idx = idx, .y = 34 + depth * (BOX_H + BOX_GAP_Y) };
	for (size_t i = 0; i < st->nlayers; i++)
		if (st->layers[i].parent == st->layers[idx].dev && i != idx && !seen[i]) {
			place(r, i, depth + 1, out, n, next_x, seen);
			children++;
		}
	if (!children) {
		out[me].x = *next_x;
		*next_x += BOX_W + BOX_GAP_X;
	} else {
		/* centred over its children */
		out[me].x = (x0 + *next_x - BOX_GAP_X - BOX_W) / 2;
	}
}

static void stack_box(FILE *fp, const struct report *r, const struct placed *p, double span_s)
{
	const struct st_layer *l = &r->st->layers[p->idx];
	char name[64], mm[32], p50[32], p99[32];
	struct hist total;
	uint64_t ios, bytes;

	label(r, l->dev, name, sizeof(name));
	snprintf(mm, sizeof(mm), "%u:%u", KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
	layer_sum(l, &total, &ios, &bytes);
	fmt_lat(p50, sizeof(p50), hist_percentile(&total, 50));
	fmt_lat(p99, sizeof(p99), hist_percentile(&total, 99));
	fprintf(fp, "<g class=\"layer\" data-dev=\"%s\" data-name=\"", mm);
	svg_text(fp, name);
	fprintf(fp, "\" data-ios=\"%" PRIu64 "\" data-bytes=\"%" PRIu64 "\"", ios, bytes);
	/* I/Os and bytes by class (top, caused, own, unexplained), every operation */
	fputs(" data-classes=\"", fp);
	for (int c = 0; c < TK_CLASSES; c++) {
		static const uint8_t order[] = { TK_IO_TOP, TK_IO_CAUSED, TK_IO_LAYER,
						 TK_IO_UNEXPLAINED };
		uint64_t cios = 0, cbytes = 0;

		for (int op = 0; op < ST_OPS; op++) {
			cios += l->op[op].cls_ios[order[c]];
			cbytes += l->op[op].cls_bytes[order[c]];
		}
		fprintf(fp, "%s%" PRIu64 " %" PRIu64, c ? " " : "", cios, cbytes);
	}
	fputc('"', fp);
	for (int op = 0; op < ST_OPS; op++) {
		const struct st_layer_op *o = &l->op[op];

		if (o->ios)
			fprintf(fp, " data-op-%s=\"%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\"",
				st_op_name(op), o->ios, o->bytes,
				o->total.count ? hist_percentile(&o->total, 50) : 0,
				o->total.count ? hist_percentile(&o->total, 99) : 0);
	}
	fprintf(fp, "><title>");
	svg_text(fp, name);
	fprintf(fp, " (%s): %" PRIu64 " I/Os, %.2f MiB; total latency C - Q p50 %s, p99 %s",
		mm, ios, bytes / 1048576.0, p50, p99);
	fprintf(fp, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" rx=\"6\" "
		    "fill=\"#eef4fa\" stroke=\"%s\"/>", p->x, p->y, BOX_W, BOX_H, SVG_BLUE);
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"title\">", p->x + 8, p->y + 16);
	svg_text(fp, name);
	fprintf(fp, " <tspan class=\"tick\">%s</tspan></text>", mm);
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">%" PRIu64 " I/Os, %.2f MiB/s</text>",
		p->x + 8, p->y + 34, ios, span_s > 0 ? bytes / 1048576.0 / span_s : 0.0);
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">p50 %s</text>", p->x + 8, p->y + 51, p50);
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">p99 %s</text></g>\n", p->x + 8, p->y + 67, p99);
}

/* @order: set to the layers' indices in the diagram's order (top to bottom, left to right) */
static int html_stack(FILE *fp, const struct report *r, size_t *order)
{
	const struct stats *st = r->st;
	struct placed *pl = calloc(st->nlayers, sizeof(*pl));
	bool *seen = calloc(st->nlayers, sizeof(*seen));
	double next_x = 10, span_s = (st->last_ts - st->first_ts) / 1e9, h = 0;
	size_t n = 0;

	if (!pl || !seen) {
		free(pl);
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < st->nlayers; i++)
		if (!st->layers[i].parent || !stats_layer(st, st->layers[i].parent))
			place(r, i, 0, pl, &n, &next_x, seen);
	/* a circle of parents (a recording's stack that is not a tree): the rest as roots */
	for (size_t i = 0; i < st->nlayers; i++)
		if (!seen[i])
			place(r, i, 0, pl, &n, &next_x, seen);
	for (size_t i = 0; i < n; i++)
		if (pl[i].y + BOX_H > h)
			h = pl[i].y + BOX_H;
	fprintf(fp, "<h2 id=\"stack\">The stack</h2>\n<p class=\"note\">Each layer under the layer "
		    "that sent it I/O: I/Os completed there, MiB/s over the %.3f s span of "
		    "completed I/O, and the median and 99th percentile of its total latency "
		    "(C - Q at that layer, every operation).</p>\n", span_s);
	fprintf(fp, "<svg id=\"stack-diagram\" width=\"%.0f\" height=\"%.0f\" "
		    "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n",
		next_x > CHART_W ? next_x : CHART_W, h + 10);
	fprintf(fp, "<text x=\"10\" y=\"18\" class=\"title\">Stack: I/Os, MiB/s and latency per "
		    "layer</text>\n");
	for (size_t i = 0; i < n; i++) {
		const struct st_layer *l = &st->layers[pl[i].idx];

		for (size_t j = 0; j < n; j++)
			if (st->layers[pl[j].idx].dev == l->parent && j != i)
				fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					    "stroke=\"#666\"/>\n", pl[j].x + BOX_W / 2,
					pl[j].y + BOX_H, pl[i].x + BOX_W / 2, pl[i].y);
	}
	for (size_t i = 0; i < n; i++) {
		stack_box(fp, r, &pl[i], span_s);
		order[i] = pl[i].idx;
	}
	fputs("</svg>\n", fp);
	free(pl);
	free(seen);
	return 0;
}

/* ---- series over time ----------------------------------------------------- */

static void chart_open(FILE *fp, const char *cls, double h, const char *title)
{
	fprintf(fp, "<svg class=\"%s\" width=\"%.0f\" height=\"%.0f\" "
		    "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n<text x=\"%.0f\" y=\"16\" "
		    "class=\"title\">", cls, CHART_W, h, PAD_L);
	svg_text(fp, title);
	fputs("</text>\n", fp);
}

static void legend(FILE *fp, double x, const char *const *names, const char *const *colours,
		   const bool *shown, int n)
{
	for (int i = 0; i < n; i++) {
		if (shown && !shown[i])
			continue;
		fprintf(fp, "<rect x=\"%.0f\" y=\"7\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			    "<text x=\"%.0f\" y=\"16\">%s</text>\n", x, colours[i], x + 14, names[i]);
		/* about 6.5 px per glyph at 11 px */
		x += 24 + 6.5 * strlen(names[i]);
	}
}

enum line_kind { LINE_MIBS, LINE_IOPS };

/* Throughput or IOPS per direction, one polyline each, a point per bin. */
static void chart_rate(FILE *fp, const struct series *s, const struct series_layer *l,
		       const char *name, enum line_kind kind)
{
	struct svg_plot p = { .x = PAD_L, .y = PAD_T, .w = CHART_W - PAD_L - PAD_R,
			     .h = CHART_H - PAD_T - PAD_B };
	double w_s = s->width_ns / 1e9, max = 0;
	bool shown[SERIES_DIRS] = { false };
	char title[160];

	for (int d = 0; d < SERIES_DIRS; d++)
		for (size_t b = 0; b < s->nbins; b++) {
			double v = kind == LINE_MIBS ? l->bytes[d][b] / 1048576.0 / w_s
						     : l->ios[d][b] / w_s;

			if (l->ios[d][b])
				shown[d] = true;
			if (v > max)
				max = v;
		}
	snprintf(title, sizeof(title), "%s: %s per direction (bins of %.3g ms)", name,
		 kind == LINE_MIBS ? "throughput" : "IOPS", s->width_ns / 1e6);
	chart_open(fp, kind == LINE_MIBS ? "chart-mibs" : "chart-iops", CHART_H, title);
	legend(fp, CHART_W - 240, dir_names, dir_colours, shown, SERIES_DIRS);
	p.xmax = s->nbins * w_s;
	p.ymax = max > 0 ? max * 1.05 : 1;
	svg_axes(fp, &p, "time (s)", kind == LINE_MIBS ? "MiB/s" : "I/Os per s", true);
	for (int d = 0; d < SERIES_DIRS; d++) {
		if (!shown[d])
			continue;
		fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
			dir_colours[d]);
		for (size_t b = 0; b < s->nbins; b++) {
			double v = kind == LINE_MIBS ? l->bytes[d][b] / 1048576.0 / w_s
						     : l->ios[d][b] / w_s;

			fprintf(fp, "%.1f,%.1f ", svg_px(&p, (b + 0.5) * w_s), svg_py(&p, v));
		}
		fprintf(fp, "\"><title>%s</title></polyline>\n", dir_names[d]);
	}
	fputs("</svg>\n", fp);
}

static void chart_inflight(FILE *fp, const struct series *s, const struct series_layer *l,
			   const char *name)
{
	struct svg_plot p = { .x = PAD_L, .y = PAD_T, .w = CHART_W - PAD_L - PAD_R,
			     .h = CHART_H - PAD_T - PAD_B };
	double w_s = s->width_ns / 1e9, max = 0, sum = 0;
	char title[200];

	for (size_t b = 0; b < s->nbins; b++) {
		double v = (double)l->busy_ns[b] / s->width_ns;

		sum += l->busy_ns[b];
		if (v > max)
			max = v;
	}
	snprintf(title, sizeof(title), "%s: I/Os in flight (average per bin; %.2f over the whole "
		 "span)", name, s->nbins ? sum / ((double)s->nbins * s->width_ns) : 0.0);
	chart_open(fp, "chart-inflight", CHART_H, title);
	p.xmax = s->nbins * w_s;
	p.ymax = max > 0 ? max * 1.05 : 1;
	svg_axes(fp, &p, "time (s)", "I/Os in flight", true);
	fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
		SVG_VERMILION);
	for (size_t b = 0; b < s->nbins; b++)
		fprintf(fp, "%.1f,%.1f ", svg_px(&p, (b + 0.5) * w_s),
			svg_py(&p, (double)l->busy_ns[b] / s->width_ns));
	fputs("\"/>\n</svg>\n", fp);
}

static void lat_label(char *buf, size_t len, unsigned int b)
{
	uint64_t ns = series_lat_low_ns(b);

	if (!b)
		snprintf(buf, len, "0");
	else if (ns >= 1000000000)
		snprintf(buf, len, "%.3gs", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3gms", ns / 1e6);
	else
		snprintf(buf, len, "%.3gus", ns / 1e3);
}

/* Time on x, log2 latency buckets on y, colour = I/Os (viridis, on a log scale of counts). */
static void chart_heat(FILE *fp, const struct series *s, const struct series_layer *l,
		       const char *name, bool device)
{
	const uint32_t (*heat)[SERIES_LAT_BUCKETS] = device ? l->heat_dev : l->heat_total;
	size_t group = (s->nbins + HTML_HEAT_COLS - 1) / HTML_HEAT_COLS, cols;
	unsigned int lo = SERIES_LAT_BUCKETS, hi = 0;
	double w_s = s->width_ns / 1e9, max = 0, cw, rh, h;
	struct svg_plot p;
	char title[200], col[8], lab[32];

	if (!group)
		group = 1;
	cols = (s->nbins + group - 1) / group;
	for (size_t c = 0; c < cols; c++)
		for (unsigned int k = 0; k < SERIES_LAT_BUCKETS; k++) {
			double v = 0;

			for (size_t b = c * group; b < (c + 1) * group && b < s->nbins; b++)
				v += heat[b][k];
			if (!v)
				continue;
			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
			max = v > max ? v : max;
		}
	if (lo > hi)
		return;
	rh = 12;
	h = PAD_T + (hi - lo + 1) * rh + PAD_B;
	p = (struct svg_plot){ .x = PAD_L, .y = PAD_T, .w = CHART_W - PAD_L - PAD_R,
			       .h = (hi - lo + 1) * rh, .xmax = cols * group * w_s, .ymin = lo,
			       .ymax = hi + 1 };
	cw = p.w / cols;
	snprintf(title, sizeof(title), "%s: %s latency heatmap (%s; colour = I/Os, log scale; "
		 "columns of %.3g ms)", name, device ? "device" : "total",
		 device ? "D to C at this leaf" : "C - Q at this layer", group * s->width_ns / 1e6);
	chart_open(fp, device ? "heat-device" : "heat-total", h, title);
	for (size_t c = 0; c < cols; c++)
		for (unsigned int k = lo; k <= hi; k++) {
			uint64_t v = 0;

			for (size_t b = c * group; b < (c + 1) * group && b < s->nbins; b++)
				v += heat[b][k];
			if (!v)
				continue;
			lat_label(lab, sizeof(lab), k);
			fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" "
				    "fill=\"%s\"><title>%" PRIu64 " I/Os, %.3f s, from %s</title></rect>\n",
				p.x + c * cw, svg_py(&p, k + 1), cw + 0.05, rh,
				svg_viridis(max > 1 ? log((double)v) / log(max) : 1, col), v,
				c * group * w_s, lab);
		}
	svg_axes(fp, &p, "time (s)", "latency", false);
	for (unsigned int k = lo; k <= hi + 1; k++) {
		lat_label(lab, sizeof(lab), k);
		fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"tick\" text-anchor=\"end\">%s"
			    "</text>\n", p.x - 4, svg_py(&p, k) + 3, lab);
	}
	fputs("</svg>\n", fp);
}

/* iowatcher's I/O graph: each sampled I/O at its time and sector. */
static void chart_offsets(FILE *fp, const struct series *s, const struct series_layer *l,
			  const char *name)
{
	struct svg_plot p = { .x = PAD_L, .y = PAD_T, .w = CHART_W - PAD_L - PAD_R,
			     .h = CHART_H - PAD_T - PAD_B };
	uint64_t smin = UINT64_MAX, smax = 0;
	bool shown[SERIES_DIRS] = { false };
	char title[240];

	if (!l->npoints)
		return;
	for (size_t i = 0; i < l->npoints; i++) {
		smin = l->points[i].sector < smin ? l->points[i].sector : smin;
		smax = l->points[i].sector > smax ? l->points[i].sector : smax;
		shown[l->points[i].dir] = true;
	}
	if (l->npoints < l->offered)
		snprintf(title, sizeof(title), "%s: offset against time (a uniform sample: %zu of "
			 "%" PRIu64 " I/Os shown)", name, l->npoints, l->offered);
	else
		snprintf(title, sizeof(title), "%s: offset against time (all %" PRIu64 " I/Os)",
			 name, l->offered);
	chart_open(fp, "chart-offsets", CHART_H, title);
	legend(fp, CHART_W - 240, dir_names, dir_colours, shown, SERIES_DIRS);
	p.xmax = s->nbins * s->width_ns / 1e9;
	/* offsets in MiB from the device's start, so that the ticks read as positions */
	p.ymin = smin / 2048.0;
	p.ymax = smax > smin ? smax / 2048.0 : smin / 2048.0 + 1;
	svg_axes(fp, &p, "time (s)", "offset (MiB)", true);
	for (int d = 0; d < SERIES_DIRS; d++) {
		if (!shown[d])
			continue;
		fprintf(fp, "<g fill=\"%s\"><title>%s</title>", dir_colours[d], dir_names[d]);
		for (size_t i = 0; i < l->npoints; i++) {
			const struct series_point *pt = &l->points[i];
			double t = pt->ts > s->t0 ? (pt->ts - s->t0) / 1e9 : 0;

			if (pt->dir == d)
				fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"2\" height=\"2\"/>",
					svg_px(&p, t) - 1, svg_py(&p, pt->sector / 2048.0) - 1);
		}
		fputs("</g>\n", fp);
	}
	fputs("</svg>\n", fp);
}

static void html_series(FILE *fp, const struct report *r, const size_t *order)
{
	const struct series *s = r->time->series;

	fprintf(fp, "<h2 id=\"time\">Per layer over time</h2>\n<p class=\"note\">Time is in "
		    "seconds from the first I/O; bins of %.3g ms (chosen from the trace's length: "
		    "at most %d bins).</p>\n", s->width_ns / 1e6, SERIES_BINS);
	for (size_t i = 0; i < r->st->nlayers; i++) {
		const struct series_layer *l = series_layer_of(s, r->st->layers[order[i]].dev);
		char name[64];

		if (!l)
			continue;
		label(r, l->dev, name, sizeof(name));
		fprintf(fp, "<details open class=\"layer-time\" data-name=\"");
		svg_text(fp, name);
		fputs("\"><summary>", fp);
		svg_text(fp, name);
		fputs("</summary>\n", fp);
		chart_rate(fp, s, l, name, LINE_MIBS);
		chart_rate(fp, s, l, name, LINE_IOPS);
		chart_inflight(fp, s, l, name);
		chart_heat(fp, s, l, name, false);
		if (l->leaf_seen)
			chart_heat(fp, s, l, name, true);
		chart_offsets(fp, s, l, name);
		fputs("</details>\n", fp);
	}
}

/* ---- the waterfall ---------------------------------------------------------- */

static double segment(FILE *fp, double x, double w, const char *colour, const char *name,
		      const char *phase, double share, double avg_ns)
{
	char us[32];

	if (w <= 0)
		return x;
	report_fmt_us(us, sizeof(us), avg_ns);
	fprintf(fp, "<rect x=\"%.1f\" y=\"28\" width=\"%.2f\" height=\"26\" fill=\"%s\" "
		    "stroke=\"#fff\" stroke-width=\"0.5\"><title>", x, w, colour);
	svg_text(fp, name);
	fprintf(fp, " %s: %.1f%% (%s us per I/O on average)</title></rect>\n", phase, share * 100, us);
	if (w > 60) {
		fprintf(fp, "<text x=\"%.1f\" y=\"45\" fill=\"#000\">", x + 3);
		svg_text(fp, name);
		fputs("</text>\n", fp);
	}
	return x + w;
}

enum share_phase { SHARE_DOWN, SHARE_DEVICE, SHARE_UP };

/* The segments of one phase of the layers at depth @depth (-1: every depth). */
static double shares(FILE *fp, const struct report *r, const struct st_e2e *e, int depth,
		     enum share_phase phase, double x, double width)
{
	static const char *const colours[] = { SVG_SKY, SVG_ORANGE, SVG_GREEN };
	static const char *const phases[] = { "down", "device", "up" };
	double tot = (double)e->total_ns;

	for (size_t i = 0; i < e->nshares; i++) {
		const struct st_share *sh = &e->shares[i];
		uint64_t ns = phase == SHARE_DOWN ? sh->sub_ns :
			      phase == SHARE_DEVICE ? sh->dev_ns : sh->comp_ns;
		char name[64];

		if (depth >= 0 && sh->depth != depth)
			continue;
		label(r, sh->dev, name, sizeof(name));
		x = segment(fp, x, ns / tot * width, colours[phase], name, phases[phase], ns / tot,
			    (double)ns / e->ios);
	}
	return x;
}

static void html_waterfall(FILE *fp, const struct report *r)
{
	static const char *const names[] = { "down (submission)", "device", "up (completion)" };
	static const char *const colours[] = { SVG_SKY, SVG_ORANGE, SVG_GREEN };
	const double width = CHART_W - 20;

	fprintf(fp, "<h2 id=\"waterfall\">Where time goes</h2>\n<p class=\"note\">Along the path "
		    "each top-level I/O waited for (the piece that completed last), each layer's "
		    "share of the end-to-end time: its way down, the device at the leaf, its way "
		    "up.</p>\n");
	for (int op = 0; op < ST_OPS; op++) {
		const struct st_e2e *e = &r->st->e2e[op];
		double x = 10;
		char title[96];

		if (!e->ios || !e->total_ns)
			continue;
		snprintf(title, sizeof(title), "%s: %" PRIu64 " top-level I/Os", st_op_name(op),
			 e->ios);
		chart_open(fp, "waterfall", 64, title);
		legend(fp, CHART_W - 420, names, colours, NULL, 3);
		/* down the stack, the devices, back up */
		for (int d = 0; d < 64; d++)
			x = shares(fp, r, e, d, SHARE_DOWN, x, width);
		x = shares(fp, r, e, -1, SHARE_DEVICE, x, width);
		for (int d = 63; d >= 0; d--)
			x = shares(fp, r, e, d, SHARE_UP, x, width);
		fputs("</svg>\n", fp);
	}
}

/* ---- the slowest I/Os ------------------------------------------------------- */

#define SPAN_ROW 18.0
#define SPAN_LABEL 170.0

static void span_bar(FILE *fp, const struct svg_plot *p, double y, uint64_t a, uint64_t b,
		     uint64_t base, const char *colour, const char *what)
{
	char us[32];

	if (!a || !b || b < a)
		return;
	report_fmt_us(us, sizeof(us), (double)(b - a));
	fprintf(fp, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\">"
		    "<title>%s: %s us</title></rect>", svg_px(p, (double)(a - base) / 1e3), y,
		svg_px(p, (double)(b - base) / 1e3) - svg_px(p, (double)(a - base) / 1e3) + 0.3,
		SPAN_ROW - 5, colour, what, us);
}

static void slow_io(FILE *fp, const struct report *r, const struct slow_io *s, size_t rank)
{
	const struct tk_rec *root = &s->recs[0];
	uint64_t end = root->c;
	struct row row = { 0 };
	struct svg_plot p;
	char name[64], us[32], file[4096], title[600];
	const char *fname = NULL;

	if (report_time_row(s, &row) < 0)
		return;
	for (size_t i = 0; i < row.nlayers; i++)
		end = row.layers[i].c > end ? row.layers[i].c : end;
	if (r->time->file && s->owner != SLOWEST_NO_OWNER)
		fname = r->time->file(s->owner, file, sizeof(file), r->time->file_ctx);
	label(r, root->dev, name, sizeof(name));
	report_fmt_us(us, sizeof(us), (double)s->lat);
	snprintf(title, sizeof(title), "#%zu: %s us, %s %.1f KiB at %s sector %" PRIu64
		 ", %.6f s, pid %d (%s)%s%s", rank, us, st_op_name(st_op_of_rec(root)),
		 root->sectors / 2.0, name, root->sector, (root->q - r->st->first_ts) / 1e9,
		 s->pid, s->comm[0] ? s->comm : "?", fname ? ", file " : "", fname ? fname : "");
	p = (struct svg_plot){ .x = PAD_L + SPAN_LABEL, .y = PAD_T + 4,
			       .w = CHART_W - PAD_L - SPAN_LABEL - PAD_R,
			       .h = row.nlayers * SPAN_ROW, .xmax = (end - root->q) / 1e3, .ymax = 1 };
	fprintf(fp, "<svg class=\"slow-io\" data-rank=\"%zu\" data-latency-ns=\"%" PRIu64 "\" "
		    "data-q-ns=\"%" PRIu64 "\" width=\"%.0f\" height=\"%.0f\" "
		    "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n<text x=\"10\" y=\"16\" "
		    "class=\"title\">", rank, s->lat, root->q, CHART_W, p.y + p.h + PAD_B);
	svg_text(fp, title);
	fputs("</text>\n", fp);
	for (size_t i = 0; i < row.nlayers; i++) {
		const struct row_layer *l = &row.layers[i];
		double y = p.y + i * SPAN_ROW + 2;

		label(r, l->dev, name, sizeof(name));
		fprintf(fp, "<g class=\"span\" data-dev=\"%u:%u\"><title>", KDEV_MAJOR(l->dev),
			KDEV_MINOR(l->dev));
		svg_text(fp, name);
		report_fmt_us(us, sizeof(us), (double)(row_span(l->q, l->c) > 0 ? row_span(l->q, l->c)
										  : 0));
		fprintf(fp, " (%s): %u bios, %.1f KiB, total %s us; %u splits, %u merges; pid %d (",
			row_kind_name(l->kind), l->bios, l->bytes / 1024.0, us, l->splits, l->merges,
			s->pid);
		svg_text(fp, s->comm);
		fputs(")", fp);
		if (fname) {
			fputs(", ", fp);
			svg_text(fp, fname);
		}
		fprintf(fp, "</title><text x=\"%.1f\" y=\"%.1f\">", 10.0 + l->depth * 10.0, y + 10);
		svg_text(fp, name);
		fputs("</text></g>", fp);
		if (l->down) {
			span_bar(fp, &p, y, l->q, l->down, root->q, SVG_SKY, "down (submission)");
			span_bar(fp, &p, y, l->down, l->up, root->q, SVG_ORANGE,
				 l->kind == TK_LAYER_REQUEST ? "below (the device)" : "below");
			span_bar(fp, &p, y, l->up, l->c, root->q, SVG_GREEN, "up (completion)");
		} else {
			/* a bio-based leaf: the whole stay is its own */
			span_bar(fp, &p, y, l->q, l->c, root->q, SVG_ORANGE, "in the device");
		}
		fputc('\n', fp);
	}
	svg_axes(fp, &p, "time from the I/O's queue event (us)", "", false);
	fputs("</svg>\n", fp);
	row_release(&row);
}

static void html_slowest(FILE *fp, const struct report *r)
{
	const struct report_time *t = r->time;
	static const char *const names[] = { "down (submission)", "below", "up (completion)" };
	static const char *const colours[] = { SVG_SKY, SVG_ORANGE, SVG_GREEN };

	if (!t->slow)
		return;
	fprintf(fp, "<h2 id=\"slowest\">The slowest I/Os</h2>\n<p class=\"note\">The %zu slowest "
		    "of %" PRIu64 " top-level I/Os, end to end. One bar per layer: its way down "
		    "(Q to down), the time below it (the lower layers, or the device at a disk), "
		    "its way up (up to C). Hover for the numbers.</p>\n", t->nslow,
		t->slow_offered);
	fprintf(fp, "<svg width=\"%.0f\" height=\"22\" xmlns=\"http://www.w3.org/2000/svg\">",
		CHART_W);
	legend(fp, 10, names, colours, NULL, 3);
	fputs("</svg>\n", fp);
	for (size_t i = 0; i < t->nslow; i++)
		slow_io(fp, r, &t->slow[i], i + 1);
}

/* ---- the tables ------------------------------------------------------------- */

/* Text for a <pre>: markup escaped, tabs and newlines kept (svg_text() would not). */
static void pre_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", fp);
		else if (*s == '<')
			fputs("&lt;", fp);
		else if (*s == '>')
			fputs("&gt;", fp);
		else if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
			fputc('?', fp);
		else
			fputc(*s, fp);
	}
}

/* Some text output, escaped into a <pre>. */
static int pre(FILE *fp, const struct report *r, int (*fn)(FILE *, const struct report *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret;

	if (!mem)
		return -errno;
	ret = fn(mem, r);
	if (fclose(mem) && !ret)
		ret = -EIO;
	if (!ret) {
		fputs("<pre>", fp);
		pre_text(fp, buf);
		fputs("</pre>\n", fp);
	}
	free(buf);
	return ret;
}

/* The text report, but for the slowest I/Os. */
static int report_lines(FILE *fp, const struct report *r)
{
	struct report plain = *r;

	/* the slowest I/Os are drawn above; the tables hold the rest */
	plain.time = NULL;
	return out_report_text(fp, &plain);
}

static int html_tables(FILE *fp, const struct report *r)
{
	int ret;

	fprintf(fp, "<h2 id=\"tables\">Tables</h2>\n<details open><summary>The text report"
		    "</summary>\n");
	ret = pre(fp, r, report_lines);
	fputs("</details>\n", fp);
	if (!ret && r->time->access) {
		fprintf(fp, "<details open><summary>Access pattern and I/Os in flight</summary>\n");
		ret = pre(fp, r, out_access_text);
		fputs("</details>\n", fp);
	}
	if (!ret && r->time->flags) {
		fprintf(fp, "<details><summary>Latency by rwbs flags</summary>\n");
		ret = pre(fp, r, out_flags_text);
		fputs("</details>\n", fp);
	}
	return ret;
}

int out_report_html(FILE *fp, const struct report *r)
{
	uint64_t lost = report_lost(r->src);
	const char *sep = " (";
	int ret;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>blkstack report of ", fp);
	svg_text(fp, r->source);
	fprintf(fp, "</title><style>%s</style></head><body>\n<h1>blkstack report of ", style);
	svg_text(fp, r->source);
	fprintf(fp, "</h1>\n<p>%.3f s of completed I/O; %" PRIu64 " top-level I/Os, %.1f%% "
		    "of which reached a disk through every layer", (r->st->last_ts - r->st->first_ts) / 1e9,
		r->tk->ios_top, r->tk->ios_top ? 100.0 * r->tk->ios_top_matched / r->tk->ios_top
					       : 100.0);
	for (int op = 0; op < ST_OPS; op++) {
		const struct st_e2e *e = &r->st->e2e[op];

		if (!e->ios)
			continue;
		fprintf(fp, "%s%s %.1f%%", sep, st_op_name(op), 100.0 * e->matched / e->ios);
		sep = ", ";
	}
	fputs(*sep == ',' ? ")." : ".", fp);
	if (r->tk->ios_unexplained)
		fprintf(fp, " %" PRIu64 " I/Os unexplained (see Tracking).", r->tk->ios_unexplained);
	if (lost)
		fprintf(fp, " <strong>%" PRIu64 " events were lost: the figures are incomplete."
			    "</strong>", lost);
	fputs("</p>\n<p><a href=\"#stack\">stack</a> · <a href=\"#time\">over time</a> · "
	      "<a href=\"#waterfall\">waterfall</a> · <a href=\"#slowest\">slowest I/Os</a> · "
	      "<a href=\"#tables\">tables</a></p>\n", fp);
	if (!r->st->nlayers) {
		fputs("<p>No I/O completed.</p>\n", fp);
	} else {
		size_t *order = calloc(r->st->nlayers, sizeof(*order));

		ret = order ? html_stack(fp, r, order) : -ENOMEM;
		if (!ret && r->time->series)
			html_series(fp, r, order);
		free(order);
		if (ret)
			return ret;
		html_waterfall(fp, r);
		html_slowest(fp, r);
	}
	ret = html_tables(fp, r);
	if (ret)
		return ret;
	fputs("</body></html>\n", fp);
	return ferror(fp) ? -EIO : 0;
}
