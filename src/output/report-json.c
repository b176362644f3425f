// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-json.c - the per-layer report as one JSON document (json-c).
 *
 * Latencies are in nanoseconds and sizes in bytes, as integers: a consumer
 * converts units, the document never rounds. The fields are described in
 * blkstack-report(8).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "output/amp.h"
#include "output/report-time.h"
#include "output/report.h"
#include "output/row.h"
#include "output/tree.h"

json_object *report_json_hist(const struct hist *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "count", json_object_new_uint64(h->count));
	if (h->count) {
		json_object_object_add(o, "avg", json_object_new_uint64(h->sum / h->count));
		json_object_object_add(o, "min", json_object_new_uint64(hist_min(h)));
		json_object_object_add(o, "p50", json_object_new_uint64(hist_percentile(h, 50)));
		json_object_object_add(o, "p90", json_object_new_uint64(hist_percentile(h, 90)));
		json_object_object_add(o, "p99", json_object_new_uint64(hist_percentile(h, 99)));
		json_object_object_add(o, "max", json_object_new_uint64(h->max));
	}
	return o;
}

/* a size histogram: percentiles in whole sectors */
static json_object *jsize(const struct hist *h)
{
	json_object *o = report_json_hist(h);

	if (h->count) {
		json_object_object_add(o, "p50", json_object_new_uint64(stats_size_percentile(h, 50)));
		json_object_object_add(o, "p90", json_object_new_uint64(stats_size_percentile(h, 90)));
		json_object_object_add(o, "p99", json_object_new_uint64(stats_size_percentile(h, 99)));
	}
	return o;
}

