// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-time.c - the slowest I/Os and the latency per rwbs flag, as text
 * tables (libsmartcols) and as members of the report's JSON document.
 *
 * A slow I/O is shown per layer as convert's rows show it (output/row.c:
 * each device once, from the first of its bios entering it to the last
 * completing there): when it entered (seconds from the report's start in
 * text, trace-clock ns in JSON), its submission (down - Q), the time below
 * it (up - down: the lower layers, or the device at a disk), its
 * completion (C - up) and its total (C - Q), its requeues and the time its
 * requests spent requeued. Under the layer that issued them, the I/Os a
 * layer issued on its behalf (read-modify-write reads, parity writes,
 * copy-on-write copies, flushes), each with its own layers.
 */
#include <errno.h>
#include <inttypes.h>
#include <libsmartcols/libsmartcols.h>
#include <stdlib.h>
#include <string.h>

#include "output/report-time.h"

static void set_span(struct libscols_line *ln, size_t col, int64_t ns)
{
	char buf[32];

	if (ns < 0) {
		scols_line_set_data(ln, col, "-");
		return;
	}
	report_fmt_us(buf, sizeof(buf), (double)ns);
	scols_line_set_data(ln, col, buf);
}

static const char *const slow_cols[] = {
	"LAYER", "KIND", "BIOS", "KiB", "Q_s", "SUB_us", "BELOW_us", "COMP_us", "TOTAL_us",
	"SPLIT", "MERGE", "REQUEUE", "REQ_WAIT_us",
};
#define SLOW_NCOLS (sizeof(slow_cols) / sizeof(slow_cols[0]))

static struct libscols_table *slow_table(FILE *fp)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	scols_table_set_stream(tb, fp);
	for (size_t i = 0; i < SLOW_NCOLS; i++)
		if (!scols_table_new_column(tb, slow_cols[i], 0,
					    i == 0 ? SCOLS_FL_TREE : i > 1 ? SCOLS_FL_RIGHT : 0)) {
			scols_unref_table(tb);
			return NULL;
		}
	return tb;
}

int report_time_caused_row(const struct slow_caused *c, struct row *row)
{
	struct tk_io io = { .id = c->id, .cls = c->cls, .cause = c->cause, .issuer = c->issuer,
			    .root = c->recs, .recs = c->recs, .nrecs = c->nrecs };

	return row_build(row, &io);
}

int report_time_row(const struct slow_io *s, struct row *row)
{
	struct tk_io io = { .id = s->id, .pid = s->pid, .top = true, .cls = TK_IO_TOP,
			    .reach = s->reach, .end_dev = s->end_dev, .matched = s->matched,
			    .root = s->recs, .recs = s->recs, .nrecs = s->nrecs };

	memcpy(io.comm, s->comm, sizeof(io.comm));
	return row_build(row, &io);
}

int report_time_parent(const struct row *row, size_t i)
{
	const struct row_layer *l = &row->layers[i];

	for (size_t j = 0; j < i; j++)
		if (row->layers[j].dev == l->parent_dev && row->layers[j].depth + 1 == l->depth)
			return (int)j;
	return -1;
}

/* The cells of one layer of a row, its first named @label. */
static void slow_layer_cells(struct libscols_line *ln, const struct report *r,
			     const struct row_layer *l, const char *label)
{
	char buf[32];

	scols_line_set_data(ln, 0, label);
	scols_line_set_data(ln, 1, row_kind_name(l->kind));
	snprintf(buf, sizeof(buf), "%u", l->bios);
	scols_line_set_data(ln, 2, buf);
	snprintf(buf, sizeof(buf), "%.1f", l->bytes / 1024.0);
	scols_line_set_data(ln, 3, buf);
	if (l->q)
		snprintf(buf, sizeof(buf), "%.6f", (l->q - r->st->first_ts) / 1e9);
	scols_line_set_data(ln, 4, l->q ? buf : "-");
	set_span(ln, 5, row_sub(l));
	set_span(ln, 6, row_span(l->down, l->up));
	/* a disk or a partition completes with what is below: C - up is 0 by construction */
	set_span(ln, 7, l->kind == TK_LAYER_BIO ? row_span(l->up, l->c) : -1);
	set_span(ln, 8, row_span(l->q, l->c));
	snprintf(buf, sizeof(buf), "%u", l->splits);
	scols_line_set_data(ln, 9, buf);
	snprintf(buf, sizeof(buf), "%u", l->merges);
	scols_line_set_data(ln, 10, buf);
	snprintf(buf, sizeof(buf), "%u", l->requeues);
	scols_line_set_data(ln, 11, buf);
	set_span(ln, 12, l->requeues ? (int64_t)l->requeue_ns : -1);
}

