// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_btt_qtree.c - btt's tree of followed bios: its shape after known
 * inserts and removals (the classic red-black balancing, worked out by
 * hand), and btt's walks where bios overlap.
 */
#include <check.h>

#include "check_run.h"
#include "track/btt-qtree.h"

static struct btt_qtree t;

static void setup(void)
{
	btt_qtree_init(&t);
}

static void teardown(void)
{
	btt_qtree_destroy(&t);
}

static struct btt_q *put(uint64_t sector, uint32_t nsec, uint64_t q)
{
	struct btt_q b = { .sector = sector, .nsec = nsec, .q = q };

	return btt_qtree_put(&t, &b, 1000);
}

/* the tree in btt's walk order (a node, its left, its right): its shape */
static void shape_is(const uint64_t *want, size_t n)
{
	size_t got;
	struct btt_q *const *all = btt_qtree_inside(&t, 0, UINT64_MAX, &got);

	ck_assert_uint_eq(got, n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(all[i]->sector, want[i]);
}

/*
 * 1..7 in order: 2(1, 4(3, 6(5, 7))), 4 red. Removing 4 moves its
 * successor 5 into its place (red: nothing to rebalance); removing the
 * black leaf 1 then rotates left at 2: 5(2(, 3), 6(, 7)).
 */
START_TEST(shape)
{
	static const uint64_t seven[] = { 2, 1, 4, 3, 6, 5, 7 };
	static const uint64_t no4[] = { 2, 1, 5, 3, 6, 7 };
	static const uint64_t no1[] = { 5, 2, 3, 6, 7 };

	for (uint64_t s = 1; s <= 7; s++)
		ck_assert_ptr_nonnull(put(s, 1, s));
	shape_is(seven, 7);
	btt_qtree_erase(&t, btt_qtree_holding(&t, 4));
	shape_is(no4, 6);
	btt_qtree_erase(&t, btt_qtree_holding(&t, 1));
	shape_is(no1, 5);
	ck_assert_uint_eq(t.n, 5);
}
END_TEST

/* a bio queued where one starts takes its place: one bio, the new one */
START_TEST(replace)
{
	put(100, 8, 1);
	put(100, 16, 2);
	ck_assert_uint_eq(t.n, 1);
	ck_assert_uint_eq(btt_qtree_holding(&t, 110)->q, 2);
}
END_TEST

/*
 * 100+50 at the root, 120+10 on its right: a completion of 100+50 takes
 * the root only (it ends where the range ends: btt does not look right),
 * and sector 125 is the root's (the first bio on the way that holds it).
 */
START_TEST(overlap)
{
	size_t n;
	struct btt_q *const *in;

	put(100, 50, 1);
	put(120, 10, 2);
	in = btt_qtree_inside(&t, 100, 150, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(in[0]->q, 1);
	ck_assert_uint_eq(btt_qtree_holding(&t, 125)->q, 1);
	/* nor from an earlier start; a range that ends past the root sees both */
	btt_qtree_inside(&t, 99, 150, &n);
	ck_assert_uint_eq(n, 1);
	in = btt_qtree_inside(&t, 100, 151, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(in[1]->q, 2);
}
END_TEST

/* the limit of bios held */
START_TEST(limit)
{
	struct btt_q b = { .nsec = 1 };

	for (b.sector = 0; b.sector < 3; b.sector++)
		ck_assert_ptr_nonnull(btt_qtree_put(&t, &b, 3));
	ck_assert_ptr_null(btt_qtree_put(&t, &b, 3));
	/* a replacement needs no room */
	b.sector = 1;
	ck_assert_ptr_nonnull(btt_qtree_put(&t, &b, 3));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("btt_qtree");
	TCase *tc = tcase_create("btt_qtree");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, shape);
	tcase_add_test(tc, replace);
	tcase_add_test(tc, overlap);
	tcase_add_test(tc, limit);
	suite_add_tcase(s, tc);
	return check_run(s);
}
