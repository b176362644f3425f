// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_hist.c - log-linear histograms: bucket boundaries, percentiles
 * within one bucket of exact on known distributions, merge, exact moments.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "track/hist.h"

static struct hist *h;

static void setup(void)
{
	h = calloc(1, sizeof(*h));
	ck_assert_ptr_nonnull(h);
}

static void teardown(void)
{
	free(h);
}

START_TEST(buckets_cover_every_value_once)
{
	/* each value lies in [low(b), low(b + 1)) of its bucket b */
	for (uint64_t v = 0; v < 200000; v += (v < 4096 ? 1 : 97)) {
		unsigned int b = hist_bucket_of(v);

		ck_assert_uint_le(hist_bucket_low(b), v);
		ck_assert_uint_gt(hist_bucket_low(b + 1), v);
	}
	for (int k = 6; k < HIST_MAX_BITS; k++) {
		uint64_t p = 1ULL << k;

		ck_assert_uint_eq(hist_bucket_low(hist_bucket_of(p)), p);
		ck_assert_uint_eq(hist_bucket_of(p - 1) + 1, hist_bucket_of(p));
	}
	/* small values are exact */
	for (uint64_t v = 0; v < 2 * HIST_SUB; v++)
		ck_assert_uint_eq(hist_bucket_low(hist_bucket_of(v)), v);
	/* beyond the range: the last bucket */
	ck_assert_uint_eq(hist_bucket_of(UINT64_MAX), HIST_BUCKETS - 1);
}
END_TEST

START_TEST(bucket_edges_over_the_whole_range)
{
	/* both ends of every bucket, up to 2^48, and what lies beyond */
	for (unsigned int b = 0; b + 1 < HIST_BUCKETS; b++) {
		ck_assert_uint_eq(hist_bucket_of(hist_bucket_low(b)), b);
		ck_assert_uint_eq(hist_bucket_of(hist_bucket_low(b + 1) - 1), b);
	}
	ck_assert_uint_eq(hist_bucket_of((1ULL << HIST_MAX_BITS) - 1), HIST_BUCKETS - 1);
	ck_assert_uint_eq(hist_bucket_of(1ULL << HIST_MAX_BITS), HIST_BUCKETS - 1);
	ck_assert_uint_eq(hist_bucket_of(1ULL << 63), HIST_BUCKETS - 1);
}
END_TEST

/* |got - want| within the width of want's bucket */
static void near(uint64_t got, uint64_t want)
{
	unsigned int b = hist_bucket_of(want);
	uint64_t width = hist_bucket_low(b + 1) - hist_bucket_low(b);
	uint64_t diff = got > want ? got - want : want - got;

	ck_assert_msg(diff <= width, "got %llu, want %llu (bucket width %llu)",
		      (unsigned long long)got, (unsigned long long)want,
		      (unsigned long long)width);
}

START_TEST(uniform_percentiles)
{
	for (uint64_t v = 1; v <= 100000; v++)
		hist_add(h, v);
	near(hist_percentile(h, 50), 50000);
	near(hist_percentile(h, 90), 90000);
	near(hist_percentile(h, 99), 99000);
	ck_assert_uint_eq(hist_percentile(h, 100), 100000);
	ck_assert_uint_eq(hist_percentile(h, 0), 1);
	ck_assert_uint_eq(h->count, 100000);
	ck_assert_uint_eq(hist_min(h), 1);
	ck_assert_uint_eq(h->max, 100000);
	ck_assert(hist_mean(h) > 50000.49 && hist_mean(h) < 50000.51);
}
END_TEST

