/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefile.h - reading trace.dat files (trace-cmd's, later blkstack's)
 * through libtracecmd.
 */
#ifndef BLKSTACK_TRACEFILE_H
#define BLKSTACK_TRACEFILE_H

#include "decode.h"
#include "merge.h"
#include "source.h"

struct tracefile;

/**
 * tracefile_open - open a trace.dat file and parse its headers
 * @path: the file
 * @err: on failure, a negative errno: -ENOENT/-EACCES from open, -EINVAL
 *	 for a file that is not a trace.dat, -EBADMSG for a trace.dat that
 *	 cannot be read (truncated or corrupt headers, or a version 7 file cut
 *	 short), -ENODATA for a trace.dat without block events
 * Returns the file, or NULL.
 */
struct tracefile *tracefile_open(const char *path, int *err);

/** tracefile_tep - the event formats recorded in the file */
struct tep_handle *tracefile_tep(struct tracefile *f);

/** tracefile_decoder - the decoder built for the file's formats */
const struct decoder *tracefile_decoder(struct tracefile *f);

/**
 * tracefile_read - decode every block event, in time order, into @fn
 * Returns 0, -EINVAL when the data section is corrupt or truncated (events
 * before the damage have been delivered), or the first negative value @fn
 * returned.
 */
int tracefile_read(struct tracefile *f, blk_event_fn fn, void *ctx);

/** tracefile_stats - per-CPU accounting of what tracefile_read() saw */
const struct source_stats *tracefile_stats(struct tracefile *f);

/** tracefile_close - close the file; NULL is accepted */
void tracefile_close(struct tracefile *f);

#endif /* BLKSTACK_TRACEFILE_H */