/*
 * The layers of @row as lines of @tb under @under (NULL: at the top), each
 * under the layer above it, the first labelled @first (NULL: its name);
 * *@lines (reallocated) gets them, in the row's order. Returns 0 or -ENOMEM.
 */
static int slow_row_lines(struct libscols_table *tb, const struct report *r,
			  const struct row *row, struct libscols_line *under, const char *first,
			  struct libscols_line ***lines)
{
	struct libscols_line **ln;
	char name[64];

	ln = realloc(*lines, (row->nlayers ? row->nlayers : 1) * sizeof(**lines));
	if (!ln)
		return -ENOMEM;
	*lines = ln;
	for (size_t i = 0; i < row->nlayers; i++) {
		const struct row_layer *l = &row->layers[i];
		int parent = report_time_parent(row, i);

		ln[i] = scols_table_new_line(tb, parent >= 0 ? ln[parent] : under);
		if (!ln[i])
			return -ENOMEM;
		slow_layer_cells(ln[i], r, l, i || !first ? report_dev_label(r, l->dev, name,
									  sizeof(name)) : first);
	}
	return 0;
}

/*
 * The I/Os issued on behalf of a slow I/O, each under the line of the layer
 * that issued it (under the top one when that layer is not on its path).
 */
static int print_caused(struct libscols_table *tb, const struct report *r,
			const struct slow_io *s, const struct row *row,
			struct libscols_line *const *lines)
{
	struct libscols_line **cl = NULL;
	struct row crow = { 0 };
	int ret = 0;

	for (size_t k = 0; k < s->ncaused && !ret; k++) {
		const struct slow_caused *c = &s->caused[k];
		struct libscols_line *under = lines[0];
		char label[128], name[64];

		for (size_t i = 0; i < row->nlayers; i++)
			if (row->layers[i].dev == c->issuer) {
				under = lines[i];
				break;
			}
		ret = report_time_caused_row(c, &crow);
		if (ret)
			break;
		snprintf(label, sizeof(label), "%s [%s %s #%" PRIu64 "]",
			 report_dev_label(r, crow.dev, name, sizeof(name)),
			 row_class_name(crow.cls), row_op_name(crow.op), crow.io);
		ret = slow_row_lines(tb, r, &crow, under, label, &cl);
	}
	free(cl);
	row_release(&crow);
	return ret;
}

