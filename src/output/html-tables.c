// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * html-tables.c - the HTML page's tables: every layer and operation, the
 * amplification, the slowest I/Os (each also as a waterfall through the
 * stack), and the text tables the page does not draw itself.
 *
 * Tables are plain HTML: a cell's number for sorting is its data-v, so
 * that "4.2 ms" sorts after "870 us". The page's script sorts a table when
 * its heading is clicked; without script they read as they are.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/amp.h"
#include "output/html-page.h"
#include "output/row.h"
#include "output/svg.h"

static void th(FILE *fp, const char *name, const char *title, bool left)
{
	fprintf(fp, "<th%s title=\"%s\">%s</th>", left ? " class=\"l\"" : "", title, name);
}

static void td_text(FILE *fp, const char *s)
{
	fputs("<td class=\"l\">", fp);
	svg_text(fp, s);
	fputs("</td>", fp);
}

static void td_num(FILE *fp, double v, const char *fmt)
{
	fprintf(fp, "<td data-v=\"%.9g\">", v);
	fprintf(fp, fmt, v);
	fputs("</td>", fp);
}

static void td_lat(FILE *fp, const struct hist *h, double pct)
{
	char buf[24];
	double ns;

	if (!h->count) {
		fputs("<td data-v=\"-1\">-</td>", fp);
		return;
	}
	ns = pct < 0 ? (double)h->max : (double)hist_percentile(h, pct);
	html_fmt_lat(buf, sizeof(buf), ns);
	fprintf(fp, "<td data-v=\"%.0f\">%s</td>", ns, buf);
}

void html_table_layers(struct html_page *pg)
{
	const struct stats *st = pg->r->st;
	double span_s = (st->last_ts - st->first_ts) / 1e9;
	FILE *fp = pg->fp;
	char name[64];

	fputs("<h3>Every layer and operation</h3><div class=\"tablewrap\"><table class=\"sortable\" "
	      "id=\"layer-table\"><thead><tr>", fp);
	th(fp, "layer", "the device", true);
	th(fp, "op", "the operation", true);
	th(fp, "I/Os", "bios completed at this layer", false);
	th(fp, "issued", "I/Os the layer issued itself (not top-level), counted at it", false);
	th(fp, "top", "of the I/Os, those serving a top-level I/O", false);
	th(fp, "caused", "of the I/Os, those a layer issued for a top-level I/O", false);
	th(fp, "own", "of the I/Os, those a layer issued on its own", false);
	th(fp, "unexpl.", "of the I/Os, those that came down from a layer with nothing in "
	   "flight to send them", false);
	th(fp, "MiB", "their bytes", false);
	th(fp, "MiB/s", "over the span of completed I/O", false);
	th(fp, "KiB avg", "average size", false);
	th(fp, "sub p50", "submission (down - Q), median", false);
	th(fp, "sub p99", "submission, 99th percentile", false);
	th(fp, "comp p50", "completion (C - up), median", false);
	th(fp, "comp p99", "completion, 99th percentile", false);
	th(fp, "total p50", "C - Q, median", false);
	th(fp, "total p99", "C - Q, 99th percentile", false);
	th(fp, "total max", "C - Q, the largest", false);
	th(fp, "D2C p99", "at request-based layers: issue to completion, 99th percentile", false);
	th(fp, "splits", "split events", false);
	th(fp, "merges", "bios merged into a request (back and front)", false);
	th(fp, "errors", "completions with an error", false);
	fputs("</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < pg->n; i++) {
		const struct st_layer *l = &st->layers[pg->order[i]];

		html_label(pg, l->dev, name, sizeof(name));
		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];

			if (!o->ios)
				continue;
			fputs("<tr>", fp);
			td_text(fp, name);
			td_text(fp, st_op_name(op));
			td_num(fp, o->ios, "%.0f");
			td_num(fp, o->issued, "%.0f");
			td_num(fp, o->cls_ios[TK_IO_TOP], "%.0f");
			td_num(fp, o->cls_ios[TK_IO_CAUSED], "%.0f");
			td_num(fp, o->cls_ios[TK_IO_LAYER], "%.0f");
			td_num(fp, o->cls_ios[TK_IO_UNEXPLAINED], "%.0f");
			td_num(fp, o->bytes / 1048576.0, "%.2f");
			td_num(fp, span_s > 0 ? o->bytes / 1048576.0 / span_s : 0, "%.2f");
			td_num(fp, o->ios ? o->bytes / 1024.0 / o->ios : 0, "%.1f");
			td_lat(fp, &o->sub, 50);
			td_lat(fp, &o->sub, 99);
			td_lat(fp, &o->comp, 50);
			td_lat(fp, &o->comp, 99);
			td_lat(fp, &o->total, 50);
			td_lat(fp, &o->total, 99);
			td_lat(fp, &o->total, -1);
			td_lat(fp, &o->d2c, 99);
			td_num(fp, o->splits, "%.0f");
			td_num(fp, o->merges_back + o->merges_front, "%.0f");
			td_num(fp, o->errors, "%.0f");
			fputs("</tr>\n", fp);
		}
	}
	fputs("</tbody></table></div>\n", fp);
}

