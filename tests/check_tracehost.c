// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_tracehost.c - what a trace says of the machine it was made on:
 * blkstack's "blkstack-host:" marker text written and read back, which
 * kernels count busy time by started requests, and what report --iostat
 * and top -x take of a trace (and assume where it does not say).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check_run.h"
#include "cmd/report-iostat.h"
#include "format/host-marker.h"
#include "track/iostat.h"

static int parse(const char *text, struct host_marker *m)
{
	return host_marker_parse(text, strlen(text), m);
}

START_TEST(test_marker_round_trip)
{
	struct host_marker m = { .release = "6.18.44-fc-v657", .hz = 250, .has_clock = true,
				 .realtime_ns = 1795914110299462123LL, .mono_ns = 5115301993000ULL };
	struct host_marker back;
	char text[256];
	int n;

	n = host_marker_format(text, sizeof(text), &m);
	ck_assert_int_gt(n, 0);
	ck_assert_str_eq(text, "blkstack-host: release=6.18.44-fc-v657 hz=250 "
			       "realtime_ns=1795914110299462123 mono_ns=5115301993000");
	ck_assert_int_eq(host_marker_parse(text + strlen(HOST_MARKER_PREFIX),
					   n - strlen(HOST_MARKER_PREFIX), &back), 0);
	ck_assert_str_eq(back.release, m.release);
	ck_assert_uint_eq(back.hz, 250);
	ck_assert(back.has_clock);
	ck_assert_int_eq(back.realtime_ns, m.realtime_ns);
	ck_assert_uint_eq(back.mono_ns, m.mono_ns);
	/* too small a buffer is said, not cut */
	ck_assert_int_eq(host_marker_format(text, 40, &m), -ENAMETOOLONG);
}
END_TEST

/* What a writer did not know stays unknown; a writer's newer keys are skipped. */
START_TEST(test_marker_unknowns)
{
	struct host_marker m = { 0 };
	char text[256];

	ck_assert_int_gt(host_marker_format(text, sizeof(text), &m), 0);
	ck_assert_str_eq(text, "blkstack-host: release=-");
	ck_assert_int_eq(parse("release=-", &m), 0);
	ck_assert_str_eq(m.release, "");
	ck_assert_uint_eq(m.hz, 0);
	ck_assert(!m.has_clock);

	ck_assert_int_eq(parse("cpus=16 release=6.1.0-56-amd64 tz=CET hz=1000\n", &m), 0);
	ck_assert_str_eq(m.release, "6.1.0-56-amd64");
	ck_assert_uint_eq(m.hz, 1000);
	/* half a pair of clocks is no wall clock */
	ck_assert_int_eq(parse("release=6.1 realtime_ns=17", &m), 0);
	ck_assert(!m.has_clock);
	ck_assert_int_eq(m.realtime_ns, 0);
}
END_TEST

START_TEST(test_marker_damaged)
{
	static const char *const bad[] = {
		"release=6.1 hz=0",
		"release=6.1 hz=25x",
		"release=6.1 hz=99999999999999999999",
		"release=6.1 realtime_ns=-5 mono_ns=1",
		"release=6.1 realtime_ns=9223372036854775808 mono_ns=1",
		"release= hz=250",
		"release=0123456789012345678901234567890123456789012345678901234567890123456789",
	};
	struct host_marker m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(bad[i], &m) == -EINVAL, "'%s' parsed", bad[i]);
		/* nothing half-read is kept */
		ck_assert_str_eq(m.release, "");
		ck_assert_uint_eq(m.hz, 0);
	}
}
END_TEST

START_TEST(test_release_counting)
{
	ck_assert_int_eq(iostat_release_counts_started("6.1.0-56-amd64"), 0);
	ck_assert_int_eq(iostat_release_counts_started("6.12.117+deb12-amd64"), 0);
	ck_assert_int_eq(iostat_release_counts_started("6.15.11"), 0);
	ck_assert_int_eq(iostat_release_counts_started("6.16"), 1);
	ck_assert_int_eq(iostat_release_counts_started("6.18.44-fc-v657"), 1);
	ck_assert_int_eq(iostat_release_counts_started("7.0.0"), 1);
	ck_assert_int_eq(iostat_release_counts_started("5.19.0"), 0);
	ck_assert_int_eq(iostat_release_counts_started(""), -EINVAL);
	ck_assert_int_eq(iostat_release_counts_started("6"), -EINVAL);
	ck_assert_int_eq(iostat_release_counts_started("linux-6.18"), -EINVAL);
}
END_TEST

