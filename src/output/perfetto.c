// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfetto.c - completed I/Os as Chrome trace-event JSON.
 *
 * Each device is a process of the trace (its track group), sorted in the
 * stack's order, top first, as the report lists its layers (said at the
 * end, once every device and the one above it are known). Slices on one thread of a trace must nest, and the
 * I/Os at a device overlap in time: so each device has lanes (threads),
 * and an I/O's slice goes to the first lane free since before it began.
 * Inside the slice of an I/O at a layer, its phases: submission (entry to
 * leaving downward), below (in the layers under it, or in the device at a
 * request-based disk), completion (the last piece done to done here).
 * A flow arrow goes from each layer's slice to the slice of each layer it
 * passed the I/O to, at the time it did.
 *
 * Times are relative to the trace's first event, in microseconds with
 * three decimals: whole nanoseconds, exactly, for readers that take a
 * double (a time of boot-relative nanoseconds in microseconds would not
 * fit a double's precision). Complete ("X") events carry begin and
 * duration, so a viewer can nest them without pairing begins and ends.
 * The document is streamed: one event at a time, never the whole tree.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "config.h"
#include "base/array.h"
#include "base/utf8.h"
#include "output/perfetto.h"
#include "output/row.h"
#include "track/stackorder.h"

/* Layers above one device counted, at most: the one that sent it most is its parent. */
#define PF_PARENTS 4

struct pf_dev {
	uint32_t dev;
	uint32_t parents[PF_PARENTS];	/* the layers above that sent it I/O */
	uint64_t sent[PF_PARENTS];	/* how many slices each */
	int pid;
	uint64_t *busy;		/* per lane: the end of its last slice */
	size_t nlanes, lanes_cap;
};

struct perfetto_out {
	FILE *fp;
	perfetto_name_fn name;
	void *name_ctx;
	bool first;
	bool has_base;
	uint64_t base;
	int err;
	uint64_t flow_id;
	struct pf_dev *devs;
	size_t ndevs, devs_cap;
	struct row row;
	int *lane;		/* per layer of the row: its lane, -1 without slice */
	struct pf_dev **ldev;	/* per layer of the row: its device */
	size_t lane_cap;
	struct perfetto_stats st;
	const struct topo_record *stack;
};

struct perfetto_out *perfetto_out_alloc(FILE *fp, perfetto_name_fn name, void *name_ctx)
{
	struct perfetto_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fp = fp;
	o->name = name;
	o->name_ctx = name_ctx;
	o->first = true;
	fputs("{\"traceEvents\":[\n", fp);
	return o;
}

void perfetto_out_free(struct perfetto_out *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->ndevs; i++)
		free(o->devs[i].busy);
	free(o->devs);
	free(o->lane);
	free(o->ldev);
	row_release(&o->row);
	free(o);
}

void perfetto_out_stack(struct perfetto_out *o, const struct topo_record *stack)
{
	o->stack = stack;
}

void perfetto_out_base(struct perfetto_out *o, uint64_t ts)
{
	o->base = ts;
	o->has_base = true;
}

const struct perfetto_stats *perfetto_out_stats(const struct perfetto_out *o)
{
	return &o->st;
}

int perfetto_out_error(const struct perfetto_out *o)
{
	return o->err;
}

/* ---- events -------------------------------------------------------------- */

static void put_event(struct perfetto_out *o, struct json_object *ev)
{
	if (!ev) {
		o->err = -ENOMEM;
		return;
	}
	if (!o->first)
		fputs(",\n", o->fp);
	o->first = false;
	fputs(json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE), o->fp);
	json_object_put(ev);
	if (ferror(o->fp) && !o->err)
		o->err = errno ? -errno : -EIO;
}

/* Nanoseconds as microseconds with exactly three decimals. */
static struct json_object *json_us(uint64_t ns)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	return json_object_new_double_s(ns / 1000.0, text);
}

static uint64_t rel(const struct perfetto_out *o, uint64_t ts)
{
	return ts > o->base ? ts - o->base : 0;
}

static struct json_object *event(const char *ph, const char *name, int pid, int tid)
{
	struct json_object *ev = json_object_new_object();

	if (!ev)
		return NULL;
	json_object_object_add(ev, "ph", json_object_new_string(ph));
	json_object_object_add(ev, "name", json_object_new_string(name));
	json_object_object_add(ev, "pid", json_object_new_int(pid));
	if (tid >= 0)
		json_object_object_add(ev, "tid", json_object_new_int(tid));
	return ev;
}

