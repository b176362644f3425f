// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_series.c - the time series: log latency buckets, heatmap binning
 * of known distributions, coarsening, in-flight time on a trace computed
 * by hand, the sample's bound; and the latency split by rwbs flags.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "track/flaglat.h"
#include "track/series.h"

#define SDA	KDEV_MKDEV(8, 0)
#define DM0	KDEV_MKDEV(253, 0)
/* the first bin width, 2^20 ns (1.05 ms): times below are counted in it */
#define W	(1ULL << SERIES_FIRST_SHIFT)

static struct series s;

static void setup(void)
{
	series_init(&s);
}

static void teardown(void)
{
	series_destroy(&s);
}

/* One single-layer request-based I/O: Q @q, D @d, C @c. */
static void one(uint64_t q, uint64_t d, uint64_t c, uint8_t op, uint32_t sectors)
{
	struct tk_rec r = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST, .op = op,
			    .sectors = sectors, .q = q, .down = d, .d = d, .up = c, .c = c,
			    .sector = q / 1000 };
	struct tk_io io = { .top = true, .root = &r, .recs = &r, .nrecs = 1 };

	ck_assert_int_eq(series_io(&s, &io), 0);
}

START_TEST(log_buckets)
{
	ck_assert_uint_eq(series_lat_bucket(0), 0);
	ck_assert_uint_eq(series_lat_bucket(999), 0);
	ck_assert_uint_eq(series_lat_bucket(1000), 1);	/* [1, 2) us */
	ck_assert_uint_eq(series_lat_bucket(1999), 1);
	ck_assert_uint_eq(series_lat_bucket(2000), 2);	/* [2, 4) us */
	ck_assert_uint_eq(series_lat_bucket(1000000), 10); /* 1000 us in [512, 1024) */
	ck_assert_uint_eq(series_lat_bucket(UINT64_MAX), SERIES_LAT_BUCKETS - 1);
	for (unsigned int b = 1; b < SERIES_LAT_BUCKETS; b++) {
		/* each bucket's low bound is in it, one ns less is in the one below */
		ck_assert_uint_eq(series_lat_bucket(series_lat_low_ns(b)), b);
		ck_assert_uint_eq(series_lat_bucket(series_lat_low_ns(b) - 1), b - 1);
	}
}
END_TEST

START_TEST(heatmap_of_two_modes)
{
	/*
	 * 100 I/Os of 100 us then 100 of 10 W (10.5 ms), one every W from
	 * t = 10 W: 100 us is bucket 7 ([64, 128) us), 10.5 ms bucket 14
	 * ([8192, 16384) us). The first width (W) holds 240 W: no coarsening;
	 * the fast ones complete in bins 0..99 (Q - t0 + 0.1 ms), the slow ones
	 * in 110..209.
	 */
	uint64_t fast = 0, slow = 0, other = 0;
	const struct series_layer *l;

	for (int i = 0; i < 100; i++)
		one(10 * W + i * W, 10 * W + i * W + 50000, 10 * W + i * W + 100000,
		    BLK_OP_READ, 8);
	for (int i = 100; i < 200; i++)
		one(10 * W + i * W, 10 * W + i * W + 1000, 10 * W + i * W + 10 * W,
		    BLK_OP_WRITE, 16);
	ck_assert_uint_eq(s.width_ns, W);
	ck_assert_uint_eq(s.t0, 10 * W);
	l = series_layer_of(&s, SDA);
	ck_assert_ptr_nonnull(l);
	for (size_t b = 0; b < SERIES_BINS; b++)
		for (int k = 0; k < SERIES_LAT_BUCKETS; k++)
			for (int d = 0; d < SERIES_DIRS; d++) {
				uint32_t v = l->heat_total[d][b][k];

				if (d == SERIES_READ && k == 7 && b < 100)
					fast += v;
				else if (d == SERIES_WRITE && k == 14 && b >= 110 && b < 210)
					slow += v;
				else
					other += v;
			}
	ck_assert_uint_eq(fast, 100);
	ck_assert_uint_eq(slow, 100);
	ck_assert_uint_eq(other, 0);
	/* device time: D to C, 50 us (bucket 6) and 10.5 ms (bucket 14) */
	ck_assert_uint_eq(l->heat_dev[SERIES_READ][0][6], 1);
	ck_assert_uint_eq(l->heat_dev[SERIES_WRITE][110][14], 1);
	ck_assert(l->dev_seen);
	/* the mean and the largest C - Q of a bin: one I/O each here */
	ck_assert_uint_eq(l->lat_sum_ns[SERIES_READ][0], 100000);
	ck_assert_uint_eq(l->lat_max_ns[SERIES_WRITE][110], 10 * W);
	ck_assert_uint_eq(l->ios[SERIES_READ][5], 1);
	ck_assert_uint_eq(l->bytes[SERIES_WRITE][150], 16 * 512);
	ck_assert_uint_eq(s.nbins, 210);
}
END_TEST

