// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_tracefile.c - the trace.dat reader on damaged and foreign files,
 * written with datwrite from pages captured on this project's kernel
 * (tests/fixtures/ring):
 *  - an event format that crashes libtraceevent's parser (a '[' in a
 *    field's type): tracefile_open() says the file is corrupt, -EBADMSG,
 *    and the program lives on;
 *  - a recording of a machine whose long is 4 bytes (header_page's commit,
 *    every page header): the same events as the 8-byte original;
 *  - time that goes back or jumps, within a page and between pages: said,
 *    clamped and merged the same with one thread or two.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_dat.h"
#include "check_files.h"
#include "check_run.h"
#include "format/datwrite.h"
#include "format/pagewalk.h"
#include "format/tracefile.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif



struct tally {
	uint64_t n, sum;
};

static int count_event(const struct blk_event *ev, void *ctx)
{
	struct tally *t = ctx;

	t->n++;
	t->sum = t->sum * 31 + ev->ts + ev->sector * 7 + ev->nr_sector + ev->kind + ev->cpu;
	return 0;
}

static struct tally read_all(const char *path, uint64_t *malformed)
{
	struct tally t = { 0 };
	const struct source_stats *st;
	struct tracefile *f;
	int err;

	f = tracefile_open(path, &err);
	ck_assert_msg(f != NULL, "%s: %d", path, err);
	ck_assert_int_eq(tracefile_read(f, count_event, &t), 0);
	st = tracefile_stats(f);
	*malformed = 0;
	for (int c = 0; c < st->ncpu; c++)
		*malformed += st->cpu[c].malformed;
	tracefile_close(f);
	return t;
}

START_TEST(test_bad_format_refused)
{
	char path[] = "/tmp/check_tracefile.XXXXXX";
	struct tracefile *f;
	int fd, err = 0;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	check_write_dat(path, true, false);
	f = tracefile_open(path, &err);
	ck_assert_ptr_null(f);
	ck_assert_int_eq(err, -EBADMSG);
	unlink(path);
}
END_TEST

START_TEST(test_long4_read_as_such)
{
	char p8[] = "/tmp/check_tracefile.XXXXXX", p4[] = "/tmp/check_tracefile.XXXXXX";
	uint64_t malformed8, malformed4;
	struct tally t8, t4;
	int fd;

	fd = mkstemp(p8);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = mkstemp(p4);
	ck_assert_int_ge(fd, 0);
	close(fd);
	check_write_dat(p8, false, false);
	check_write_dat(p4, false, true);
	t8 = read_all(p8, &malformed8);
	t4 = read_all(p4, &malformed4);
	ck_assert_uint_gt(t8.n, 0);
	ck_assert_uint_eq(malformed8, 0);
	ck_assert_uint_eq(malformed4, 0);
	ck_assert_uint_eq(t4.n, t8.n);
	ck_assert_uint_eq(t4.sum, t8.sum);
	unlink(p8);
	unlink(p4);
}
END_TEST

/* ---- time that goes back, on hand-built pages ---------------------------- */

struct hand_page {
	uint8_t *page;
	size_t len;		/* bytes of records */
};

static void hp_put32(struct hand_page *h, uint32_t v)
{
	ck_assert_uint_le(16 + h->len + 4, PAGE);
	memcpy(h->page + 16 + h->len, &v, 4);
	h->len += 4;
}

/* a record of the captured kind with @delta; @tag in its sector */
static void hp_record(struct hand_page *h, const uint8_t *rec, unsigned int size,
		      uint32_t delta)
{
	hp_put32(h, size / 4 | delta << 5);
	memcpy(h->page + 16 + h->len, rec, size);
	h->len += size;
}

static void hp_stamp(struct hand_page *h, unsigned int type, uint64_t t)
{
	hp_put32(h, type | (uint32_t)(t & ((1U << 27) - 1)) << 5);
	hp_put32(h, (uint32_t)(t >> 27));
}

static void hp_finish(struct hand_page *h, uint64_t ts)
{
	uint64_t commit = h->len;

	memcpy(h->page, &ts, 8);
	memcpy(h->page + 8, &commit, 8);
}

struct seen {
	unsigned int n;
	uint64_t ts[64];
	int cpu[64];
};

static int note_event(const struct blk_event *ev, void *ctx)
{
	struct seen *s = ctx;

	ck_assert_uint_lt(s->n, 64);
	s->ts[s->n] = ev->ts;
	s->cpu[s->n++] = ev->cpu;
	return 0;
}

/*
 * Time that goes back inside a page (a time stamp), at a page's start, and
 * jumps ahead (a time extend of two days): said per CPU by the reader, the
 * events clamped by the merge in their CPU's order, and merged the same
 * with one thread as with a thread per CPU.
 */
START_TEST(test_time_back_same_with_threads)
{
	static const uint64_t want_ts[] = { 451, 452, 453, 1010, 1020, 1020, 1020, 1020, 1020,
					    1501, 1502 };
	static const int want_cpu[] = { 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1 };
	char path[] = "/tmp/check_tracefile.XXXXXX";
	uint8_t *pages[2], *raw;
	size_t raw_len, len[2] = { 3 * PAGE, 2 * PAGE };
	const uint8_t *rec = NULL;
	struct hand_page h;
	struct seen s[2];
	unsigned int size = 0;
	struct pagewalk w;
	uint16_t id;
	uint64_t ts;
	char *fmt;
	int fd;

	/* a block_bio_queue record as the kernel wrote it (its id in its format) */
	fmt = check_slurp(RING "/events/block/block_bio_queue/format", &raw_len);
	ck_assert_ptr_nonnull(strstr(fmt, "ID: "));
	id = (uint16_t)atoi(strstr(fmt, "ID: ") + 4);
	free(fmt);
	raw = (uint8_t *)check_slurp(RING "/cpu0.raw", &raw_len);
	pagewalk_init(&w, 8, false);
	for (size_t off = 0; !rec && off < raw_len; off += PAGE) {
		const uint8_t *r;

		ck_assert_int_eq(pagewalk_load(&w, raw + off, PAGE), 0);
		while (!rec && (r = pagewalk_next(&w, &ts, &size)))
			if (size >= 2 && size <= 28 * 4 && !memcmp(r, &id, 2))
				rec = r;
	}
	ck_assert_ptr_nonnull(rec);
	for (int c = 0; c < 2; c++) {
		pages[c] = calloc(1, len[c]);
		ck_assert_ptr_nonnull(pages[c]);
	}
	/* cpu0: 1010, 1020, back to 501, 502; a page at 400: 405, 410; 2000, +2 days */
	h = (struct hand_page){ pages[0], 0 };
	hp_record(&h, rec, size, 10);
	hp_record(&h, rec, size, 10);
	hp_stamp(&h, 31, 500);
	hp_record(&h, rec, size, 1);
	hp_record(&h, rec, size, 1);
	hp_finish(&h, 1000);
	h = (struct hand_page){ pages[0] + PAGE, 0 };
	hp_record(&h, rec, size, 5);
	hp_record(&h, rec, size, 5);
	hp_finish(&h, 400);
	h = (struct hand_page){ pages[0] + 2 * PAGE, 0 };
	hp_record(&h, rec, size, 0);
	hp_stamp(&h, 30, 2 * 86400ULL * 1000000000ULL);
	hp_record(&h, rec, size, 0);
	hp_finish(&h, 2000);
	/* cpu1: 451, 452, 453; 1501, 1502 */
	h = (struct hand_page){ pages[1], 0 };
	for (int i = 0; i < 3; i++)
		hp_record(&h, rec, size, 1);
	hp_finish(&h, 450);
	h = (struct hand_page){ pages[1] + PAGE, 0 };
	for (int i = 0; i < 2; i++)
		hp_record(&h, rec, size, 1);
	hp_finish(&h, 1500);

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	check_write_dat_pages(path, false, false, (const uint8_t *const *)pages, len);
	for (int j = 0; j < 2; j++) {
		const struct source_stats *st;
		struct tracefile *f;
		int err;

		f = tracefile_open(path, &err);
		ck_assert_msg(f != NULL, "%s: %d", path, err);
		tracefile_set_jobs(f, j + 1);
		s[j].n = 0;
		ck_assert_int_eq(tracefile_read(f, note_event, &s[j]), 0);
		st = tracefile_stats(f);
		ck_assert_int_ge(st->ncpu, 2);
		ck_assert_uint_eq(st->cpu[0].events, 8);
		ck_assert_uint_eq(st->cpu[0].time_back, 2);
		ck_assert_uint_eq(st->cpu[0].time_jumps, 1);
		ck_assert_uint_eq(st->cpu[1].time_back, 0);
		ck_assert_uint_eq(st->cpu[1].time_jumps, 0);
		tracefile_close(f);
		ck_assert_uint_eq(s[j].n, 13);
		for (unsigned int i = 0; i < sizeof(want_ts) / sizeof(want_ts[0]); i++) {
			ck_assert_uint_eq(s[j].ts[i], want_ts[i]);
			ck_assert_int_eq(s[j].cpu[i], want_cpu[i]);
		}
		ck_assert_uint_eq(s[j].ts[11], 2000);
		ck_assert_uint_eq(s[j].ts[12], 2000 + 2 * 86400ULL * 1000000000ULL);
	}
	unlink(path);
	free(pages[0]);
	free(pages[1]);
	free(raw);
}
END_TEST

static Suite *tracefile_suite(void)
{
	Suite *s = suite_create("tracefile");
	TCase *tc = tcase_create("damaged");

	tcase_add_test(tc, test_bad_format_refused);
	tcase_add_test(tc, test_long4_read_as_such);
	tcase_add_test(tc, test_time_back_same_with_threads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(tracefile_suite());
}