/* One I/O: its heading line, then its layers as a tree under the top one. */
static int print_slow_io(FILE *fp, const struct report *r, const struct slow_io *s, size_t rank)
{
	struct libscols_table *tb = slow_table(fp);
	struct libscols_line **lines = NULL;
	const struct tk_rec *root = &s->recs[0];
	char name[64], us[32], file[4096];
	struct row row = { 0 };
	const char *fname = NULL;
	int ret;

	ret = tb ? report_time_row(s, &row) : -ENOMEM;
	if (ret)
		goto out;
	if (r->time->file && s->owner != SLOWEST_NO_OWNER)
		fname = r->time->file(s->owner, file, sizeof(file), r->time->file_ctx);
	report_fmt_us(us, sizeof(us), (double)s->lat);
	fprintf(fp, "\n#%zu  %s us  %s %.1f KiB at %s sector %" PRIu64 ", queued at %.6f s by "
		    "%d (%s)%s%s, I/O #%" PRIu64, rank, us, st_op_name(st_op_of_rec(root)),
		root->sectors / 2.0, report_dev_label(r, root->dev, name, sizeof(name)),
		root->sector, (row.q - r->st->first_ts) / 1e9, s->pid,
		s->comm[0] ? s->comm : "?", fname ? ", file " : "", fname ? fname : "", s->id);
	if (s->ncaused)
		fprintf(fp, "; %zu I/O%s issued on its behalf", s->ncaused, s->ncaused > 1 ? "s" : "");
	if (!s->matched)
		fprintf(fp, "  (%s %s)", s->reach == TK_REACH_SELF ? "completed by" :
			s->reach == TK_REACH_ENDED ? "ended at" : "partly followed, lost at",
			report_dev_label(r, s->end_dev, name, sizeof(name)));
	fputc('\n', fp);
	ret = slow_row_lines(tb, r, &row, NULL, NULL, &lines);
	if (!ret && row.nlayers)
		ret = print_caused(tb, r, s, &row, lines);
	if (!ret)
		scols_print_table(tb);
out:
	free(lines);
	row_release(&row);
	scols_unref_table(tb);
	return ret;
}

static int print_slowest(FILE *fp, const struct report *r)
{
	const struct report_time *t = r->time;

	if (!t->slow)
		return 0;
	fprintf(fp, "\nSlowest top-level I/Os, %zu of %" PRIu64 " (end to end, root C - root Q; "
		    "SUB = down - Q, BELOW = up - down, COMP = C - up, TOTAL = C - Q; REQ_WAIT: "
		    "time requeued until issued again; Q_s from the start of the report; "
		    "[caused ...] an I/O issued on its behalf, under the layer that issued it):\n",
		t->nslow, t->slow_offered);
	for (size_t i = 0; i < t->nslow; i++) {
		int ret = print_slow_io(fp, r, &t->slow[i], i + 1);

		if (ret)
			return ret;
	}
	return 0;
}

static int print_flags(FILE *fp, const struct report *r)
{
	static const char *const cols[] = {
		"LAYER", "OP", "FLAGS", "COUNT", "AVG_us", "P50_us", "P90_us", "P99_us", "MAX_us",
		"DEV_P50_us", "DEV_P99_us",
	};
	const struct flaglat *f = r->time->flags;
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return -ENOMEM;
	scols_table_set_stream(tb, fp);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (!scols_table_new_column(tb, cols[i], 0, i > 2 ? SCOLS_FL_RIGHT : 0)) {
			scols_unref_table(tb);
			return -ENOMEM;
		}
	for (size_t i = 0; i < f->n; i++) {
		const struct flaglat_row *row = &f->rows[i];
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		char name[64], buf[32];

		if (!ln)
			break;
		scols_line_set_data(ln, 0, report_dev_label(r, row->dev, name, sizeof(name)));
		scols_line_set_data(ln, 1, st_op_name(row->op));
		scols_line_set_data(ln, 2, flaglat_name(row->flags, name, sizeof(name)));
		snprintf(buf, sizeof(buf), "%" PRIu64, row->total.count);
		scols_line_set_data(ln, 3, buf);
		report_cell_us(ln, 4, &row->total, hist_mean(&row->total));
		report_cell_us(ln, 5, &row->total, hist_percentile(&row->total, 50));
		report_cell_us(ln, 6, &row->total, hist_percentile(&row->total, 90));
		report_cell_us(ln, 7, &row->total, hist_percentile(&row->total, 99));
		report_cell_us(ln, 8, &row->total, row->total.max);
		report_cell_us(ln, 9, &row->device, hist_percentile(&row->device, 50));
		report_cell_us(ln, 10, &row->device, hist_percentile(&row->device, 99));
	}
	fprintf(fp, "\nLatency per layer by rwbs flags (total = C - Q at the layer; DEV = the "
		    "device's time at leaves, D to C):\n");
	if (f->n)
		scols_print_table(tb);
	else
		fprintf(fp, "no I/O completed\n");
	if (f->over)
		fprintf(fp, "%" PRIu64 " records past the %d combinations kept were not counted\n",
			f->over, FLAGLAT_MAX_ROWS);
	scols_unref_table(tb);
	return 0;
}

