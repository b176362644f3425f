// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * datpages.c - the ring-buffer pages of one CPU of a mapped trace.dat, in
 * order, decompressing a v7 file's chunks one at a time; uncompressed pages
 * come through the mapping, or with pread() where that costs less.
 *
 * A compressed stream is a sequence of chunks, each a u32 compressed size,
 * a u32 uncompressed size (whole pages) and the compressed bytes
 * (trace-cmd.dat.v7(5)). Every size is checked against the mapping and
 * against UNZIP_MAX_BLOCK before anything is read or allocated: a damaged
 * file ends the walk with @corrupt set, never a read past the end or an
 * allocation the size of a garbage number.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "format/datpages.h"

/*
 * Hand back mapped bytes in steps this large: one madvise per 8 MiB walked,
 * or per 1 MiB of compressed chunks (some 10 MiB of pages).
 */
#define DROP_CHUNK (8ULL << 20)
#define DROP_CHUNK_COMPRESSED (1ULL << 20)

/*
 * Map the file in this far ahead of the walk, in one call. A file that
 * trace-cmd spliced onto tmpfs sits in 4 KiB pages that the kernel maps
 * one fault at a time (no fault-around): 190 k faults for a 780 MB
 * recording, a third of a report's time. MADV_POPULATE_READ maps a window
 * in one system call, for half the cost; on files in large folios it
 * costs what the faults did.
 */
#define POPULATE_AHEAD (2ULL << 20)

/*
 * Read uncompressed pages this many bytes at a time: the window stays in
 * the reading core's cache, where the walk then reads it. 32 KiB to 512
 * KiB cost the same (a pass over a 780 MB file on tmpfs: 118-125 ms, where
 * populating the mapping and reading it took 270 ms).
 */
#define READ_WINDOW (128U << 10)

bool datpages_read_pays(int fd)
{
	struct statfs sf;

	/*
	 * On ext4 (large folios) the mapping was the cheaper (75 against 100
	 * ms for the same pass), on btrfs the two cost the same: only where
	 * the mapping costs twice is the copy worth it.
	 */
	return fstatfs(fd, &sf) == 0 &&
	       (sf.f_type == TMPFS_MAGIC || sf.f_type == RAMFS_MAGIC);
}

int datpages_init(struct datpages *p, const uint8_t *map, int fd,
		  const struct datfile_layout *layout, const struct datfile_stream *ds)
{
	memset(p, 0, sizeof(*p));
	p->map = map;
	p->fd = -1;
	p->layout = layout;
	p->ds = ds;
	if (ds->compressed) {
		p->unzip = unzip_alloc(layout->algo);
		if (!p->unzip)
			return -ENOMEM;
	} else if (fd >= 0) {
		size_t cap = READ_WINDOW / layout->page_size * layout->page_size;

		p->win_cap = cap ? cap : layout->page_size;
		p->win = malloc(p->win_cap);
		if (!p->win)
			return -ENOMEM;
		p->fd = fd;
	}
	return 0;
}

/* Map in the stream's bytes from the walk's offset on, when @need of them are not yet. */
static void populate(struct datpages *p, uint64_t need)
{
	uint64_t sys_page = (uint64_t)getpagesize();
	uint64_t start, end;

	if (p->next + need <= p->populated)
		return;
	start = (p->ds->offset + (p->next > p->populated ? p->next : p->populated)) & ~(sys_page - 1);
	end = p->ds->offset + p->next + (need > POPULATE_AHEAD ? need : POPULATE_AHEAD);
	if (end > p->ds->offset + p->ds->avail)
		end = p->ds->offset + p->ds->avail;
	if (end <= start)
		return;
	/* the walk reads the bytes either way: a refusal only means faults instead */
	if (madvise((void *)(p->map + start), end - start, MADV_POPULATE_READ) < 0 &&
	    errno == EINVAL) {
		p->populated = UINT64_MAX;
		return;
	}
	p->populated = end - p->ds->offset;
}

