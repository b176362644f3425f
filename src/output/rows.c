// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rows.c - one row per completed I/O, as CSV or JSON lines.
 *
 * The values of a row are listed once, in field tables, as typed values;
 * the CSV line and the JSON object are two renderings of that list. A time
 * or latency that was not seen is an empty CSV field and a JSON null, never
 * a 0 that would read as "instant". JSON objects are built with json-c
 * one row at a time: memory does not grow with the trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/utf8.h"
#include "output/rows.h"

enum val_type { V_NULL, V_INT, V_BOOL, V_STR };

struct val {
	enum val_type t;
	int64_t i;
	const char *s;
};

#define VAL_INT(v)	((struct val){ .t = V_INT, .i = (int64_t)(v) })
#define VAL_BOOL(v)	((struct val){ .t = V_BOOL, .i = (v) ? 1 : 0 })
#define VAL_STR(v)	((struct val){ .t = V_STR, .s = (v) })

/* A time: null when not seen. */
static struct val val_time(uint64_t ns)
{
	return ns ? VAL_INT(ns) : (struct val){ .t = V_NULL };
}

/* An interval: null unless both ends were seen in order. */
static struct val val_span(uint64_t a, uint64_t b)
{
	int64_t d = row_span(a, b);

	return d >= 0 ? VAL_INT(d) : (struct val){ .t = V_NULL };
}

/* Scratch space for the text of string values of one row. */
struct texts {
	char dev[24];
	char parent[24];
	char issuer[24];
	char end_dev[24];
	char comm[16];
	char file[PATH_MAX];
};

static const char *dev_text(uint32_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return buf;
}

/* ---- the field tables ---------------------------------------------------- */

static const char *const io_names[] = {
	"io", "top", "class", "cause", "issuer", "matched", "reach", "ended_at",
	"op", "dev", "sector", "bytes", "pid", "comm", "file",
	"q_ns", "c_ns", "latency_ns", "error", "nlayers",
};
#define IO_FIELDS (sizeof(io_names) / sizeof(io_names[0]))

static void io_values(const struct row *r, struct texts *t, struct val *v)
{
	size_t n = 0;

	v[n++] = VAL_INT(r->io);
	v[n++] = VAL_BOOL(r->top);
	v[n++] = VAL_STR(row_class_name(r->cls));
	v[n++] = r->cause ? VAL_INT(r->cause) : (struct val){ .t = V_NULL };
	v[n++] = r->issuer ? VAL_STR(dev_text(r->issuer, t->issuer, sizeof(t->issuer)))
			   : (struct val){ .t = V_NULL };
	v[n++] = VAL_BOOL(r->matched);
	v[n++] = VAL_STR(row_reach_name(r->reach));
	/* where it was worst: a path ended, was completed by the layer, or was lost */
	v[n++] = r->end_dev ? VAL_STR(dev_text(r->end_dev, t->end_dev, sizeof(t->end_dev)))
			    : (struct val){ .t = V_NULL };
	v[n++] = VAL_STR(row_op_name(r->op));
	v[n++] = VAL_STR(dev_text(r->dev, t->dev, sizeof(t->dev)));
	/* a flush has no position (the kernel's -1) */
	v[n++] = r->sector == UINT64_MAX ? (struct val){ .t = V_NULL } : VAL_INT(r->sector);
	v[n++] = VAL_INT(r->bytes);
	v[n++] = VAL_INT(r->pid);
	v[n++] = VAL_STR(utf8_sanitize(r->comm, sizeof(r->comm), t->comm, sizeof(t->comm)));
	/* a path is bytes: JSON wants UTF-8 */
	v[n++] = r->file ? VAL_STR(utf8_sanitize(r->file, strlen(r->file) + 1, t->file,
						 sizeof(t->file)))
			 : (struct val){ .t = V_NULL };
	v[n++] = val_time(r->q);
	v[n++] = val_time(r->c);
	v[n++] = val_span(r->q, r->c);
	v[n++] = VAL_INT(r->error);
	v[n++] = VAL_INT(r->nlayers);
}

