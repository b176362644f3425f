// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diff.c - two recordings side by side: their layers paired by name and
 * place in the stack (track/layermatch.h), and per layer, operation and
 * figure the value of each and the change from the first to the second,
 * the biggest change first. Units and names are the report's (MiB/s,
 * KiB of 1024, microseconds); rates are over each recording's span of
 * completed I/O.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/diff.h"
#include "output/report-time.h"
#include "track/layermatch.h"

/* the figures compared, per layer and operation */
enum metric {
	M_IOS, M_MIBS, M_KIB, M_AVG, M_P50, M_P99, M_MERGES, M_SPLITS, M_AMP, M_METRICS
};

/* as the report's columns name them, and as the JSON does */
static const struct {
	const char *text, *json, *fmt;
} metric[M_METRICS] = {
	[M_IOS] = { "IOS", "ios", "%.0f" },
	[M_MIBS] = { "MiB/s", "mib_per_s", "%.2f" },
	[M_KIB] = { "KiB_AVG", "kib_avg", "%.1f" },
	[M_AVG] = { "AVG_us", "avg_us", NULL },
	[M_P50] = { "P50_us", "p50_us", NULL },
	[M_P99] = { "P99_us", "p99_us", NULL },
	[M_MERGES] = { "MERGES", "merges", "%.0f" },
	[M_SPLITS] = { "SPLITS", "splits", "%.0f" },
	[M_AMP] = { "BYTE_AMP", "byte_amp", "%.3f" },
};

static const struct amp_layer *amp_of(const struct amp *a, uint32_t dev)
{
	for (size_t i = 0; a && i < a->nlayers; i++)
		if (a->layers[i].dev == dev)
			return &a->layers[i];
	return NULL;
}

/* The figures of @op at @dev on side @s; false when the side lacks them. */
static bool figures(const struct diff_side *s, uint32_t dev, int op, double *v)
{
	const struct st_layer *l = dev ? stats_layer(s->st, dev) : NULL;
	const struct st_layer_op *o = l ? &l->op[op] : NULL;
	const struct amp_layer *al = amp_of(s->amp, dev);
	double span = s->st->last_ts > s->st->first_ts ?
		      (double)(s->st->last_ts - s->st->first_ts) / 1e9 : 0.0;

	if (!o || !o->ios)
		return false;
	v[M_IOS] = (double)o->ios;
	v[M_MIBS] = span > 0 ? (double)o->bytes / 1048576.0 / span : 0.0;
	v[M_KIB] = (double)o->bytes / 1024.0 / (double)o->ios;
	v[M_AVG] = hist_mean(&o->total) / 1e3;
	v[M_P50] = (double)hist_percentile(&o->total, 50) / 1e3;
	v[M_P99] = (double)hist_percentile(&o->total, 99) / 1e3;
	v[M_MERGES] = (double)(o->merges_back + o->merges_front);
	v[M_SPLITS] = (double)o->splits;
	/* amplification is the layer's, all operations together */
	v[M_AMP] = al ? amp_bytes(s->amp, al) : 0.0;
	return true;
}

/* One row: a figure of an operation of a pair of layers, or a side's lack of it. */
struct diff_row {
	size_t pair;
	int op;
	int m;
	bool ha, hb;
	double a, b;
	double size;	/* of the change: |B - A| / |A|, INFINITY for new or one side only */
};

/* Everything one output needs: the pairs, each side's labels, the rows sorted. */
struct diff {
	const struct diff_side *a, *b;
	struct report ra, rb;
	struct layer_pair *pairs;
	size_t npairs;
	struct diff_row *rows;
	size_t nrows;
};

static int cmp_rows(const void *x, const void *y)
{
	const struct diff_row *p = x, *q = y;

	if (p->size != q->size)
		return p->size > q->size ? -1 : 1;
	if (p->pair != q->pair)
		return p->pair < q->pair ? -1 : 1;
	if (p->op != q->op)
		return p->op - q->op;
	return p->m - q->m;
}

