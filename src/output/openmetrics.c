// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * openmetrics.c - the statistics as Prometheus / OpenMetrics text.
 *
 * Names follow node_exporter's disk metrics and the OpenMetrics rules: base
 * units (seconds, bytes), counters ending in _total, histograms with
 * cumulative "le" buckets ending at "+Inf" (= _count) and a _sum. Every
 * sample of a family is written together, as both formats require.
 *
 * The statistics are cumulative since the monitor started: a counter that
 * went backwards would read as a restart to Prometheus.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "output/openmetrics.h"

const uint64_t om_latency_bounds[OM_LATENCY_BOUNDS] = {
	1000, 2000, 5000,				/* 1 us */
	10000, 20000, 50000,
	100000, 200000, 500000,
	1000000, 2000000, 5000000,			/* 1 ms */
	10000000, 20000000, 50000000,
	100000000, 200000000, 500000000,
	1000000000, 2000000000, 5000000000ULL,		/* 1 s */
	10000000000ULL,
};

const uint64_t om_size_bounds[OM_SIZE_BOUNDS] = {
	512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288,
	1048576, 2097152, 4194304, 8388608, 16777216,
};

#define NS_PER_SEC UINT64_C(1000000000)

/* Labels of a layer are built once per write: device, name, kind, target. */
#define OM_LABELS_LEN 512

struct om_writer {
	FILE *fp;
	bool om;
};

void om_hist_buckets(const struct hist *h, const uint64_t *bounds, size_t nbounds,
		     uint64_t *out)
{
	size_t i = 0;

	memset(out, 0, nbounds * sizeof(*out));
	if (!h->count)
		return;
	for (unsigned int b = 0; b < HIST_BUCKETS; b++) {
		uint64_t low;

		if (!h->bucket[b])
			continue;
		low = hist_bucket_low(b);
		while (i < nbounds && bounds[i] < low)
			i++;
		if (i == nbounds)
			break;	/* above the last bound: only in "+Inf" */
		out[i] += h->bucket[b];
	}
	for (i = 1; i < nbounds; i++)
		out[i] += out[i - 1];
}

/* Append @s to @buf as a label value: backslash, quote and newline escaped. */
static void esc_cat(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	for (; *s && n + 3 < len; s++) {
		if (*s == '\\' || *s == '"') {
			buf[n++] = '\\';
			buf[n++] = *s;
		} else if (*s == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = '\0';
}

/* Append name="value", with a comma before it unless @buf is empty. */
static void label_cat(char *buf, size_t len, const char *name, const char *value)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s%s=\"", n ? "," : "", name);
	esc_cat(buf, len, value);
	n = strlen(buf);
	snprintf(buf + n, len - n, "\"");
}

static const struct om_device *device_of(const struct om_input *in, uint32_t dev)
{
	for (size_t i = 0; i < in->ndevs; i++)
		if (in->devs[i].dev == dev)
			return &in->devs[i];
	return NULL;
}

static void mm_str(uint32_t dev, char *buf, size_t len)
{
	snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
}

/*
 * The groups whose series are written: one per cgroup with --by cgroup,
 * else the whole statistics without a cgroup label.
 */
static size_t groups_of(const struct om_input *in, struct om_group *all,
			const struct om_group **out)
{
	if (in->ngroups) {
		*out = in->groups;
		return in->ngroups;
	}
	*all = (struct om_group){ .cgroup = NULL, .st = in->st };
	*out = all;
	return 1;
}

/* [cgroup,] device, name, kind, target of a layer: the same on every layer series. */
static void layer_labels(const struct om_input *in, const struct om_group *g, uint32_t dev,
			 char *buf, size_t len)
{
	const struct om_device *d = device_of(in, dev);
	char mm[24];

	mm_str(dev, mm, sizeof(mm));
	buf[0] = '\0';
	if (g->cgroup)
		label_cat(buf, len, "cgroup", g->cgroup);
	label_cat(buf, len, "device", mm);
	label_cat(buf, len, "name", d && d->name[0] ? d->name : mm);
	label_cat(buf, len, "kind", d ? d->kind : "");
	label_cat(buf, len, "target", d ? d->target : "");
}

/*
 * The HELP and TYPE lines of a family. @base is the family's name as
 * OpenMetrics names it (a counter without _total, an info without _info);
 * the text format 0.0.4 names the family after its samples.
 */
