// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_fsmap.c - the mounted filesystems and their devices: ext4 on a
 * partition (the committed loop fixture: its bdi is the disk's), and a
 * two-device btrfs with an anonymous superblock device mounted twice, a
 * tmpfs and a swap partition (a tree made in a temporary root).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/event.h"
#include "check_run.h"
#include "files/fsmap.h"

static char root[256];

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

/* A loop device as sysfs shows it: class/block/NAME/dev and dev/block/MAJ:MIN. */
static void loop_dev(int n)
{
	char rel[128], text[32], target[128];

	snprintf(rel, sizeof(rel), "sys/devices/virtual/block/loop%d/dev", n);
	snprintf(text, sizeof(text), "7:%d\n", n);
	put(rel, text);
	snprintf(rel, sizeof(rel), "sys/class/block/loop%d", n);
	snprintf(target, sizeof(target), "../../devices/virtual/block/loop%d", n);
	link_to(rel, target);
	snprintf(rel, sizeof(rel), "sys/dev/block/7:%d", n);
	link_to(rel, target);
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/check_fsmap.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	for (int i = 1; i <= 3; i++)
		loop_dev(i);
	put("proc/self/mountinfo",
	    "20 1 0:30 / / rw - tmpfs none rw\n"
	    "44 20 0:45 / /mnt/b rw - btrfs /dev/loop1 rw,subvolid=5,subvol=/\n"
	    "45 20 0:45 /sub /mnt/sub rw - btrfs /dev/loop1 rw,subvolid=256,subvol=/sub\n");
	link_to("sys/fs/btrfs/0f1e2d3c-aaaa-bbbb-cccc-123456789abc/devices/loop1",
		"../../../../devices/virtual/block/loop1");
	link_to("sys/fs/btrfs/0f1e2d3c-aaaa-bbbb-cccc-123456789abc/devices/loop2",
		"../../../../devices/virtual/block/loop2");
	link_to("sys/fs/btrfs/0f1e2d3c-aaaa-bbbb-cccc-123456789abc/bdi",
		"../../../devices/virtual/bdi/btrfs-7");
	put("sys/fs/btrfs/features/acl", "0\n");
	put("proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
			  "/dev/loop3                              partition\t1024\t\t0\t\t-2\n"
			  "/swapfile                               file\t\t1024\t\t0\t\t-3\n");
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(btrfs_two_devices_two_mounts)
{
	const struct fsmap_fs *fs;
	struct fsmap m;

	ck_assert_int_eq(fsmap_load(root, &m), 0);
	ck_assert_uint_eq(m.nfs, 2);
	fs = fsmap_by_sdev(&m, KDEV_MKDEV(0, 45));
	ck_assert_ptr_nonnull(fs);
	ck_assert_str_eq(fs->fstype, "btrfs");
	ck_assert_str_eq(fs->source, "/dev/loop1");
	ck_assert_uint_eq(fs->ndevs, 2);
	ck_assert_uint_eq(fs->devs[0], KDEV_MKDEV(7, 1));
	ck_assert_uint_eq(fs->devs[1], KDEV_MKDEV(7, 2));
	ck_assert_str_eq(fs->bdi, "btrfs-7");
	ck_assert_uint_eq(fs->nmounts, 2);
	ck_assert_str_eq(fs->mounts[0].target, "/mnt/b");
	ck_assert_str_eq(fs->mounts[0].root, "/");
	ck_assert_str_eq(fs->mounts[1].target, "/mnt/sub");
	ck_assert_str_eq(fs->mounts[1].root, "/sub");
	ck_assert_ptr_eq(fsmap_by_dev(&m, KDEV_MKDEV(7, 2)), fs);
	ck_assert_ptr_eq(fsmap_by_bdi(&m, "btrfs-7"), fs);
	ck_assert_ptr_null(fsmap_by_bdi(&m, "btrfs-8"));
	/* tmpfs: mounted, on no device */
	fs = fsmap_by_sdev(&m, KDEV_MKDEV(0, 30));
	ck_assert_ptr_nonnull(fs);
	ck_assert_uint_eq(fs->ndevs, 0);
	ck_assert_str_eq(fs->bdi, "");
	/* swap partitions, not swap files */
	ck_assert_uint_eq(m.nswaps, 1);
	ck_assert(fsmap_is_swap(&m, KDEV_MKDEV(7, 3)));
	ck_assert(!fsmap_is_swap(&m, KDEV_MKDEV(7, 1)));
	ck_assert_ptr_null(fsmap_by_dev(&m, KDEV_MKDEV(7, 3)));
	fsmap_free(&m);
	ck_assert_uint_eq(m.nfs, 0);
}
END_TEST

/* ext4 on loop0p1 (259:0) of the captured tree: its bdi is loop0's, 7:0. */
START_TEST(ext4_on_a_partition)
{
	const struct fsmap_fs *fs;
	struct fsmap m;

	ck_assert_int_eq(fsmap_load(FIXTURES_DIR "/sysfs/loop", &m), 0);
	fs = fsmap_by_sdev(&m, KDEV_MKDEV(259, 0));
	ck_assert_ptr_nonnull(fs);
	ck_assert_str_eq(fs->fstype, "ext4");
	ck_assert_uint_eq(fs->ndevs, 1);
	ck_assert_uint_eq(fs->devs[0], KDEV_MKDEV(259, 0));
	ck_assert_str_eq(fs->bdi, "7:0");
	ck_assert_str_eq(fs->mounts[0].target, "/mnt/blkstack-capture");
	ck_assert(fsmap_fs_has_dev(fs, KDEV_MKDEV(259, 0)));
	ck_assert(!fsmap_fs_has_dev(fs, KDEV_MKDEV(7, 0)));
	fsmap_free(&m);
}
END_TEST

START_TEST(no_mountinfo)
{
	struct fsmap m;

	ck_assert_int_eq(fsmap_load("/nonexistent-root", &m), -ENOENT);
	ck_assert_uint_eq(m.nfs, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fsmap");
	TCase *tc = tcase_create("fsmap");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, btrfs_two_devices_two_mounts);
	tcase_add_test(tc, ext4_on_a_partition);
	tcase_add_test(tc, no_mountinfo);
	suite_add_tcase(s, tc);
	return check_run(s);
}
