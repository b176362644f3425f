// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_lost.c - what the tracker does with the mark of a stretch of lost
 * events (base/lostevent.h): an I/O whose life meets the stretch is left
 * out and counted, one that does not is handed out as ever, and a
 * completion whose start was lost is counted as such. Each case feeds the
 * events a CPU's ring buffer would have kept around the loss.
 */
#include <check.h>
#include <string.h>

#include "base/lostevent.h"
#include "check_run.h"
#include "track/tracker.h"

#define ZRAM	KDEV_MKDEV(251, 0)

static struct tracker *t;
static int handed;

static void count_io(const struct tk_io *io, void *ctx)
{
	(void)io;
	(void)ctx;
	handed++;
}

static void setup(void)
{
	handed = 0;
	t = tracker_alloc(NULL, count_io, NULL);
	ck_assert_ptr_nonnull(t);
}

static void teardown(void)
{
	tracker_free(t);
}

/* A bio-based device's event (zram: Q and C only) at @ts. */
static void feed(enum blk_kind kind, uint64_t ts, uint64_t sector)
{
	struct blk_event ev = {
		.kind = kind, .dev = ZRAM, .sector = sector, .nr_sector = 8, .bytes = 4096,
		.ts = ts, .pid = 100,
	};

	tracker_event(&ev, t);
}

/* Events of cpu 1 lost after @from, told by a page stamped @until. */
static void lost(uint64_t from, uint64_t until, uint64_t count)
{
	struct blk_event ev;

	lost_mark_fill(&ev, 1, from, until, count);
	ck_assert(lost_kind_is(ev.kind));
	ck_assert_uint_eq(lost_mark_until(&ev), until);
	tracker_event(&ev, t);
}

START_TEST(io_across_a_stretch_is_left_out)
{
	feed(BLK_EV_BIO_QUEUE, 1000, 8);
	lost(1100, 1500, 7);
	feed(BLK_EV_BIO_COMPLETE, 2000, 8);
	ck_assert_int_eq(handed, 0);
	ck_assert_uint_eq(tracker_counters(t)->broken_lost, 1);
	ck_assert_uint_eq(tracker_counters(t)->broken_lost_top, 1);
	ck_assert_uint_eq(tracker_counters(t)->ios_top, 0);
	ck_assert_uint_eq(tracker_counters(t)->lost_marks, 1);
	/* a mark is not an event */
	ck_assert_uint_eq(tracker_counters(t)->events, 2);
}
END_TEST

START_TEST(io_queued_in_a_stretch_is_left_out)
{
	/* queued on another CPU while cpu 1 was losing events: its C may be lost */
	lost(1000, 1500, 0);
	feed(BLK_EV_BIO_QUEUE, 1200, 16);
	feed(BLK_EV_BIO_COMPLETE, 1300, 16);
	ck_assert_int_eq(handed, 0);
	ck_assert_uint_eq(tracker_counters(t)->broken_lost_top, 1);
}
END_TEST

START_TEST(io_outside_the_stretches_counts)
{
	/* completed before the loss started: whole */
	feed(BLK_EV_BIO_QUEUE, 100, 8);
	feed(BLK_EV_BIO_COMPLETE, 200, 8);
	lost(1000, 1500, 3);
	/* the first event of the page that told of the loss: after it */
	feed(BLK_EV_BIO_QUEUE, 1500, 16);
	feed(BLK_EV_BIO_COMPLETE, 1550, 16);
	/* queued after the stretch's end: whole */
	feed(BLK_EV_BIO_QUEUE, 1600, 24);
	feed(BLK_EV_BIO_COMPLETE, 1700, 24);
	ck_assert_int_eq(handed, 3);
	ck_assert_uint_eq(tracker_counters(t)->ios_top, 3);
	ck_assert_uint_eq(tracker_counters(t)->ios_top_matched, 3);
	ck_assert_uint_eq(tracker_counters(t)->broken_lost, 0);
}
END_TEST

START_TEST(completion_whose_start_was_lost)
{
	feed(BLK_EV_BIO_COMPLETE, 500, 32);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 1);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_after_loss, 0);
	lost(1000, 1500, 1);
	feed(BLK_EV_BIO_COMPLETE, 1600, 40);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 2);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_after_loss, 1);
}
END_TEST

START_TEST(reset_forgets_the_stretches)
{
	lost(1000, 1500, 1);
	tracker_reset(t);
	feed(BLK_EV_BIO_QUEUE, 1200, 8);
	feed(BLK_EV_BIO_COMPLETE, 1300, 8);
	ck_assert_int_eq(handed, 1);
	ck_assert_uint_eq(tracker_counters(t)->lost_marks, 0);
}
END_TEST

/* The I/Os that lost every event: from the events lost, at the I/Os per event seen. */
START_TEST(unseen_estimate)
{
	struct tk_counters tk = { .events = 200, .ios_top = 90, .broken_lost_top = 10 };

	ck_assert_uint_eq(tk_top_seen(&tk), 100);
	ck_assert_uint_eq(tk_top_unseen(&tk, 0), 0);
	ck_assert_uint_eq(tk_top_all(&tk, 0), 100);
	/* 2 events per I/O: 60 lost are 30 I/Os, rounded up */
	ck_assert_uint_eq(tk_top_unseen(&tk, 60), 31);
	ck_assert_uint_eq(tk_top_all(&tk, 60), 131);
	/* one event lost: never 100% */
	ck_assert_uint_ge(tk_top_unseen(&tk, 1), 1);
	tk = (struct tk_counters){ 0 };
	ck_assert_uint_eq(tk_top_unseen(&tk, 0), 0);
	ck_assert_uint_eq(tk_top_unseen(&tk, 5), 1);
}
END_TEST

static Suite *lost_suite(void)
{
	Suite *s = suite_create("lost");
	TCase *tc = tcase_create("tracker");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, io_across_a_stretch_is_left_out);
	tcase_add_test(tc, io_queued_in_a_stretch_is_left_out);
	tcase_add_test(tc, io_outside_the_stretches_counts);
	tcase_add_test(tc, completion_whose_start_was_lost);
	tcase_add_test(tc, reset_forgets_the_stretches);
	tcase_add_test(tc, unseen_estimate);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(lost_suite());
}
