// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_access.c - the access pattern and in-flight I/Os per layer, from
 * trees handed over in completion order: sequential and random streams
 * (share, entropy), in-flight integration on a trace computed by hand, the
 * horizon, and a tree the tracker completes out of entry order.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "track/access.h"

#define SDA	KDEV_MKDEV(8, 0)
#define SDA1	KDEV_MKDEV(8, 1)

static struct access a;

static void setup(void)
{
	access_init(&a);
}

static void teardown(void)
{
	access_destroy(&a);
}

/* One single-layer I/O at SDA: Q @q, C @c, @sectors at @sector. */
static void one(uint64_t q, uint64_t c, uint8_t op, uint64_t sector, uint32_t sectors)
{
	struct tk_rec r = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST, .op = op,
			    .sector = sector, .sectors = sectors, .q = q, .c = c };
	struct tk_io io = { .top = true, .root = &r, .recs = &r, .nrecs = 1 };

	ck_assert_int_eq(access_io(&a, &io), 0);
}

START_TEST(sequential_stream)
{
	/* 100 reads of 8 sectors, each where the last ended: 99 sequential, 0 bits */
	const struct access_layer *l;

	for (int i = 0; i < 100; i++)
		one(1000 + i * 10, 1005 + i * 10, BLK_OP_READ, 2048 + i * 8, 8);
	access_finish(&a);
	l = access_layer_of(&a, SDA);
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(l->seek[ACCESS_READ].nseeks, 100);
	ck_assert_uint_eq(l->seek[ACCESS_READ].nseq, 99);
	ck_assert_double_eq_tol(seek_seq_share(&l->seek[ACCESS_READ]), 0.99, 1e-9);
	ck_assert_uint_eq(l->dist[ACCESS_READ].count, 99);
	ck_assert_double_eq(access_entropy(&l->dist[ACCESS_READ]), 0.0);
	ck_assert_uint_eq(l->seek[ACCESS_WRITE].nseeks, 0);
}
END_TEST

START_TEST(random_stream)
{
	/*
	 * 2000 writes at random 8-sector slots of a 1 GiB device: almost none
	 * sequential, the distances spread over many buckets (7.3 bits: most
	 * fall in the top few powers of two, 32 buckets each)
	 */
	const struct access_layer *l;
	uint64_t x = 88172645463325252ULL;

	for (int i = 0; i < 2000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		one(1000 + i * 10, 1005 + i * 10, BLK_OP_WRITE, (x % 262144) * 8, 8);
	}
	access_finish(&a);
	l = access_layer_of(&a, SDA);
	ck_assert(seek_seq_share(&l->seek[ACCESS_WRITE]) < 0.01);
	ck_assert_msg(access_entropy(&l->dist[ACCESS_WRITE]) > 5.0, "entropy %f",
		      access_entropy(&l->dist[ACCESS_WRITE]));
}
END_TEST

START_TEST(entropy_of_known_distributions)
{
	/* two distances half and half: 1 bit; four equally often: 2 bits */
	struct hist h = { 0 };

	for (int i = 0; i < 50; i++) {
		hist_add(&h, 8);
		hist_add(&h, 1 << 20);
	}
	ck_assert_double_eq_tol(access_entropy(&h), 1.0, 1e-9);
	for (int i = 0; i < 50; i++) {
		hist_add(&h, 100);
		hist_add(&h, 1 << 30);
	}
	ck_assert_double_eq_tol(access_entropy(&h), 2.0, 1e-9);
	memset(&h, 0, sizeof(h));
	ck_assert_double_eq(access_entropy(&h), 0.0);
}
END_TEST

START_TEST(inflight_by_hand)
{
	/*
	 * Handed over in completion order: B [20, 40), A [10, 70), C [40, 50),
	 * D [80, 90). In time order: 10 A+ (finds 0), 20 B+ (finds 1),
	 * 40 B- then C+ (finds 1: B left at that very time), 50 C-, 70 A-,
	 * 80 D+ (finds 0), 90 D-.
	 * Level: 1 on [10,20), 2 on [20,40), 2 on [40,50), 1 on [50,70),
	 * 0 on [70,80), 1 on [80,90): area 10 + 40 + 20 + 20 + 10 = 100 over
	 * [10, 90) = 80: average 1.25; maximum 2; arrivals found 0+1+1+0 = 2 in
	 * 4: 0.5; busy 70 of 80.
	 */
	const struct access_layer *l;

	one(20, 40, BLK_OP_READ, 100, 8);
	one(10, 70, BLK_OP_READ, 0, 8);
	/* the horizon: no tree in flight entered before 40 */
	access_release(&a, 40);
	l = access_layer_of(&a, SDA);
	ck_assert_uint_eq(l->inflight.samples, 2);
	ck_assert_uint_eq(l->inflight.now, 2);
	one(40, 50, BLK_OP_WRITE, 500, 8);
	one(80, 90, BLK_OP_WRITE, 508, 8);
	access_finish(&a);
	ck_assert_uint_eq(l->inflight.max, 2);
	ck_assert_uint_eq(l->inflight.now, 0);
	ck_assert_uint_eq(l->inflight.underflow, 0);
	ck_assert_double_eq_tol(inflight_avg(&l->inflight, 90), 1.25, 1e-9);
	ck_assert_double_eq_tol(inflight_sampled_avg(&l->inflight), 0.5, 1e-9);
	ck_assert_uint_eq(inflight_busy(&l->inflight, 90), 70);
	ck_assert_uint_eq(a.late, 0);
	ck_assert_uint_eq(a.first_ts, 10);
	ck_assert_uint_eq(a.last_ts, 90);
	/* the writes, in entry order: 500 then 508, sequential */
	ck_assert_uint_eq(l->seek[ACCESS_WRITE].nseq, 1);
	/* the reads in entry order: 0 then 100 */
	ck_assert_uint_eq(l->seek[ACCESS_READ].nseq, 0);
	ck_assert_uint_eq(l->dist[ACCESS_READ].max, 92);
}
END_TEST

START_TEST(late_and_layers)
{
	/*
	 * Two layers of one tree (sda1 -> sda); then a tree entering before
	 * what was already taken is counted late, and still counted.
	 */
	struct tk_rec r[2] = {
		{ .dev = SDA1, .parent = -1, .kind = TK_LAYER_REMAP, .op = BLK_OP_READ,
		  .sector = 0, .sectors = 8, .q = 100, .c = 200 },
		{ .dev = SDA, .parent = 0, .depth = 1, .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ,
		  .sector = 2048, .sectors = 8, .q = 101, .c = 200 },
	};
	struct tk_io io = { .top = true, .root = r, .recs = r, .nrecs = 2 };

	ck_assert_int_eq(access_io(&a, &io), 0);
	access_release(&a, 1000);
	ck_assert_ptr_nonnull(access_layer_of(&a, SDA1));
	ck_assert_uint_eq(access_layer_of(&a, SDA)->inflight.samples, 1);
	one(50, 60, BLK_OP_READ, 0, 8);
	access_finish(&a);
	ck_assert_uint_eq(a.late, 2);
	ck_assert_uint_eq(access_layer_of(&a, SDA)->inflight.samples, 2);
	ck_assert_uint_eq(a.npending, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("access");
	TCase *tc = tcase_create("access");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sequential_stream);
	tcase_add_test(tc, random_stream);
	tcase_add_test(tc, entropy_of_known_distributions);
	tcase_add_test(tc, inflight_by_hand);
	tcase_add_test(tc, late_and_layers);
	suite_add_tcase(s, tc);
	return check_run(s);
}