void html_table_amp(struct html_page *pg)
{
	const struct amp *a = pg->r->amp;
	FILE *fp = pg->fp;
	char name[64];

	if (!a)
		return;
	fprintf(fp, "<h3>Amplification</h3><p class=\"note\">What each layer moved for the "
		    "%" PRIu64 " top-level I/Os (%.2f MiB): bios and bytes of their trees, and of "
		    "I/O the layers issued themselves, per top-level I/O and byte.</p>"
		    "<div class=\"tablewrap\"><table class=\"sortable\" id=\"amp-table\"><thead><tr>",
		    a->top_ios, a->top_bytes / 1048576.0);
	th(fp, "layer", "the device", true);
	th(fp, "kind", "how I/O passes the layer", true);
	th(fp, "served I/Os", "bios of top-level I/O's trees", false);
	th(fp, "own I/Os", "bios of trees the layers issued", false);
	th(fp, "served MiB", "their bytes", false);
	th(fp, "own MiB", "their bytes", false);
	th(fp, "I/Os per top I/O", "bios per top-level I/O", false);
	th(fp, "bytes per top byte", "bytes per byte of top-level I/O", false);
	fputs("</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < a->nlayers; i++) {
		const struct amp_layer *l = &a->layers[i];

		fputs("<tr>", fp);
		td_text(fp, html_label(pg, l->dev, name, sizeof(name)));
		td_text(fp, row_kind_name(l->kind));
		td_num(fp, l->serve_ios, "%.0f");
		td_num(fp, l->own_ios, "%.0f");
		td_num(fp, l->serve_bytes / 1048576.0, "%.2f");
		td_num(fp, l->own_bytes / 1048576.0, "%.2f");
		td_num(fp, amp_ios(a, l), "%.3f");
		td_num(fp, amp_bytes(a, l), "%.3f");
		fputs("</tr>\n", fp);
	}
	fputs("</tbody></table></div>\n", fp);
}

/* ---- the slowest I/Os ------------------------------------------------------- */

#define SPAN_ROW 17.0
#define SPAN_X 130.0
#define SPAN_W 460.0

static void span_bar(FILE *fp, double y, uint64_t a, uint64_t b, uint64_t base, double scale,
		     const char *colour, const char *what)
{
	char lat[24];

	if (!a || !b || b < a || a < base)
		return;
	html_fmt_lat(lat, sizeof(lat), (double)(b - a));
	fprintf(fp, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\">"
		    "<title>%s: %s</title></rect>", SPAN_X + (a - base) * scale, y,
		(b - a) * scale + 0.3, SPAN_ROW - 5, colour, what, lat);
}

/* The layer with the most time of its own in @row: where this I/O waited. */
static size_t own_most(const struct row *row, uint64_t *own)
{
	size_t best = 0;

	*own = 0;
	for (size_t i = 0; i < row->nlayers; i++) {
		const struct row_layer *l = &row->layers[i];
		uint64_t t = 0;

		if (l->down && l->up)
			t = (l->down - l->q) + (l->c > l->up ? l->c - l->up : 0);
		else if (l->down && l->c > l->down)
			t = l->c - l->down;	/* a leaf: its device's time */
		else if (l->c > l->q)
			t = l->c - l->q;
		if (l->kind == TK_LAYER_REQUEST && l->up > l->down && l->down)
			t += l->up - l->down;
		if (t > *own) {
			*own = t;
			best = i;
		}
	}
	return best;
}

