// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-cgroup.c - report --by cgroup: the top-level I/O per cgroup of the
 * task that queued it, end to end, per operation; as text and as JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <string.h>

#include "output/report-time.h"
#include "output/report.h"

int out_cgroup_text(FILE *fp, const struct cgroup_report *r)
{
	int w = (int)strlen("CGROUP");

	for (size_t i = 0; i < r->n; i++)
		if ((int)strlen(r->names[i]) > w)
			w = strlen(r->names[i]);
	fprintf(fp, "blkstack report of %s, by cgroup\n\n", r->source);
	fprintf(fp, "Top-level I/O per cgroup of the task that queued it (end to end, root C - root Q):\n");
	fprintf(fp, "%-*s %-7s %9s %10s %10s %10s %10s %10s\n", w, "CGROUP", "OP", "IOS", "MiB",
		"AVG_us", "P50_us", "P99_us", "MAX_us");
	for (size_t i = 0; i < r->n; i++) {
		for (int op = 0; op < ST_OPS; op++) {
			const struct st_e2e *e = &r->st[i]->e2e[op];

			if (!e->ios)
				continue;
			fprintf(fp, "%-*s %-7s %9" PRIu64 " %10.2f %10.1f %10.1f %10.1f %10.1f\n", w,
				r->names[i], st_op_name(op), e->ios, e->bytes / 1048576.0,
				hist_mean(&e->total) / 1e3, hist_percentile(&e->total, 50) / 1e3,
				hist_percentile(&e->total, 99) / 1e3, e->total.max / 1e3);
		}
	}
	if (!r->n)
		fprintf(fp, "no top-level I/O completed\n");
	if (r->lost)
		fprintf(fp, "\n%" PRIu64 " events lost: the figures are short of them\n", r->lost);
	return ferror(fp) ? -EIO : 0;
}

int out_cgroup_json(FILE *fp, const struct cgroup_report *r)
{
	json_object *doc = json_object_new_object(), *groups = json_object_new_array();
	int ret = 0;

	json_object_object_add(doc, "source", json_object_new_string(r->source));
	json_object_object_add(doc, "events_lost", json_object_new_uint64(r->lost));
	for (size_t i = 0; i < r->n; i++) {
		json_object *g = json_object_new_object(), *ops = json_object_new_object();

		json_object_object_add(g, "cgroup", json_object_new_string(r->names[i]));
		for (int op = 0; op < ST_OPS; op++) {
			const struct st_e2e *e = &r->st[i]->e2e[op];
			json_object *jo;

			if (!e->ios)
				continue;
			jo = json_object_new_object();
			json_object_object_add(jo, "ios", json_object_new_uint64(e->ios));
			json_object_object_add(jo, "bytes", json_object_new_uint64(e->bytes));
			json_object_object_add(jo, "matched", json_object_new_uint64(e->matched));
			json_object_object_add(jo, "total_ns", report_json_hist(&e->total));
			json_object_object_add(ops, st_op_name(op), jo);
		}
		json_object_object_add(g, "ops", ops);
		json_object_array_add(groups, g);
	}
	json_object_object_add(doc, "cgroups", groups);
	if (fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
						       JSON_C_TO_STRING_NOSLASHESCAPE), fp) < 0 ||
	    fputc('\n', fp) == EOF)
		ret = -EIO;
	json_object_put(doc);
	return ret;
}
