// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * html.c - the HTML report: one self-contained page that finds the
 * problem at a glance.
 *
 * Its first screen answers where the time goes: the stack as a tree with
 * each layer's share of the end-to-end time per operation (the costliest
 * layer marked), what could not be followed, and every layer's latency
 * over time for reads and writes with the slowest I/Os and the workload's
 * markers. Below, each operation apart on its own scales (a discard's
 * bytes never flatten a read's), heatmaps, offsets, the slowest I/Os and
 * the tables. Everything comes from the statistics, the series and the
 * slowest set the text and JSON reports are made of, so that its numbers
 * are theirs: the tree's rows carry their figures as data-* attributes
 * (read by the tests against report --json). The page needs no network
 * and reads without script; with it, the inlined charting library makes
 * the charts zoomable together (html-script.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/html-page.h"
#include "output/html.h"
#include "output/svg.h"
#include "track/topo-record.h"
#include "track/topo.h"

/* The page's layout: the window's width, charts in as many columns as fit. */
static const char style[] =
	"body{font-family:sans-serif;margin:0 14px 2em;color:#222;font-size:14px}"
	"h1{font-size:1.3em;margin:.5em 0 .2em}h2{font-size:1.15em;margin:1.2em 0 .4em;"
	"border-bottom:1px solid #ccc}h3{font-size:1em;margin:.8em 0 .3em}"
	"p{margin:.3em 0}code{font-size:12px}"
	".facts span{margin-right:1.1em;white-space:nowrap}.warn{color:#b00;font-weight:bold}"
	".overview{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:14px;"
	"align-items:start}.ovtree{width:min-content}"
	".ovcharts{display:grid;grid-template-columns:minmax(0,1fr);gap:6px}"
	"@media(min-width:1700px){.ovcharts{grid-template-columns:repeat(2,minmax(0,1fr))}}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:10px}"
	"@media(max-width:1100px){.overview{grid-template-columns:minmax(0,1fr)}"
	".grid{grid-template-columns:minmax(0,1fr)}}"
	".wide{grid-column:1/-1}"
	"figure.chart{margin:0;border:1px solid #e3e3e3;padding:4px 6px;min-width:0;"
	"break-inside:avoid}"
	"figcaption.title{font-weight:bold;font-size:13px}"
	".legend{font-size:12px;margin:2px 0}.key{margin-right:.9em;white-space:nowrap}"
	".key i{display:inline-block;width:12px;height:10px;margin-right:3px;vertical-align:-1px}"
	".key i.line{height:3px;vertical-align:3px}.key i.dot{width:7px;height:7px;"
	"border-radius:50%}.key i.dash{height:0;border-top:2px dashed #555;background:none!important;"
	"vertical-align:3px}"
	".readout{font-size:11px;height:14px;overflow:hidden;color:#444}"
	".plot{height:220px;position:relative}.plot svg,.plot-static svg{width:100%;height:auto;"
	"display:block}.plot svg{height:100%}"
	"svg text{font-family:sans-serif;font-size:10px;fill:#222}svg text.tick{fill:#444}"
	"svg text.xlabel,svg text.ylabel{font-size:11px}svg text.mk{font-size:9px;fill:#555}"
	"table{border-collapse:collapse;font-size:12px}th,td{padding:2px 6px;text-align:right;"
	"border-bottom:1px solid #eee;white-space:nowrap}th{background:#f3f3f3;position:sticky;top:0}"
	"td.l,th.l{text-align:left}table.sortable th{cursor:pointer}"
	"table.stack td{border:1px solid #fff;vertical-align:top;line-height:1.15}"
	"table.stack td.op{min-width:78px}"
	"table.stack .pct{font-size:14px;font-weight:bold}table.stack .lat{font-size:11px;color:#333}"
	"table.stack td.top{outline:3px solid #b00;outline-offset:-3px}"
	"table.stack .name{font-weight:bold}table.stack .desc{font-size:11px;color:#555}"
	".sw{display:inline-block;width:10px;height:10px;margin-right:4px}"
	".verdict{font-size:14px;margin:.2em 0 .5em;line-height:1.5}"
	".verdict b.layer{color:#b00}"
	".markers{font-size:12px;margin:.5em 0;max-width:640px}.markers span{margin-right:.8em;"
	"white-space:nowrap}"
	"#zoombar{display:none;position:sticky;top:0;background:#fffbe6;border:1px solid #e6d9a0;"
	"padding:3px 8px;z-index:20;font-size:13px}"
	"details>summary{cursor:pointer;font-weight:bold;margin:.4em 0}"
	"pre{font-size:11px;background:#f6f6f6;padding:.5em;overflow-x:auto}"
	".tablewrap{overflow-x:auto;max-width:100%}"
	".note{color:#555;font-size:12px}"
	"@media print{#zoombar{display:none!important}.plot{height:auto}}";

static const char *const layer_palette[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
	"#8C564B", "#7F7F7F", "#BCBD22", "#17BECF", "#9467BD",
};

const char *html_layer_colour(size_t pos)
{
	return layer_palette[pos % (sizeof(layer_palette) / sizeof(layer_palette[0]))];
}

const char *html_op_title(enum st_op op)
{
	static const char *const t[ST_OPS] = { "Reads", "Writes", "Discards", "Flushes",
					       "Other I/O" };

	return op < ST_OPS ? t[op] : "?";
}

const char *html_label(const struct html_page *pg, uint32_t dev, char *buf, size_t len)
{
	const char *n = report_dev_label(pg->r, dev, buf, len);

	if (n != buf)
		snprintf(buf, len, "%s", n);
	return buf;
}

void html_fmt_lat(char *buf, size_t len, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g us", ns / 1e3);
}

/* What a layer is: its dm name and target, md level, or kind ("bsk-pool, thin-pool"). */
static void describe(const struct html_page *pg, const struct st_layer *l, char *buf, size_t len)
{
	const struct topo_dev_info *d = pg->r->topology ?
					topo_record_find(pg->r->topology, l->dev) : NULL;
	struct topo_dev_info live;
	bool have_live = false;

	if (!d && pg->r->sysfs && topo_dev_info("", l->dev, &live) == 0) {
		d = &live;
		have_live = true;
	}
	if (d && d->kind == TOPO_DM)
		snprintf(buf, len, "%s%s%s", d->dm_name, d->target[0] ? ", " : "", d->target);
	else if (d && d->kind == TOPO_MD && d->md_level[0])
		snprintf(buf, len, "md %s", d->md_level);
	else if (d)
		snprintf(buf, len, "%s", topo_kind_name(d->kind));
	else
		snprintf(buf, len, "%s", l->kind == TK_LAYER_REQUEST ? "request-based" :
					 l->kind == TK_LAYER_REMAP ? "remap only" : "bio-based");
	if (have_live)
		topo_dev_info_free(&live);
}

/* ---- the stack as a tree ------------------------------------------------------ */

/* The layers in the stack's order, top first, and their depth: as every output lists them. */
static int order_layers(struct html_page *pg)
{
	const struct stats *st = pg->r->st;

	int *depth = calloc(st->nlayers ? st->nlayers : 1, sizeof(*depth));
	int ret = -ENOMEM;

	pg->order = report_layer_order(pg->r);
	pg->depth = calloc(st->nlayers ? st->nlayers : 1, sizeof(*pg->depth));
	if (depth && pg->order && pg->depth && report_layer_depths(pg->r, pg->order, depth) == 0) {
		for (size_t k = 0; k < st->nlayers; k++)
			pg->depth[k] = depth[k] > 32 ? 32 : (uint8_t)depth[k];
		pg->n = st->nlayers;
		ret = 0;
	}
	free(depth);
	return ret;
}

/* The layer's own part of @op's end-to-end time: its way down, the device, its way up. */
static double layer_share(const struct stats *st, uint32_t dev, enum st_op op, uint64_t *sub,
			  uint64_t *devt, uint64_t *comp)
{
	const struct st_e2e *e = &st->e2e[op];

	*sub = *devt = *comp = 0;
	for (size_t i = 0; i < e->nshares; i++)
		if (e->shares[i].dev == dev) {
			*sub += e->shares[i].sub_ns;
			*devt += e->shares[i].dev_ns;
			*comp += e->shares[i].comp_ns;
		}
	return e->total_ns ? (double)(*sub + *devt + *comp) / e->total_ns : 0;
}

/* The position in @pg->order of the layer with the largest share of @op, or -1. */
static long costliest(const struct html_page *pg, enum st_op op, double *share)
{
	long best = -1;

	*share = 0;
	for (size_t i = 0; i < pg->n; i++) {
		uint64_t a, b, c;
		double f = layer_share(pg->r->st, pg->r->st->layers[pg->order[i]].dev, op, &a, &b, &c);

		if (f > *share) {
			*share = f;
			best = (long)i;
		}
	}
	return best;
}

/* White to vermilion with the share: the costly layers stand out. */
static void share_colour(char *buf, size_t len, double f)
{
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	snprintf(buf, len, "rgb(255,%d,%d)", (int)lround(255 - 150 * f), (int)lround(255 - 215 * f));
}

static bool op_present(const struct stats *st, enum st_op op)
{
	if (st->e2e[op].ios)
		return true;
	for (size_t i = 0; i < st->nlayers; i++)
		if (st->layers[i].op[op].ios)
			return true;
	return false;
}

static void stack_cell(struct html_page *pg, const struct st_layer *l, enum st_op op, long top)
{
	const struct st_layer_op *o = &l->op[op];
	const struct stats *st = pg->r->st;
	uint64_t sub, devt, comp;
	double f = layer_share(st, l->dev, op, &sub, &devt, &comp);
	char bg[32], p50[24], p99[24], a[24], b[24], c[24];
	FILE *fp = pg->fp;

	if (!o->ios) {
		fputs("<td class=\"op\"></td>", fp);
		return;
	}
	share_colour(bg, sizeof(bg), f);
	html_fmt_lat(p50, sizeof(p50), o->total.count ? hist_percentile(&o->total, 50) : 0);
	html_fmt_lat(p99, sizeof(p99), o->total.count ? hist_percentile(&o->total, 99) : 0);
	html_fmt_lat(a, sizeof(a), st->e2e[op].ios ? (double)sub / st->e2e[op].ios : 0);
	html_fmt_lat(b, sizeof(b), st->e2e[op].ios ? (double)devt / st->e2e[op].ios : 0);
	html_fmt_lat(c, sizeof(c), st->e2e[op].ios ? (double)comp / st->e2e[op].ios : 0);
	fprintf(fp, "<td class=\"op%s\" style=\"background:%s\" data-share=\"%.4f\" title=\"%s: "
		    "%" PRIu64 " I/Os, %.2f MiB here; its own part of the end-to-end time: %.1f%% "
		    "(per top-level I/O: down %s, %s %s, up %s); total latency here (C - Q) p50 %s, "
		    "p99 %s\">", top >= 0 ? " top" : "", bg, f, st_op_name(op), o->ios,
		o->bytes / 1048576.0, f * 100, a, l->kind == TK_LAYER_REQUEST ? "device" : "own end",
		b, c, p50, p99);
	if (st->e2e[op].total_ns)
		fprintf(fp, "<span class=\"pct\">%.0f%%</span>%s<br>", f * 100,
			top >= 0 ? " &#9664; most" : "");
	else
		fputs("<span class=\"pct\">&ndash;</span><br>", fp);
	fprintf(fp, "<span class=\"lat\">%s &middot; %s</span></td>", p50, p99);
}

/*
 * The layer's I/Os and bytes by class (top, caused, own, unexplained), every
 * operation, as data-classes="top_ios top_bytes caused_ios ...".
 */
static void classes_attr(FILE *fp, const struct st_layer *l)
{
	static const uint8_t order[] = { TK_IO_TOP, TK_IO_CAUSED, TK_IO_LAYER, TK_IO_UNEXPLAINED };

	fputs(" data-classes=\"", fp);
	for (int c = 0; c < TK_CLASSES; c++) {
		uint64_t ios = 0, bytes = 0;

		for (int op = 0; op < ST_OPS; op++) {
			ios += l->op[op].cls_ios[order[c]];
			bytes += l->op[op].cls_bytes[order[c]];
		}
		fprintf(fp, "%s%" PRIu64 " %" PRIu64, c ? " " : "", ios, bytes);
	}
	fputc('"', fp);
}

static void stack_tree(struct html_page *pg)
{
	const struct stats *st = pg->r->st;
	double share;
	long top[ST_OPS];
	FILE *fp = pg->fp;
	char name[64], desc[200];

	for (int op = 0; op < ST_OPS; op++)
		top[op] = costliest(pg, op, &share);
	fputs("<table class=\"stack\" id=\"stack\"><thead><tr><th class=\"l\">layer, under the "
	      "layer that sent it I/O</th>", fp);
	for (int op = 0; op < ST_OPS; op++)
		if (op_present(st, op))
			fprintf(fp, "<th title=\"the layer's own part of the %s' end-to-end time, "
				    "and its total latency C - Q, p50 and p99\">%s<br><small>share, "
				    "p50 &middot; p99</small></th>", st_op_name(op), html_op_title(op));
	fputs("</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < pg->n; i++) {
		const struct st_layer *l = &st->layers[pg->order[i]];
		uint64_t ios = 0, bytes = 0, issued = 0;

		for (int op = 0; op < ST_OPS; op++) {
			ios += l->op[op].ios;
			bytes += l->op[op].bytes;
			issued += l->op[op].issued;
		}
		describe(pg, l, desc, sizeof(desc));
		fprintf(fp, "<tr class=\"layer\" data-dev=\"%u:%u\" data-name=\"", KDEV_MAJOR(l->dev),
			KDEV_MINOR(l->dev));
		/* the JSON's name (the kernel's, else MAJ:MIN); the row shows the label */
		if (!report_dev_kname(pg->r, l->dev, name, sizeof(name)))
			snprintf(name, sizeof(name), "%u:%u", KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
		svg_text(fp, name);
		html_label(pg, l->dev, name, sizeof(name));
		fprintf(fp, "\" data-ios=\"%" PRIu64 "\" data-bytes=\"%" PRIu64 "\"", ios, bytes);
		classes_attr(fp, l);
		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];

			if (o->ios)
				fprintf(fp, " data-op-%s=\"%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
					    "\"", st_op_name(op), o->ios, o->bytes,
					o->total.count ? hist_percentile(&o->total, 50) : 0,
					o->total.count ? hist_percentile(&o->total, 99) : 0);
		}
		fprintf(fp, "><td class=\"l\" style=\"padding-left:%dpx\">%s<span class=\"sw\" "
			    "style=\"background:%s\"></span><span class=\"name\">", 6 + pg->depth[i] * 14,
			pg->depth[i] ? "&#9492; " : "", html_layer_colour(i));
		svg_text(fp, name);
		fprintf(fp, "</span> <span class=\"desc\">");
		/* a layer nothing names is labelled by its MAJ:MIN: not twice */
		if (report_dev_named(pg->r, l->dev))
			fprintf(fp, "%u:%u<br>", KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
		svg_text(fp, desc);
		if (issued)
			fprintf(fp, "; %" PRIu64 " I/Os of its own", issued);
		fputs("</span></td>", fp);
		for (int op = 0; op < ST_OPS; op++)
			if (op_present(st, op))
				stack_cell(pg, l, op, top[op] == (long)i ? 1 : -1);
		fputs("</tr>\n", fp);
	}
	fputs("</tbody></table>\n", fp);
	fprintf(fp, "<p class=\"note\">Each cell: the layer's own part of the operation's "
		    "end-to-end time (its way down, the device at a disk, its way up, along the "
		    "piece each I/O waited for), coloured from white (none) to red (all); then the "
		    "total latency C &minus; Q there, p50 &middot; p99. Hover for the numbers.</p>\n");
}

/* One sentence per operation: where its time goes. */
static void verdict(struct html_page *pg)
{
	const struct stats *st = pg->r->st;
	FILE *fp = pg->fp;
	char name[64], desc[200], p99[24];

	fputs("<div class=\"verdict\">", fp);
	for (int op = 0; op < ST_OPS; op++) {
		const struct st_e2e *e = &st->e2e[op];
		double share;
		long best;

		if (!e->ios || !e->total_ns)
			continue;
		best = costliest(pg, op, &share);
		html_fmt_lat(p99, sizeof(p99), hist_percentile(&e->total, 99));
		fprintf(fp, "<div data-op=\"%s\"><b>%s</b> (%" PRIu64 " top-level, p99 %s end to end): ",
			st_op_name(op), html_op_title(op), e->ios, p99);
		if (best < 0) {
			fputs("no layer's time is known.</div>", fp);
			continue;
		}
		html_label(pg, st->layers[pg->order[best]].dev, name, sizeof(name));
		describe(pg, &st->layers[pg->order[best]], desc, sizeof(desc));
		fprintf(fp, "%.0f%% of their time is spent at <b class=\"layer\">", share * 100);
		svg_text(fp, name);
		fputs("</b> (", fp);
		svg_text(fp, desc);
		fputs(").</div>", fp);
	}
	fputs("</div>\n", fp);
}

static void markers_list(struct html_page *pg)
{
	const struct report_time *t = pg->r->time;
	FILE *fp = pg->fp;

	if (!t)
		return;
	if (!t->nmarkers) {
		fprintf(fp, "<p class=\"markers note\">Markers: %s</p>\n", t->markers_note ?
			t->markers_note : "none in this trace (a workload marks its phases by "
			"writing to tracefs's trace_marker).");
		return;
	}
	fputs("<div class=\"markers\"><b>Markers</b> (trace time, s): ", fp);
	for (size_t i = 0; i < t->nmarkers && i < 60; i++) {
		fprintf(fp, "<span class=\"mark\" data-t=\"%.6f\">%.3f&nbsp;", html_time(t->markers[i].ts),
			html_time(t->markers[i].ts));
		svg_text(fp, t->markers[i].text);
		fputs("</span> ", fp);
	}
	if (t->nmarkers > 60)
		fprintf(fp, "and %zu more", t->nmarkers - 60);
	fputs("</div>\n", fp);
}

/* What was followed, and what was not: said up front, never hidden. */
static void facts(struct html_page *pg)
{
	const struct report *r = pg->r;
	const struct tk_counters *tk = r->tk;
	uint64_t lost = report_lost(r->src);
	const char *sep = " (";
	FILE *fp = pg->fp;

	fprintf(fp, "<p class=\"facts\"><span>%.3f s of completed I/O, trace time %.3f to %.3f s"
		    "</span> ", (r->st->last_ts - r->st->first_ts) / 1e9, html_time(r->st->first_ts),
		html_time(r->st->last_ts));
	fprintf(fp, "<span class=\"rates\">%" PRIu64 " top-level I/Os, %.1f%% of which reached a "
		    "disk through every layer", tk->ios_top,
		tk->ios_top ? 100.0 * tk->ios_top_matched / tk->ios_top : 100.0);
	for (int op = 0; op < ST_OPS; op++) {
		const struct st_e2e *e = &r->st->e2e[op];

		if (!e->ios)
			continue;
		fprintf(fp, "%s%s %.1f%%", sep, st_op_name(op), 100.0 * e->matched / e->ios);
		sep = ", ";
	}
	fputs(*sep == ',' ? ")</span> " : "</span> ", fp);
	if (tk->ios_top_reach[TK_REACH_SELF])
		fprintf(fp, "<span title=\"a layer completed them by design (dm-thin's discards, "
			    "md's flushes): see the match rate per operation\">%" PRIu64 " completed "
			    "by a layer itself</span> ", tk->ios_top_reach[TK_REACH_SELF]);
	if (tk->ios_top_reach[TK_REACH_ENDED])
		fprintf(fp, "<span class=\"warn\" title=\"their path ended at a layer with devices "
			    "below that sent nothing down\">%" PRIu64 " ended at a layer</span> ",
			tk->ios_top_reach[TK_REACH_ENDED]);
	if (tk->ios_top_reach[TK_REACH_PARTIAL])
		fprintf(fp, "<span class=\"warn\" title=\"a step of their path was not seen\">"
			    "%" PRIu64 " partly followed</span> ", tk->ios_top_reach[TK_REACH_PARTIAL]);
	fprintf(fp, "<span title=\"I/O the layers issued themselves: metadata, parity, "
		    "zeroing, flushes\">%" PRIu64 " issued by layers for a top-level I/O in flight, "
		    "%" PRIu64 " on their own</span> ", tk->ios_caused, tk->ios_layer);
	if (tk->ios_unexplained)
		fprintf(fp, "<span class=\"warn\" title=\"came down from a layer with nothing in "
			    "flight to send them\">%" PRIu64 " I/Os unexplained</span> ",
			tk->ios_unexplained);
	if (tk->expired)
		fprintf(fp, "<span class=\"warn\">%" PRIu64 " never completed (%" PRIu64
			    " top-level)</span> ", tk->expired, tk->expired_top);
	if (tk->unmatched_complete || tk->unmatched_remap || tk->unmatched_rq)
		fprintf(fp, "<span class=\"warn\" title=\"events that matched no I/O in flight\">"
			    "unmatched: %" PRIu64 " completions, %" PRIu64 " remaps, %" PRIu64
			    " request events</span> ", tk->unmatched_complete, tk->unmatched_remap,
			tk->unmatched_rq);
	if (tk->dropped_cap)
		fprintf(fp, "<span class=\"warn\">%" PRIu64 " bios not tracked (in-flight cap)</span> ",
			tk->dropped_cap);
	if (lost)
		fprintf(fp, "<span class=\"warn\">%" PRIu64 " events lost: the figures are "
			    "incomplete</span> ", lost);
	else
		fputs("<span>no event lost</span> ", fp);
	fputs("</p>\n", fp);
}

/* ---- the waterfall of one operation --------------------------------------- */

enum share_phase { SHARE_DOWN, SHARE_DEVICE, SHARE_UP };

static double segment(struct html_page *pg, double x, double w, const char *colour,
		      const char *name, const char *phase, double share, double avg_ns)
{
	char lat[24];
	FILE *fp = pg->fp;

	if (w <= 0)
		return x;
	html_fmt_lat(lat, sizeof(lat), avg_ns);
	fprintf(fp, "<rect x=\"%.1f\" y=\"6\" width=\"%.2f\" height=\"24\" fill=\"%s\" "
		    "stroke=\"#fff\" stroke-width=\"0.5\"><title>", x, w, colour);
	svg_text(fp, name);
	fprintf(fp, " %s: %.1f%% (%s per I/O on average)</title></rect>\n", phase, share * 100, lat);
	if (w > 44) {
		fprintf(fp, "<text x=\"%.1f\" y=\"22\">", x + 3);
		svg_text(fp, name);
		fputs("</text>\n", fp);
	}
	return x + w;
}

static double shares(struct html_page *pg, const struct st_e2e *e, int depth,
		     enum share_phase phase, double x, double width)
{
	static const char *const colours[] = { SVG_SKY, SVG_ORANGE, SVG_GREEN };
	double tot = (double)e->total_ns;

	for (size_t i = 0; i < e->nshares; i++) {
		const struct st_share *sh = &e->shares[i];
		const struct st_layer *l = stats_layer(pg->r->st, sh->dev);
		uint64_t ns = phase == SHARE_DOWN ? sh->sub_ns :
			      phase == SHARE_DEVICE ? sh->dev_ns : sh->comp_ns;
		char name[64];

		if (depth >= 0 && sh->depth != depth)
			continue;
		html_label(pg, sh->dev, name, sizeof(name));
		x = segment(pg, x, ns / tot * width, phase == SHARE_DEVICE && l &&
			    l->kind != TK_LAYER_REQUEST ? SVG_PURPLE : colours[phase], name,
			    phase == SHARE_DOWN ? "down" : phase == SHARE_UP ? "up" : l &&
			    l->kind == TK_LAYER_REQUEST ? "device" : "own end of the path (bio-based, "
			    "no device)", ns / tot, (double)ns / e->ios);
	}
	return x;
}

static void waterfall(struct html_page *pg, enum st_op op)
{
	const struct st_e2e *e = &pg->r->st->e2e[op];
	const double x0 = 62, width = 528;
	FILE *fp = pg->fp;
	double x = x0;

	if (!e->ios || !e->total_ns)
		return;
	fprintf(fp, "<figure class=\"chart bar\" id=\"c%u\"><figcaption class=\"title\">%s: "
		    "where the end-to-end time goes, layer by layer (%" PRIu64 " top-level I/Os)"
		    "</figcaption><div class=\"legend\">", pg->ncharts++, html_op_title(op), e->ios);
	fprintf(fp, "<span class=\"key\"><i class=\"box\" style=\"background:%s\"></i>down "
		    "(submission)</span><span class=\"key\"><i class=\"box\" style=\"background:%s\">"
		    "</i>device (D to C)</span><span class=\"key\"><i class=\"box\" style=\""
		    "background:%s\"></i>a bio-based layer where the path ended</span><span class="
		    "\"key\"><i class=\"box\" style=\"background:%s\"></i>up (completion)</span>",
		SVG_SKY, SVG_ORANGE, SVG_PURPLE, SVG_GREEN);
	fputs("</div><div class=\"plot-static\"><svg class=\"static\" viewBox=\"0 0 600 62\" "
	      "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", fp);
	for (int d = 0; d < 64; d++)
		x = shares(pg, e, d, SHARE_DOWN, x, width);
	x = shares(pg, e, -1, SHARE_DEVICE, x, width);
	for (int d = 63; d >= 0; d--)
		x = shares(pg, e, d, SHARE_UP, x, width);
	for (int p = 0; p <= 100; p += 20)
		fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"30\" y2=\"34\" stroke=\"#444\"/>"
			    "<text class=\"tick\" x=\"%.1f\" y=\"44\" text-anchor=\"middle\">%d</text>",
			x0 + width * p / 100, x0 + width * p / 100, x0 + width * p / 100, p);
	fprintf(fp, "<text class=\"xlabel\" x=\"%.1f\" y=\"58\" text-anchor=\"middle\">share of "
		    "the end-to-end time (%%)</text><text class=\"ylabel\" x=\"4\" y=\"22\">path"
		    "</text>\n</svg></div></figure>\n", x0 + width / 2);
}

/* ---- the sections ------------------------------------------------------------ */

static void op_section(struct html_page *pg, enum st_op op)
{
	FILE *fp = pg->fp;

	fprintf(fp, "<section id=\"op-%s\"><h2>%s</h2>\n<div class=\"grid\">\n", st_op_name(op),
		html_op_title(op));
	waterfall(pg, op);
	/* reads and writes have their latency chart in the overview */
	if (op != ST_READ && op != ST_WRITE)
		html_chart_layers(pg, HTML_LINE_LATENCY, op, "");
	if (op != ST_FLUSH)
		html_chart_layers(pg, HTML_LINE_MIBS, op, "");
	html_chart_layers(pg, HTML_LINE_IOPS, op, "");
	for (size_t i = 0; i < pg->n; i++)
		html_chart_heat(pg, i, op, false);
	for (size_t i = 0; i < pg->n; i++)
		html_chart_heat(pg, i, op, true);
	fputs("</div></section>\n", fp);
}

static void layers_section(struct html_page *pg)
{
	FILE *fp = pg->fp;

	fputs("<section id=\"layers\"><h2>Every layer: in flight and offsets</h2>\n"
	      "<div class=\"grid\">\n", fp);
	html_chart_layers(pg, HTML_LINE_INFLIGHT, ST_READ, "");
	for (size_t i = 0; i < pg->n; i++)
		html_chart_offsets(pg, i);
	fputs("</div></section>\n", fp);
}

/* The text report, but for the slowest I/Os (drawn) and amplification (a table). */
static int report_lines(FILE *fp, const struct report *r)
{
	struct report plain = *r;

	plain.time = NULL;
	plain.amp = NULL;
	return out_report_text(fp, &plain);
}

static int tables_section(struct html_page *pg)
{
	const struct report_time *t = pg->r->time;
	FILE *fp = pg->fp;
	int ret;

	fputs("<section id=\"tables\"><h2>Tables</h2>\n", fp);
	html_table_layers(pg);
	html_table_amp(pg);
	if (t && t->access) {
		fputs("<details><summary>Access pattern and I/Os in flight</summary>\n", fp);
		ret = html_pre(pg, out_access_text);
		fputs("</details>\n", fp);
		if (ret)
			return ret;
	}
	if (t && t->flags) {
		fputs("<details><summary>Latency by rwbs flags</summary>\n", fp);
		ret = html_pre(pg, out_flags_text);
		fputs("</details>\n", fp);
		if (ret)
			return ret;
	}
	fputs("<details><summary>The text report</summary>\n", fp);
	ret = html_pre(pg, report_lines);
	fputs("</details></section>\n", fp);
	return ret;
}

static void head(struct html_page *pg)
{
	const struct report *r = pg->r;
	FILE *fp = pg->fp;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width\"><title>blkstack report of ",
	      fp);
	svg_text(fp, r->source);
	fprintf(fp, "</title><style>%s", style);
	html_lib_style(pg);
	fputs("</style></head><body>\n<h1>blkstack report of ", fp);
	svg_text(fp, r->source);
	fputs("</h1>\n", fp);
	facts(pg);
	fputs("<div id=\"zoombar\"></div>\n", fp);
}

