/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datpages.h - the ring-buffer pages of one CPU of a mapped trace.dat, in
 * order: straight from the mapping (version 6, uncompressed version 7) or
 * read from the file a window at a time (the same, on tmpfs), or
 * decompressed one chunk at a time (compressed version 7).
 *
 * Memory stays at one chunk (trace-cmd writes ten pages a chunk) whatever
 * the file's length: the chunk buffer is reused, and the mapped bytes
 * already read are handed back to the kernel as the walk goes. A walk may
 * instead take its chunks, decompressed, from elsewhere: a ring that other
 * threads fill ahead of it (chunkring.h).
 */
#ifndef BLKSTACK_DATPAGES_H
#define BLKSTACK_DATPAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/datfile.h"
#include "format/unzip.h"

/*
 * Where an attached walk takes its chunks (chunkring_take_from()): 1 and the
 * next chunk's pages, valid until the next call; 0 at the stream's end; -1
 * at a damaged chunk. @u is the walk's context, for a chunk it must
 * decompress itself.
 */
typedef int datpages_take_fn(void *from, struct unzip *u, const uint8_t **chunk, size_t *len);

/**
 * struct datpages - where the walk of one stream is
 * @map: the whole file
 * @fd: the file, when uncompressed pages are read with pread() into @win
 *	instead of through @map; -1 to use @map
 * @layout: its layout
 * @ds: the stream walked
 * @next: offset in the stream of the next page (uncompressed) or chunk
 * @dropped: the stream's bytes before this offset were handed back
 * @populated: the stream's bytes before this offset are mapped in already
 *	(~0 once the kernel refused: older than 5.14)
 * @chunks_read: chunks decompressed so far
 * @unzip: the decompression context (compressed streams)
 * @take: where the chunks come from, decompressed, when not NULL
 * @from: its argument
 * @chunk: the buffer chunks are decompressed into (without @ring)
 * @chunk_cap: its size
 * @data: the last chunk, decompressed (in @chunk or @from's)
 * @chunk_len: its bytes
 * @chunk_pos: offset in it of the next page
 * @win: the pages read last (with @fd); NULL when the pages are mapped
 * @win_cap: its size, whole pages
 * @win_start: offset in the stream of @win's first page
 * @win_len: the bytes in @win
 * @corrupt: a chunk's header or data was damaged, or the file could not be
 *	read where the layout says it holds pages: the walk stopped there
 */
struct datpages {
	const uint8_t *map;
	int fd;
	const struct datfile_layout *layout;
	const struct datfile_stream *ds;
	uint64_t next;
	uint64_t dropped;
	uint64_t populated;
	uint32_t chunks_read;
	struct unzip *unzip;
	datpages_take_fn *take;
	void *from;
	uint8_t *chunk;
	size_t chunk_cap;
	const uint8_t *data;
	size_t chunk_len;
	size_t chunk_pos;
	uint8_t *win;
	size_t win_cap;
	uint64_t win_start;
	size_t win_len;
	bool corrupt;
};

/**
 * datpages_init - start at the first page of @ds
 * @p: the walk
 * @map: the mapped file
 * @fd: the same file open, to read an uncompressed stream's pages with
 *	pread() (datpages_read_pays() says when that is cheaper); -1 to read
 *	them through @map
 * @layout: its layout, from datfile_layout_parse()
 * @ds: one of its streams
 * Returns 0 or -ENOMEM; release with datpages_destroy() either way.
 */
int datpages_init(struct datpages *p, const uint8_t *map, int fd,
		  const struct datfile_layout *layout, const struct datfile_stream *ds);

/**
 * datpages_read_pays - whether @fd's pages cost less read with pread() than
 * mapped: on tmpfs and ramfs, whose page cache is in 4 KiB pages that
 * the kernel maps one at a time
 */
bool datpages_read_pays(int fd);

/**
 * datpages_next - the next page of the stream (layout->page_size bytes)
 * Returns the page, valid until the next call, or NULL at the end of the
 * stream's data: its end, the end of what a truncated file holds, or
 * damage (then @p->corrupt is set).
 */
const uint8_t *datpages_next(struct datpages *p);

/**
 * datpages_attach - take the chunks of a compressed stream from @take
 * instead of decompressing them here, for a walk that is at its start
 * @p: the walk
 * @take: chunkring_take_from(), for a ring of the same stream; NULL detaches
 * @from: the ring
 * The walk ends and stops at damage where it would on its own.
 */
void datpages_attach(struct datpages *p, datpages_take_fn *take, void *from);

/**
 * datpages_chunk_next - the next chunk's compressed bytes, the walk moved
 * past it without decompressing it (a compressed stream)
 * @p: the walk
 * @src: set to the compressed bytes, in the mapping
 * @zsize: set to their length
 * @usize: set to the uncompressed size, whole pages, at most UNZIP_MAX_BLOCK
 * Returns 1, 0 past the last chunk or at the end of a truncated file, or
 * -1 when the header is damaged (then @p->corrupt is set).
 */
int datpages_chunk_next(struct datpages *p, const uint8_t **src, uint32_t *zsize,
			uint32_t *usize);

/**
 * datpages_count - the pages the stream holds, without decompressing them
 * (a walk of the chunk headers, whose mapped bytes are handed back as it
 * goes), for a walk that is at its start
 */
uint64_t datpages_count(const struct datpages *p);

/**
 * datpages_seek - go to page @page of a walk that is at its start (a
 * compressed stream: to the chunk holding it, decompressed up to it); the
 * walk then hands back only mapped bytes from there on
 * Returns 0, or -1 when the stream is damaged before it.
 */
int datpages_seek(struct datpages *p, uint64_t page);

/**
 * datpages_release - hand back to the kernel the mapped bytes already
 * walked, once there are enough of them to be worth a system call
 */
void datpages_release(struct datpages *p);

/**
 * datpages_release_walked - hand back to the kernel every mapped byte the
 * walk has read, however few (a walk that ends before its stream does)
 */
void datpages_release_walked(struct datpages *p);

/**
 * datpages_forget - hand back to the kernel every mapped byte of the
 * stream, whatever was read of it (after a look at its start and end, or
 * a walk of its chunk headers, that touched the whole of it)
 */
void datpages_forget(const struct datpages *p);

/**
 * datpages_destroy - release the walk's buffers (not what it is attached
 * to); a zeroed walk is accepted
 */
void datpages_destroy(struct datpages *p);

#endif /* BLKSTACK_DATPAGES_H */
