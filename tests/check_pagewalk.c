// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_pagewalk.c - blkstack's ring-buffer page walker against kbuffer.
 *
 * The walker replaces kbuffer on the per-event path, so it must hand out
 * exactly what kbuffer hands out: on every page captured from a live
 * kernel (tests/fixtures/ring) and every page of the recorded VM traces
 * (tests/fixtures/vm/ *.dat, version 6), the same records (time stamp,
 * position, size) and the same missed-events count. Hand-built pages cover
 * the record types a capture may not hold (time extend, absolute time
 * stamp, padding, a long record), and damaged pages must end the walk
 * without reading past the page.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <kbuffer.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <trace-cmd.h>
#include <unistd.h>

#include "check_run.h"
#include "format/datfile.h"
#include "format/datpages.h"
#include "format/pagewalk.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif

/* Compare the two walkers on one page; returns the records seen. */
static unsigned long same_page(const uint8_t *page, size_t page_size, int long_size,
			       const char *where)
{
	struct kbuffer *kb = kbuffer_alloc(long_size == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8,
					   KBUFFER_ENDIAN_LITTLE);
	unsigned int size, le_size = 0;
	unsigned long long kts;
	struct pagewalk w, le;
	unsigned long n = 0;
	const void *rec;
	uint64_t ts, le_ts = 0;
	void *krec;

	ck_assert_ptr_nonnull(kb);
	pagewalk_init(&w, long_size, false);
	ck_assert_int_eq(kbuffer_load_subbuffer(kb, (void *)page), 0);
	ck_assert_msg(pagewalk_load(&w, page, page_size) == 0, "%s: page not loaded", where);
	/* the walk told the byte order (pagewalk_le()) takes the same steps */
	le = w;
	ck_assert(pagewalk_le(&le) == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__));
	ck_assert_msg(w.missed == kbuffer_missed_events(kb), "%s: missed %lld, kbuffer %d",
		      where, w.missed, kbuffer_missed_events(kb));
	for (krec = kbuffer_read_event(kb, &kts); krec; krec = kbuffer_next_event(kb, &kts)) {
		rec = pagewalk_next(&w, &ts, &size);
		ck_assert_msg(rec == krec, "%s: record %lu at %td, kbuffer's at %td", where, n,
			      rec ? (const uint8_t *)rec - page : -1, (uint8_t *)krec - page);
		ck_assert_msg(ts == kts, "%s: record %lu time %llu, kbuffer %llu", where, n,
			      (unsigned long long)ts, kts);
		ck_assert_msg(size == (unsigned int)kbuffer_event_size(kb),
			      "%s: record %lu size %u, kbuffer %d", where, n, size,
			      kbuffer_event_size(kb));
		if (pagewalk_le(&le)) {
			ck_assert_msg(pagewalk_next_as(&le, &le_ts, &le_size, true) == rec &&
				      le_ts == ts && le_size == size,
				      "%s: record %lu differs, told the byte order", where, n);
			ck_assert(le.retime == w.retime);
		}
		n++;
	}
	ck_assert_msg(pagewalk_next(&w, &ts, &size) == NULL, "%s: more records than kbuffer",
		      where);
	ck_assert(!w.malformed);
	if (pagewalk_le(&le)) {
		ck_assert_ptr_null(pagewalk_next_as(&le, &le_ts, &le_size, true));
		ck_assert(!le.malformed);
	}
	kbuffer_free(kb);
	return n;
}

static void *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY);

	ck_assert_msg(fd >= 0, "cannot open '%s': %s", path, strerror(errno));
	ck_assert_int_eq(fstat(fd, &st), 0);
	*len = st.st_size;
	map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	ck_assert_msg(map != MAP_FAILED, "cannot map '%s'", path);
	return map;
}

