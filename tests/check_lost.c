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
#define SDA	KDEV_MKDEV(8, 0)

static struct tracker *t;
static int handed;
/* the first I/Os handed out: their queue and completion times */
static uint64_t handed_q[8], handed_c[8];

static void count_io(const struct tk_io *io, void *ctx)
{
	(void)ctx;
	if (handed < 8) {
		handed_q[handed] = io->root->q;
		handed_c[handed] = io->root->c;
	}
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

/* An event of @dev at @ts, at @sector for 8 sectors, of @rwbs ("R", "W"). */
static void feed_at(enum blk_kind kind, uint32_t dev, uint64_t ts, uint64_t sector,
		    const char *rwbs)
{
	struct blk_event ev = {
		.kind = kind, .dev = dev, .sector = sector, .nr_sector = 8, .bytes = 4096,
		.ts = ts, .pid = 100,
	};

	blk_rwbs_parse(rwbs, strlen(rwbs), &ev.op, &ev.flags);
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

/*
 * A bio whose completion was lost takes no younger I/O's. From a recording
 * of zram under loss (fio randrw, two jobs, record -b 16; trace-cmd report
 * -t of it): the last event cpu 0 kept before 1,512 were lost was the
 * queue of a read at 196520, whose completion was among them. The next
 * read there came 875 ms later (and lost nothing), another 324 ms after
 * that, with a stretch of loss between them. Oldest first, the lost
 * completion's bio took the second read's completion, the second read the
 * third's, and so on: every later read at that sector broken, or handed
 * out with the next one's completion (110 ms for a zram I/O of 2 us).
 * Other stretches of the recording, all ending before the second read,
 * are left out: they change nothing here.
 */
START_TEST(bio_that_lost_its_completion_takes_no_other)
{
	/* the I/O before it, whole */
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 10001936171315ULL, 69616, "R");
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 10001936172717ULL, 69616, "R");
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 10001936174290ULL, 196520, "R");
	lost(10001936174290ULL, 10001939127779ULL, 1512);
	/* the first page after the loss: a completion whose queue was lost */
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 10001939127779ULL, 64432, "R");
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 10001939129301ULL, 104120, "R");
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 10001939130704ULL, 104120, "R");
	/* a write there is another key */
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 10001965519813ULL, 196520, "W");
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 10001965524150ULL, 196520, "W");
	/* the next read */
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 10002811281334ULL, 196520, "R");
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 10002811282826ULL, 196520, "R");
	lost(10002820518505ULL, 10002822387395ULL, 0);
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 10003135265162ULL, 196520, "R");
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 10003135266744ULL, 196520, "R");

	ck_assert_int_eq(handed, 5);
	ck_assert_uint_eq(tracker_counters(t)->broken_lost, 0);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_after_loss, 1);
	/* each read at 196520 with its own completion */
	ck_assert_uint_eq(handed_q[3], 10002811281334ULL);
	ck_assert_uint_eq(handed_c[3] - handed_q[3], 1492);
	ck_assert_uint_eq(handed_q[4], 10003135265162ULL);
	ck_assert_uint_eq(handed_c[4] - handed_q[4], 1582);
	/* the one whose completion was lost never completes */
	tracker_finish(t);
	ck_assert_uint_eq(tracker_counters(t)->expired_top, 1);
}
END_TEST

/* Oldest first all the same when both lived through the stretch: both are broken. */
START_TEST(bios_that_met_the_stretch_match_oldest_first)
{
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 1000, 8, "R");
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 1100, 8, "R");
	lost(1200, 1500, 4);
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 1600, 8, "R");
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 1700, 8, "R");
	ck_assert_int_eq(handed, 0);
	ck_assert_uint_eq(tracker_counters(t)->broken_lost, 2);
	/* and with no loss at all, the oldest first (DESIGN 1) */
	tracker_reset(t);
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 2000, 8, "W");
	feed_at(BLK_EV_BIO_QUEUE, ZRAM, 2100, 8, "W");
	feed_at(BLK_EV_BIO_COMPLETE, ZRAM, 2200, 8, "W");
	ck_assert_int_eq(handed, 1);
	ck_assert_uint_eq(handed_q[0], 2000);
}
END_TEST

/*
 * The same at a request-based disk: a request issued before a stretch
 * whose completion was lost takes no completion of a younger request at
 * its sector.
 */
START_TEST(request_that_lost_its_completion_takes_no_other)
{
	feed_at(BLK_EV_BIO_QUEUE, SDA, 1000, 64, "R");
	feed_at(BLK_EV_GETRQ, SDA, 1010, 64, "R");
	feed_at(BLK_EV_RQ_ISSUE, SDA, 1020, 64, "R");
	lost(1030, 1500, 9);
	feed_at(BLK_EV_BIO_QUEUE, SDA, 2000, 64, "R");
	feed_at(BLK_EV_GETRQ, SDA, 2010, 64, "R");
	feed_at(BLK_EV_RQ_ISSUE, SDA, 2020, 64, "R");
	feed_at(BLK_EV_RQ_COMPLETE, SDA, 2500, 64, "R");
	ck_assert_int_eq(handed, 1);
	ck_assert_uint_eq(handed_q[0], 2000);
	ck_assert_uint_eq(handed_c[0], 2500);
	ck_assert_uint_eq(tracker_counters(t)->broken_lost, 0);
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
	tcase_add_test(tc, bio_that_lost_its_completion_takes_no_other);
	tcase_add_test(tc, bios_that_met_the_stretch_match_oldest_first);
	tcase_add_test(tc, request_that_lost_its_completion_takes_no_other);
	tcase_add_test(tc, unseen_estimate);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(lost_suite());
}
