/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * svg.h - the pieces blkstack's SVG charts share: text escaping, axes with
 * round ticks and units, and colour-blind-safe colours (Okabe-Ito for
 * categories, viridis for counts).
 */
#ifndef BLKSTACK_OUT_SVG_H
#define BLKSTACK_OUT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Okabe & Ito's palette: told apart with every common colour blindness. */
#define SVG_BLUE	"#0072B2"
#define SVG_ORANGE	"#E69F00"
#define SVG_GREEN	"#009E73"
#define SVG_SKY		"#56B4E9"
#define SVG_VERMILION	"#D55E00"
#define SVG_PURPLE	"#CC79A7"
#define SVG_GREY	"#999999"

/** svg_text - @s escaped for XML text and attribute values */
void svg_text(FILE *fp, const char *s);

/**
 * svg_nice_step - a round tick step (1, 2 or 5 times a power of ten) that
 * cuts [0, @max] into about @n intervals
 */
double svg_nice_step(double max, int n);

/**
 * svg_viridis - the viridis colour at @f in [0, 1] (dark purple to yellow:
 * ordered in lightness, readable by colour-blind people), as "#rrggbb"
 * Returns @buf (8 bytes at least).
 */
const char *svg_viridis(double f, char *buf);

/**
 * struct svg_plot - a plot area and its scales
 * @x, @y, @w, @h: the area in the SVG, px
 * @xmin, @xmax, @ymin, @ymax: the values at its edges
 */
struct svg_plot {
	double x, y, w, h;
	double xmin, xmax, ymin, ymax;
};

/** svg_px - the x pixel of value @v */
double svg_px(const struct svg_plot *p, double v);

/** svg_py - the y pixel of value @v (larger values higher) */
double svg_py(const struct svg_plot *p, double v);

/**
 * svg_axes - the frame, round ticks on both axes and the axis labels
 * @xlabel, @ylabel: what the axes show, with their units ("time (s)")
 * @yticks: false for an axis the caller labels itself (a heatmap's buckets)
 */
void svg_axes(FILE *fp, const struct svg_plot *p, const char *xlabel, const char *ylabel,
	      bool yticks);

/** svg_num - @v in at most 4 significant digits, with k/M/G for large values */
const char *svg_num(double v, char *buf, size_t len);

#endif /* BLKSTACK_OUT_SVG_H */
