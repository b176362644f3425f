// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_iostat.c - diskstats' accounting from hand-made events, against
 * figures worked out by hand in the comments.
 */
#include <check.h>

#include "check_run.h"
#include "base/tickevent.h"
#include "track/iostat.h"

#define SDA	KDEV_MKDEV(8, 0)
#define DM0	KDEV_MKDEV(253, 0)
#define MS	1000000ULL

static struct iostat *s;

static void ev(uint64_t ts, uint32_t dev, enum blk_kind kind, uint8_t op, uint64_t sector,
	       uint32_t nsec)
{
	struct blk_event e = { .ts = ts, .dev = dev, .kind = kind, .op = op, .sector = sector,
			       .nr_sector = nsec, .bytes = nsec * 512 };

	iostat_event(&e, s);
}

static void setup(void)
{
	/* no jiffies: busy time in ns */
	s = iostat_alloc(0);
	ck_assert_ptr_nonnull(s);
}

static void teardown(void)
{
	iostat_free(s);
}

/*
 * sda, over [0, 1 s]: a read request 0+8 from G at 100 ms to C at 110 ms;
 * a write request of two bios (1000+8, back-merged 1008+8) from G at 200 ms
 * to C at 230 ms; a write 2000+16 issued at 300 ms completing in two parts,
 * 2000+8 at 310 ms and 2008+8 at 320 ms (one request: counted once, at the
 * end). 1 read of 4 kB in 10 ms; 2 writes of 16 kB in 30 + 20 ms, 1 merge
 * (%wrqm 1/3); aqu-sz (10 + 50 ms) / 1 s; busy 10 + 30 + 20 ms.
 */
START_TEST(request_based)
{
	const struct ios_dev *d;
	struct ios_row r;

	ev(100 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 0, 8);
	ev(101 * MS, SDA, BLK_EV_RQ_ISSUE, BLK_OP_READ, 0, 8);
	ev(110 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 0, 8);
	ev(200 * MS, SDA, BLK_EV_GETRQ, BLK_OP_WRITE, 1000, 8);
	ev(201 * MS, SDA, BLK_EV_BIO_BACKMERGE, BLK_OP_WRITE, 1008, 8);
	ev(202 * MS, SDA, BLK_EV_RQ_ISSUE, BLK_OP_WRITE, 1000, 16);
	ev(230 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_WRITE, 1000, 16);
	ev(300 * MS, SDA, BLK_EV_RQ_ISSUE, BLK_OP_WRITE, 2000, 16);
	ev(310 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_WRITE, 2000, 8);
	ev(320 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_WRITE, 2008, 8);
	ck_assert_uint_eq(iostat_ndevs(s), 1);
	d = iostat_dev(s, 0);
	ck_assert(d->rq_based);
	ck_assert_uint_eq(d->npending, 0);
	iostat_row(d, 0, 1000 * MS, &r);
	ck_assert_double_eq_tol(r.rs[IOS_READ], 1.0, 1e-9);
	ck_assert_double_eq_tol(r.kbs[IOS_READ], 4.0, 1e-9);
	ck_assert_double_eq_tol(r.await[IOS_READ], 10.0, 1e-9);
	ck_assert_double_eq_tol(r.rs[IOS_WRITE], 2.0, 1e-9);
	ck_assert_double_eq_tol(r.kbs[IOS_WRITE], 16.0, 1e-9);
	ck_assert_double_eq_tol(r.rqms[IOS_WRITE], 1.0, 1e-9);
	ck_assert_double_eq_tol(r.pct_rqm[IOS_WRITE], 100.0 / 3, 1e-9);
	ck_assert_double_eq_tol(r.await[IOS_WRITE], 25.0, 1e-9);
	ck_assert_double_eq_tol(r.areq_sz[IOS_WRITE], 8.0, 1e-9);
	ck_assert_double_eq_tol(r.aqu_sz, 0.06, 1e-9);
	ck_assert_double_eq_tol(r.util, 6.0, 1e-9);
}
END_TEST

