// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_cli.c - option parsing of each command: short, long and "=" forms,
 * defaults, and the errors that must exit 2.
 */
#include <check.h>
#include <string.h>

#include "check_run.h"
#include "cmd/convert.h"
#include "cmd/opt.h"
#include "cmd/parse.h"
#include "cmd/record.h"
#include "cmd/diff.h"
#include "cmd/report.h"
#include "cmd/top.h"
#include "cmd/topology.h"
#include "cmd/trace.h"

/* rtla's idea: build argv from a list and parse it */
#define PARSE_ARGS(fn, params, ...)                                               \
	({                                                                        \
		char *argv[] = { __VA_ARGS__, NULL };                             \
		fn(sizeof(argv) / sizeof(argv[0]) - 1, argv, params, err, sizeof(err)); \
	})

static char err[CLI_ERR_LEN];

START_TEST(trace_defaults)
{
	struct trace_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace"), CLI_RUN);
	ck_assert_int_eq(p.ndevs, 0);
	ck_assert(!p.has_duration);
	ck_assert_ptr_null(p.output);
	ck_assert_int_eq(p.buffer_kb, CLI_DEFAULT_BUFFER_KB);
	ck_assert(!p.no_summary);
	ck_assert(!p.debug);
}
END_TEST

START_TEST(trace_short_long_equals)
{
	struct trace_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace", "-d", "sda", "--device",
				    "8:16", "--device=/mnt", "-w", "500ms", "-b", "1024",
				    "-o", "out.txt", "--no-summary", "-D"), CLI_RUN);
	ck_assert_int_eq(p.ndevs, 3);
	ck_assert_str_eq(p.devs[0], "sda");
	ck_assert_str_eq(p.devs[1], "8:16");
	ck_assert_str_eq(p.devs[2], "/mnt");
	ck_assert(p.has_duration);
	ck_assert_uint_eq(p.duration_ns, 500000000ULL);
	ck_assert_int_eq(p.buffer_kb, 1024);
	ck_assert_str_eq(p.output, "out.txt");
	ck_assert(p.no_summary);
	ck_assert(p.debug);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace", "--duration=2m",
				    "--buffer-size=4", "--output=-"), CLI_RUN);
	ck_assert_uint_eq(p.duration_ns, 120000000000ULL);
	ck_assert_int_eq(p.buffer_kb, 4);
	ck_assert_str_eq(p.output, "-");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace", "-w10"), CLI_RUN);
	ck_assert_uint_eq(p.duration_ns, 10000000000ULL);
}
END_TEST

static const struct {
	const char *args[4];
	const char *msg;
} trace_errors[] = {
	{ { "-w", "0" }, "invalid duration '0'" },
	{ { "-w", "-1" }, "invalid duration '-1'" },
	{ { "-w", "10x" }, "invalid duration '10x'" },
	{ { "-b", "2" }, "invalid buffer size '2'" },
	{ { "-b", "lots" }, "invalid buffer size 'lots'" },
	{ { "-d", "" }, "-d needs a device" },
	{ { "-o", "" }, "-o needs a file name" },
	{ { "-x" }, "unknown option '-x'" },
	{ { "--bogus" }, "unknown option '--bogus'" },
	{ { "-w" }, "option '-w' needs an argument" },
	{ { "extra" }, "unexpected argument 'extra'" },
};

START_TEST(trace_errors_exit_usage)
{
	struct trace_params p;
	char *argv[6] = { "trace" };
	int argc = 1;

	for (int i = 0; i < 4 && trace_errors[_i].args[i]; i++)
		argv[argc++] = (char *)trace_errors[_i].args[i];
	argv[argc] = NULL;
	ck_assert_int_eq(cli_parse_trace(argc, argv, &p, err, sizeof(err)), CLI_USAGE_ERROR);
	ck_assert_msg(strstr(err, trace_errors[_i].msg), "got '%s', want '%s'", err,
		      trace_errors[_i].msg);
}
END_TEST

START_TEST(trace_plugs_needs_device)
{
	struct trace_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace", "--plugs"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--plugs goes with -d"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace", "-d", "sda", "--plugs"),
			 CLI_RUN);
	ck_assert(p.plugs);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace", "-d", "sda"), CLI_RUN);
	ck_assert(!p.plugs);
}
END_TEST

