// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_btt_rate.c - btt's completions per second and seeks per second on
 * hand-made times, against rows worked out by hand with btt's rules.
 */
#include <check.h>

#include "check_run.h"
#include "track/btt-rate.h"

#define MS	1000000ULL

/* btt's time is whole seconds plus nanoseconds / 1e9, not ns / 1e9 */
START_TEST(secs_as_btt)
{
	ck_assert(btt_secs(1500 * MS) == 1.5);
	ck_assert(btt_secs(999999999) < 1.0);
	ck_assert(btt_secs(7000000001ULL) == 7.0 + 1.0 / 1.0e9);
}
END_TEST

/* no completion at all: the one row btt writes is "-1 0" */
START_TEST(persec_empty)
{
	struct btt_persec p;

	btt_persec_init(&p);
	ck_assert_int_eq(p.sec, -1);
	ck_assert_uint_eq(p.ios, 0);
	ck_assert_double_eq(btt_persec_mib(&p), 0.0);
}
END_TEST

/*
 * Completions of 8, 8 and 16 blocks at 0.2, 0.9 and 1.0 s, 2048 at 3.5 s
 * and 8 at 3.9 s: the one at 1.0 closes second 0 (2 I/Os, 16 blocks), the
 * one at 3.5 closes second 1 (1, 16); second 2 has no row; second 3 (2
 * I/Os, 2056 blocks, just over 1 MiB) is the last row, written at the end.
 */
START_TEST(persec_rows)
{
	struct btt_persec p, row;

	btt_persec_init(&p);
	ck_assert(!btt_persec_add(&p, 200 * MS, 8, &row));
	ck_assert(!btt_persec_add(&p, 900 * MS, 8, &row));
	ck_assert(btt_persec_add(&p, 1000 * MS, 16, &row));
	ck_assert_int_eq(row.sec, 0);
	ck_assert_uint_eq(row.ios, 2);
	ck_assert_uint_eq(row.blks, 16);
	ck_assert(btt_persec_add(&p, 3500 * MS, 2048, &row));
	ck_assert_int_eq(row.sec, 1);
	ck_assert_uint_eq(row.ios, 1);
	ck_assert_uint_eq(row.blks, 16);
	ck_assert(!btt_persec_add(&p, 3900 * MS, 8, &row));
	ck_assert_int_eq(p.sec, 3);
	ck_assert_uint_eq(p.ios, 2);
	ck_assert_double_eq(btt_persec_mib(&p), 2056.0 * 512.0 / (1024.0 * 1024.0));
}
END_TEST

/* the first completion opens its own second, not second 0 */
START_TEST(persec_first_second)
{
	struct btt_persec p, row;

	btt_persec_init(&p);
	ck_assert(!btt_persec_add(&p, 5200 * MS, 8, &row));
	ck_assert(!btt_persec_add(&p, 5999 * MS, 8, &row));
	ck_assert_int_eq(p.sec, 5);
	ck_assert_uint_eq(p.ios, 2);
}
END_TEST

/*
 * Seeks at 0.5, 0.75 and 1.0 s share the window opened at 0.5; the one at
 * 1.5 (a second after) closes it: 3 seeks over 0.5 s, 6 per second. The
 * window at 1.5 holds one seek: closed at 3.0, its rate is 1. Two seeks
 * at 3.0 itself: no time passed, the rate is their number.
 */
START_TEST(sps_windows)
{
	struct btt_sps s = { 0 };
	struct btt_sps_row row;

	ck_assert(!btt_sps_end(&s, &row));
	ck_assert(!btt_sps_add(&s, btt_secs(500 * MS), &row));
	ck_assert(!btt_sps_add(&s, btt_secs(750 * MS), &row));
	ck_assert(!btt_sps_add(&s, btt_secs(1000 * MS), &row));
	ck_assert(btt_sps_add(&s, btt_secs(1500 * MS), &row));
	ck_assert_double_eq(row.t, 0.5);
	ck_assert_double_eq_tol(row.rate, 6.0, 1e-9);
	ck_assert(btt_sps_add(&s, btt_secs(3000 * MS), &row));
	ck_assert_double_eq(row.t, 1.5);
	ck_assert_double_eq(row.rate, 1.0);
	ck_assert(!btt_sps_add(&s, btt_secs(3000 * MS), &row));
	ck_assert(btt_sps_end(&s, &row));
	ck_assert_double_eq(row.t, 3.0);
	ck_assert_double_eq(row.rate, 2.0);
}
END_TEST

/* a seek just under a second after the window's opening stays in it */
START_TEST(sps_just_under)
{
	struct btt_sps s = { 0 };
	struct btt_sps_row row;

	ck_assert(!btt_sps_add(&s, btt_secs(100 * MS), &row));
	ck_assert(!btt_sps_add(&s, btt_secs(1100 * MS - 1), &row));
	ck_assert_uint_eq(s.n, 2);
	ck_assert(btt_sps_add(&s, btt_secs(1100 * MS + 5 * MS), &row));
	ck_assert_double_eq_tol(row.rate, 2.0 / (1.0 - 1e-9), 1e-6);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("btt-rate");
	TCase *tc = tcase_create("btt-rate");

	tcase_add_test(tc, secs_as_btt);
	tcase_add_test(tc, persec_empty);
	tcase_add_test(tc, persec_rows);
	tcase_add_test(tc, persec_first_second);
	tcase_add_test(tc, sps_windows);
	tcase_add_test(tc, sps_just_under);
	suite_add_tcase(s, tc);
	return check_run(s);
}
