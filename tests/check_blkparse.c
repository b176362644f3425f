// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_blkparse.c - the text log against golden lines written from
 * blkparse's own format strings (tests/expected/blkparse-actions), the
 * plug/unplug device rule, the device filter, and the summary; the
 * decimal routines of output/decimal.h against printf.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_files.h"
#include "check_run.h"
#include "output/blkparse.h"
#include "output/decimal.h"

#define T0 1000000000ULL
#define EXPECTED_DIR FIXTURES_DIR "/../expected"

static struct blk_event mk(enum blk_kind kind, unsigned int ma, unsigned int mi, int cpu,
			   uint64_t dt, int pid, const char *rwbs, uint64_t sector,
			   unsigned int nr, const char *comm)
{
	struct blk_event ev = {
		.kind = kind, .dev = KDEV_MKDEV(ma, mi), .cpu = cpu, .ts = T0 + dt,
		.pid = pid, .sector = sector, .nr_sector = nr, .bytes = nr * 512,
	};

	if (rwbs)
		blk_rwbs_parse(rwbs, strlen(rwbs), &ev.op, &ev.flags);
	else
		ev.op = BLK_OP_OTHER;
	if (comm)
		snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	return ev;
}

/* The event sequence behind tests/expected/blkparse-actions. */
static size_t golden_events(struct blk_event *e)
{
	size_t n = 0;

	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 1, 0, 1234, "WS", 2048, 128, "dd");
	e[n++] = mk(BLK_EV_GETRQ, 8, 16, 1, 1000, 1234, "WS", 2048, 128, "dd");
	e[n++] = mk(BLK_EV_PLUG, 0, 0, 1, 2000, 1234, NULL, 0, 0, "dd");
	e[n++] = mk(BLK_EV_RQ_INSERT, 8, 16, 1, 3000, 1234, "WS", 2048, 128, "dd");
	e[n] = mk(BLK_EV_UNPLUG, 0, 0, 1, 4000, 1234, NULL, 0, 0, "dd");
	e[n++].count = 1;
	e[n++] = mk(BLK_EV_RQ_ISSUE, 8, 16, 1, 5000, 1234, "WS", 2048, 128, "dd");
	e[n++] = mk(BLK_EV_RQ_COMPLETE, 8, 16, 0, 100000, 0, "WS", 2048, 128, NULL);
	e[n] = mk(BLK_EV_BIO_REMAP, 8, 16, 1, 200000, 1234, "RA", 33920, 128, NULL);
	e[n].old_dev = KDEV_MKDEV(8, 17);
	e[n++].aux_sector = 29824;
	/* a plug by another task on that CPU: its device is unknown, not shown */
	e[n++] = mk(BLK_EV_PLUG, 0, 0, 1, 250000, 999, NULL, 0, 0, "bash");
	e[n] = mk(BLK_EV_SPLIT, 253, 0, 1, 300000, 77, "W", 1000, 0, "kworker/u4:1");
	e[n++].aux_sector = 1064;
	e[n++] = mk(BLK_EV_BIO_BACKMERGE, 8, 16, 0, 400000, 1234, "W", 2176, 8, "dd");
	e[n++] = mk(BLK_EV_BIO_FRONTMERGE, 8, 16, 0, 500000, 1234, "W", 2040, 8, "dd");
	e[n++] = mk(BLK_EV_RQ_REQUEUE, 8, 16, 0, 600000, 0, "W", 2048, 8, NULL);
	e[n] = mk(BLK_EV_RQ_COMPLETE, 8, 16, 0, 700000, 0, "W", 2048, 8, NULL);
	e[n++].error = -5;
	e[n++] = mk(BLK_EV_RQ_ISSUE, 8, 16, 0, 800000, 1234, "FF", 0, 0, "kworker/0:1H");
	/* a flush request completes at position -1; blktrace logs 0 */
	e[n++] = mk(BLK_EV_RQ_COMPLETE, 8, 16, 0, 900000, 0, "FF", UINT64_MAX, 0, NULL);
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 0, 1000000, 1234, "D", 4096, 2048, "fstrim");
	/* no blkparse letter: not shown */
	e[n++] = mk(BLK_EV_IO_START, 8, 16, 0, 1050000, 1234, "W", 4096, 8, "dd");
	e[n++] = mk(BLK_EV_BIO_COMPLETE, 253, 0, 0, 1100000, 0, "W", 1000, 64, NULL);
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 1, 12500000000ULL, 1234, "R", 8, 8, "cat");
	e[n++] = mk(BLK_EV_BIO_QUEUE, 259, 70000, 1, 13000000000ULL, 65535, "W",
		    1099511627776ULL, 8, "fio");
	return n;
}

