/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - two recordings' per-layer figures side by side with the change
 * (blkstack diff): text and JSON.
 */
#ifndef BLKSTACK_OUT_DIFF_H
#define BLKSTACK_OUT_DIFF_H

#include <stdio.h>

#include "output/report.h"
#include "track/amp.h"
#include "track/stats.h"

/**
 * struct diff_side - one recording
 * @label: what it is called in the output (its file name)
 * @st: its statistics
 * @amp: its amplification
 * @name: device names (NULL: MAJ:MIN), @name_ctx passed to it
 */
struct diff_side {
	const char *label;
	const struct stats *st;
	const struct amp *amp;
	report_name_fn name;
	void *name_ctx;
};

/** out_diff_text - the table of every layer and operation of either side.
 * Returns 0 or -EIO. */
int out_diff_text(FILE *fp, const struct diff_side *a, const struct diff_side *b);

/** out_diff_json - the same as one JSON document. Returns 0 or -EIO. */
int out_diff_json(FILE *fp, const struct diff_side *a, const struct diff_side *b);

#endif /* BLKSTACK_OUT_DIFF_H */