START_TEST(trace_help)
{
	struct trace_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace", "-h"), CLI_HELP);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_trace, &p, "trace", "-d", "x", "--help"), CLI_HELP);
	ck_assert_ptr_nonnull(strstr(cli_usage_trace(), "--duration"));
}
END_TEST

START_TEST(trace_too_many_devices)
{
	struct trace_params p;
	char *argv[2 * CLI_MAX_DEVS + 4] = { "trace" };
	int argc = 1;

	for (int i = 0; i <= CLI_MAX_DEVS; i++) {
		argv[argc++] = "-d";
		argv[argc++] = "sda";
	}
	ck_assert_int_eq(cli_parse_trace(argc, argv, &p, err, sizeof(err)), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "at most"));
}
END_TEST

START_TEST(parse_options)
{
	struct parse_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_parse, &p, "parse", "-i", "t.dat", "-d", "8:16",
				    "--device=259:3", "--output=o.txt", "--no-summary"), CLI_RUN);
	ck_assert_str_eq(p.input, "t.dat");
	ck_assert_int_eq(p.ndevs, 2);
	ck_assert_str_eq(p.devs[1], "259:3");
	ck_assert_str_eq(p.output, "o.txt");
	ck_assert(p.no_summary);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_parse, &p, "parse", "--input=x.dat"), CLI_RUN);
	ck_assert_str_eq(p.input, "x.dat");
}
END_TEST

START_TEST(parse_errors)
{
	struct parse_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_parse, &p, "parse"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "no input file"));
	/* a name is resolved when the recording's stack is known: not a usage error */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_parse, &p, "parse", "-i", "t", "-d", "sda",
				    "--topology", "s.topo"), CLI_RUN);
	ck_assert_str_eq(p.devs[0], "sda");
	ck_assert_str_eq(p.topology, "s.topo");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_parse, &p, "parse", "-i", "t", "-d", ""),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_parse, &p, "parse", "-i", "t", "--topology="),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_parse, &p, "parse", "-i"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "needs an argument"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_parse, &p, "parse", "-h"), CLI_HELP);
}
END_TEST

START_TEST(report_options)
{
	struct report_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report"), CLI_RUN);
	ck_assert_ptr_null(p.input);
	ck_assert_ptr_null(p.command);
	ck_assert_int_eq(p.buffer_kb, CLI_DEFAULT_BUFFER_KB);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--json",
				    "--max-inflight=4096", "--timeout", "2m", "-o", "r.txt"),
			 CLI_RUN);
	ck_assert_str_eq(p.input, "t.dat");
	ck_assert(p.json);
	ck_assert_uint_eq(p.max_inflight, 4096);
	ck_assert_uint_eq(p.timeout_ns, 120000000000ULL);
	ck_assert_str_eq(p.output, "r.txt");
	/* the command keeps its own options */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-d", "sda", "--", "dd",
				    "-h", "if=/dev/zero"), CLI_RUN);
	ck_assert_int_eq(p.ndevs, 1);
	ck_assert_ptr_nonnull(p.command);
	ck_assert_str_eq(p.command[0], "dd");
	ck_assert_str_eq(p.command[1], "-h");
	ck_assert_str_eq(p.command[2], "if=/dev/zero");
	ck_assert_ptr_null(p.command[3]);
}
END_TEST