/* A blkparse output into memory, at *@text once @fp is closed. */
static struct blkparse_out *out_to_memory(FILE **fp, char **text, size_t *len,
					  const struct blkparse_filter *filter)
{
	struct blkparse_out *o;

	*fp = open_memstream(text, len);
	ck_assert_ptr_nonnull(*fp);
	o = blkparse_out_alloc(*fp, filter);
	ck_assert_ptr_nonnull(o);
	return o;
}

static char *run(const struct blkparse_filter *filter, bool summary, size_t *len)
{
	struct blk_event e[64];
	size_t n = golden_events(e);
	struct blkparse_out *o;
	char *text = NULL;
	FILE *fp;

	o = out_to_memory(&fp, &text, len, filter);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(blkparse_out_event(&e[i], o), 0);
	ck_assert_int_eq(blkparse_out_finish(o), 0);
	if (summary) {
		struct source_cpu_stats cpu[2] = { { .missed = 3 }, { .overrun = 4 } };
		struct source_stats st = { .live = true, .ncpu = 2, .cpu = cpu };

		blkparse_out_summary(o, fp, &st);
	}
	blkparse_out_free(o);
	fclose(fp);
	return text;
}


START_TEST(golden_lines)
{
	char *want = check_slurp(EXPECTED_DIR "/blkparse-actions", NULL);
	size_t len;
	char *got = run(NULL, false, &len);
	char *w = want, *g = got;
	int line = 1;

	/* compare line by line so that a failure names the line */
	while (*w && *g) {
		size_t wl = strcspn(w, "\n"), gl = strcspn(g, "\n");

		ck_assert_msg(wl == gl && !memcmp(w, g, wl), "line %d:\nwant '%.*s'\ngot  '%.*s'",
			      line, (int)wl, w, (int)gl, g);
		w += wl + (w[wl] == '\n');
		g += gl + (g[gl] == '\n');
		line++;
	}
	ck_assert_msg(!*w && !*g, "line %d: one output is longer:\nwant '%s'\ngot  '%s'", line,
		      w, g);
	free(want);
	free(got);
}
END_TEST

static int only_dm(const void *ctx __attribute__((unused)), uint32_t dev)
{
	return KDEV_MAJOR(dev) == 253;
}

/*
 * The sequence numbers (kept as text and incremented in place) and the pids
 * (the last one's text reused) print as printf prints them: across 9 -> 10,
 * 99 -> 100, ... 9999 -> 10000, per (device, CPU), with pids that come
 * back, change width, or are negative.
 */
START_TEST(sequence_and_pid_as_printf)
{
	static const int32_t pids[] = { 1234, 1234, 7, 99999, 100000, -1, 1234, 0, 65535 };
	enum { N = 24000 };
	uint32_t seq[2][2] = { { 0 } };
	struct blkparse_out *o;
	char *text = NULL, *line;
	size_t len, i = 0;
	FILE *fp;

	o = out_to_memory(&fp, &text, &len, NULL);
	for (size_t k = 0; k < N; k++) {
		/* long runs on one (device, CPU), then changes */
		int d = (k / 7000) % 2, c = (k / 3) % 5 == 0;
		struct blk_event ev = mk(BLK_EV_BIO_QUEUE, 8, d ? 32 : 16, c, 1000 * k,
					 pids[(k / 2) % 9], "R", 8 * k, 8, "fio");

		ck_assert_int_eq(blkparse_out_event(&ev, o), 0);
	}
	ck_assert_int_eq(blkparse_out_finish(o), 0);
	blkparse_out_free(o);
	fclose(fp);
	for (line = text; *line; i++) {
		int d = (i / 7000) % 2, c = (i / 3) % 5 == 0;
		uint64_t ts = 1000 * i;
		char want[128];
		int n;

		ck_assert_uint_lt(i, N);
		n = snprintf(want, sizeof(want), "%3d,%-3d %2d %8u %5llu.%09llu %5u  Q ", 8,
			     d ? 32 : 16, c, ++seq[d][c], (unsigned long long)(ts / 1000000000ULL),
			     (unsigned long long)(ts % 1000000000ULL), (uint32_t)pids[(i / 2) % 9]);
		ck_assert_msg(!strncmp(line, want, n), "line %zu:\nwant '%s'\ngot  '%.*s'", i + 1,
			      want, n, line);
		line += strcspn(line, "\n");
		line += *line == '\n';
	}
	ck_assert_uint_eq(i, N);
	free(text);
}
END_TEST

