/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_files.h - reading a fixture whole, for the unit tests.
 */
#ifndef BLKSTACK_CHECK_FILES_H
#define BLKSTACK_CHECK_FILES_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * check_slurp - the whole of @path, NUL-terminated (the test fails when it
 * cannot be read); its length in *@len when @len is not NULL
 */
static inline char *check_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "cannot open '%s'", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc(n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

#endif /* BLKSTACK_CHECK_FILES_H */
