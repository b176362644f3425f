/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record-names.h - the file names a recording carries.
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
#ifndef BLKSTACK_RECORD_NAMES_H
#define BLKSTACK_RECORD_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pc_run;
struct decoder;
struct tracefs_instance;

/* What a file-name marker starts with. */
#define RECORD_NAME_PREFIX	"blkstack-file: "

/**
 * record_names_scan - hand the events of spilled ring pages to @run (its
 * attribution learns every file the recording touched)
 * @spill: per CPU, the file of its pages (read from the start; may be NULL)
 * @bytes: per CPU, how many bytes of pages
 * @ncpu: CPUs
 * @page_size: the sub-buffer size
 * @long_size: the kernel's long (4 or 8)
 * @dec: the decoder of this kernel's events
 * Returns 0, or a negative errno (a read error of a spill file, -ENOMEM).
 */
int record_names_scan(struct pc_run *run, FILE *const *spill, const uint64_t *bytes, int ncpu,
		      uint32_t page_size, int long_size, struct decoder *dec);

/**
 * record_names_format - the marker text of one file into @buf
 * Returns the length, or -ENAMETOOLONG when it does not fit @len.
 */
int record_names_format(char *buf, size_t len, uint32_t sdev, uint64_t ino, bool deleted,
			const char *path);

/**
 * record_names_parse - one marker's text (after RECORD_NAME_PREFIX), as
 * record_names_format() wrote it
 * @path: set to the path inside @text (up to @text + @len, not terminated)
 * @pathlen: its length
 * Returns 0, or -EINVAL when @text is not such a marker.
 */
int record_names_parse(const char *text, size_t len, uint32_t *sdev, uint64_t *ino,
		       bool *deleted, const char **path, size_t *pathlen);

/**
 * record_names_write - one marker per named file of @run into @inst's
 * trace_marker (tracing must be on)
 * @written: how many were written
 * @skipped: how many names were too long for a marker
 * Returns 0 or a negative errno.
 */
int record_names_write(struct tracefs_instance *inst, const struct pc_run *run,
		       size_t *written, size_t *skipped);

#endif /* BLKSTACK_RECORD_NAMES_H */