START_TEST(report_errors)
{
	struct report_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "dd"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "a command goes after --"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t", "-d", "sda"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "-i reads a recording"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-w", "5", "--", "true"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "mutually exclusive"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--max-inflight", "3"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--timeout", "soon"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--help"), CLI_HELP);
	ck_assert_ptr_nonnull(strstr(cli_usage_report(), "--max-inflight"));
	/* a recorded stack describes a recording: live, sysfs does */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--topology", "s.topo"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "goes with -i"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--topology="),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat",
				    "--topology", "s.topo"), CLI_RUN);
	ck_assert_str_eq(p.topology, "s.topo");
	/* btt's tables, text or JSON; not with the page-cache tables */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--btt",
				    "--json"), CLI_RUN);
	ck_assert(p.btt && p.json);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--btt", "--by", "file"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--btt reports btt's tables"));
	ck_assert_ptr_nonnull(strstr(cli_usage_report(), "--btt"));
	/* iostat's table; --hz goes with it */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--iostat",
				    "--hz=1000"), CLI_RUN);
	ck_assert(p.iostat);
	ck_assert_uint_eq(p.hz, 1000);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--hz", "250"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--hz goes with --iostat"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--iostat", "--hz", "fast"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--iostat", "--btt"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "mutually exclusive"));
	/* amplification adds to the per-layer report, text or JSON */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat",
				    "--amplification", "--json"), CLI_RUN);
	ck_assert(p.amplification);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat",
				    "--amplification", "--btt"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--amplification adds to the per-layer report"));
	/* -j: threads decoding a recording, 1 to 1024, only with -i */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat"), CLI_RUN);
	ck_assert_int_eq(p.jobs, 0);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "-j", "2"),
			 CLI_RUN);
	ck_assert_int_eq(p.jobs, 2);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--jobs=1"),
			 CLI_RUN);
	ck_assert_int_eq(p.jobs, 1);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "-j", "0"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "-j", "x"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-j", "2"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "goes with -i"));
}
END_TEST

START_TEST(report_time_options)
{
	struct report_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--slowest",
				    "5", "--html=r.html", "--json"), CLI_RUN);
	ck_assert_uint_eq(p.slowest, 5);
	ck_assert_str_eq(p.html, "r.html");
	ck_assert(!p.page_cache);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report"), CLI_RUN);
	ck_assert_uint_eq(p.slowest, 0);
	ck_assert_ptr_null(p.html);
	/* --by flag is a per-layer table: it needs no page-cache events */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--by", "flag"),
			 CLI_RUN);
	ck_assert_int_eq(p.by, CLI_BY_FLAG);
	ck_assert(!p.page_cache);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "file", "--html",
				    "x.html"), CLI_RUN);
	ck_assert(p.page_cache);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--slowest", "0"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "invalid --slowest '0'"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--slowest", "100001"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--slowest", "3", "--by",
				    "file"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "not with --by"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "flag", "--top", "3"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--top goes with --by file"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "flag",
				    "--page-cache"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--by", "flags"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "file, dir, process or flag"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--html="), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--html needs a file name"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--slowest", "2", "--folded"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "-i", "t.dat", "--access"),
			 CLI_RUN);
	ck_assert(p.access);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_report, &p, "report", "--access", "--by", "dir"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--access add to the per-layer report"));
}
END_TEST

START_TEST(record_options)
{
	struct record_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record"), CLI_RUN);
	ck_assert_str_eq(p.output, "trace.dat");
	ck_assert_int_eq(p.buffer_kb, CLI_DEFAULT_BUFFER_KB);
	ck_assert_ptr_null(p.command);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "-d", "sda", "-o", "r.dat",
				    "-w", "5s", "-b", "4096"), CLI_RUN);
	ck_assert_str_eq(p.output, "r.dat");
	ck_assert(p.has_duration);
	ck_assert_uint_eq(p.duration_ns, 5000000000ULL);
	ck_assert_int_eq(p.buffer_kb, 4096);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "--", "fio", "-h"), CLI_RUN);
	ck_assert_str_eq(p.command[0], "fio");
	ck_assert_str_eq(p.command[1], "-h");
	/* a recording is written with seeks: not to a pipe */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "-o", "-"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "give a file name"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "-w", "5", "--", "true"),
			 CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "dd"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "-h"), CLI_HELP);
	/* the page cache, and how its files are named at the end */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record"), CLI_RUN);
	ck_assert(!p.page_cache);
	ck_assert_int_eq(p.resolve, CLI_RESOLVE_DEFAULT);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "--page-cache",
				    "--resolve-paths", "walk"), CLI_RUN);
	ck_assert(p.page_cache);
	ck_assert_int_eq(p.resolve, CLI_RESOLVE_WALK);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "--resolve-paths=none"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--page-cache"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_record, &p, "record", "--page-cache",
				    "--resolve-paths=disk"), CLI_USAGE_ERROR);
}
END_TEST

