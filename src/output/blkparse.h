/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blkparse.h - the text log in blkparse's default format, and the
 * per-device summary blkparse prints at the end.
 */
#ifndef BLKSTACK_OUT_BLKPARSE_H
#define BLKSTACK_OUT_BLKPARSE_H

#include <stdio.h>

#include "base/event.h"
#include "base/source.h"

struct blkparse_out;

/**
 * struct blkparse_filter - which events to print
 * @has: predicate on a device (NULL: every device); asked once per device
 *	 and CPU, so its answer for a device must not change
 * @ctx: passed to @has
 */
struct blkparse_filter {
	int (*has)(const void *ctx, uint32_t dev);
	const void *ctx;
};

/**
 * blkparse_out_alloc - a formatter writing to @fp
 * @fp: the output stream (buffered by the formatter itself)
 * @filter: optional device filter (applied to plug/unplug, whose device
 *	    is inferred, and to everything when the kernel could not filter)
 * Returns the formatter or NULL with errno set.
 */
struct blkparse_out *blkparse_out_alloc(FILE *fp, const struct blkparse_filter *filter);

/**
 * blkparse_out_event - format one event (a blk_event_fn)
 * @ev: the event
 * @ctx: the struct blkparse_out
 * Returns 0, or -errno when writing failed (-EPIPE when the reader left).
 */
int blkparse_out_event(const struct blk_event *ev, void *ctx);

/**
 * blkparse_out_finish - the end of the events: write out the unplugs still
 * waiting for their queue's next request, then the buffered text
 * Returns 0 or -errno.
 */
int blkparse_out_finish(struct blkparse_out *o);

/**
 * blkparse_out_flush - write out buffered text
 * Returns 0 or -errno.
 */
int blkparse_out_flush(struct blkparse_out *o);

/**
 * blkparse_out_summary - per device and action counts and KiB, then events
 * lost per CPU, as blkparse ends its output
 * @o: the formatter (its counters)
 * @fp: where to print the summary
 * @st: per-CPU accounting of the source, or NULL
 */
void blkparse_out_summary(struct blkparse_out *o, FILE *fp, const struct source_stats *st);

/** blkparse_out_lines - lines written so far */
uint64_t blkparse_out_lines(const struct blkparse_out *o);

/** blkparse_out_free - release the formatter (does not close @fp); NULL ok */
void blkparse_out_free(struct blkparse_out *o);

#endif /* BLKSTACK_OUT_BLKPARSE_H */
