// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-text.c - the per-layer report as text tables.
 *
 * Tables and the device tree are drawn by libsmartcols, as lsblk and
 * findmnt draw theirs. Latencies are shown in microseconds, sizes in KiB or
 * MiB; every column header names its unit.
 */
#include <errno.h>
#include <inttypes.h>
#include <libsmartcols/libsmartcols.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "output/report-time.h"
#include "output/report.h"
#include "output/tree.h"

uint64_t report_lost(const struct source_stats *src)
{
	return src ? source_lost_total(src) : 0;
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

void report_fmt_us(char *buf, size_t len, double ns)
{
	double us = ns / 1000.0;

	snprintf(buf, len, us < 10 ? "%.2f" : us < 1000 ? "%.1f" : "%.0f", us);
}

void report_cell_us(struct libscols_line *ln, size_t col, const struct hist *h, double ns)
{
	char buf[32];

	if (!h->count) {
		scols_line_set_data(ln, col, "-");
		return;
	}
	report_fmt_us(buf, sizeof(buf), ns);
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

/* name and operation, the first two columns of most tables */
static void set_layer_op(struct libscols_line *ln, const struct report *r, uint32_t dev, int op)
{
	char name[64];

	scols_line_set_data(ln, 0, report_dev_label(r, dev, name, sizeof(name)));
	scols_line_set_data(ln, 1, st_op_name(op));
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

/*
 * Whether @dev sent bios with data to @l without being its main parent (dm
 * sends its empty flushes straight to the disks under its partitions: no
 * edge of the drawing, the JSON lists them).
 */
static bool other_parent(const struct st_layer *l, uint32_t dev)
{
	if (l->parent == dev)
		return false;
	for (size_t i = 0; i < l->nparents; i++)
		if (l->parents[i].dev == dev && l->parents[i].data_bios)
			return true;
	return false;
}

/*
 * The layers as a tree: each under the layer that sent it the most I/O,
 * and marked with a "*" under any other layer that sent it I/O too (a stack
 * is a graph: a dm-snapshot origin is below two targets), in the stack's
 * order (@order). @named: the first column is the NAME, else the MAJ:MIN
 * alone (no layer has a name: no column twice). Returns whether a mark was
 * drawn.
 */
static bool add_tree_line(struct libscols_table *tb, const struct report *r,
			  const size_t *order, bool named, size_t idx,
			  struct libscols_line *parent, int depth, bool mark)
{
	const struct st_layer *l = &r->st->layers[idx];
	struct libscols_line *ln = scols_table_new_line(tb, parent);
	char name[64], label[72], buf[32];
	uint64_t ios = 0, issued = 0;
	bool marked = mark;
	size_t col = 0;

	if (!ln)
		return marked;
	for (int o = 0; o < ST_OPS; o++) {
		ios += l->op[o].ios;
		issued += l->op[o].issued;
	}
	snprintf(buf, sizeof(buf), "%u:%u", KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
	if (!named)
		snprintf(name, sizeof(name), "%s", buf);
	else if (!report_dev_named(r, l->dev))
		snprintf(name, sizeof(name), "-");
	else
		report_dev_label(r, l->dev, name, sizeof(name));
	snprintf(label, sizeof(label), "%s%s", name, mark ? " *" : "");
	scols_line_set_data(ln, col++, label);
	if (named)
		scols_line_set_data(ln, col++, buf);
	scols_line_set_data(ln, col++, kind_name(l->kind));
	set_u64(ln, col++, ios);
	set_u64(ln, col, issued);
	if (mark || depth > 16)
		return marked;
	for (size_t k = 0; k < r->st->nlayers; k++) {
		size_t i = order[k];

		if (i == idx)
			continue;
		if (r->st->layers[i].parent == l->dev)
			marked |= add_tree_line(tb, r, order, named, i, ln, depth + 1, false);
		else if (other_parent(&r->st->layers[i], l->dev))
			marked |= add_tree_line(tb, r, order, named, i, ln, depth + 1, true);
	}
	return marked;
}

/* a recorded stack, whole: every device it describes */
static int print_recorded_stack(FILE *fp, const struct report *r)
{
	const struct topo_record *rec = r->topology;
	uint32_t *devs = calloc(rec->n ? rec->n : 1, sizeof(*devs));
	int ret;

	if (!devs)
		return -ENOMEM;
	for (size_t i = 0; i < rec->n; i++)
		devs[i] = rec->devs[i].dev;
	fprintf(fp, "Devices (recorded):\n");
	ret = out_tree_print_recorded(fp, rec, devs, rec->n, 0);
	free(devs);
	if (ret)
		return ret;
	fputc('\n', fp);
	return 0;
}

/* The stack as sysfs has it (live only: a recording's devices are not ours). */
static int print_sysfs_stack(FILE *fp, const struct report *r)
{
	const uint32_t *devs = r->stack_devs;
	size_t n = r->nstack_devs;
	uint32_t *seen = NULL;
	int ret;

	if (!devs) {
		seen = calloc(r->st->nlayers ? r->st->nlayers : 1, sizeof(*seen));
		if (!seen)
			return -ENOMEM;
		for (size_t i = 0; i < r->st->nlayers; i++)
			seen[i] = r->st->layers[i].dev;
		devs = seen;
		n = r->st->nlayers;
	}
	if (!n) {
		free(seen);
		return 0;
	}
	fprintf(fp, "Devices (from sysfs):\n");
	ret = out_tree_print(fp, "", devs, n, 0);
	free(seen);
	/* a stack sysfs cannot describe is no reason to lose the report */
	if (ret == -EIO)
		return ret;
	fputc('\n', fp);
	return 0;
}

static int print_devices(FILE *fp, const struct report *r, const size_t *order)
{
	static const char *const cols[] = { "NAME", "MAJ:MIN", "KIND", "BIOS", "ISSUED" };
	bool marked = false, named = false;
	struct libscols_table *tb;

	for (size_t i = 0; i < r->st->nlayers && !named; i++)
		named = report_dev_named(r, r->st->layers[i].dev);
	tb = named ? new_table(fp, cols, 5, 0) : new_table(fp, cols + 1, 4, 0);
	if (!tb)
		return -ENOMEM;
	for (size_t k = 0; k < r->st->nlayers; k++) {
		const struct st_layer *l = &r->st->layers[order[k]];

		/* roots: layers nothing above sent I/O to */
		if (!l->parent || !stats_layer(r->st, l->parent))
			marked |= add_tree_line(tb, r, order, named, order[k], NULL, 0, false);
	}
	fprintf(fp, "Layers (each under the layer that sent it I/O):\n");
	scols_print_table(tb);
	scols_unref_table(tb);
	if (marked)
		fprintf(fp, "  * also sent I/O by this layer; shown in full under the layer that "
			    "sent it the most\n");
	return 0;
}

static int print_layers(FILE *fp, const struct report *r, const size_t *order)
{
	static const char *const cols[] = {
		"LAYER", "OP", "IOS", "MiB", "MiB/s", "KiB_AVG", "KiB_P50", "KiB_P99",
		"SPLIT", "MRG_B", "MRG_F", "REQUEUE", "ERR", "ISSUED",
	};
	double secs = (r->st->last_ts - r->st->first_ts) / 1e9;
	struct libscols_table *tb = new_table(fp, cols, sizeof(cols) / sizeof(cols[0]), -1);

	if (!tb)
		return -ENOMEM;
	for (size_t k = 0; k < r->st->nlayers; k++) {
		const struct st_layer *l = &r->st->layers[order[k]];

		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];
			struct libscols_line *ln;

			if (!o->ios)
				continue;
			ln = scols_table_new_line(tb, NULL);
			if (!ln)
				break;
			set_layer_op(ln, r, l->dev, op);
			set_u64(ln, 2, o->ios);
			set_f(ln, 3, "%.2f", o->bytes / 1048576.0);
			set_f(ln, 4, "%.2f", secs > 0 ? o->bytes / 1048576.0 / secs : 0);
			set_f(ln, 5, "%.1f", hist_mean(&o->size) / 1024);
			set_f(ln, 6, "%.1f", stats_size_percentile(&o->size, 50) / 1024.0);
			set_f(ln, 7, "%.1f", stats_size_percentile(&o->size, 99) / 1024.0);
			set_u64(ln, 8, o->splits);
			set_u64(ln, 9, o->merges_back);
			set_u64(ln, 10, o->merges_front);
			set_u64(ln, 11, o->requeues);
			set_u64(ln, 12, o->errors);
			set_u64(ln, 13, o->issued);
		}
	}
	fprintf(fp, "\nPer layer (MiB/s over the %.3f s span of completed I/O):\n", secs);
	scols_print_table(tb);
	scols_unref_table(tb);
	return 0;
}

/*
 * Each layer's I/O by the class of the I/O it belongs to: the classes add
 * up to the layer's I/Os and bytes, unexplained I/O apart, never folded
 * into the layer's own.
 */
static int print_classes(FILE *fp, const struct report *r, const size_t *order)
{
	static const char *const cols[] = {
		"LAYER", "OP", "IOS", "TOP", "CAUSED", "OWN", "UNEXPL",
		"MiB", "TOP_MiB", "CAUSED_MiB", "OWN_MiB", "UNEXPL_MiB",
	};
	static const uint8_t classes[] = { TK_IO_TOP, TK_IO_CAUSED, TK_IO_LAYER, TK_IO_UNEXPLAINED };
	struct libscols_table *tb = new_table(fp, cols, sizeof(cols) / sizeof(cols[0]), -1);

	if (!tb)
		return -ENOMEM;
	for (size_t k = 0; k < r->st->nlayers; k++) {
		const struct st_layer *l = &r->st->layers[order[k]];

		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];
			struct libscols_line *ln;

			if (!o->ios)
				continue;
			ln = scols_table_new_line(tb, NULL);
			if (!ln)
				break;
			set_layer_op(ln, r, l->dev, op);
			set_u64(ln, 2, o->ios);
			set_f(ln, 7, "%.2f", o->bytes / 1048576.0);
			for (int c = 0; c < TK_CLASSES; c++) {
				set_u64(ln, 3 + c, o->cls_ios[classes[c]]);
				set_f(ln, 8 + c, "%.2f", o->cls_bytes[classes[c]] / 1048576.0);
			}
		}
	}
	fprintf(fp, "\nPer layer, by class of I/O (TOP: serving a top-level I/O, CAUSED: issued "
		    "by a layer for one, OWN: issued by a layer on its own, UNEXPL: came down from "
		    "a layer with nothing in flight to send it):\n");
	scols_print_table(tb);
	scols_unref_table(tb);
	return 0;
}