static const char *const dir_names[ACCESS_DIRS] = { "read", "write" };

static struct libscols_table *plain_table(FILE *fp, const char *const *cols, size_t n)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	scols_table_set_stream(tb, fp);
	for (size_t i = 0; i < n; i++)
		if (!scols_table_new_column(tb, cols[i], 0, i > 1 ? SCOLS_FL_RIGHT : 0)) {
			scols_unref_table(tb);
			return NULL;
		}
	return tb;
}

static void set_fmt(struct libscols_line *ln, size_t col, const char *fmt, double v)
{
	char buf[40];

	snprintf(buf, sizeof(buf), fmt, v);
	scols_line_set_data(ln, col, buf);
}

/* Per layer and direction: btt's seek figures, the sequential share, the entropy. */
static int print_pattern(FILE *fp, const struct report *r)
{
	static const char *const cols[] = {
		"LAYER", "DIR", "IOS", "SEQ%", "SEEK_MEAN", "SEEK_MEDIAN", "SEEK_MODE", "ENTROPY_bits",
	};
	const struct access *a = r->time->access;
	struct libscols_table *tb = plain_table(fp, cols, sizeof(cols) / sizeof(cols[0]));
	size_t *order = report_layer_order(r);
	bool approx = false;

	if (!tb || !order) {
		scols_unref_table(tb);
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->st->nlayers; i++) {
		const struct access_layer *l = access_layer_of(a, r->st->layers[order[i]].dev);
		char name[64];

		for (int d = 0; l && d < ACCESS_DIRS; d++) {
			const struct seek *s = &l->seek[d];
			struct libscols_line *ln;
			uint64_t mode = 0;
			uint32_t most;

			if (!s->nseeks)
				continue;
			ln = scols_table_new_line(tb, NULL);
			if (!ln)
				break;
			seek_modes(s, &mode, 1, &most);
			approx |= !seek_exact(s);
			scols_line_set_data(ln, 0, report_dev_label(r, l->dev, name, sizeof(name)));
			scols_line_set_data(ln, 1, dir_names[d]);
			set_fmt(ln, 2, "%.0f", (double)s->nseeks);
			set_fmt(ln, 3, "%.1f", 100.0 * seek_seq_share(s));
			set_fmt(ln, 4, "%.0f", seek_mean(s));
			set_fmt(ln, 5, "%.0f", (double)seek_median(s));
			set_fmt(ln, 6, "%.0f", (double)mode);
			set_fmt(ln, 7, "%.2f", access_entropy(&l->dist[d]));
		}
	}
	fprintf(fp, "\nAccess pattern per layer, in the order I/Os entered it (SEQ%%: started where "
		    "the one before ended; seek distances in sectors by btt's rule; ENTROPY of the "
		    "distances, 0 for a single distance):\n");
	scols_print_table(tb);
	if (approx)
		fprintf(fp, "(more than %u distinct distances: median and mode from the first ones "
			    "kept)\n", SEEK_MAX_DISTINCT);
	scols_unref_table(tb);
	free(order);
	return 0;
}

