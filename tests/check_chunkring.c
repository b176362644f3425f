// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_chunkring.c - the chunks of a compressed stream decompressed ahead
 * by other threads (format/chunkring.c), taken by a walk (format/datpages.c):
 *  - the walk sees the same pages in the same order, and stops at the same
 *    place, as a walk that decompresses its chunks itself, whatever the
 *    threads filling the ring and however many slots it has;
 *  - a damaged chunk (its data, its sizes) stops the walk there with the
 *    damage said, and a file cut short ends it there without, even when
 *    the threads decompressed chunks beyond it;
 *  - no more chunks are decompressed ahead than the ring has slots;
 *  - the ring hands back the mapped bytes it has read: after a walk of a
 *    file of 12 MiB of chunks, a few MiB of the mapping stay resident.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "check_files.h"
#include "check_run.h"
#include "format/chunkring.h"
#include "format/datpages.h"

#define PAGE	4096U
#define CHUNKS	40

/* A stream of CHUNKS chunks of 1 to 3 pages; page n is filled from n. */
struct stream {
	uint8_t *map;
	size_t len;
	size_t chunk_at[CHUNKS];	/* each chunk's header */
	uint32_t pages;
	struct datfile_layout layout;
	struct datfile_stream ds;
};

static void page_fill(uint8_t *pg, uint32_t n)
{
	for (uint32_t i = 0; i < PAGE; i++)
		pg[i] = (uint8_t)(n * 31 + i / 64);
	memcpy(pg, &n, sizeof(n));
}

static void stream_make(struct stream *s)
{
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	for (int c = 0; c < CHUNKS; c++) {
		uint32_t n = 1 + c % 3, usize = n * PAGE, zsize;
		size_t bound = ZSTD_compressBound(usize);
		uint8_t *raw = malloc(usize);

		ck_assert_ptr_nonnull(raw);
		for (uint32_t i = 0; i < n; i++)
			page_fill(raw + i * PAGE, s->pages + i);
		s->pages += n;
		if (s->len + 8 + bound > cap) {
			cap = (s->len + 8 + bound) * 2;
			s->map = realloc(s->map, cap);
			ck_assert_ptr_nonnull(s->map);
		}
		zsize = ZSTD_compress(s->map + s->len + 8, bound, raw, usize, 1);
		ck_assert(!ZSTD_isError(zsize));
		s->chunk_at[c] = s->len;
		memcpy(s->map + s->len, &zsize, 4);
		memcpy(s->map + s->len + 4, &usize, 4);
		s->len += 8 + zsize;
		free(raw);
	}
	s->layout = (struct datfile_layout){ .version = 7, .algo = UNZIP_ZSTD, .long_size = 8,
					     .page_size = PAGE };
	s->ds = (struct datfile_stream){ .size = s->len, .avail = s->len, .nchunks = CHUNKS,
					 .compressed = true };
}

/* What a walk gave: the pages' numbers, and whether it said damage. */
struct walked {
	uint32_t page[CHUNKS * 3];
	uint32_t n;
	bool corrupt;
};

static void walk(struct datpages *p, struct walked *w)
{
	const uint8_t *pg;

	memset(w, 0, sizeof(*w));
	while ((pg = datpages_next(p))) {
		uint8_t want[PAGE];
		uint32_t n;

		memcpy(&n, pg, sizeof(n));
		page_fill(want, n);
		ck_assert_msg(!memcmp(pg, want, PAGE), "page %u garbled", n);
		ck_assert_uint_lt(w->n, CHUNKS * 3);
		w->page[w->n++] = n;
	}
	/* the end stays the end */
	ck_assert_ptr_null(datpages_next(p));
	w->corrupt = p->corrupt;
}

/* The walk that decompresses every chunk itself: the reference. */
static void walk_alone(const struct stream *s, struct walked *w)
{
	struct datpages p;

	ck_assert_int_eq(datpages_init(&p, s->map, -1, &s->layout, &s->ds), 0);
	walk(&p, w);
	datpages_destroy(&p);
}

struct filler {
	struct chunkring *r;
	bool stop;
	unsigned int filled;
};

static void *fill_thread(void *arg)
{
	struct filler *f = arg;
	struct unzip *u = unzip_alloc(UNZIP_ZSTD);

	if (!u)
		return NULL;
	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED))
		if (chunkring_fill(f->r, u))
			__atomic_fetch_add(&f->filled, 1, __ATOMIC_RELAXED);
	unzip_free(u);
	return NULL;
}

