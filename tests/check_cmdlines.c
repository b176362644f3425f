// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_cmdlines.c - the saved_cmdlines reader (format/cmdlines.c) against
 * the way blkstack read them before, which it must give the same names as:
 * each line through sscanf("%d %31[^\n]") into libtraceevent's
 * tep_register_comm(), looked up with tep_is_pid_registered() and
 * tep_data_comm_from_pid(). Edge cases one by one (long names, long
 * lines, bad lines, pid 0 and below, a pid listed twice or more, a NUL in
 * a line, a pid beyond int), then texts made of random lines of those
 * kinds, compared whole with the oracle.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "check_run.h"
#include "format/cmdlines.h"

/* The reader blkstack had: its names, as libtraceevent keeps them. */
static struct tep_handle *oracle_parse(const char *text, size_t size)
{
	struct tep_handle *tep = tep_alloc();
	const char *end = text + size;

	ck_assert_ptr_nonnull(tep);
	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t n = (size_t)((nl ? nl : end) - text);
		char line[64], comm[32];
		int pid;

		if (n < sizeof(line)) {
			memcpy(line, text, n);
			line[n] = '\0';
			if (sscanf(line, "%d %31[^\n]", &pid, comm) == 2 && pid > 0)
				tep_register_comm(tep, comm, pid);
		}
		text += n + 1;
	}
	return tep;
}

static const char *oracle_find(struct tep_handle *tep, int pid)
{
	return pid > 0 && tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : NULL;
}

/* @text's name of every pid in [@lo, @hi] and of @extra: the same as the oracle's */
static void same_as_oracle(const char *text, size_t size, int lo, int hi, const int *extra,
			   size_t nextra)
{
	struct cmdlines *c = cmdlines_parse(text, size);
	struct tep_handle *tep = oracle_parse(text, size);

	ck_assert_ptr_nonnull(c);
	for (long pid = lo; pid <= hi + (long)nextra; pid++) {
		int p = pid <= hi ? (int)pid : extra[pid - hi - 1];
		const char *want = oracle_find(tep, p), *got = cmdlines_find(c, p);

		if (!want)
			ck_assert_msg(!got, "pid %d: '%s', none expected", p, got);
		else
			ck_assert_msg(got && !strcmp(got, want), "pid %d: '%s', '%s' expected", p,
				      got ? got : "(none)", want);
	}
	cmdlines_free(c);
	tep_free(tep);
}

static const char *find(const char *text, int pid)
{
	static char buf[64];
	struct cmdlines *c = cmdlines_parse(text, strlen(text));
	const char *got;

	ck_assert_ptr_nonnull(c);
	got = cmdlines_find(c, pid);
	if (got)
		snprintf(buf, sizeof(buf), "%s", got);
	cmdlines_free(c);
	return got ? buf : NULL;
}

START_TEST(test_plain)
{
	const char *text = "1 systemd\n42 dd\n7 kworker/0:1H\n";

	ck_assert_str_eq(find(text, 1), "systemd");
	ck_assert_str_eq(find(text, 42), "dd");
	ck_assert_str_eq(find(text, 7), "kworker/0:1H");
	ck_assert_ptr_null(find(text, 8));
	ck_assert_ptr_null(find("", 1));
	same_as_oracle(text, strlen(text), -2, 50, NULL, 0);
}
END_TEST

START_TEST(test_long_comm_cut_at_31)
{
	const char *text = "5 a-name-of-exactly-thirty-one-b\n"
			   "6 0123456789012345678901234567890123\n";

	ck_assert_str_eq(find(text, 5), "a-name-of-exactly-thirty-one-b");
	ck_assert_str_eq(find(text, 6), "0123456789012345678901234567890");
	same_as_oracle(text, strlen(text), 0, 10, NULL, 0);
}
END_TEST

START_TEST(test_long_line_skipped)
{
	/* 63 bytes are read, 64 are not */
	char text[256];

	snprintf(text, sizeof(text), "9 %-61s\n10 %-61s\n11 ok", "x", "y");
	ck_assert_ptr_nonnull(find(text, 9));
	ck_assert_ptr_null(find(text, 10));
	ck_assert_str_eq(find(text, 11), "ok");
	same_as_oracle(text, strlen(text), 0, 12, NULL, 0);
}
END_TEST

START_TEST(test_bad_lines)
{
	const char *text = "\n"
			   "abc def\n"		/* no pid */
			   "12\n"		/* no name */
			   "13 \t \n"		/* blanks only */
			   "-\n"
			   "+14 plus\n"		/* a sign is read */
			   "  15\tindented\n"
			   "16name\n"		/* the name may follow the digits */
			   "17 with spaces  \r\n"	/* kept as they are, \r too */
			   "0x18 hex\n"		/* 0, then "x18 hex": pid 0, skipped */
			   "19 last";		/* no final newline */

	ck_assert_ptr_null(find(text, 12));
	ck_assert_ptr_null(find(text, 13));
	ck_assert_str_eq(find(text, 14), "plus");
	ck_assert_str_eq(find(text, 15), "indented");
	ck_assert_str_eq(find(text, 16), "name");
	ck_assert_str_eq(find(text, 17), "with spaces  \r");
	ck_assert_ptr_null(find(text, 18));
	ck_assert_str_eq(find(text, 19), "last");
	same_as_oracle(text, strlen(text), -1, 25, NULL, 0);
}
END_TEST

