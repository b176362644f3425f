// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_tracefile.c - the trace.dat reader on damaged and foreign files,
 * written with datwrite from pages captured on this project's kernel
 * (tests/fixtures/ring):
 *  - an event format that crashes libtraceevent's parser (a '[' in a
 *    field's type): tracefile_open() says the file is corrupt, -EBADMSG,
 *    and the program lives on;
 *  - a recording of a machine whose long is 4 bytes (header_page's commit,
 *    every page header): the same events as the 8-byte original.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_dat.h"
#include "check_files.h"
#include "check_run.h"
#include "format/datwrite.h"
#include "format/tracefile.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif



struct tally {
	uint64_t n, sum;
};

static int count_event(const struct blk_event *ev, void *ctx)
{
	struct tally *t = ctx;

	t->n++;
	t->sum = t->sum * 31 + ev->ts + ev->sector * 7 + ev->nr_sector + ev->kind + ev->cpu;
	return 0;
}

static struct tally read_all(const char *path, uint64_t *malformed)
{
	struct tally t = { 0 };
	const struct source_stats *st;
	struct tracefile *f;
	int err;

	f = tracefile_open(path, &err);
	ck_assert_msg(f != NULL, "%s: %d", path, err);
	ck_assert_int_eq(tracefile_read(f, count_event, &t), 0);
	st = tracefile_stats(f);
	*malformed = 0;
	for (int c = 0; c < st->ncpu; c++)
		*malformed += st->cpu[c].malformed;
	tracefile_close(f);
	return t;
}

START_TEST(test_bad_format_refused)
{
	char path[] = "/tmp/check_tracefile.XXXXXX";
	struct tracefile *f;
	int fd, err = 0;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	check_write_dat(path, true, false);
	f = tracefile_open(path, &err);
	ck_assert_ptr_null(f);
	ck_assert_int_eq(err, -EBADMSG);
	unlink(path);
}
END_TEST

START_TEST(test_long4_read_as_such)
{
	char p8[] = "/tmp/check_tracefile.XXXXXX", p4[] = "/tmp/check_tracefile.XXXXXX";
	uint64_t malformed8, malformed4;
	struct tally t8, t4;
	int fd;

	fd = mkstemp(p8);
	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = mkstemp(p4);
	ck_assert_int_ge(fd, 0);
	close(fd);
	check_write_dat(p8, false, false);
	check_write_dat(p4, false, true);
	t8 = read_all(p8, &malformed8);
	t4 = read_all(p4, &malformed4);
	ck_assert_uint_gt(t8.n, 0);
	ck_assert_uint_eq(malformed8, 0);
	ck_assert_uint_eq(malformed4, 0);
	ck_assert_uint_eq(t4.n, t8.n);
	ck_assert_uint_eq(t4.sum, t8.sum);
	unlink(p8);
	unlink(p4);
}
END_TEST

static Suite *tracefile_suite(void)
{
	Suite *s = suite_create("tracefile");
	TCase *tc = tcase_create("damaged");

	tcase_add_test(tc, test_bad_format_refused);
	tcase_add_test(tc, test_long4_read_as_such);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(tracefile_suite());
}
