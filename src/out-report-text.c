// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * out-report-text.c - the per-layer report as text tables.
 *
 * Tables and the device tree are drawn by libsmartcols, as lsblk and
 * findmnt draw theirs. Latencies are shown in microseconds, sizes in KiB.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <libsmartcols/libsmartcols.h>

#include "out-report.h"

uint64_t report_lost(const struct source_stats *src)
{
	return src ? source_lost_total(src) : 0;
}

static const char *dev_label(const struct report *r, uint32_t dev, char *buf, size_t len)
{
	const char *name = r->name ? r->name(dev, buf, len, r->name_ctx) : NULL;

	if (!name) {
		snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
		name = buf;
	}
	return name;
}

static const char *kind_name(uint8_t kind)
{
	switch (kind) {
	case TK_LAYER_REQUEST:
		return "request";
	case TK_LAYER_REMAP:
		return "remap";
	default:
		return "bio";
	}
}

/* microseconds with one decimal, from ns; "-" when there is no value */
static void set_us(struct libscols_line *ln, size_t col, const struct hist *h, uint64_t ns)
{
	char buf[32];

	if (!h->count) {
		scols_line_set_data(ln, col, "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%.1f", ns / 1000.0);
	scols_line_set_data(ln, col, buf);
}

static void set_u64(struct libscols_line *ln, size_t col, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	scols_line_set_data(ln, col, buf);
}

static void set_f(struct libscols_line *ln, size_t col, const char *fmt, double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), fmt, v);
	scols_line_set_data(ln, col, buf);
}

static struct libscols_table *new_table(FILE *fp, const char *const *cols, size_t n,
					int tree_col)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	scols_table_set_stream(tb, fp);
	for (size_t i = 0; i < n; i++) {
		int flags = (int)i == tree_col ? SCOLS_FL_TREE : (i > 1 ? SCOLS_FL_RIGHT : 0);

		if (!scols_table_new_column(tb, cols[i], 0, flags)) {
			scols_unref_table(tb);
			return NULL;
		}
	}
	return tb;
}

/* The layers as a tree: each under the layer that sent it I/O. */
static void add_tree_line(struct libscols_table *tb, const struct report *r, size_t idx,
			  struct libscols_line *parent, int depth)
{
	const struct st_layer *l = &r->st->layers[idx];
	struct libscols_line *ln = scols_table_new_line(tb, parent);
	char name[64], buf[32];
	uint64_t ios = 0, issued = 0;

	if (!ln)
		return;
	for (int o = 0; o < ST_OPS; o++) {
		ios += l->op[o].ios;
		issued += l->op[o].issued;
	}
	scols_line_set_data(ln, 0, dev_label(r, l->dev, name, sizeof(name)));
	snprintf(buf, sizeof(buf), "%u:%u", KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
	scols_line_set_data(ln, 1, buf);
	scols_line_set_data(ln, 2, kind_name(l->kind));
	set_u64(ln, 3, ios);
	set_u64(ln, 4, issued);
	if (depth > 16)
		return;
	for (size_t i = 0; i < r->st->nlayers; i++)
		if (r->st->layers[i].parent == l->dev && i != idx)
			add_tree_line(tb, r, i, ln, depth + 1);
}

static int print_devices(FILE *fp, const struct report *r)
{
	static const char *const cols[] = { "NAME", "MAJ:MIN", "KIND", "BIOS", "ISSUED" };
	struct libscols_table *tb = new_table(fp, cols, 5, 0);

	if (!tb)
		return -ENOMEM;
	for (size_t i = 0; i < r->st->nlayers; i++) {
		const struct st_layer *l = &r->st->layers[i];

		/* roots: layers nothing above sent I/O to */
		if (!l->parent || !stats_layer(r->st, l->parent))
			add_tree_line(tb, r, i, NULL, 0);
	}
	fprintf(fp, "Devices (each under the layer that sent it I/O):\n");
	scols_print_table(tb);
	scols_unref_table(tb);
	return 0;
}

static int print_layers(FILE *fp, const struct report *r)
{
	static const char *const cols[] = {
		"LAYER", "OP", "IOS", "MIB", "MIB/S", "KIB_AVG", "KIB_P99",
		"SUB_AVG", "SUB_P99", "COMP_AVG", "COMP_P99",
		"TOT_AVG", "TOT_P50", "TOT_P90", "TOT_P99", "TOT_MAX",
		"SPLIT", "MRG_B", "MRG_F", "REQUEUE", "ERR", "ISSUED",
	};
	double secs = (r->st->last_ts - r->st->first_ts) / 1e9;
	struct libscols_table *tb = new_table(fp, cols, sizeof(cols) / sizeof(cols[0]), -1);

	if (!tb)
		return -ENOMEM;
	for (size_t i = 0; i < r->st->nlayers; i++) {
		const struct st_layer *l = &r->st->layers[i];
		char name[64];

		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];
			struct libscols_line *ln;

			if (!o->ios)
				continue;
			ln = scols_table_new_line(tb, NULL);
			if (!ln)
				break;
			scols_line_set_data(ln, 0, dev_label(r, l->dev, name, sizeof(name)));
			scols_line_set_data(ln, 1, st_op_name(op));
			set_u64(ln, 2, o->ios);
			set_f(ln, 3, "%.2f", o->bytes / 1048576.0);
			set_f(ln, 4, "%.2f", secs > 0 ? o->bytes / 1048576.0 / secs : 0);
			set_f(ln, 5, "%.1f", hist_mean(&o->size) / 1024);
			set_f(ln, 6, "%.1f", hist_percentile(&o->size, 99) / 1024.0);
			set_us(ln, 7, &o->sub, hist_mean(&o->sub));
			set_us(ln, 8, &o->sub, hist_percentile(&o->sub, 99));
			set_us(ln, 9, &o->comp, hist_mean(&o->comp));
			set_us(ln, 10, &o->comp, hist_percentile(&o->comp, 99));
			set_us(ln, 11, &o->total, hist_mean(&o->total));
			set_us(ln, 12, &o->total, hist_percentile(&o->total, 50));
			set_us(ln, 13, &o->total, hist_percentile(&o->total, 90));
			set_us(ln, 14, &o->total, hist_percentile(&o->total, 99));
			set_us(ln, 15, &o->total, o->total.max);
			set_u64(ln, 16, o->splits);
			set_u64(ln, 17, o->merges_back);
			set_u64(ln, 18, o->merges_front);
			set_u64(ln, 19, o->requeues);
			set_u64(ln, 20, o->errors);
			set_u64(ln, 21, o->issued);
		}
	}
	fprintf(fp, "\nPer layer (latencies in microseconds: SUB = down - Q, COMP = C - up, "
		    "TOT = C - Q):\n");
	scols_print_table(tb);
	scols_unref_table(tb);
	return 0;
}

