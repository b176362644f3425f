// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btt-text.c - btt -A's report, byte for byte in btt's layout (blktrace
 * 1.2's btt/output.c): the same section headers, column widths, units
 * (seconds with nine decimals, 512-byte blocks) and the same rules for
 * which rows and summary lines appear, so that a script that reads btt's
 * .avg file reads this.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/btt.h"

#define SEEK_DASHES "---------- | --------------- --------------- --------------- | ---------------\n"
#define MERGE_DASHES "---------- | -------- -------- ------- | -------- -------- -------- --------\n"
#define LIVE_DASHES "---------- | ---------- ------------- ------------- ------\n"
#define Q2D_DASHES "===== ===== ===== ===== ===== ===== ===== ===== ===== ===== \n"

static inline double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

static const char *dev_hdr(char *buf, size_t len, uint32_t dev)
{
	snprintf(buf, len, "(%3u,%3u)", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return buf;
}

static void section(FILE *fp, const char *name)
{
	fprintf(fp, "==================== %s ====================\n\n", name);
}

static void avg_hdr(FILE *fp, const char *name)
{
	fprintf(fp, "%15s %13s %13s %13s %11s\n", name, "MIN", "AVG", "MAX", "N");
	fprintf(fp, "--------------- ------------- ------------- ------------- -----------\n");
}

static void avg_row(FILE *fp, const char *label, const struct btt_avg *a)
{
	if (!a->n)
		return;
	fprintf(fp, "%-15s %13.9f %13.9f %13.9f %11" PRIu64 "\n", label, secs(a->min),
		secs(a->total) / (double)a->n, secs(a->max), a->n);
}

/* one phase table: per process (@per_proc) or per device */
static void phase_table(FILE *fp, const struct btt *b, enum btt_phase p, bool per_proc)
{
	char name[16];
	size_t n;

	avg_hdr(fp, btt_phase_name(p));
	if (per_proc) {
		const struct btt_proc *pr = btt_procs(b, &n);

		for (size_t i = 0; i < n; i++) {
			snprintf(name, 15, "%s", pr[i].name);
			avg_row(fp, name, &pr[i].avg[p]);
		}
	} else {
		n = btt_ndevs(b);
		for (size_t i = 0; i < n; i++) {
			const struct btt_dev *d = btt_dev_at(b, i);

			avg_row(fp, dev_hdr(name, sizeof(name), d->dev), &d->avg[p]);
		}
	}
	fprintf(fp, "\n");
}

static void phase_tables(FILE *fp, const struct btt *b, bool per_proc)
{
	section(fp, per_proc ? "Per Process" : "Per Device");
	for (int p = BTT_Q2Q_DM; p <= BTT_Q2C_DM; p++)
		phase_table(fp, b, p, per_proc);
	fprintf(fp, "\n");
	for (int p = BTT_Q2Q; p < BTT_PHASES; p++)
		if (p != BTT_M2D)
			phase_table(fp, b, p, per_proc);
}

static void all_devices(FILE *fp, const struct btt *b)
{
	const struct btt_avg *all = btt_all(b);

	section(fp, "All Devices");
	avg_hdr(fp, "ALL");
	for (int p = BTT_Q2Q_DM; p <= BTT_Q2C_DM; p++)
		avg_row(fp, btt_phase_name(p), &all[p]);
	fprintf(fp, "\n");
	for (int p = BTT_Q2Q; p < BTT_PHASES; p++)
		avg_row(fp, btt_phase_name(p), &all[p]);
	fprintf(fp, "\n");
}

static void overhead(FILE *fp, const struct btt *b)
{
	static const enum btt_phase cols[] = { BTT_Q2G, BTT_G2I, BTT_Q2M, BTT_I2D, BTT_D2C };
	uint64_t tot[5] = { 0 }, n[5] = { 0 }, q2c = 0;
	size_t nd = btt_ndevs(b);
	bool any = false;
	char hdr[16];

	section(fp, "Device Overhead");
	fprintf(fp, "%10s | %9s %9s %9s %9s %9s\n", "DEV", "Q2G", "G2I", "Q2M", "I2D", "D2C");
	fprintf(fp, "---------- | --------- --------- --------- --------- ---------\n");
	for (size_t i = 0; i < nd; i++) {
		const struct btt_dev *d = btt_dev_at(b, i);
		double t = (double)d->avg[BTT_Q2C].total;

		if (!d->avg[BTT_Q2C].n || !d->avg[BTT_Q2C].total)
			continue;
		fprintf(fp, "%10s |", dev_hdr(hdr, sizeof(hdr), d->dev));
		for (int c = 0; c < 5; c++) {
			fprintf(fp, " %8.4f%%", 100.0 * (double)d->avg[cols[c]].total / t);
			tot[c] += d->avg[cols[c]].total;
			n[c] += d->avg[cols[c]].n;
			any |= n[c] != 0;
		}
		fprintf(fp, "\n");
		q2c += d->avg[BTT_Q2C].total;
	}
	if (any) {
		fprintf(fp, "---------- | --------- --------- --------- --------- ---------\n");
		fprintf(fp, "%10s |", "Overall");
		for (int c = 0; c < 5; c++)
			fprintf(fp, " %8.4f%%", n[c] ? 100.0 * (double)tot[c] / (double)q2c : 0.0);
		fprintf(fp, "\n");
	}
	fprintf(fp, "\n");
}

static void merges(FILE *fp, const struct btt *b)
{
	uint64_t nq = 0, nd = 0, total = 0, bmin = 0, bmax = 0;
	size_t ndev = btt_ndevs(b), rows = 0;
	char hdr[16];

	section(fp, "Device Merge Information");
	fprintf(fp, "%10s | %8s %8s %7s | %8s %8s %8s %8s\n", "DEV", "#Q", "#D", "Ratio",
		"BLKmin", "BLKavg", "BLKmax", "Total");
	fprintf(fp, MERGE_DASHES);
	for (size_t i = 0; i < ndev; i++) {
		const struct btt_dev *d = btt_dev_at(b, i);
		uint64_t qs = d->n_qs;

		if (!d->n_qs || !d->n_ds)
			continue;
		if (qs < d->n_ds)
			qs = d->n_ds;
		fprintf(fp, "%10s | %8" PRIu64 " %8" PRIu64 " %7.1f | %8" PRIu64 " %8" PRIu64
			" %8" PRIu64 " %8" PRIu64 "\n", dev_hdr(hdr, sizeof(hdr), d->dev), qs,
			d->n_ds, (double)qs / (double)d->n_ds, d->blks.min,
			(uint64_t)((double)d->blks.total / (double)d->n_ds), d->blks.max,
			d->blks.total);
		if (rows++ == 0) {
			bmin = d->blks.min;
			bmax = d->blks.max;
		}
		nq += qs;
		nd += d->n_ds;
		total += d->blks.total;
		if (d->blks.min < bmin)
			bmin = d->blks.min;
		if (d->blks.max > bmax)
			bmax = d->blks.max;
	}
	if (rows > 1) {
		fprintf(fp, MERGE_DASHES);
		fprintf(fp, "%10s | %8s %8s %7s | %8s %8s %8s %8s\n", "DEV", "#Q", "#D", "Ratio",
			"BLKmin", "BLKavg", "BLKmax", "Total");
		fprintf(fp, "%10s | %8" PRIu64 " %8" PRIu64 " %7.1f | %8" PRIu64 " %8" PRIu64
			" %8" PRIu64 " %8" PRIu64 "\n", "TOTAL", nq, nd,
			(double)((float)nq / (float)nd), bmin, total / nd, bmax, total);
	}
	fprintf(fp, "\n");
}

/* one device's mode and its count, for the modes of all devices together */
struct mode_acc {
	uint64_t mode;
	uint64_t nseeks;
};

static int mode_cmp(const void *a, const void *b)
{
	const struct mode_acc *x = a, *y = b;

	return x->mode < y->mode ? -1 : x->mode > y->mode;
}

static void seeks(FILE *fp, const struct btt *b, bool q2q)
{
	uint64_t nseeks = 0, median = 0, modes[2];
	size_t ndev = btt_ndevs(b), nacc = 0, cap = 0;
	struct mode_acc *acc = NULL;
	double mean = 0;
	char hdr[16];

	section(fp, q2q ? "Device Q2Q Seek Information" : "Device D2D Seek Information");
	fprintf(fp, "%10s | %15s %15s %15s | %-15s\n", "DEV", "NSEEKS", "MEAN", "MEDIAN", "MODE");
	fprintf(fp, SEEK_DASHES);
	for (size_t i = 0; i < ndev; i++) {
		const struct btt_dev *d = btt_dev_at(b, i);
		const struct seek *s = q2q ? &d->q2q_seek : &d->d2d_seek;
		uint32_t most;
		size_t nm;

		if (!s->nseeks)
			continue;
		nm = seek_modes(s, modes, 2, &most);
		fprintf(fp, "%10s | %15" PRIu64 " %15.1f %15" PRIu64 " | %" PRIu64 "(%u)",
			dev_hdr(hdr, sizeof(hdr), d->dev), s->nseeks, seek_mean(s),
			seek_btt_median(s), nm ? modes[0] : 0, most);
		if (nm > 2)
			fprintf(fp, "\n%10s   %15s %15s %15s   ...(%zu more)\n", "", "", "", "", nm - 1);
		else if (nm == 2)
			fprintf(fp, " %" PRIu64 "\n", modes[1]);
		else
			fprintf(fp, "\n");
		nseeks += s->nseeks;
		mean += (double)s->nseeks * seek_mean(s);
		median += s->nseeks * seek_btt_median(s);
		/* btt adds every device's modes, each with its count, to one list */
		if (nacc + nm > cap) {
			size_t nc = (nacc + nm) * 2;
			struct mode_acc *na = realloc(acc, nc * sizeof(*na));

			if (!na)
				continue;
			acc = na;
			cap = nc;
		}
		for (size_t k = 0; k < s->cap; k++)
			if (s->slots[k].count && s->slots[k].count == most)
				acc[nacc++] = (struct mode_acc){ .mode = s->slots[k].dist,
								 .nseeks = most };
	}
	if (nseeks) {
		/* the most counted mode, and how many more tie with it (btt's Overall) */
		size_t best = 0, ties = 0, n = 0;

		qsort(acc, nacc, sizeof(*acc), mode_cmp);
		for (size_t k = 0; k < nacc; k++) {
			if (n && acc[n - 1].mode == acc[k].mode)
				acc[n - 1].nseeks += acc[k].nseeks;
			else
				acc[n++] = acc[k];
		}
		for (size_t k = 1; k < n; k++) {
			if (acc[k].nseeks > acc[best].nseeks) {
				best = k;
				ties = 0;
			} else if (acc[k].nseeks == acc[best].nseeks) {
				ties++;
			}
		}
		fprintf(fp, SEEK_DASHES);
		fprintf(fp, "%10s | %15s %15s %15s | %-15s\n", "Overall", "NSEEKS", "MEAN", "MEDIAN",
			"MODE");
		fprintf(fp, "%10s | %15" PRIu64 " %15.1f %15" PRIu64 " | %" PRIu64 "(%" PRIu64 ")",
			"Average", nseeks, mean / (double)nseeks, median / nseeks,
			n ? acc[best].mode : 0, n ? acc[best].nseeks : 0);
		if (ties)
			fprintf(fp, "\n%10s   %15s %15s %15s   ...(%zu more)\n", "", "", "", "", ties);
		fprintf(fp, "\n");
	}
	free(acc);
	fprintf(fp, "\n");
}

static void plugs(FILE *fp, const struct btt *b)
{
	uint64_t np = 0, npt = 0, unp = 0, unpt = 0, nup = 0, nupt = 0;
	size_t ndev = btt_ndevs(b), rows = 0;
	double pcts = 0;
	char hdr[16];

	section(fp, "Plug Information");
	fprintf(fp, "%10s | %10s %10s  | %s\n", "DEV", "# Plugs", "# Timer Us", "% Time Q Plugged");
	fprintf(fp, "---------- | ---------- ----------  | ----------------\n");
	for (size_t i = 0; i < ndev; i++) {
		const struct btt_dev *d = btt_dev_at(b, i);
		double pct;

		if (!d->nplugs && !d->nplugs_t)
			continue;
		pct = 100.0 * (secs(d->plugged_ns) / (secs(d->end) - secs(d->start)));
		fprintf(fp, "%10s | %10" PRIu64 "(%10" PRIu64 ") | %13.9f%%\n",
			dev_hdr(hdr, sizeof(hdr), d->dev), d->nplugs, d->nplugs_t, pct);
		rows++;
		np += d->nplugs;
		npt += d->nplugs_t;
		pcts += pct;
	}
	if (rows > 1) {
		fprintf(fp, "---------- | ---------- ----------  | ----------------\n");
		fprintf(fp, "%10s | %10s %10s  | %s\n", "Overall", "# Plugs", "# Timer Us",
			"% Time Q Plugged");
		fprintf(fp, "%10s | %10" PRIu64 "(%10" PRIu64 ") | %13.9f%%\n", "Average",
			np / rows, npt / rows, pcts / (double)rows);
	}
	fprintf(fp, "\n");

	fprintf(fp, "%10s | %10s   %10s\n", "DEV", "IOs/Unp", "IOs/Unp(to)");
	fprintf(fp, "---------- | ----------   ----------\n");
	for (size_t i = 0; i < ndev; i++) {
		const struct btt_dev *d = btt_dev_at(b, i);
		double a = 0, at = 0;

		if (d->nios_up && d->nplugs) {
			a = (double)d->nios_up / (double)d->nplugs;
			unp += d->nplugs;
			nup += d->nios_up;
		}
		if (d->nios_upt && d->nplugs_t) {
			at = (double)d->nios_upt / (double)d->nplugs_t;
			unpt += d->nplugs_t;
			nupt += d->nios_upt;
		}
		fprintf(fp, "%10s | %10.1f   %10.1f\n", dev_hdr(hdr, sizeof(hdr), d->dev), a, at);
	}
	if (unp || unpt) {
		fprintf(fp, "---------- | ----------   ----------\n");
		fprintf(fp, "%10s | %10s   %10s\n", "Overall", "IOs/Unp", "IOs/Unp(to)");
		fprintf(fp, "%10s | %10.1f   %10.1f\n", "Average",
			unp ? (double)nup / (double)unp : 0.0, unpt ? (double)nupt / (double)unpt : 0.0);
	}
	fprintf(fp, "\n");
}

static void active_q(FILE *fp, const struct btt *b)
{
	uint64_t qs = 0, act = 0;
	size_t ndev = btt_ndevs(b), rows = 0;
	char hdr[16];

	section(fp, "Active Requests At Q Information");
	fprintf(fp, "%10s | %13s\n", "DEV", "Avg Reqs @ Q");
	fprintf(fp, "---------- | -------------\n");
	for (size_t i = 0; i < ndev; i++) {
		const struct btt_dev *d = btt_dev_at(b, i);

		if (!d->n_qs || d->remapper)
			continue;
		/* requeues are arrivals too: btt divides by every Q and R */
		fprintf(fp, "%10s | %13.1f\n", dev_hdr(hdr, sizeof(hdr), d->dev),
			(double)d->actq.sampled / (double)d->n_qs);
		rows++;
		qs += d->n_qs;
		act += d->actq.sampled;
	}
	if (rows > 1) {
		fprintf(fp, "---------- | -------------\n");
		fprintf(fp, "%10s | %13s\n", "Overall", "Avgs Reqs @ Q");
		fprintf(fp, "%10s | %13.1f\n", "Average", (double)act / (double)qs);
	}
	fprintf(fp, "\n");
}

static void live_row(FILE *fp, const char *label, const struct btt_live_info *li)
{
	fprintf(fp, "%10s | %10" PRIu64 " %13.9f %13.9f %6.2f\n", label, li->nlives,
		li->avg_live / 1e9, li->avg_lull / 1e9, li->pct_live);
}

static void lives(FILE *fp, const struct btt *b)
{
	size_t ndev = btt_ndevs(b);
	struct btt_live_info li;
	char hdr[16];

	section(fp, "I/O Active Period Information");
	fprintf(fp, "%10s | %10s %13s %13s %s\n", "DEV", "# Live", "Avg. Act", "Avg. !Act",
		"% Live");
	fprintf(fp, LIVE_DASHES);
	for (size_t i = 0; i < ndev; i++) {
		const struct btt_dev *d = btt_dev_at(b, i);

		li = btt_lives(b, d);
		live_row(fp, dev_hdr(hdr, sizeof(hdr), d->dev), &li);
	}
	fprintf(fp, LIVE_DASHES);
	li = btt_lives(b, NULL);
	live_row(fp, "Total Sys", &li);
	fprintf(fp, "\n");
}

static void q2d_row(FILE *fp, const char *label, const uint64_t *h)
{
	uint64_t n = 0;

	for (int i = 0; i < BTT_Q2D_BUCKETS; i++)
		n += h[i];
	fprintf(fp, "%10s | ", label);
	for (int i = 0; i < BTT_Q2D_BUCKETS; i++)
		fprintf(fp, "%5.1f ", n ? 100.0 * (double)h[i] / (double)n : 0.0);
	fprintf(fp, "\n");
}

static void q2d(FILE *fp, const struct btt *b)
{
	uint64_t all[BTT_Q2D_BUCKETS] = { 0 };
	size_t ndev = btt_ndevs(b), rows = 0;
	char hdr[16];

	section(fp, "Q2D Histogram");
	fprintf(fp, "%10s | <.005 <.010 <.025 <.050 <.075 <.100 <.250 <.500 < 1.0 >=1.0\n", "DEV");
	fprintf(fp, "%10s | " Q2D_DASHES, "---------");
	for (size_t i = 0; i < ndev; i++) {
		const struct btt_dev *d = btt_dev_at(b, i);
		uint64_t n = 0;

		for (int k = 0; k < BTT_Q2D_BUCKETS; k++)
			n += d->q2d[k];
		if (!n)
			continue;
		q2d_row(fp, dev_hdr(hdr, sizeof(hdr), d->dev), d->q2d);
		for (int k = 0; k < BTT_Q2D_BUCKETS; k++)
			all[k] += d->q2d[k];
		rows++;
	}
	if (rows) {
		fprintf(fp, "========== | " Q2D_DASHES);
		q2d_row(fp, "AVG", all);
		fprintf(fp, "\n");
	}
}

int out_btt_text(FILE *fp, const struct btt *b)
{
	phase_tables(fp, b, true);
	phase_tables(fp, b, false);
	all_devices(fp, b);
	overhead(fp, b);
	merges(fp, b);
	seeks(fp, b, true);
	seeks(fp, b, false);
	plugs(fp, b);
	active_q(fp, b);
	lives(fp, b);
	q2d(fp, b);
	return ferror(fp) ? -EIO : 0;
}