static void metadata(struct perfetto_out *o, const char *what, int pid, int tid,
		     const char *key, struct json_object *value)
{
	struct json_object *ev = event("M", what, pid, tid);
	struct json_object *args = json_object_new_object();

	if (!ev || !args) {
		json_object_put(ev);
		json_object_put(args);
		json_object_put(value);
		o->err = -ENOMEM;
		return;
	}
	json_object_object_add(args, key, value);
	json_object_object_add(ev, "args", args);
	put_event(o, ev);
}

static const char *dev_label(struct perfetto_out *o, uint32_t dev, char *buf, size_t len)
{
	const char *n = o->name ? o->name(dev, buf, len, o->name_ctx) : NULL;

	if (n)
		return n;
	snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	return buf;
}

/* One more slice at @d sent by @parent (0: none, I/O the layer issued). */
static void count_parent(struct pf_dev *d, uint32_t parent)
{
	if (!parent)
		return;
	for (int i = 0; i < PF_PARENTS; i++)
		if (d->parents[i] == parent || !d->parents[i]) {
			d->parents[i] = parent;
			d->sent[i]++;
			return;
		}
}

/*
 * The layer above that sent @d the most, else its holder in the recorded
 * stack (as output/layer.c places it), 0 for a top.
 */
static uint32_t main_parent(const struct perfetto_out *o, const struct pf_dev *d)
{
	const struct topo_dev_info *info;
	int best = 0;

	for (int i = 1; i < PF_PARENTS; i++)
		if (d->sent[i] > d->sent[best])
			best = i;
	if (d->parents[best] || !o->stack)
		return d->parents[best];
	info = topo_record_find(o->stack, d->dev);
	for (size_t h = 0; info && h < info->nholders; h++)
		for (size_t k = 0; k < o->ndevs; k++)
			if (o->devs[k].dev == info->holders[h])
				return info->holders[h];
	return 0;
}

/* The track of @dev, named the first time it is seen (placed at the end). */
static struct pf_dev *dev_track(struct perfetto_out *o, uint32_t dev, uint32_t parent)
{
	struct pf_dev *d = NULL;
	char buf[64];

	for (size_t i = 0; i < o->ndevs && !d; i++)
		if (o->devs[i].dev == dev)
			d = &o->devs[i];
	if (!d) {
		if (ARRAY_ROOM(o->devs, o->ndevs, o->devs_cap, 16) < 0)
			return NULL;
		d = &o->devs[o->ndevs++];
		*d = (struct pf_dev){ .dev = dev, .pid = (int)o->ndevs };
		o->st.devices++;
		metadata(o, "process_name", d->pid, -1, "name",
			 json_object_new_string(dev_label(o, dev, buf, sizeof(buf))));
	}
	count_parent(d, parent);
	return d;
}

/* The first lane of @d free before @start (a new one if none is). */
static int lane_for(struct perfetto_out *o, struct pf_dev *d, uint64_t start, uint64_t end)
{
	char buf[64], label[96];
	size_t l;

	for (l = 0; l < d->nlanes; l++)
		if (d->busy[l] < start)
			break;
	if (l == d->nlanes) {
		if (ARRAY_ROOM(d->busy, d->nlanes, d->lanes_cap, 4) < 0)
			return -1;
		d->nlanes++;
		snprintf(label, sizeof(label), "%s #%zu", dev_label(o, d->dev, buf, sizeof(buf)),
			 l);
		metadata(o, "thread_name", d->pid, (int)l + 1, "name",
			 json_object_new_string(label));
		metadata(o, "thread_sort_index", d->pid, (int)l + 1, "sort_index",
			 json_object_new_int((int)l));
	}
	d->busy[l] = end;
	return (int)l;
}

/* A complete event on (pid, tid) from @start to @end (absolute ns). */
static struct json_object *slice(struct perfetto_out *o, const char *name, int pid, int tid,
				 uint64_t start, uint64_t end)
{
	struct json_object *ev = event("X", name, pid, tid);

	if (!ev)
		return NULL;
	json_object_object_add(ev, "ts", json_us(rel(o, start)));
	json_object_object_add(ev, "dur", json_us(end - start));
	return ev;
}

static void phase(struct perfetto_out *o, const char *name, int pid, int tid, uint64_t start,
		  uint64_t end)
{
	put_event(o, slice(o, name, pid, tid, start, end));
	o->st.phases++;
}