/* Per layer; the first ones are also CSV columns. */
static const char *const layer_names[] = {
	"dev", "kind", "bios", "bytes", "end", "q_ns", "down_ns", "up_ns", "c_ns",
	"sub_ns", "below_ns", "comp_ns", "total_ns",
	/* JSON only from here */
	"parent", "depth", "splits", "merges", "requeues", "requeue_ns", "error",
};
#define LAYER_FIELDS (sizeof(layer_names) / sizeof(layer_names[0]))
#define LAYER_CSV_FIELDS 13

static void layer_values(const struct row_layer *l, struct texts *t, struct val *v)
{
	const char *end = row_end_name(l->end);
	size_t n = 0;

	v[n++] = VAL_STR(dev_text(l->dev, t->dev, sizeof(t->dev)));
	v[n++] = VAL_STR(row_kind_name(l->kind));
	v[n++] = VAL_INT(l->bios);
	v[n++] = VAL_INT(l->bytes);
	/* a path's end here: null where every bio went further down */
	v[n++] = end ? VAL_STR(end) : (struct val){ .t = V_NULL };
	v[n++] = val_time(l->q);
	v[n++] = val_time(l->down);
	v[n++] = val_time(l->up);
	v[n++] = val_time(l->c);
	v[n++] = row_sub(l) >= 0 ? VAL_INT(row_sub(l)) : (struct val){ .t = V_NULL };
	v[n++] = val_span(l->down, l->up);
	v[n++] = val_span(l->up, l->c);
	v[n++] = val_span(l->q, l->c);
	v[n++] = l->parent_dev ? VAL_STR(dev_text(l->parent_dev, t->parent, sizeof(t->parent)))
			       : (struct val){ .t = V_NULL };
	v[n++] = VAL_INT(l->depth);
	v[n++] = VAL_INT(l->splits);
	v[n++] = VAL_INT(l->merges);
	v[n++] = VAL_INT(l->requeues);
	v[n++] = VAL_INT(l->requeue_ns);
	v[n++] = VAL_INT(l->error);
}

/* ---- CSV ---------------------------------------------------------------- */

