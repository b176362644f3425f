// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_openmetrics.c - the Prometheus / OpenMetrics exposition of fixture
 * statistics: buckets cumulative, "+Inf" = _count, _sum = the sum, every
 * family in one block, labels escaped; and promtool's own check of the
 * text when promtool is installed.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "output/openmetrics.h"
#include "track/stats.h"

#define DM0	KDEV_MKDEV(253, 0)
#define SDA	KDEV_MKDEV(8, 0)
#define SDA1	KDEV_MKDEV(8, 1)

static struct stats *st;
static struct om_device devs[3];
static struct source_cpu_stats cpus[2] = { { .events = 1000, .missed = 3 }, { .events = 7 } };
static struct source_stats src = { .live = true, .ncpu = 2, .cpu = cpus };
static struct tk_counters tk = { .events = 8, .ios_top = 4, .ios_top_matched = 3, .inflight = 2 };

/* dm -> partition -> disk, @lat ns at the disk, 8 sectors, as check_stats' tree */
static void feed(uint64_t lat, uint8_t op)
{
	struct tk_rec r[3] = {
		{ .dev = DM0, .parent = -1, .kind = TK_LAYER_BIO, .op = op, .sectors = 8,
		  .q = 100, .down = 110, .up = 130 + lat, .c = 140 + lat, .complete = true },
		{ .dev = SDA1, .parent = 0, .parent_dev = DM0, .depth = 1, .kind = TK_LAYER_REMAP,
		  .op = op, .sectors = 8, .q = 110, .down = 115, .up = 130 + lat,
		  .c = 130 + lat, .complete = true },
		{ .dev = SDA, .parent = 1, .parent_dev = SDA1, .depth = 2,
		  .kind = TK_LAYER_REQUEST, .op = op, .sectors = 8, .q = 115, .qev = 117,
		  .g = 120, .d = 130, .down = 130, .up = 130 + lat, .c = 130 + lat,
		  .complete = true },
	};
	struct tk_io io = { .pid = 42, .top = true, .matched = true, .root = r, .recs = r,
			    .nrecs = 3 };

	stats_io(&io, st);
}

static void setup(void)
{
	st = stats_alloc();
	ck_assert_ptr_nonnull(st);
	memset(devs, 0, sizeof(devs));
	devs[0] = (struct om_device){ .dev = DM0, .name = "dm-0", .kind = "dm",
				      .target = "crypt", .dm_name = "my \"vol\"\\x",
				      .dm_uuid = "CRYPT-LUKS2-abc" };
	devs[1] = (struct om_device){ .dev = SDA1, .name = "sda1", .kind = "part",
				      .parent = SDA };
	devs[2] = (struct om_device){ .dev = SDA, .name = "sda", .kind = "disk" };
}

static void teardown(void)
{
	stats_free(st);
}

/* The exposition of @st in a malloc'd string. */
static char *expose(bool openmetrics)
{
	struct om_input in = { .st = st, .tk = &tk, .src = &src, .devs = devs, .ndevs = 3,
			       .version = "0.1", .kernel = "6.1.0", .openmetrics = openmetrics };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(out_openmetrics(fp, &in), 0);
	fclose(fp);
	return buf;
}