/* The walk from a ring of @slots filled by @threads threads. */
static void walk_ring(const struct stream *s, unsigned int slots, int threads, struct walked *w)
{
	struct filler f = { 0 };
	pthread_t tid[4];
	struct datpages p;

	f.r = chunkring_alloc(s->map, &s->layout, &s->ds, slots);
	ck_assert_ptr_nonnull(f.r);
	ck_assert_int_eq(datpages_init(&p, s->map, -1, &s->layout, &s->ds), 0);
	datpages_attach(&p, chunkring_take_from, f.r);
	for (int t = 0; t < threads; t++)
		ck_assert_int_eq(pthread_create(&tid[t], NULL, fill_thread, &f), 0);
	walk(&p, w);
	__atomic_store_n(&f.stop, true, __ATOMIC_RELAXED);
	for (int t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	datpages_destroy(&p);
	chunkring_free(f.r);
}

static void assert_same_walk(const struct walked *a, const struct walked *b)
{
	ck_assert_uint_eq(a->n, b->n);
	ck_assert_int_eq(a->corrupt, b->corrupt);
	for (uint32_t i = 0; i < a->n; i++)
		ck_assert_uint_eq(a->page[i], b->page[i]);
}

/* Every slot count from 2, 0 to 3 threads filling, many times over: as the walk alone. */
static void assert_rings_as_alone(const struct stream *s)
{
	struct walked ref, got;

	walk_alone(s, &ref);
	for (unsigned int slots = 2; slots <= 9; slots++)
		for (int threads = 0; threads <= 3; threads++)
			for (int run = 0; run < 5; run++) {
				walk_ring(s, slots, threads, &got);
				assert_same_walk(&ref, &got);
			}
}

START_TEST(test_order)
{
	struct stream s;
	struct walked ref;

	stream_make(&s);
	walk_alone(&s, &ref);
	ck_assert_uint_eq(ref.n, s.pages);
	ck_assert(!ref.corrupt);
	for (uint32_t i = 0; i < ref.n; i++)
		ck_assert_uint_eq(ref.page[i], i);
	assert_rings_as_alone(&s);
	free(s.map);
}
END_TEST

/* chunk @_i's data, its sizes, or the file cut in it: the walk stops where it does alone */
START_TEST(test_damage)
{
	static const int at[] = { 0, 1, 17, CHUNKS - 1 };
	int chunk = at[_i % 4], how = _i / 4;
	struct walked ref;
	struct stream s;
	uint8_t *hdr;

	stream_make(&s);
	hdr = s.map + s.chunk_at[chunk];
	switch (how) {
	case 0:		/* the compressed data */
		memset(hdr + 8 + 4, 0xa5, 8);
		break;
	case 1: {	/* an uncompressed size not whole pages */
		uint32_t usize = PAGE + 1;

		memcpy(hdr + 4, &usize, 4);
		break;
	}
	case 2: {	/* an uncompressed size that is not the data's */
		uint32_t usize = 4 * PAGE;

		memcpy(hdr + 4, &usize, 4);
		break;
	}
	case 3: {	/* a compressed size past the end */
		uint32_t zsize = (uint32_t)s.len;

		memcpy(hdr, &zsize, 4);
		break;
	}
	case 4:		/* the file cut short in the chunk: an end, not damage */
		s.ds.avail = s.chunk_at[chunk] + 10;
		break;
	}
	walk_alone(&s, &ref);
	ck_assert_int_eq(ref.corrupt, how != 4);
	/* the pages of the chunks before, no more */
	ck_assert_uint_eq(ref.n, chunk / 3 * 6 + (chunk % 3 == 2 ? 3 : chunk % 3));
	assert_rings_as_alone(&s);
	free(s.map);
}
END_TEST

/* The slots bound what is decompressed ahead; taking a chunk frees the one before. */
START_TEST(test_bound)
{
	struct unzip *u = unzip_alloc(UNZIP_ZSTD);
	const uint8_t *chunk;
	struct chunkring *r;
	struct stream s;
	size_t len;
	int n = 0;

	ck_assert_ptr_nonnull(u);
	stream_make(&s);
	r = chunkring_alloc(s.map, &s.layout, &s.ds, 4);
	ck_assert_ptr_nonnull(r);
	while (chunkring_fill(r, u))
		n++;
	ck_assert_int_eq(n, 4);
	/* the first taken is held: its slot stays taken */
	ck_assert_int_eq(chunkring_take(r, u, &chunk, &len), 1);
	ck_assert_uint_eq(len, PAGE);
	ck_assert_int_eq(chunkring_fill(r, u), 0);
	for (int c = 1; c < CHUNKS; c++) {
		ck_assert_int_eq(chunkring_take(r, u, &chunk, &len), 1);
		ck_assert_uint_eq(len, (1 + c % 3) * PAGE);
		n = 0;
		while (chunkring_fill(r, u))
			n++;
		/* the one before freed: one more, until every chunk was claimed */
		ck_assert_int_eq(n, c + 3 < CHUNKS ? 1 : 0);
	}
	ck_assert_int_eq(chunkring_take(r, u, &chunk, &len), 0);
	ck_assert_int_eq(chunkring_take(r, u, &chunk, &len), 0);
	chunkring_free(r);
	ck_assert_ptr_null(chunkring_alloc(s.map, &s.layout, &s.ds, 1));
	unzip_free(u);
	free(s.map);
}
END_TEST

/*
 * A walk from a ring over a mapped file of BIG_CHUNKS chunks of 4 pages of
 * noise (they do not compress: 12 MiB in all) leaves little of it mapped.
 */
#define BIG_CHUNKS 768U

START_TEST(test_hands_back)
{
	char path[] = "/tmp/check_chunkring.XXXXXX";
	size_t bound = ZSTD_compressBound(4 * PAGE), len = 0;
	uint8_t *raw = malloc(4 * PAGE), *z = malloc(8 + bound);
	struct datfile_layout layout = { .version = 7, .algo = UNZIP_ZSTD, .long_size = 8,
					 .page_size = PAGE };
	struct datfile_stream ds = { .nchunks = BIG_CHUNKS, .compressed = true };
	struct filler f = { 0 };
	uint64_t x = 88172645463325252ULL;
	const uint8_t *pg;
	struct datpages p;
	uint32_t pages = 0;
	pthread_t tid;
	uint8_t *map;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_ptr_nonnull(raw);
	ck_assert_ptr_nonnull(z);
	for (uint32_t c = 0; c < BIG_CHUNKS; c++) {
		uint32_t usize = 4 * PAGE, zsize;

		for (uint32_t i = 0; i < usize; i += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			memcpy(raw + i, &x, 8);
		}
		zsize = ZSTD_compress(z + 8, bound, raw, usize, 1);
		ck_assert(!ZSTD_isError(zsize));
		memcpy(z, &zsize, 4);
		memcpy(z + 4, &usize, 4);
		ck_assert_int_eq(write(fd, z, 8 + zsize), (ssize_t)(8 + zsize));
		len += 8 + zsize;
	}
	ck_assert_uint_gt(len, 12U << 20);
	ds.size = ds.avail = len;
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(map, MAP_FAILED);

	f.r = chunkring_alloc(map, &layout, &ds, 4);
	ck_assert_ptr_nonnull(f.r);
	ck_assert_int_eq(datpages_init(&p, map, -1, &layout, &ds), 0);
	datpages_attach(&p, chunkring_take_from, f.r);
	ck_assert_int_eq(pthread_create(&tid, NULL, fill_thread, &f), 0);
	while ((pg = datpages_next(&p)))
		pages++;
	__atomic_store_n(&f.stop, true, __ATOMIC_RELAXED);
	pthread_join(tid, NULL);
	ck_assert_uint_eq(pages, 4 * BIG_CHUNKS);
	ck_assert(!p.corrupt);
	/* handed back a MiB at a time, mapped in 2 MiB ahead: not the 12 */
	ck_assert_int_le(check_mapping_rss_kb(map), 4 << 10);
	datpages_destroy(&p);
	chunkring_free(f.r);
	munmap(map, len);
	close(fd);
	free(raw);
	free(z);
}
END_TEST

static Suite *chunkring_suite(void)
{
	Suite *s = suite_create("chunkring");
	TCase *tc = tcase_create("ring");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_order);
	tcase_add_loop_test(tc, test_damage, 0, 20);
	tcase_add_test(tc, test_bound);
	tcase_add_test(tc, test_hands_back);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(chunkring_suite());
}