/* Pages captured from trace_pipe_raw on this project's kernel. */
START_TEST(test_ring_captures)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct tep_handle *tep = tep_alloc();
	unsigned long records = 0;
	int long_size, page_size;
	struct dirent *de;
	size_t len;
	DIR *d;
	void *map;

	d = opendir(FIXTURES_DIR "/ring");
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/ring/%s", FIXTURES_DIR, de->d_name);
		snprintf(path, sizeof(path), "%s/header_page", dir);
		map = map_file(path, &len);
		ck_assert_int_eq(tep_parse_header_page(tep, map, len, 8), 0);
		munmap(map, len);
		long_size = tep_get_header_page_size(tep);
		page_size = tep_get_sub_buffer_size(tep);
		for (int cpu = 0;; cpu++) {
			snprintf(path, sizeof(path), "%s/cpu%d.raw", dir, cpu);
			if (access(path, R_OK) < 0)
				break;
			map = map_file(path, &len);
			for (size_t off = 0; off + page_size <= len; off += page_size)
				records += same_page((uint8_t *)map + off, page_size, long_size, path);
			munmap(map, len);
		}
	}
	closedir(d);
	tep_free(tep);
	ck_assert_uint_gt(records, 100);
}
END_TEST

/* Every page of every VM recording, v6 and v7 (its chunks decompressed by datpages). */
START_TEST(test_vm_recordings)
{
	unsigned long records = 0;
	struct dirent *de;
	DIR *d;

	d = opendir(FIXTURES_DIR "/vm");
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		struct tracecmd_input *h;
		struct datfile_layout l;
		char path[PATH_MAX];
		int long_size;
		size_t len;
		void *map;

		if (!strstr(de->d_name, ".dat"))
			continue;
		snprintf(path, sizeof(path), "%s/vm/%s", FIXTURES_DIR, de->d_name);
		map = map_file(path, &len);
		ck_assert_int_eq(datfile_layout_parse(map, len, &l), 0);
		h = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
		ck_assert_ptr_nonnull(h);
		long_size = tep_get_header_page_size(tracecmd_get_tep(h));
		for (int s = 0; s < l.nstreams; s++) {
			struct datpages dp;
			const uint8_t *page;

			ck_assert_int_eq(datpages_init(&dp, map, -1, &l, &l.streams[s]), 0);
			while ((page = datpages_next(&dp)))
				records += same_page(page, l.page_size, long_size, path);
			ck_assert(!dp.corrupt);
			datpages_destroy(&dp);
		}
		tracecmd_close(h);
		datfile_layout_free(&l);
		munmap(map, len);
	}
	closedir(d);
	ck_assert_uint_gt(records, 1000);
}
END_TEST

/* ---- hand-built pages ------------------------------------------------- */

#define PAGE 4096

struct page_builder {
	uint8_t page[PAGE];
	size_t len;	/* bytes of records so far */
};

static void put32(struct page_builder *b, uint32_t v)
{
	memcpy(b->page + 16 + b->len, &v, 4);
	b->len += 4;
}

static void rec_header(struct page_builder *b, unsigned int type_len, uint32_t delta)
{
	put32(b, type_len | delta << 5);
}

static void build_finish(struct page_builder *b, uint64_t ts, uint64_t flags)
{
	uint64_t commit = b->len | flags;

	memcpy(b->page, &ts, 8);
	memcpy(b->page + 8, &commit, 8);
}

START_TEST(test_hand_record_types)
{
	struct page_builder b = { { 0 }, 0 };
	unsigned int size;
	const uint8_t *rec;
	struct pagewalk w;
	uint64_t ts;

	rec_header(&b, 2, 10);		/* 8 bytes of data, +10 */
	put32(&b, 0x11111111);
	put32(&b, 0x22222222);
	rec_header(&b, 30, 5);		/* time extend: +(3 << 27) + 5 */
	put32(&b, 3);
	rec_header(&b, 1, 7);		/* 4 bytes, +7 */
	put32(&b, 0x33333333);
	rec_header(&b, 29, 4);		/* padding: 12 bytes after its header, +4 */
	put32(&b, 12);
	put32(&b, 0xdeadbeef);
	put32(&b, 0xdeadbeef);
	rec_header(&b, 31, 9);		/* absolute: (2 << 27) + 9 */
	put32(&b, 2);
	rec_header(&b, 0, 1);		/* long record: length word + 6 bytes -> 8 */
	put32(&b, 4 + 6);
	put32(&b, 0x44444444);
	put32(&b, 0x00005555);
	build_finish(&b, 1000, 0);

	/* kbuffer agrees on all of it */
	ck_assert_uint_eq(same_page(b.page, PAGE, 8, "hand page"), 3);

	pagewalk_init(&w, 8, false);
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
	ck_assert_int_eq(w.missed, 0);
	rec = pagewalk_next(&w, &ts, &size);
	ck_assert_uint_eq(ts, 1010);
	ck_assert_uint_eq(size, 8);
	ck_assert_uint_eq(rec[0], 0x11);
	rec = pagewalk_next(&w, &ts, &size);
	ck_assert_uint_eq(ts, 1010 + (3ULL << 27) + 5 + 7);
	ck_assert_uint_eq(size, 4);
	ck_assert_uint_eq(rec[0], 0x33);
	rec = pagewalk_next(&w, &ts, &size);
	ck_assert_uint_eq(ts, (2ULL << 27) + 9 + 1);
	ck_assert_uint_eq(size, 8);
	ck_assert_uint_eq(rec[0], 0x44);
	ck_assert_ptr_null(pagewalk_next(&w, &ts, &size));
	ck_assert(!w.malformed);
}
END_TEST

