// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_slowest.c - the N slowest top-level I/Os: selection, order, ties,
 * what is left out, and that each kept tree is a copy.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "track/slowest.h"

#define SDA KDEV_MKDEV(8, 0)

/* Offer one top-level single-layer I/O queued at @q, completed at @c. */
static int offer(struct slowest *s, uint64_t q, uint64_t c, bool top, int32_t pid)
{
	static uint64_t id;
	struct tk_rec r = { .dev = SDA, .parent = -1, .op = BLK_OP_WRITE, .sectors = 8,
			    .q = q, .c = c, .complete = true };
	struct tk_io io = { .id = ++id, .pid = pid, .top = top, .matched = true, .root = &r,
			    .recs = &r, .nrecs = 1 };

	strcpy(io.comm, "fio");
	return slowest_io(s, &io, SLOWEST_NO_OWNER);
}

START_TEST(keeps_the_slowest_sorted)
{
	/* latencies 10, 50, 30, 70, 20, 60, 40: the three slowest are 70, 60, 50 */
	static const uint64_t lat[] = { 10, 50, 30, 70, 20, 60, 40 };
	struct slowest *s = slowest_alloc(3);
	const struct slow_io *v;
	size_t n;

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < 7; i++)
		ck_assert_int_eq(offer(s, 1000 + i, 1000 + i + lat[i], true, (int32_t)i), 0);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(v[0].lat, 70);
	ck_assert_int_eq(v[0].pid, 3);
	ck_assert_uint_eq(v[1].lat, 60);
	ck_assert_uint_eq(v[2].lat, 50);
	ck_assert_str_eq(v[0].comm, "fio");
	ck_assert_uint_eq(slowest_offered(s), 7);
	slowest_free(s);
}
END_TEST

START_TEST(ties_keep_the_first_queued)
{
	/*
	 * Five I/Os of latency 100 queued at 50, 10, 40, 20, 30 and one of 5:
	 * with room for three, the ones queued at 10, 20, 30 stay, in that order.
	 */
	static const uint64_t q[] = { 50, 10, 40, 20, 30 };
	struct slowest *s = slowest_alloc(3);
	const struct slow_io *v;
	size_t n;

	for (size_t i = 0; i < 5; i++)
		offer(s, q[i], q[i] + 100, true, (int32_t)i);
	offer(s, 1, 6, true, 9);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(v[0].recs[0].q, 10);
	ck_assert_uint_eq(v[1].recs[0].q, 20);
	ck_assert_uint_eq(v[2].recs[0].q, 30);
	slowest_free(s);
}
END_TEST

START_TEST(ties_on_q_keep_the_first_begun)
{
	/* equal latency and Q: the first begun stays, in whatever order offered */
	struct slowest *s = slowest_alloc(2);
	const struct slow_io *v;
	size_t n;

	offer(s, 10, 110, true, 1);
	offer(s, 10, 110, true, 2);
	offer(s, 10, 110, true, 3);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(v[0].pid, 1);
	ck_assert_int_eq(v[1].pid, 2);
	ck_assert_uint_lt(v[0].id, v[1].id);
	slowest_free(s);
}
END_TEST

START_TEST(sorted_then_offered_again)
{
	/* asking for the order mid-trace leaves a working set behind */
	struct slowest *s = slowest_alloc(2);
	const struct slow_io *v;
	size_t n;

	offer(s, 1, 11, true, 1);
	offer(s, 2, 32, true, 2);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(v[0].lat, 30);
	offer(s, 3, 23, true, 3);
	offer(s, 4, 104, true, 4);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0].lat, 100);
	ck_assert_uint_eq(v[1].lat, 30);
	slowest_free(s);
}
END_TEST

