/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * name-marker.h - the file names a recording carries, as marker text.
 *
 * Page-cache events name a file by device and inode number; on another
 * machine neither /proc nor the filesystem can name it. "blkstack record
 * --page-cache" therefore writes the names it finds into the recording,
 * one "blkstack-file:" marker per file, after the events (tracing stopped,
 * the recorded pages read back: nothing is decoded while recording). The
 * report of the file takes them as its names.
 *
 * The marker text: "blkstack-file: MAJ:MIN INO live|deleted PATH".
 */
#ifndef BLKSTACK_NAME_MARKER_H
#define BLKSTACK_NAME_MARKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a file-name marker starts with. */
#define NAME_MARKER_PREFIX	"blkstack-file: "

/**
 * name_marker_format - the marker text of one file into @buf
 * Returns the length, or -ENAMETOOLONG when it does not fit @len.
 */
int name_marker_format(char *buf, size_t len, uint32_t sdev, uint64_t ino, bool deleted,
		       const char *path);

/**
 * name_marker_parse - one marker's text (after NAME_MARKER_PREFIX), as
 * name_marker_format() wrote it
 * @path: set to the path inside @text (up to @text + @len, not terminated)
 * @pathlen: its length
 * Returns 0, or -EINVAL when @text is not such a marker.
 */
int name_marker_parse(const char *text, size_t len, uint32_t *sdev, uint64_t *ino,
		      bool *deleted, const char **path, size_t *pathlen);

#endif /* BLKSTACK_NAME_MARKER_H */