static uint32_t rd32(const struct datpages *p, const uint8_t *at)
{
	uint32_t v;

	memcpy(&v, at, 4);
	return p->layout->big_endian != (__BYTE_ORDER == __BIG_ENDIAN) ? bswap_32(v) : v;
}

/*
 * The header of the chunk at stream offset @off: 1 and its sizes, 0 past
 * the last chunk or at the end of a truncated file, -1 damaged.
 */
static int chunk_header(struct datpages *p, uint64_t off, uint32_t nth, uint32_t *zsize,
			uint32_t *usize)
{
	const struct datfile_stream *ds = p->ds;
	const uint8_t *hdr = p->map + ds->offset + off;

	if (nth >= ds->nchunks)
		return 0;
	/* the data ends before the chunk: cut short (counted at open), or damaged */
	if (off + 8 > ds->avail || ds->avail - off - 8 < rd32(p, hdr)) {
		if (ds->avail < ds->size)
			return 0;
		p->corrupt = true;
		return -1;
	}
	*zsize = rd32(p, hdr);
	*usize = rd32(p, hdr + 4);
	if (*usize > UNZIP_MAX_BLOCK || *usize % p->layout->page_size) {
		p->corrupt = true;
		return -1;
	}
	return 1;
}

int datpages_chunk_next(struct datpages *p, const uint8_t **src, uint32_t *zsize,
			uint32_t *usize)
{
	int ret;

	populate(p, 8);
	ret = chunk_header(p, p->next, p->chunks_read, zsize, usize);
	if (ret <= 0)
		return ret;
	populate(p, 8 + (uint64_t)*zsize);
	*src = p->map + p->ds->offset + p->next + 8;
	p->next += 8 + (uint64_t)*zsize;
	p->chunks_read++;
	return 1;
}

void datpages_attach(struct datpages *p, datpages_take_fn *take, void *from)
{
	p->take = take;
	p->from = from;
}

/* Decompress the next chunk, or take it decompressed; 1 done, 0 no more, -1 damaged. */
static int chunk_load(struct datpages *p)
{
	uint32_t zsize, usize;
	const uint8_t *src;
	int ret;

	if (p->take) {
		ret = p->take(p->from, p->unzip, &p->data, &p->chunk_len);
		if (ret < 0)
			p->corrupt = true;
		else if (ret > 0)
			p->chunk_pos = 0;
		return ret;
	}
	ret = datpages_chunk_next(p, &src, &zsize, &usize);
	if (ret <= 0)
		return ret;
	if (usize > p->chunk_cap) {
		uint8_t *n = realloc(p->chunk, usize);

		if (!n) {
			p->corrupt = true;	/* at most UNZIP_MAX_BLOCK: not the file's fault, but fatal */
			return -1;
		}
		p->chunk = n;
		p->chunk_cap = usize;
	}
	if (unzip_block(p->unzip, src, zsize, p->chunk, usize) < 0) {
		p->corrupt = true;
		return -1;
	}
	p->data = p->chunk;
	p->chunk_len = usize;
	p->chunk_pos = 0;
	return 1;
}

/*
 * Read the window of pages from the walk's offset on; false when the file
 * holds no whole page there any more (cut short since it was opened) or
 * cannot be read.
 */
