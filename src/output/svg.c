// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * svg.c - helpers of the SVG charts: escaping, scales, axes, colours.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "output/svg.h"

void svg_text(FILE *fp, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, fp);
			break;
		}
	}
}

double svg_nice_step(double max, int n)
{
	double raw, mag, f;

	if (!(max > 0) || n < 1)
		return 1;
	raw = max / n;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

const char *svg_viridis(double f, char *buf)
{
	/* five stops of matplotlib's viridis, interpolated linearly */
	static const uint8_t stops[5][3] = {
		{ 0x44, 0x01, 0x54 }, { 0x3b, 0x52, 0x8b }, { 0x21, 0x91, 0x8c },
		{ 0x5e, 0xc9, 0x62 }, { 0xfd, 0xe7, 0x25 },
	};
	double pos;
	int i;

	if (!(f > 0))
		f = 0;
	if (f > 1)
		f = 1;
	pos = f * 4;
	i = (int)pos;
	if (i > 3)
		i = 3;
	pos -= i;
	snprintf(buf, 8, "#%02x%02x%02x",
		 (unsigned int)lround(stops[i][0] + (stops[i + 1][0] - stops[i][0]) * pos),
		 (unsigned int)lround(stops[i][1] + (stops[i + 1][1] - stops[i][1]) * pos),
		 (unsigned int)lround(stops[i][2] + (stops[i + 1][2] - stops[i][2]) * pos));
	return buf;
}

double svg_px(const struct svg_plot *p, double v)
{
	double span = p->xmax - p->xmin;

	return p->x + (span > 0 ? (v - p->xmin) / span * p->w : 0);
}

double svg_py(const struct svg_plot *p, double v)
{
	double span = p->ymax - p->ymin;

	return p->y + p->h - (span > 0 ? (v - p->ymin) / span * p->h : 0);
}

const char *svg_num(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, len, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

void svg_axes(FILE *fp, const struct svg_plot *p, const char *xlabel, const char *ylabel,
	      bool yticks)
{
	double step;
	char num[32];

	fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		    "stroke=\"#444\" stroke-width=\"0.5\"/>\n", p->x, p->y, p->w, p->h);
	step = svg_nice_step(p->xmax - p->xmin, 8);
	for (double v = ceil(p->xmin / step) * step; v <= p->xmax + step * 1e-9; v += step) {
		double x = svg_px(p, v);

		fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" "
			    "stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" class=\"tick\" "
			    "text-anchor=\"middle\">%s</text>\n", x, p->y + p->h, x, p->y + p->h + 4,
			x, p->y + p->h + 15, svg_num(v, num, sizeof(num)));
		if (v + step <= v)
			break;	/* a step below the values' precision: no tick further */
	}
	if (yticks) {
		step = svg_nice_step(p->ymax - p->ymin, 4);
		for (double v = ceil(p->ymin / step) * step; v <= p->ymax + step * 1e-9; v += step) {
			double y = svg_py(p, v);

			fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				    "stroke=\"#ddd\" stroke-width=\"0.5\"/><text x=\"%.1f\" y=\"%.1f\" "
				    "class=\"tick\" text-anchor=\"end\">%s</text>\n", p->x, y,
				p->x + p->w, y, p->x - 4, y + 3, svg_num(v, num, sizeof(num)));
			if (v + step <= v)
				break;	/* e.g. offsets near 2^64 sectors 1 MiB apart */
		}
	}
	fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\">",
		p->x + p->w / 2, p->y + p->h + 29);
	svg_text(fp, xlabel);
	fprintf(fp, "</text>\n<text class=\"axis\" text-anchor=\"middle\" "
		    "transform=\"translate(%.1f %.1f) rotate(-90)\">", p->x - 56, p->y + p->h / 2);
	svg_text(fp, ylabel);
	fputs("</text>\n", fp);
}