/*
 * Sectors and sizes (the last extent's text is reused), times (the last
 * second's text is reused, and a time may go back) and the error of a
 * completion print as printf prints them, at their edge values.
 */
START_TEST(extents_and_times_as_printf)
{
	static const uint64_t sectors[] = {
		0, 9, 10, 99999999, 100000000, 4294967295ULL, 1099511627776ULL,
		9999999999999999ULL, 10000000000000000ULL, UINT64_MAX - 1, 126480, 126480,
	};
	static const uint32_t nrs[] = { 1, 8, 8, 9, 10, 2048, 99999999, 100000000, UINT32_MAX };
	static const uint64_t times[] = {
		0, 1, 999999999, 1000000000, 1000000001, 999999998, 99999999999999ULL,
		100000000000000ULL, 100000000000000ULL, 5000000000ULL, UINT64_MAX - T0,
	};
	static const int32_t errors[] = { 0, -5, -2147483647 - 1, 7 };
	enum { N = 600 };
	struct blkparse_out *o;
	char *text = NULL, *line;
	size_t len, i = 0;
	FILE *fp;

	o = out_to_memory(&fp, &text, &len, NULL);
	for (size_t k = 0; k < N; k++) {
		struct blk_event ev = mk(k % 3 ? BLK_EV_BIO_QUEUE : BLK_EV_RQ_COMPLETE, 8, 0, 0,
					 times[k % 11], 1, "R", sectors[k % 12], nrs[k % 9],
					 "fio");

		ev.error = errors[k % 4];
		ck_assert_int_eq(blkparse_out_event(&ev, o), 0);
	}
	ck_assert_int_eq(blkparse_out_finish(o), 0);
	blkparse_out_free(o);
	fclose(fp);
	for (line = text; *line; i++) {
		uint64_t rel = times[i % 11];
		char want[256];

		ck_assert_uint_lt(i, N);
		if (i % 3)
			snprintf(want, sizeof(want),
				 "  8,0    0 %8zu %5llu.%09llu     1  Q   R %llu + %u [fio]", i + 1,
				 (unsigned long long)(rel / 1000000000ULL),
				 (unsigned long long)(rel % 1000000000ULL),
				 (unsigned long long)sectors[i % 12], nrs[i % 9]);
		else
			snprintf(want, sizeof(want),
				 "  8,0    0 %8zu %5llu.%09llu     1  C   R %llu + %u [%d]", i + 1,
				 (unsigned long long)(rel / 1000000000ULL),
				 (unsigned long long)(rel % 1000000000ULL),
				 (unsigned long long)sectors[i % 12], nrs[i % 9], errors[i % 4]);
		len = strcspn(line, "\n");
		ck_assert_msg(len == strlen(want) && !strncmp(line, want, len),
			      "line %zu:\nwant '%s'\ngot  '%.*s'", i + 1, want, (int)len, line);
		line += len;
		line += *line == '\n';
	}
	ck_assert_uint_eq(i, N);
	free(text);
}
END_TEST

/*
 * A SCSI rescan's passthrough requests (6.12 tests/vm multipath): issued
 * with their bytes and no sectors, completed at -1 (the 512-byte one with
 * one sector), one of them in error. blkparse prints blktrace's PC records:
 * the bytes at issue, R (N with no bytes), and the error as its 16 bits.
 */