/* One layer of a slow I/O (or of one issued on its behalf, @tag set) as a row of bars at @y. */
static void slow_span_row(struct html_page *pg, const struct row_layer *l, const char *tag,
			  double y, uint64_t base, double scale)
{
	char name[64], label[128], lat[24];
	FILE *fp = pg->fp;

	html_label(pg, l->dev, name, sizeof(name));
	snprintf(label, sizeof(label), "%s%s", tag ? tag : "", name);
	fprintf(fp, "<g class=\"span%s\" data-dev=\"%u:%u\"><title>", tag ? " caused" : "",
		KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
	svg_text(fp, label);
	html_fmt_lat(lat, sizeof(lat), (double)(l->c > l->q ? l->c - l->q : 0));
	fprintf(fp, " (%s): %u bios, %.1f KiB, total %s; %u splits, %u merges", row_kind_name(l->kind),
		l->bios, l->bytes / 1024.0, lat, l->splits, l->merges);
	if (l->requeues) {
		html_fmt_lat(lat, sizeof(lat), (double)l->requeue_ns);
		fprintf(fp, "; requeued %u times, %s", l->requeues, lat);
	}
	fprintf(fp, "</title><text x=\"%.1f\" y=\"%.1f\">", 6.0 + l->depth * 8.0, y + 10);
	svg_text(fp, label);
	fputs("</text></g>", fp);
	if (l->down) {
		span_bar(fp, y, l->q, l->down, base, scale, SVG_SKY, "down (submission)");
		span_bar(fp, y, l->down, l->up, base, scale, SVG_ORANGE,
			 l->kind == TK_LAYER_REQUEST ? "the device" : "below");
		span_bar(fp, y, l->up, l->c, base, scale, SVG_GREEN, "up (completion)");
	} else {
		/* a bio-based end of the path: its whole stay is its own, no device */
		span_bar(fp, y, l->q, l->c, base, scale, SVG_PURPLE,
			 "at this bio-based layer, where the path ended");
	}
	fputc('\n', fp);
}

static void slow_waterfall(struct html_page *pg, const struct slow_io *s, const struct row *row,
			   size_t rank)
{
	const struct tk_rec *root = &s->recs[0];
	struct row *caused = calloc(s->ncaused ? s->ncaused : 1, sizeof(*caused));
	size_t nrows = row->nlayers;
	uint64_t end = root->c;
	double scale, h, y;
	char name[64], lat[24], title[400], tag[64];
	FILE *fp = pg->fp;

	for (size_t i = 0; i < row->nlayers; i++)
		end = row->layers[i].c > end ? row->layers[i].c : end;
	/* the I/Os issued on its behalf, rows under its own */
	for (size_t k = 0; caused && k < s->ncaused; k++) {
		if (report_time_caused_row(&s->caused[k], &caused[k]) < 0)
			continue;
		nrows += caused[k].nlayers;
		for (size_t i = 0; i < caused[k].nlayers; i++)
			end = caused[k].layers[i].c > end ? caused[k].layers[i].c : end;
	}
	scale = end > root->q ? SPAN_W / (end - root->q) : 1;
	h = 8 + nrows * SPAN_ROW + 40;
	html_label(pg, root->dev, name, sizeof(name));
	html_fmt_lat(lat, sizeof(lat), (double)s->lat);
	snprintf(title, sizeof(title), "#%zu: %s, %s %.1f KiB at %s, trace time %.6f s", rank, lat,
		 st_op_name(st_op_of_rec(root)), root->sectors / 2.0, name, html_time(root->q));
	fprintf(fp, "<figure class=\"chart bar\" id=\"slow-%zu\"><figcaption class=\"title\">",
		rank);
	svg_text(fp, title);
	fprintf(fp, "</figcaption><div class=\"legend\"><span class=\"key\"><i class=\"box\" "
		    "style=\"background:%s\"></i>down</span><span class=\"key\"><i class=\"box\" "
		    "style=\"background:%s\"></i>below (the device at a disk)</span><span class="
		    "\"key\"><i class=\"box\" style=\"background:%s\"></i>up</span><span class=\"key\">"
		    "<i class=\"box\" style=\"background:%s\"></i>at a bio-based end of the path"
		    "</span></div>", SVG_SKY, SVG_ORANGE, SVG_GREEN, SVG_PURPLE);
	fprintf(fp, "<div class=\"plot-static\"><svg class=\"slow-io static\" data-rank=\"%zu\" "
		    "data-latency-ns=\"%" PRIu64 "\" data-q-ns=\"%" PRIu64 "\" viewBox=\"0 0 600 %.0f\" "
		    "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", rank, s->lat, root->q, h);
	y = 8;
	for (size_t i = 0; i < row->nlayers; i++, y += SPAN_ROW)
		slow_span_row(pg, &row->layers[i], NULL, y, root->q, scale);
	for (size_t k = 0; caused && k < s->ncaused; k++) {
		snprintf(tag, sizeof(tag), "[%s %s #%" PRIu64 "] ", row_class_name(caused[k].cls),
			 row_op_name(caused[k].op), caused[k].io);
		for (size_t i = 0; i < caused[k].nlayers; i++, y += SPAN_ROW)
			slow_span_row(pg, &caused[k].layers[i], i ? "" : tag, y, root->q, scale);
		row_release(&caused[k]);
	}
	free(caused);
	{
		double span = (end - root->q) / 1e3;
		double step = svg_nice_step(span > 0 ? span : 1, 5);

		fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>",
			SPAN_X, SPAN_X + SPAN_W, y, y);
		for (double v = 0; v <= span + step * 1e-9 && step > 0; v += step) {
			char num[32];

			fprintf(fp, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
				    "%s</text>", SPAN_X + v * 1e3 * scale, y + 12,
				svg_num(v, num, sizeof(num)));
		}
		fprintf(fp, "<text class=\"xlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time "
			    "from the I/O's queue event (us)</text><text class=\"ylabel\" x=\"6\" "
			    "y=\"%.1f\">layer</text>\n", SPAN_X + SPAN_W / 2, y + 28, y + 28);
	}
	fputs("</svg></div></figure>\n", fp);
}

