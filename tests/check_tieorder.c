// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_tieorder.c - events of equal time in the order btt reads them,
 * blkparse's order of the per-CPU files. Each order asserted here of Qs
 * alone is what blkparse 1.2.0 (Debian's blktrace 1.2.0-5) printed for
 * blktrace files of those Qs, CPUs, times and sectors; the last test is the
 * seek figures of a recording of check-vm (stack "linear", kernel 6.1),
 * where report --btt took two Qs of one time in the other order than btt.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "check_run.h"
#include "cmd/report-btt.h"
#include "track/tieorder.h"

#define SDA KDEV_MKDEV(8, 0)
#define DM0 KDEV_MKDEV(253, 0)

static uint64_t sectors[32];
static size_t nseen;

static int take(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	(void)dev;
	(void)timer;
	(void)ctx;
	if (nseen < 32)
		sectors[nseen++] = ev->sector;
	return 0;
}

/* blkparse's streams hold every event here, but those of sector 999 */
static bool recorded(const struct blk_event *ev, uint32_t dev, bool timer)
{
	(void)dev;
	(void)timer;
	return ev->sector != 999;
}

/* a Q at @ts on @cpu, named by its sector; in (time, CPU) order, as merged */
static void q(struct tieorder *t, uint16_t cpu, uint64_t ts, uint64_t sector)
{
	struct blk_event ev = { .ts = ts, .cpu = cpu, .kind = BLK_EV_BIO_QUEUE, .dev = SDA,
				.sector = sector, .nr_sector = 8, .bytes = 4096, .count = 1 };

	ck_assert_int_eq(tieorder_event(&ev, SDA, false, t), 0);
}

static void order_is(struct tieorder *t, const uint64_t *want, size_t n)
{
	ck_assert_int_eq(tieorder_finish(t), 0);
	ck_assert_uint_eq(nseen, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(sectors[i] == want[i], "event %zu: sector %llu, want %llu", i,
			      (unsigned long long)sectors[i], (unsigned long long)want[i]);
	tieorder_free(t);
}

/*
 * CPUs 0, 1, 2 at 1000, 2000, 3000, then each at 5000: the CPU of the last
 * record goes first, then the one before it (blkparse: 10 20 30 300 200 100)
 */
START_TEST(last_record_first)
{
	struct tieorder *t = tieorder_alloc(take, NULL, recorded);
	static const uint64_t want[] = { 10, 20, 30, 300, 200, 100 };

	nseen = 0;
	q(t, 0, 1000, 10);
	q(t, 1, 2000, 20);
	q(t, 2, 3000, 30);
	ck_assert_uint_eq(nseen, 2);	/* 3000 may still have ties */
	q(t, 0, 5000, 100);
	q(t, 1, 5000, 200);
	q(t, 2, 5000, 300);
	order_is(t, want, 6);
}
END_TEST

/* each CPU's events of the time stay together and in their order */
START_TEST(runs_stay_together)
{
	struct tieorder *t = tieorder_alloc(take, NULL, recorded);
	static const uint64_t want[] = { 10, 20, 201, 202, 101, 102 };

	nseen = 0;
	q(t, 0, 1000, 10);
	q(t, 1, 2000, 20);
	q(t, 0, 5000, 101);
	q(t, 0, 5000, 102);
	q(t, 1, 5000, 201);
	q(t, 1, 5000, 202);
	order_is(t, want, 6);
}
END_TEST

/*
 * No record gone yet: blkparse's order of opening. CPUs 0, 1, 2 all first
 * at 5000: 100 300 200. CPU 0 at 1000 and 5000, CPUs 1 and 2 at 5000: 10
 * 100 300 200. CPU 1 at 1000 and 5000, CPUs 0, 2, 3 at 5000: 10 200 400 300
 * 100.
 */
START_TEST(opening_order)
{
	struct tieorder *t = tieorder_alloc(take, NULL, recorded);
	static const uint64_t want1[] = { 100, 300, 200 };
	static const uint64_t want2[] = { 10, 100, 300, 200 };
	static const uint64_t want3[] = { 10, 200, 400, 300, 100 };

	nseen = 0;
	q(t, 0, 5000, 100);
	q(t, 1, 5000, 200);
	q(t, 2, 5000, 300);
	order_is(t, want1, 3);

	t = tieorder_alloc(take, NULL, recorded);
	nseen = 0;
	q(t, 0, 1000, 10);
	q(t, 0, 5000, 100);
	q(t, 1, 5000, 200);
	q(t, 2, 5000, 300);
	order_is(t, want2, 4);

	t = tieorder_alloc(take, NULL, recorded);
	nseen = 0;
	q(t, 1, 1000, 10);
	q(t, 0, 5000, 100);
	q(t, 1, 5000, 200);
	q(t, 2, 5000, 300);
	q(t, 3, 5000, 400);
	order_is(t, want3, 5);
}
END_TEST

/*
 * An event with no record (sector 999) is not in blkparse's streams: CPU
 * 0's at 3000 does not make it the CPU of the last record, CPU 1's at 2000
 * is; it goes on with its CPU's events.
 */
START_TEST(records_only)
{
	struct tieorder *t = tieorder_alloc(take, NULL, recorded);
	static const uint64_t want[] = { 10, 20, 999, 200, 100 };

	nseen = 0;
	q(t, 0, 1000, 10);
	q(t, 1, 2000, 20);
	q(t, 0, 3000, 999);
	q(t, 0, 5000, 100);
	q(t, 1, 5000, 200);
	order_is(t, want, 5);
}
END_TEST

/* a Q of @nsec sectors at DM0 through report --btt's whole chain */
static void rq(struct report_btt *rb, uint16_t cpu, uint64_t ts, uint64_t sector, uint32_t nsec)
{
	struct blk_event ev = { .ts = ts, .cpu = cpu, .pid = 500 + cpu, .kind = BLK_EV_BIO_QUEUE,
				.op = BLK_OP_WRITE, .dev = DM0, .sector = sector,
				.nr_sector = nsec, .bytes = nsec * 512, .count = 1 };

	strcpy(ev.comm, "sync");
	ck_assert_int_eq(report_btt_event(&ev, rb), 0);
}

/*
 * The recording's Qs at 253,0, in (time, CPU) order: CPU 1 queued 200+8
 * last, then at one time CPU 0 a discard at 16008 and CPU 1 328+8, and CPU
 * 0 the discard again later. btt reads CPU 1's first (the CPU of the last
 * record): distances 0, 192, 120, 15672 and 0 (overlapping), not 0, 192,
 * 15800, -15680 and 15672.
 */
START_TEST(report_btt_seeks_in_btt_order)
{
	struct report_btt rb = { 0 };
	const struct btt_dev *d;
	size_t n;

	ck_assert_int_eq(report_btt_init(&rb), 0);
	rq(&rb, 0, 50, 0, 8);
	rq(&rb, 1, 100, 200, 8);
	rq(&rb, 0, 200, 16008, 106872);
	rq(&rb, 1, 200, 328, 8);
	rq(&rb, 0, 300, 16008, 106872);
	ck_assert_int_eq(report_btt_finish(&rb), 0);
	d = btt_devs(rb.b, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(d->dev, DM0);
	ck_assert_uint_eq(d->q2q_seek.nseeks, 5);
	ck_assert_double_eq(d->q2q_seek.total, 192 + 120 + 15672);
	ck_assert_uint_eq(d->q2q_seek.nzero, 2);
	report_btt_destroy(&rb);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tieorder");
	TCase *tc = tcase_create("tieorder");

	tcase_add_test(tc, last_record_first);
	tcase_add_test(tc, runs_stay_together);
	tcase_add_test(tc, opening_order);
	tcase_add_test(tc, records_only);
	tcase_add_test(tc, report_btt_seeks_in_btt_order);
	suite_add_tcase(s, tc);
	return check_run(s);
}