/* A side's layers in its stack's order. */
static uint32_t *ordered_devs(const struct report *r)
{
	size_t *order = report_layer_order(r);
	uint32_t *devs = malloc((r->st->nlayers ? r->st->nlayers : 1) * sizeof(*devs));

	if (order && devs)
		for (size_t k = 0; k < r->st->nlayers; k++)
			devs[k] = r->st->layers[order[k]].dev;
	free(order);
	if (!order) {
		free(devs);
		return NULL;
	}
	return devs;
}

static int add_row(struct diff *d, size_t *cap, const struct diff_row *r)
{
	if (d->nrows == *cap) {
		struct diff_row *m = realloc(d->rows, (*cap = *cap ? *cap * 2 : 64) * sizeof(*m));

		if (!m)
			return -ENOMEM;
		d->rows = m;
	}
	d->rows[d->nrows++] = *r;
	return 0;
}

static int diff_build(struct diff *d, const struct diff_side *a, const struct diff_side *b)
{
	uint32_t *da, *db;
	size_t cap = 0;
	int ret;

	memset(d, 0, sizeof(*d));
	d->a = a;
	d->b = b;
	d->ra = (struct report){ .st = a->st, .names = a->names };
	d->rb = (struct report){ .st = b->st, .names = b->names };
	da = ordered_devs(&d->ra);
	db = ordered_devs(&d->rb);
	ret = da && db ? layer_match(a->names, da, a->st->nlayers, b->names, db, b->st->nlayers,
				     &d->pairs, &d->npairs) : -ENOMEM;
	free(da);
	free(db);
	for (size_t i = 0; !ret && i < d->npairs; i++)
		for (int op = 0; !ret && op < ST_OPS; op++) {
			double va[M_METRICS], vb[M_METRICS];
			struct diff_row r = { .pair = i, .op = op };

			r.ha = figures(a, d->pairs[i].a, op, va);
			r.hb = figures(b, d->pairs[i].b, op, vb);
			if (!r.ha && !r.hb)
				continue;
			if (!r.ha || !r.hb) {
				/* one side only: one row, its I/Os */
				r.m = M_IOS;
				r.a = r.ha ? va[M_IOS] : 0;
				r.b = r.hb ? vb[M_IOS] : 0;
				r.size = INFINITY;
				ret = add_row(d, &cap, &r);
				continue;
			}
			for (int m = 0; !ret && m < M_METRICS; m++) {
				r.m = m;
				r.a = va[m];
				r.b = vb[m];
				/* 0 on both sides: nothing to compare */
				if (r.a == 0 && r.b == 0)
					continue;
				r.size = r.a != 0 ? fabs(r.b - r.a) / fabs(r.a) : INFINITY;
				ret = add_row(d, &cap, &r);
			}
		}
	if (!ret)
		qsort(d->rows, d->nrows, sizeof(*d->rows), cmp_rows);
	return ret;
}

static void diff_free(struct diff *d)
{
	free(d->pairs);
	free(d->rows);
}

/* A layer of a pair: "vda" on both sides, "vda/sda" when B names it otherwise. */
static const char *pair_label(const struct diff *d, const struct layer_pair *p, char *buf,
			      size_t len)
{
	char la[96], lb[96];

	if (p->a)
		report_dev_label(&d->ra, p->a, la, sizeof(la));
	if (p->b)
		report_dev_label(&d->rb, p->b, lb, sizeof(lb));
	if (p->a && p->b && strcmp(la, lb))
		snprintf(buf, len, "%s/%s", la, lb);
	else
		snprintf(buf, len, "%s", p->a ? la : lb);
	return buf;
}

static void fmt_value(char *buf, size_t len, int m, double v)
{
	if (!metric[m].fmt)
		report_fmt_us(buf, len, v * 1e3);
	else
		snprintf(buf, len, metric[m].fmt, v);
}