void html_slowest(struct html_page *pg)
{
	const struct report_time *t = pg->r->time;
	FILE *fp = pg->fp;
	struct row *rows;

	if (!t || !t->slow)
		return;
	rows = calloc(t->nslow ? t->nslow : 1, sizeof(*rows));
	if (!rows)
		return;
	fprintf(fp, "<section id=\"slowest\"><h2>The slowest I/Os</h2>\n<p class=\"note\">The %zu "
		    "slowest of %" PRIu64 " top-level I/Os, end to end; click a row for its waterfall. "
		    "Under its layers, the I/O that layers issued on its behalf (read-modify-write "
		    "reads, parity writes, copies, flushes), each with its own layers.</p>\n"
		    "<div class=\"tablewrap\"><table class=\"sortable\" "
		    "id=\"slow-table\"><thead><tr>", t->nslow, t->slow_offered);
	th(fp, "#", "rank", false);
	th(fp, "latency", "end to end, root C - root Q", false);
	th(fp, "op", "the operation", true);
	th(fp, "KiB", "its size", false);
	th(fp, "at", "the device it was issued to", true);
	th(fp, "trace time (s)", "when it was queued, trace clock", false);
	th(fp, "most time at", "the layer where it spent the most time of its own", true);
	th(fp, "process", "the originator", true);
	th(fp, "file", "from the page-cache attribution", true);
	fputs("</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < t->nslow; i++) {
		const struct slow_io *s = &t->slow[i];
		const struct tk_rec *root = &s->recs[0];
		char name[64], lat[24], proc[48], file[4096];
		const char *fname = NULL;
		uint64_t own = 0;
		size_t most;

		if (report_time_row(s, &rows[i]) < 0)
			continue;
		most = own_most(&rows[i], &own);
		if (t->file && s->owner != SLOWEST_NO_OWNER)
			fname = t->file(s->owner, file, sizeof(file), t->file_ctx);
		html_fmt_lat(lat, sizeof(lat), (double)s->lat);
		fprintf(fp, "<tr data-slow=\"%zu\"><td data-v=\"%zu\"><a href=\"#slow-%zu\">%zu</a>"
			    "</td><td data-v=\"%" PRIu64 "\">%s</td>", i + 1, i + 1, i + 1, i + 1,
			s->lat, lat);
		td_text(fp, st_op_name(st_op_of_rec(root)));
		td_num(fp, root->sectors / 2.0, "%.1f");
		td_text(fp, html_label(pg, root->dev, name, sizeof(name)));
		td_num(fp, html_time(root->q), "%.6f");
		if (rows[i].nlayers) {
			char buf[96], l2[24];

			html_fmt_lat(l2, sizeof(l2), (double)own);
			snprintf(buf, sizeof(buf), "%s (%s)", html_label(pg, rows[i].layers[most].dev,
				 name, sizeof(name)), l2);
			td_text(fp, buf);
		} else {
			td_text(fp, "-");
		}
		snprintf(proc, sizeof(proc), "%d %s", s->pid, s->comm[0] ? s->comm : "?");
		td_text(fp, proc);
		td_text(fp, fname ? fname : "-");
		fputs("</tr>\n", fp);
	}
	fputs("</tbody></table></div>\n<div class=\"grid\">\n", fp);
	for (size_t i = 0; i < t->nslow; i++) {
		if (rows[i].nlayers)
			slow_waterfall(pg, &t->slow[i], &rows[i], i + 1);
		row_release(&rows[i]);
	}
	fputs("</div></section>\n", fp);
	free(rows);
}

/* ---- text tables ------------------------------------------------------------ */

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

int html_pre(struct html_page *pg, int (*fn)(FILE *, const struct report *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret;

	if (!mem)
		return -errno;
	ret = fn(mem, pg->r);
	if (fclose(mem) && !ret)
		ret = -EIO;
	if (!ret) {
		fputs("<pre>", pg->fp);
		pre_text(pg->fp, buf);
		fputs("</pre>\n", pg->fp);
	}
	free(buf);
	return ret;
}
