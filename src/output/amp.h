/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * amp.h - the amplification table of report --amplification, as text and
 * as a JSON object for the report's document.
 */
#ifndef BLKSTACK_OUT_AMP_H
#define BLKSTACK_OUT_AMP_H

#include <json-c/json.h>
#include <stdio.h>

#include "output/report.h"
#include "track/amp.h"

/**
 * out_amp_text - the table of @r->amp, one row per layer, named and in
 * the stack's order as the report's other tables. Returns 0 or -EIO.
 */
int out_amp_text(FILE *fp, const struct report *r);

/** out_amp_json - the same as a new JSON object (the caller owns it) */
json_object *out_amp_json(const struct report *r);

#endif /* BLKSTACK_OUT_AMP_H */