static void fmt_change(char *buf, size_t len, const struct diff_row *r)
{
	if (!r->ha || !r->hb)
		snprintf(buf, len, "only in %s", r->ha ? "A" : "B");
	else if (r->a == 0)
		snprintf(buf, len, "new");
	else
		snprintf(buf, len, "%+.1f%%", 100.0 * (r->b - r->a) / fabs(r->a));
}

static const char *stack_of(const struct diff_side *s)
{
	return s->stack ? s->stack : "unknown: its layers are MAJ:MIN, matched by number";
}

int out_diff_text(FILE *fp, const struct diff_side *a, const struct diff_side *b, bool same)
{
	struct diff d;
	int wl = 5, ret = diff_build(&d, a, b);
	char la[200], lb[96];

	if (ret) {
		diff_free(&d);
		return ret;
	}
	fprintf(fp, "A: %s (stack: %s)\nB: %s (stack: %s)\n", a->label, stack_of(a), b->label,
		stack_of(b));
	if (same)
		fprintf(fp, "A and B are the same file: no figure can change\n");
	fprintf(fp, "\nLayers, A's in its stack's order, each with B's layer in the same place "
		    "(by dm or md name, else by the place it fills in the layer above):\n");
	for (size_t i = 0; i < d.npairs; i++) {
		const struct layer_pair *p = &d.pairs[i];

		snprintf(la, sizeof(la), "%s", "-");
		if (p->a)
			report_dev_label(&d.ra, p->a, la, sizeof(la));
		snprintf(lb, sizeof(lb), "%s", "-");
		if (p->b)
			report_dev_label(&d.rb, p->b, lb, sizeof(lb));
		fprintf(fp, "  %-32s %s%s\n", la, lb,
			p->a && p->b && !p->by_role ? " (by number)" : "");
	}
	for (size_t i = 0; i < d.npairs; i++) {
		int w = (int)strlen(pair_label(&d, &d.pairs[i], la, sizeof(la)));

		if (w > wl)
			wl = w;
	}
	fprintf(fp, "\nPer layer, operation and figure, the biggest change first (latency of "
		    "the layer, C - Q; MiB/s over each recording's span of completed I/O; "
		    "figures 0 on both sides left out):\n");
	fprintf(fp, "%-*s %-7s %-8s %12s %12s %10s\n", wl, "LAYER", "OP", "FIGURE", "A", "B",
		"CHANGE");
	for (size_t i = 0; i < d.nrows; i++) {
		const struct diff_row *r = &d.rows[i];
		char ca[32] = "-", cb[32] = "-", ch[32];

		if (r->ha)
			fmt_value(ca, sizeof(ca), r->m, r->a);
		if (r->hb)
			fmt_value(cb, sizeof(cb), r->m, r->b);
		fmt_change(ch, sizeof(ch), r);
		fprintf(fp, "%-*s %-7s %-8s %12s %12s %10s\n", wl,
			pair_label(&d, &d.pairs[r->pair], la, sizeof(la)), st_op_name(r->op),
			metric[r->m].text, ca, cb, ch);
	}
	if (!d.nrows)
		fprintf(fp, "(no I/O on either side)\n");
	diff_free(&d);
	return ferror(fp) ? -EIO : 0;
}

static json_object *jnum(bool has, double v)
{
	return has ? json_object_new_double(v) : NULL;
}

