// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_cli_monitor.c - the options of "blkstack monitor": defaults, short,
 * long and "=" forms, the flight recorder's conditions, the endpoint's
 * web configuration, and the combinations that must exit 2.
 */
#include <check.h>
#include <string.h>

#include "check_run.h"
#include "cmd/monitor.h"
#include "cmd/opt.h"
#include "cmd/report.h"

#define PARSE_ARGS(fn, params, ...)                                               \
	({                                                                        \
		char *argv[] = { __VA_ARGS__, NULL };                             \
		fn(sizeof(argv) / sizeof(argv[0]) - 1, argv, params, err, sizeof(err)); \
	})

static char err[CLI_ERR_LEN];

START_TEST(defaults)
{
	struct monitor_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor"), CLI_RUN);
	/* neither --listen nor --textfile: loopback only */
	ck_assert_str_eq(p.listen, MONITOR_DEFAULT_LISTEN);
	ck_assert_ptr_null(p.textfile);
	ck_assert_uint_eq(p.interval_ns, 15000000000ULL);
	ck_assert_uint_eq(p.buffer_kb, CLI_DEFAULT_BUFFER_KB);
	ck_assert(!p.by_cgroup);
	ck_assert(!p.rec.on);
	ck_assert_uint_eq(p.ndevs, 0);
}
END_TEST

START_TEST(export_options)
{
	struct monitor_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "-d", "sda", "--device=dm-0",
				    "--textfile", "/var/lib/node", "--interval=500ms", "-b", "1024",
				    "--max-inflight", "1000", "--timeout", "5s", "-D"), CLI_RUN);
	ck_assert_uint_eq(p.ndevs, 2);
	ck_assert_str_eq(p.devs[1], "dm-0");
	/* a textfile alone: no HTTP server */
	ck_assert_ptr_null(p.listen);
	ck_assert_str_eq(p.textfile, "/var/lib/node");
	ck_assert_uint_eq(p.interval_ns, 500000000ULL);
	ck_assert_uint_eq(p.buffer_kb, 1024);
	ck_assert_uint_eq(p.max_inflight, 1000);
	ck_assert_uint_eq(p.timeout_ns, 5000000000ULL);
	ck_assert(p.debug);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--listen", ":9581"), CLI_RUN);
	ck_assert_str_eq(p.listen, ":9581");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--listen=[::1]:80"), CLI_RUN);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--by", "cgroup",
				    "--max-cgroups=4"), CLI_RUN);
	ck_assert(p.by_cgroup);
	ck_assert_uint_eq(p.max_cgroups, 4);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "-h"), CLI_HELP);
}
END_TEST

START_TEST(bad_export_options)
{
	struct monitor_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--listen", "9581"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "ADDR:PORT"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--listen", "x:0"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--listen", "x:65536"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--listen", "[::1:80"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--interval", "10ms"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--by", "file"),
			 CLI_USAGE_ERROR);
	/* --max-cgroups alone would be parsed and ignored */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--max-cgroups", "4"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--textfile="),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "extra"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--bogus"), CLI_USAGE_ERROR);
}
END_TEST

START_TEST(record_options)
{
	struct monitor_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "latency>100ms",
				    "--record-on=p99>20ms", "--record-on", "signal",
				    "--record-on", "http", "--record-dir", "/var/tmp",
				    "--record-window", "10s", "--record-memory", "32",
				    "--record-gap", "0", "--record-keep", "3"), CLI_RUN);
	ck_assert(p.rec.on && p.rec.on_latency && p.rec.on_p99 && p.rec.on_signal && p.rec.on_http);
	ck_assert_uint_eq(p.rec.latency_ns, 100000000ULL);
	ck_assert_uint_eq(p.rec.p99_ns, 20000000ULL);
	ck_assert_str_eq(p.rec.dir, "/var/tmp");
	ck_assert_uint_eq(p.rec.window_ns, 10000000000ULL);
	ck_assert_uint_eq(p.rec.memory_mb, 32);
	ck_assert_uint_eq(p.rec.gap_ns, 0);
	ck_assert_uint_eq(p.rec.keep, 3);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "signal",
				    "--record-dir", "/d"), CLI_RUN);
	ck_assert_uint_eq(p.rec.window_ns, MONITOR_DEFAULT_RECORD_WINDOW_NS);
	ck_assert_uint_eq(p.rec.memory_mb, MONITOR_DEFAULT_RECORD_MEMORY_MB);
	ck_assert_uint_eq(p.rec.gap_ns, MONITOR_DEFAULT_RECORD_GAP_NS);
	ck_assert_uint_eq(p.rec.keep, MONITOR_DEFAULT_RECORD_KEEP);
	ck_assert_uint_eq(p.rec.nlayers, 0);
}
END_TEST