/* report --iostat and top -x: the trace's kernel first, --hz before its HZ, assumptions said */
START_TEST(test_iostat_basis)
{
	struct trace_host h = { .release = "6.18.44", .hz = 1000, .from = "the recording" };
	struct iostat_basis b;

	report_iostat_basis(&h, 0, &b);
	ck_assert(b.started && !b.started_assumed);
	ck_assert_uint_eq(b.hz, 1000);
	ck_assert(!b.hz_given && !b.hz_assumed);
	ck_assert_str_eq(b.release, "6.18.44");

	report_iostat_basis(&h, 300, &b);
	ck_assert_uint_eq(b.hz, 300);
	ck_assert(b.hz_given && !b.hz_assumed);

	/* a trace-cmd recording: its UNAME, no HZ */
	h = (struct trace_host){ .release = "6.12.117+deb12-amd64", .from = "the recording" };
	report_iostat_basis(&h, 0, &b);
	ck_assert(!b.started && !b.started_assumed);
	ck_assert_uint_eq(b.hz, REPORT_IOSTAT_DEFAULT_HZ);
	ck_assert(b.hz_assumed);

	/* a recording that says nothing */
	h = (struct trace_host){ .from = "the recording" };
	report_iostat_basis(&h, 0, &b);
	ck_assert(!b.started && b.started_assumed);
	ck_assert(b.hz_assumed);
}
END_TEST

/*
 * The recording's kernel decides its %util (report_iostat_host()), at
 * CONFIG_HZ 1000: read 0+8 starts (G) at 1.5 ms, read 8+8 at 5.5 ms,
 * before the first is issued (D at 6.5 ms); they complete at 9.5 and
 * 13.5 ms. A kernel that counts started requests (6.16 and later) finds
 * the first in flight at the second start: busy from jiffy 1 to 13, 12
 * ms. One that counts issued ones finds none: busy from jiffy 5, 8 ms.
 */
static double recorded_util(const char *release, struct iostat_basis *b)
{
	static const struct { unsigned int us; enum blk_kind kind; uint64_t sector; } evs[] = {
		{ 1500, BLK_EV_GETRQ, 0 }, { 1600, BLK_EV_RQ_INSERT, 0 },
		{ 5500, BLK_EV_GETRQ, 8 }, { 5600, BLK_EV_RQ_INSERT, 8 },
		{ 6500, BLK_EV_RQ_ISSUE, 0 }, { 9500, BLK_EV_RQ_COMPLETE, 0 },
		{ 9600, BLK_EV_RQ_ISSUE, 8 }, { 13500, BLK_EV_RQ_COMPLETE, 8 },
	};
	struct trace_host h = { .hz = 1000, .from = "the recording" };
	struct report_iostat ri = { 0 };
	struct ios_row r;

	snprintf(h.release, sizeof(h.release), "%s", release);
	ck_assert_int_eq(report_iostat_init(&ri), 0);
	report_iostat_host(&ri, &h, 0);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct blk_event e = { .ts = evs[i].us * 1000ULL, .dev = KDEV_MKDEV(8, 0),
				       .kind = evs[i].kind, .op = BLK_OP_READ,
				       .sector = evs[i].sector, .nr_sector = 8, .bytes = 4096 };

		ck_assert_int_eq(report_iostat_event(&e, &ri), 0);
	}
	iostat_row(iostat_dev(ri.s, 0), 0, 100000000ULL, &r);
	*b = ri.basis;
	report_iostat_destroy(&ri);
	return r.util;
}

START_TEST(test_recorded_kernel_util)
{
	struct iostat_basis b;

	/* 12 ms and 8 ms of 100 ms */
	ck_assert_double_eq_tol(recorded_util("6.18.44-fc-v657", &b), 12.0, 1e-9);
	ck_assert(b.started && !b.started_assumed);
	ck_assert_double_eq_tol(recorded_util("6.12.117+deb12-amd64", &b), 8.0, 1e-9);
	ck_assert(!b.started && !b.started_assumed);
	ck_assert_double_eq_tol(recorded_util("", &b), 8.0, 1e-9);
	ck_assert(!b.started && b.started_assumed);
}
END_TEST

static Suite *tracehost_suite(void)
{
	Suite *s = suite_create("tracehost");
	TCase *tc = tcase_create("marker");

	tcase_add_test(tc, test_marker_round_trip);
	tcase_add_test(tc, test_marker_unknowns);
	tcase_add_test(tc, test_marker_damaged);
	suite_add_tcase(s, tc);
	tc = tcase_create("kernel");
	tcase_add_test(tc, test_release_counting);
	tcase_add_test(tc, test_iostat_basis);
	tcase_add_test(tc, test_recorded_kernel_util);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(tracehost_suite());
}
