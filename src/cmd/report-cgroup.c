// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-cgroup.c - "blkstack report --by cgroup": the glue between the
 * tracker, the per-cgroup statistics and their table.
 */
#include <errno.h>
#include <stdlib.h>

#include "cmd/report-cgroup.h"
#include "output/report.h"

void report_cg_io(const struct tk_io *io, void *ctx)
{
	struct report_cg *rc = ctx;

	stats_io(io, rc->st);
	cg_stats_io(&rc->cg, io);
}

int report_cg_event(const struct blk_event *ev, void *ctx)
{
	struct report_cg *rc = ctx;

	cg_stats_event(&rc->cg, ev);
	return tracker_event(ev, rc->t);
}

int report_cg_output(FILE *fp, const struct report_cg *rc, bool json, const char *source,
		     const struct source_stats *src)
{
	size_t cap = cg_cap(rc->cg.map), n = 0;
	const struct stats **st = calloc(cap + 1, sizeof(*st));
	const char **names = calloc(cap + 1, sizeof(*names));
	struct cgroup_report r;
	int ret;

	if (!st || !names) {
		free(st);
		free(names);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= cap; i++) {
		if (!rc->cg.st[i])
			continue;
		names[n] = cg_name(rc->cg.map, i);
		st[n++] = rc->cg.st[i];
	}
	r = (struct cgroup_report){ .source = source, .names = names, .st = st, .n = n,
				    .lost = src ? report_lost(src) : 0 };
	ret = json ? out_cgroup_json(fp, &r) : out_cgroup_text(fp, &r);
	free(st);
	free(names);
	return ret;
}