/* One row of a latency table: the stage's name, samples, avg, percentiles, max. */
static void latency_row(struct libscols_table *tb, const struct report *r, uint32_t dev,
			int op, const char *stage, const struct hist *h)
{
	struct libscols_line *ln;

	if (!h->count)
		return;
	ln = scols_table_new_line(tb, NULL);
	if (!ln)
		return;
	set_layer_op(ln, r, dev, op);
	scols_line_set_data(ln, 2, stage);
	set_u64(ln, 3, h->count);
	report_cell_us(ln, 4, h, hist_mean(h));
	report_cell_us(ln, 5, h, hist_percentile(h, 50));
	report_cell_us(ln, 6, h, hist_percentile(h, 90));
	report_cell_us(ln, 7, h, hist_percentile(h, 99));
	report_cell_us(ln, 8, h, h->max);
}

static const char *const latency_cols[] = {
	"LAYER", "OP", "STAGE", "COUNT", "AVG_us", "P50_us", "P90_us", "P99_us", "MAX_us",
};
#define LATENCY_NCOLS (sizeof(latency_cols) / sizeof(latency_cols[0]))

static int print_latency(FILE *fp, const struct report *r, const size_t *order)
{
	struct libscols_table *tb = new_table(fp, latency_cols, LATENCY_NCOLS, -1);

	if (!tb)
		return -ENOMEM;
	for (size_t k = 0; k < r->st->nlayers; k++) {
		const struct st_layer *l = &r->st->layers[order[k]];

		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];

			latency_row(tb, r, l->dev, op, "submission", &o->sub);
			/*
			 * a disk completes when the device does, a partition with
			 * its piece: C - up is 0 by construction, not a measurement
			 */
			if (l->kind == TK_LAYER_BIO)
				latency_row(tb, r, l->dev, op, "completion", &o->comp);
			latency_row(tb, r, l->dev, op, "total", &o->total);
		}
	}
	fprintf(fp, "\nPer layer latency (submission = down - Q, completion = C - up, "
		    "total = C - Q):\n");
	scols_print_table(tb);
	scols_unref_table(tb);
	return 0;
}