START_TEST(topology_options)
{
	struct topology_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_topology, &p, "topology"), CLI_RUN);
	ck_assert_uint_eq(p.ndevs, 0);
	ck_assert_ptr_null(p.output);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_topology, &p, "topology", "-d", "sda", "--device",
				    "8:16", "-o", "s.topo"), CLI_RUN);
	ck_assert_uint_eq(p.ndevs, 2);
	ck_assert_str_eq(p.devs[1], "8:16");
	ck_assert_str_eq(p.output, "s.topo");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_topology, &p, "topology", "sda"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "unexpected argument"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_topology, &p, "topology", "-x"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_topology, &p, "topology", "-h"), CLI_HELP);
	ck_assert_ptr_nonnull(strstr(cli_usage_topology(), "--topology FILE"));
}
END_TEST

START_TEST(top_options)
{
	struct top_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top"), CLI_RUN);
	ck_assert_uint_eq(p.interval_ns, 1000000000ULL);	/* iostat's default of 1 s */
	ck_assert(!p.has_count);
	ck_assert_ptr_null(p.input);
	ck_assert_int_eq(p.buffer_kb, CLI_DEFAULT_BUFFER_KB);
	/* [interval [count]], with options before and after (getopt permutes) */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "-d", "sda", "2", "5",
				    "--device=dm-0"), CLI_RUN);
	ck_assert_uint_eq(p.interval_ns, 2000000000ULL);
	ck_assert(p.has_count);
	ck_assert_uint_eq(p.count, 5);
	ck_assert_int_eq(p.ndevs, 2);
	ck_assert_str_eq(p.devs[1], "dm-0");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "--input=t.dat", "500ms",
				    "--max-inflight", "4096", "--timeout=1m", "-o", "top.txt",
				    "-b64", "-D"), CLI_RUN);
	ck_assert_str_eq(p.input, "t.dat");
	ck_assert_uint_eq(p.interval_ns, 500000000ULL);
	ck_assert(!p.has_count);
	ck_assert_uint_eq(p.max_inflight, 4096);
	ck_assert_uint_eq(p.timeout_ns, 60000000000ULL);
	ck_assert_str_eq(p.output, "top.txt");
	ck_assert_int_eq(p.buffer_kb, 64);
	ck_assert(p.debug);
	ck_assert(!p.access);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "--access", "2"), CLI_RUN);
	ck_assert(p.access);
	ck_assert_uint_eq(p.interval_ns, 2000000000ULL);
	ck_assert(!p.extended);
	/* --topology: a recording's stack, as report -i takes it */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "-i", "t.dat", "--topology",
				    "s.topo"), CLI_RUN);
	ck_assert_str_eq(p.topology, "s.topo");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "--topology", "s.topo"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "goes with -i"));
	/* -x: iostat's columns; --hz only with it */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "-x", "--hz", "1000", "5"), CLI_RUN);
	ck_assert(p.extended);
	ck_assert_uint_eq(p.hz, 1000);
	ck_assert_uint_eq(p.interval_ns, 5000000000ULL);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "--extended"), CLI_RUN);
	ck_assert(p.extended);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "--hz=250"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--hz goes with -x"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "-x", "--hz", "7"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(cli_usage_top(), "--extended"));
}
END_TEST

static const struct {
	const char *args[4];
	const char *msg;
} top_errors[] = {
	{ { "0" }, "invalid interval" },
	{ { "500us" }, "invalid interval" },		/* below 1 ms */
	{ { "fast" }, "invalid interval" },
	{ { "1", "0" }, "invalid count" },
	{ { "1", "-3" }, "unknown option" },
	{ { "1", "2", "3" }, "unexpected argument '3'" },
	{ { "-i", "t.dat", "-d", "sda" }, "-d is for live tracing" },
	{ { "--timeout", "0" }, "invalid --timeout" },
	{ { "--max-inflight", "15" }, "invalid --max-inflight" },
	{ { "-w", "5" }, "unknown option '-w'" },
	{ { "-o" }, "needs an argument" },
};

