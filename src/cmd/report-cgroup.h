/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-cgroup.h - "blkstack report --by cgroup": the tracker's trees
 * counted per cgroup of the task that queued them (track/cgroup), and the
 * per-cgroup table in place of the per-layer report. Command glue.
 */
#ifndef BLKSTACK_CMD_REPORT_CGROUP_H
#define BLKSTACK_CMD_REPORT_CGROUP_H

#include <stdbool.h>
#include <stdio.h>

#include "base/source.h"
#include "track/cgroup.h"
#include "track/stats.h"
#include "track/tracker.h"

/* cgroups counted apart by report --by cgroup; the rest are "other" */
#define REPORT_MAX_CGROUPS 64

/**
 * struct report_cg - the statistics of report --by cgroup
 * @st: the whole statistics (stats_io of every tree, as without --by)
 * @t: the tracker, set once allocated (report_cg_event() feeds it)
 * @cg: the statistics per cgroup
 */
struct report_cg {
	struct stats *st;
	struct tracker *t;
	struct cg_stats cg;
};

/** report_cg_io - a tk_io_fn: into @ctx's statistics, whole and per cgroup */
void report_cg_io(const struct tk_io *io, void *ctx);

/** report_cg_event - a blk_event_fn: the queueing task's cgroup, then the tracker */
int report_cg_event(const struct blk_event *ev, void *ctx);

/**
 * report_cg_output - the per-cgroup table of @rc, as text or JSON
 * Returns 0 or a negative errno.
 */
int report_cg_output(FILE *fp, const struct report_cg *rc, bool json, const char *source,
		     const struct source_stats *src);

#endif /* BLKSTACK_CMD_REPORT_CGROUP_H */