static int print_btt(FILE *fp, const struct report *r, const size_t *order)
{
	struct libscols_table *tb = new_table(fp, latency_cols, LATENCY_NCOLS, -1);
	int rows = 0;

	if (!tb)
		return -ENOMEM;
	scols_column_set_name(scols_table_get_column(tb, 2), "PHASE");
	for (size_t k = 0; k < r->st->nlayers; k++) {
		const struct st_layer *l = &r->st->layers[order[k]];

		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];

			if (!o->q2c.count && !o->d2c.count)
				continue;
			rows++;
			latency_row(tb, r, l->dev, op, "Q2G", &o->q2g);
			latency_row(tb, r, l->dev, op, "G2I", &o->g2i);
			latency_row(tb, r, l->dev, op, "I2D", &o->i2d);
			latency_row(tb, r, l->dev, op, "G2D", &o->g2d);
			latency_row(tb, r, l->dev, op, "D2C", &o->d2c);
			latency_row(tb, r, l->dev, op, "Q2C", &o->q2c);
			latency_row(tb, r, l->dev, op, "Q2M", &o->q2m);
		}
	}
	if (rows) {
		fprintf(fp, "\nRequest-based layers, btt phases (G2I and I2D for requests "
			    "inserted into a scheduler, G2D for the others):\n");
		scols_print_table(tb);
	}
	scols_unref_table(tb);
	return 0;
}