static void family(const struct om_writer *w, const char *base, const char *type,
		   const char *unit, const char *help)
{
	const char *suffix = "";
	const char *t = type;

	if (!w->om) {
		if (!strcmp(type, "counter"))
			suffix = "_total";
		else if (!strcmp(type, "info")) {
			suffix = "_info";
			t = "gauge";
		}
	}
	fprintf(w->fp, "# HELP %s%s %s\n", base, suffix, help);
	fprintf(w->fp, "# TYPE %s%s %s\n", base, suffix, t);
	if (w->om && unit)
		fprintf(w->fp, "# UNIT %s %s\n", base, unit);
}

/* A bound in ns as seconds in decimal, shortest form: 1000 -> "0.000001". */
static void ns_to_str(uint64_t ns, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_SEC,
			 ns % NS_PER_SEC);

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/* The samples of one histogram: buckets, +Inf, _sum (converted), _count. */
static void hist_samples(const struct om_writer *w, const char *name, const char *labels,
			 const struct hist *h, bool seconds)
{
	const uint64_t *bounds = seconds ? om_latency_bounds : om_size_bounds;
	size_t n = seconds ? OM_LATENCY_BOUNDS : OM_SIZE_BOUNDS;
	uint64_t cum[OM_LATENCY_BOUNDS > OM_SIZE_BOUNDS ? OM_LATENCY_BOUNDS : OM_SIZE_BOUNDS];
	const char *sep = labels[0] ? "," : "";
	char le[32];

	om_hist_buckets(h, bounds, n, cum);
	for (size_t i = 0; i < n; i++) {
		if (seconds)
			ns_to_str(bounds[i], le, sizeof(le));
		else
			snprintf(le, sizeof(le), "%" PRIu64, bounds[i]);
		fprintf(w->fp, "%s_bucket{%s%sle=\"%s\"} %" PRIu64 "\n", name, labels, sep, le,
			cum[i]);
	}
	fprintf(w->fp, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, sep, h->count);
	if (seconds)
		fprintf(w->fp, "%s_sum{%s} %" PRIu64 ".%09" PRIu64 "\n", name, labels,
			h->sum / NS_PER_SEC, h->sum % NS_PER_SEC);
	else
		fprintf(w->fp, "%s_sum{%s} %" PRIu64 "\n", name, labels, h->sum);
	fprintf(w->fp, "%s_count{%s} %" PRIu64 "\n", name, labels, h->count);
}

/* An operation is shown at a layer once an I/O of it completed there. */
static bool op_seen(const struct st_layer_op *o)
{
	return o->ios || o->errors || o->requeues;
}

/* The stages of blkstack_layer_io_latency_seconds and where each comes from. */
static const struct {
	const char *name;
	size_t off;
} stages[] = {
	{ "total", offsetof(struct st_layer_op, total) },
	{ "submission", offsetof(struct st_layer_op, sub) },
	{ "completion", offsetof(struct st_layer_op, comp) },
	{ "d2c", offsetof(struct st_layer_op, d2c) },
	{ "q2c", offsetof(struct st_layer_op, q2c) },
};

/* What is written for one operation at one layer, its labels up to "op" given. */
typedef void (*layer_op_fn)(const struct om_writer *w, const char *labels,
			    const struct st_layer_op *o, const void *arg);

/* @fn for every operation seen at every layer of every group, in that order. */
static void each_layer_op(const struct om_writer *w, const struct om_input *in, layer_op_fn fn,
			  const void *arg)
{
	const struct om_group *gs;
	char lab[OM_LABELS_LEN];
	struct om_group all;
	size_t ng = groups_of(in, &all, &gs);

	for (size_t g = 0; g < ng; g++) {
		for (size_t i = 0; i < gs[g].st->nlayers; i++) {
			const struct st_layer *ly = &gs[g].st->layers[i];

			for (int op = 0; op < ST_OPS; op++) {
				if (!op_seen(&ly->op[op]))
					continue;
				layer_labels(in, &gs[g], ly->dev, lab, sizeof(lab));
				label_cat(lab, sizeof(lab), "op", st_op_name(op));
				fn(w, lab, &ly->op[op], arg);
			}
		}
	}
}

static void latency_of(const struct om_writer *w, const char *labels,
		       const struct st_layer_op *o, const void *arg)
{
	char l[OM_LABELS_LEN];

	(void)arg;
	for (size_t s = 0; s < sizeof(stages) / sizeof(stages[0]); s++) {
		const struct hist *h = (const void *)((const char *)o + stages[s].off);

		/* a stage a layer does not have (no d2c at dm) is not a zero */
		if (!h->count)
			continue;
		snprintf(l, sizeof(l), "%s", labels);
		label_cat(l, sizeof(l), "stage", stages[s].name);
		hist_samples(w, "blkstack_layer_io_latency_seconds", l, h, true);
	}
}