/* "dev", "name", "label" of one side's layer into @o (each null when that side lacks it) */
static void jlayer_side(json_object *o, const struct report *r, uint32_t dev, const char *suffix)
{
	char key[16], buf[96];

	snprintf(key, sizeof(key), "dev%s", suffix);
	if (dev) {
		snprintf(buf, sizeof(buf), "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
		json_object_object_add(o, key, json_object_new_string(buf));
	} else {
		json_object_object_add(o, key, NULL);
	}
	snprintf(key, sizeof(key), "name%s", suffix);
	json_object_object_add(o, key, dev && report_dev_kname(r, dev, buf, sizeof(buf)) ?
			       json_object_new_string(buf) : NULL);
	snprintf(key, sizeof(key), "label%s", suffix);
	json_object_object_add(o, key, dev ? json_object_new_string(
					      report_dev_label(r, dev, buf, sizeof(buf))) : NULL);
}

static json_object *jchange(const struct diff_row *r)
{
	return r->ha && r->hb && r->a != 0 ?
	       json_object_new_double(100.0 * (r->b - r->a) / fabs(r->a)) : NULL;
}

int out_diff_json(FILE *fp, const struct diff_side *a, const struct diff_side *b, bool same)
{
	json_object *root, *layers, *changes;
	struct diff d;
	int ret = diff_build(&d, a, b);
	char buf[200];

	if (ret) {
		diff_free(&d);
		return ret;
	}
	root = json_object_new_object();
	layers = json_object_new_array();
	changes = json_object_new_array();
	json_object_object_add(root, "a", json_object_new_string(a->label));
	json_object_object_add(root, "b", json_object_new_string(b->label));
	json_object_object_add(root, "stack_a", a->stack ? json_object_new_string(a->stack) : NULL);
	json_object_object_add(root, "stack_b", b->stack ? json_object_new_string(b->stack) : NULL);
	json_object_object_add(root, "same_file", json_object_new_boolean(same));
	for (size_t i = 0; i < d.npairs; i++) {
		const struct layer_pair *p = &d.pairs[i];
		json_object *jl = json_object_new_object(), *ops = json_object_new_object();

		jlayer_side(jl, &d.ra, p->a, "");
		jlayer_side(jl, &d.rb, p->b, "_b");
		json_object_object_add(jl, "matched_by", !p->a || !p->b ? NULL :
				       json_object_new_string(p->by_role ? "role" : "number"));
		for (int op = 0; op < ST_OPS; op++) {
			double va[M_METRICS], vb[M_METRICS];
			bool ha = figures(a, p->a, op, va), hb = figures(b, p->b, op, vb);
			json_object *jo;

			if (!ha && !hb)
				continue;
			jo = json_object_new_object();
			for (int m = 0; m < M_METRICS; m++) {
				struct diff_row r = { .ha = ha, .hb = hb, .a = ha ? va[m] : 0,
						 .b = hb ? vb[m] : 0 };
				json_object *jm = json_object_new_object();

				json_object_object_add(jm, "a", jnum(ha, r.a));
				json_object_object_add(jm, "b", jnum(hb, r.b));
				json_object_object_add(jm, "change_pct", jchange(&r));
				json_object_object_add(jo, metric[m].json, jm);
			}
			json_object_object_add(ops, st_op_name(op), jo);
		}
		json_object_object_add(jl, "ops", ops);
		json_object_array_add(layers, jl);
	}
	for (size_t i = 0; i < d.nrows; i++) {
		const struct diff_row *r = &d.rows[i];
		json_object *jc = json_object_new_object();

		json_object_object_add(jc, "layer", json_object_new_string(
			pair_label(&d, &d.pairs[r->pair], buf, sizeof(buf))));
		json_object_object_add(jc, "layers_index", json_object_new_uint64(r->pair));
		json_object_object_add(jc, "op", json_object_new_string(st_op_name(r->op)));
		json_object_object_add(jc, "figure", json_object_new_string(metric[r->m].json));
		json_object_object_add(jc, "a", jnum(r->ha, r->a));
		json_object_object_add(jc, "b", jnum(r->hb, r->b));
		json_object_object_add(jc, "change_pct", jchange(r));
		json_object_array_add(changes, jc);
	}
	json_object_object_add(root, "layers", layers);
	json_object_object_add(root, "changes", changes);
	diff_free(&d);
	return report_json_write(fp, root);
}
