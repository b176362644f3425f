// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flame.c - a self-contained SVG flame graph of disk bytes per path.
 *
 * One box per path component, as wide as the bytes beneath it, the root
 * at the bottom and children in name order (the flame graph convention:
 * widths are the data, positions are not). Every box has a <title>, which
 * a browser shows on hover; the labels are cut to fit. No script, no
 * external reference: the file opens anywhere an SVG does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/files.h"
#include "output/svg.h"

#define FL_WIDTH	1200.0	/* px */
#define FL_PAD		10.0
#define FL_FRAME	17.0	/* height of one level */
#define FL_HEAD		44.0	/* title and subtitle */
#define FL_FOOT		16.0
#define FL_FONT		11	/* px */
#define FL_CHAR		6.4	/* average glyph width at FL_FONT, for cutting labels */
#define FL_MIN_W	0.3	/* boxes narrower than this are not drawn */

static void human(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= 1024ULL * 1024 * 1024)
		snprintf(buf, len, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
	else if (bytes >= 1024 * 1024)
		snprintf(buf, len, "%.2f MiB", bytes / (1024.0 * 1024));
	else if (bytes >= 1024)
		snprintf(buf, len, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, len, "%" PRIu64 " B", bytes);
}

/* A stable warm colour per name (files and directories), blue-grey for categories. */
static void colour(const struct ft_node *n, char *buf, size_t len)
{
	uint32_t h = 2166136261u;

	for (const char *p = n->name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	if (n->name[0] == '[')
		snprintf(buf, len, "rgb(%u,%u,%u)", 110 + h % 30, 130 + h % 30, 170 + h % 40);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + h % 50, (h >> 8) % 180 + 40,
			 (h >> 16) % 55);
}

struct flame {
	FILE *fp;
	const struct filetree *t;
	uint64_t total;
	double scale;		/* px per byte */
	double base;		/* y of the root's box */
};

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct filetree *t = arg;

	return strcmp(t->n[*(const size_t *)a].name, t->n[*(const size_t *)b].name);
}

static int depth_of(const struct filetree *t, size_t idx, int depth)
{
	int max = depth;

	for (size_t c = t->n[idx].first_child; c != FT_NONE; c = t->n[c].next_sibling) {
		if (ft_bytes(&t->n[c].c)) {
			int d = depth_of(t, c, depth + 1);

			if (d > max)
				max = d;
		}
	}
	return max;
}

static void box(struct flame *f, size_t idx, double x, double w, int depth)
{
	const struct ft_node *n = &f->t->n[idx];
	double y = f->base - depth * FL_FRAME;
	char path[4096 + 64], size[32], fill[32];
	size_t fit;

	if (idx == FT_ROOT)
		snprintf(path, sizeof(path), "all");
	else if (filetree_path(f->t, idx, path, sizeof(path)))
		snprintf(path, sizeof(path), "%s", n->name);
	human(size, sizeof(size), ft_bytes(&n->c));
	if (idx == FT_ROOT)
		snprintf(fill, sizeof(fill), "rgb(200,200,200)");
	else
		colour(n, fill, sizeof(fill));
	fprintf(f->fp, "<g><title>");
	svg_text(f->fp, path);
	fprintf(f->fp, " (%s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		       "height=\"%.1f\" fill=\"%s\" rx=\"2\" ry=\"2\"/>",
		size, 100.0 * ft_bytes(&n->c) / f->total, x, y, w, FL_FRAME - 1, fill);
	fit = w > 8 ? (size_t)((w - 6) / FL_CHAR) : 0;
	if (fit >= 3) {
		const char *label = idx == FT_ROOT ? "all" : n->name;
		size_t len = strlen(label);
		char cut[512];

		if (len > fit) {
			size_t keep = fit - 2 < sizeof(cut) - 3 ? fit - 2 : sizeof(cut) - 3;

			memcpy(cut, label, keep);
			strcpy(cut + keep, "..");
			label = cut;
		}
		fprintf(f->fp, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + FL_FRAME - 5);
		svg_text(f->fp, label);
		fputs("</text>", f->fp);
	}
	fputs("</g>\n", f->fp);
}

static int draw(struct flame *f, size_t idx, double x, int depth)
{
	const struct filetree *t = f->t;
	double w = ft_bytes(&t->n[idx].c) * f->scale;
	size_t n = 0, *kids;

	if (w < FL_MIN_W)
		return 0;
	box(f, idx, x, w, depth);
	for (size_t c = t->n[idx].first_child; c != FT_NONE; c = t->n[c].next_sibling)
		n++;
	if (!n)
		return 0;
	kids = malloc(n * sizeof(*kids));
	if (!kids)
		return -ENOMEM;
	n = 0;
	for (size_t c = t->n[idx].first_child; c != FT_NONE; c = t->n[c].next_sibling)
		if (ft_bytes(&t->n[c].c))
			kids[n++] = c;
	qsort_r(kids, n, sizeof(*kids), cmp_name, (void *)t);
	for (size_t i = 0; i < n; i++) {
		int ret = draw(f, kids[i], x, depth + 1);

		if (ret) {
			free(kids);
			return ret;
		}
		x += ft_bytes(&t->n[kids[i]].c) * f->scale;
	}
	free(kids);
	return 0;
}

int out_files_flame(FILE *fp, const struct filetree *t, const char *title)
{
	struct flame f = { .fp = fp, .t = t, .total = ft_bytes(&t->n[FT_ROOT].c) };
	int depth = f.total ? depth_of(t, FT_ROOT, 0) : 0;
	double height = FL_HEAD + (depth + 1) * FL_FRAME + FL_FOOT;
	char size[32];
	int ret = 0;

	human(size, sizeof(size), f.total);
	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		    "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		    "xmlns=\"http://www.w3.org/2000/svg\">\n",
		FL_WIDTH, height, FL_WIDTH, height);
	fprintf(fp, "<style>text { font-family: Verdana, sans-serif; font-size: %dpx; "
		    "fill: #000; } .title { font-size: 17px; } .sub { fill: #555; }</style>\n",
		FL_FONT);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n");
	fprintf(fp, "<text class=\"title\" x=\"%.0f\" y=\"22\" text-anchor=\"middle\">",
		FL_WIDTH / 2);
	svg_text(fp, title);
	fprintf(fp, "</text>\n<text class=\"sub\" x=\"%.0f\" y=\"38\" text-anchor=\"middle\">"
		    "disk bytes read and written per path: %s in all; hover a box for its path</text>\n",
		FL_WIDTH / 2, size);
	if (f.total) {
		f.scale = (FL_WIDTH - 2 * FL_PAD) / f.total;
		f.base = FL_HEAD + depth * FL_FRAME;
		ret = draw(&f, FT_ROOT, FL_PAD, 0);
	} else {
		fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">no disk I/O was traced"
			    "</text>\n", FL_WIDTH / 2, FL_HEAD + FL_FRAME);
	}
	fputs("</svg>\n", fp);
	if (!ret && (ferror(fp) || fflush(fp)))
		ret = -EIO;
	return ret;
}
