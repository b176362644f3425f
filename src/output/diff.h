/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - two recordings' per-layer figures side by side with the change
 * (blkstack diff): text and JSON.
 */
#ifndef BLKSTACK_OUT_DIFF_H
#define BLKSTACK_OUT_DIFF_H

#include <stdbool.h>
#include <stdio.h>

#include "output/report.h"
#include "track/amp.h"
#include "track/stats.h"
#include "track/topo-record.h"

/**
 * struct diff_side - one recording
 * @label: what it is called in the output (its file name)
 * @stack: where its stack came from ("recorded in it", a --topology
 *	   file), NULL when unknown (its layers are then MAJ:MIN, and are
 *	   matched by number)
 * @st: its statistics
 * @amp: its amplification
 * @names: its stack, NULL when unknown: names the layers and places them
 */
struct diff_side {
	const char *label;
	const char *stack;
	const struct stats *st;
	const struct amp *amp;
	const struct topo_record *names;
};

/**
 * out_diff_text - the layers of A and B paired (track/layermatch.h), then
 * every figure of every layer and operation of either side, the biggest
 * change first
 * @same: A and B are the same file (said at the top)
 * Returns 0, -ENOMEM or -EIO.
 */
int out_diff_text(FILE *fp, const struct diff_side *a, const struct diff_side *b, bool same);

/** out_diff_json - the same as one JSON document. Returns 0, -ENOMEM or -EIO. */
int out_diff_json(FILE *fp, const struct diff_side *a, const struct diff_side *b, bool same);

#endif /* BLKSTACK_OUT_DIFF_H */