START_TEST(top_errors_exit_usage)
{
	struct top_params p;
	char *argv[6] = { "top" };
	int argc = 1;

	for (int k = 0; k < 4 && top_errors[_i].args[k]; k++)
		argv[argc++] = (char *)top_errors[_i].args[k];
	argv[argc] = NULL;
	ck_assert_int_eq(cli_parse_top(argc, argv, &p, err, sizeof(err)), CLI_USAGE_ERROR);
	ck_assert_msg(strstr(err, top_errors[_i].msg), "case %d: '%s' lacks '%s'", _i, err,
		      top_errors[_i].msg);
}
END_TEST

START_TEST(top_help)
{
	struct top_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "-h"), CLI_HELP);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_top, &p, "top", "1", "--help"), CLI_HELP);
	ck_assert_ptr_nonnull(strstr(cli_usage_top(), "[interval [count]]"));
	ck_assert_ptr_nonnull(strstr(cli_usage_top(), "See blkstack-top(8)."));
}
END_TEST

START_TEST(diff_options)
{
	struct diff_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_diff, &p, "diff", "a.dat", "b.dat"), CLI_RUN);
	ck_assert_str_eq(p.a, "a.dat");
	ck_assert_str_eq(p.b, "b.dat");
	ck_assert(!p.json);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_diff, &p, "diff", "--json", "-o", "d.json", "a.dat",
				    "b.dat"), CLI_RUN);
	ck_assert(p.json);
	ck_assert_str_eq(p.output, "d.json");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_diff, &p, "diff", "a.dat"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "two recordings"));
	ck_assert_int_eq(PARSE_ARGS(cli_parse_diff, &p, "diff", "a", "b", "c"), CLI_USAGE_ERROR);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_diff, &p, "diff", "--help"), CLI_HELP);
	/* a stack per side */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_diff, &p, "diff", "--topology-a", "a.topo",
				    "--topology-b=b.topo", "a.dat", "b.dat"), CLI_RUN);
	ck_assert_str_eq(p.topology_a, "a.topo");
	ck_assert_str_eq(p.topology_b, "b.topo");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_diff, &p, "diff", "--topology-a", "", "a", "b"),
			 CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "--topology needs a file name"));
	ck_assert_ptr_nonnull(strstr(cli_usage_diff(), "blkstack-diff(8)"));
}
END_TEST

START_TEST(convert_options)
{
	struct convert_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "-i", "in.dat", "-F", "csv"),
			 CLI_RUN);
	ck_assert_str_eq(p.input, "in.dat");
	ck_assert_int_eq(p.format, CONVERT_CSV);
	ck_assert_ptr_null(p.output);
	ck_assert_uint_eq(p.max_inflight, 0);
	ck_assert_uint_eq(p.timeout_ns, 0);
	ck_assert(!p.debug);
	ck_assert_ptr_null(p.topology);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "-i", "in.dat", "--to",
				    "blktrace", "-o", "bt", "--topology", "stack.txt"), CLI_RUN);
	ck_assert_str_eq(p.topology, "stack.txt");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "-i", "in.dat", "--to",
				    "csv", "--topology="), CLI_USAGE_ERROR);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "--input=a.dat",
				    "--to=perfetto", "--output=a.json", "--max-inflight", "4096",
				    "--timeout=2m", "-D"), CLI_RUN);
	ck_assert_int_eq(p.format, CONVERT_PERFETTO);
	ck_assert_str_eq(p.output, "a.json");
	ck_assert_uint_eq(p.max_inflight, 4096);
	ck_assert_uint_eq(p.timeout_ns, 120000000000ULL);
	ck_assert(p.debug);

	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "-i", "a.dat", "--to",
				    "blktrace", "-o", "out"), CLI_RUN);
	ck_assert_int_eq(p.format, CONVERT_BLKTRACE);
	ck_assert_str_eq(p.output, "out");
	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "-ia.dat", "-Fjsonl",
				    "-o-"), CLI_RUN);
	ck_assert_int_eq(p.format, CONVERT_JSONL);
	ck_assert_str_eq(p.output, "-");
	ck_assert_str_eq(cli_convert_format_name(CONVERT_JSONL), "jsonl");
	ck_assert_str_eq(cli_convert_format_name(CONVERT_BLKTRACE), "blktrace");
	/* btt's data files go into a directory */
	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "-i", "in.dat", "--to",
				    "btt-data", "-o", "dir"), CLI_RUN);
	ck_assert_int_eq(p.format, CONVERT_BTT_DATA);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "-i", "in.dat", "--to",
				    "btt-data"), CLI_USAGE_ERROR);
	ck_assert_ptr_nonnull(strstr(err, "into the directory -o DIR"));
}
END_TEST