/* Per layer: the bios between Q and C, over time and as each arrival found them. */
static int print_inflight(FILE *fp, const struct report *r)
{
	static const char *const cols[] = { "LAYER", "KIND", "AVG", "MAX", "AVG_AT_Q", "BUSY%" };
	const struct access *a = r->time->access;
	struct libscols_table *tb = plain_table(fp, cols, sizeof(cols) / sizeof(cols[0]));
	size_t *order = report_layer_order(r);

	if (!tb || !order) {
		scols_unref_table(tb);
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->st->nlayers; i++) {
		const struct access_layer *l = access_layer_of(a, r->st->layers[order[i]].dev);
		const struct inflight *f = l ? &l->inflight : NULL;
		struct libscols_line *ln;
		uint64_t span;
		char name[64];

		if (!f || !f->samples)
			continue;
		ln = scols_table_new_line(tb, NULL);
		if (!ln)
			break;
		span = a->last_ts > f->start ? a->last_ts - f->start : 0;
		scols_line_set_data(ln, 0, report_dev_label(r, l->dev, name, sizeof(name)));
		scols_line_set_data(ln, 1, row_kind_name(r->st->layers[order[i]].kind));
		set_fmt(ln, 2, "%.2f", inflight_avg(f, a->last_ts));
		set_fmt(ln, 3, "%.0f", (double)f->max);
		set_fmt(ln, 4, "%.2f", inflight_sampled_avg(f));
		set_fmt(ln, 5, "%.1f", span ? 100.0 * inflight_busy(f, a->last_ts) / span : 0.0);
	}
	fprintf(fp, "\nIn flight per layer (bios between Q and C there; AVG and BUSY%% over the time "
		    "from its first I/O to the last event; AVG_AT_Q: the number each arrival "
		    "found, as btt's Active Requests At Q, which counts only those not yet "
		    "issued):\n");
	scols_print_table(tb);
	if (a->forced || a->late)
		fprintf(fp, "(%" PRIu64 " events taken out of order: an I/O in flight longer than "
			    "the others could hold)\n", a->forced + a->late);
	scols_unref_table(tb);
	free(order);
	return 0;
}

int out_access_text(FILE *fp, const struct report *r)
{
	int ret = print_pattern(fp, r);

	if (!ret)
		ret = print_inflight(fp, r);
	return ret;
}

int out_time_text(FILE *fp, const struct report *r)
{
	int ret = 0;

	if (r->time->access)
		ret = out_access_text(fp, r);
	if (!ret)
		ret = print_slowest(fp, r);
	return ret;
}

int out_flags_text(FILE *fp, const struct report *r)
{
	int ret;

	fprintf(fp, "blkstack report of %s: %.3f s of completed I/O\n", r->source,
		(r->st->last_ts - r->st->first_ts) / 1e9);
	ret = print_flags(fp, r);
	if (ret)
		return ret;
	return ferror(fp) ? -EIO : 0;
}

/* A time or a span: null when not seen, as convert's rows have it. */
static json_object *jns(int64_t ns)
{
	return ns < 0 ? NULL : json_object_new_int64(ns);
}

/* A row's layers, as the slowest I/Os' JSON gives them. */
static json_object *jslow_layers(const struct report *r, const struct row *row)
{
	json_object *layers = json_object_new_array();

	for (size_t i = 0; i < row->nlayers; i++) {
		const struct row_layer *rl = &row->layers[i];
		json_object *l = json_object_new_object();

		report_json_dev(l, "dev", r, rl->dev);
		/* the top one's is null */
		report_json_dev(l, "parent", r, rl->parent_dev);
		json_object_object_add(l, "depth", json_object_new_int(rl->depth));
		json_object_object_add(l, "kind", json_object_new_string(row_kind_name(rl->kind)));
		json_object_object_add(l, "bios", json_object_new_uint64(rl->bios));
		json_object_object_add(l, "bytes", json_object_new_uint64(rl->bytes));
		json_object_object_add(l, "q_ns", jns(rl->q ? (int64_t)rl->q : -1));
		json_object_object_add(l, "c_ns", jns(rl->c ? (int64_t)rl->c : -1));
		json_object_object_add(l, "submission_ns", jns(row_sub(rl)));
		json_object_object_add(l, "below_ns", jns(row_span(rl->down, rl->up)));
		json_object_object_add(l, "completion_ns", jns(row_span(rl->up, rl->c)));
		json_object_object_add(l, "total_ns", jns(row_span(rl->q, rl->c)));
		json_object_object_add(l, "splits", json_object_new_uint64(rl->splits));
		json_object_object_add(l, "merges", json_object_new_uint64(rl->merges));
		json_object_object_add(l, "requeues", json_object_new_uint64(rl->requeues));
		json_object_object_add(l, "requeue_ns", json_object_new_uint64(rl->requeue_ns));
		json_object_array_add(layers, l);
	}
	return layers;
}

