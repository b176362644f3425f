/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ring.h - reading the per-CPU raw ring buffers of a live session.
 *
 * Under load whole sub-buffers are taken with splice, woken by the
 * instance's buffer_percent: read() hands out one page per call however
 * little it holds, and a reader built that way costs several times more CPU
 * at high IOPS. A CPU that filled no page since the last pass is read with
 * read(), which returns a partial page, so that live output stays timely and
 * an idle CPU never holds the merge back.
 */
#ifndef BLKSTACK_RING_H
#define BLKSTACK_RING_H

#include <stddef.h>
#include <stdint.h>

#include "base/source.h"
#include "capture/session.h"
#include "format/decode.h"
#include "track/merge.h"

struct ring;

/**
 * ring_open - open the raw buffers of every CPU of @s
 * @s: an open session
 * @d: decoder for the session's formats
 * @m: merger the decoded events are pushed into
 * Returns the reader, or NULL with errno set.
 */
struct ring *ring_open(struct session *s, struct decoder *d, struct merge *m);

/**
 * ring_read - wait up to @timeout_ms for data and read what is there
 * Full sub-buffers are spliced from every CPU that has them; CPUs that had
 * none are read page by page so that low rates still show up.
 * Returns the number of events decoded (>= 0), or a negative errno. EINTR
 * is not an error: it returns 0 so the caller can look at its flags.
 */
int ring_read(struct ring *r, int timeout_ms);

/**
 * ring_flush - read everything left in every buffer (tracing is stopped)
 * Returns the number of events decoded, or a negative errno.
 */
int ring_flush(struct ring *r);

/**
 * typedef ring_page_fn - takes one raw sub-buffer of @cpu (@size bytes, the
 * sub-buffer size, however little it holds); returns 0, or < 0 to fail the
 * read
 */
typedef int (*ring_page_fn)(void *ctx, int cpu, const void *page, size_t size);

/**
 * ring_set_page_sink - record instead of decode: every sub-buffer read goes
 * to @fn as it is (its records counted, not decoded, nothing pushed to the
 * merge), and ring_read() takes whole sub-buffers only, leaving partial
 * ones to ring_flush()
 */
void ring_set_page_sink(struct ring *r, ring_page_fn fn, void *ctx);

/**
 * ring_set_page_tap - decode and keep: every sub-buffer read is handed to
 * @fn as it is (the rest of a partial one zeroed) before it is decoded, as
 * the flight recorder keeps the last seconds of pages; @fn returning a
 * negative value is a read error (-EIO)
 */
void ring_set_page_tap(struct ring *r, ring_page_fn fn, void *ctx);

/** ring_subbuf_size - the size of one sub-buffer (a recording's page size) */
int ring_subbuf_size(const struct ring *r);

/**
 * ring_stats - per-CPU accounting, with the kernel's overrun and dropped
 * counters refreshed from the instance's stats files
 */
const struct source_stats *ring_stats(struct ring *r);

/** ring_close - close the buffers; NULL is accepted */
void ring_close(struct ring *r);

#endif /* BLKSTACK_RING_H */
