// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_mtrigger.c - the flight recorder's conditions met by the I/O:
 * p99>TIME end to end on top-level I/O only, p99>TIME@DEV on DEV's bios
 * only (whatever tree they are in), both over one interval and afresh
 * after it, a percentile and not a maximum, and latency>TIME on the first
 * slow bio; a pending reason is never overwritten.
 */
#include <check.h>
#include <string.h>

#include "check_run.h"
#include "base/event.h"
#include "cmd/monitor-trigger.h"

#define MS 1000000ULL
#define DISK KDEV_MKDEV(8, 0)
#define PART KDEV_MKDEV(8, 1)
#define DM KDEV_MKDEV(253, 0)

static char reason[128];

/* p99>BOUND@sda, resolved as monitor-record does; @e2e: p99>E2E too */
static void init_disk(struct mtrig *t, uint64_t bound, uint64_t e2e)
{
	ck_assert_int_eq(mtrig_init(t, 0, e2e, 1), 0);
	ck_assert_uint_eq(t->nlayers, 1);
	t->layers[0].dev = DISK;
	t->layers[0].p99_ns = bound;
	strcpy(t->layers[0].name, "sda");
}

/*
 * One completed tree: dm at the top (@top) over the disk, @e2e and @disk
 * the latencies (C - Q) at each.
 */
static bool io(struct mtrig *t, bool top, uint64_t e2e, uint64_t disk)
{
	static uint64_t now = 1000 * MS;
	struct tk_rec recs[2] = {
		{ .dev = DM, .parent = -1, .q = now, .c = now + e2e },
		{ .dev = DISK, .parent = 0, .parent_dev = DM, .depth = 1, .q = now + 1000,
		  .c = now + 1000 + disk },
	};
	struct tk_io tio = { .top = top, .root = &recs[0], .recs = recs, .nrecs = 2 };

	now += 10 * MS;
	return mtrig_io(t, &tio, reason, sizeof(reason));
}

START_TEST(layer_p99_over_an_interval)
{
	struct mtrig t;

	init_disk(&t, 50 * MS, 0);
	reason[0] = '\0';
	/* fast at the disk: nothing, and no end-to-end condition either */
	for (int i = 0; i < 100; i++)
		ck_assert(!io(&t, true, 2 * MS, 1 * MS));
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	ck_assert_str_eq(reason, "");
	/* 3 of 100 bios at the disk above 50 ms: its p99 is above */
	for (int i = 0; i < 97; i++)
		io(&t, true, 2 * MS, 1 * MS);
	for (int i = 0; i < 3; i++)
		io(&t, true, 101 * MS, 100 * MS);
	ck_assert(mtrig_interval(&t, reason, sizeof(reason)));
	ck_assert_ptr_nonnull(strstr(reason, "p99: p99 of "));
	ck_assert_ptr_nonnull(strstr(reason, " ms at sda (8:0)"));
	/* afresh: the next interval is fast */
	reason[0] = '\0';
	for (int i = 0; i < 100; i++)
		io(&t, true, 2 * MS, 1 * MS);
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	/* an interval without I/O at the disk holds nothing */
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	mtrig_free(&t);
}
END_TEST

START_TEST(layer_p99_is_a_percentile)
{
	struct mtrig t;

	init_disk(&t, 50 * MS, 0);
	reason[0] = '\0';
	/* 1 slow bio in 200: the maximum is above, the p99 is not */
	for (int i = 0; i < 199; i++)
		io(&t, true, 2 * MS, 1 * MS);
	io(&t, true, 501 * MS, 500 * MS);
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	/* at the bound is not above it */
	for (int i = 0; i < 10; i++)
		io(&t, true, 50 * MS, 50 * MS);
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	mtrig_free(&t);
}
END_TEST

START_TEST(layer_p99_counts_that_layer_only)
{
	struct mtrig t;

	init_disk(&t, 50 * MS, 0);
	reason[0] = '\0';
	/* slow above the disk (dm's own time), fast at the disk: no trigger */
	for (int i = 0; i < 50; i++)
		io(&t, true, 200 * MS, 1 * MS);
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	/* I/O a layer issued itself counts at the disk as well */
	for (int i = 0; i < 50; i++)
		io(&t, false, 200 * MS, 150 * MS);
	ck_assert(mtrig_interval(&t, reason, sizeof(reason)));
	ck_assert_ptr_nonnull(strstr(reason, "at sda (8:0)"));
	mtrig_free(&t);
}
END_TEST

START_TEST(end_to_end_p99_stays_end_to_end)
{
	struct mtrig t;

	ck_assert_int_eq(mtrig_init(&t, 0, 50 * MS, 0), 0);
	ck_assert_uint_eq(t.nlayers, 0);
	reason[0] = '\0';
	/* slow I/O a layer issued itself is no top-level latency */
	for (int i = 0; i < 50; i++)
		io(&t, false, 200 * MS, 150 * MS);
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	for (int i = 0; i < 50; i++)
		io(&t, true, 200 * MS, 1 * MS);
	ck_assert(mtrig_interval(&t, reason, sizeof(reason)));
	ck_assert_ptr_nonnull(strstr(reason, "p99: end-to-end p99 of "));
	mtrig_free(&t);
}
END_TEST

START_TEST(pending_reason_kept)
{
	struct mtrig t;

	init_disk(&t, 50 * MS, 50 * MS);
	for (int i = 0; i < 50; i++)
		io(&t, true, 200 * MS, 150 * MS);
	/* both hold: end to end is said first */
	reason[0] = '\0';
	ck_assert(mtrig_interval(&t, reason, sizeof(reason)));
	ck_assert_ptr_nonnull(strstr(reason, "end-to-end"));
	/* a pending reason stays; the interval starts afresh all the same */
	for (int i = 0; i < 50; i++)
		io(&t, true, 200 * MS, 150 * MS);
	strcpy(reason, "signal: SIGUSR1");
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	ck_assert_str_eq(reason, "signal: SIGUSR1");
	reason[0] = '\0';
	ck_assert(!mtrig_interval(&t, reason, sizeof(reason)));
	mtrig_free(&t);
}
END_TEST

START_TEST(latency_first_slow_bio)
{
	struct mtrig t;

	ck_assert_int_eq(mtrig_init(&t, 50 * MS, 0, 0), 0);
	reason[0] = '\0';
	ck_assert(!io(&t, true, 20 * MS, 10 * MS));
	ck_assert(io(&t, true, 120 * MS, 100 * MS));
	/* the root (dm) is the first slow bio of the tree */
	ck_assert_str_eq(reason, "latency: a bio of 120.000 ms at 253:0");
	ck_assert(!io(&t, true, 300 * MS, 300 * MS));
	ck_assert_str_eq(reason, "latency: a bio of 120.000 ms at 253:0");
	mtrig_free(&t);
}
END_TEST

static Suite *mtrigger_suite(void)
{
	Suite *s = suite_create("mtrigger");
	TCase *tc = tcase_create("p99");

	tcase_add_test(tc, layer_p99_over_an_interval);
	tcase_add_test(tc, layer_p99_is_a_percentile);
	tcase_add_test(tc, layer_p99_counts_that_layer_only);
	tcase_add_test(tc, end_to_end_p99_stays_end_to_end);
	tcase_add_test(tc, pending_reason_kept);
	suite_add_tcase(s, tc);
	tc = tcase_create("latency");
	tcase_add_test(tc, latency_first_slow_bio);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(mtrigger_suite());
}