void report_json_dev(json_object *o, const char *key, const struct report *r, uint32_t dev)
{
	char buf[64], mm[32];
	const char *name;

	if (!dev) {
		json_object_object_add(o, key, NULL);
		return;
	}
	snprintf(mm, sizeof(mm), "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	json_object_object_add(o, key, json_object_new_string(mm));
	if (strcmp(key, "dev"))
		return;
	/* the kernel's name; the key is there, null, when no stack names it */
	name = report_dev_kname(r, dev, buf, sizeof(buf));
	json_object_object_add(o, "name", name ? json_object_new_string(name) : NULL);
}

/* @kind: the layer's; a disk completes when the device does, a partition
 * with its piece: C - up is 0 by construction there, left out as in the text */
static json_object *jlayer_op(const struct st_layer_op *o, uint8_t kind)
{
	json_object *j = json_object_new_object();
	json_object *cls = json_object_new_object();

	json_object_object_add(j, "ios", json_object_new_uint64(o->ios));
	json_object_object_add(j, "issued", json_object_new_uint64(o->issued));
	json_object_object_add(j, "bytes", json_object_new_uint64(o->bytes));
	/* the I/Os and bytes by class of their I/O: they add up to ios and bytes */
	for (int c = 0; c < TK_CLASSES; c++) {
		json_object *jc = json_object_new_object();

		json_object_object_add(jc, "ios", json_object_new_uint64(o->cls_ios[c]));
		json_object_object_add(jc, "bytes", json_object_new_uint64(o->cls_bytes[c]));
		json_object_object_add(cls, row_class_name(c), jc);
	}
	json_object_object_add(j, "classes", cls);
	json_object_object_add(j, "splits", json_object_new_uint64(o->splits));
	json_object_object_add(j, "merges_back", json_object_new_uint64(o->merges_back));
	json_object_object_add(j, "merges_front", json_object_new_uint64(o->merges_front));
	json_object_object_add(j, "requeues", json_object_new_uint64(o->requeues));
	json_object_object_add(j, "errors", json_object_new_uint64(o->errors));
	json_object_object_add(j, "size_bytes", jsize(&o->size));
	json_object_object_add(j, "submission_ns", report_json_hist(&o->sub));
	if (kind == TK_LAYER_BIO)
		json_object_object_add(j, "completion_ns", report_json_hist(&o->comp));
	json_object_object_add(j, "total_ns", report_json_hist(&o->total));
	if (o->q2c.count) {
		json_object *b = json_object_new_object();

		json_object_object_add(b, "q2g_ns", report_json_hist(&o->q2g));
		json_object_object_add(b, "g2i_ns", report_json_hist(&o->g2i));
		json_object_object_add(b, "i2d_ns", report_json_hist(&o->i2d));
		json_object_object_add(b, "g2d_ns", report_json_hist(&o->g2d));
		json_object_object_add(b, "d2c_ns", report_json_hist(&o->d2c));
		json_object_object_add(b, "q2c_ns", report_json_hist(&o->q2c));
		json_object_object_add(b, "q2m_ns", report_json_hist(&o->q2m));
		json_object_object_add(j, "btt", b);
	}
	return j;
}

/* The sysfs stack (live) or the recorded one, as output/tree.c prints it in JSON. */
static json_object *jstack(const struct report *r)
{
	const uint32_t *devs = r->stack_devs;
	size_t n = r->nstack_devs, len = 0;
	uint32_t *seen = NULL;
	json_object *tree = NULL;
	char *buf = NULL;
	FILE *mem;

	if (r->topology) {
		/* a recorded stack, whole, as the text report draws it */
		seen = calloc(r->topology->n ? r->topology->n : 1, sizeof(*seen));
		if (!seen)
			return NULL;
		for (size_t i = 0; i < r->topology->n; i++)
			seen[i] = r->topology->devs[i].dev;
		devs = seen;
		n = r->topology->n;
	} else if (!devs) {
		seen = calloc(r->st->nlayers ? r->st->nlayers : 1, sizeof(*seen));
		if (!seen)
			return NULL;
		for (size_t i = 0; i < r->st->nlayers; i++)
			seen[i] = r->st->layers[i].dev;
		devs = seen;
		n = r->st->nlayers;
	}
	mem = n ? open_memstream(&buf, &len) : NULL;
	if (mem) {
		int ret = r->topology ? out_tree_print_recorded(mem, r->topology, devs, n,
								OUT_TREE_JSON | OUT_TREE_BYTES)
				      : out_tree_print(mem, "", devs, n, OUT_TREE_JSON | OUT_TREE_BYTES);

		if (fclose(mem) == 0 && ret == 0)
			tree = json_tokener_parse(buf);
	}
	free(buf);
	free(seen);
	return tree;
}

/* How "-- COMMAND" ended: exit_status, or signal, or still_running. */
static json_object *jcommand(const struct report *r)
{
	json_object *c = json_object_new_object();

	json_object_object_add(c, "name", json_object_new_string(r->command));
	if (!r->command_done) {
		json_object_object_add(c, "still_running", json_object_new_boolean(1));
	} else if (WIFEXITED(r->command_status)) {
		json_object_object_add(c, "exit_status",
				       json_object_new_int(WEXITSTATUS(r->command_status)));
	} else if (WIFSIGNALED(r->command_status)) {
		json_object_object_add(c, "signal",
				       json_object_new_int(WTERMSIG(r->command_status)));
	}
	return c;
}

/*
 * Trace time @ts as wall-clock time, RFC 3339 in UTC to the nanosecond
 * ("2026-11-29T01:01:55.123456789Z"); null when the trace does not know
 * its wall clock, or has no I/O.
 */
static json_object *jwall(const struct report *r, uint64_t ts)
{
	int64_t wall;
	time_t sec;
	struct tm tm;
	char buf[64];
	size_t n;

	if (!r->host || !r->host->wall_known || !ts)
		return NULL;
	wall = (int64_t)ts + r->host->wall_offset_ns;
	sec = (time_t)(wall / 1000000000);
	if (wall < 0 || !gmtime_r(&sec, &tm))
		return NULL;
	n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%09lldZ", (long long)(wall % 1000000000));
	return json_object_new_string(buf);
}

/* What the trace says of its machine: every key, null where it does not say. */
static json_object *jhost(const struct trace_host *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "from", h ? json_object_new_string(h->from) : NULL);
	json_object_object_add(o, "release", h && h->release[0] ?
			       json_object_new_string(h->release) : NULL);
	json_object_object_add(o, "hz", h && h->hz ? json_object_new_int(h->hz) : NULL);
	json_object_object_add(o, "wall_offset_ns", h && h->wall_known ?
			       json_object_new_int64(h->wall_offset_ns) : NULL);
	json_object_object_add(o, "wall_clock", h && h->wall_from ?
			       json_object_new_string(h->wall_from) : NULL);
	return o;
}