static void layer_slice(struct perfetto_out *o, const struct row *r, const struct row_layer *l,
			int pid, int tid)
{
	struct json_object *ev = slice(o, row_op_name(r->op), pid, tid, l->q, l->c);
	struct json_object *args = json_object_new_object();
	char comm[16], dev[24], other[24];
	const char *end = row_end_name(l->end);

	if (!ev || !args) {
		json_object_put(ev);
		json_object_put(args);
		o->err = -ENOMEM;
		return;
	}
	json_object_object_add(ev, "cat", json_object_new_string("io"));
	snprintf(dev, sizeof(dev), "%u:%u", KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
	json_object_object_add(args, "io", json_object_new_int64(r->io));
	json_object_object_add(args, "dev", json_object_new_string(dev));
	json_object_object_add(args, "kind", json_object_new_string(row_kind_name(l->kind)));
	json_object_object_add(args, "depth", json_object_new_int(l->depth));
	json_object_object_add(args, "bytes", json_object_new_int64(l->bytes));
	json_object_object_add(args, "bios", json_object_new_int64(l->bios));
	if (l->depth == 0 && r->sector != UINT64_MAX)
		json_object_object_add(args, "sector", json_object_new_int64(r->sector));
	json_object_object_add(args, "pid", json_object_new_int(r->pid));
	json_object_object_add(args, "comm", json_object_new_string(
		utf8_sanitize(r->comm, sizeof(r->comm), comm, sizeof(comm))));
	if (r->file) {
		/* a path is bytes: JSON wants UTF-8 */
		char file[PATH_MAX];

		json_object_object_add(args, "file", json_object_new_string(
			utf8_sanitize(r->file, strlen(r->file) + 1, file, sizeof(file))));
	}
	json_object_object_add(args, "top", json_object_new_boolean(r->top));
	/* the I/O's class and cause, as convert's rows give them */
	json_object_object_add(args, "class", json_object_new_string(row_class_name(r->cls)));
	json_object_object_add(args, "cause", r->cause ? json_object_new_int64(r->cause) : NULL);
	snprintf(other, sizeof(other), "%u:%u", KDEV_MAJOR(r->issuer), KDEV_MINOR(r->issuer));
	json_object_object_add(args, "issuer", r->issuer ? json_object_new_string(other) : NULL);
	json_object_object_add(args, "matched", json_object_new_boolean(r->matched));
	json_object_object_add(args, "reach", json_object_new_string(row_reach_name(r->reach)));
	json_object_object_add(args, "end", end ? json_object_new_string(end) : NULL);
	if (l->requeues) {
		json_object_object_add(args, "requeues", json_object_new_int64(l->requeues));
		json_object_object_add(args, "requeue_ns", json_object_new_int64(l->requeue_ns));
	}
	if (l->error)
		json_object_object_add(args, "error", json_object_new_int(l->error));
	json_object_object_add(ev, "args", args);
	put_event(o, ev);
	o->st.slices++;

	/* the phases, where their ends were seen in order; empty ones are left out */
	if (l->down && l->down >= l->q && l->down <= l->c) {
		if (l->down > l->q)
			phase(o, "submission", pid, tid, l->q, l->down);
		if (l->up && l->up >= l->down && l->up <= l->c && l->up > l->down)
			phase(o, l->kind == TK_LAYER_REQUEST ? "device" : "below", pid, tid,
			      l->down, l->up);
	}
	if (l->up && l->up >= (l->down ? l->down : l->q) && l->up >= l->q && l->c > l->up)
		phase(o, "completion", pid, tid, l->up, l->c);
}

/* An arrow from the parent's slice to the child's at @ts. */
static void flow(struct perfetto_out *o, int from_pid, int from_tid, int to_pid, int to_tid,
		 uint64_t ts)
{
	struct json_object *s = event("s", "down", from_pid, from_tid);
	struct json_object *f = event("f", "down", to_pid, to_tid);
	uint64_t id = ++o->flow_id;

	if (!s || !f) {
		json_object_put(s);
		json_object_put(f);
		o->err = -ENOMEM;
		return;
	}
	json_object_object_add(s, "cat", json_object_new_string("stack"));
	json_object_object_add(s, "id", json_object_new_int64(id));
	json_object_object_add(s, "ts", json_us(rel(o, ts)));
	json_object_object_add(f, "cat", json_object_new_string("stack"));
	json_object_object_add(f, "id", json_object_new_int64(id));
	json_object_object_add(f, "ts", json_us(rel(o, ts)));
	/* bind to the slice that encloses the time, the child's own */
	json_object_object_add(f, "bp", json_object_new_string("e"));
	put_event(o, s);
	put_event(o, f);
	o->st.flows++;
}

static int grow_scratch(struct perfetto_out *o, size_t n)
{
	int *lane;
	struct pf_dev **ldev;

	if (n <= o->lane_cap)
		return 0;
	lane = realloc(o->lane, n * sizeof(*lane));
	if (!lane)
		return -ENOMEM;
	o->lane = lane;
	ldev = realloc(o->ldev, n * sizeof(*ldev));
	if (!ldev)
		return -ENOMEM;
	o->ldev = ldev;
	o->lane_cap = n;
	return 0;
}

void perfetto_out_io(const struct tk_io *io, void *ctx)
{
	perfetto_out_io_file(ctx, io, NULL);
}

void perfetto_out_io_file(struct perfetto_out *o, const struct tk_io *io, const char *file)
{
	struct row *r = &o->row;

	if (o->err)
		return;
	o->err = row_build(r, io);
	r->file = file;
	if (!o->err)
		o->err = grow_scratch(o, r->nlayers);
	if (o->err)
		return;
	if (!o->has_base)
		perfetto_out_base(o, r->q);
	for (size_t i = 0; i < r->nlayers && !o->err; i++) {
		const struct row_layer *l = &r->layers[i];

		o->lane[i] = -1;
		if (!l->q || !l->c || l->c < l->q || l->q < o->base) {
			o->st.no_span++;
			continue;
		}
		o->ldev[i] = dev_track(o, l->dev, l->parent_dev);
		if (!o->ldev[i]) {
			o->err = -ENOMEM;
			return;
		}
		o->lane[i] = lane_for(o, o->ldev[i], l->q, l->c);
		if (o->lane[i] < 0) {
			o->err = -ENOMEM;
			return;
		}
		layer_slice(o, r, l, o->ldev[i]->pid, o->lane[i] + 1);
	}
	/* after every slice of the I/O: an arrow binds to a slice already begun */
	for (size_t i = 0; i < r->nlayers && !o->err; i++) {
		const struct row_layer *l = &r->layers[i];

		if (o->lane[i] < 0 || !l->parent_dev)
			continue;
		for (size_t p = 0; p < r->nlayers; p++) {
			const struct row_layer *pl = &r->layers[p];

			if (pl->dev != l->parent_dev || o->lane[p] < 0)
				continue;
			if (pl->q <= l->q && l->q <= pl->c)
				flow(o, o->ldev[p]->pid, o->lane[p] + 1, o->ldev[i]->pid,
				     o->lane[i] + 1, l->q);
			break;
		}
	}
	o->st.ios++;
}

/* Each device's track group in the stack's order, top first. */
static void sort_tracks(struct perfetto_out *o)
{
	uint32_t *devs = malloc((o->ndevs ? o->ndevs : 1) * sizeof(*devs));
	uint32_t *parents = malloc((o->ndevs ? o->ndevs : 1) * sizeof(*parents));
	size_t *order = malloc((o->ndevs ? o->ndevs : 1) * sizeof(*order));

	if (devs && parents && order) {
		for (size_t i = 0; i < o->ndevs; i++) {
			devs[i] = o->devs[i].dev;
			parents[i] = main_parent(o, &o->devs[i]);
		}
		stack_order(devs, parents, o->ndevs, order);
		for (size_t k = 0; k < o->ndevs; k++)
			metadata(o, "process_sort_index", o->devs[order[k]].pid, -1, "sort_index",
				 json_object_new_int((int)k));
	} else {
		o->err = -ENOMEM;
	}
	free(devs);
	free(parents);
	free(order);
}

int perfetto_out_finish(struct perfetto_out *o)
{
	struct json_object *other = json_object_new_object();

	if (!other)
		return -ENOMEM;
	sort_tracks(o);
	json_object_object_add(other, "generator",
			       json_object_new_string(PACKAGE_NAME " " PACKAGE_VERSION));
	/* what 0 on the time axis is, in the recording's trace clock */
	json_object_object_add(other, "base_ns", json_object_new_int64(o->base));
	fprintf(o->fp, "\n],\"otherData\":%s}\n",
		json_object_to_json_string_ext(other, JSON_C_TO_STRING_PLAIN));
	json_object_put(other);
	if (!o->err && (fflush(o->fp) || ferror(o->fp)))
		o->err = errno ? -errno : -EIO;
	return o->err;
}