START_TEST(test_hand_missed_events)
{
	struct page_builder b = { { 0 }, 0 };
	struct pagewalk w;
	uint64_t stored = 1234;

	rec_header(&b, 1, 1);
	put32(&b, 0);
	/* the count is stored right after the commit */
	memcpy(b.page + 16 + b.len, &stored, 8);
	build_finish(&b, 0, 3ULL << 30);
	same_page(b.page, PAGE, 8, "missed, stored");
	pagewalk_init(&w, 8, false);
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
	ck_assert_int_eq(w.missed, 1234);

	build_finish(&b, 0, 1ULL << 31);
	same_page(b.page, PAGE, 8, "missed, not stored");
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
	ck_assert_int_eq(w.missed, -1);
}
END_TEST

/* A damaged page ends the walk inside the page, flagged as malformed. */
START_TEST(test_hand_damaged)
{
	struct page_builder b = { { 0 }, 0 };
	unsigned int size;
	struct pagewalk w;
	uint64_t ts;

	/* a record whose data runs past the commit */
	rec_header(&b, 1, 1);
	put32(&b, 0);
	rec_header(&b, 20, 1);
	build_finish(&b, 0, 0);
	pagewalk_init(&w, 8, false);
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
	ck_assert_ptr_nonnull(pagewalk_next(&w, &ts, &size));
	ck_assert_ptr_null(pagewalk_next(&w, &ts, &size));
	ck_assert(w.malformed);
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		/* the same, told the byte order */
		ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
		ck_assert_ptr_nonnull(pagewalk_next_as(&w, &ts, &size, true));
		ck_assert_ptr_null(pagewalk_next_as(&w, &ts, &size, true));
		ck_assert(w.malformed);
	}

	/* a long record whose length points past the page */
	memset(&b, 0, sizeof(b));
	rec_header(&b, 0, 1);
	put32(&b, 0x7ffffff0);
	build_finish(&b, 0, 0);
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
	ck_assert_ptr_null(pagewalk_next(&w, &ts, &size));
	ck_assert(w.malformed);

	/* a commit larger than the page: not a sub-buffer */
	build_finish(&b, 0, PAGE);
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), -1);

	/* a padding whose length wraps the offset ends the walk */
	memset(&b, 0, sizeof(b));
	rec_header(&b, 29, 0);
	put32(&b, 0xfffffffc);
	rec_header(&b, 1, 1);
	put32(&b, 0);
	build_finish(&b, 0, 0);
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
	ck_assert_ptr_null(pagewalk_next(&w, &ts, &size));
}
END_TEST

/*
 * The reader checks the time only where retime is set: at a page's start,
 * after a time extend or stamp, and on every record of a page whose time
 * could wrap or whose deltas could add up to PW_STEADY_SPAN_NS.
 */
