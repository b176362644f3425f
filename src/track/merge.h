/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * merge.h - per-CPU event streams into one stream in time order.
 *
 * Each CPU's ring buffer is in time order on its own; the streams are merged
 * by timestamp, ties broken by CPU and then by arrival. An event is released
 * only once every other CPU is known to have nothing earlier: a CPU with
 * queued events is bounded by its next event, an empty CPU by the last point
 * it was known to have reached (its last event, or "now minus a slack" after
 * a read found it drained), so an idle CPU does not hold the others back.
 */
#ifndef BLKSTACK_MERGE_H
#define BLKSTACK_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/event.h"

struct merge;

/**
 * typedef blk_event_fn - consumer of merged events
 * Returns 0 to go on, or a negative errno to stop the drain (it is passed
 * back to the caller of merge_drain()).
 */
typedef int (*blk_event_fn)(const struct blk_event *ev, void *ctx);

/**
 * merge_alloc - a merger for @ncpu streams (one per CPU, or per buffer and CPU)
 * Returns the merger, or NULL with errno set.
 */
struct merge *merge_alloc(unsigned int ncpu);

/** merge_free - release a merger; NULL is accepted */
void merge_free(struct merge *m);

/**
 * merge_push - queue an event on a stream
 * @stream: the stream, usually the CPU (a file with several buffers has a
 *	    stream per buffer and CPU); ties are broken by stream number
 * Events of one stream must be pushed in time order; an event older than
 * one already pushed on that stream is clamped to keep the stream ordered
 * and counted (merge_reordered()).
 * Returns 0, -EINVAL for a stream out of range, or -ENOMEM.
 */
int merge_push(struct merge *m, unsigned int stream, const struct blk_event *ev);

/**
 * merge_slot - the slot the next event of @stream goes to, to decode into
 * it in place; merge_commit() queues it, anything else leaves it unused
 * Returns NULL for a stream out of range or when memory runs out.
 */
struct blk_event *merge_slot(struct merge *m, unsigned int stream);

/** merge_commit - queue the event written into merge_slot()'s slot */
void merge_commit(struct merge *m, unsigned int stream);

/**
 * merge_reserve - room for the next events of @stream, to decode a run of
 * them in place: the first slot, and in @room how many follow it in one
 * array (at least 1); merge_commit_n() queues the first n of them
 * Returns NULL for a stream out of range or when memory runs out.
 */
struct blk_event *merge_reserve(struct merge *m, unsigned int stream, unsigned int *room);

/**
 * merge_commit_n - queue the @n events written from merge_reserve()'s slot
 * @ordered: the caller knows the @n events to be in time order among
 *	     themselves; only the first is then compared with the stream's last
 */
void merge_commit_n(struct merge *m, unsigned int stream, unsigned int n, bool ordered);

/**
 * merge_lend - queue @n events of an empty @stream where they are, in @ev
 * @ordered: as for merge_commit_n()
 *
 * The array stays the caller's: it must stay valid, and nothing else be
 * queued on @stream, until the stream has drained (merge_stream_len() is
 * 0). Times are clamped in place as merge_push() would.
 * Returns 0, -EINVAL for a stream out of range, -EBUSY when @stream holds
 * events.
 */
int merge_lend(struct merge *m, unsigned int stream, struct blk_event *ev, unsigned int n,
	       bool ordered);

/** merge_stream_len - events queued on @stream */
size_t merge_stream_len(const struct merge *m, unsigned int stream);

/**
 * merge_reached - tell that @stream will produce nothing earlier than @ts
 * Used when a read found the CPU drained. Going backwards is ignored.
 */
void merge_reached(struct merge *m, unsigned int stream, uint64_t ts);

/**
 * merge_end - tell that @stream has ended: it holds back no other stream,
 * whatever the times of the events still queued on it or on the others
 * (an ended stream is not "reached UINT64_MAX": events can be at that time)
 */
void merge_end(struct merge *m, unsigned int stream);

/**
 * merge_drain - hand released events, in order, to @fn
 * @final: release everything queued (the end of the trace)
 * Returns 0, or the first negative value @fn returned.
 */
int merge_drain(struct merge *m, bool final, blk_event_fn fn, void *ctx);

/** merge_queued - events queued and not yet released */
uint64_t merge_queued(const struct merge *m);

/** merge_reordered - events that arrived out of order on their CPU */
uint64_t merge_reordered(const struct merge *m);

#endif /* BLKSTACK_MERGE_H */
