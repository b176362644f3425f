/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blktrace.h - blktrace's binary files from the event stream: one file
 * per CPU, PREFIX.blktrace.N, as blktrace writes them, for blkparse -i
 * PREFIX, btt (after blkparse -d) and iowatcher; or one stream on standard
 * output for blkparse -i -. And a device map for btt -M.
 */
#ifndef BLKSTACK_OUT_BLKTRACE_H
#define BLKSTACK_OUT_BLKTRACE_H

#include <stdint.h>
#include <stdio.h>

#include "base/event.h"

struct bt_out;

/**
 * struct bt_out_stats - what was written
 * @records: event records
 * @notes: process notes (pid to command name)
 * @no_action: events blktrace has no action for (block_rq_error,
 *	       block_io_start, block_io_done), not written
 * @unattributed: plugs and unplugs whose device could not be inferred, not
 *		  written (as in the text log)
 * @ncpu: per-CPU files written (0 for a stream)
 */
struct bt_out_stats {
	uint64_t records;
	uint64_t notes;
	uint64_t no_action;
	uint64_t unattributed;
	int ncpu;
};

/**
 * bt_out_alloc - a writer
 * @prefix: the files are PREFIX.blktrace.0 ... (written under a .partial
 *	    name until bt_out_commit()); NULL or "-": one stream on stdout
 * Returns the writer, or NULL with errno set.
 */
struct bt_out *bt_out_alloc(const char *prefix);

/**
 * bt_out_open - create the files, or more of them
 * @ncpu: CPUs of the recording: that many files are created, empty ones
 *	  included, since blkparse stops at the first missing number; called
 *	  again with a larger count, it adds the missing ones
 * Returns 0 or a negative errno (bt_out_failed_path() names the file).
 */
int bt_out_open(struct bt_out *o, int ncpu);

/** bt_out_failed_path - the file the last error concerns, or NULL */
const char *bt_out_failed_path(const struct bt_out *o);

/**
 * bt_out_set_names - where the name of a task whose first event carries
 * none comes from (a recording's saved_cmdlines): @name_of(@ctx, pid), NULL
 * when unknown. Without it, such a task is noted at its first named event.
 */
void bt_out_set_names(struct bt_out *o, const char *(*name_of)(void *ctx, int32_t pid),
		      void *ctx);

/**
 * bt_out_event - write one event (a blk_event_fn; events in time order)
 * Returns 0, or a negative errno when writing failed.
 */
int bt_out_event(const struct blk_event *ev, void *ctx);

/**
 * bt_out_finish - the end of the events: write the unplugs still held and
 * flush every file
 * Returns 0 or a negative errno.
 */
int bt_out_finish(struct bt_out *o);

/**
 * bt_out_commit - rename every file to its final name, and remove the
 * higher-numbered PREFIX.blktrace.N files of an earlier conversion (blkparse
 * would read them as more CPUs of this one)
 * Returns 0 or a negative errno (bt_out_failed_path() names the file; the
 * .partial files are left then).
 */
int bt_out_commit(struct bt_out *o);

/**
 * bt_out_devmap - btt's device map (btt -M): one line per device seen,
 * "NAME MAJ,MIN", upper layers (sources of remaps) first
 * @name: the device's name into @buf, or NULL when unknown (the name is
 *	  then MAJ:MIN); NULL: all unknown. What btt cannot read is changed:
 *	  a name is cut to 31 bytes, characters other than letters, digits
 *	  and ":.,/_-" become '_', a name holding "Device" (where btt stops
 *	  reading) is replaced by MAJ:MIN
 * Returns 0 or a negative errno.
 */
int bt_out_devmap(const struct bt_out *o, FILE *fp,
		  const char *(*name)(uint32_t dev, char *buf, size_t len, void *ctx),
		  void *ctx);

/** bt_out_stats - what was written so far */
const struct bt_out_stats *bt_out_stats(const struct bt_out *o);

/** bt_out_free - close what is open (keeping .partial files); NULL ok */
void bt_out_free(struct bt_out *o);

#endif /* BLKSTACK_OUT_BLKTRACE_H */
