// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_datpages.c - the walk of an uncompressed stream of a mapped file
 * (format/datpages.c):
 *  - every page in order, then the end, from a stream that does not start
 *    on a system page, and from a page it was sought to;
 *  - a stream cut short by the file's end ends there, without a touch
 *    past the file (which would be SIGBUS);
 *  - the mapping is populated ahead of the walk: after the first page,
 *    the mapping's resident set covers the window, where faults alone
 *    would have mapped 64 KiB at most;
 *  - read with pread() (a file on tmpfs): the same pages in the same
 *    order, across windows, cut short, after a seek; a file that shrank
 *    since it was opened ends the walk as damaged; the mapping is never
 *    touched; datpages_read_pays() says yes on tmpfs (a memfd) and no
 *    elsewhere.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "check_files.h"
#include "check_run.h"
#include "format/datpages.h"

#define PAGE	4096U
#define PAGES	1024U		/* 4 MiB: two windows */
#define OFFSET	1000U		/* the stream's start in the file: not page aligned */

struct mapped {
	uint8_t *map;
	size_t len;
	int fd;			/* the file, open read-write */
	struct datfile_layout layout;
	struct datfile_stream ds;
};

/* A file of OFFSET bytes, then @written of PAGES pages, page n starting with n. */
static void file_make(struct mapped *m, uint32_t written)
{
	char path[] = "/tmp/check_datpages.XXXXXX";
	uint8_t pg[PAGE];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	memset(pg, 0xee, sizeof(pg));
	ck_assert_int_eq(write(fd, pg, OFFSET), OFFSET);
	for (uint32_t n = 0; n < written; n++) {
		memset(pg, (int)(n & 0xff), sizeof(pg));
		memcpy(pg, &n, sizeof(n));
		ck_assert_int_eq(write(fd, pg, PAGE), PAGE);
	}
	m->len = OFFSET + (size_t)written * PAGE;
	m->map = mmap(NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(m->map, MAP_FAILED);
	m->fd = fd;
	memset(&m->layout, 0, sizeof(m->layout));
	m->layout.page_size = PAGE;
	memset(&m->ds, 0, sizeof(m->ds));
	m->ds.offset = OFFSET;
	m->ds.size = (uint64_t)PAGES * PAGE;
	m->ds.avail = (uint64_t)written * PAGE;
}

static void file_drop(struct mapped *m)
{
	munmap(m->map, m->len);
	close(m->fd);
}

/* Walk from where @p is; the pages seen must be @first, @first + 1, ... @end - 1. */
static void walk_expect(struct datpages *p, uint32_t first, uint32_t end)
{
	const uint8_t *pg;
	uint32_t n = first, got;

	while ((pg = datpages_next(p))) {
		memcpy(&got, pg, sizeof(got));
		ck_assert_uint_eq(got, n);
		ck_assert_uint_eq(pg[PAGE - 1], n & 0xff);
		n++;
	}
	ck_assert_uint_eq(n, end);
	ck_assert(!p->corrupt);
}

START_TEST(test_walk_in_order)
{
	struct mapped m;
	struct datpages p;

	file_make(&m, PAGES);
	ck_assert_int_eq(datpages_init(&p, m.map, -1, &m.layout, &m.ds), 0);
	walk_expect(&p, 0, PAGES);
	ck_assert_ptr_null(datpages_next(&p));
	datpages_destroy(&p);
	file_drop(&m);
}
END_TEST

START_TEST(test_cut_short)
{
	struct mapped m;
	struct datpages p;

	/* the stream says PAGES, the file holds 700 and half of one more */
	file_make(&m, 700);
	m.ds.avail = 700 * PAGE + PAGE / 2;
	ck_assert_int_eq(datpages_init(&p, m.map, -1, &m.layout, &m.ds), 0);
	walk_expect(&p, 0, 700);
	datpages_destroy(&p);
	file_drop(&m);
}
END_TEST

START_TEST(test_seek)
{
	struct mapped m;
	struct datpages p;

	file_make(&m, PAGES);
	ck_assert_int_eq(datpages_init(&p, m.map, -1, &m.layout, &m.ds), 0);
	ck_assert_int_eq(datpages_seek(&p, 777), 0);
	walk_expect(&p, 777, PAGES);
	datpages_destroy(&p);
	file_drop(&m);
}
END_TEST

START_TEST(test_populated_ahead)
{
	struct mapped m;
	struct datpages p;
	long before, after;

	file_make(&m, PAGES);
	if (madvise(m.map, PAGE, MADV_POPULATE_READ) < 0 && errno == EINVAL) {
		/* a kernel before 5.14: the walk must still work, by faults */
		file_drop(&m);
		file_make(&m, PAGES);
		ck_assert_int_eq(datpages_init(&p, m.map, -1, &m.layout, &m.ds), 0);
		walk_expect(&p, 0, PAGES);
		ck_assert_uint_eq(p.populated, UINT64_MAX);
		datpages_destroy(&p);
		file_drop(&m);
		return;
	}
	file_drop(&m);
	file_make(&m, PAGES);
	before = check_mapping_rss_kb(m.map);
	ck_assert_int_ge(before, 0);
	ck_assert_int_eq(datpages_init(&p, m.map, -1, &m.layout, &m.ds), 0);
	ck_assert_ptr_nonnull(datpages_next(&p));
	after = check_mapping_rss_kb(m.map);
	/* 2 MiB ahead of the first page, where one fault maps 64 KiB at most */
	ck_assert_int_ge(after - before, 2048 - 4);
	ck_assert_int_le(after, (long)(m.len / 1024) + 4);
	datpages_destroy(&p);
	file_drop(&m);
}
END_TEST

START_TEST(test_read_in_order)
{
	struct mapped m;
	struct datpages p;

	file_make(&m, PAGES);
	ck_assert_int_eq(datpages_init(&p, m.map, m.fd, &m.layout, &m.ds), 0);
	/* 32 windows, each read at an offset that is not page aligned */
	walk_expect(&p, 0, PAGES);
	ck_assert_ptr_null(datpages_next(&p));
	datpages_release_walked(&p);
	/* nothing came through the mapping */
	ck_assert_int_le(check_mapping_rss_kb(m.map), 4);
	datpages_destroy(&p);
	file_drop(&m);
}
END_TEST

START_TEST(test_read_cut_short_and_seek)
{
	struct mapped m;
	struct datpages p;

	file_make(&m, 700);
	m.ds.avail = 700 * PAGE + PAGE / 2;
	ck_assert_int_eq(datpages_init(&p, m.map, m.fd, &m.layout, &m.ds), 0);
	walk_expect(&p, 0, 700);
	datpages_destroy(&p);
	ck_assert_int_eq(datpages_init(&p, m.map, m.fd, &m.layout, &m.ds), 0);
	ck_assert_int_eq(datpages_seek(&p, 650), 0);
	walk_expect(&p, 650, 700);
	datpages_destroy(&p);
	file_drop(&m);
}
END_TEST

START_TEST(test_read_file_shrank)
{
	struct mapped m;
	struct datpages p;
	const uint8_t *pg;
	uint32_t n = 0;

	file_make(&m, PAGES);
	ck_assert_int_eq(datpages_init(&p, m.map, m.fd, &m.layout, &m.ds), 0);
	/* cut to 300 pages and a half after the layout was read */
	ck_assert_int_eq(ftruncate(m.fd, OFFSET + 300 * PAGE + PAGE / 2), 0);
	while ((pg = datpages_next(&p)))
		n++;
	/* the whole pages up to the cut, then the end, as damage */
	ck_assert_uint_eq(n, 300);
	ck_assert(p.corrupt);
	ck_assert_ptr_null(datpages_next(&p));
	datpages_destroy(&p);
	file_drop(&m);
}
END_TEST

START_TEST(test_read_pays)
{
	int mfd = memfd_create("check_datpages", MFD_CLOEXEC);
	struct statfs sf;
	int fd;

	ck_assert_int_ge(mfd, 0);
	ck_assert(datpages_read_pays(mfd));
	close(mfd);
	/* the build directory: on the disk's filesystem, unless it is on tmpfs */
	fd = open(".", O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstatfs(fd, &sf), 0);
	if (sf.f_type != TMPFS_MAGIC && sf.f_type != RAMFS_MAGIC)
		ck_assert(!datpages_read_pays(fd));
	close(fd);
}
END_TEST

static Suite *datpages_suite(void)
{
	Suite *s = suite_create("datpages");
	TCase *tc = tcase_create("uncompressed");

	tcase_add_test(tc, test_walk_in_order);
	tcase_add_test(tc, test_cut_short);
	tcase_add_test(tc, test_seek);
	tcase_add_test(tc, test_populated_ahead);
	tcase_add_test(tc, test_read_in_order);
	tcase_add_test(tc, test_read_cut_short_and_seek);
	tcase_add_test(tc, test_read_file_shrank);
	tcase_add_test(tc, test_read_pays);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(datpages_suite());
}
