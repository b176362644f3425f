// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diff.c - two recordings side by side: per layer (device, matched by
 * number) and operation, the figures of each and the change from the first
 * to the second in percent. A layer or operation one side lacks shows a
 * dash there. Rates are over each recording's span of completed I/O.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "output/diff.h"

/* the figures compared, per layer and operation */
enum metric {
	M_IOS, M_MBS, M_SIZE, M_AVG, M_P50, M_P99, M_MERGES, M_SPLITS, M_AMP, M_METRICS
};

static const char *const metric_names[M_METRICS] = {
	"ios", "MB/s", "avg_kB", "lat_avg_us", "lat_p50_us", "lat_p99_us", "merges", "splits",
	"byte_amp",
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
	const struct st_layer *l = stats_layer(s->st, dev);
	const struct st_layer_op *o = l ? &l->op[op] : NULL;
	const struct amp_layer *al = amp_of(s->amp, dev);
	double span = s->st->last_ts > s->st->first_ts ?
		      (double)(s->st->last_ts - s->st->first_ts) / 1e9 : 0.0;

	if (!o || !o->ios)
		return false;
	v[M_IOS] = (double)o->ios;
	v[M_MBS] = span > 0 ? (double)o->bytes / 1e6 / span : 0.0;
	v[M_SIZE] = (double)o->bytes / 1024.0 / (double)o->ios;
	v[M_AVG] = hist_mean(&o->total) / 1e3;
	v[M_P50] = (double)hist_percentile(&o->total, 50) / 1e3;
	v[M_P99] = (double)hist_percentile(&o->total, 99) / 1e3;
	v[M_MERGES] = (double)(o->merges_back + o->merges_front);
	v[M_SPLITS] = (double)o->splits;
	/* amplification is the layer's, all operations together */
	v[M_AMP] = al ? amp_bytes(s->amp, al) : 0.0;
	return true;
}

/* Every device of either side, in the first side's order, then the second's. */
static size_t devices(const struct diff_side *a, const struct diff_side *b, uint32_t *devs,
		      size_t max)
{
	size_t n = 0;

	for (int side = 0; side < 2; side++) {
		const struct stats *st = side ? b->st : a->st;

		for (size_t i = 0; i < st->nlayers && n < max; i++) {
			size_t k;

			for (k = 0; k < n && devs[k] != st->layers[i].dev; k++)
				;
			if (k == n)
				devs[n++] = st->layers[i].dev;
		}
	}
	return n;
}

static const char *dev_name(const struct diff_side *a, const struct diff_side *b, uint32_t dev,
			    char *buf, size_t len)
{
	const char *n = a->name ? a->name(dev, buf, len, a->name_ctx) : NULL;

	if (!n && b->name)
		n = b->name(dev, buf, len, b->name_ctx);
	if (!n) {
		snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
		n = buf;
	}
	return n;
}

#define MAX_DEVS 256

int out_diff_text(FILE *fp, const struct diff_side *a, const struct diff_side *b)
{
	uint32_t devs[MAX_DEVS];
	size_t n = devices(a, b, devs, MAX_DEVS);
	char buf[64];

	fprintf(fp, "A: %s\nB: %s\n", a->label, b->label);
	fprintf(fp, "per layer and operation: A, B and the change from A to B (latencies of "
		    "the layer, C - Q, in us; MB/s over each recording's span)\n\n");
	fprintf(fp, "%-12s %-8s %-11s %14s %14s %9s\n", "LAYER", "OP", "FIGURE", "A", "B",
		"CHANGE");
	for (size_t i = 0; i < n; i++)
		for (int op = 0; op < ST_OPS; op++) {
			double va[M_METRICS], vb[M_METRICS];
			bool ha = figures(a, devs[i], op, va), hb = figures(b, devs[i], op, vb);

			if (!ha && !hb)
				continue;
			for (int m = 0; m < M_METRICS; m++) {
				char ca[32] = "-", cb[32] = "-", ch[32] = "-";

				if (ha)
					snprintf(ca, sizeof(ca), "%.2f", va[m]);
				if (hb)
					snprintf(cb, sizeof(cb), "%.2f", vb[m]);
				if (ha && hb && va[m] != 0)
					snprintf(ch, sizeof(ch), "%+.1f%%",
						 100.0 * (vb[m] - va[m]) / fabs(va[m]));
				else if (ha && hb)
					snprintf(ch, sizeof(ch), vb[m] == 0 ? "0" : "new");
				fprintf(fp, "%-12s %-8s %-11s %14s %14s %9s\n",
					m ? "" : dev_name(a, b, devs[i], buf, sizeof(buf)),
					m ? "" : st_op_name(op), metric_names[m], ca, cb, ch);
			}
		}
	return ferror(fp) ? -EIO : 0;
}

int out_diff_json(FILE *fp, const struct diff_side *a, const struct diff_side *b)
{
	json_object *root = json_object_new_object(), *layers = json_object_new_array();
	uint32_t devs[MAX_DEVS];
	size_t n = devices(a, b, devs, MAX_DEVS);
	char buf[64], mm[32];
	int ret = 0;

	json_object_object_add(root, "a", json_object_new_string(a->label));
	json_object_object_add(root, "b", json_object_new_string(b->label));
	for (size_t i = 0; i < n; i++) {
		json_object *jl = json_object_new_object(), *ops = json_object_new_object();

		snprintf(mm, sizeof(mm), "%u:%u", KDEV_MAJOR(devs[i]), KDEV_MINOR(devs[i]));
		json_object_object_add(jl, "dev", json_object_new_string(mm));
		json_object_object_add(jl, "name", json_object_new_string(
					       dev_name(a, b, devs[i], buf, sizeof(buf))));
		for (int op = 0; op < ST_OPS; op++) {
			double va[M_METRICS], vb[M_METRICS];
			bool ha = figures(a, devs[i], op, va), hb = figures(b, devs[i], op, vb);
			json_object *jo;

			if (!ha && !hb)
				continue;
			jo = json_object_new_object();
			for (int m = 0; m < M_METRICS; m++) {
				json_object *jm = json_object_new_object();

				json_object_object_add(jm, "a", ha ? json_object_new_double(va[m]) : NULL);
				json_object_object_add(jm, "b", hb ? json_object_new_double(vb[m]) : NULL);
				json_object_object_add(jm, "change_pct",
						       ha && hb && va[m] != 0 ?
						       json_object_new_double(100.0 * (vb[m] - va[m]) /
									      fabs(va[m])) : NULL);
				json_object_object_add(jo, metric_names[m], jm);
			}
			json_object_object_add(ops, st_op_name(op), jo);
		}
		json_object_object_add(jl, "ops", ops);
		json_object_array_add(layers, jl);
	}
	json_object_object_add(root, "layers", layers);
	if (fprintf(fp, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(root);
	return ret;
}