static void nav(struct html_page *pg)
{
	FILE *fp = pg->fp;

	fputs("<p class=\"note\">", fp);
	html_time_note(pg);
	fputs(" Sections: ", fp);
	for (int op = 0; op < ST_OPS; op++)
		if (op_present(pg->r->st, op))
			fprintf(fp, "<a href=\"#op-%s\">%s</a> &middot; ", st_op_name(op),
				html_op_title(op));
	fputs("<a href=\"#layers\">in flight and offsets</a> &middot; <a href=\"#slowest\">"
	      "slowest I/Os</a> &middot; <a href=\"#tables\">tables</a>. ", fp);
	if (pg->lib_js)
		fputs("Drag across a chart to zoom every chart in time, double-click to zoom "
		      "out; click a table's heading to sort it.", fp);
	else
		svg_text(fp, pg->lib_note);
	fputs("</p>\n", fp);
}

static int body(struct html_page *pg)
{
	const struct stats *st = pg->r->st;
	FILE *fp = pg->fp;
	bool any;

	fputs("<section class=\"overview\" id=\"overview\"><div class=\"ovtree\">\n", fp);
	verdict(pg);
	stack_tree(pg);
	markers_list(pg);
	fputs("</div><div class=\"ovcharts\">\n", fp);
	any = html_chart_layers(pg, HTML_LINE_LATENCY, ST_READ, "ov");
	any |= html_chart_layers(pg, HTML_LINE_LATENCY, ST_WRITE, "ov");
	if (!any && pg->s) {
		/* no read nor write: the first operation there is */
		for (int op = ST_DISCARD; op < ST_OPS && !any; op++)
			any = html_chart_layers(pg, HTML_LINE_LATENCY, op, "ov");
	}
	fputs("</div></section>\n", fp);
	nav(pg);
	if (pg->s) {
		for (int op = 0; op < ST_OPS; op++)
			if (op_present(st, op))
				op_section(pg, op);
		layers_section(pg);
	}
	html_slowest(pg);
	return tables_section(pg);
}

int out_report_html(FILE *fp, const struct report *r)
{
	struct html_page pg = { .fp = fp, .r = r, .s = r->time ? r->time->series : NULL };
	int ret;

	if (pg.s && !pg.s->nbins)
		pg.s = NULL;
	pg.data = open_memstream(&pg.data_buf, &pg.data_len);
	if (!pg.data)
		return -errno;
	ret = order_layers(&pg);
	if (!ret) {
		html_lib_load(&pg);
		head(&pg);
		if (!r->st->nlayers)
			fputs("<p>No I/O completed.</p>\n", fp);
		else
			ret = body(&pg);
	}
	if (fclose(pg.data) && !ret)
		ret = -ENOMEM;
	pg.data = NULL;
	if (!ret) {
		html_script(&pg);
		fputs("</body></html>\n", fp);
	}
	html_lib_free(&pg);
	free(pg.data_buf);
	free(pg.order);
	free(pg.depth);
	if (ret)
		return ret;
	return ferror(fp) ? -EIO : 0;
}
