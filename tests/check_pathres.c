// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_pathres.c - inode numbers to paths on a fixture /proc tree made in
 * a temporary root: open files (fd links, fdinfo's mnt_id and ino, the
 * process's mountinfo), memory maps, deleted files, what is no file (pipes,
 * [stack]), every process, and the walk of a mounted directory.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/event.h"
#include "check_run.h"
#include "files/pathres.h"

static char root[256];
static struct pathres *pr;

static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
}

static void link_to(const char *rel, const char *target)
{
	char path[512];

	put(rel, "");
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	unlink(path);
	ck_assert_int_eq(symlink(target, path), 0);
}

static void rm_tree(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

/*
 * Process 123 sees ext4 (7:0) at /data and a btrfs subvolume (0:40) at
 * /home; process 456 has one file of /data open.
 */
static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/check_pathres.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	put("proc/123/mountinfo", "30 1 7:0 / /data rw,relatime - ext4 /dev/loop0 rw\n"
				  "31 1 0:40 /@home /home rw - btrfs /dev/loop2 rw,subvol=/@home\n"
				  "32 1 0:22 / /sys rw - sysfs sysfs rw\n");
	link_to("proc/123/fd/0", "pipe:[4242]");
	link_to("proc/123/fd/3", "/data/a/file1");
	put("proc/123/fdinfo/3", "pos:\t0\nflags:\t0100000\nmnt_id:\t30\nino:\t12\n");
	link_to("proc/123/fd/4", "/home/u/old.txt (deleted)");
	put("proc/123/fdinfo/4", "pos:\t10\nflags:\t0100002\nmnt_id:\t31\nino:\t257\n");
	/* an fd whose fdinfo lacks ino (kernels before 5.14): not under a fixture root */
	link_to("proc/123/fd/5", "/data/old-kernel");
	put("proc/123/fdinfo/5", "pos:\t0\nflags:\t0100000\nmnt_id:\t30\n");
	/* an fd on a mount the process's mountinfo does not list */
	link_to("proc/123/fd/6", "/elsewhere/x");
	put("proc/123/fdinfo/6", "pos:\t0\nflags:\t0100000\nmnt_id:\t99\nino:\t5\n");
	put("proc/123/maps",
	    "55a7c299f000-55a7c29a1000 r--p 00000000 07:00 13                         /data/bin/tool\n"
	    "55a7c29a1000-55a7c29a7000 r-xp 00002000 07:00 13                         /data/bin/tool\n"
	    "7f0000000000-7f0000001000 r--p 00000000 00:28 300                        /home/u/lib.so (deleted)\n"
	    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
	    "7ffd00100000-7ffd00101000 rw-s 00000000 00:01 77                         /SYSV00000000 (deleted)\n");
	put("proc/456/mountinfo", "30 1 7:0 / /data rw - ext4 /dev/loop0 rw\n");
	link_to("proc/456/fd/7", "/data/b with space");
	put("proc/456/fdinfo/7", "pos:\t0\nflags:\t0100000\nmnt_id:\t30\nino:\t20\n");
	put("proc/456/maps", "");
	/* not a process */
	put("proc/sys/kernel/x", "");
	pr = pathres_alloc(root);
	ck_assert_ptr_nonnull(pr);
}

static void teardown(void)
{
	pathres_free(pr);
	rm_tree(root);
}

START_TEST(open_files_and_maps)
{
	const uint32_t ext4 = KDEV_MKDEV(7, 0), btrfs = KDEV_MKDEV(0, 40);
	bool deleted = true;

	/* fd 3, fd 4, the tool (two mappings, one name), lib.so, the SysV segment */
	ck_assert_int_eq(pathres_scan_pid(pr, 123), 5);
	ck_assert_str_eq(pathres_lookup(pr, ext4, 12, &deleted), "/data/a/file1");
	ck_assert(!deleted);
	/* the superblock device is the mount's, not the subvolume's st_dev */
	ck_assert_str_eq(pathres_lookup(pr, btrfs, 257, &deleted), "/home/u/old.txt");
	ck_assert(deleted);
	ck_assert_str_eq(pathres_lookup(pr, ext4, 13, &deleted), "/data/bin/tool");
	ck_assert(!deleted);
	ck_assert_str_eq(pathres_lookup(pr, btrfs, 300, &deleted), "/home/u/lib.so");
	ck_assert(deleted);
	ck_assert_ptr_null(pathres_lookup(pr, ext4, 20, NULL));
	ck_assert_ptr_null(pathres_lookup(pr, KDEV_MKDEV(0, 0), 0, NULL));
	/* nothing new the second time */
	ck_assert_int_eq(pathres_scan_pid(pr, 123), 0);
	ck_assert_uint_eq(pathres_count(pr), 5);
	/* a process that is gone gives nothing */
	ck_assert_int_eq(pathres_scan_pid(pr, 999), 0);
}
END_TEST

START_TEST(every_process)
{
	ck_assert_int_eq(pathres_scan_all(pr), 6);
	ck_assert_str_eq(pathres_lookup(pr, KDEV_MKDEV(7, 0), 20, NULL), "/data/b with space");
}
END_TEST

/* The first name of a file is kept (hard links, renames after the fact). */
START_TEST(first_name_kept)
{
	ck_assert_int_eq(pathres_set(pr, 1, 2, "/x/first", false), 0);
	ck_assert_int_eq(pathres_set(pr, 1, 2, "/x/second", true), 0);
	ck_assert_str_eq(pathres_lookup(pr, 1, 2, NULL), "/x/first");
	for (uint64_t i = 0; i < 3000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "/n/%llu", (unsigned long long)i);
		ck_assert_int_eq(pathres_set(pr, 5, i, name, false), 0);
	}
	ck_assert_str_eq(pathres_lookup(pr, 5, 2999, NULL), "/n/2999");
	ck_assert_uint_eq(pathres_count(pr), 3001);
}
END_TEST