START_TEST(coarsening_keeps_the_sums)
{
	/*
	 * One I/O per W for 1000 W: that needs width 8 W (240 x 4 W = 960 W
	 * is too short). Every count survives, and bin i holds the I/Os that
	 * completed in [8i, 8i + 8) W.
	 */
	const struct series_layer *l;
	uint64_t ios = 0, heat = 0;

	for (int i = 0; i < 1000; i++)
		one(i * W + 1, i * W + 2, i * W + 3, BLK_OP_READ, 8);
	ck_assert_uint_eq(s.width_ns, 8 * W);
	l = series_layer_of(&s, SDA);
	for (size_t b = 0; b < SERIES_BINS; b++) {
		ios += l->ios[SERIES_READ][b];
		for (int k = 0; k < SERIES_LAT_BUCKETS; k++)
			heat += l->heat_total[SERIES_READ][b][k];
	}
	ck_assert_uint_eq(ios, 1000);
	ck_assert_uint_eq(heat, 1000);
	ck_assert_uint_eq(l->ios[SERIES_READ][0], 8);
	ck_assert_uint_eq(l->ios[SERIES_READ][124], 8);
	ck_assert_uint_eq(s.nbins, 125);
	/* each I/O took 2 ns: 8 of them per bin, the largest 2 ns */
	ck_assert_uint_eq(l->lat_sum_ns[SERIES_READ][7], 16);
	ck_assert_uint_eq(l->lat_max_ns[SERIES_READ][7], 2);
}
END_TEST

START_TEST(inflight_by_hand)
{
	/*
	 * t0 = 0 (series_start). Width W. I/O A in flight [0.5, 2.5) W,
	 * B [1.0, 1.5) W, C [2.0, 4.0) W. Busy time per bin:
	 *   bin 0 [0, 1):   A 0.5                    = 0.5 W -> 0.5 in flight
	 *   bin 1 [1, 2):   A 1.0 + B 0.5            = 1.5 W -> 1.5
	 *   bin 2 [2, 3):   A 0.5 + C 1.0            = 1.5 W -> 1.5
	 *   bin 3 [3, 4):   C 1.0                    = 1.0 W -> 1.0
	 * Total 4.5 W = 2 + 0.5 + 2: every I/O's time counted once.
	 */
	const struct series_layer *l;

	series_start(&s, 0);
	one(W / 2, W / 2 + 1000, 5 * W / 2, BLK_OP_READ, 8);
	one(W, W + 1000, 3 * W / 2, BLK_OP_READ, 8);
	one(2 * W, 2 * W + 1000, 4 * W, BLK_OP_WRITE, 8);
	l = series_layer_of(&s, SDA);
	ck_assert_uint_eq(l->busy_ns[0], W / 2);
	ck_assert_uint_eq(l->busy_ns[1], 3 * W / 2);
	ck_assert_uint_eq(l->busy_ns[2], 3 * W / 2);
	ck_assert_uint_eq(l->busy_ns[3], W);
	ck_assert_uint_eq(l->busy_ns[4], 0);
	/* C ends exactly at 4 W: its completion is in bin 4, its busy time is not */
	ck_assert_uint_eq(l->ios[SERIES_WRITE][4], 1);
}
END_TEST

START_TEST(inflight_survives_coarsening)
{
	/* one I/O in flight for the whole of [0, 2000 W): every bin is fully busy */
	const struct series_layer *l;

	series_start(&s, 0);
	one(1, 2, 2000 * W, BLK_OP_READ, 8);
	l = series_layer_of(&s, SDA);
	ck_assert_uint_eq(s.width_ns, 16 * W);
	ck_assert_uint_eq(l->busy_ns[0], 16 * W - 1);
	ck_assert_uint_eq(l->busy_ns[60], 16 * W);
	ck_assert_uint_eq(l->busy_ns[124], 2000 * W - 124 * 16 * W);
}
END_TEST