static void size_of(const struct om_writer *w, const char *labels, const struct st_layer_op *o,
		    const void *arg)
{
	(void)arg;
	hist_samples(w, "blkstack_layer_io_size_bytes", labels, &o->size, false);
}

/* A per-layer, per-op counter: its family name and its field in struct st_layer_op. */
struct layer_counter {
	const char *base;
	size_t off;
};

static void counter_of(const struct om_writer *w, const char *labels,
		       const struct st_layer_op *o, const void *arg)
{
	const struct layer_counter *c = arg;

	fprintf(w->fp, "%s_total{%s} %" PRIu64 "\n", c->base, labels,
		*(const uint64_t *)((const char *)o + c->off));
}

static void merges_of(const struct om_writer *w, const char *labels,
		      const struct st_layer_op *o, const void *arg)
{
	(void)arg;
	fprintf(w->fp, "blkstack_layer_merges_total{%s,dir=\"back\"} %" PRIu64 "\n", labels,
		o->merges_back);
	fprintf(w->fp, "blkstack_layer_merges_total{%s,dir=\"front\"} %" PRIu64 "\n", labels,
		o->merges_front);
}

/*
 * The kernel's own in-flight count of each device, sampled now: a gauge of
 * the device, not of a cgroup (the kernel does not split it), so it has no
 * cgroup label even with --by cgroup.
 */
static void layer_inflight(const struct om_writer *w, const struct om_input *in)
{
	static const struct om_group nogroup = { 0 };
	char lab[OM_LABELS_LEN], l[OM_LABELS_LEN];

	family(w, "blkstack_layer_inflight", "gauge", NULL,
	       "Reads and writes in flight at each device now, as the kernel counts them (sysfs inflight), dir = read | write");
	for (size_t i = 0; i < in->ndevs; i++) {
		if (!in->devs[i].has_inflight)
			continue;
		layer_labels(in, &nogroup, in->devs[i].dev, lab, sizeof(lab));
		for (int d = 0; d < 2; d++) {
			snprintf(l, sizeof(l), "%s", lab);
			label_cat(l, sizeof(l), "dir", d ? "write" : "read");
			fprintf(w->fp, "blkstack_layer_inflight{%s} %" PRIu64 "\n", l,
				in->devs[i].inflight[d]);
		}
	}
}

static void layer_metrics(const struct om_writer *w, const struct om_input *in)
{
	static const struct {
		struct layer_counter c;
		const char *unit, *help;
	} counters[] = {
		{ { "blkstack_layer_ios", offsetof(struct st_layer_op, ios) }, NULL,
		  "Bios completed at each layer" },
		{ { "blkstack_layer_bytes", offsetof(struct st_layer_op, bytes) }, "bytes",
		  "Bytes of the bios completed at each layer" },
		{ { "blkstack_layer_issued_ios", offsetof(struct st_layer_op, issued) }, NULL,
		  "Of the bios completed at a layer, those it issued itself" },
		{ { "blkstack_layer_splits", offsetof(struct st_layer_op, splits) }, NULL,
		  "Bios split at each layer" },
		{ { "blkstack_layer_requeues", offsetof(struct st_layer_op, requeues) }, NULL,
		  "Requests requeued at each layer" },
		{ { "blkstack_layer_errors", offsetof(struct st_layer_op, errors) }, NULL,
		  "Bios completed with an error at each layer" },
	};

	family(w, "blkstack_layer_io_latency_seconds", "histogram", "seconds",
	       "Latency of bios at each layer: stage total = C - Q, submission = down - Q, completion = C - up, d2c and q2c at request-based devices (btt)");
	each_layer_op(w, in, latency_of, NULL);
	family(w, "blkstack_layer_io_size_bytes", "histogram", "bytes",
	       "Size of the bios completed at each layer");
	each_layer_op(w, in, size_of, NULL);
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		family(w, counters[i].c.base, "counter", counters[i].unit, counters[i].help);
		each_layer_op(w, in, counter_of, &counters[i].c);
	}
	family(w, "blkstack_layer_merges", "counter", NULL,
	       "Bios merged into a request at request-based layers, dir = back | front");
	each_layer_op(w, in, merges_of, NULL);
	layer_inflight(w, in);
}

