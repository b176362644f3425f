/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeorder.h - plugdev's stream put back in time order.
 *
 * plugdev (track/plugdev.h) holds an unplug, and what follows it on its
 * CPU, until the next event of that CPU names its queue; the other CPUs'
 * events go on meanwhile. A consumer that must see the events in time
 * order, as btt sees them after blkparse sorted them, puts this stage
 * behind plugdev: it keeps what plugdev hands on, and lets an event go
 * only once nothing plugdev still holds can come before it.
 */
#ifndef BLKSTACK_TIMEORDER_H
#define BLKSTACK_TIMEORDER_H

#include <stdint.h>

#include "base/event.h"
#include "track/plugdev.h"

/* Events kept at most; past that the oldest goes on, in order or not. */
#define TIMEORDER_MAX (1U << 15)

struct timeorder;

/**
 * timeorder_alloc - a stage handing events to @fn in time order
 * Returns the stage, or NULL with errno set.
 */
struct timeorder *timeorder_alloc(plugdev_fn fn, void *ctx);

/** timeorder_free - release the stage; NULL is accepted */
void timeorder_free(struct timeorder *t);

/**
 * timeorder_event - keep one event from plugdev (a plugdev_fn, @ctx the
 * struct timeorder)
 * Returns 0, or the consumer's negative value.
 */
int timeorder_event(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx);

/**
 * timeorder_watch - let events go straight on while @src holds no unplug
 * from before them and nothing is kept (the common case costs no heap)
 */
void timeorder_watch(struct timeorder *t, const struct plugdev *src);

/**
 * timeorder_release - hand on, oldest first (equal times in the order they
 * came), every event kept from before @bound: plugdev_held_from() after
 * each event given to plugdev, UINT64_MAX at the end of the stream
 * Returns 0, or the consumer's negative value.
 */
int timeorder_release(struct timeorder *t, uint64_t bound);

#endif /* BLKSTACK_TIMEORDER_H */
