/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring.h - reading the per-CPU raw ring buffers of a live session, a
 * thread per CPU (or per group of CPUs), as trace-cmd runs a recorder per
 * CPU: one reader for every CPU lost most events on 16 CPUs where
 * trace-cmd lost none.
 *
 * Each thread takes whole sub-buffers of its CPUs with splice, woken by
 * the instance's buffer_percent (read() hands out one page per call
 * however little it holds, and a reader built that way cost several
 * times more CPU at high IOPS); a CPU that filled no sub-buffer is read
 * with read(), which returns a partial page, so that live output stays
 * timely and an idle CPU never holds the merge back. Recording, the pages
 * go from the kernel to the recording's files without passing through
 * user space. Otherwise each thread decodes its CPUs' pages into batches
 * of events, a few per CPU (RING_BATCHES), which the caller's thread
 * merges: when the caller falls behind, the threads stop reading, the
 * kernel's buffer overruns, and the loss is counted per CPU where it
 * happened. Memory stays at those batches whatever the rate.
 */
#ifndef BLKSTACK_RING_H
#define BLKSTACK_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/source.h"
#include "capture/session.h"
#include "track/merge.h"

/* Events per batch, and batches per CPU (one filled, queued ones, one merged). */
#define RING_BATCH_EVENTS	2048
#define RING_BATCHES		4

struct ring;

/**
 * ring_open - open the raw buffers of every CPU of @s
 * @s: an open session
 * @m: merger the decoded events are pushed into (one stream per CPU)
 * Returns the reader, or NULL with errno set. No thread runs yet.
 */
struct ring *ring_open(struct session *s, struct merge *m);

/**
 * ring_set_threads - read with @n threads (0: one per CPU, at most one
 * per online CPU); CPU c is read by thread c % n. Before the first read.
 */
void ring_set_threads(struct ring *r, int n);

/**
 * ring_set_loss_marks - put a mark (lostevent.h) in a CPU's stream where
 * the kernel says events were lost, for a consumer that follows I/Os
 */
void ring_set_loss_marks(struct ring *r, bool on);

/**
 * ring_read - wait up to @timeout_ms for the threads to have read
 * something, and queue what they decoded in the merge
 * Returns the number of events queued (>= 0), or a negative errno of a
 * read. A signal ends the wait early (0 is returned).
 */
int ring_read(struct ring *r, int timeout_ms);

/**
 * ring_flush - with tracing on: read what every buffer holds now, partial
 * pages too, into the merge (and the tap) before returning
 * Returns the number of events queued, or a negative errno.
 */
int ring_flush(struct ring *r);

/**
 * ring_stop - tracing was stopped: the threads read every buffer to its
 * end (partial pages too) and end; ring_read() hands out the rest until
 * ring_done()
 */
void ring_stop(struct ring *r);

/** ring_done - after ring_stop(), every CPU read to its end and handed out */
bool ring_done(struct ring *r);

/**
 * typedef ring_page_fn - takes one raw sub-buffer of @cpu (@size bytes, the
 * sub-buffer size, the rest of a partial page zeroed); returns 0, or < 0
 * to fail the read
 */
typedef int (*ring_page_fn)(void *ctx, int cpu, const void *page, size_t size);

/**
 * ring_set_spill - record instead of decode: the sub-buffers of CPU c go
 * to @fds[c] as they are, spliced from the kernel without a copy in user
 * space (whole sub-buffers while tracing, the partial ones, padded, after
 * ring_stop()); nothing is decoded or merged. The events are the
 * kernel's count of those read. @fds is copied.
 */
void ring_set_spill(struct ring *r, const int *fds);

/**
 * ring_spill_error - the first write error of a spill (a negative errno,
 * its CPU's spilling stopped), or 0
 */
int ring_spill_error(struct ring *r);

/**
 * ring_set_page_tap - decode and keep: every sub-buffer read is handed to
 * @fn as it is, in the caller's thread, before its events are merged, as
 * the flight recorder keeps the last seconds of pages; @fn returning a
 * negative value is a read error (-EIO)
 */
void ring_set_page_tap(struct ring *r, ring_page_fn fn, void *ctx);

/** ring_subbuf_size - the size of one sub-buffer (a recording's page size) */
int ring_subbuf_size(const struct ring *r);

/**
 * ring_memory - the most bytes the batches can take (RING_BATCHES per CPU,
 * the pages kept for a tap with them) and the threads' buffers: what
 * reading adds to the kernel's ring buffers, whatever the rate
 */
size_t ring_memory(const struct ring *r);

/**
 * ring_stats - per-CPU accounting as the threads last published it, with
 * the kernel's overrun and dropped counters refreshed from the instance's
 * stats files
 */
const struct source_stats *ring_stats(struct ring *r);

/** ring_close - stop the threads, close the buffers; NULL is accepted */
void ring_close(struct ring *r);

#endif /* BLKSTACK_RING_H */
