/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iostat.h - iostat -x's table of track/iostat.h's accounting: sysstat's
 * column names, units and widths, one row per layer (device) of the stack.
 */
#ifndef BLKSTACK_OUT_IOSTAT_H
#define BLKSTACK_OUT_IOSTAT_H

#include <stdbool.h>
#include <stdio.h>

#include "output/report.h"
#include "track/iostat.h"

/**
 * struct iostat_basis - what %util takes of the traced kernel, and whether
 * the trace said it or it was assumed
 * @release: the kernel's release; "" when the trace does not say it
 * @from: where @release and @hz were read ("the recording", "this machine")
 * @started: the kernel counts a device busy while requests are started
 *	     (6.16 and later), else while they are issued
 * @started_assumed: @release is unknown: issued requests assumed
 * @hz: CONFIG_HZ, whose ticks busy time is counted in
 * @hz_given: --hz gave @hz
 * @hz_assumed: neither --hz nor the trace gave it: a common value assumed
 */
struct iostat_basis {
	const char *release;
	const char *from;
	bool started;
	bool started_assumed;
	unsigned int hz;
	bool hz_given;
	bool hz_assumed;
};

/**
 * out_iostat_basis_text - a note per assumption of @b, nothing when the
 * trace said it all
 * Returns 0 or -EIO.
 */
int out_iostat_basis_text(FILE *fp, const struct iostat_basis *b);

/**
 * out_iostat_text - iostat -x -d's table for one interval
 * @fp: where to write
 * @s: the accounting of the interval
 * @start, @end: the interval (ns)
 * @name: device names, NULL for MAJ:MIN; @ctx is passed to it
 * @header: print the column header line
 *
 * A column with no meaning at a layer is a dash: the merge columns of a
 * bio-based device (device-mapper, md, zram merge no bios).
 * Returns 0 or -EIO.
 */
int out_iostat_text(FILE *fp, const struct iostat *s, uint64_t start, uint64_t end,
		    report_name_fn name, void *ctx, bool header);

/**
 * out_iostat_json - the same as one JSON object, with @b as its "kernel"
 * Returns 0 or -EIO.
 */
int out_iostat_json(FILE *fp, const struct iostat *s, uint64_t start, uint64_t end,
		    report_name_fn name, void *ctx, const struct iostat_basis *b);

#endif /* BLKSTACK_OUT_IOSTAT_H */
