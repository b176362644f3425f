/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - an output file that is only presented as complete when it is.
 *
 * The text goes to FILE.partial; outfile_commit() renames it to FILE. A run
 * that fails on the way (disk full) leaves FILE.partial, never a FILE that
 * looks whole. A path that exists and is not a regular file (/dev/null, a
 * FIFO, a symlink) is written in place.
 */
#ifndef BLKSTACK_OUTFILE_H
#define BLKSTACK_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *fp;
	char *path;		/* NULL when written in place (stdout, a device) */
	char *tmp;
};

/**
 * outfile_open - open @path for writing, or standard output when NULL or "-"
 * Returns 0 or a negative errno (the file is not created then).
 */
int outfile_open(struct outfile *o, const char *path);

/**
 * outfile_commit - flush, close and rename into place
 * Returns 0 or a negative errno (the data is then left in the .partial file).
 */
int outfile_commit(struct outfile *o);

/**
 * outfile_abort - close and keep what was written under the .partial name;
 * an empty .partial (nothing could be written: a full disk) is removed
 */
void outfile_abort(struct outfile *o);

/**
 * outfile_write_error - the cause of a failed write to @o: @ret, unless it
 * is the bare -EIO the formatters return for stdio's error flag (which
 * keeps no errno, and library calls after the write clobber errno); then
 * what the destination says: -ENOSPC for a full filesystem or /dev/full,
 * the error of an empty write to a device or pipe, else -EIO.
 */
int outfile_write_error(const struct outfile *o, int ret);

#endif /* BLKSTACK_OUTFILE_H */