/* The value of the sample line that starts with @prefix (whole name and labels). */
static double sample(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);

	while (p && *p) {
		if (!strncmp(p, prefix, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	ck_abort_msg("no sample '%s'", prefix);
	return 0;
}

START_TEST(buckets_small_values_exact)
{
	static const uint64_t bounds[] = { 1, 2, 5, 10, 20, 50 };
	uint64_t out[6];
	struct hist h = { 0 };

	/* below 64 every value is its own slot: counts are exact */
	hist_add(&h, 0);
	hist_add(&h, 2);
	hist_add(&h, 3);
	hist_add(&h, 10);
	hist_add(&h, 60);
	om_hist_buckets(&h, bounds, 6, out);
	ck_assert_uint_eq(out[0], 1);	/* 0 */
	ck_assert_uint_eq(out[1], 2);	/* 0, 2 */
	ck_assert_uint_eq(out[2], 3);	/* + 3 */
	ck_assert_uint_eq(out[3], 4);	/* + 10 */
	ck_assert_uint_eq(out[4], 4);
	ck_assert_uint_eq(out[5], 4);	/* 60 only in +Inf */
	ck_assert_uint_eq(h.count, 5);
}
END_TEST

START_TEST(buckets_cumulative_and_powers_exact)
{
	uint64_t out[OM_SIZE_BOUNDS];
	struct hist h = { 0 };

	/* powers of two are slot boundaries: 4096 is under le=4096, 4097 not */
	hist_add(&h, 4096);
	hist_add(&h, 4096);
	hist_add(&h, 8192);
	hist_add(&h, 1 << 20);
	hist_add(&h, 1ULL << 30);	/* above 16 MiB: only in +Inf */
	om_hist_buckets(&h, om_size_bounds, OM_SIZE_BOUNDS, out);
	ck_assert_uint_eq(out[2], 0);	/* 2048 */
	ck_assert_uint_eq(out[3], 2);	/* 4096 */
	ck_assert_uint_eq(out[4], 3);	/* 8192 */
	ck_assert_uint_eq(out[11], 4);	/* 1 MiB */
	ck_assert_uint_eq(out[OM_SIZE_BOUNDS - 1], 4);
	for (int i = 1; i < OM_SIZE_BOUNDS; i++)
		ck_assert_uint_ge(out[i], out[i - 1]);
}
END_TEST

START_TEST(bounds_fixed_and_ascending)
{
	/* documented in blkstack-monitor(8): hosts aggregate only if these never change */
	ck_assert_uint_eq(om_latency_bounds[0], 1000);
	ck_assert_uint_eq(om_latency_bounds[OM_LATENCY_BOUNDS - 1], 10000000000ULL);
	ck_assert_uint_eq(om_size_bounds[0], 512);
	ck_assert_uint_eq(om_size_bounds[OM_SIZE_BOUNDS - 1], 16777216);
	for (int i = 1; i < OM_LATENCY_BOUNDS; i++)
		ck_assert_uint_gt(om_latency_bounds[i], om_latency_bounds[i - 1]);
	for (int i = 1; i < OM_SIZE_BOUNDS; i++)
		ck_assert_uint_eq(om_size_bounds[i], 2 * om_size_bounds[i - 1]);
}
END_TEST

/* Disk total latency: C - Q = 130 + lat - 115 = 15 + lat ns. */
START_TEST(histogram_samples)
{
	const char *l = "device=\"8:0\",name=\"sda\",kind=\"disk\",target=\"\",op=\"read\",stage=\"total\"";
	char key[512];
	char *text;

	feed(1000, BLK_OP_READ);	/* 1015 ns */
	feed(300000, BLK_OP_READ);	/* 300015 ns */
	feed(3000000000ULL, BLK_OP_READ);	/* 3 s */
	feed(20000000000ULL, BLK_OP_READ);	/* 20 s: only in +Inf */
	text = expose(false);
	snprintf(key, sizeof(key), "blkstack_layer_io_latency_seconds_bucket{%s,le=\"0.000001\"}", l);
	ck_assert_double_eq(sample(text, key), 0);
	/* 1013 ns (C - Q, from the disk's queue event) is in the slot [1008, 1024) */
	snprintf(key, sizeof(key), "blkstack_layer_io_latency_seconds_bucket{%s,le=\"0.000002\"}", l);
	ck_assert_double_eq(sample(text, key), 1);
	snprintf(key, sizeof(key), "blkstack_layer_io_latency_seconds_bucket{%s,le=\"0.0005\"}", l);
	ck_assert_double_eq(sample(text, key), 2);
	snprintf(key, sizeof(key), "blkstack_layer_io_latency_seconds_bucket{%s,le=\"5\"}", l);
	ck_assert_double_eq(sample(text, key), 3);
	snprintf(key, sizeof(key), "blkstack_layer_io_latency_seconds_bucket{%s,le=\"10\"}", l);
	ck_assert_double_eq(sample(text, key), 3);
	snprintf(key, sizeof(key), "blkstack_layer_io_latency_seconds_bucket{%s,le=\"+Inf\"}", l);
	ck_assert_double_eq(sample(text, key), 4);
	snprintf(key, sizeof(key), "blkstack_layer_io_latency_seconds_count{%s}", l);
	ck_assert_double_eq(sample(text, key), 4);
	/* the sum is exact, in seconds: 1013 + 300013 + 3e9+13 + 2e10+13 ns */
	snprintf(key, sizeof(key), "blkstack_layer_io_latency_seconds_sum{%s}", l);
	ck_assert(strstr(text, "_sum{device=\"8:0\",name=\"sda\",kind=\"disk\",target=\"\",op=\"read\",stage=\"total\"} 23.000301052\n"));
	/* sizes: 8 sectors = 4096 bytes, four times */
	ck_assert_double_eq(sample(text, "blkstack_layer_io_size_bytes_bucket{device=\"8:0\",name=\"sda\",kind=\"disk\",target=\"\",op=\"read\",le=\"4096\"}"), 4);
	ck_assert_double_eq(sample(text, "blkstack_layer_io_size_bytes_sum{device=\"8:0\",name=\"sda\",kind=\"disk\",target=\"\",op=\"read\"}"), 16384);
	ck_assert_double_eq(sample(text, "blkstack_layer_bytes_total{device=\"8:0\",name=\"sda\",kind=\"disk\",target=\"\",op=\"read\"}"), 16384);
	ck_assert_double_eq(sample(text, "blkstack_layer_ios_total{device=\"253:0\",name=\"dm-0\",kind=\"dm\",target=\"crypt\",op=\"read\"}"), 4);
	ck_assert_double_eq(sample(text, "blkstack_end_to_end_bytes_total{op=\"read\"}"), 16384);
	ck_assert_double_eq(sample(text, "blkstack_end_to_end_latency_seconds_count{op=\"read\"}"), 4);
	/* no write was seen: no write series */
	ck_assert_ptr_null(strstr(text, "op=\"write\""));
	free(text);
}
END_TEST

/* Every bucket series is cumulative and ends at +Inf = _count. */
START_TEST(every_histogram_cumulative)
{
	char *text, *line, *save = NULL;
	double last = 0;
	int buckets = 0;

	for (int i = 0; i < 200; i++)
		feed((uint64_t)i * i * 97 + 3, i % 3 ? BLK_OP_READ : BLK_OP_WRITE);
	text = expose(false);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *le = strstr(line, "le=\"");
		double v = strtod(strrchr(line, ' ') + 1, NULL);

		if (!strstr(line, "_bucket{")) {
			if (strstr(line, "_count{"))
				ck_assert_double_eq(v, last);	/* the +Inf just before */
			continue;
		}
		buckets++;
		if (!strncmp(le + 4, "0.000001\"", 9) || !strncmp(le + 4, "512\"", 4))
			last = 0;	/* the first bucket of a series */
		ck_assert_msg(v >= last, "not cumulative: %s", line);
		last = v;
	}
	ck_assert_int_gt(buckets, 100);
	free(text);
}
END_TEST

/* A family's samples follow its TYPE line, and no family is declared twice. */
START_TEST(families_in_one_block)
{
	char *text = NULL, *line, *save = NULL;
	char types[128][96];
	char family[96] = "";
	int ntypes = 0;

	feed(5000, BLK_OP_WRITE);
	text = expose(false);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[96];

		if (!strncmp(line, "# TYPE ", 7)) {
			sscanf(line + 7, "%95s", family);
			for (int i = 0; i < ntypes; i++)
				ck_assert_str_ne(types[i], family);
			ck_assert_int_lt(ntypes, 128);
			strcpy(types[ntypes++], family);
			continue;
		}
		if (line[0] == '#')
			continue;
		sscanf(line, "%95[^{ ]", name);
		ck_assert_msg(!strncmp(name, family, strlen(family)),
			      "sample %s outside its family (%s)", name, family);
	}
	free(text);
}
END_TEST