/* [cgroup,] op of an end-to-end series */
static void e2e_labels(const struct om_group *g, int op, char *buf, size_t len)
{
	buf[0] = '\0';
	if (g->cgroup)
		label_cat(buf, len, "cgroup", g->cgroup);
	label_cat(buf, len, "op", st_op_name(op));
}

static void end_to_end(const struct om_writer *w, const struct om_input *in)
{
	static const struct {
		const char *base, *unit, *help;
		size_t off;
	} counters[] = {
		{ "blkstack_end_to_end_ios", NULL, "Top-level I/Os completed",
		  offsetof(struct st_e2e, ios) },
		{ "blkstack_end_to_end_bytes", "bytes", "Bytes of the top-level I/Os completed",
		  offsetof(struct st_e2e, bytes) },
		{ "blkstack_end_to_end_matched_ios", NULL,
		  "Top-level I/Os followed through every layer of their path",
		  offsetof(struct st_e2e, matched) },
	};
	const char *name = "blkstack_end_to_end_latency_seconds";
	const struct om_group *gs;
	char lab[OM_LABELS_LEN];
	struct om_group all;
	size_t ng = groups_of(in, &all, &gs);

	family(w, name, "histogram", "seconds",
	       "Latency of top-level I/O, from its queueing at the top of the stack to its completion there");
	for (size_t gi = 0; gi < ng; gi++)
		for (int op = 0; op < ST_OPS; op++) {
			if (!gs[gi].st->e2e[op].ios)
				continue;
			e2e_labels(&gs[gi], op, lab, sizeof(lab));
			hist_samples(w, name, lab, &gs[gi].st->e2e[op].total, true);
		}
	for (size_t c = 0; c < sizeof(counters) / sizeof(counters[0]); c++) {
		family(w, counters[c].base, "counter", counters[c].unit, counters[c].help);
		for (size_t gi = 0; gi < ng; gi++)
			for (int op = 0; op < ST_OPS; op++) {
				const struct st_e2e *e = &gs[gi].st->e2e[op];

				if (!e->ios)
					continue;
				e2e_labels(&gs[gi], op, lab, sizeof(lab));
				fprintf(w->fp, "%s_total{%s} %" PRIu64 "\n", counters[c].base, lab,
					*(const uint64_t *)((const char *)e + counters[c].off));
			}
	}
}

static void source_counters(const struct om_writer *w, const struct om_input *in)
{
	const struct source_stats *src = in->src;

	family(w, "blkstack_events", "counter", NULL, "Block trace events read, per CPU");
	for (int c = 0; c < src->ncpu; c++)
		fprintf(w->fp, "blkstack_events_total{cpu=\"%d\"} %" PRIu64 "\n", c,
			src->cpu[c].events);
	family(w, "blkstack_events_lost", "counter", NULL,
	       "Trace events lost, per CPU: the ring buffer was full (missed, overrun, dropped)");
	for (int c = 0; c < src->ncpu; c++)
		fprintf(w->fp, "blkstack_events_lost_total{cpu=\"%d\"} %" PRIu64 "\n", c,
			source_cpu_lost(&src->cpu[c]));
	family(w, "blkstack_events_malformed", "counter", NULL,
	       "Trace records too short for their format, skipped, per CPU");
	for (int c = 0; c < src->ncpu; c++)
		fprintf(w->fp, "blkstack_events_malformed_total{cpu=\"%d\"} %" PRIu64 "\n", c,
			src->cpu[c].malformed);
}

/* A counter family of one sample without labels. */
static void single_counter(const struct om_writer *w, const char *base, const char *help,
			   uint64_t value)
{
	family(w, base, "counter", NULL, help);
	fprintf(w->fp, "%s_total %" PRIu64 "\n", base, value);
}