/*
 * fanotify's news of a last unlink: a named file becomes deleted, keeping
 * its name; an unnamed one stays unnamed (no name to mark).
 */
START_TEST(deleted_later)
{
	bool deleted = true;

	ck_assert_int_eq(pathres_set(pr, 1, 7, "/m/dir/gone.bin", false), 0);
	ck_assert_str_eq(pathres_lookup(pr, 1, 7, &deleted), "/m/dir/gone.bin");
	ck_assert(!deleted);
	pathres_set_deleted(pr, 1, 7);
	ck_assert_str_eq(pathres_lookup(pr, 1, 7, &deleted), "/m/dir/gone.bin");
	ck_assert(deleted);
	pathres_set_deleted(pr, 1, 8);
	ck_assert_ptr_null(pathres_lookup(pr, 1, 8, NULL));
	ck_assert_uint_eq(pathres_count(pr), 1);
}
END_TEST

static uint64_t ino_of(const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_ino;
}

/*
 * The walk: the filesystem (7:9) mounted at /mnt/x, a directory tree under
 * it in the fixture root; names are given as the system sees them.
 */
START_TEST(walk)
{
	struct fsmap_mount mnt = { .target = "/mnt/x", .root = "/" };
	struct fsmap_fs fs = { .sdev = KDEV_MKDEV(7, 9), .mounts = &mnt, .nmounts = 1 };
	struct fsmap map = { .fs = &fs, .nfs = 1 };
	struct pathres_key want[4];

	put("mnt/x/top", "1");
	put("mnt/x/d1/d2/deep", "2");
	put("mnt/x/d1/other", "3");
	want[0] = (struct pathres_key){ fs.sdev, ino_of("mnt/x/d1/d2/deep") };
	want[1] = (struct pathres_key){ fs.sdev, ino_of("mnt/x/top") };
	want[2] = (struct pathres_key){ fs.sdev, 987654321 };		/* not there */
	want[3] = (struct pathres_key){ KDEV_MKDEV(7, 8), ino_of("mnt/x/d1/other") };	/* other fs */
	ck_assert_int_eq(pathres_walk(pr, &map, want, 4), 2);
	ck_assert_str_eq(pathres_lookup(pr, fs.sdev, want[0].ino, NULL), "/mnt/x/d1/d2/deep");
	ck_assert_str_eq(pathres_lookup(pr, fs.sdev, want[1].ino, NULL), "/mnt/x/top");
	ck_assert_ptr_null(pathres_lookup(pr, fs.sdev, 987654321, NULL));
	ck_assert_ptr_null(pathres_lookup(pr, KDEV_MKDEV(7, 8), want[3].ino, NULL));
	/* named already: a second walk has nothing to do */
	ck_assert_int_eq(pathres_walk(pr, &map, want, 2), 0);
}
END_TEST

/* stops the walk once it has been asked *ctx times */
static bool stop_after(void *ctx)
{
	int *left = ctx;

	return (*left)-- <= 0;
}

/*
 * A walk stopped (Ctrl-C) keeps what it found and leaves the rest unknown,
 * not absent: a later walk still looks for them.
 */
START_TEST(walk_cancelled)
{
	struct fsmap_mount mnt = { .target = "/mnt/x", .root = "/" };
	struct fsmap_fs fs = { .sdev = KDEV_MKDEV(7, 9), .mounts = &mnt, .nmounts = 1 };
	struct fsmap map = { .fs = &fs, .nfs = 1 };
	struct pathres_key want[2];
	int left = 0;

	put("mnt/x/a/f1", "1");
	put("mnt/x/b/f2", "2");
	want[0] = (struct pathres_key){ fs.sdev, ino_of("mnt/x/a/f1") };
	want[1] = (struct pathres_key){ fs.sdev, ino_of("mnt/x/b/f2") };
	pathres_set_cancel(pr, stop_after, &left);
	ck_assert_int_eq(pathres_walk(pr, &map, want, 2), -ECANCELED);
	ck_assert_ptr_null(pathres_lookup(pr, fs.sdev, want[0].ino, NULL));
	ck_assert_ptr_null(pathres_lookup(pr, fs.sdev, want[1].ino, NULL));
	/* stopped after some entries: what it named stays named */
	left = 3;
	ck_assert_int_eq(pathres_walk(pr, &map, want, 2), -ECANCELED);
	ck_assert_int_lt(left, 0);
	pathres_set_cancel(pr, NULL, NULL);
	ck_assert_int_ge(pathres_walk(pr, &map, want, 2), 0);
	ck_assert_str_eq(pathres_lookup(pr, fs.sdev, want[0].ino, NULL), "/mnt/x/a/f1");
	ck_assert_str_eq(pathres_lookup(pr, fs.sdev, want[1].ino, NULL), "/mnt/x/b/f2");
	ck_assert_uint_eq(pathres_count(pr), 2);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pathres");
	TCase *tc = tcase_create("pathres");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, open_files_and_maps);
	tcase_add_test(tc, every_process);
	tcase_add_test(tc, first_name_kept);
	tcase_add_test(tc, deleted_later);
	tcase_add_test(tc, walk);
	tcase_add_test(tc, walk_cancelled);
	suite_add_tcase(s, tc);
	return check_run(s);
}
