/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tickevent.h - the kernel's tick in the event stream: the jiffies count
 * at a time of the trace clock, from timer:timer_expire_entry ("now").
 *
 * The kernel counts a disk's busy time (diskstats' io_ticks, iostat's
 * %util) in whole jiffies: what a start or completion adds depends on
 * which tick it falls after. The block events do not say where the ticks
 * are; a timer expiring does, a few microseconds after the tick that ran
 * it. Its kind follows the page-cache kinds, so that the one decoder and
 * merged stream carry it and a consumer that switches on kinds ignores it.
 */
#ifndef BLKSTACK_TICKEVENT_H
#define BLKSTACK_TICKEVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/pcevent.h"

enum tick_kind {
	TICK_EV_TIMER = PC_EV_KIND_MAX,	/* timer:timer_expire_entry */
	TICK_EV_KIND_MAX
};

#define TICK_EV_SYSTEM	"timer"
#define TICK_EV_NAME	"timer_expire_entry"

/** tick_kind_is - whether an event kind is the tick's */
static inline bool tick_kind_is(unsigned int kind)
{
	return kind == TICK_EV_TIMER;
}

/* The jiffies the tick event read ("now"), kept in sector. */
static inline uint64_t tick_ev_jiffies(const struct blk_event *ev)
{
	return ev->sector;
}

#endif
