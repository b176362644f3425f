// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_merge.c - per-CPU streams merged by time: ties by CPU then arrival,
 * an idle CPU that does not hold the others back, a CPU that lost events.
 */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check_run.h"
#include "track/merge.h"

#define MAX_OUT 64

struct sink {
	int n;
	uint64_t ts[MAX_OUT];
	int cpu[MAX_OUT];
	uint64_t tag[MAX_OUT];	/* sector field used as a tag */
	int stop_after;
};

static int collect(const struct blk_event *ev, void *ctx)
{
	struct sink *s = ctx;

	ck_assert_int_lt(s->n, MAX_OUT);
	s->ts[s->n] = ev->ts;
	s->cpu[s->n] = ev->cpu;
	s->tag[s->n] = ev->sector;
	s->n++;
	if (s->stop_after && s->n == s->stop_after)
		return -42;
	return 0;
}

static void push(struct merge *m, int cpu, uint64_t ts, uint64_t tag)
{
	struct blk_event ev = { .ts = ts, .cpu = cpu, .sector = tag };

	ck_assert_int_eq(merge_push(m, cpu, &ev), 0);
}

static struct merge *m;

static void setup(void)
{
	m = merge_alloc(3);
	ck_assert_ptr_nonnull(m);
}

static void teardown(void)
{
	merge_free(m);
}

START_TEST(order_by_time)
{
	struct sink s = { 0 };

	push(m, 0, 10, 1);
	push(m, 0, 30, 3);
	push(m, 1, 20, 2);
	push(m, 2, 5, 0);
	push(m, 2, 40, 4);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(s.tag[i], i);
	ck_assert_int_eq(merge_queued(m), 0);
}
END_TEST

START_TEST(ties_by_cpu_then_arrival)
{
	struct sink s = { 0 };

	push(m, 2, 100, 4);
	push(m, 1, 100, 2);
	push(m, 1, 100, 3);
	push(m, 0, 100, 0);
	push(m, 0, 100, 1);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(s.tag[i], i);
}
END_TEST

START_TEST(waits_for_silent_cpu)
{
	struct sink s = { 0 };

	/* CPU 2 has said nothing: it may still hold something earlier */
	push(m, 0, 50, 1);
	push(m, 1, 60, 2);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 0);
	/* once CPU 2 is known to have reached 55, 50 can go, 60 not yet */
	merge_reached(m, 2, 55);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.tag[0], 1);
	/* CPU 0 is empty now and bounded by its last event (50) */
	merge_reached(m, 0, 70);
	merge_reached(m, 2, 70);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.tag[1], 2);
}
END_TEST

START_TEST(idle_cpu_does_not_hold_back)
{
	struct sink s = { 0 };

	/* an idle CPU declared drained up to "now" releases the busy ones */
	for (int i = 0; i < 10; i++)
		push(m, 0, 1000 + i, i);
	merge_reached(m, 1, 2000);
	merge_reached(m, 2, 2000);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 10);
}
END_TEST

START_TEST(equal_time_on_lower_silent_cpu_goes_first)
{
	struct sink s = { 0 };

	/* CPU 0 reached 100 and may still produce a 100: CPU 1's 100 waits */
	merge_reached(m, 0, 100);
	merge_reached(m, 2, 1000);
	push(m, 1, 100, 7);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 0);
	push(m, 0, 100, 6);
	merge_reached(m, 0, 200);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.tag[0], 6);
	ck_assert_int_eq(s.tag[1], 7);
}
END_TEST

START_TEST(cpu_with_lost_events)
{
	struct sink s = { 0 };

	/* a CPU that lost events jumps ahead in time: order still holds */
	push(m, 0, 10, 0);
	push(m, 0, 5000, 3);
	push(m, 1, 20, 1);
	push(m, 1, 30, 2);
	push(m, 2, 6000, 4);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(s.tag[i], i);
}
END_TEST

START_TEST(out_of_order_clamped_and_counted)
{
	struct sink s = { 0 };

	push(m, 0, 100, 0);
	push(m, 0, 90, 1);
	ck_assert_int_eq(merge_reordered(m), 1);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.ts[1], 100);
}
END_TEST

START_TEST(consumer_stops_drain)
{
	struct sink s = { .stop_after = 2 };

	for (int i = 0; i < 5; i++)
		push(m, i % 3, 10 * i, i);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), -42);
	ck_assert_int_eq(merge_queued(m), 3);
	s.stop_after = 0;
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(s.tag[i], i);
}
END_TEST

struct order_sink {
	uint64_t n;
	uint64_t last_ts;
	int last_cpu;
	bool bad;
};

/*
 * A stream that ended bounds nothing, even against events at UINT64_MAX: a
 * damaged page can put them there, and an "ended at UINT64_MAX" tie held
 * them back forever (the readers spun on an endless fill loop).
 */
START_TEST(ended_stream_releases_events_at_max_time)
{
	struct sink s = { 0 };

	push(m, 1, UINT64_MAX, 1);
	merge_end(m, 0);
	merge_end(m, 2);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_uint_eq(s.ts[0], UINT64_MAX);
	ck_assert_uint_eq(merge_queued(m), 0);
}
END_TEST

static int check_order(const struct blk_event *ev, void *ctx)
{
	struct order_sink *s = ctx;

	if (s->n && (ev->ts < s->last_ts || (ev->ts == s->last_ts && ev->cpu < s->last_cpu)))
		s->bad = true;
	s->last_ts = ev->ts;
	s->last_cpu = ev->cpu;
	s->n++;
	return 0;
}

START_TEST(grows_and_wraps)
{
	struct order_sink s = { 0 };
	uint64_t pushed = 0;

	/* rounds of uneven pushes and partial drains: the rings wrap and grow */
	for (int round = 0; round < 30; round++) {
		uint64_t base = 100000ULL * round;

		for (int i = 0; i < 37 * (round + 1); i++) {
			push(m, i % 3, base + i / 2, i);
			pushed++;
		}
		for (int c = 0; c < 3; c++)
			merge_reached(m, c, base + 50);
		ck_assert_int_eq(merge_drain(m, false, check_order, &s), 0);
	}
	ck_assert_int_eq(merge_drain(m, true, check_order, &s), 0);
	ck_assert(!s.bad);
	ck_assert_uint_eq(s.n, pushed);
	ck_assert_uint_eq(merge_queued(m), 0);
}
END_TEST

START_TEST(cpu_out_of_range)
{
	struct blk_event ev = { .cpu = 3 };

	ck_assert_int_eq(merge_push(m, 3, &ev), -22);
	ck_assert_ptr_null(merge_alloc(0));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("order");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, order_by_time);
	tcase_add_test(tc, ties_by_cpu_then_arrival);
	tcase_add_test(tc, waits_for_silent_cpu);
	tcase_add_test(tc, idle_cpu_does_not_hold_back);
	tcase_add_test(tc, equal_time_on_lower_silent_cpu_goes_first);
	tcase_add_test(tc, cpu_with_lost_events);
	tcase_add_test(tc, out_of_order_clamped_and_counted);
	tcase_add_test(tc, consumer_stops_drain);
	tcase_add_test(tc, grows_and_wraps);
	tcase_add_test(tc, cpu_out_of_range);
	tcase_add_test(tc, ended_stream_releases_events_at_max_time);
	suite_add_tcase(s, tc);
	return check_run(s);
}