/* p99>TIME@DEV: per layer, beside the end-to-end p99>TIME, DEV as -d takes it */
START_TEST(record_layer_p99)
{
	struct monitor_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "p99>5ms@sda",
				    "--record-on=p99>20ms", "--record-on", "p99>1s@8:16",
				    "--record-on", "p99>250us@/dev/mapper/vg-lv@x",
				    "--record-dir", "/d"), CLI_RUN);
	ck_assert(p.rec.on && p.rec.on_p99);
	ck_assert_uint_eq(p.rec.p99_ns, 20000000ULL);
	ck_assert_uint_eq(p.rec.nlayers, 3);
	ck_assert_str_eq(p.rec.layers[0].dev, "sda");
	ck_assert_str_eq(p.rec.layers[0].cond, "p99>5ms@sda");
	ck_assert_uint_eq(p.rec.layers[0].p99_ns, 5000000ULL);
	ck_assert_str_eq(p.rec.layers[1].dev, "8:16");
	ck_assert_uint_eq(p.rec.layers[1].p99_ns, 1000000000ULL);
	/* the first '@' ends the duration; the name keeps the rest */
	ck_assert_str_eq(p.rec.layers[2].dev, "/dev/mapper/vg-lv@x");
	ck_assert_uint_eq(p.rec.layers[2].p99_ns, 250000ULL);

	/* the layer form alone: the end-to-end p99 stays off */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "p99>5ms@md0",
				    "--record-dir", "/d"), CLI_RUN);
	ck_assert(p.rec.on && !p.rec.on_p99);
	ck_assert_uint_eq(p.rec.nlayers, 1);
}
END_TEST

START_TEST(bad_record_options)
{
	struct monitor_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "slow"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "latency>",
				    "--record-dir", "/d"), CLI_USAGE_ERROR);
	/* when, but not where */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "signal"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--record-dir"));
	/* where, but not when: parsed and ignored otherwise */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-dir", "/d"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-keep", "3"),
			 CLI_USAGE_ERROR);
	/* POST /record needs the endpoint */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--textfile", "/t",
				    "--record-on", "http", "--record-dir", "/d"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "signal",
				    "--record-dir", "/d", "--record-window", "500ms"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "signal",
				    "--record-dir", "/d", "--record-memory", "0"), CLI_USAGE_ERROR);
	/* p99>TIME@DEV: a device and a duration, not zero */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "p99>5ms@",
				    "--record-dir", "/d"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "a device goes after '@'"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "p99>@sda",
				    "--record-dir", "/d"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "p99>0@sda",
				    "--record-dir", "/d"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "p99>fast@sda",
				    "--record-dir", "/d"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "'fast' is not a duration"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on",
				    "p99>000000000000000000000000000000001s@sda", "--record-dir", "/d"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "p99@sda>5ms",
				    "--record-dir", "/d"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "p99>TIME@DEV"));
}
END_TEST

/* report --by cgroup: the last --by wins, live only, no page cache */
START_TEST(web_config_options)
{
	struct monitor_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor"), CLI_RUN);
	ck_assert_ptr_null(p.web_config);
	ck_assert(!p.record_without_auth);
	/* the default listener takes it */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--web-config", "/etc/w.yml"),
			 CLI_RUN);
	ck_assert_str_eq(p.web_config, "/etc/w.yml");
	ck_assert_str_eq(p.listen, MONITOR_DEFAULT_LISTEN);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--listen", ":9581",
				    "--web-config=w.yml", "--textfile", "/t", "--record-on", "http",
				    "--record-dir", "/d", "--record-without-auth"), CLI_RUN);
	ck_assert_str_eq(p.web_config, "w.yml");
	ck_assert(p.record_without_auth);
}
END_TEST

START_TEST(bad_web_config_options)
{
	struct monitor_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--web-config", ""),
			 CLI_USAGE_ERROR);
	/* a textfile alone serves no HTTP: the file would configure nothing */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--textfile", "/t",
				    "--web-config", "w.yml"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--listen"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-without-auth"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--record-on http"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_monitor, &p, "monitor", "--record-on", "signal",
				    "--record-dir", "/d", "--record-without-auth"), CLI_USAGE_ERROR);
}
END_TEST

START_TEST(report_by_cgroup)
{
	struct report_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "cgroup", "--json"),
			 CLI_RUN);
	ck_assert(p.by_cgroup);
	ck_assert_int_eq(p.by, CLI_BY_NONE);
	ck_assert(!p.page_cache);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by=cgroup", "--by", "dir"),
			 CLI_RUN);
	ck_assert(!p.by_cgroup);
	ck_assert_int_eq(p.by, CLI_BY_DIR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "dir", "--by", "cgroup"),
			 CLI_RUN);
	ck_assert(p.by_cgroup);
	ck_assert(!p.page_cache);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--by", "cgroup"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "cgroup",
				    "--page-cache"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "cgroup", "--top", "3"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "cgroup", "--folded"),
			 CLI_USAGE_ERROR);
}
END_TEST

static Suite *cli_monitor_suite(void)
{
	Suite *s = suite_create("cli_monitor");
	TCase *tc = tcase_create("export");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, export_options);
	tcase_add_test(tc, bad_export_options);
	suite_add_tcase(s, tc);
	tc = tcase_create("record");
	tcase_add_test(tc, record_options);
	tcase_add_test(tc, record_layer_p99);
	tcase_add_test(tc, bad_record_options);
	suite_add_tcase(s, tc);
	tc = tcase_create("web");
	tcase_add_test(tc, web_config_options);
	tcase_add_test(tc, bad_web_config_options);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_add_test(tc, report_by_cgroup);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(cli_monitor_suite());
}
