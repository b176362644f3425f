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
 * @name: device names (NULL: MAJ:MIN), where @names is NULL
 * @name_ctx: passed to @name
 * @names: the stack's devices, to name the layers (report_dev_label()) and
 *	   give their kernel names in JSON: the recorded stack, or this
 *	   machine's described from sysfs (live); NULL: @name names them
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
 * @truncated: the recording is truncated (then @cut_ns and @cut_missing
 *	       say what became of it)
 * @cut_ns: a truncated recording: the time it is reported up to, where the
 *	    data of CPU @cut_cpu ends (trace clock); 0 when not cut (no cut
 *	    CPU has a record left)
 * @cut_cpu: that CPU
 * @cut_missing: a truncated recording's CPUs with no data left ("cpu1,
 *		 cpu3"), NULL when none
 */
struct report {
	const struct stats *st;
	const struct tk_counters *tk;
	const struct source_stats *src;
	const char *source;
	report_name_fn name;
	void *name_ctx;
	const struct topo_record *names;
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
	bool truncated;
	uint64_t cut_ns;
	int cut_cpu;
	const char *cut_missing;
};

/**
 * struct report_interval - one interval of blkstack top
 * @label: when it ended ("12:00:03", or "+3.000s" into a recording)
 * @len_ns: its length: rates are per second of it
 * @lost: events lost during it
 * @access: with top --access, the access pattern since the interval began
 *	    (access_mark()): two more columns, INFLT and SEQ%; NULL: none
 */
struct report_interval {
	const char *label;
	uint64_t len_ns;
	uint64_t lost;
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

/*
 * The names and the order of the layers, the same in every output
 * (output/layer.c).
 */

/**
 * report_dev_label - @dev as every output of the report names a layer:
 * topo_record_label() of @r->names ("bsk-crypt(crypt)", "md0(raid5)",
 * "sda1"), else @r->name's, else "MAJ:MIN" in @buf
 */
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

/**
 * report_dev_kname - the kernel's name of @dev ("dm-2"), as the JSON's
 * "name" gives it, or NULL when nothing names it
 */
const char *report_dev_kname(const struct report *r, uint32_t dev, char *buf, size_t len);

/**
 * report_dev_named - whether report_dev_label() gives @dev a name, not
 * its MAJ:MIN
 */
bool report_dev_named(const struct report *r, uint32_t dev);

/**
 * report_layer_order - the layers of @r->st in the stack's order, top
 * first (stack_order(), each layer under the one that sent it the most,
 * else under its holder in @r->names): every table and the JSON list them so
 * Returns the @r->st->nlayers indexes (free() them), or NULL when out of
 * memory.
 */
size_t *report_layer_order(const struct report *r);

/**
 * report_layer_depths - the depth of each layer of @order (as
 * report_layer_order() gave it) in the stack's tree: 0 for a top, one
 * more than the layer it is placed under; @depth has @r->st->nlayers
 * entries, in @order's order
 * Returns 0 or -ENOMEM.
 */
int report_layer_depths(const struct report *r, const size_t *order, int *depth);

/**
 * report_devs_order - rows of devices of their own (amplification) in the
 * stack's order of @r->st's layers: @order is set to the
 * @n indexes into @devs; a device @r->st lacks comes after the others
 * Returns 0, or -ENOMEM (then @order is @devs as given).
 */
int report_devs_order(const struct report *r, const uint32_t *devs, size_t n, size_t *order);

/** report_lost - events lost on every CPU of @src */
uint64_t report_lost(const struct source_stats *src);

#endif /* BLKSTACK_OUT_REPORT_H */
