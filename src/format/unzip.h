/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unzip.h - one compressed block of a trace.dat version 7 file, whole.
 *
 * trace-cmd compresses each section and each chunk of ring-buffer pages on
 * its own (trace-cmd.dat.v7(5)): a zstd frame or a zlib stream, with the
 * uncompressed size stored beside it. So a block is decompressed in one
 * call into a buffer of exactly that size, and nothing carries over from
 * one block to the next.
 */
#ifndef BLKSTACK_UNZIP_H
#define BLKSTACK_UNZIP_H

#include <stddef.h>

/* the algorithms trace-cmd writes: what its "name\0version\0" header says */
enum unzip_algo {
	UNZIP_NONE,
	UNZIP_ZSTD,
	UNZIP_ZLIB,
};

/*
 * The largest block accepted: trace-cmd's chunks are ten pages and its
 * sections a few MiB; a larger size is taken as corruption rather than
 * allocated.
 */
#define UNZIP_MAX_BLOCK	(64U << 20)

struct unzip;

/**
 * unzip_algo_parse - the algorithm a v7 file names in its header
 * @name: "none", "zstd" or "zlib"
 * Returns 0 and sets *@algo, or -ENOTSUP for another name.
 */
int unzip_algo_parse(const char *name, enum unzip_algo *algo);

/**
 * unzip_alloc - a decompression context; one per thread that uses it
 * Returns the context, or NULL with errno set (ENOMEM).
 */
struct unzip *unzip_alloc(enum unzip_algo algo);

/**
 * unzip_block - decompress one whole block
 * @u: the context
 * @src: the compressed bytes
 * @srclen: how many
 * @dst: where to write
 * @dstlen: the uncompressed size the file states
 *
 * Returns 0 when the block decompressed to exactly @dstlen bytes, -EBADMSG
 * when it did not (corrupt data, or a size that does not match).
 */
int unzip_block(struct unzip *u, const void *src, size_t srclen, void *dst, size_t dstlen);

/** unzip_free - release a context; NULL is accepted */
void unzip_free(struct unzip *u);

#endif /* BLKSTACK_UNZIP_H */