/* Whether some layer sent I/O to @dev's: it is no disk. */
static bool has_lower(const struct report *r, uint32_t dev)
{
	for (size_t i = 0; i < r->st->nlayers; i++)
		if (r->st->layers[i].parent == dev)
			return true;
	return false;
}

/*
 * The waterfall's rows under @parent, depth first: each path's layers in
 * order, their figures aligned past the longest label (@width, with its
 * indentation). "down" only where the I/Os went down at that layer,
 * "device" at a disk, "here" at a layer with layers below that completed
 * them itself.
 */
static void print_shares(FILE *fp, const struct report *r, const struct st_e2e *e, int parent,
			 int depth, int width)
{
	for (size_t i = 0; i < e->nshares; i++) {
		const struct st_share *s = &e->shares[i];
		char name[64];

		if (s->parent != parent)
			continue;
		fprintf(fp, "  %*s%-*s", 2 * depth, "", width - 2 * depth,
			report_dev_label(r, s->dev, name, sizeof(name)));
		if (s->sub_n)
			fprintf(fp, " down %5.1f%%", 100.0 * s->sub_ns / e->total_ns);
		else
			fprintf(fp, " down %6s", "-");
		if (s->dev_ns)
			fprintf(fp, "  %s %5.1f%%", has_lower(r, s->dev) ? "here" : "device",
				100.0 * s->dev_ns / e->total_ns);
		if (s->comp_ns)
			fprintf(fp, "  up %5.1f%%", 100.0 * s->comp_ns / e->total_ns);
		fputc('\n', fp);
		print_shares(fp, r, e, (int)i, depth + 1, width);
	}
}