START_TEST(labels_escaped_and_info)
{
	char *text;

	feed(5000, BLK_OP_WRITE);
	devs[2].has_inflight = true;
	devs[2].inflight[0] = 3;
	devs[2].inflight[1] = 7;
	text = expose(false);
	ck_assert_double_eq(sample(text, "blkstack_layer_inflight{device=\"8:0\",name=\"sda\",kind=\"disk\",target=\"\",dir=\"write\"}"), 7);
	ck_assert_double_eq(sample(text, "blkstack_layer_inflight{device=\"8:0\",name=\"sda\",kind=\"disk\",target=\"\",dir=\"read\"}"), 3);
	/* not sampled: no series (a device gone, or without the attribute) */
	ck_assert_ptr_null(strstr(text, "blkstack_layer_inflight{device=\"8:1\""));
	ck_assert_ptr_nonnull(strstr(text, "dm_name=\"my \\\"vol\\\"\\\\x\""));
	ck_assert_ptr_nonnull(strstr(text, "blkstack_device_info{device=\"8:1\",name=\"sda1\",kind=\"part\",target=\"\",dm_name=\"\",dm_uuid=\"\",md_level=\"\",parent=\"8:0\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "blkstack_info{version=\"0.1\",kernel=\"6.1.0\"} 1\n"));
	ck_assert_double_eq(sample(text, "blkstack_events_lost_total{cpu=\"0\"}"), 3);
	/* 3 events lost, at 2 events an I/O: about 2 more I/Os, not followed */
	ck_assert_double_eq(sample(text, "blkstack_match_ratio"), 0.5);
	ck_assert_ptr_null(strstr(text, "# EOF"));
	ck_assert_ptr_null(strstr(text, "blkstack_recordings_total"));
	free(text);
}
END_TEST

START_TEST(openmetrics_form)
{
	char *text;
	size_t n;

	feed(5000, BLK_OP_WRITE);
	text = expose(true);
	n = strlen(text);
	ck_assert_str_eq(text + n - 6, "# EOF\n");
	/* counter families are named without _total, their samples with it */
	ck_assert_ptr_nonnull(strstr(text, "# TYPE blkstack_layer_bytes counter\n# UNIT blkstack_layer_bytes bytes\n"));
	ck_assert_ptr_nonnull(strstr(text, "# TYPE blkstack_device info\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nblkstack_layer_bytes_total{"));
	free(text);
}
END_TEST

/* --by cgroup: every layer and end-to-end series per group, none without the label. */
START_TEST(groups_labelled)
{
	struct stats *other = stats_alloc();
	struct om_group groups[2] = { { "/db.slice", NULL }, { "other", NULL } };
	struct om_input in = { .st = st, .groups = groups, .ngroups = 2, .devs = devs,
			       .ndevs = 3, .tk = &tk, .src = &src };
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *fp;

	feed(5000, BLK_OP_READ);
	feed(7000, BLK_OP_READ);
	groups[0].st = st;
	/* a second group with one write */
	{
		struct stats *keep = st;

		st = other;
		feed(9000, BLK_OP_WRITE);
		st = keep;
	}
	groups[1].st = other;
	fp = open_memstream(&text, &len);
	ck_assert_int_eq(out_openmetrics(fp, &in), 0);
	fclose(fp);
	ck_assert_double_eq(sample(text, "blkstack_end_to_end_ios_total{cgroup=\"/db.slice\",op=\"read\"}"), 2);
	ck_assert_double_eq(sample(text, "blkstack_end_to_end_ios_total{cgroup=\"other\",op=\"write\"}"), 1);
	ck_assert_double_eq(sample(text, "blkstack_layer_bytes_total{cgroup=\"other\",device=\"8:0\",name=\"sda\",kind=\"disk\",target=\"\",op=\"write\"}"), 4096);
	ck_assert_ptr_null(strstr(text, "cgroup=\"/db.slice\",op=\"write\""));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((!strncmp(line, "blkstack_layer_", 15) &&
		     strncmp(line, "blkstack_layer_inflight", 23)) ||
		    !strncmp(line, "blkstack_end_to_end_", 20))
			ck_assert_msg(strstr(line, "{cgroup=\""), "no cgroup label: %s", line);
	free(text);
	stats_free(other);
}
END_TEST

/* promtool, when installed, is the judge of the text format. */
START_TEST(promtool_accepts)
{
	char path[] = "/tmp/check_openmetrics.XXXXXX";
	char cmd[256];
	char *text;
	FILE *fp;
	int fd, rc;

	if (system("command -v promtool >/dev/null 2>&1") != 0) {
		fprintf(stderr, "check_openmetrics: promtool not installed (apt-get install prometheus): its check is not run\n");
		return;
	}
	for (int i = 0; i < 50; i++)
		feed((uint64_t)i * 100003, i % 2 ? BLK_OP_READ : BLK_OP_WRITE);
	text = expose(false);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	fputs(text, fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	rc = system(cmd);
	unlink(path);
	free(text);
	ck_assert_int_eq(rc, 0);
}
END_TEST

static Suite *openmetrics_suite(void)
{
	Suite *s = suite_create("openmetrics");
	TCase *tc = tcase_create("buckets");

	tcase_add_test(tc, buckets_small_values_exact);
	tcase_add_test(tc, buckets_cumulative_and_powers_exact);
	tcase_add_test(tc, bounds_fixed_and_ascending);
	suite_add_tcase(s, tc);
	tc = tcase_create("exposition");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, histogram_samples);
	tcase_add_test(tc, every_histogram_cumulative);
	tcase_add_test(tc, families_in_one_block);
	tcase_add_test(tc, labels_escaped_and_info);
	tcase_add_test(tc, openmetrics_form);
	tcase_add_test(tc, groups_labelled);
	tcase_add_test(tc, promtool_accepts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(openmetrics_suite());
}
