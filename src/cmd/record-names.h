/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record-names.h - the file names "blkstack record --page-cache" writes
 * into its recording: the spilled pages read back for the files they
 * touched, and one marker per named file (format/name-marker.h). Command
 * glue: it drives the page-cache run and the session's trace_marker.
 */
#ifndef BLKSTACK_RECORD_NAMES_H
#define BLKSTACK_RECORD_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pc_run;
struct decoder;
struct tracefs_instance;

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
 * record_names_write - one marker per named file of @run into @inst's
 * trace_marker (tracing must be on)
 * @written: how many were written
 * @skipped: how many names were too long for a marker
 * Returns 0 or a negative errno.
 */
int record_names_write(struct tracefs_instance *inst, const struct pc_run *run,
		       size_t *written, size_t *skipped);

#endif /* BLKSTACK_RECORD_NAMES_H */