static const char *kind_name(uint8_t kind)
{
	return kind == TK_LAYER_REQUEST ? "request" : kind == TK_LAYER_REMAP ? "remap" : "bio";
}

/* The layers where top-level I/Os of @op stopped with @reach: [{dev, name, ios}] */
static json_object *jreach_at(const struct report *r, int op, enum tk_reach reach)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->st->nlayers; i++) {
		const struct st_layer *l = &r->st->layers[i];
		json_object *o;

		if (!l->op[op].top_end[reach])
			continue;
		o = json_object_new_object();
		report_json_dev(o, "dev", r, l->dev);
		json_object_object_add(o, "ios", json_object_new_uint64(l->op[op].top_end[reach]));
		json_object_array_add(a, o);
	}
	return a;
}

int out_report_json(FILE *fp, const struct report *r)
{
	json_object *doc = json_object_new_object();
	json_object *layers = json_object_new_array();
	json_object *e2e = json_object_new_object();
	json_object *procs = json_object_new_array();
	json_object *tracking = json_object_new_object();
	json_object *cpus = json_object_new_array();
	const struct tk_counters *tk = r->tk;
	uint64_t all = tk_top_all(tk, report_lost(r->src));
	size_t *order;

	json_object_object_add(doc, "source", json_object_new_string(r->source));
	json_object_object_add(doc, "first_ns", json_object_new_uint64(r->st->first_ts));
	json_object_object_add(doc, "last_ns", json_object_new_uint64(r->st->last_ts));
	json_object_object_add(doc, "first_wall", jwall(r, r->st->first_ts));
	json_object_object_add(doc, "last_wall", jwall(r, r->st->last_ts));
	json_object_object_add(doc, "host", jhost(r->host));
	json_object_object_add(doc, "events_lost", json_object_new_uint64(report_lost(r->src)));
	/* a truncated recording: where it is reported up to, null when whole */
	if (r->truncated) {
		json_object *cut = json_object_new_object();

		json_object_object_add(cut, "cpu", r->cut_ns ? json_object_new_int(r->cut_cpu) : NULL);
		json_object_object_add(cut, "until_ns", r->cut_ns ?
				       json_object_new_uint64(r->cut_ns) : NULL);
		json_object_object_add(cut, "missing_cpus", r->cut_missing ?
				       json_object_new_string(r->cut_missing) : NULL);
		json_object_object_add(doc, "truncated", cut);
	} else {
		json_object_object_add(doc, "truncated", NULL);
	}
	/* null, not left out: no command, no stack known (a recording without one) */
	json_object_object_add(doc, "command", r->command ? jcommand(r) : NULL);
	if (r->sysfs || r->topology) {
		json_object *tree = jstack(r), *devs;

		/* the "devices" array of output/tree.c's document, moved into ours */
		if (tree && json_object_object_get_ex(tree, "devices", &devs))
			json_object_object_add(doc, "devices", json_object_get(devs));
		json_object_put(tree);
	}
	if (!json_object_object_get_ex(doc, "devices", NULL))
		json_object_object_add(doc, "devices", NULL);

	order = report_layer_order(r);
	for (size_t k = 0; order && k < r->st->nlayers; k++) {
		const struct st_layer *l = &r->st->layers[order[k]];
		json_object *jl = json_object_new_object(), *ops = json_object_new_object();
		json_object *parents;

		report_json_dev(jl, "dev", r, l->dev);
		/* a top layer has a null parent; every layer above, with its bios */
		report_json_dev(jl, "parent", r, l->parent);
		parents = json_object_new_array();
		for (size_t i = 0; i < l->nparents; i++) {
			json_object *jp = json_object_new_object();

			report_json_dev(jp, "dev", r, l->parents[i].dev);
			json_object_object_add(jp, "bios", json_object_new_uint64(l->parents[i].bios));
			json_object_object_add(jp, "data_bios",
					       json_object_new_uint64(l->parents[i].data_bios));
			json_object_array_add(parents, jp);
		}
		json_object_object_add(jl, "parents", parents);
		json_object_object_add(jl, "kind", json_object_new_string(kind_name(l->kind)));
		for (int op = 0; op < ST_OPS; op++)
			if (l->op[op].ios)
				json_object_object_add(ops, st_op_name(op), jlayer_op(&l->op[op], l->kind));
		json_object_object_add(jl, "ops", ops);
		json_object_array_add(layers, jl);
	}
	free(order);
	json_object_object_add(doc, "layers", layers);

	for (int op = 0; op < ST_OPS; op++) {
		const struct st_e2e *e = &r->st->e2e[op];
		json_object *je, *shares;

		if (!e->ios)
			continue;
		je = json_object_new_object();
		shares = json_object_new_array();
		json_object_object_add(je, "ios", json_object_new_uint64(e->ios));
		json_object_object_add(je, "bytes", json_object_new_uint64(e->bytes));
		json_object_object_add(je, "matched", json_object_new_uint64(e->matched));
		json_object_object_add(je, "match_rate",
				       json_object_new_double((double)e->matched / e->ios));
		json_object_object_add(je, "completed_by_layer",
				       json_object_new_uint64(e->reach[TK_REACH_SELF]));
		json_object_object_add(je, "ended", json_object_new_uint64(e->reach[TK_REACH_ENDED]));
		json_object_object_add(je, "partly_followed",
				       json_object_new_uint64(e->reach[TK_REACH_PARTIAL]));
		json_object_object_add(je, "completed_by", jreach_at(r, op, TK_REACH_SELF));
		json_object_object_add(je, "ended_at", jreach_at(r, op, TK_REACH_ENDED));
		json_object_object_add(je, "lost_at", jreach_at(r, op, TK_REACH_PARTIAL));
		json_object_object_add(je, "total_ns", report_json_hist(&e->total));
		json_object_object_add(je, "total_ns_sum", json_object_new_uint64(e->total_ns));
		for (size_t i = 0; i < e->nshares; i++) {
			json_object *s = json_object_new_object();

			report_json_dev(s, "dev", r, e->shares[i].dev);
			json_object_object_add(s, "depth", json_object_new_int(e->shares[i].depth));
			/* the row of the layer above on the path, an index in this array */
			json_object_object_add(s, "parent", e->shares[i].parent < 0 ? NULL :
					       json_object_new_int(e->shares[i].parent));
			json_object_object_add(s, "down_ns", json_object_new_uint64(e->shares[i].sub_ns));
			json_object_object_add(s, "device_ns",
					       json_object_new_uint64(e->shares[i].dev_ns));
			json_object_object_add(s, "up_ns", json_object_new_uint64(e->shares[i].comp_ns));
			json_object_array_add(shares, s);
		}
		json_object_object_add(je, "waterfall", shares);
		json_object_object_add(e2e, st_op_name(op), je);
	}
	json_object_object_add(doc, "end_to_end", e2e);

	for (size_t i = 0; i < r->st->nprocs; i++) {
		const struct st_proc *p = &r->st->procs[i];
		json_object *jp = json_object_new_object();

		json_object_object_add(jp, "pid", json_object_new_int(p->pid));
		json_object_object_add(jp, "comm", json_object_new_string(p->comm));
		json_object_object_add(jp, "ios", json_object_new_uint64(p->ios));
		json_object_object_add(jp, "bytes", json_object_new_uint64(p->bytes));
		json_object_object_add(jp, "total_ns", report_json_hist(&p->total));
		json_object_array_add(procs, jp);
	}
	json_object_object_add(doc, "processes", procs);

	json_object_object_add(tracking, "events", json_object_new_uint64(tk->events));
	json_object_object_add(tracking, "top_level_ios", json_object_new_uint64(tk->ios_top));
	json_object_object_add(tracking, "top_level_matched",
			       json_object_new_uint64(tk->ios_top_matched));
	json_object_object_add(tracking, "match_rate",
			       json_object_new_double(all ? (double)tk->ios_top_matched / all : 1.0));
	json_object_object_add(tracking, "top_level_completed_by_layer",
			       json_object_new_uint64(tk->ios_top_reach[TK_REACH_SELF]));
	json_object_object_add(tracking, "top_level_ended",
			       json_object_new_uint64(tk->ios_top_reach[TK_REACH_ENDED]));
	json_object_object_add(tracking, "top_level_partly_followed",
			       json_object_new_uint64(tk->ios_top_reach[TK_REACH_PARTIAL]));
	json_object_object_add(tracking, "layer_caused_ios", json_object_new_uint64(tk->ios_caused));
	json_object_object_add(tracking, "layer_issued_ios", json_object_new_uint64(tk->ios_layer));
	json_object_object_add(tracking, "unexplained_ios",
			       json_object_new_uint64(tk->ios_unexplained));
	json_object_object_add(tracking, "expired", json_object_new_uint64(tk->expired));
	json_object_object_add(tracking, "expired_top_level", json_object_new_uint64(tk->expired_top));
	json_object_object_add(tracking, "unmatched_completions",
			       json_object_new_uint64(tk->unmatched_complete));
	json_object_object_add(tracking, "unmatched_remaps",
			       json_object_new_uint64(tk->unmatched_remap));
	json_object_object_add(tracking, "unmatched_requests",
			       json_object_new_uint64(tk->unmatched_rq));
	json_object_object_add(tracking, "dropped_inflight_cap",
			       json_object_new_uint64(tk->dropped_cap));
	json_object_object_add(tracking, "inflight_peak", json_object_new_uint64(tk->inflight_peak));
	/* as the text's line: there when events were lost */
	if (report_lost(r->src)) {
		json_object_object_add(tracking, "lost_stretches",
				       json_object_new_uint64(tk->lost_marks));
		json_object_object_add(tracking, "broken_by_lost_events",
				       json_object_new_uint64(tk->broken_lost));
		json_object_object_add(tracking, "broken_by_lost_events_top_level",
				       json_object_new_uint64(tk->broken_lost_top));
		json_object_object_add(tracking, "unmatched_completions_after_loss",
				       json_object_new_uint64(tk->unmatched_after_loss));
		json_object_object_add(tracking, "top_level_unseen_estimate",
				       json_object_new_uint64(tk_top_unseen(tk, report_lost(r->src))));
	}
	if (r->src)
		for (int c = 0; c < r->src->ncpu; c++) {
			const struct source_cpu_stats *cs = &r->src->cpu[c];
			json_object *jc = json_object_new_object();

			json_object_object_add(jc, "cpu", json_object_new_int(c));
			json_object_object_add(jc, "events", json_object_new_uint64(cs->events));
			json_object_object_add(jc, "lost", json_object_new_uint64(source_cpu_lost(cs)));
			json_object_array_add(cpus, jc);
		}
	json_object_object_add(tracking, "cpus", cpus);
	json_object_object_add(doc, "tracking", tracking);
	if (r->amp)
		json_object_object_add(doc, "amplification", out_amp_json(r));
	if (r->time)
		out_time_json(doc, r);
	return report_json_write(fp, doc);
}

int report_json_write(FILE *fp, json_object *doc)
{
	const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_NOSLASHESCAPE);
	int ret = 0;

	if (!text || fputs(text, fp) == EOF || fputc('\n', fp) == EOF)
		ret = -EIO;
	json_object_put(doc);
	return ret;
}
