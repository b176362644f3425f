// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_cgroup.c - pids to capped cgroup indexes, on a /proc tree made in
 * a temporary directory: the v2 line wins, a gone task is "unknown", past
 * the cap every new cgroup is "other", and a pid is read once until the
 * cache is told to forget.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"
#include "track/cgroup.h"

static char root[] = "/tmp/check_cgroup.XXXXXX";

static void write_cgroup(int pid, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/proc/%d", root, pid);
	mkdir(path, 0755);
	strcat(path, "/cgroup");
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
}

static void setup(void)
{
	char path[512];

	strcpy(root, "/tmp/check_cgroup.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	mkdir(path, 0755);
	write_cgroup(10, "0::/system.slice/db.service\n");
	/* hybrid: v1 lines first, the v2 line last */
	write_cgroup(11, "7:blkio:/batch\n4:memory:/x\n0::/user.slice/batch.scope\n");
	/* v1 only: the first line's path */
	write_cgroup(12, "7:blkio:/legacy\n4:memory:/y\n");
	write_cgroup(13, "0::/a\n");
	write_cgroup(14, "0::/b\n");
	write_cgroup(15, "0::/system.slice/db.service\n");
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(paths_read)
{
	struct cg_map *m = cg_map_alloc(root, 8);

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(cg_index(m, 10), 0);
	ck_assert_str_eq(cg_name(m, 0), "/system.slice/db.service");
	ck_assert_uint_eq(cg_index(m, 11), 1);
	ck_assert_str_eq(cg_name(m, 1), "/user.slice/batch.scope");
	ck_assert_uint_eq(cg_index(m, 12), 2);
	ck_assert_str_eq(cg_name(m, 2), "/legacy");
	/* another pid of the same cgroup shares its index */
	ck_assert_uint_eq(cg_index(m, 15), 0);
	/* a task that is gone */
	ck_assert_uint_eq(cg_index(m, 99), 3);
	ck_assert_str_eq(cg_name(m, 3), CG_UNKNOWN);
	ck_assert_uint_eq(cg_count(m), 4);
	cg_map_free(m);
}
END_TEST

START_TEST(capped_other)
{
	struct cg_map *m = cg_map_alloc(root, 2);

	ck_assert_uint_eq(cg_index(m, 13), 0);
	ck_assert_uint_eq(cg_index(m, 14), 1);
	ck_assert_uint_eq(cg_count(m), 2);
	/* a third cgroup: "other", at the index of the cap */
	ck_assert_uint_eq(cg_index(m, 10), 2);
	ck_assert_str_eq(cg_name(m, 2), CG_OTHER);
	ck_assert_ptr_null(cg_name(m, 3));
	ck_assert_uint_eq(cg_count(m), 3);
	/* the known ones keep their place */
	ck_assert_uint_eq(cg_index(m, 14), 1);
	cg_map_free(m);
	ck_assert_ptr_null(cg_map_alloc(root, 0));
}
END_TEST

START_TEST(cached_until_forgotten)
{
	struct cg_map *m = cg_map_alloc(root, 8);

	ck_assert_uint_eq(cg_index(m, 13), 0);
	/* pid 13 is reused by a task of /b: the cache still says /a ... */
	write_cgroup(13, "0::/b\n");
	ck_assert_uint_eq(cg_index(m, 13), 0);
	/* ... until the pids are forgotten */
	cg_forget_pids(m);
	ck_assert_uint_eq(cg_index(m, 13), 1);
	ck_assert_str_eq(cg_name(m, 1), "/b");
	/* many pids: the cache clears itself and answers the same */
	for (int pid = 1000; pid < 1000 + 3 * CG_PID_CACHE; pid++)
		ck_assert_uint_eq(cg_index(m, pid), 2);	/* all unknown */
	ck_assert_uint_eq(cg_index(m, 13), 1);
	cg_map_free(m);
}
END_TEST

static Suite *cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("map");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, paths_read);
	tcase_add_test(tc, capped_other);
	tcase_add_test(tc, cached_until_forgotten);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(cgroup_suite());
}