START_TEST(test_hand_retime)
{
	struct page_builder b = { { 0 }, 0 };
	uint64_t ts, prev = 0;
	unsigned int size;
	struct pagewalk w;

	rec_header(&b, 1, 10);
	put32(&b, 0);
	rec_header(&b, 1, (1U << 27) - 1);	/* the largest delta */
	put32(&b, 0);
	rec_header(&b, 30, 5);			/* time extend */
	put32(&b, 3);
	rec_header(&b, 1, 7);
	put32(&b, 0);
	rec_header(&b, 31, 9);			/* absolute: back in time */
	put32(&b, 0);
	rec_header(&b, 1, 1);
	put32(&b, 0);
	rec_header(&b, 1, 1);
	put32(&b, 0);
	build_finish(&b, 1ULL << 40, 0);

	pagewalk_init(&w, 8, false);
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
	ck_assert(w.retime);
	ck_assert(w.steady);
	ck_assert_ptr_nonnull(pagewalk_next(&w, &ts, &size));
	ck_assert(w.retime);
	pagewalk_time_seen(&w);
	ck_assert(!w.retime);
	prev = ts;
	ck_assert_ptr_nonnull(pagewalk_next(&w, &ts, &size));
	ck_assert(!w.retime);
	ck_assert_uint_ge(ts, prev);
	ck_assert_uint_lt(ts - prev, PW_STEADY_SPAN_NS);
	ck_assert_ptr_nonnull(pagewalk_next(&w, &ts, &size));
	ck_assert(w.retime);	/* after the extend */
	pagewalk_time_seen(&w);
	ck_assert_ptr_nonnull(pagewalk_next(&w, &ts, &size));
	ck_assert(w.retime);	/* after the stamp */
	ck_assert_uint_eq(ts, 9 + 1);
	pagewalk_time_seen(&w);
	ck_assert_ptr_nonnull(pagewalk_next(&w, &ts, &size));
	ck_assert(!w.retime);
	ck_assert_ptr_null(pagewalk_next(&w, &ts, &size));

	/* a page time where a delta could wrap: every record is checked */
	build_finish(&b, UINT64_MAX - 100, 0);
	ck_assert_int_eq(pagewalk_load(&w, b.page, PAGE), 0);
	ck_assert_ptr_nonnull(pagewalk_next(&w, &ts, &size));
	pagewalk_time_seen(&w);
	ck_assert(w.retime);

	/* a sub-buffer large enough to hold an hour of deltas: likewise */
	{
		size_t big = (PW_STEADY_SPAN_NS >> PW_TS_SHIFT) * 4 + 16;
		uint8_t *page = calloc(1, big);
		uint64_t commit = big - 16, t0 = 0;

		ck_assert_ptr_nonnull(page);
		memcpy(page, &t0, 8);
		memcpy(page + 8, &commit, 8);
		for (size_t off = 16; off + 8 <= big; off += 8) {
			uint32_t hdr = 1 | ((1U << 27) - 1) << 5;

			memcpy(page + off, &hdr, 4);
		}
		ck_assert_int_eq(pagewalk_load(&w, page, big), 0);
		ck_assert(!w.steady);
		ck_assert_ptr_nonnull(pagewalk_next(&w, &ts, &size));
		pagewalk_time_seen(&w);
		ck_assert(w.retime);
		free(page);
	}
}
END_TEST

/* 4-byte kernel longs (32-bit kernels): the records start 4 bytes earlier. */
START_TEST(test_hand_long4)
{
	uint8_t page[PAGE] = { 0 };
	uint32_t commit = 8, hdr = 1 | 3 << 5, data = 0xabcdef01;
	uint64_t ts0 = 50, ts;
	unsigned int size;
	const uint8_t *rec;
	struct pagewalk w;

	memcpy(page, &ts0, 8);
	memcpy(page + 8, &commit, 4);
	memcpy(page + 12, &hdr, 4);
	memcpy(page + 16, &data, 4);
	ck_assert_uint_eq(same_page(page, PAGE, 4, "long 4"), 1);
	pagewalk_init(&w, 4, false);
	ck_assert_int_eq(pagewalk_load(&w, page, PAGE), 0);
	rec = pagewalk_next(&w, &ts, &size);
	ck_assert_ptr_eq(rec, page + 16);
	ck_assert_uint_eq(ts, 53);
	ck_assert_uint_eq(size, 4);
}
END_TEST

static Suite *pagewalk_suite(void)
{
	Suite *s = suite_create("pagewalk");
	TCase *tc = tcase_create("captured");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ring_captures);
	tcase_add_test(tc, test_vm_recordings);
	suite_add_tcase(s, tc);
	tc = tcase_create("hand-built");
	tcase_add_test(tc, test_hand_record_types);
	tcase_add_test(tc, test_hand_missed_events);
	tcase_add_test(tc, test_hand_damaged);
	tcase_add_test(tc, test_hand_long4);
	tcase_add_test(tc, test_hand_retime);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(pagewalk_suite());
}
