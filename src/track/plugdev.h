/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugdev.h - the device of plug and unplug events, and whether an unplug
 * was explicit (blkparse's U) or a flush on the way to sleep (UT).
 *
 * block_plug and block_unplug name no device and no reason, where blktrace
 * records both. This stage takes the merged event stream and hands each
 * event on with the device it belongs to, holding an unplug back until the
 * events after it tell which queue it flushed. The text log
 * (output/blkparse.c) and the blktrace files both take their plugs and
 * unplugs from here, so blkparse shows the same ones in both.
 */
#ifndef BLKSTACK_PLUGDEV_H
#define BLKSTACK_PLUGDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "base/event.h"

/**
 * typedef plugdev_fn - consumer of the attributed stream
 * @ev: the event (for held events, a copy valid during the call)
 * @dev: its device: @ev->dev for most events, the inferred queue for plugs
 *	 and unplugs, 0 when it could not be inferred
 * @timer: an unplug that flushed a plug because its task went to sleep
 * @ctx: as given to plugdev_alloc()
 * Returns 0, or a negative errno that stops the stream.
 */
typedef int (*plugdev_fn)(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx);

struct plugdev;

/**
 * plugdev_alloc - an attribution stage handing events to @fn
 * Returns the stage, or NULL with errno set.
 */
struct plugdev *plugdev_alloc(plugdev_fn fn, void *ctx);

/**
 * plugdev_letters_only - the consumer takes only events with a blkparse
 * letter: the others are not handed on
 * @p: the stage
 *
 * They are still followed (their task, and an unplug waits behind them as
 * before), so what the consumer is given is the same, less those events.
 * The text log skips a quarter of a recording's records this way (a
 * kernel's block_io_start and block_io_done).
 */
void plugdev_letters_only(struct plugdev *p);

/** plugdev_free - release the stage; NULL is accepted */
void plugdev_free(struct plugdev *p);

/**
 * plugdev_event - take one event, in time order (a blk_event_fn)
 * @ev: the event
 * @ctx: the struct plugdev
 * Returns 0 or the first negative value the consumer returned.
 */
int plugdev_event(const struct blk_event *ev, void *ctx);

/**
 * plugdev_finish - the end of the stream: hand on the unplugs still
 * waiting for the event that would have told their queue
 * Returns 0 or the consumer's negative value.
 */
int plugdev_finish(struct plugdev *p);

/**
 * plugdev_held_from - the time of the oldest event the stage still holds,
 * UINT64_MAX when none: nothing it hands on later is older
 */
uint64_t plugdev_held_from(const struct plugdev *p);

#endif /* BLKSTACK_PLUGDEV_H */
