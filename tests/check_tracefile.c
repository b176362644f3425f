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

#include "check_files.h"
#include "check_run.h"
#include "format/datwrite.h"
#include "format/tracefile.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif

#define RING	FIXTURES_DIR "/ring/6.18.44-fc-v657"
#define PAGE	4096


/* replace @old by @new (same length) in @s */
static void replace(char *s, const char *old, const char *new)
{
	char *p = strstr(s, old);

	ck_assert_msg(p, "'%s' not found", old);
	ck_assert_uint_eq(strlen(old), strlen(new));
	memcpy(p, new, strlen(new));
}

/* A page as a 4-byte-long machine writes it: the timestamp, a 4-byte commit, the data. */
static void page_to_long4(uint8_t *page)
{
	uint64_t commit;
	uint32_t commit4;

	memcpy(&commit, page + 8, 8);
	ck_assert_uint_eq(commit >> 32, 0);
	commit4 = commit;
	memcpy(page + 8, &commit4, 4);
	memmove(page + 12, page + 16, PAGE - 16);
	memset(page + PAGE - 4, 0, 4);
}

/*
 * Write a recording of the fixture's pages to @path; @bad_format: damage
 * block_rq_complete's format; @long4: as a 4-byte-long machine would.
 */
static void write_dat(const char *path, bool bad_format, bool long4)
{
	static const char *const events[] = { "block_bio_queue", "block_rq_complete" };
	struct dat_text formats[2], header_page, header_event;
	struct dat_system system = { "block", formats, 2 };
	uint64_t spill_bytes[2];
	FILE *spill[2], *out;
	char p[PATH_MAX];

	header_page.data = check_slurp(RING "/header_page", &header_page.len);
	header_event.data = check_slurp(RING "/header_event", &header_event.len);
	if (long4) {
		replace((char *)header_page.data, "commit;\toffset:8;\tsize:8;",
			"commit;\toffset:8;\tsize:4;");
		replace((char *)header_page.data, "data;\toffset:16;\tsize:4080;",
			"data;\toffset:12;\tsize:4084;");
	}
	for (int i = 0; i < 2; i++) {
		size_t len;
		char *pages;

		snprintf(p, sizeof(p), RING "/events/block/%s/format", events[i]);
		formats[i].data = check_slurp(p, &formats[i].len);
		snprintf(p, sizeof(p), RING "/cpu%d.raw", i);
		pages = check_slurp(p, &len);
		ck_assert_uint_eq(len % PAGE, 0);
		if (long4)
			for (size_t off = 0; off < len; off += PAGE)
				page_to_long4((uint8_t *)pages + off);
		spill[i] = tmpfile();
		ck_assert_ptr_nonnull(spill[i]);
		ck_assert_uint_eq(fwrite(pages, 1, len, spill[i]), len);
		spill_bytes[i] = len;
		free(pages);
	}
	if (bad_format)
		replace((char *)formats[1].data, "unsigned short ioprio;", "unsigned sh[rt ioprio;");

	struct dat_source src = {
		.page_size = PAGE, .header_page = header_page, .header_event = header_event,
		.systems = &system, .nsystems = 1, .cmdlines = { "42 dd\n", 6 },
		.clock = { "local global counter [mono]\n", 28 }, .ncpu = 2,
		.spill = spill, .spill_bytes = spill_bytes,
	};
	out = fopen(path, "w+");
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(datwrite_v6(out, &src), 0);
	if (long4) {
		/* the file header's long size: magic (10), "6\0", the endianness, then it */
		ck_assert_int_eq(fseek(out, 13, SEEK_SET), 0);
		ck_assert_int_eq(fputc(4, out), 4);
	}
	ck_assert_int_eq(fclose(out), 0);

	free((char *)header_page.data);
	free((char *)header_event.data);
	for (int i = 0; i < 2; i++) {
		free((char *)formats[i].data);
		fclose(spill[i]);
	}
}

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
	write_dat(path, true, false);
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
	write_dat(p8, false, false);
	write_dat(p4, false, true);
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
