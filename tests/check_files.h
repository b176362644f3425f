/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_files.h - reading a fixture whole, and what of a mapped file is
 * resident, for the unit tests.
 */
#ifndef BLKSTACK_CHECK_FILES_H
#define BLKSTACK_CHECK_FILES_H

#include <check.h>
#include <stdbool.h>
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

/*
 * check_mapping_rss_kb - the resident kilobytes of the mapping holding
 * @addr, from /proc/self/smaps
 */
static inline long check_mapping_rss_kb(const void *addr)
{
	unsigned long start, end, at = (unsigned long)addr;
	char line[256];
	FILE *f = fopen("/proc/self/smaps", "r");
	bool in = false;
	long kb = -1;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		/* a mapping's first line; its fields' names are not "hex-hex" */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = start <= at && at < end;
		else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

#endif /* BLKSTACK_CHECK_FILES_H */