/* The width of the waterfall's first column: its longest label, indented. */
static int shares_width(const struct report *r, const struct st_e2e *e)
{
	int width = 12;

	for (size_t i = 0; i < e->nshares; i++) {
		char name[64];
		int w = 2 * e->shares[i].depth +
			(int)strlen(report_dev_label(r, e->shares[i].dev, name, sizeof(name)));

		if (w > width)
			width = w;
	}
	return width;
}
static int print_e2e(FILE *fp, const struct report *r)
{
	static const char *const cols[] = {
		"OP", "IOS", "MiB", "MATCHED", "AVG_us", "P50_us", "P90_us", "P99_us", "MAX_us",
	};
	struct libscols_table *tb = new_table(fp, cols, sizeof(cols) / sizeof(cols[0]), -1);
	int rows = 0;

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
		rows++;
		scols_line_set_data(ln, 0, st_op_name(op));
		set_u64(ln, 1, e->ios);
		set_f(ln, 2, "%.2f", e->bytes / 1048576.0);
		set_f(ln, 3, "%.1f%%", 100.0 * e->matched / e->ios);
		report_cell_us(ln, 4, &e->total, hist_mean(&e->total));
		report_cell_us(ln, 5, &e->total, hist_percentile(&e->total, 50));
		report_cell_us(ln, 6, &e->total, hist_percentile(&e->total, 90));
		report_cell_us(ln, 7, &e->total, hist_percentile(&e->total, 99));
		report_cell_us(ln, 8, &e->total, e->total.max);
	}
	if (rows) {
		fprintf(fp, "\nEnd to end, top-level I/O (root C - root Q):\n");
		scols_print_table(tb);
	} else {
		fprintf(fp, "\nEnd to end: no top-level I/O completed.\n");
	}
	scols_unref_table(tb);

	/* the waterfall: each layer's share of the total time, down and up */
	for (int op = 0; op < ST_OPS; op++) {
		const struct st_e2e *e = &r->st->e2e[op];
		char avg[32];

		if (!e->ios || !e->total_ns)
			continue;
		report_fmt_us(avg, sizeof(avg), (double)e->total_ns / e->ios);
		fprintf(fp, "\nWhere %s time goes, along the path each I/O waited for "
			    "(share of %s us on average):\n", st_op_name(op), avg);
		print_shares(fp, r, e, -1, 0, shares_width(r, e));
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
	static const char *const cols[] = { "PID", "COMM", "IOS", "MiB", "AVG_us", "P99_us" };
	struct libscols_table *tb;
	bool grouped = false;
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
		grouped |= p[i].pid < 0;
		snprintf(pid, sizeof(pid), p[i].pid < 0 ? "-" : "%d", p[i].pid);
		scols_line_set_data(ln, 0, pid);
		scols_line_set_data(ln, 1, p[i].comm);
		set_u64(ln, 2, p[i].ios);
		set_f(ln, 3, "%.2f", p[i].bytes / 1048576.0);
		report_cell_us(ln, 4, &p[i].total, hist_mean(&p[i].total));
		report_cell_us(ln, 5, &p[i].total, hist_percentile(&p[i].total, 99));
	}
	fprintf(fp, "\nProcesses that queued top-level I/O, by bytes (end-to-end latency):\n");
	scols_print_table(tb);
	if (grouped)
		fprintf(fp, "  PID -: past the first %d processes, summed by command name (past "
			    "%d names, as \"other\")\n", ST_MAX_PROCS, ST_MAX_COMMS);
	scols_unref_table(tb);
	free(p);
	return 0;
}

/* "ended at dm-0 3 read, 1 write; sda 1 flush": the layers where a reach shows, per op */
static void print_reach_layers(FILE *fp, const struct report *r, const size_t *order,
			       enum tk_reach reach, const char *what)
{
	bool any = false;

	for (size_t k = 0; k < r->st->nlayers; k++) {
		const struct st_layer *l = &r->st->layers[order[k]];
		bool first = true;
		char name[64];

		for (int op = 0; op < ST_OPS; op++) {
			if (!l->op[op].top_end[reach])
				continue;
			if (first)
				fprintf(fp, "%s %s", any ? ";" : what,
					report_dev_label(r, l->dev, name, sizeof(name)));
			fprintf(fp, "%s %" PRIu64 " %s", first ? "" : ",", l->op[op].top_end[reach],
				st_op_name(op));
			first = false;
			any = true;
		}
	}
	if (any)
		fputc('\n', fp);
}

/*
 * The match rate per operation: top-level I/O whose data reached a disk
 * through every layer, and where the rest stopped, per layer.
 */
