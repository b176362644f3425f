// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_flight.c - the flight recorder's page ring: bounded (the memory is
 * fixed, the oldest page goes first when it is full), the window honoured
 * (a page leaves once its successor started before the window), and the
 * spill in order, oldest first.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "capture/flight.h"

#define PAGE 64
#define SEC 1000000000ULL

/* A page whose timestamp is @ts and whose byte 8 is @tag. */
static void make_page(unsigned char *p, uint64_t ts, unsigned char tag)
{
	memset(p, 0xee, PAGE);
	memcpy(p, &ts, sizeof(ts));
	p[8] = tag;
}

START_TEST(bounded_oldest_first)
{
	/* 4 pages of memory for 2 CPUs: 2 slots each */
	struct flight *f = flight_alloc(2, PAGE, 4 * PAGE, 100 * SEC);
	unsigned char page[PAGE], out[4 * PAGE];
	uint64_t oldest, bytes;
	FILE *fp;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(flight_bytes(f), 4 * PAGE);
	for (int i = 0; i < 5; i++) {
		make_page(page, (uint64_t)(i + 1) * SEC, i);
		ck_assert_int_eq(flight_add(f, 0, page, PAGE, (uint64_t)(i + 1) * SEC), 0);
	}
	/* 5 pages into 2 slots: pages 3 and 4 stay, 3 were dropped for room */
	ck_assert_uint_eq(flight_pages(f, 0, &oldest), 2);
	ck_assert_uint_eq(oldest, 4 * SEC);
	ck_assert_uint_eq(flight_dropped(f), 3);
	ck_assert_uint_eq(flight_pages(f, 1, NULL), 0);
	fp = fmemopen(out, sizeof(out), "w");
	ck_assert_int_eq(flight_spill(f, 0, 5 * SEC, fp, &bytes), 0);
	fclose(fp);
	ck_assert_uint_eq(bytes, 2 * PAGE);
	ck_assert_int_eq(out[8], 3);
	ck_assert_int_eq(out[PAGE + 8], 4);
	flight_free(f);
}
END_TEST

START_TEST(window_honoured)
{
	struct flight *f = flight_alloc(1, PAGE, 100 * PAGE, 10 * SEC);
	unsigned char page[PAGE];
	uint64_t oldest;

	/* a page every second, for 30 s */
	for (int i = 0; i < 30; i++) {
		make_page(page, (uint64_t)i * SEC, i);
		flight_add(f, 0, page, PAGE, (uint64_t)i * SEC);
	}
	/* now = 29 s, window 10 s: the page of 19 s runs to 20 s and is kept... */
	ck_assert_uint_eq(flight_pages(f, 0, &oldest), 11);
	ck_assert_uint_eq(oldest, 19 * SEC);
	ck_assert_uint_eq(flight_dropped(f), 0);
	/* ... and an hour later only the newest page remains: its end is unknown */
	{
		char buf[PAGE * 2];
		FILE *fp = fmemopen(buf, sizeof(buf), "w");
		uint64_t bytes;

		ck_assert_int_eq(flight_spill(f, 0, 3600 * SEC, fp, &bytes), 0);
		fclose(fp);
		ck_assert_uint_eq(bytes, PAGE);
		ck_assert_int_eq(buf[8], 29);
	}
	flight_free(f);
}
END_TEST

START_TEST(partial_and_bad_input)
{
	struct flight *f = flight_alloc(1, PAGE, PAGE, SEC);	/* at least 2 slots */
	unsigned char page[PAGE], out[2 * PAGE];
	uint64_t bytes;
	FILE *fp;

	make_page(page, 5, 1);
	ck_assert_int_eq(flight_add(f, 1, page, PAGE, 5), -EINVAL);
	ck_assert_int_eq(flight_add(f, 0, page, PAGE + 1, 5), -EINVAL);
	ck_assert_int_eq(flight_add(f, 0, page, 4, 5), -EINVAL);
	/* a partial page: the rest of its slot is zeroed, not stale */
	ck_assert_int_eq(flight_add(f, 0, page, 16, 5), 0);
	fp = fmemopen(out, sizeof(out), "w");
	ck_assert_int_eq(flight_spill(f, 0, 5, fp, &bytes), 0);
	fclose(fp);
	ck_assert_uint_eq(bytes, PAGE);
	ck_assert_uint_eq(out[15], 0xee);
	ck_assert_int_eq(out[16], 0);
	ck_assert_int_eq(out[PAGE - 1], 0);
	flight_free(f);
	ck_assert_ptr_null(flight_alloc(0, PAGE, PAGE, SEC));
	flight_free(NULL);
}
END_TEST

static Suite *flight_suite(void)
{
	Suite *s = suite_create("flight");
	TCase *tc = tcase_create("ring");

	tcase_add_test(tc, bounded_oldest_first);
	tcase_add_test(tc, window_honoured);
	tcase_add_test(tc, partial_and_bad_input);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(flight_suite());
}
