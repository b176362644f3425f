/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt.h - btt's report of track/btt.h's statistics: as btt -A prints it
 * (the same sections, names, units and columns, so that scripts written
 * for btt's output read it), and as one JSON document.
 */
#ifndef BLKSTACK_OUT_BTT_H
#define BLKSTACK_OUT_BTT_H

#include <stdio.h>

#include "track/btt.h"

/** out_btt_text - btt -A's report. Returns 0 or -errno (a write error). */
int out_btt_text(FILE *fp, const struct btt *b);

/** out_btt_json - the same figures as one JSON object (times in ns).
 * Returns 0 or -errno. */
int out_btt_json(FILE *fp, const struct btt *b);

#endif /* BLKSTACK_OUT_BTT_H */
