// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_cli_pagecache.c - the page-cache options of "blkstack report" (--by,
 * --top, --folded, --flame, --page-cache, --resolve-paths) and "blkstack
 * cache": short, long and "=" forms, what implies what, and the
 * combinations that must exit 2.
 */
#include <check.h>
#include <string.h>

#include "check_run.h"
#include "cmd/cache.h"
#include "cmd/opt.h"
#include "cmd/record.h"
#include "cmd/report.h"

#define PARSE_ARGS(fn, params, ...)                                               \
	({                                                                        \
		char *argv[] = { __VA_ARGS__, NULL };                             \
		fn(sizeof(argv) / sizeof(argv[0]) - 1, argv, params, err, sizeof(err)); \
	})

static char err[CLI_ERR_LEN];

START_TEST(report_file_options)
{
	struct report_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report"), CLI_RUN);
	ck_assert(!p.page_cache);
	ck_assert_int_eq(p.by, CLI_BY_NONE);
	ck_assert_int_eq(p.resolve, CLI_RESOLVE_DEFAULT);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "dir", "--top=5",
				    "--resolve-paths=walk", "--flame", "x.svg"), CLI_RUN);
	ck_assert_int_eq(p.by, CLI_BY_DIR);
	ck_assert_uint_eq(p.top, 5);
	ck_assert_int_eq(p.resolve, CLI_RESOLVE_WALK);
	ck_assert_str_eq(p.flame, "x.svg");
	ck_assert(p.page_cache);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by=process", "--json"),
			 CLI_RUN);
	ck_assert_int_eq(p.by, CLI_BY_PROCESS);
	ck_assert(p.page_cache);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "file"), CLI_RUN);
	ck_assert_int_eq(p.by, CLI_BY_FILE);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--folded",
				    "--resolve-paths", "none", "--", "tar", "cf", "/dev/null", "/"),
			 CLI_RUN);
	ck_assert(p.folded);
	ck_assert(p.page_cache);
	ck_assert_int_eq(p.resolve, CLI_RESOLVE_NONE);
	ck_assert_str_eq(p.command[0], "tar");

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--page-cache",
				    "--resolve-paths=proc"), CLI_RUN);
	ck_assert(p.page_cache);
	ck_assert_int_eq(p.by, CLI_BY_NONE);
	ck_assert_int_eq(p.resolve, CLI_RESOLVE_PROC);

	/* a recording: the file options, without --page-cache */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "x.dat", "--by", "file"),
			 CLI_RUN);
	ck_assert(p.page_cache);
}
END_TEST

static const struct {
	const char *args[8];
	const char *msg;
} report_errors[] = {
	{ { "--by", "inode" }, "invalid --by 'inode'" },
	{ { "--by" }, "needs an argument" },
	{ { "--top", "3" }, "--top goes with --by" },
	{ { "--by", "file", "--top", "0" }, "invalid --top '0'" },
	{ { "--folded", "--json" }, "--folded prints stacks of paths" },
	{ { "--folded", "--by", "process" }, "--folded prints stacks of paths" },
	{ { "--folded", "--by", "file" }, "--folded goes with --by dir" },
	{ { "--page-cache", "--json" }, "choose the table with --by" },
	{ { "--resolve-paths", "walk" }, "--resolve-paths goes with" },
	{ { "--by", "file", "--resolve-paths", "all" }, "invalid --resolve-paths 'all'" },
	{ { "-i", "x.dat", "--page-cache" }, "--page-cache is for live tracing" },
	{ { "--flame=" }, "--flame needs a file name" },
};

START_TEST(report_file_errors)
{
	struct report_params p;
	char *argv[10] = { "report" };
	int argc = 1;

	for (int i = 0; report_errors[_i].args[i]; i++)
		argv[argc++] = (char *)report_errors[_i].args[i];
	ck_assert_int_eq(cli_parse_report(argc, argv, &p, err, sizeof(err)), CLI_USAGE_ERROR);
	ck_assert_msg(strstr(err, report_errors[_i].msg), "'%s' does not say '%s'", err,
		      report_errors[_i].msg);
}
END_TEST

START_TEST(cache_options)
{
	struct cache_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_cache, &p, "cache"), CLI_RUN);
	ck_assert_uint_eq(p.interval_ns, 1000000000ULL);
	ck_assert(!p.has_count);
	ck_assert(!p.log);
	ck_assert_uint_eq(p.top, 0);
	ck_assert_int_eq(p.buffer_kb, CLI_DEFAULT_BUFFER_KB);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_cache, &p, "cache", "-d", "/srv", "--device=sda1",
				    "-b", "16384", "--top", "7", "-o", "out.txt", "-D", "2s", "3"),
			 CLI_RUN);
	ck_assert_uint_eq(p.ndevs, 2);
	ck_assert_str_eq(p.devs[0], "/srv");
	ck_assert_str_eq(p.devs[1], "sda1");
	ck_assert_int_eq(p.buffer_kb, 16384);
	ck_assert_uint_eq(p.top, 7);
	ck_assert_str_eq(p.output, "out.txt");
	ck_assert(p.debug);
	ck_assert_uint_eq(p.interval_ns, 2000000000ULL);
	ck_assert(p.has_count);
	ck_assert_uint_eq(p.count, 3);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_cache, &p, "cache", "--log", "-w", "500ms",
				    "--resolve-paths=walk"), CLI_RUN);
	ck_assert(p.log);
	ck_assert(p.has_duration);
	ck_assert_uint_eq(p.duration_ns, 500000000ULL);
	ck_assert_int_eq(p.resolve, CLI_RESOLVE_WALK);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_cache, &p, "cache", "-h"), CLI_HELP);
	ck_assert_ptr_nonnull(strstr(cli_usage_cache(), "See blkstack-cache(8)."));
}
END_TEST

static const struct {
	const char *args[6];
	const char *msg;
} cache_errors[] = {
	{ { "--log", "1" }, "--log prints as it goes" },
	{ { "--log", "--top", "3" }, "--top is for the tables" },
	{ { "0" }, "invalid interval '0'" },
	{ { "1", "0" }, "invalid count '0'" },
	{ { "1", "2", "3" }, "unexpected argument '3'" },
	{ { "-d", "" }, "-d needs a device" },
	{ { "--resolve-paths", "x" }, "invalid --resolve-paths 'x'" },
	{ { "--json" }, "unknown option '--json'" },
	{ { "-i", "x.dat" }, "unknown option '-i'" },
};

START_TEST(cache_errors_exit_usage)
{
	struct cache_params p;
	char *argv[8] = { "cache" };
	int argc = 1;

	for (int i = 0; cache_errors[_i].args[i]; i++)
		argv[argc++] = (char *)cache_errors[_i].args[i];
	ck_assert_int_eq(cli_parse_cache(argc, argv, &p, err, sizeof(err)), CLI_USAGE_ERROR);
	ck_assert_msg(strstr(err, cache_errors[_i].msg), "'%s' does not say '%s'", err,
		      cache_errors[_i].msg);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli_pagecache");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, report_file_options);
	tcase_add_loop_test(tc, report_file_errors, 0,
			    sizeof(report_errors) / sizeof(report_errors[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("cache");
	tcase_add_test(tc, cache_options);
	tcase_add_loop_test(tc, cache_errors_exit_usage, 0,
			    sizeof(cache_errors) / sizeof(cache_errors[0]));
	suite_add_tcase(s, tc);
	return check_run(s);
}