START_TEST(passthrough_lines)
{
	static const char want[] =
		"  8,0    0        1     0.000000000   530  D   R 36 [bash]\n"
		"  8,0    0        2     0.000000010     0  C   R [0]\n"
		"  8,0    0        3     0.000000020   530  D   N 0 [bash]\n"
		"  8,0    0        4     0.000000030     0  C   N [0]\n"
		"  8,0    0        5     0.000000040   530  D   R 512 [bash]\n"
		"  8,0    0        6     0.000000050     0  C   R [65415]\n";
	struct blk_event e[6];
	struct blkparse_out *o;
	char *text = NULL;
	size_t len;
	FILE *fp;

	e[0] = mk(BLK_EV_RQ_ISSUE, 8, 0, 0, 0, 530, "N", 0, 0, "bash");
	e[0].bytes = 36;
	e[1] = mk(BLK_EV_RQ_COMPLETE, 8, 0, 0, 10, 0, "N", UINT64_MAX, 0, NULL);
	e[2] = mk(BLK_EV_RQ_ISSUE, 8, 0, 0, 20, 530, "N", 0, 0, "bash");
	e[3] = mk(BLK_EV_RQ_COMPLETE, 8, 0, 0, 30, 0, "N", UINT64_MAX, 0, NULL);
	e[4] = mk(BLK_EV_RQ_ISSUE, 8, 0, 0, 40, 530, "N", 0, 0, "bash");
	e[4].bytes = 512;
	e[5] = mk(BLK_EV_RQ_COMPLETE, 8, 0, 0, 50, 0, "N", UINT64_MAX, 1, NULL);
	e[5].error = -121;
	o = out_to_memory(&fp, &text, &len, NULL);
	for (size_t i = 0; i < 6; i++)
		ck_assert_int_eq(blkparse_out_event(&e[i], o), 0);
	ck_assert_int_eq(blkparse_out_finish(o), 0);
	blkparse_out_free(o);
	fclose(fp);
	ck_assert_str_eq(text, want);
	free(text);
}
END_TEST

START_TEST(filter_by_device)
{
	struct blkparse_filter f = { .has = only_dm };
	size_t len;
	char *got = run(&f, false, &len);

	ck_assert_str_eq(got,
			 "253,0    1        1     0.000000000    77  X   W 1000 / 1064 [kworker/u4:1]\n"
			 "253,0    0        1     0.000800000     0  C   W 1000 + 64 [0]\n");
	free(got);
}
END_TEST

START_TEST(summary_counts)
{
	size_t len;
	char *got = run(NULL, true, &len);

	ck_assert_ptr_nonnull(strstr(got, "Total (8,16):\n"));
	ck_assert_ptr_nonnull(strstr(got, "Total (253,0):\n"));
	/* 8,16: reads queued 1 (8 KiB... 4 KiB), writes+discard queued 2 (64 + 1024 KiB) */
	ck_assert_ptr_nonnull(strstr(got, " Reads Queued:           1,        4KiB\t"
				     " Writes Queued:           2,     1088KiB\n"));
	ck_assert_ptr_nonnull(strstr(got, " Writes Completed:        2,       68KiB\n"));
	ck_assert_ptr_nonnull(strstr(got, " Write Merges:            2,        8KiB\n"));
	ck_assert_ptr_nonnull(strstr(got, "Events (8,16): 16 entries\n"));
	ck_assert_ptr_nonnull(strstr(got, " CPU0            3 lost"));
	ck_assert_ptr_nonnull(strstr(got, " CPU1            4 lost"));
	ck_assert_ptr_nonnull(strstr(got, "Total events lost: 7 (the log above is incomplete)\n"));
	free(got);
}
END_TEST

START_TEST(write_error_reported)
{
	struct blk_event e[64];
	size_t n = golden_events(e);
	struct blkparse_out *o;
	FILE *fp = fopen("/dev/full", "w");
	int ret = 0;

	if (!fp)
		return;		/* no /dev/full in this environment */
	o = blkparse_out_alloc(fp, NULL);
	for (size_t i = 0; i < n && !ret; i++)
		ret = blkparse_out_event(&e[i], o);
	if (!ret)
		ret = blkparse_out_flush(o);
	ck_assert_int_eq(ret, -28);	/* ENOSPC */
	blkparse_out_free(o);
	fclose(fp);
}
END_TEST