START_TEST(test_pid_zero_and_below)
{
	const char *text = "0 swapper\n-3 minus\n1 init\n";
	struct cmdlines *c = cmdlines_parse(text, strlen(text));

	ck_assert_ptr_null(cmdlines_find(c, 0));
	ck_assert_ptr_null(cmdlines_find(c, -3));
	ck_assert_str_eq(cmdlines_find(c, 1), "init");
	cmdlines_free(c);
	same_as_oracle(text, strlen(text), -5, 5, NULL, 0);
}
END_TEST

START_TEST(test_pid_beyond_int)
{
	/* sscanf's %d: strtol's long (saturated), narrowed to int */
	const char *text = "4294967297 wraps-to-1\n"
			   "99999999999999999999999 saturates\n"	/* LONG_MAX: -1 */
			   "-4294967294 wraps-to-2\n"
			   "-99999999999999999999999 saturates\n"	/* LONG_MIN: 0 */
			   "2147483647 intmax\n"
			   "2147483648 wraps-negative\n";
	static const int extra[] = { 2147483647, -2147483647 - 1, -1 };

	ck_assert_str_eq(find(text, 1), "wraps-to-1");
	ck_assert_str_eq(find(text, 2), "wraps-to-2");
	ck_assert_str_eq(find(text, 2147483647), "intmax");
	same_as_oracle(text, strlen(text), -3, 3, extra, 3);
}
END_TEST

START_TEST(test_nul_ends_a_line)
{
	static const char text[] = "20 be\0fore\n21 \0after\n22 next\n";
	struct cmdlines *c = cmdlines_parse(text, sizeof(text) - 1);

	ck_assert_str_eq(cmdlines_find(c, 20), "be");
	ck_assert_ptr_null(cmdlines_find(c, 21));
	ck_assert_str_eq(cmdlines_find(c, 22), "next");
	cmdlines_free(c);
	same_as_oracle(text, sizeof(text) - 1, 19, 23, NULL, 0);
}
END_TEST

START_TEST(test_duplicates_as_libtraceevent)
{
	/* each pid listed 2 to 5 times, among others: the name its lookup finds */
	char text[8192];
	size_t len = 0;

	for (int round = 0; round < 5; round++)
		for (int pid = 1; pid <= 40; pid++)
			if (round < 2 + pid % 4)
				len += snprintf(text + len, sizeof(text) - len,
						"%d name-%d-%d\n", pid, pid, round);
	ck_assert_uint_lt(len, sizeof(text));
	same_as_oracle(text, len, 0, 41, NULL, 0);
}
END_TEST

/* a random line of the kinds above */
static size_t random_line(char *out, size_t cap, unsigned int *seed)
{
	static const char *const names[] = { "dd", "fio", "kworker/u8:2", "", " ", "\t",
		"a-very-long-task-name-of-more-than-31-bytes", "x y", "0", "-1", "\r" };
	static const char *const pids[] = { "", "-", "+", "0", "00", " 7", "\t8", "-9" };
	unsigned int r = (unsigned int)rand_r(seed);
	size_t n;

	switch (r % 8) {
	case 0:
		n = snprintf(out, cap, "%s%s", pids[r / 8 % 8], names[r / 64 % 11]);
		break;
	case 1:
		n = snprintf(out, cap, "%u%s", r / 8 % 100000000, names[r / 64 % 11]);
		break;
	case 2:	/* a long line */
		n = snprintf(out, cap, "%u %060u", r / 8 % 60, r);
		break;
	default:	/* the common case, a few pids often taken twice */
		n = snprintf(out, cap, "%u %s", r / 8 % 60, names[r / 512 % 11]);
		break;
	}
	return n < cap ? n : cap - 1;
}

START_TEST(test_random_texts_as_libtraceevent)
{
	unsigned int seed = 16;

	for (int t = 0; t < 200; t++) {
		char text[4096];
		size_t len = 0;
		int lines = rand_r(&seed) % 80;

		for (int i = 0; i < lines && len + 128 < sizeof(text); i++) {
			len += random_line(text + len, 100, &seed);
			text[len++] = '\n';
		}
		/* sometimes no final newline */
		if (len && rand_r(&seed) % 3 == 0)
			len--;
		same_as_oracle(text, len, -1, 61, NULL, 0);
	}
}
END_TEST

static Suite *cmdlines_suite(void)
{
	Suite *s = suite_create("cmdlines");
	TCase *tc = tcase_create("lines");
	TCase *tco = tcase_create("oracle");

	tcase_add_test(tc, test_plain);
	tcase_add_test(tc, test_long_comm_cut_at_31);
	tcase_add_test(tc, test_long_line_skipped);
	tcase_add_test(tc, test_bad_lines);
	tcase_add_test(tc, test_pid_zero_and_below);
	tcase_add_test(tc, test_pid_beyond_int);
	tcase_add_test(tc, test_nul_ends_a_line);
	suite_add_tcase(s, tc);
	tcase_add_test(tco, test_duplicates_as_libtraceevent);
	tcase_add_test(tco, test_random_texts_as_libtraceevent);
	suite_add_tcase(s, tco);
	return s;
}

int main(void)
{
	return check_run(cmdlines_suite());
}