START_TEST(sample_is_bounded_and_uniform)
{
	/*
	 * 30000 I/Os at sectors 0..29999: the sample keeps SERIES_POINTS of
	 * them, spread over the whole trace (each third holds about a third).
	 */
	const struct series_layer *l;
	size_t third[3] = { 0 };

	for (int i = 0; i < 30000; i++)
		one((uint64_t)i * 1000 + 1, (uint64_t)i * 1000 + 2, (uint64_t)i * 1000 + 3,
		    BLK_OP_READ, 8);
	l = series_layer_of(&s, SDA);
	ck_assert_uint_eq(l->npoints, SERIES_POINTS);
	ck_assert_uint_eq(l->offered, 30000);
	for (size_t i = 0; i < l->npoints; i++)
		third[l->points[i].ts / 10000000 < 3 ? l->points[i].ts / 10000000 : 2]++;
	for (int k = 0; k < 3; k++)
		ck_assert(third[k] > SERIES_POINTS / 3 - 150 && third[k] < SERIES_POINTS / 3 + 150);
}
END_TEST

START_TEST(flags_split_latency)
{
	/*
	 * dm-0 -> sda. A sync write (Q 0, C 100) whose piece at sda is
	 * sync+FUA (Q 10, D 20, C 90); then a readahead read at sda alone
	 * (Q 200, D 210, C 260).
	 */
	struct tk_rec w[2] = {
		{ .dev = DM0, .parent = -1, .op = BLK_OP_WRITE, .flags = BLK_F_SYNC, .sectors = 8,
		  .q = 1, .down = 10, .up = 90, .c = 101 },
		{ .dev = SDA, .parent = 0, .depth = 1, .kind = TK_LAYER_REQUEST, .op = BLK_OP_WRITE,
		  .flags = BLK_F_SYNC | BLK_F_FUA, .sectors = 8, .q = 10, .d = 20, .down = 20,
		  .up = 90, .c = 90 },
	};
	struct tk_rec r = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ,
			    .flags = BLK_F_RAHEAD | BLK_F_ZONE, .sectors = 8, .q = 200, .d = 210,
			    .down = 210, .up = 260, .c = 260 };
	struct tk_io io1 = { .top = true, .root = w, .recs = w, .nrecs = 2 };
	struct tk_io io2 = { .top = true, .root = &r, .recs = &r, .nrecs = 1 };
	struct flaglat f = { 0 };
	struct stats *st = stats_alloc();
	char name[64];

	ck_assert_int_eq(flaglat_io(&f, &io1), 0);
	ck_assert_int_eq(flaglat_io(&f, &io2), 0);
	ck_assert_int_eq(flaglat_io(&f, &io2), 0);
	ck_assert_uint_eq(f.n, 3);
	stats_io(&io2, st);
	stats_io(&io1, st);
	flaglat_sort(&f, st);
	/* sda came first in the statistics: its rows first, read before write */
	ck_assert_uint_eq(f.rows[0].dev, SDA);
	ck_assert_uint_eq(f.rows[0].op, ST_READ);
	ck_assert_uint_eq(f.rows[0].flags, BLK_F_RAHEAD);
	ck_assert_uint_eq(f.rows[0].total.count, 2);
	ck_assert_uint_eq(f.rows[0].device.max, 50);
	ck_assert_uint_eq(f.rows[1].flags, BLK_F_SYNC | BLK_F_FUA);
	ck_assert_uint_eq(f.rows[1].total.max, 80);
	ck_assert_uint_eq(f.rows[1].device.max, 70);
	ck_assert_uint_eq(f.rows[2].dev, DM0);
	ck_assert_uint_eq(f.rows[2].total.max, 100);
	/* dm-0 has a lower piece: no device time of its own */
	ck_assert_uint_eq(f.rows[2].device.count, 0);
	ck_assert_str_eq(flaglat_name(BLK_F_SYNC | BLK_F_FUA, name, sizeof(name)), "sync,fua");
	ck_assert_str_eq(flaglat_name(0, name, sizeof(name)), "none");
	ck_assert_str_eq(flaglat_name(BLK_F_PREFLUSH | BLK_F_META | BLK_F_RAHEAD | BLK_F_SYNC |
				      BLK_F_FUA, name, 16), "sync,meta,fua");
	stats_free(st);
	flaglat_free(&f);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("series");
	TCase *tc = tcase_create("series");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, log_buckets);
	tcase_add_test(tc, heatmap_of_two_modes);
	tcase_add_test(tc, coarsening_keeps_the_sums);
	tcase_add_test(tc, inflight_by_hand);
	tcase_add_test(tc, inflight_survives_coarsening);
	tcase_add_test(tc, sample_is_bounded_and_uniform);
	tcase_add_test(tc, flags_split_latency);
	suite_add_tcase(su, tc);
	return check_run(su);
}