/* The I/Os issued on behalf of @s: each with its class, cause, issuer and layers. */
static json_object *jcaused(const struct report *r, const struct slow_io *s)
{
	json_object *a = json_object_new_array();
	struct row row = { 0 };

	for (size_t k = 0; k < s->ncaused; k++) {
		json_object *o;

		if (report_time_caused_row(&s->caused[k], &row) < 0)
			break;
		o = json_object_new_object();
		json_object_object_add(o, "io", json_object_new_uint64(row.io));
		json_object_object_add(o, "class", json_object_new_string(row_class_name(row.cls)));
		json_object_object_add(o, "cause", json_object_new_uint64(row.cause));
		report_json_dev(o, "issuer", r, row.issuer);
		json_object_object_add(o, "op", json_object_new_string(row_op_name(row.op)));
		report_json_dev(o, "dev", r, row.dev);
		json_object_object_add(o, "sector", row.sector == UINT64_MAX ? NULL :
				       json_object_new_uint64(row.sector));
		json_object_object_add(o, "bytes", json_object_new_uint64(row.bytes));
		json_object_object_add(o, "q_ns", jns(row.q ? (int64_t)row.q : -1));
		json_object_object_add(o, "c_ns", jns(row.c ? (int64_t)row.c : -1));
		json_object_object_add(o, "latency_ns", jns(row_span(row.q, row.c)));
		json_object_object_add(o, "layers", jslow_layers(r, &row));
		json_object_array_add(a, o);
	}
	row_release(&row);
	return a;
}

static json_object *jslow(const struct report *r, const struct slow_io *s, size_t rank)
{
	json_object *o = json_object_new_object();
	const struct tk_rec *root = &s->recs[0];
	struct row row = { 0 };
	char file[4096];
	const char *fname = NULL;

	if (r->time->file && s->owner != SLOWEST_NO_OWNER)
		fname = r->time->file(s->owner, file, sizeof(file), r->time->file_ctx);
	json_object_object_add(o, "rank", json_object_new_uint64(rank));
	json_object_object_add(o, "io", json_object_new_uint64(s->id));
	json_object_object_add(o, "latency_ns", json_object_new_uint64(s->lat));
	json_object_object_add(o, "op", json_object_new_string(row_op_name(root->op)));
	report_json_dev(o, "dev", r, root->dev);
	json_object_object_add(o, "sector", json_object_new_uint64(root->sector));
	json_object_object_add(o, "bytes", json_object_new_uint64((uint64_t)root->sectors << 9));
	json_object_object_add(o, "q_ns", json_object_new_uint64(root->q));
	json_object_object_add(o, "c_ns", json_object_new_uint64(root->c));
	json_object_object_add(o, "pid", json_object_new_int(s->pid));
	json_object_object_add(o, "comm", json_object_new_string(s->comm));
	json_object_object_add(o, "file", fname ? json_object_new_string(fname) : NULL);
	json_object_object_add(o, "matched", json_object_new_boolean(s->matched));
	json_object_object_add(o, "reach", json_object_new_string(row_reach_name(s->reach)));
	if (s->end_dev)
		report_json_dev(o, "ended_at", r, s->end_dev);
	else
		json_object_object_add(o, "ended_at", NULL);
	if (report_time_row(s, &row) < 0)
		row.nlayers = 0;
	json_object_object_add(o, "layers", jslow_layers(r, &row));
	row_release(&row);
	json_object_object_add(o, "caused", jcaused(r, s));
	return o;
}