static bool window_read(struct datpages *p)
{
	uint64_t left = (p->ds->avail - p->next) / p->layout->page_size * p->layout->page_size;
	size_t want = left < p->win_cap ? (size_t)left : p->win_cap;
	size_t got = 0;

	while (got < want) {
		ssize_t n = pread(p->fd, p->win + got, want - got,
				  (off_t)(p->ds->offset + p->next + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	/* the whole pages read before the file's new end are still its pages */
	got -= got % p->layout->page_size;
	p->win_start = p->next;
	p->win_len = got;
	if (!got)
		p->corrupt = true;
	return got > 0;
}

const uint8_t *datpages_next(struct datpages *p)
{
	uint32_t page = p->layout->page_size;
	const uint8_t *pg;

	if (!p->ds->compressed) {
		if (p->next + page > p->ds->avail || p->corrupt)
			return NULL;
		if (p->win) {
			if ((p->next < p->win_start || p->next + page > p->win_start + p->win_len) &&
			    !window_read(p))
				return NULL;
			pg = p->win + (p->next - p->win_start);
			p->next += page;
			return pg;
		}
		populate(p, page);
		pg = p->map + p->ds->offset + p->next;
		p->next += page;
		return pg;
	}
	while (p->chunk_pos + page > p->chunk_len)
		/* damage ends the walk: the chunks after it are not read */
		if (p->corrupt || chunk_load(p) <= 0)
			return NULL;
	pg = p->data + p->chunk_pos;
	p->chunk_pos += page;
	return pg;
}

uint64_t datpages_count(const struct datpages *p)
{
	struct datpages w = *p;
	uint64_t pages = 0;
	uint32_t zsize, usize;

	if (!p->ds->compressed)
		return p->ds->avail / p->layout->page_size;
	while (chunk_header(&w, w.next, w.chunks_read, &zsize, &usize) > 0) {
		pages += usize / p->layout->page_size;
		w.next += 8 + (uint64_t)zsize;
		w.chunks_read++;
		/* the headers are spread over the whole stream: else it all stays mapped */
		datpages_release(&w);
	}
	return pages;
}

int datpages_seek(struct datpages *p, uint64_t page)
{
	uint32_t psize = p->layout->page_size;
	uint32_t zsize, usize;

	if (!p->ds->compressed) {
		p->next = page * psize;
		/* nothing before was walked: not this walk's to hand back (another may read it) */
		p->dropped = p->next;
		return 0;
	}
	/* skip whole chunks by their headers, then decompress the one holding @page */
	while (chunk_header(p, p->next, p->chunks_read, &zsize, &usize) > 0 &&
	       usize / psize <= page) {
		page -= usize / psize;
		p->next += 8 + (uint64_t)zsize;
		p->chunks_read++;
		/* the headers are spread over the whole stream: else it all stays mapped */
		datpages_release(p);
	}
	if (p->corrupt)
		return -1;
	if (chunk_load(p) < 0)
		return -1;
	p->chunk_pos = page * psize < p->chunk_len ? page * psize : p->chunk_len;
	return 0;
}

/* Hand back the mapped bytes walked since the last time, when at least @min. */
static void release(struct datpages *p, uint64_t min)
{
	uint64_t sys_page = (uint64_t)getpagesize();
	uint64_t start = p->ds->offset + p->dropped;
	uint64_t end = p->ds->offset + p->next;

	/* read with pread(): nothing of the stream was mapped in */
	if (p->win)
		return;
	start = (start + sys_page - 1) & ~(sys_page - 1);
	end &= ~(sys_page - 1);
	if (end > start && end - start >= min) {
		madvise((void *)(p->map + start), end - start, MADV_DONTNEED);
		p->dropped = end - p->ds->offset;
	}
}

void datpages_release(struct datpages *p)
{
	release(p, p->ds->compressed ? DROP_CHUNK_COMPRESSED : DROP_CHUNK);
}

void datpages_release_walked(struct datpages *p)
{
	release(p, 1);
}

void datpages_forget(const struct datpages *p)
{
	uint64_t sys_page = (uint64_t)getpagesize();
	uint64_t start = p->ds->offset & ~(sys_page - 1);
	uint64_t end = (p->ds->offset + p->ds->avail) & ~(sys_page - 1);

	if (end > start && !p->win)
		madvise((void *)(p->map + start), end - start, MADV_DONTNEED);
}

void datpages_destroy(struct datpages *p)
{
	unzip_free(p->unzip);
	free(p->chunk);
	free(p->win);
	memset(p, 0, sizeof(*p));
}