/*
 * A preflush: the empty request (G at 10 ms), the flush machinery's flush
 * request (issued 11 ms, completed 15 ms: f/s 1, f_await from 10 ms) and
 * the empty request's own completion, which the kernel does not count.
 */
START_TEST(flush)
{
	struct blk_event g = { .ts = 10 * MS, .dev = SDA, .kind = BLK_EV_GETRQ,
			       .op = BLK_OP_WRITE, .flags = BLK_F_PREFLUSH };
	struct ios_row r;

	iostat_event(&g, s);
	ev(11 * MS, SDA, BLK_EV_RQ_ISSUE, BLK_OP_FLUSH, 0, 0);
	ev(15 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_FLUSH, 0, 0);
	ev(16 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_WRITE, 0, 0);
	iostat_row(iostat_dev(s, 0), 0, 1000 * MS, &r);
	ck_assert_double_eq_tol(r.rs[IOS_FLUSH], 1.0, 1e-9);
	ck_assert_double_eq_tol(r.await[IOS_FLUSH], 5.0, 1e-9);
	ck_assert_double_eq(r.rs[IOS_WRITE], 0.0);
}
END_TEST

/*
 * dm0, bio-based: Q 0+8 at 0, Q 8+8 at 1 ms, completions (by end sector)
 * at 3 and 5 ms; a new interval at 4 ms keeps the second in flight.
 */
START_TEST(bio_based_and_intervals)
{
	const struct ios_dev *d;
	struct ios_row r;

	ev(0, DM0, BLK_EV_BIO_QUEUE, BLK_OP_WRITE, 0, 8);
	ev(1 * MS, DM0, BLK_EV_BIO_QUEUE, BLK_OP_WRITE, 8, 8);
	ev(3 * MS, DM0, BLK_EV_BIO_COMPLETE, BLK_OP_WRITE, 0, 8);
	d = iostat_dev(s, 0);
	ck_assert(!d->rq_based);
	iostat_row(d, 0, 4 * MS, &r);
	ck_assert_double_eq_tol(r.rs[IOS_WRITE], 250.0, 1e-9);
	ck_assert_double_eq_tol(r.await[IOS_WRITE], 3.0, 1e-9);
	iostat_interval(s, 4 * MS);
	ev(5 * MS, DM0, BLK_EV_BIO_COMPLETE, BLK_OP_WRITE, 8, 8);
	iostat_row(d, 4 * MS, 6 * MS, &r);
	/* one completion in 2 ms, after 4 ms in flight */
	ck_assert_double_eq_tol(r.rs[IOS_WRITE], 500.0, 1e-9);
	ck_assert_double_eq_tol(r.await[IOS_WRITE], 4.0, 1e-9);
	/* busy from the interval's start to the completion: 1 of 2 ms */
	ck_assert_double_eq_tol(r.util, 50.0, 1e-9);
}
END_TEST

/*
 * dm0 splits a 64 KiB read at its targets' boundary: queued 0+128, it
 * completes as the remainder, 96+32, after the pieces went down. The read
 * carried 64 KiB, as the report counts it (issue 28, 6): 64 kB in 1 ms.
 */
START_TEST(bio_split_counts_what_was_queued)
{
	struct ios_row r;

	ev(0, DM0, BLK_EV_BIO_QUEUE, BLK_OP_READ, 0, 128);
	ev(1 * MS, DM0, BLK_EV_BIO_COMPLETE, BLK_OP_READ, 96, 32);
	iostat_row(iostat_dev(s, 0), 0, 1000 * MS, &r);
	ck_assert_double_eq_tol(r.rs[IOS_READ], 1.0, 1e-9);
	ck_assert_double_eq_tol(r.kbs[IOS_READ], 64.0, 1e-9);
	ck_assert_double_eq_tol(r.areq_sz[IOS_READ], 64.0, 1e-9);
}
END_TEST

/* In jiffies (HZ 250, 4 ms): a request from 1 to 3 ms adds no busy time */
START_TEST(jiffies)
{
	struct ios_row r;

	iostat_free(s);
	s = iostat_alloc(250);
	ev(1 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 0, 8);
	ev(3 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 0, 8);
	ev(5 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 8, 8);
	ev(9 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 8, 8);
	iostat_row(iostat_dev(s, 0), 0, 100 * MS, &r);
	/* the second spans the tick at 8 ms: 4 ms (from tick 4 to tick 8) */
	ck_assert_double_eq_tol(r.util, 4.0, 1e-9);
}
END_TEST

