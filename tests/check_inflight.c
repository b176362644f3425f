// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_inflight.c - the number in flight over time, worked out by hand.
 */
#include <check.h>

#include "check_run.h"
#include "track/inflight.h"

/*
 * in at 100, in at 200, out at 400, out at 500, in at 900, end at 1000:
 * level 1 for 100 ns, 2 for 200, 1 for 100, 0 for 400, 1 for 100:
 * area 100 + 400 + 100 + 0 + 100 = 700 over 900 ns; busy 500 ns; max 2.
 */
START_TEST(time_weighted)
{
	struct inflight f;

	inflight_init(&f);
	inflight_inc(&f, 100);
	inflight_inc(&f, 200);
	inflight_dec(&f, 400);
	inflight_dec(&f, 500);
	inflight_inc(&f, 900);
	ck_assert_double_eq_tol(inflight_avg(&f, 1000), 700.0 / 900, 1e-12);
	ck_assert_uint_eq(inflight_busy(&f, 1000), 500);
	ck_assert_uint_eq(f.max, 2);
	ck_assert_uint_eq(f.now, 1);

	/* a new window keeps the one in flight: level 1 for 100 ns */
	inflight_window(&f, 1000);
	ck_assert_uint_eq(f.max, 1);
	ck_assert_double_eq_tol(inflight_avg(&f, 1100), 1.0, 1e-12);
	ck_assert_uint_eq(inflight_busy(&f, 1100), 100);
}
END_TEST

/* btt's Active Requests At Q: arrivals find 0, 1, then 1 (one left at 30) */
START_TEST(sampled_at_arrival)
{
	struct inflight f;

	inflight_init(&f);
	inflight_arrive(&f, 10);
	inflight_arrive(&f, 20);
	inflight_dec(&f, 30);
	inflight_arrive(&f, 40);
	ck_assert_uint_eq(f.samples, 3);
	ck_assert_double_eq_tol(inflight_sampled_avg(&f), 2.0 / 3, 1e-12);
}
END_TEST

/* A departure with none in flight is counted, the level stays at zero, and
 * a timestamp behind the last one does not run time back. */
START_TEST(underflow_and_clock_skew)
{
	struct inflight f;

	inflight_init(&f);
	inflight_dec(&f, 0);
	ck_assert_uint_eq(f.underflow, 1);
	ck_assert_uint_eq(f.now, 0);
	inflight_inc(&f, 50);
	inflight_dec(&f, 40);
	ck_assert_uint_eq(f.now, 0);
	/* in flight from 50, out at "40": taken at 50, no area */
	ck_assert_double_eq(inflight_avg(&f, 100), 0.0);
	ck_assert_uint_eq(inflight_busy(&f, 100), 0);
	ck_assert_double_eq(inflight_sampled_avg(&f), 0.0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("inflight");
	TCase *tc = tcase_create("inflight");

	tcase_add_test(tc, time_weighted);
	tcase_add_test(tc, sampled_at_arrival);
	tcase_add_test(tc, underflow_and_clock_skew);
	suite_add_tcase(s, tc);
	return check_run(s);
}
