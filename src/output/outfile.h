/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - an output file that is only presented as complete when it is.
 *
 * The text goes to FILE.partial; outfile_commit() renames it to FILE. A run
 * that fails on the way (disk full) leaves FILE.partial, never a FILE that
 * looks whole. A path that exists and is not a regular file (/dev/null, a
 * FIFO, a symlink) is written in place.
 *
 * A new file is created mode 0600 (outfile_open_mode() says otherwise):
 * what blkstack writes names processes, pids and, with the page cache,
 * files, and is nobody else's to read.
 */
#ifndef BLKSTACK_OUTFILE_H
#define BLKSTACK_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

/* The mode of every file blkstack creates, unless a caller says otherwise. */
#define OUTFILE_MODE 0600

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
 * outfile_open_mode - outfile_open(), the new file created with exactly
 * @mode (whatever the umask)
 */
int outfile_open_mode(struct outfile *o, const char *path, mode_t mode);

/**
 * outfile_create - create or truncate @path for writing with exactly @mode,
 * never through a symlink (another user's link in a shared directory)
 * Returns the stream, or NULL with errno set.
 */
FILE *outfile_create(const char *path, mode_t mode);

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