START_TEST(geometric_percentiles)
{
	/* 1000 values at each power of two from 2^4 to 2^33: latencies span decades */
	for (int k = 4; k < 34; k++)
		for (int i = 0; i < 1000; i++)
			hist_add(h, 1ULL << k);
	/* rank 15000 of 30000 is the last value of 2^18 */
	near(hist_percentile(h, 50), 1ULL << 18);
	near(hist_percentile(h, 99), 1ULL << 33);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Exponential service times, mean 100 us, by the inverse CDF at evenly
 * spaced quantiles (no random numbers): every percentile within one bucket
 * of the exact one, taken from the sorted values as rank ceil(p * n).
 */
START_TEST(exponential_percentiles)
{
	enum { N = 20000 };
	static const double pcts[] = { 1, 10, 25, 50, 75, 90, 95, 99, 99.9 };
	uint64_t *v = malloc(N * sizeof(*v)), sum = 0;

	ck_assert_ptr_nonnull(v);
	for (int i = 0; i < N; i++) {
		v[i] = (uint64_t)(-100000.0 * log(1.0 - (i + 0.5) / N));
		hist_add(h, v[i]);
		sum += v[i];
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
		size_t rank = (size_t)ceil(pcts[k] / 100.0 * N);

		near(hist_percentile(h, pcts[k]), v[rank - 1]);
	}
	ck_assert_uint_eq(hist_min(h), v[0]);
	ck_assert_uint_eq(h->max, v[N - 1]);
	ck_assert_uint_eq(h->sum, sum);
	ck_assert(hist_mean(h) == (double)sum / N);
	free(v);
}
END_TEST

START_TEST(constant_is_exact)
{
	for (int i = 0; i < 777; i++)
		hist_add(h, 12345);
	ck_assert_uint_eq(hist_percentile(h, 1), 12345);
	ck_assert_uint_eq(hist_percentile(h, 50), 12345);
	ck_assert_uint_eq(hist_percentile(h, 99.9), 12345);
	ck_assert(hist_mean(h) == 12345);
}
END_TEST

START_TEST(two_points)
{
	for (int i = 0; i < 999; i++)
		hist_add(h, 10);
	hist_add(h, 1000000000);
	ck_assert_uint_eq(hist_percentile(h, 99), 10);
	ck_assert_uint_eq(hist_percentile(h, 99.9), 10);
	near(hist_percentile(h, 99.95), 1000000000);
	ck_assert_uint_eq(hist_percentile(h, 100), 1000000000);
}
END_TEST

START_TEST(merge_equals_one)
{
	struct hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	for (uint64_t v = 0; v < 5000; v++) {
		hist_add(h, v * 37);
		hist_add(v % 2 ? a : b, v * 37);
	}
	hist_merge(a, b);
	ck_assert_uint_eq(a->count, h->count);
	ck_assert_uint_eq(a->sum, h->sum);
	ck_assert_uint_eq(hist_min(a), hist_min(h));
	ck_assert_uint_eq(a->max, h->max);
	ck_assert(!memcmp(a->bucket, h->bucket, sizeof(h->bucket)));
	free(a);
	free(b);
}
END_TEST

/*
 * The smallest value, kept complemented: 0 and the largest value are
 * values like the others, in any order, merged into an empty histogram or
 * with one.
 */
START_TEST(min_at_the_extremes)
{
	struct hist *a = calloc(1, sizeof(*a)), *e = calloc(1, sizeof(*e));

	hist_add(h, UINT64_MAX);
	ck_assert_uint_eq(hist_min(h), UINT64_MAX);
	hist_add(h, 5);
	ck_assert_uint_eq(hist_min(h), 5);
	hist_add(h, 7);
	ck_assert_uint_eq(hist_min(h), 5);
	hist_add(h, 0);
	ck_assert_uint_eq(hist_min(h), 0);
	hist_add(a, 3);
	hist_merge(a, e);
	ck_assert_uint_eq(hist_min(a), 3);
	hist_merge(e, a);
	ck_assert_uint_eq(hist_min(e), 3);
	hist_merge(a, h);
	ck_assert_uint_eq(hist_min(a), 0);
	ck_assert_uint_eq(a->max, UINT64_MAX);
	free(a);
	free(e);
}
END_TEST

START_TEST(empty)
{
	ck_assert_uint_eq(hist_min(h), 0);
	ck_assert_uint_eq(hist_percentile(h, 50), 0);
	ck_assert(hist_mean(h) == 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hist");
	TCase *tc = tcase_create("hist");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, buckets_cover_every_value_once);
	tcase_add_test(tc, bucket_edges_over_the_whole_range);
	tcase_add_test(tc, uniform_percentiles);
	tcase_add_test(tc, geometric_percentiles);
	tcase_add_test(tc, exponential_percentiles);
	tcase_add_test(tc, constant_is_exact);
	tcase_add_test(tc, two_points);
	tcase_add_test(tc, merge_equals_one);
	tcase_add_test(tc, empty);
	tcase_add_test(tc, min_at_the_extremes);
	suite_add_tcase(s, tc);
	return check_run(s);
}
