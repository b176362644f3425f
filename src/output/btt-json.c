// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btt-json.c - btt's figures as one JSON object (json-c): the phases with
 * btt's names in ns (integers, never rounded), per device, per process and
 * for all devices, and per device the merge, seek, plug, active-request,
 * active-period and Q2D figures of btt's tables. Described in
 * blkstack-report(8).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>

#include "output/btt.h"

static json_object *jphases(const struct btt_avg *a)
{
	json_object *o = json_object_new_object();

	for (int p = 0; p < BTT_PHASES; p++) {
		json_object *j;

		if (!a[p].n)
			continue;
		j = json_object_new_object();
		json_object_object_add(j, "n", json_object_new_uint64(a[p].n));
		json_object_object_add(j, "min_ns", json_object_new_uint64(a[p].min));
		json_object_object_add(j, "avg_ns", json_object_new_double((double)a[p].total /
									    (double)a[p].n));
		json_object_object_add(j, "max_ns", json_object_new_uint64(a[p].max));
		json_object_object_add(o, btt_phase_name(p), j);
	}
	return o;
}

static json_object *jseek(const struct seek *s)
{
	json_object *o = json_object_new_object(), *modes = json_object_new_array();
	uint64_t v[16];
	uint32_t most;
	size_t n;

	json_object_object_add(o, "nseeks", json_object_new_uint64(s->nseeks));
	json_object_object_add(o, "mean", json_object_new_double(seek_mean(s)));
	json_object_object_add(o, "btt_median", json_object_new_uint64(seek_btt_median(s)));
	json_object_object_add(o, "median", json_object_new_uint64(seek_median(s)));
	json_object_object_add(o, "sequential", json_object_new_uint64(s->nseq));
	json_object_object_add(o, "exact", json_object_new_boolean(seek_exact(s)));
	/* the smallest few: a random stream has one mode per distinct distance */
	n = seek_modes(s, v, sizeof(v) / sizeof(v[0]), &most);
	for (size_t i = 0; i < n && i < sizeof(v) / sizeof(v[0]); i++)
		json_object_array_add(modes, json_object_new_uint64(v[i]));
	json_object_object_add(o, "modes_total", json_object_new_uint64(n));
	json_object_object_add(o, "modes", modes);
	json_object_object_add(o, "mode_count", json_object_new_uint64(most));
	return o;
}

static json_object *jlives(const struct btt_live_info *li)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "lives", json_object_new_uint64(li->nlives));
	json_object_object_add(o, "avg_active_ns", json_object_new_double(li->avg_live));
	json_object_object_add(o, "avg_inactive_ns", json_object_new_double(li->avg_lull));
	json_object_object_add(o, "pct_live", json_object_new_double(li->pct_live));
	return o;
}

static json_object *jdev(const struct btt *b, const struct btt_dev *d)
{
	json_object *o = json_object_new_object(), *j, *h;
	struct btt_live_info li = btt_lives(b, d);
	char mm[32];

	snprintf(mm, sizeof(mm), "%u:%u", KDEV_MAJOR(d->dev), KDEV_MINOR(d->dev));
	json_object_object_add(o, "dev", json_object_new_string(mm));
	json_object_object_add(o, "dm", json_object_new_boolean(d->remapper));
	json_object_object_add(o, "phases", jphases(d->avg));

	j = json_object_new_object();
	json_object_object_add(j, "q", json_object_new_uint64(d->n_qs));
	json_object_object_add(j, "d", json_object_new_uint64(d->n_ds));
	json_object_object_add(j, "blk_min", json_object_new_uint64(d->blks.min));
	json_object_object_add(j, "blk_max", json_object_new_uint64(d->blks.max));
	json_object_object_add(j, "blk_total", json_object_new_uint64(d->blks.total));
	json_object_object_add(j, "completions", json_object_new_uint64(d->blks.n));
	json_object_object_add(o, "merge", j);

	json_object_object_add(o, "q2q_seek", jseek(&d->q2q_seek));
	json_object_object_add(o, "d2d_seek", jseek(&d->d2d_seek));

	j = json_object_new_object();
	json_object_object_add(j, "plugs", json_object_new_uint64(d->nplugs));
	json_object_object_add(j, "timer_unplugs", json_object_new_uint64(d->nplugs_t));
	json_object_object_add(j, "plugged_ns", json_object_new_uint64(d->plugged_ns));
	json_object_object_add(j, "span_ns", json_object_new_uint64(d->end - d->start));
	json_object_object_add(j, "ios_unplugged", json_object_new_uint64(d->nios_up));
	json_object_object_add(j, "ios_timer_unplugged", json_object_new_uint64(d->nios_upt));
	json_object_object_add(o, "plug", j);

	json_object_object_add(o, "avg_reqs_at_q",
			       json_object_new_double(d->n_qs ? (double)d->actq.sampled /
							      (double)d->n_qs : 0.0));
	json_object_object_add(o, "active", jlives(&li));
	h = json_object_new_array();
	for (int k = 0; k < BTT_Q2D_BUCKETS; k++)
		json_object_array_add(h, json_object_new_uint64(d->q2d[k]));
	json_object_object_add(o, "q2d_histogram", h);
	return o;
}

int out_btt_json(FILE *fp, const struct btt *b)
{
	json_object *root = json_object_new_object(), *devs = json_object_new_array();
	json_object *procs = json_object_new_array(), *bounds = json_object_new_array();
	const struct btt_proc *pr;
	struct btt_live_info li = btt_lives(b, NULL);
	size_t n = btt_ndevs(b);
	int ret = 0;

	for (size_t i = 0; i < n; i++)
		json_object_array_add(devs, jdev(b, btt_dev_at(b, i)));
	pr = btt_procs(b, &n);
	for (size_t i = 0; i < n; i++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "name", json_object_new_string(pr[i].name));
		json_object_object_add(p, "phases", jphases(pr[i].avg));
		json_object_array_add(procs, p);
	}
	for (int k = 0; k < BTT_Q2D_BUCKETS - 1; k++)
		json_object_array_add(bounds, json_object_new_uint64(btt_q2d_bound[k]));
	json_object_object_add(root, "devices", devs);
	json_object_object_add(root, "processes", procs);
	json_object_object_add(root, "all", jphases(btt_all(b)));
	json_object_object_add(root, "active", jlives(&li));
	json_object_object_add(root, "q2d_bounds_ns", bounds);
	json_object_object_add(root, "unfollowed", json_object_new_uint64(btt_unfollowed(b)));
	if (fprintf(fp, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(root);
	return ret;
}