static const struct {
	const char *args[12];
	const char *msg;
} convert_errors[] = {
	{ { "convert", "-F", "csv" }, "no input file" },
	{ { "convert", "-i", "a.dat" }, "no output format" },
	{ { "convert", "-i", "a.dat", "--to", "xml" }, "unknown format 'xml'" },
	{ { "convert", "-i", "a.dat", "--to", "CSV" }, "unknown format 'CSV'" },
	{ { "convert", "-i", "a.dat", "--to", "blktrace" }, "-o OUT" },
	{ { "convert", "-i", "a.dat", "--to", "blktrace", "-o", "x", "--timeout", "1s" },
	  "--max-inflight and --timeout" },
	{ { "convert", "-i", "a.dat", "--to", "csv", "--max-inflight", "3" }, "--max-inflight '3'" },
	{ { "convert", "-i", "a.dat", "--to", "csv", "extra" }, "unexpected argument 'extra'" },
	{ { "convert", "-i", "a.dat", "--to" }, "needs an argument" },
	{ { "convert", "-i", "a.dat", "--to", "csv", "-d", "8:0" }, "unknown option '-d'" },
	{ { "convert", "-i", "", "--to", "csv" }, "-i needs a file name" },
};

START_TEST(convert_errors_exit_usage)
{
	struct convert_params p;
	char *argv[12] = { NULL };
	int argc = 0;

	while (convert_errors[_i].args[argc]) {
		argv[argc] = (char *)convert_errors[_i].args[argc];
		argc++;
	}
	ck_assert_int_eq(cli_parse_convert(argc, argv, &p, err, sizeof(err)), CLI_USAGE_ERROR);
	ck_assert_msg(strstr(err, convert_errors[_i].msg), "case %d: '%s' lacks '%s'", _i, err,
		      convert_errors[_i].msg);
}
END_TEST

START_TEST(convert_help)
{
	struct convert_params p;

	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "-h"), CLI_HELP);
	ck_assert_int_eq(PARSE_ARGS(cli_parse_convert, &p, "convert", "--to", "csv", "--help"),
			 CLI_HELP);
	ck_assert_ptr_nonnull(strstr(cli_usage_convert(), "blktrace, csv, jsonl or perfetto"));
	ck_assert_ptr_nonnull(strstr(cli_usage_convert(), "See blkstack-convert(8)."));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("trace");

	tcase_add_test(tc, trace_defaults);
	tcase_add_test(tc, trace_short_long_equals);
	tcase_add_loop_test(tc, trace_errors_exit_usage, 0,
			    sizeof(trace_errors) / sizeof(trace_errors[0]));
	tcase_add_test(tc, trace_plugs_needs_device);
	tcase_add_test(tc, trace_help);
	tcase_add_test(tc, trace_too_many_devices);
	suite_add_tcase(s, tc);
	tc = tcase_create("parse");
	tcase_add_test(tc, parse_options);
	tcase_add_test(tc, parse_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_add_test(tc, report_options);
	tcase_add_test(tc, report_errors);
	tcase_add_test(tc, report_time_options);
	tcase_add_test(tc, diff_options);
	tcase_add_test(tc, topology_options);
	tcase_add_test(tc, record_options);
	suite_add_tcase(s, tc);
	tc = tcase_create("top");
	tcase_add_test(tc, top_options);
	tcase_add_loop_test(tc, top_errors_exit_usage, 0,
			    sizeof(top_errors) / sizeof(top_errors[0]));
	tcase_add_test(tc, top_help);
	suite_add_tcase(s, tc);
	tc = tcase_create("convert");
	tcase_add_test(tc, convert_options);
	tcase_add_loop_test(tc, convert_errors_exit_usage, 0,
			    sizeof(convert_errors) / sizeof(convert_errors[0]));
	tcase_add_test(tc, convert_help);
	suite_add_tcase(s, tc);
	return check_run(s);
}
