/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - the per-layer report, as text tables (libsmartcols, as
 * lsblk draws them) or as one JSON document (json-c).
 */
#ifndef BLKSTACK_OUT_REPORT_H
#define BLKSTACK_OUT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "base/source.h"
#include "track/access.h"
#include "track/amp.h"
#include "track/stats.h"
#include "track/topo-record.h"
#include "track/tracker.h"

struct report_time;

/* Names a device for display ("dm-2", or "253:2" when unknown). */
typedef const char *(*report_name_fn)(uint32_t dev, char *buf, size_t len, void *ctx);

/**
 * struct report - what the report is made of
 * @st: the statistics
 * @tk: what the tracker followed and what it could not
 * @src: events read and lost per CPU
 * @source: where the events came from (a file name, or "live")
 * @name: device names (NULL: MAJ:MIN)
 * @name_ctx: passed to @name
 * @top_procs: processes listed at most (0: 10)
 * @sysfs: the devices are this machine's (live): draw the stack from sysfs
 * @stack_devs: with @sysfs, the devices whose stack to draw (the selection
 *		of -d); NULL: the devices seen in the statistics
 * @nstack_devs: how many
 * @topology: a recorded stack (report -i with --topology): drawn instead of
 *	      sysfs's; NULL if none
 * @command: the COMMAND traced until it exited, NULL if none
 * @command_done: it was reaped, @command_status is its wait status
 * @command_status: as waitpid() gives it
 * @time: the slowest I/Os, the flag split and the series (output/report-time.h);
 *	  NULL if none was asked for
 * @amp: amplification per layer (report --amplification), NULL if not asked
 */
struct report {
	const struct stats *st;
	const struct tk_counters *tk;
	const struct source_stats *src;
	const char *source;
	report_name_fn name;
	void *name_ctx;
	unsigned int top_procs;
	bool sysfs;
	const uint32_t *stack_devs;
	size_t nstack_devs;
	const struct topo_record *topology;
	const char *command;
	bool command_done;
	int command_status;
	const struct report_time *time;
	const struct amp *amp;
};

/**
 * struct report_interval - one interval of blkstack top
 * @label: when it ended ("12:00:03", or "+3.000s" into a recording)
 * @len_ns: its length: rates are per second of it
 * @lost: events lost during it
 * @lost_cpu: the same per CPU, @ncpu of them (NULL: not known)
 * @broken: I/Os completed in it whose life met a stretch of lost events:
 *	    left out of its figures
 * @access: with top --access, the access pattern since the interval began
 *	    (access_mark()): two more columns, INFLT and SEQ%; NULL: none
 */
struct report_interval {
	const char *label;
	uint64_t len_ns;
	uint64_t lost;
	const uint64_t *lost_cpu;
	int ncpu;
	uint64_t broken;
	const struct access *access;
};

/** out_report_text - the report as text. Returns 0 or -errno. */
int out_report_text(FILE *fp, const struct report *r);

/** out_report_json - the report as one JSON document. Returns 0 or -errno. */
int out_report_json(FILE *fp, const struct report *r);

/**
 * out_report_interval - the per-layer table of one interval of blkstack
 * top (@r->st holds that interval only). Returns 0 or -errno.
 */
int out_report_interval(FILE *fp, const struct report *r, const struct report_interval *iv);

/** report_dev_label - @dev's name, or "MAJ:MIN" in @buf when it has none */
const char *report_dev_label(const struct report *r, uint32_t dev, char *buf, size_t len);

/**
 * report_fmt_us - microseconds from @ns, with the precision that matters at
 * that scale: 2 decimals below 10 us, 1 below 1 ms, none above
 */
void report_fmt_us(char *buf, size_t len, double ns);

/**
 * struct cgroup_report - report --by cgroup: end to end per cgroup
 * @source: where the events came from
 * @names: the cgroups' paths ("other" past the cap, "unknown" when the
 *	   task was gone before it was looked up), @n of them
 * @st: their statistics, in the same order
 * @lost: events lost on every CPU
 */
struct cgroup_report {
	const char *source;
	const char *const *names;
	const struct stats *const *st;
	size_t n;
	uint64_t lost;
};

/** out_cgroup_text - the per-cgroup table. Returns 0 or -errno. */
int out_cgroup_text(FILE *fp, const struct cgroup_report *r);

/** out_cgroup_json - the per-cgroup table as one JSON document. Returns 0 or -errno. */
int out_cgroup_json(FILE *fp, const struct cgroup_report *r);

/** report_lost - events lost on every CPU of @src */
uint64_t report_lost(const struct source_stats *src);

#endif /* BLKSTACK_OUT_REPORT_H */