START_TEST(layer_issued_and_broken_left_out)
{
	struct slowest *s = slowest_alloc(4);
	size_t n;

	offer(s, 10, 1000, false, 1);	/* issued by a layer: not top-level */
	offer(s, 0, 1000, true, 2);	/* never seen queued */
	offer(s, 500, 100, true, 3);	/* completion before queue */
	offer(s, 10, 20, true, 4);
	slowest_sorted(s, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(slowest_offered(s), 1);
	slowest_free(s);
}
END_TEST

START_TEST(trees_are_copied)
{
	/* two layers; the caller's records change after the offer */
	struct tk_rec r[2] = {
		{ .dev = KDEV_MKDEV(253, 0), .parent = -1, .op = BLK_OP_READ, .sectors = 8,
		  .q = 100, .down = 110, .up = 400, .c = 420 },
		{ .dev = SDA, .parent = 0, .depth = 1, .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ,
		  .sectors = 8, .q = 110, .d = 120, .down = 120, .up = 400, .c = 400 },
	};
	struct tk_io io = { .pid = 7, .top = true, .root = r, .recs = r, .nrecs = 2 };
	struct slowest *s = slowest_alloc(1);
	const struct slow_io *v;
	size_t n;

	ck_assert_int_eq(slowest_io(s, &io, 12), 0);
	memset(r, 0, sizeof(r));
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(v[0].nrecs, 2);
	ck_assert_uint_eq(v[0].recs[1].dev, SDA);
	ck_assert_uint_eq(v[0].recs[1].d, 120);
	ck_assert_uint_eq(v[0].lat, 320);
	ck_assert_int_eq(v[0].owner, 12);
	slowest_free(s);
}
END_TEST

/* Offer tree @id, issued for @cause when not top-level, queued at @q, completed at @c. */
static int offer_io(struct slowest *s, uint64_t id, uint64_t cause, uint8_t cls, uint64_t q,
		    uint64_t c)
{
	struct tk_rec r = { .dev = cls == TK_IO_TOP ? KDEV_MKDEV(9, 0) : SDA, .parent = -1,
			    .op = BLK_OP_READ, .sectors = 8, .q = q, .qev = q, .c = c };
	struct tk_io io = { .id = id, .top = cls == TK_IO_TOP, .cls = cls, .cause = cause,
			    .issuer = cls == TK_IO_TOP ? 0 : KDEV_MKDEV(9, 0), .root = &r,
			    .recs = &r, .nrecs = 1 };

	return slowest_io(s, &io, SLOWEST_NO_OWNER);
}

/*
 * What a layer issued on behalf of a slow I/O goes with it: completed
 * before it (a read-modify-write read), through a chain (a flush for that
 * read), or after it; what served an I/O not kept is let go (issue 28, 4).
 */
START_TEST(caused_io_goes_with_its_cause)
{
	struct slowest *s = slowest_alloc(2);
	const struct slow_io *v;
	size_t n;

	offer_io(s, 3, 2, TK_IO_CAUSED, 20, 30);	/* for 2, which served 1 */
	offer_io(s, 2, 1, TK_IO_CAUSED, 15, 40);
	offer_io(s, 5, 4, TK_IO_CAUSED, 25, 35);	/* for 4, fast: not kept */
	offer_io(s, 6, 0, TK_IO_LAYER, 25, 35);		/* on its own */
	offer_io(s, 1, 0, TK_IO_TOP, 10, 1000);
	offer_io(s, 4, 0, TK_IO_TOP, 11, 12);
	offer_io(s, 7, 0, TK_IO_TOP, 10, 500);
	offer_io(s, 8, 1, TK_IO_CAUSED, 900, 1100);	/* after the I/O it served */
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(v[0].id, 1);
	ck_assert_uint_eq(v[0].ncaused, 3);
	ck_assert_uint_eq(v[0].caused[0].id, 3);
	ck_assert_uint_eq(v[0].caused[0].cause, 2);
	ck_assert_uint_eq(v[0].caused[1].id, 2);
	ck_assert_uint_eq(v[0].caused[2].id, 8);
	ck_assert_uint_eq(v[0].caused[2].issuer, KDEV_MKDEV(9, 0));
	ck_assert_uint_eq(v[0].caused[2].recs[0].dev, SDA);
	ck_assert_uint_eq(v[1].id, 7);
	ck_assert_uint_eq(v[1].ncaused, 0);
	ck_assert_uint_eq(slowest_caused_dropped(s), 0);
	slowest_free(s);
}
END_TEST

/*
 * 6.1 md-raid1: md's superblock write (2), issued for a slow write (1), is
 * handed out at its data's completion; the post-flush the flush machinery
 * sends for it (3) completes after it, and a flush for that one (4) after
 * that: both still go with the slow write, through the chain of causes.
 */
START_TEST(caused_after_its_cause_goes_on)
{
	struct slowest *s = slowest_alloc(1);
	const struct slow_io *v;
	size_t n;

	offer_io(s, 2, 1, TK_IO_CAUSED, 20, 40);
	offer_io(s, 3, 2, TK_IO_CAUSED, 41, 45);
	offer_io(s, 4, 3, TK_IO_CAUSED, 46, 50);
	offer_io(s, 1, 0, TK_IO_TOP, 10, 1000);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(v[0].id, 1);
	ck_assert_uint_eq(v[0].ncaused, 3);
	ck_assert_uint_eq(v[0].caused[0].id, 2);
	ck_assert_uint_eq(v[0].caused[1].id, 3);
	ck_assert_uint_eq(v[0].caused[1].cause, 2);	/* the I/O it served, as it was */
	ck_assert_uint_eq(v[0].caused[2].id, 4);
	ck_assert_uint_eq(v[0].caused[2].cause, 3);
	/* and when the slow one completed before both */
	offer_io(s, 5, 0, TK_IO_TOP, 10, 1500);
	offer_io(s, 7, 5, TK_IO_CAUSED, 1400, 1600);
	offer_io(s, 8, 7, TK_IO_CAUSED, 1601, 1700);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(v[0].id, 5);
	ck_assert_uint_eq(v[0].ncaused, 2);
	ck_assert_uint_eq(v[0].caused[0].id, 7);
	ck_assert_uint_eq(v[0].caused[1].id, 8);
	slowest_free(s);
}
END_TEST

/* What waits for its cause is bounded: past the bound, the oldest goes. */
START_TEST(caused_waiting_is_bounded)
{
	struct slowest *s = slowest_alloc(1);
	const struct slow_io *v;
	size_t n;

	for (uint64_t i = 0; i <= SLOWEST_MAX_PENDING; i++)
		offer_io(s, 1000000 + i, 10 + i, TK_IO_CAUSED, 20, 30);
	ck_assert_uint_eq(slowest_caused_dropped(s), 1);
	offer_io(s, 10, 0, TK_IO_TOP, 10, 100);		/* its caused I/O was let go */
	offer_io(s, 11, 0, TK_IO_TOP, 10, 50);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(v[0].id, 10);
	ck_assert_uint_eq(v[0].ncaused, 0);
	offer_io(s, 12, 0, TK_IO_TOP, 10, 200);
	v = slowest_sorted(s, &n);
	ck_assert_uint_eq(v[0].id, 12);
	ck_assert_uint_eq(v[0].ncaused, 1);
	slowest_free(s);
}
END_TEST

START_TEST(zero_is_refused)
{
	ck_assert_ptr_null(slowest_alloc(0));
	slowest_free(NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slowest");
	TCase *tc = tcase_create("slowest");

	tcase_add_test(tc, keeps_the_slowest_sorted);
	tcase_add_test(tc, ties_keep_the_first_queued);
	tcase_add_test(tc, ties_on_q_keep_the_first_begun);
	tcase_add_test(tc, sorted_then_offered_again);
	tcase_add_test(tc, layer_issued_and_broken_left_out);
	tcase_add_test(tc, trees_are_copied);
	tcase_add_test(tc, caused_io_goes_with_its_cause);
	tcase_add_test(tc, caused_after_its_cause_goes_on);
	tcase_add_test(tc, caused_waiting_is_bounded);
	tcase_add_test(tc, zero_is_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
