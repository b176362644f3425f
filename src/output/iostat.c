// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iostat.c - iostat -x's extended table (sysstat 12's layout: "%-13s"
 * device, then each column at its width with two decimals) per layer, and
 * the same figures as JSON.
 */
#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#include "output/iostat.h"

/* sysstat's columns: name, width; a group's six, then f/s, f_await, aqu-sz, %util */
static const char *const grp_cols[3][6] = {
	{ "r/s", "rkB/s", "rrqm/s", "%rrqm", "r_await", "rareq-sz" },
	{ "w/s", "wkB/s", "wrqm/s", "%wrqm", "w_await", "wareq-sz" },
	{ "d/s", "dkB/s", "drqm/s", "%drqm", "d_await", "dareq-sz" },
};
static const int grp_width[6] = { 8, 10, 9, 7, 8, 9 };

static const char *dev_name(uint32_t dev, char *buf, size_t len, report_name_fn name, void *ctx)
{
	const char *n = name ? name(dev, buf, len, ctx) : NULL;

	if (n && n != buf)
		snprintf(buf, len, "%s", n);
	else if (!n)
		snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return buf;
}

int out_iostat_basis_text(FILE *fp, const struct iostat_basis *b)
{
	if (b->started_assumed)
		fprintf(fp, "Note: %%util counts time with requests issued to the driver, as kernels "
			    "before 6.16 do: %s does not say the traced kernel's release.\n", b->from);
	if (b->hz_assumed)
		fprintf(fp, "Note: %%util counts busy time in ticks of CONFIG_HZ %u, assumed: %s does "
			    "not say the traced kernel's (--hz sets it).\n", b->hz, b->from);
	return ferror(fp) ? -EIO : 0;
}

/* The basis as JSON: every key, null where the trace did not say */
static json_object *basis_json(const struct iostat_basis *b)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "release", b->release[0] ? json_object_new_string(b->release)
							    : NULL);
	json_object_object_add(o, "from", json_object_new_string(b->from));
	json_object_object_add(o, "busy_counts", json_object_new_string(b->started ? "started"
										    : "issued"));
	json_object_object_add(o, "busy_counts_assumed",
			       json_object_new_boolean(b->started_assumed));
	json_object_object_add(o, "hz", json_object_new_int(b->hz));
	json_object_object_add(o, "hz_from", json_object_new_string(b->hz_given ? "--hz" :
								    b->hz_assumed ? "assumed" :
								    b->from));
	return o;
}

int out_iostat_text(FILE *fp, const struct iostat *s, uint64_t start, uint64_t end,
		    report_name_fn name, void *ctx, bool header)
{
	size_t n = iostat_ndevs(s);
	char buf[64];

	if (header) {
		fprintf(fp, "%-13s", "Device");
		for (int g = 0; g < 3; g++)
			for (int c = 0; c < 6; c++)
				fprintf(fp, " %*s", grp_width[c] - 1, grp_cols[g][c]);
		fprintf(fp, " %7s %7s %7s %6s\n", "f/s", "f_await", "aqu-sz", "%util");
	}
	for (size_t i = 0; i < n; i++) {
		const struct ios_dev *d = iostat_dev(s, i);
		struct ios_row r;

		iostat_row(d, start, end, &r);
		fprintf(fp, "%-13s", dev_name(d->dev, buf, sizeof(buf), name, ctx));
		for (int g = 0; g < 3; g++) {
			double v[6] = { r.rs[g], r.kbs[g], r.rqms[g], r.pct_rqm[g], r.await[g],
					r.areq_sz[g] };

			for (int c = 0; c < 6; c++) {
				/* a bio-based layer merges nothing: no merge columns */
				if (!d->rq_based && (c == 2 || c == 3))
					fprintf(fp, " %*s", grp_width[c] - 1, "-");
				else
					fprintf(fp, " %*.2f", grp_width[c] - 1, v[c]);
			}
		}
		fprintf(fp, " %7.2f %7.2f %7.2f %6.2f\n", r.rs[IOS_FLUSH], r.await[IOS_FLUSH],
			r.aqu_sz, r.util);
	}
	return ferror(fp) ? -EIO : 0;
}

int out_iostat_json(FILE *fp, const struct iostat *s, uint64_t start, uint64_t end,
		    report_name_fn name, void *ctx, const struct iostat_basis *b)
{
	json_object *root = json_object_new_object(), *devs = json_object_new_array();
	size_t n = iostat_ndevs(s);
	char buf[64];
	int ret = 0;

	json_object_object_add(root, "interval_ns", json_object_new_uint64(end - start));
	json_object_object_add(root, "kernel", basis_json(b));
	for (size_t i = 0; i < n; i++) {
		const struct ios_dev *d = iostat_dev(s, i);
		json_object *o = json_object_new_object();
		struct ios_row r;
		char mm[32];

		iostat_row(d, start, end, &r);
		snprintf(mm, sizeof(mm), "%u:%u", KDEV_MAJOR(d->dev), KDEV_MINOR(d->dev));
		json_object_object_add(o, "dev", json_object_new_string(mm));
		json_object_object_add(o, "name", json_object_new_string(
					       dev_name(d->dev, buf, sizeof(buf), name, ctx)));
		json_object_object_add(o, "request_based", json_object_new_boolean(d->rq_based));
		for (int g = 0; g < 3; g++) {
			double v[6] = { r.rs[g], r.kbs[g], r.rqms[g], r.pct_rqm[g], r.await[g],
					r.areq_sz[g] };

			for (int c = 0; c < 6; c++)
				if (d->rq_based || (c != 2 && c != 3))
					json_object_object_add(o, grp_cols[g][c],
							       json_object_new_double(v[c]));
		}
		json_object_object_add(o, "f/s", json_object_new_double(r.rs[IOS_FLUSH]));
		json_object_object_add(o, "f_await", json_object_new_double(r.await[IOS_FLUSH]));
		json_object_object_add(o, "aqu-sz", json_object_new_double(r.aqu_sz));
		json_object_object_add(o, "%util", json_object_new_double(r.util));
		json_object_array_add(devs, o);
	}
	json_object_object_add(root, "devices", devs);
	if (fprintf(fp, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(root);
	return ret;
}
