/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * openmetrics.h - the statistics as Prometheus metrics: the text
 * exposition format 0.0.4 (what node_exporter's textfile collector reads)
 * or OpenMetrics 1.0 (what Prometheus asks for first), for blkstack
 * monitor.
 *
 * Histograms have fixed, log-spaced bounds (om_latency_bounds,
 * om_size_bounds) so that the series of every host aggregate.
 */
#ifndef BLKSTACK_OUT_OPENMETRICS_H
#define BLKSTACK_OUT_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/source.h"
#include "track/hist.h"
#include "track/stats.h"
#include "track/tracker.h"

/* Latency bounds: 1, 2, 5 per decade from 1 us to 10 s (22 buckets + "+Inf"). */
#define OM_LATENCY_BOUNDS 22
/* Size bounds: powers of two from 512 bytes to 16 MiB (16 buckets + "+Inf"). */
#define OM_SIZE_BOUNDS 16

/** om_latency_bounds - the latency bucket bounds, in nanoseconds, ascending */
extern const uint64_t om_latency_bounds[OM_LATENCY_BOUNDS];

/** om_size_bounds - the size bucket bounds, in bytes, ascending */
extern const uint64_t om_size_bounds[OM_SIZE_BOUNDS];

/**
 * struct om_device - the stable names of one device (blkstack_device_info)
 * @dev: the device (kernel dev_t)
 * @name: kernel name ("loop0p1", "dm-2")
 * @kind: "disk", "part", "dm", "loop", "zram", "md"
 * @target: the dm target type ("crypt", "thin", ...; "" if none)
 * @dm_name: the name under /dev/mapper ("" unless dm)
 * @dm_uuid: dm/uuid ("" unless set)
 * @md_level: an md device's level ("" unless md)
 * @parent: a partition's disk (0: none)
 * @has_inflight: @inflight was sampled (blkstack_layer_inflight)
 * @inflight: the kernel's reads and writes in flight at the device now
 *	      (sysfs inflight), sampled at each exposition
 */
struct om_device {
	uint32_t dev;
	char name[64];
	char kind[8];
	char target[32];
	char dm_name[128];
	char dm_uuid[128];
	char md_level[16];
	uint32_t parent;
	bool has_inflight;
	uint64_t inflight[2];
};

/**
 * struct om_group - the statistics of one cgroup (--by cgroup)
 * @cgroup: the value of the "cgroup" label ("other" past the cap)
 * @st: the statistics of the top-level I/O its tasks queued
 */
struct om_group {
	const char *cgroup;
	const struct stats *st;
};

/**
 * struct om_input - what the exposition is made of
 * @st: the statistics, cumulative since the start (never reset: counters
 *	only grow, as Prometheus expects)
 * @groups: with --by cgroup, the statistics per cgroup, @ngroups of them:
 *	    the layer and end-to-end series are then per cgroup (with a
 *	    "cgroup" label) instead of those of @st, so that sums stay right
 * @tk: the tracker's counters (NULL: none)
 * @src: events read and lost per CPU (NULL: none)
 * @devs: the names of the devices, @ndevs of them; a layer without an
 *	  entry is labelled by MAJ:MIN only
 * @version: blkstack's version, for blkstack_info
 * @kernel: the running kernel's release, for blkstack_info
 * @recordings: flight recordings written (blkstack_recordings_total); only
 *		shown when @recorder is set
 * @recorder: the flight recorder is on
 * @openmetrics: OpenMetrics 1.0 (counter families named without _total,
 *		 "# UNIT" lines, "# EOF"); otherwise the text format 0.0.4
 */
struct om_input {
	const struct stats *st;
	const struct om_group *groups;
	size_t ngroups;
	const struct tk_counters *tk;
	const struct source_stats *src;
	const struct om_device *devs;
	size_t ndevs;
	const char *version;
	const char *kernel;
	uint64_t recordings;
	bool recorder;
	bool openmetrics;
};

/**
 * om_hist_buckets - a histogram's cumulative counts at fixed bounds
 * @h: the histogram
 * @bounds: ascending bounds, in the histogram's unit
 * @nbounds: how many
 * @out: @nbounds cumulative counts; the "+Inf" count is @h->count
 *
 * A value is counted at the first bound at or above the low end of its
 * histogram slot (slots are 1/32 of a power of two wide, see hist.h): exact
 * for values below 64 and for bounds that are slot boundaries (powers of
 * two), otherwise a value at most 1/32 above a bound may be counted under it.
 */
void om_hist_buckets(const struct hist *h, const uint64_t *bounds, size_t nbounds,
		     uint64_t *out);

/**
 * out_openmetrics - write the metrics of @in
 * Returns 0, or a negative errno when writing failed.
 */
int out_openmetrics(FILE *fp, const struct om_input *in);

/** om_content_type - the HTTP Content-Type of the format chosen by @openmetrics */
const char *om_content_type(bool openmetrics);

#endif /* BLKSTACK_OUT_OPENMETRICS_H */
