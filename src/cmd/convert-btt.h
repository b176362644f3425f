/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * convert-btt.h - "blkstack convert --to btt-data -o DIR": btt's data files
 * for plotting (its -l -q -z -Q -s -m -B files, and the iops and mbps
 * files it always writes) per device of a recording.
 */
#ifndef BLKSTACK_CMD_CONVERT_BTT_H
#define BLKSTACK_CMD_CONVERT_BTT_H

#include "format/tracefile.h"

/**
 * convert_btt_data - read @f (named @input in messages) into btt's files
 * in @dir. Says what failed. Returns an exit code.
 */
int convert_btt_data(const char *input, struct tracefile *f, const char *dir);

#endif /* BLKSTACK_CMD_CONVERT_BTT_H */