/* RFC 4180: quoted when it holds a separator, a quote or a line break. */
static void csv_str(FILE *fp, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void csv_val(FILE *fp, const struct val *v)
{
	switch (v->t) {
	case V_NULL:
		break;
	case V_INT:
		fprintf(fp, "%" PRId64, v->i);
		break;
	case V_BOOL:
		fputc(v->i ? '1' : '0', fp);
		break;
	case V_STR:
		csv_str(fp, v->s);
		break;
	}
}

static int stream_error(FILE *fp)
{
	return ferror(fp) ? (errno ? -errno : -EIO) : 0;
}

int rows_csv_header(FILE *fp)
{
	for (size_t i = 0; i < IO_FIELDS; i++)
		fprintf(fp, "%s%s", i ? "," : "", io_names[i]);
	for (int l = 0; l < ROWS_CSV_LAYERS; l++)
		for (size_t i = 0; i < LAYER_CSV_FIELDS; i++)
			fprintf(fp, ",l%d_%s", l, layer_names[i]);
	fputc('\n', fp);
	return stream_error(fp);
}

int rows_csv_write(FILE *fp, const struct row *r)
{
	struct val v[LAYER_FIELDS > IO_FIELDS ? LAYER_FIELDS : IO_FIELDS];
	struct texts t;

	io_values(r, &t, v);
	for (size_t i = 0; i < IO_FIELDS; i++) {
		if (i)
			fputc(',', fp);
		csv_val(fp, &v[i]);
	}
	for (size_t l = 0; l < ROWS_CSV_LAYERS; l++) {
		if (l < r->nlayers)
			layer_values(&r->layers[l], &t, v);
		for (size_t i = 0; i < LAYER_CSV_FIELDS; i++) {
			fputc(',', fp);
			if (l < r->nlayers)
				csv_val(fp, &v[i]);
		}
	}
	fputc('\n', fp);
	return stream_error(fp);
}

/* ---- JSON lines ----------------------------------------------------------- */

static struct json_object *json_val(const struct val *v)
{
	switch (v->t) {
	case V_INT:
		return json_object_new_int64(v->i);
	case V_BOOL:
		return json_object_new_boolean(v->i);
	case V_STR:
		return json_object_new_string(v->s);
	default:
		return NULL;	/* json-c's null */
	}
}

static void json_fields(struct json_object *obj, const char *const *names, size_t n,
			const struct val *v)
{
	for (size_t i = 0; i < n; i++)
		json_object_object_add(obj, names[i], json_val(&v[i]));
}

/*
 * A JSON line's cause: the I/O it was issued for, by its number ("io", its
 * row's) and by its row's device and Q, which still name it when it
 * expired and has no row; null when none is known.
 */
static struct json_object *json_cause(const struct row *r, struct texts *t)
{
	struct json_object *cause;

	if (!r->cause)
		return NULL;
	cause = json_object_new_object();
	if (!cause)
		return NULL;
	json_object_object_add(cause, "io", json_object_new_uint64(r->cause));
	json_object_object_add(cause, "dev", json_object_new_string(
			       dev_text(r->cause_dev, t->dev, sizeof(t->dev))));
	json_object_object_add(cause, "q_ns", json_object_new_uint64(r->cause_q));
	return cause;
}

int rows_jsonl_write(FILE *fp, const struct row *r)
{
	struct val v[LAYER_FIELDS > IO_FIELDS ? LAYER_FIELDS : IO_FIELDS];
	struct json_object *obj = json_object_new_object();
	struct json_object *layers = json_object_new_array();
	struct texts t;

	if (!obj || !layers) {
		json_object_put(obj);
		json_object_put(layers);
		return -ENOMEM;
	}
	io_values(r, &t, v);
	json_fields(obj, io_names, IO_FIELDS, v);
	/* in place of the number a CSV column holds */
	json_object_object_add(obj, "cause", json_cause(r, &t));
	for (size_t l = 0; l < r->nlayers; l++) {
		struct json_object *lo = json_object_new_object();

		layer_values(&r->layers[l], &t, v);
		json_fields(lo, layer_names, LAYER_FIELDS, v);
		json_object_array_add(layers, lo);
	}
	json_object_object_add(obj, "layers", layers);
	fputs(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
						  JSON_C_TO_STRING_NOSLASHESCAPE), fp);
	fputc('\n', fp);
	json_object_put(obj);
	return stream_error(fp);
}

/* ---- the writer ------------------------------------------------------------ */

struct rows_out {
	FILE *fp;
	enum rows_format fmt;
	bool header_done;
	int err;
	uint64_t count;
	struct row row;
};

struct rows_out *rows_out_alloc(FILE *fp, enum rows_format fmt)
{
	struct rows_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fp = fp;
	o->fmt = fmt;
	return o;
}

void rows_out_free(struct rows_out *o)
{
	if (!o)
		return;
	row_release(&o->row);
	free(o);
}

static void header(struct rows_out *o)
{
	if (o->header_done || o->fmt != ROWS_CSV)
		return;
	o->header_done = true;
	o->err = rows_csv_header(o->fp);
}

void rows_out_io(const struct tk_io *io, void *ctx)
{
	rows_out_io_file(ctx, io, NULL);
}

void rows_out_io_file(struct rows_out *o, const struct tk_io *io, const char *file)
{
	if (o->err)
		return;
	header(o);
	if (!o->err)
		o->err = row_build(&o->row, io);
	o->row.file = file;
	if (!o->err)
		o->err = o->fmt == ROWS_CSV ? rows_csv_write(o->fp, &o->row)
					    : rows_jsonl_write(o->fp, &o->row);
	if (!o->err)
		o->count++;
}

int rows_out_finish(struct rows_out *o)
{
	if (!o->err)
		header(o);
	if (!o->err && fflush(o->fp))
		o->err = errno ? -errno : -EIO;
	return o->err;
}

int rows_out_error(const struct rows_out *o)
{
	return o->err;
}

uint64_t rows_out_count(const struct rows_out *o)
{
	return o->count;
}