static json_object *jflags(const struct report *r)
{
	json_object *a = json_object_new_array();
	const struct flaglat *f = r->time->flags;

	for (size_t i = 0; i < f->n; i++) {
		const struct flaglat_row *row = &f->rows[i];
		json_object *o = json_object_new_object();
		char name[64];

		report_json_dev(o, "dev", r, row->dev);
		json_object_object_add(o, "op", json_object_new_string(st_op_name(row->op)));
		json_object_object_add(o, "flags", json_object_new_string(
			flaglat_name(row->flags, name, sizeof(name))));
		json_object_object_add(o, "total_ns", report_json_hist(&row->total));
		json_object_object_add(o, "device_ns", report_json_hist(&row->device));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *jaccess(const struct report *r)
{
	const struct access *a = r->time->access;
	json_object *arr = json_object_new_array();
	size_t *order = report_layer_order(r);

	for (size_t i = 0; order && i < r->st->nlayers; i++) {
		const struct access_layer *l = access_layer_of(a, r->st->layers[order[i]].dev);
		json_object *o, *inf;

		if (!l)
			continue;
		o = json_object_new_object();
		report_json_dev(o, "dev", r, l->dev);
		for (int d = 0; d < ACCESS_DIRS; d++) {
			const struct seek *s = &l->seek[d];
			json_object *j;
			uint64_t mode = 0;
			uint32_t most;

			if (!s->nseeks)
				continue;
			seek_modes(s, &mode, 1, &most);
			j = json_object_new_object();
			json_object_object_add(j, "ios", json_object_new_uint64(s->nseeks));
			json_object_object_add(j, "sequential", json_object_new_uint64(s->nseq));
			json_object_object_add(j, "seek_mean_sectors", json_object_new_double(seek_mean(s)));
			json_object_object_add(j, "seek_median_sectors",
					       json_object_new_uint64(seek_median(s)));
			json_object_object_add(j, "seek_mode_sectors", json_object_new_uint64(mode));
			json_object_object_add(j, "seek_exact", json_object_new_boolean(seek_exact(s)));
			json_object_object_add(j, "entropy_bits",
					       json_object_new_double(access_entropy(&l->dist[d])));
			json_object_object_add(o, dir_names[d], j);
		}
		inf = json_object_new_object();
		json_object_object_add(inf, "avg", json_object_new_double(
			inflight_avg(&l->inflight, a->last_ts)));
		json_object_object_add(inf, "max", json_object_new_uint64(l->inflight.max));
		json_object_object_add(inf, "avg_at_q", json_object_new_double(
			inflight_sampled_avg(&l->inflight)));
		json_object_object_add(inf, "busy_ns", json_object_new_uint64(
			inflight_busy(&l->inflight, a->last_ts)));
		json_object_object_add(inf, "from_ns", json_object_new_uint64(l->inflight.start));
		json_object_object_add(o, "inflight", inf);
		json_object_array_add(arr, o);
	}
	free(order);
	return arr;
}

void out_time_json(json_object *doc, const struct report *r)
{
	const struct report_time *t = r->time;

	if (t->access) {
		json_object_object_add(doc, "access", jaccess(r));
		json_object_object_add(doc, "access_last_ns",
				       json_object_new_uint64(t->access->last_ts));
		json_object_object_add(doc, "access_out_of_order",
				       json_object_new_uint64(t->access->forced + t->access->late));
	}

	if (t->slow) {
		json_object *a = json_object_new_array();

		for (size_t i = 0; i < t->nslow; i++)
			json_object_array_add(a, jslow(r, &t->slow[i], i + 1));
		json_object_object_add(doc, "slowest", a);
		json_object_object_add(doc, "slowest_of", json_object_new_uint64(t->slow_offered));
	}
}

int out_flags_json(FILE *fp, const struct report *r)
{
	json_object *doc = json_object_new_object();

	json_object_object_add(doc, "source", json_object_new_string(r->source));
	json_object_object_add(doc, "first_ns", json_object_new_uint64(r->st->first_ts));
	json_object_object_add(doc, "last_ns", json_object_new_uint64(r->st->last_ts));
	json_object_object_add(doc, "by_flag", jflags(r));
	return report_json_write(fp, doc);
}
