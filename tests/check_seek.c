// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_seek.c - seek distances by btt's rules, on streams worked out by
 * hand in the comments.
 */
#include <check.h>
#include <math.h>

#include "check_run.h"
#include "track/seek.h"

static struct seek s;

static void setup(void)
{
	seek_init(&s);
}

static void teardown(void)
{
	seek_destroy(&s);
}

/*
 * sector+size   previous      distance
 * 100+8         0..0          100 (the first is measured from sector 0)
 * 108+8         100..108      0, contiguous: sequential
 * 116+8         108..116      0, sequential
 * 50+8          116..124      50 - 116 = -66 (starts before: from the start)
 * 200+8         50..58        200 - 58 = 142
 * 204+8         200..208      0, overlapping: not sequential
 */
START_TEST(btt_distances)
{
	static const struct { uint64_t sector; int64_t dist; } io[] = {
		{ 100, 100 }, { 108, 0 }, { 116, 0 }, { 50, -66 }, { 200, 142 }, { 204, 0 },
	};
	uint64_t modes[4];
	uint32_t most;

	for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
		ck_assert_int_eq(seek_add(&s, io[i].sector, 8), io[i].dist);
	ck_assert_uint_eq(s.nseeks, 6);
	ck_assert_uint_eq(s.nzero, 3);
	ck_assert_uint_eq(s.nseq, 2);
	ck_assert_double_eq_tol(seek_mean(&s), 308.0 / 6, 1e-9);
	ck_assert_double_eq_tol(seek_seq_share(&s), 2.0 / 6, 1e-9);
	/* 0 0 0 66 100 142: rank 3 */
	ck_assert_uint_eq(seek_median(&s), 0);
	ck_assert_uint_eq(seek_btt_median(&s), 0);
	ck_assert_uint_eq(seek_modes(&s, modes, 4, &most), 1);
	ck_assert_uint_eq(modes[0], 0);
	ck_assert_uint_eq(most, 3);
	ck_assert(seek_exact(&s));
}
END_TEST

/*
 * Four distinct distances 8, 24, 40, 56 (gaps after 8-sector I/Os from
 * sector 0): no distance holds nseeks / 2 = 2 seeks, so btt prints a
 * MEDIAN of 0 where the median is 24; every distance is a mode, once.
 */
START_TEST(btt_median_is_not_a_median)
{
	uint64_t sector = 8, modes[8];
	uint32_t most;

	for (uint64_t gap = 8; gap <= 56; gap += 16) {
		seek_add(&s, sector, 8);
		sector += 8 + gap + 16;
	}
	ck_assert_uint_eq(s.nseeks, 4);
	ck_assert_uint_eq(seek_median(&s), 24);
	ck_assert_uint_eq(seek_btt_median(&s), 0);
	ck_assert_uint_eq(seek_modes(&s, modes, 8, &most), 4);
	ck_assert_uint_eq(most, 1);
	ck_assert_uint_eq(modes[0], 8);
	ck_assert_uint_eq(modes[3], 56);
}
END_TEST

/* Two distances, each half the seeks: btt takes the one its tree holds
 * higher, the first inserted; so does this. */
START_TEST(btt_median_tie)
{
	seek_add(&s, 64, 8);		/* 64 */
	seek_add(&s, 72, 8);		/* 0 */
	ck_assert_uint_eq(seek_btt_median(&s), 64);
	/* rank 1 of 0, 64 */
	ck_assert_uint_eq(seek_median(&s), 0);
}
END_TEST

/* Past SEEK_MAX_DISTINCT distinct distances the rest are counted apart,
 * the mean stays exact and the median comes from the histogram. */
START_TEST(distinct_cap)
{
	uint64_t sector = 0, n = SEEK_MAX_DISTINCT + 9;
	double sum = 0;

	seek_add(&s, 0, 1);
	for (uint64_t gap = 1; gap <= n; gap++) {
		sector += 1 + gap;
		ck_assert_int_eq(seek_add(&s, sector, 1), (int64_t)gap);
		sum += (double)gap;
	}
	ck_assert_uint_eq(s.used, SEEK_MAX_DISTINCT);
	ck_assert_uint_eq(s.overflow, 10);
	ck_assert(!seek_exact(&s));
	ck_assert_double_eq_tol(seek_mean(&s), sum / (double)(n + 1), 1e-6);
	/* the true median is n / 2 + about 1; the histogram knows it to 1/32 */
	ck_assert(fabs((double)seek_median(&s) - (double)n / 2) < (double)n / 2 / 16);
}
END_TEST

/* A full table still counts every distance it holds again (the filter
 * that spares a probe for the others never hides one), and only those. */
START_TEST(full_table_still_counts)
{
	uint64_t sector = 0, n = SEEK_MAX_DISTINCT + 9, modes[2];
	uint32_t most;

	seek_add(&s, 0, 1);
	for (uint64_t gap = 1; gap <= n; gap++) {
		sector += 1 + gap;
		seek_add(&s, sector, 1);
	}
	for (uint64_t gap = 1; gap <= n; gap++) {
		sector += 1 + gap;
		seek_add(&s, sector, 1);
	}
	ck_assert_uint_eq(s.used, SEEK_MAX_DISTINCT);
	ck_assert_uint_eq(s.overflow, 20);
	/* every gap kept, twice; the first I/O's 0 (from sector 0) once */
	ck_assert_uint_eq(seek_modes(&s, modes, 2, &most), SEEK_MAX_DISTINCT - 1);
	ck_assert_uint_eq(most, 2);
	ck_assert_uint_eq(modes[0], 1);
	ck_assert_uint_eq(modes[1], 2);
}
END_TEST

START_TEST(empty)
{
	uint32_t most = 7;

	ck_assert_double_eq(seek_mean(&s), 0.0);
	ck_assert_uint_eq(seek_median(&s), 0);
	ck_assert_uint_eq(seek_btt_median(&s), 0);
	ck_assert_uint_eq(seek_modes(&s, NULL, 0, &most), 0);
	ck_assert_uint_eq(most, 0);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("seek");
	TCase *tc = tcase_create("seek");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, btt_distances);
	tcase_add_test(tc, btt_median_is_not_a_median);
	tcase_add_test(tc, btt_median_tie);
	tcase_add_test(tc, distinct_cap);
	tcase_add_test(tc, full_table_still_counts);
	tcase_add_test(tc, empty);
	suite_add_tcase(su, tc);
	return check_run(su);
}