#define US	1000ULL
#define T0	(40 * MS)

/*
 * Ticks at 2.003 ms + 4 ms * n, as two timer events say: jiffies 1000 read
 * at 2.010 ms (a timer run late) and 1001 at 6.003 ms. A request from 7 to
 * 9 ms crosses no tick; one from 9 to 13 ms crosses 10.003 ms: 4 ms busy
 * (at phase 0 both would cross one, 8 and 12 ms: 8 ms).
 */
START_TEST(tick_phase)
{
	struct ios_row r;

	iostat_free(s);
	s = iostat_alloc(250);
	ev(2 * MS + 10 * US, 0, TICK_EV_TIMER, BLK_OP_OTHER, 1000, 0);
	ev(6 * MS + 3 * US, 0, TICK_EV_TIMER, BLK_OP_OTHER, 1001, 0);
	ev(7 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 0, 8);
	ev(9 * MS - 1, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 0, 8);
	ev(9 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 8, 8);
	ev(13 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 8, 8);
	ck_assert_uint_eq(iostat_ticks_seen(s), 2);
	iostat_row(iostat_dev(s, 0), 0, 100 * MS, &r);
	ck_assert_double_eq_tol(r.util, 4.0, 1e-9);
}
END_TEST

/*
 * The phase is the best over the whole trace. Ticks at 2.003 ms + 4 ms * n:
 * a timer on time at the first tick; later only timers 30 us late, in the
 * next seconds. A request from 10 to 40 us after a tick crosses none (the
 * kernel's jiffies do not change under it): no busy time; placed by the
 * late timers, a tick would fall inside it (4 ms busy). A request before
 * it gives the stamp.
 */
START_TEST(tick_phase_late_timers)
{
	const uint64_t tick0 = 2 * MS + 3 * US;
	struct ios_row r;

	iostat_free(s);
	s = iostat_alloc(250);
	ev(tick0, 0, TICK_EV_TIMER, BLK_OP_OTHER, 1000, 0);
	for (uint64_t j = 1250; j <= 1600; j += 50)
		ev(tick0 + (j - 1000) * 4 * MS + 30 * US, 0, TICK_EV_TIMER, BLK_OP_OTHER, j, 0);
	ev(tick0 + 600 * 4 * MS + 1 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 0, 8);
	ev(tick0 + 600 * 4 * MS + 2 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 0, 8);
	ev(tick0 + 601 * 4 * MS + 10 * US, SDA, BLK_EV_GETRQ, BLK_OP_READ, 8, 8);
	ev(tick0 + 601 * 4 * MS + 40 * US, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 8, 8);
	iostat_row(iostat_dev(s, 0), 0, 100 * MS, &r);
	ck_assert_double_eq_tol(r.util, 0.0, 1e-9);
}
END_TEST

/*
 * block_io_start and block_io_done time the busy jiffies where a kernel
 * has them: G at 3.9 ms and C at 7.99 ms cross the tick at 4 ms only, the
 * kernel's own start at 3.95 ms and its done at 8.01 ms cross 4 and 8 ms:
 * 8 ms busy. A second request started while the first is counted in keeps
 * the device busy from its start (6.16 and later) though never issued.
 */
