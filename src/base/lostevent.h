/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lostevent.h - a stretch of a CPU's events lost in its ring buffer, as a
 * mark in the event stream.
 *
 * The kernel tells a reader that events were lost by a flag on the first
 * sub-buffer after them (with their count when the page had room for it):
 * they were recorded after the last event read from that CPU and before
 * that page's time stamp. A reader asked for marks puts one in the CPU's
 * stream at the last event read before the gap, so that in the merged
 * stream it comes before anything later than where the loss can have
 * started: a consumer that follows I/Os learns which ones may have lost
 * an event (any whose life meets the stretch) and leaves them out of its
 * figures rather than count them hollow. Its kind follows the tick's,
 * so that a consumer that switches on kinds ignores it.
 */
#ifndef BLKSTACK_LOSTEVENT_H
#define BLKSTACK_LOSTEVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/event.h"
#include "base/tickevent.h"

enum lost_kind {
	LOST_EV_MARK = TICK_EV_KIND_MAX,	/* events of one CPU lost between two times */
	LOST_EV_KIND_MAX
};

/** lost_kind_is - whether an event kind is a loss mark */
static inline bool lost_kind_is(unsigned int kind)
{
	return kind == LOST_EV_MARK;
}

/**
 * lost_mark_fill - @ev as the mark of events lost on @cpu
 * @from: the time of the last event read from @cpu before the loss (0
 *	  when none was): the mark's time, so that it stays in the CPU's order
 * @until: the time stamp of the page that told of the loss, that of its
 *	   first event: the lost ones came before it
 * @count: the events lost, 0 when the page did not say
 */
static inline void lost_mark_fill(struct blk_event *ev, int cpu, uint64_t from, uint64_t until,
				  uint64_t count)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = LOST_EV_MARK;
	ev->cpu = cpu;
	ev->ts = from;
	ev->aux_sector = until > from ? until : from;
	ev->count = count > UINT32_MAX ? UINT32_MAX : (uint32_t)count;
}

/** lost_mark_until - the end of the stretch a mark tells of */
static inline uint64_t lost_mark_until(const struct blk_event *ev)
{
	return ev->aux_sector;
}

#endif /* BLKSTACK_LOSTEVENT_H */