static int print_reach(FILE *fp, const struct report *r, const size_t *order)
{
	static const char *const cols[] = {
		"OP", "IOS", "DISK", "RATE", "SELF", "ENDED", "PARTIAL",
	};
	struct libscols_table *tb = new_table(fp, cols, sizeof(cols) / sizeof(cols[0]), -1);
	int rows = 0;

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
		rows++;
		scols_line_set_data(ln, 0, st_op_name(op));
		set_u64(ln, 1, e->ios);
		set_u64(ln, 2, e->reach[TK_REACH_DISK]);
		set_f(ln, 3, "%.1f%%", 100.0 * e->reach[TK_REACH_DISK] / e->ios);
		set_u64(ln, 4, e->reach[TK_REACH_SELF]);
		set_u64(ln, 5, e->reach[TK_REACH_ENDED]);
		set_u64(ln, 6, e->reach[TK_REACH_PARTIAL]);
	}
	if (rows) {
		fprintf(fp, "\nMatch rate per operation (DISK: top-level I/Os whose data reached a "
			    "disk through every layer; SELF: completed by a layer itself; ENDED: "
			    "ended at a layer with devices below; PARTIAL: a step not seen):\n");
		scols_print_table(tb);
		print_reach_layers(fp, r, order, TK_REACH_SELF, "  completed by the layer itself:");
		print_reach_layers(fp, r, order, TK_REACH_ENDED, "  ended at:");
		print_reach_layers(fp, r, order, TK_REACH_PARTIAL, "  partly followed, lost at:");
	}
	scols_unref_table(tb);
	return 0;
}

static void print_tracking(FILE *fp, const struct report *r)
{
	const struct tk_counters *tk = r->tk;

	uint64_t lost = report_lost(r->src), all = tk_top_all(tk, lost);

	fprintf(fp, "\nTracking: %" PRIu64 " block events taken; match rate %.1f%% (%" PRIu64 " of %s%" PRIu64
		    " top-level I/Os reached a disk through every layer)\n",
		tk->events, all ? 100.0 * tk->ios_top_matched / all : 100.0,
		tk->ios_top_matched, lost ? "about " : "", all);
	if (lost)
		fprintf(fp, "  events lost in %" PRIu64 " stretches: I/Os broken by them, left out of"
			    " every figure, %" PRIu64 " (%" PRIu64 " top-level); completions whose"
			    " start was lost %" PRIu64 "; top-level I/Os that lost every event, about"
			    " %" PRIu64 "\n",
			tk->lost_marks, tk->broken_lost, tk->broken_lost_top,
			tk->unmatched_after_loss, tk_top_unseen(tk, lost));
	fprintf(fp, "  top-level I/Os completed by a layer itself %" PRIu64 ", ended at a layer "
		    "%" PRIu64 ", partly followed %" PRIu64 "; I/Os issued by a layer: %" PRIu64
		    " for a top-level I/O in flight, %" PRIu64 " on its own; unexplained %" PRIu64
		    "; expired %" PRIu64 " (%" PRIu64 " top-level)\n",
		tk->ios_top_reach[TK_REACH_SELF], tk->ios_top_reach[TK_REACH_ENDED],
		tk->ios_top_reach[TK_REACH_PARTIAL], tk->ios_caused, tk->ios_layer,
		tk->ios_unexplained, tk->expired, tk->expired_top);
	fprintf(fp, "  completions with no match %" PRIu64
		    ", remaps with no source %" PRIu64 ", request events with no request %" PRIu64
		    "\n  not tracked (in-flight cap) %" PRIu64 ", most in flight %" PRIu64 "\n",
		tk->unmatched_complete, tk->unmatched_remap, tk->unmatched_rq,
		tk->dropped_cap, tk->inflight_peak);
	/* not the tracker's: every event decoded, page-cache events too */
	if (r->src && r->src->ncpu)
		fprintf(fp, "  events read (block and page cache) and lost, per CPU:\n");
	if (r->src)
		for (int c = 0; c < r->src->ncpu; c++) {
			const struct source_cpu_stats *cs = &r->src->cpu[c];

			fprintf(fp, "  cpu%d: %" PRIu64 " read, %" PRIu64 " lost\n", c, cs->events,
				source_cpu_lost(cs));
		}
}

