/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tieorder.h - events of equal time put in the order btt reads them.
 *
 * btt reads what blkparse -d wrote, and blkparse merges the per-CPU files
 * of a prefix (convert --to blktrace's, blktrace's of one device) as a list
 * of streams in time order, where a tie is not broken by CPU number: the
 * stream that gave the last record keeps going while its next record is
 * not later than the next stream's, and a stream put back in the list goes
 * before the streams already waiting at its time. So of the CPUs with a
 * record at one time, the one whose last record went most recently comes
 * first, each CPU's records together. CPUs with no record gone yet keep the
 * order blkparse gave them on opening the files, CPU by CPU: each before
 * those already there of its time, or right after the list's first when
 * that one is of its time.
 * The order decides btt's seek distances and the times between bios: this
 * stage, behind timeorder (time order, ties as they came), gives btt that
 * order.
 */
#ifndef BLKSTACK_TIEORDER_H
#define BLKSTACK_TIEORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/event.h"
#include "track/plugdev.h"

/* Events of one time kept at most; past that they go on as ordered so far. */
#define TIEORDER_MAX (1U << 15)

/**
 * typedef tieorder_recorded_fn - whether blktrace's files hold a record of
 * @ev (blkparse's streams hold records only; @dev and @timer as plugdev
 * gives them)
 */
typedef bool (*tieorder_recorded_fn)(const struct blk_event *ev, uint32_t dev, bool timer);

struct tieorder;

/**
 * tieorder_alloc - a stage handing events to @fn, ties in blkparse's order
 * @recorded: which events are records in blkparse's streams
 * Returns the stage, or NULL with errno set.
 */
struct tieorder *tieorder_alloc(plugdev_fn fn, void *ctx, tieorder_recorded_fn recorded);

/** tieorder_free - release the stage; NULL is accepted */
void tieorder_free(struct tieorder *t);

/**
 * tieorder_event - take one event, in time order (a plugdev_fn, @ctx the
 * struct tieorder); the events of one time go on once a later one comes
 * Returns 0, or the consumer's negative value.
 */
int tieorder_event(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx);

/**
 * tieorder_finish - end of the stream: hand on the events kept
 * Returns 0, or the consumer's negative value.
 */
int tieorder_finish(struct tieorder *t);

#endif /* BLKSTACK_TIEORDER_H */