/* 0, 9, 10, 99, 100, ... 10^19, each +- 1, powers of two +- 1, and the largest values */
static size_t edge_values(uint64_t *v)
{
	size_t n = 0;
	uint64_t p = 1;

	for (int k = 0; k < 20; k++, p *= 10) {
		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
	}
	for (int b = 1; b < 64; b++) {
		v[n++] = (1ULL << b) - 1;
		v[n++] = 1ULL << b;
		v[n++] = (1ULL << b) + 1;
	}
	v[n++] = UINT32_MAX;
	v[n++] = UINT64_MAX - 1;
	v[n++] = UINT64_MAX;
	return n;
}

/*
 * Each routine's text equals printf's, and nothing is written past 7 bytes
 * after it (asserted only on failure: an assertion is a message to check's
 * parent process, and the sweep makes a million of them).
 */
#define CHECK_DEC(call, fmt, ...)							\
	do {										\
		char got_[64], want_[64], *end_;					\
		int n_ = snprintf(want_, sizeof(want_), fmt, __VA_ARGS__);		\
		bool ok_;								\
											\
		memset(got_, '#', sizeof(got_));					\
		end_ = call;								\
		ok_ = end_ - got_ == n_ && !memcmp(got_, want_, n_);			\
		for (int i_ = n_ + 7; i_ < (int)sizeof(got_); i_++)			\
			ok_ = ok_ && got_[i_] == '#';					\
		if (!ok_)								\
			ck_abort_msg("%s: want '%s', got '%.*s' (or wrote past it)",	\
				     #call, want_, (int)(end_ - got_), got_);		\
	} while (0)

START_TEST(decimal_edge_values)
{
	uint64_t v[256];
	size_t n = edge_values(v);

	for (size_t i = 0; i < n; i++) {
		unsigned long long x = v[i];

		CHECK_DEC(dec_put_u(got_, x), "%llu", x);
		for (unsigned int w = 0; w <= 8; w++)
			CHECK_DEC(dec_put_u_right(got_, x, w), "%*llu", (int)w, x);
		if (x < 1000000000ULL)
			CHECK_DEC(dec_put_u9(got_, x), "%09llu", x);
		if (x < 100000000ULL) {
			CHECK_DEC(dec_put_u8(got_, x), "%llu", x);
			/* the digits as values, the first in the lowest byte once stored */
			CHECK_DEC((dec_store8(got_, dec_digits8(x) + DEC_ZEROS), got_ + 8), "%08llu",
				  x);
		}
	}
}
END_TEST

/* Values below 10^8 in a prime stride: every digit in every place, many times. */
START_TEST(decimal_digits8_sweep)
{
	for (uint32_t x = 0; x < 100000000; x += 9973) {
		CHECK_DEC(dec_put_u8(got_, x), "%u", x);
		CHECK_DEC(dec_put_u_right(got_, x, 5), "%5u", x);
		CHECK_DEC(dec_put_u9(got_, x * 9 + 8), "%09u", x * 9 + 8);
	}
}
END_TEST

/* Each of the 1000 triplets, and each in each of the three places of the nanoseconds */
START_TEST(decimal_triplets)
{
	for (uint32_t i = 0; i < 1000; i++) {
		char want[8];

		snprintf(want, sizeof(want), "%03u", i);
		ck_assert_msg(!memcmp(dec_triplets[i], want, 3) && !dec_triplets[i][3],
			      "triplet %u is '%.3s'", i, dec_triplets[i]);
		CHECK_DEC(dec_put_u9(got_, i * 1000000 + (999 - i) * 1000 + i), "%09u",
			  i * 1000000 + (999 - i) * 1000 + i);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("blkparse");
	TCase *tc = tcase_create("format");

	tcase_add_test(tc, golden_lines);
	tcase_add_test(tc, filter_by_device);
	tcase_add_test(tc, passthrough_lines);
	tcase_add_test(tc, summary_counts);
	tcase_add_test(tc, write_error_reported);
	tcase_add_test(tc, sequence_and_pid_as_printf);
	tcase_add_test(tc, extents_and_times_as_printf);
	suite_add_tcase(s, tc);
	tc = tcase_create("decimal");
	tcase_add_test(tc, decimal_edge_values);
	tcase_add_test(tc, decimal_digits8_sweep);
	tcase_add_test(tc, decimal_triplets);
	suite_add_tcase(s, tc);
	return check_run(s);
}