/* The end line of a report of "-- COMMAND": how the command ended. */
static void print_command(FILE *fp, const struct report *r)
{
	if (!r->command)
		return;
	if (!r->command_done)
		fprintf(fp, "\nCommand '%s': still running when tracing stopped\n", r->command);
	else if (WIFEXITED(r->command_status))
		fprintf(fp, "\nCommand '%s' exited with status %d\n", r->command,
			WEXITSTATUS(r->command_status));
	else if (WIFSIGNALED(r->command_status))
		fprintf(fp, "\nCommand '%s' was killed by signal %d (%s)\n", r->command,
			WTERMSIG(r->command_status), strsignal(WTERMSIG(r->command_status)));
}

int out_report_text(FILE *fp, const struct report *r)
{
	uint64_t lost = report_lost(r->src);
	int ret = 0;

	/* lost events make every figure below a lower bound: say so first */
	if (lost)
		fprintf(fp, "WARNING: %" PRIu64 " events were lost: figures below are incomplete "
			    "(see Tracking)\n\n", lost);
	if (r->cut_ns)
		fprintf(fp, "WARNING: %s is truncated: reported up to %.6f s (trace clock), where "
			    "the data of cpu%d ends; the I/Os in flight there are counted as expired, "
			    "in no latency (see Tracking), and later events of the other CPUs are "
			    "left out\n\n", r->source, r->cut_ns / 1e9, r->cut_cpu);
	if (r->cut_missing)
		fprintf(fp, "WARNING: %s is truncated before any data of %s: the I/O traced there "
			    "is missing from this whole report, and the I/O shared with other CPUs "
			    "partly followed\n\n", r->source, r->cut_missing);
	fprintf(fp, "blkstack report of %s: %.3f s of completed I/O\n\n", r->source,
		(r->st->last_ts - r->st->first_ts) / 1e9);
	if (r->topology)
		ret = print_recorded_stack(fp, r);
	else if (r->sysfs)
		ret = print_sysfs_stack(fp, r);
	if (!ret && !r->st->nlayers)
		fprintf(fp, "No I/O completed.\n");
	if (!ret && r->st->nlayers) {
		size_t *order = report_layer_order(r);

		ret = order ? print_devices(fp, r, order) : -ENOMEM;
		if (!ret)
			ret = print_layers(fp, r, order);
		if (!ret)
			ret = print_classes(fp, r, order);
		if (!ret)
			ret = print_latency(fp, r, order);
		if (!ret)
			ret = print_btt(fp, r, order);
		if (!ret)
			ret = print_e2e(fp, r);
		if (!ret)
			ret = print_procs(fp, r);
		if (!ret && r->time)
			ret = out_time_text(fp, r);
		if (!ret)
			ret = print_reach(fp, r, order);
		free(order);
	}
	if (ret)
		return ret;
	print_tracking(fp, r);
	print_command(fp, r);
	return ferror(fp) ? -EIO : 0;
}

/*
 * top --access: the average number in flight of the bios completed in the
 * interval (their summed time at the layer over its length: Little's law,
 * as iostat's aqu-sz), and the share of sequential reads or writes among
 * those that entered the layer.
 */
static void set_access(struct libscols_line *ln, const struct report_interval *iv,
		       const struct st_layer *l, int op, const struct st_layer_op *o)
{
	const struct access_layer *al = access_layer_of(iv->access, l->dev);
	uint64_t n = 0;
	double seq = 0;

	set_f(ln, 15, "%.2f", iv->len_ns ? (double)o->total.sum / iv->len_ns : 0.0);
	if (al && (op == ST_READ || op == ST_WRITE))
		seq = access_seq_since_mark(al, op == ST_READ ? ACCESS_READ : ACCESS_WRITE, &n);
	if (n)
		set_f(ln, 16, "%.1f", 100 * seq);
	else
		scols_line_set_data(ln, 16, "-");
}

