/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * chunkring.h - the compressed chunks of one stream of a version 7 file,
 * decompressed ahead of its page walk by any thread, handed to the walk in
 * order.
 *
 * Decompressing costs more than walking and decoding the pages it gives
 * (libzstd is most of a v7 read), and one CPU's stream often holds most of
 * a recording's chunks: its walker alone would keep one core busy while
 * the others wait. A ring lets the threads that have nothing to decode
 * decompress that stream's next chunks meanwhile, several at once.
 *
 * Memory stays at @slots chunks per stream: a chunk is claimed only when
 * its slot is free. The walk takes the chunks in the stream's order and
 * stops at the first one damaged, wherever the threads got to beyond it,
 * exactly where a walk that decompresses one chunk after the other stops.
 */
#ifndef BLKSTACK_CHUNKRING_H
#define BLKSTACK_CHUNKRING_H

#include <stddef.h>
#include <stdint.h>

#include "format/datfile.h"
#include "format/unzip.h"

struct chunkring;

/**
 * chunkring_alloc - a ring for the compressed stream @ds of a mapped file
 * @map: the mapped file
 * @layout: its layout, from datfile_layout_parse()
 * @ds: one of its compressed streams
 * @slots: chunks decompressed ahead at most, the one being walked included
 *	   (at least 2)
 * Returns the ring, or NULL with errno set (ENOMEM, EINVAL).
 */
struct chunkring *chunkring_alloc(const uint8_t *map, const struct datfile_layout *layout,
				  const struct datfile_stream *ds, unsigned int slots);

/**
 * chunkring_take - the stream's next chunk, for its one walker: ready, or
 * waited for while another thread decompresses it, or decompressed here
 * with @u when no thread has claimed it. The chunk taken before is given
 * back: its slot may be filled again.
 * @r: the ring
 * @u: the walker's decompression context
 * @chunk: set to the chunk's pages, valid until the next call
 * @len: set to their bytes
 * Returns 1, 0 at the end of the stream's data (its end, or the end of what
 * a truncated file holds), or -1 at a damaged chunk (and at every later call).
 */
int chunkring_take(struct chunkring *r, struct unzip *u, const uint8_t **chunk, size_t *len);

/** chunkring_take_from - chunkring_take() for datpages_attach(): @from is the ring */
int chunkring_take_from(void *from, struct unzip *u, const uint8_t **chunk, size_t *len);

/**
 * chunkring_fill - decompress, with @u, the first chunk no thread has
 * claimed, when a slot is free for it
 * Returns 1 when a chunk was decompressed (or found damaged), 0 when there
 * was none to claim: the ring is full, or every chunk was claimed.
 */
int chunkring_fill(struct chunkring *r, struct unzip *u);

/** chunkring_free - release the ring, no thread using it; NULL is accepted */
void chunkring_free(struct chunkring *r);

#endif /* BLKSTACK_CHUNKRING_H */
