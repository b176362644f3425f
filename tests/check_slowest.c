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
	tcase_add_test(tc, zero_is_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