static int print_btt(FILE *fp, const struct report *r)
{
	static const char *const cols[] = {
		"LAYER", "OP", "Q2G_AVG", "G2I_AVG", "I2D_AVG", "D2C_AVG", "D2C_P99",
		"Q2C_AVG", "Q2C_P99", "Q2M_AVG", "MERGED",
	};
	struct libscols_table *tb = new_table(fp, cols, sizeof(cols) / sizeof(cols[0]), -1);
	int rows = 0;

	if (!tb)
		return -ENOMEM;
	for (size_t i = 0; i < r->st->nlayers; i++) {
		const struct st_layer *l = &r->st->layers[i];
		char name[64];

		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];
			struct libscols_line *ln;

			if (!o->q2c.count && !o->d2c.count)
				continue;
			ln = scols_table_new_line(tb, NULL);
			if (!ln)
				break;
			rows++;
			scols_line_set_data(ln, 0, dev_label(r, l->dev, name, sizeof(name)));
			scols_line_set_data(ln, 1, st_op_name(op));
			set_us(ln, 2, &o->q2g, hist_mean(&o->q2g));
			set_us(ln, 3, &o->g2i, hist_mean(&o->g2i));
			set_us(ln, 4, &o->i2d, hist_mean(&o->i2d));
			set_us(ln, 5, &o->d2c, hist_mean(&o->d2c));
			set_us(ln, 6, &o->d2c, hist_percentile(&o->d2c, 99));
			set_us(ln, 7, &o->q2c, hist_mean(&o->q2c));
			set_us(ln, 8, &o->q2c, hist_percentile(&o->q2c, 99));
			set_us(ln, 9, &o->q2m, hist_mean(&o->q2m));
			set_u64(ln, 10, o->merges_back + o->merges_front);
		}
	}
	if (rows) {
		fprintf(fp, "\nRequest-based layers, btt phases (microseconds):\n");
		scols_print_table(tb);
	}
	scols_unref_table(tb);
	return 0;
}

static int print_e2e(FILE *fp, const struct report *r)
{
	static const char *const cols[] = {
		"OP", "IOS", "MIB", "MATCHED", "AVG", "P50", "P90", "P99", "MAX",
	};
	struct libscols_table *tb = new_table(fp, cols, sizeof(cols) / sizeof(cols[0]), -1);

	if (!tb)
		return -ENOMEM;
	for (int op = 0; op < ST_OPS; op++) {
		const struct st_e2e *e = &r->st->e2e[op];
		struct libscols_line *ln;

		if (!e->ios)
			continue;
		ln = scols_table_new_line(tb, NULL);
		if (!ln)
			break;
		scols_line_set_data(ln, 0, st_op_name(op));
		set_u64(ln, 1, e->ios);
		set_f(ln, 2, "%.2f", e->bytes / 1048576.0);
		set_f(ln, 3, "%.1f%%", 100.0 * e->matched / e->ios);
		set_us(ln, 4, &e->total, hist_mean(&e->total));
		set_us(ln, 5, &e->total, hist_percentile(&e->total, 50));
		set_us(ln, 6, &e->total, hist_percentile(&e->total, 90));
		set_us(ln, 7, &e->total, hist_percentile(&e->total, 99));
		set_us(ln, 8, &e->total, e->total.max);
	}
	fprintf(fp, "\nEnd to end, top-level I/O (microseconds):\n");
	scols_print_table(tb);
	scols_unref_table(tb);

	/* the waterfall: each layer's share of the total time, down and up */
	for (int op = 0; op < ST_OPS; op++) {
		const struct st_e2e *e = &r->st->e2e[op];

		if (!e->ios || !e->total_ns)
			continue;
		fprintf(fp, "\nWhere %s time goes, along the path each I/O waited for "
			    "(share of %.1f us on average):\n",
			st_op_name(op), e->total_ns / 1000.0 / e->ios);
		for (size_t d = 0; d < 64; d++) {
			for (size_t i = 0; i < e->nshares; i++) {
				const struct st_share *s = &e->shares[i];
				char name[64];

				if (s->depth != d)
					continue;
				fprintf(fp, "  %*s%-12s down %5.1f%%", (int)(2 * d), "",
					dev_label(r, s->dev, name, sizeof(name)),
					100.0 * s->sub_ns / e->total_ns);
				if (s->dev_ns)
					fprintf(fp, "  device %5.1f%%", 100.0 * s->dev_ns / e->total_ns);
				if (s->comp_ns)
					fprintf(fp, "  up %5.1f%%", 100.0 * s->comp_ns / e->total_ns);
				fputc('\n', fp);
			}
		}
	}
	return 0;
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct st_proc *x = a, *y = b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : 0;
}

