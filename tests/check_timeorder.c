// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_timeorder.c - plugdev's stream put back in time order: an unplug
 * held until its CPU's next event goes on before what the other CPUs did
 * after it, as btt sees them in blkparse's order.
 */
#include <check.h>
#include <stdint.h>

#include "check_run.h"
#include "track/plugdev.h"
#include "track/timeorder.h"

#define SDA KDEV_MKDEV(8, 0)

static uint64_t seen[16], sectors[16];
static bool timers[16];
static size_t nseen;

static int take(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	(void)dev;
	(void)ctx;
	if (nseen < 16) {
		timers[nseen] = timer;
		sectors[nseen] = ev->sector;
		seen[nseen++] = ev->ts;
	}
	return 0;
}

/* feed @ev to plugdev, then release what nothing held can come before */
static void feed(struct plugdev *p, struct timeorder *t, uint64_t ts, uint16_t cpu,
		 int32_t pid, enum blk_kind kind)
{
	struct blk_event ev = { .ts = ts, .cpu = cpu, .pid = pid, .kind = kind, .dev = SDA,
				.sector = 8, .nr_sector = 8, .bytes = 4096, .count = 1 };

	ck_assert_int_eq(plugdev_event(&ev, p), 0);
	ck_assert_int_eq(timeorder_release(t, plugdev_held_from(p)), 0);
}

/*
 * CPU 0: task 5 plugs at 10 and unplugs at 20 for a sleep (its insert at
 * 25, then task 6's queue at 90 tell it is a UT); CPU 1: task 7 queues at
 * 30 and 40. The unplug waits for 90, the order stays 10 20 25 30 40 90.
 */
START_TEST(unplug_in_order)
{
	struct timeorder *t = timeorder_alloc(take, NULL);
	struct plugdev *p = plugdev_alloc(timeorder_event, t);
	static const uint64_t want[] = { 5, 10, 20, 25, 30, 40, 90 };

	nseen = 0;
	feed(p, t, 5, 0, 5, BLK_EV_GETRQ);
	feed(p, t, 10, 0, 5, BLK_EV_PLUG);
	feed(p, t, 20, 0, 5, BLK_EV_UNPLUG);
	ck_assert_uint_eq(plugdev_held_from(p), 20);
	feed(p, t, 25, 0, 5, BLK_EV_RQ_INSERT);
	feed(p, t, 30, 1, 7, BLK_EV_BIO_QUEUE);
	feed(p, t, 40, 1, 7, BLK_EV_BIO_QUEUE);
	/* nothing from 20 on has gone yet */
	ck_assert_uint_eq(nseen, 2);
	feed(p, t, 90, 0, 6, BLK_EV_BIO_QUEUE);
	ck_assert_uint_eq(plugdev_held_from(p), UINT64_MAX);
	ck_assert_int_eq(plugdev_finish(p), 0);
	ck_assert_int_eq(timeorder_release(t, UINT64_MAX), 0);
	ck_assert_uint_eq(nseen, 7);
	for (size_t i = 0; i < 7; i++)
		ck_assert_uint_eq(seen[i], want[i]);
	/* inserted and not issued by the task: a flush on the way to sleep */
	ck_assert(timers[2]);
	plugdev_free(p);
	timeorder_free(t);
}
END_TEST

/* equal times go on in the order they came */
START_TEST(ties_keep_arrival)
{
	struct timeorder *t = timeorder_alloc(take, NULL);
	struct blk_event a = { .ts = 50, .sector = 1 }, b = { .ts = 50, .sector = 2 };
	struct blk_event c = { .ts = 40, .sector = 3 };

	nseen = 0;
	timeorder_event(&a, SDA, false, t);
	timeorder_event(&b, SDA, false, t);
	timeorder_event(&c, SDA, false, t);
	/* only what is before the bound goes */
	timeorder_release(t, 50);
	ck_assert_uint_eq(nseen, 1);
	timeorder_release(t, UINT64_MAX);
	ck_assert_uint_eq(nseen, 3);
	ck_assert_uint_eq(seen[0], 40);
	ck_assert_uint_eq(sectors[1], 1);
	ck_assert_uint_eq(sectors[2], 2);
	timeorder_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("timeorder");
	TCase *tc = tcase_create("timeorder");

	tcase_add_test(tc, unplug_in_order);
	tcase_add_test(tc, ties_keep_arrival);
	suite_add_tcase(s, tc);
	return check_run(s);
}