static void tracker_metrics(const struct om_writer *w, const struct om_input *in)
{
	const struct tk_counters *tk = in->tk;
	uint64_t all = tk_top_all(tk, in->src ? source_lost_total(in->src) : 0);

	family(w, "blkstack_match_ratio", "gauge", NULL,
	       "Share of the top-level I/Os whose data reached a disk through every layer (NaN before the first)");
	if (all)
		fprintf(w->fp, "blkstack_match_ratio %.6f\n",
			(double)tk->ios_top_matched / (double)all);
	else
		fprintf(w->fp, "blkstack_match_ratio NaN\n");
	family(w, "blkstack_tracked_inflight", "gauge", NULL,
	       "Bios in flight followed by the tracker now");
	fprintf(w->fp, "blkstack_tracked_inflight %" PRIu64 "\n", tk->inflight);
	single_counter(w, "blkstack_tracker_layer_issued",
		       "I/Os a layer issued on its own (metadata, zeroing), not top-level I/O",
		       tk->ios_layer);
	single_counter(w, "blkstack_tracker_layer_caused",
		       "I/Os a layer issued for a top-level I/O in flight (raid parity, snapshot copies)",
		       tk->ios_caused);
	single_counter(w, "blkstack_tracker_unexplained",
		       "I/Os that came down from a layer with nothing in flight to send them",
		       tk->ios_unexplained);
	single_counter(w, "blkstack_tracker_expired",
		       "I/Os not completed within --timeout", tk->expired);
	single_counter(w, "blkstack_tracker_expired_top",
		       "Of the expired I/Os, top-level ones", tk->expired_top);
	single_counter(w, "blkstack_tracker_dropped",
		       "Bios not followed because --max-inflight was reached", tk->dropped_cap);
	single_counter(w, "blkstack_tracker_broken_by_lost_events",
		       "I/Os whose life met a stretch of lost events, left out of every figure",
		       tk->broken_lost);
	single_counter(w, "blkstack_tracker_broken_by_lost_events_top",
		       "Of the I/Os broken by lost events, top-level ones", tk->broken_lost_top);
	family(w, "blkstack_tracker_unmatched", "counter", NULL,
	       "Events that matched nothing in flight, event = complete | remap | request");
	fprintf(w->fp, "blkstack_tracker_unmatched_total{event=\"complete\"} %" PRIu64 "\n",
		tk->unmatched_complete);
	fprintf(w->fp, "blkstack_tracker_unmatched_total{event=\"remap\"} %" PRIu64 "\n",
		tk->unmatched_remap);
	fprintf(w->fp, "blkstack_tracker_unmatched_total{event=\"request\"} %" PRIu64 "\n",
		tk->unmatched_rq);
}

static void device_info(const struct om_writer *w, const struct om_input *in)
{
	char lab[OM_LABELS_LEN], mm[24];

	family(w, "blkstack_device", "info", NULL,
	       "Stable names of each traced device (dm name and UUID, md level, partition's disk), to join on device");
	for (size_t i = 0; i < in->ndevs; i++) {
		const struct om_device *d = &in->devs[i];

		mm_str(d->dev, mm, sizeof(mm));
		lab[0] = '\0';
		label_cat(lab, sizeof(lab), "device", mm);
		label_cat(lab, sizeof(lab), "name", d->name);
		label_cat(lab, sizeof(lab), "kind", d->kind);
		label_cat(lab, sizeof(lab), "target", d->target);
		label_cat(lab, sizeof(lab), "dm_name", d->dm_name);
		label_cat(lab, sizeof(lab), "dm_uuid", d->dm_uuid);
		label_cat(lab, sizeof(lab), "md_level", d->md_level);
		if (d->parent)
			mm_str(d->parent, mm, sizeof(mm));
		else
			mm[0] = '\0';
		label_cat(lab, sizeof(lab), "parent", mm);
		fprintf(w->fp, "blkstack_device_info{%s} 1\n", lab);
	}
}

int out_openmetrics(FILE *fp, const struct om_input *in)
{
	const struct om_writer w = { .fp = fp, .om = in->openmetrics };
	char lab[OM_LABELS_LEN] = "";

	family(&w, "blkstack", "info", NULL, "blkstack's version and the running kernel");
	label_cat(lab, sizeof(lab), "version", in->version ? in->version : "");
	label_cat(lab, sizeof(lab), "kernel", in->kernel ? in->kernel : "");
	fprintf(fp, "blkstack_info{%s} 1\n", lab);
	device_info(&w, in);
	layer_metrics(&w, in);
	end_to_end(&w, in);
	if (in->src)
		source_counters(&w, in);
	if (in->tk)
		tracker_metrics(&w, in);
	if (in->recorder)
		single_counter(&w, "blkstack_recordings",
			       "Flight recordings written (trace.dat files of the last seconds)",
			       in->recordings);
	if (in->openmetrics)
		fputs("# EOF\n", fp);
	return ferror(fp) ? -EIO : 0;
}

const char *om_content_type(bool openmetrics)
{
	return openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			   : "text/plain; version=0.0.4; charset=utf-8";
}