static int print_procs(FILE *fp, const struct report *r)
{
	static const char *const cols[] = { "PID", "COMM", "IOS", "MIB", "AVG", "P99" };
	struct libscols_table *tb;
	struct st_proc *p;
	size_t n = r->st->nprocs;

	if (!n)
		return 0;
	p = malloc(n * sizeof(*p));
	tb = new_table(fp, cols, 6, -1);
	if (!p || !tb) {
		free(p);
		scols_unref_table(tb);
		return -ENOMEM;
	}
	memcpy(p, r->st->procs, n * sizeof(*p));
	qsort(p, n, sizeof(*p), cmp_bytes);
	for (size_t i = 0; i < n && i < (r->top_procs ? r->top_procs : 10); i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char pid[16];

		if (!ln)
			break;
		snprintf(pid, sizeof(pid), p[i].pid < 0 ? "-" : "%d", p[i].pid);
		scols_line_set_data(ln, 0, pid);
		scols_line_set_data(ln, 1, p[i].comm);
		set_u64(ln, 2, p[i].ios);
		set_f(ln, 3, "%.2f", p[i].bytes / 1048576.0);
		set_us(ln, 4, &p[i].total, hist_mean(&p[i].total));
		set_us(ln, 5, &p[i].total, hist_percentile(&p[i].total, 99));
	}
	fprintf(fp, "\nProcesses that queued top-level I/O, by bytes (latency in microseconds):\n");
	scols_print_table(tb);
	scols_unref_table(tb);
	free(p);
	return 0;
}

static void print_tracking(FILE *fp, const struct report *r)
{
	const struct tk_counters *tk = r->tk;

	fprintf(fp, "\nTracking: %" PRIu64 " events; %" PRIu64 " top-level I/Os, %" PRIu64
		    " followed through every layer (%.1f%%); %" PRIu64 " I/Os issued by a layer itself\n",
		tk->events, tk->ios_top, tk->ios_top_matched,
		tk->ios_top ? 100.0 * tk->ios_top_matched / tk->ios_top : 100.0, tk->ios_layer);
	fprintf(fp, "  expired unfinished %" PRIu64 ", completions with no match %" PRIu64
		    ", remaps with no source %" PRIu64 ", request events with no request %" PRIu64
		    ", not tracked (in-flight cap) %" PRIu64 ", most in flight %" PRIu64 "\n",
		tk->expired, tk->unmatched_complete, tk->unmatched_remap, tk->unmatched_rq,
		tk->dropped_cap, tk->inflight_peak);
	if (r->src)
		for (int c = 0; c < r->src->ncpu; c++) {
			const struct source_cpu_stats *cs = &r->src->cpu[c];

			fprintf(fp, "  cpu%d: %" PRIu64 " events, %" PRIu64 " lost\n", c, cs->events,
				cs->missed + cs->overrun + cs->dropped);
		}
}

int out_report_text(FILE *fp, const struct report *r)
{
	uint64_t lost = report_lost(r->src);
	int ret;

	if (lost)
		fprintf(fp, "WARNING: %" PRIu64 " events were lost: figures below are incomplete\n\n",
			lost);
	fprintf(fp, "blkstack report of %s: %.3f s of completed I/O\n\n", r->source,
		(r->st->last_ts - r->st->first_ts) / 1e9);
	if (!r->st->nlayers) {
		fprintf(fp, "No I/O completed.\n");
		print_tracking(fp, r);
		return ferror(fp) ? -EIO : 0;
	}
	ret = print_devices(fp, r);
	if (!ret)
		ret = print_layers(fp, r);
	if (!ret)
		ret = print_btt(fp, r);
	if (!ret)
		ret = print_e2e(fp, r);
	if (!ret)
		ret = print_procs(fp, r);
	if (ret)
		return ret;
	print_tracking(fp, r);
	return ferror(fp) ? -EIO : 0;
}