START_TEST(accounting_events)
{
	struct ios_row r;

	iostat_free(s);
	s = iostat_alloc(250);
	iostat_count_started(s, true);
	/* a stamp of 0 is none: the first tick is past 0 */
	ev(T0 + 3900 * US, SDA, BLK_EV_GETRQ, BLK_OP_READ, 0, 8);
	ev(T0 + 3950 * US, SDA, BLK_EV_IO_START, BLK_OP_READ, 0, 8);
	ev(T0 + 4500 * US, SDA, BLK_EV_RQ_ISSUE, BLK_OP_READ, 0, 8);
	ev(T0 + 7990 * US, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 0, 8);
	ev(T0 + 8010 * US, SDA, BLK_EV_IO_DONE, BLK_OP_READ, 0, 8);
	iostat_row(iostat_dev(s, 0), 0, 100 * MS, &r);
	ck_assert_double_eq_tol(r.util, 8.0, 1e-9);
	/* started at 9 ms, not issued; the next start at 13 ms finds it in flight */
	ev(T0 + 9 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 8, 8);
	ev(T0 + 9 * MS, SDA, BLK_EV_IO_START, BLK_OP_READ, 8, 8);
	ev(T0 + 13 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 16, 8);
	ev(T0 + 13 * MS, SDA, BLK_EV_IO_START, BLK_OP_READ, 16, 8);
	iostat_row(iostat_dev(s, 0), 0, 100 * MS, &r);
	ck_assert_double_eq_tol(r.util, 12.0, 1e-9);
}
END_TEST

/*
 * Two reads started at 10 and 11 ms (0+8, 8+8), the second merged into the
 * first before either is issued (block_rq_merge of 8+8), the one request
 * completing at 20 ms; another read from 100 to 110 ms. The kernel counts
 * 2 reads (8 and 4 kB) and 1 merge; the merged request's in-flight count
 * drops at the merge, so the gap from 20 to 100 ms is idle: busy 10 + 10 ms.
 */
START_TEST(request_merge)
{
	const struct ios_dev *d;
	struct ios_row r;

	iostat_count_started(s, true);
	ev(10 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 0, 8);
	ev(10 * MS, SDA, BLK_EV_IO_START, BLK_OP_READ, 0, 8);
	ev(10 * MS, SDA, BLK_EV_RQ_INSERT, BLK_OP_READ, 0, 8);
	ev(11 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 8, 8);
	ev(11 * MS, SDA, BLK_EV_IO_START, BLK_OP_READ, 8, 8);
	ev(11 * MS, SDA, BLK_EV_RQ_INSERT, BLK_OP_READ, 8, 8);
	ev(12 * MS, SDA, BLK_EV_RQ_MERGE, BLK_OP_READ, 8, 8);
	ev(13 * MS, SDA, BLK_EV_RQ_ISSUE, BLK_OP_READ, 0, 16);
	ev(20 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 0, 16);
	ev(20 * MS, SDA, BLK_EV_IO_DONE, BLK_OP_READ, 0, 16);
	ev(100 * MS, SDA, BLK_EV_GETRQ, BLK_OP_READ, 64, 8);
	ev(100 * MS, SDA, BLK_EV_IO_START, BLK_OP_READ, 64, 8);
	ev(101 * MS, SDA, BLK_EV_RQ_ISSUE, BLK_OP_READ, 64, 8);
	ev(110 * MS, SDA, BLK_EV_RQ_COMPLETE, BLK_OP_READ, 64, 8);
	ev(110 * MS, SDA, BLK_EV_IO_DONE, BLK_OP_READ, 64, 8);
	d = iostat_dev(s, 0);
	ck_assert_uint_eq(d->npending, 0);
	iostat_row(d, 0, 1000 * MS, &r);
	ck_assert_double_eq_tol(r.rs[IOS_READ], 2.0, 1e-9);
	ck_assert_double_eq_tol(r.kbs[IOS_READ], 12.0, 1e-9);
	ck_assert_double_eq_tol(r.rqms[IOS_READ], 1.0, 1e-9);
	ck_assert_double_eq_tol(r.await[IOS_READ], 10.0, 1e-9);
	ck_assert_double_eq_tol(r.util, 2.0, 1e-9);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("iostat");
	TCase *tc = tcase_create("iostat");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, request_based);
	tcase_add_test(tc, flush);
	tcase_add_test(tc, bio_based_and_intervals);
	tcase_add_test(tc, bio_split_counts_what_was_queued);
	tcase_add_test(tc, jiffies);
	tcase_add_test(tc, tick_phase);
	tcase_add_test(tc, tick_phase_late_timers);
	tcase_add_test(tc, accounting_events);
	tcase_add_test(tc, request_merge);
	suite_add_tcase(su, tc);
	return check_run(su);
}
