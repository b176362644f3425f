// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_record_names.c - the "blkstack-file:" markers a recording made
 * with --page-cache carries: written and read back, paths with spaces,
 * deleted files, kernel device numbers, and texts that are not such
 * markers (another tool's, damaged ones).
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "base/event.h"
#include "check_run.h"
#include "format/name-marker.h"

/* @text as written, back through the parser; its path into @path */
static int round_trip(const char *text, uint32_t *sdev, uint64_t *ino, bool *deleted,
		      char *path, size_t len)
{
	const char *p;
	size_t n;
	int ret;

	ck_assert(!strncmp(text, NAME_MARKER_PREFIX, strlen(NAME_MARKER_PREFIX)));
	text += strlen(NAME_MARKER_PREFIX);
	ret = name_marker_parse(text, strlen(text), sdev, ino, deleted, &p, &n);
	if (!ret) {
		ck_assert_uint_lt(n, len);
		memcpy(path, p, n);
		path[n] = '\0';
	}
	return ret;
}

START_TEST(written_and_read_back)
{
	char buf[256], path[256];
	uint32_t sdev;
	uint64_t ino;
	bool deleted;

	/* a kernel dev_t: 20 bits of minor (259:1048575 is not makedev's) */
	ck_assert_int_gt(name_marker_format(buf, sizeof(buf), KDEV_MKDEV(259, 1048575),
					     18446744073709551615ULL, false, "/mnt/a b/c"), 0);
	ck_assert_str_eq(buf, "blkstack-file: 259:1048575 18446744073709551615 live /mnt/a b/c");
	ck_assert_int_eq(round_trip(buf, &sdev, &ino, &deleted, path, sizeof(path)), 0);
	ck_assert_uint_eq(sdev, KDEV_MKDEV(259, 1048575));
	ck_assert_uint_eq(ino, 18446744073709551615ULL);
	ck_assert(!deleted);
	ck_assert_str_eq(path, "/mnt/a b/c");

	/* btrfs: an anonymous device; a deleted file */
	ck_assert_int_gt(name_marker_format(buf, sizeof(buf), KDEV_MKDEV(0, 45), 257, true,
					     "/srv/x"), 0);
	ck_assert_int_eq(round_trip(buf, &sdev, &ino, &deleted, path, sizeof(path)), 0);
	ck_assert_uint_eq(sdev, KDEV_MKDEV(0, 45));
	ck_assert_uint_eq(ino, 257);
	ck_assert(deleted);
	ck_assert_str_eq(path, "/srv/x");
}
END_TEST

/* trace_marker adds a newline, ring padding a NUL: neither is the path's */
START_TEST(trailing_newline_and_nul)
{
	static const char text[] = "7:1 12 live /m/f\n\0";
	const char *p;
	uint32_t sdev;
	uint64_t ino;
	bool deleted;
	size_t n;

	ck_assert_int_eq(name_marker_parse(text, sizeof(text) - 1, &sdev, &ino, &deleted, &p, &n),
			 0);
	ck_assert_uint_eq(n, 4);
	ck_assert(!memcmp(p, "/m/f", 4));
}
END_TEST

START_TEST(not_a_name)
{
	static const char *const bad[] = {
		"",
		"7:1",
		"7:1 12",
		"7:1 12 live",
		"7:1 12 live ",		/* no path */
		"7:1 12 gone /m/f",	/* neither live nor deleted */
		"7 12 live /m/f",	/* no minor */
		"x:1 12 live /m/f",
		"7:1 -12 live /m/f",
		"4096:1 12 live /m/f",	/* major beyond 12 bits */
		"7:1048576 12 live /m/f", /* minor beyond 20 bits */
		"7:1 18446744073709551616 live /m/f", /* ino beyond 64 bits */
	};
	const char *p;
	uint32_t sdev;
	uint64_t ino;
	bool deleted;
	size_t n;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(name_marker_parse(bad[i], strlen(bad[i]), &sdev, &ino, &deleted, &p,
						 &n) == -EINVAL, "'%s' taken as a name", bad[i]);
}
END_TEST

START_TEST(too_long)
{
	char buf[32];

	ck_assert_int_eq(name_marker_format(buf, sizeof(buf), KDEV_MKDEV(8, 1), 12, false,
					     "/a/path/longer/than/the/buffer"), -ENAMETOOLONG);
	ck_assert_int_gt(name_marker_format(buf, sizeof(buf), KDEV_MKDEV(8, 1), 12, false, "/a"),
			 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("record_names");
	TCase *tc = tcase_create("record_names");

	tcase_add_test(tc, written_and_read_back);
	tcase_add_test(tc, trailing_newline_and_nul);
	tcase_add_test(tc, not_a_name);
	tcase_add_test(tc, too_long);
	suite_add_tcase(s, tc);
	return check_run(s);
}
