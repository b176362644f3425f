/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * iostat.h - iostat -x's table of track/iostat.h's accounting: sysstat's
 * column names, units and widths, one row per layer (device) of the stack.
 */
#ifndef BLKSTACK_OUT_IOSTAT_H
#define BLKSTACK_OUT_IOSTAT_H

#include <stdio.h>

#include "output/report.h"
#include "track/iostat.h"

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

/** out_iostat_json - the same as one JSON object. Returns 0 or -EIO. */
int out_iostat_json(FILE *fp, const struct iostat *s, uint64_t start, uint64_t end,
		    report_name_fn name, void *ctx);

#endif /* BLKSTACK_OUT_IOSTAT_H */