/*
 * blkstack top: one table per interval, as iostat prints one block per
 * interval, with the submission/completion split per layer.
 */
int out_report_interval(FILE *fp, const struct report *r, const struct report_interval *iv)
{
	static const char *const cols[] = {
		"LAYER", "OP", "IO/s", "MiB/s", "KiB_AVG", "SUB_AVG_us", "SUB_P99_us",
		"COMP_AVG_us", "COMP_P99_us", "TOT_AVG_us", "TOT_P99_us", "D2C_AVG_us",
		"MRG/s", "SPLIT/s", "ERR",
	};
	double secs = iv->len_ns / 1e9;
	struct libscols_table *tb;
	size_t *order;
	int rows = 0;

	tb = new_table(fp, cols, sizeof(cols) / sizeof(cols[0]), -1);
	order = report_layer_order(r);
	if (!tb || !order) {
		scols_unref_table(tb);
		free(order);
		return -ENOMEM;
	}
	if (iv->access && (!scols_table_new_column(tb, "INFLT", 0, SCOLS_FL_RIGHT) ||
			   !scols_table_new_column(tb, "SEQ%", 0, SCOLS_FL_RIGHT))) {
		scols_unref_table(tb);
		free(order);
		return -ENOMEM;
	}
	if (secs <= 0)
		secs = 1;
	for (size_t k = 0; k < r->st->nlayers; k++) {
		const struct st_layer *l = &r->st->layers[order[k]];

		for (int op = 0; op < ST_OPS; op++) {
			const struct st_layer_op *o = &l->op[op];
			struct libscols_line *ln;

			if (!o->ios)
				continue;
			ln = scols_table_new_line(tb, NULL);
			if (!ln)
				break;
			rows++;
			set_layer_op(ln, r, l->dev, op);
			set_f(ln, 2, "%.1f", o->ios / secs);
			set_f(ln, 3, "%.2f", o->bytes / 1048576.0 / secs);
			set_f(ln, 4, "%.1f", hist_mean(&o->size) / 1024);
			report_cell_us(ln, 5, &o->sub, hist_mean(&o->sub));
			report_cell_us(ln, 6, &o->sub, hist_percentile(&o->sub, 99));
			if (l->kind != TK_LAYER_BIO) {
				/* a disk or a partition completes with what is below */
				scols_line_set_data(ln, 7, "-");
				scols_line_set_data(ln, 8, "-");
			} else {
				report_cell_us(ln, 7, &o->comp, hist_mean(&o->comp));
				report_cell_us(ln, 8, &o->comp, hist_percentile(&o->comp, 99));
			}
			report_cell_us(ln, 9, &o->total, hist_mean(&o->total));
			report_cell_us(ln, 10, &o->total, hist_percentile(&o->total, 99));
			report_cell_us(ln, 11, &o->d2c, hist_mean(&o->d2c));
			set_f(ln, 12, "%.1f", (o->merges_back + o->merges_front) / secs);
			set_f(ln, 13, "%.1f", o->splits / secs);
			set_u64(ln, 14, o->errors);
			if (iv->access)
				set_access(ln, iv, l, op, o);
		}
	}
	fprintf(fp, "%s  (%.3f s)", iv->label, iv->len_ns / 1e9);
	if (iv->lost) {
		const char *sep = " (";

		fprintf(fp, "  WARNING: %" PRIu64 " events lost", iv->lost);
		for (int c = 0; iv->lost_cpu && c < iv->ncpu; c++) {
			if (!iv->lost_cpu[c])
				continue;
			fprintf(fp, "%scpu%d %" PRIu64, sep, c, iv->lost_cpu[c]);
			sep = ", ";
		}
		if (*sep == ',')
			fputc(')', fp);
	}
	if (iv->broken)
		fprintf(fp, "%s%" PRIu64 " I/Os broken by lost events left out", iv->lost ? "; " : "  ",
			iv->broken);
	fputc('\n', fp);
	if (rows)
		scols_print_table(tb);
	else
		fprintf(fp, "no I/O completed\n");
	fputc('\n', fp);
	scols_unref_table(tb);
	free(order);
	return ferror(fp) ? -EIO : 0;
}
