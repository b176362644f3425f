/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt-data.h - btt's data files for plotting, from track/btt.h's sink: the
 * files btt writes with -l d2c -q q2c -z q2d -Q aqd -s seek -m sps -B bno,
 * and the I/Os and MiB per second it writes always, with btt's names
 * ("d2c_8,0_d2c.dat", "seek_8,0_q2q_r.dat", "sps_8,0.dat",
 * "8,0_iops_fp.dat", "sys_mbps_fp.dat") and columns, one set per device of
 * the stack, in one directory.
 */
#ifndef BLKSTACK_OUT_BTT_DATA_H
#define BLKSTACK_OUT_BTT_DATA_H

#include "track/btt.h"

struct btt_data;

/**
 * btt_data_alloc - files in directory @dir (created if missing), each
 * written as NAME.partial and renamed by btt_data_commit()
 * Returns the writer, or NULL with errno set.
 */
struct btt_data *btt_data_alloc(const char *dir);

/** btt_data_sink - the sink to give btt_set_sink(); @b gives the time base
 * and, at the end, the devices btt saw */
const struct btt_sink *btt_data_sink(struct btt_data *w, const struct btt *b);

/**
 * btt_data_commit - the trace ended: write the rows btt writes at its
 * end, close every file and give it its name (a file left empty is
 * removed, as btt removes it)
 * Returns the number of files, or a negative errno (the first write error;
 * btt_data_failed() names the file).
 */
int btt_data_commit(struct btt_data *w);

/** btt_data_failed - the file of the first error, or NULL */
const char *btt_data_failed(const struct btt_data *w);

/** btt_data_free - close and remove what was not committed; NULL accepted */
void btt_data_free(struct btt_data *w);

#endif /* BLKSTACK_OUT_BTT_DATA_H */
