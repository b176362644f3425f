// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_topo.c - unit tests of topo.c on the fixture trees of
 * tests/fixtures/sysfs (see capture.sh there):
 *
 *   loop/  captured: loop0 (7:0) with partition loop0p1 (259:0), ext4 on
 *          /mnt/blkstack-capture; loop1..7 unattached, vda (254:0) on /,
 *          zram0 (253:0), tmpfs on /dev/shm
 *   dm/    hand-made: crypt dm-2 -> thin dm-1 -> pool dm-0 -> (stripe dm-3
 *          -> sda1 + sdb1, metadata sdc); dm-4 on sdb2; sda2 btrfs on /data;
 *          sdd on /; tmpfs on /run and /dev/shm
 *
 * and on temporary trees made per test: one with cycles, one with a device
 * of every kind and the dm uuids the target-type guesses know.
 *
 * No device-mapper target type is read from this machine: a fake lookup
 * (topo_dm_ops_set()) gives the dm fixture its types, as libdevmapper
 * would give them on the machine the tree describes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <check.h>

#include "base/event.h"
#include "track/topo.h"

#define LOOP_ROOT	FIXTURES_DIR "/sysfs/loop"
#define DM_ROOT		FIXTURES_DIR "/sysfs/dm"

/* the devices of the fixture trees */
#define LOOP0		KDEV_MKDEV(7, 0)
#define LOOP1		KDEV_MKDEV(7, 1)
#define LOOP0P1		KDEV_MKDEV(259, 0)
#define VDA		KDEV_MKDEV(254, 0)
#define ZRAM0		KDEV_MKDEV(253, 0)
#define DM0		KDEV_MKDEV(253, 0)
#define DM1		KDEV_MKDEV(253, 1)
#define DM2		KDEV_MKDEV(253, 2)
#define DM3		KDEV_MKDEV(253, 3)
#define DM4		KDEV_MKDEV(253, 4)
#define SDA		KDEV_MKDEV(8, 0)
#define SDA1		KDEV_MKDEV(8, 1)
#define SDA2		KDEV_MKDEV(8, 2)
#define SDB		KDEV_MKDEV(8, 16)
#define SDB1		KDEV_MKDEV(8, 17)
#define SDB2		KDEV_MKDEV(8, 18)
#define SDC		KDEV_MKDEV(8, 32)
#define SDD		KDEV_MKDEV(8, 48)

/* ---- resolve ---- */

struct resolve_case {
	const char *root;
	const char *arg;
	int ret;
	uint32_t dev;
};

static const struct resolve_case resolve_cases[] = {
	/* kernel names */
	{ LOOP_ROOT, "loop0p1", 0, LOOP0P1 },
	{ LOOP_ROOT, "loop0", 0, LOOP0 },
	{ LOOP_ROOT, "vda", 0, VDA },
	{ DM_ROOT, "dm-2", 0, DM2 },
	{ DM_ROOT, "sdb1", 0, SDB1 },
	/* a device-mapper name, as /dev/mapper shows it */
	{ DM_ROOT, "crypt", 0, DM2 },
	{ DM_ROOT, "stripe", 0, DM3 },
	/* MAJ:MIN */
	{ LOOP_ROOT, "259:0", 0, LOOP0P1 },
	{ LOOP_ROOT, "7:0", 0, LOOP0 },
	{ DM_ROOT, "253:1", 0, DM1 },
	{ DM_ROOT, "008:017", 0, SDB1 },
	/* device nodes: none exist in a fixture, the name is used */
	{ LOOP_ROOT, "/dev/loop0p1", 0, LOOP0P1 },
	{ DM_ROOT, "/dev/dm-0", 0, DM0 },
	{ DM_ROOT, "/dev/mapper/crypt", 0, DM2 },
	/* mounted directories, from the fixture's mountinfo */
	{ LOOP_ROOT, "/mnt/blkstack-capture", 0, LOOP0P1 },
	{ LOOP_ROOT, "/mnt/blkstack-capture/", 0, LOOP0P1 },
	{ LOOP_ROOT, "/", 0, VDA },
	{ DM_ROOT, "/test", 0, DM2 },
	{ DM_ROOT, "/", 0, SDD },
	/* btrfs: an anonymous 0:45, its source is the device */
	{ DM_ROOT, "/data", 0, SDA2 },
	/* no mount there: the mount containing it, / */
	{ LOOP_ROOT, "/mnt", 0, VDA },
	{ DM_ROOT, "/test/../dev/..", 0, SDD },
};

static const struct resolve_case resolve_fail_cases[] = {
	{ LOOP_ROOT, "nosuch", -ENOENT, 0 },
	{ DM_ROOT, "sde", -ENOENT, 0 },
	{ LOOP_ROOT, "..", -ENOENT, 0 },
	{ LOOP_ROOT, ".", -ENOENT, 0 },
	{ LOOP_ROOT, "7:99", -ENOENT, 0 },
	{ LOOP_ROOT, "4096:0", -ENOENT, 0 },
	{ DM_ROOT, "8:1048576", -ENOENT, 0 },
	{ LOOP_ROOT, "/dev/nosuch", -ENOENT, 0 },
	{ DM_ROOT, "/dev/mapper/nosuch", -ENOENT, 0 },
	{ DM_ROOT, "/nosuch/dir", -ENOENT, 0 },
	/* filesystems on no block device */
	{ LOOP_ROOT, "/dev/shm", -ENOTBLK, 0 },
	{ DM_ROOT, "/dev/shm", -ENOTBLK, 0 },
	{ DM_ROOT, "/run", -ENOTBLK, 0 },
	{ LOOP_ROOT, "/proc/self", -ENOTBLK, 0 },
	/* a regular file is not a device */
	{ LOOP_ROOT, "/proc/self/mountinfo", -ENOTBLK, 0 },
	{ LOOP_ROOT, "", -EINVAL, 0 },
};

START_TEST(test_resolve_ok)
{
	const struct resolve_case *c = &resolve_cases[_i];
	uint32_t dev = 0xdeadbeef;
	int ret;

	ret = topo_resolve(c->root, c->arg, &dev);
	ck_assert_msg(ret == 0, "'%s': got %d", c->arg, ret);
	ck_assert_msg(dev == c->dev, "'%s': got %u:%u, want %u:%u", c->arg,
		      KDEV_MAJOR(dev), KDEV_MINOR(dev), KDEV_MAJOR(c->dev), KDEV_MINOR(c->dev));
}
END_TEST

START_TEST(test_resolve_fail)
{
	const struct resolve_case *c = &resolve_fail_cases[_i];
	uint32_t dev = 0xdeadbeef;
	int ret;

	ret = topo_resolve(c->root, c->arg, &dev);
	ck_assert_msg(ret == c->ret, "'%s': got %d, want %d", c->arg, ret, c->ret);
	/* a failed lookup leaves the result alone */
	ck_assert_uint_eq(dev, 0xdeadbeef);
}
END_TEST

START_TEST(test_resolve_null)
{
	uint32_t dev;

	ck_assert_int_eq(topo_resolve(LOOP_ROOT, NULL, &dev), -EINVAL);
	ck_assert_int_eq(topo_resolve(LOOP_ROOT, "loop0", NULL), -EINVAL);
}
END_TEST

/* On this machine: a character device is no block device. */
START_TEST(test_resolve_live_chardev)
{
	uint32_t dev;

	if (access("/dev/null", F_OK))
		return;
	ck_assert_int_eq(topo_resolve("", "/dev/null", &dev), -ENOTBLK);
}
END_TEST

/*
 * On this machine, if it has a block device with a node: its name, its
 * MAJ:MIN and its real node all give the same device (the S_ISBLK path).
 */
START_TEST(test_resolve_live_node)
{
	char path[PATH_MAX], name[NAME_MAX + 1], got[NAME_MAX + 1];
	uint32_t by_name, by_node, by_num;
	struct stat st;
	DIR *dir;
	struct dirent *de;
	int found = 0;

	dir = opendir("/sys/class/block");
	if (!dir)
		return;
	while (!found && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		if (stat(path, &st) || !S_ISBLK(st.st_mode))
			continue;
		snprintf(name, sizeof(name), "%s", de->d_name);
		found = 1;
	}
	closedir(dir);
	if (!found)
		return;
	ck_assert_int_eq(topo_resolve("", name, &by_name), 0);
	ck_assert_int_eq(topo_resolve("/", path, &by_node), 0);
	ck_assert_uint_eq(by_name, by_node);
	ck_assert_uint_eq(by_node, KDEV_MKDEV(major(st.st_rdev), minor(st.st_rdev)));
	snprintf(path, sizeof(path), "%u:%u", KDEV_MAJOR(by_name), KDEV_MINOR(by_name));
	ck_assert_int_eq(topo_resolve(NULL, path, &by_num), 0);
	ck_assert_uint_eq(by_num, by_name);
	ck_assert_int_eq(topo_dev_name("", by_name, got, sizeof(got)), 0);
	ck_assert_str_eq(got, name);
}
END_TEST

/* ---- names ---- */

START_TEST(test_dev_name)
{
	char buf[32];

	ck_assert_int_eq(topo_dev_name(LOOP_ROOT, LOOP0P1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "loop0p1");
	ck_assert_int_eq(topo_dev_name(LOOP_ROOT, VDA, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "vda");
	ck_assert_int_eq(topo_dev_name(DM_ROOT, DM2, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "dm-2");
	ck_assert_int_eq(topo_dev_name(DM_ROOT, SDB1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "sdb1");
	/* the same number is another device in another tree */
	ck_assert_int_eq(topo_dev_name(LOOP_ROOT, ZRAM0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "zram0");
}
END_TEST

START_TEST(test_dev_name_fail)
{
	char buf[32];

	ck_assert_int_eq(topo_dev_name(LOOP_ROOT, KDEV_MKDEV(7, 99), buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(topo_dev_name(DM_ROOT, LOOP0, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(topo_dev_name(LOOP_ROOT, LOOP0P1, buf, 7), -ERANGE);
	ck_assert_int_eq(topo_dev_name(LOOP_ROOT, LOOP0P1, buf, 8), 0);
	ck_assert_str_eq(buf, "loop0p1");
}
END_TEST

/* ---- stack expansion ---- */

/* expect_set - @s is exactly @want (any order), and sorted without duplicates */
static void expect_set(const char *root, const struct topo_selection *s,
		       const uint32_t *want, size_t n)
{
	char name[32];
	size_t i;

	for (i = 1; i < s->n; i++)
		ck_assert_msg(s->devs[i - 1] < s->devs[i], "not sorted at %zu", i);
	for (i = 0; i < n; i++) {
		if (topo_dev_name(root, want[i], name, sizeof(name)))
			strcpy(name, "?");
		ck_assert_msg(topo_selection_has(s, want[i]), "%s (%u:%u) missing", name,
			      KDEV_MAJOR(want[i]), KDEV_MINOR(want[i]));
	}
	ck_assert_uint_eq(s->n, n);
}

static void expand_one(const char *root, uint32_t dev, struct topo_selection *s)
{
	ck_assert_int_eq(topo_stack_expand(root, &dev, 1, s), 0);
}

START_TEST(test_expand_partition)
{
	static const uint32_t want[] = { LOOP0P1, LOOP0 };
	struct topo_selection s;

	expand_one(LOOP_ROOT, LOOP0P1, &s);
	expect_set(LOOP_ROOT, &s, want, 2);
	ck_assert(!topo_selection_has(&s, LOOP1));
	ck_assert(!topo_selection_has(&s, VDA));
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_expand_disk)
{
	static const uint32_t want[] = { LOOP0P1, LOOP0 };
	struct topo_selection s;

	/* a disk brings its partitions: I/O to them reaches it */
	expand_one(LOOP_ROOT, LOOP0, &s);
	expect_set(LOOP_ROOT, &s, want, 2);
	topo_selection_free(&s);

	expand_one(LOOP_ROOT, LOOP1, &s);
	expect_set(LOOP_ROOT, &s, (const uint32_t[]){ LOOP1 }, 1);
	topo_selection_free(&s);
}
END_TEST

/* the reference stack, from dm-2 at the top to the three disks */
static const uint32_t dm_stack[] = {
	DM2, DM1, DM0, DM3, SDC, SDA1, SDB1, SDA, SDB
};
#define DM_STACK_N	(sizeof(dm_stack) / sizeof(dm_stack[0]))

START_TEST(test_expand_dm_top)
{
	struct topo_selection s;

	expand_one(DM_ROOT, DM2, &s);
	expect_set(DM_ROOT, &s, dm_stack, DM_STACK_N);
	ck_assert(!topo_selection_has(&s, SDA2));
	ck_assert(!topo_selection_has(&s, SDB2));
	ck_assert(!topo_selection_has(&s, DM4));
	ck_assert(!topo_selection_has(&s, SDD));
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_expand_dm_middle)
{
	struct topo_selection s;

	/* thin: the crypt device above, the pool and all below it */
	expand_one(DM_ROOT, DM1, &s);
	expect_set(DM_ROOT, &s, dm_stack, DM_STACK_N);
	/* sdb is in, but not its other partition nor what sits on it */
	ck_assert(!topo_selection_has(&s, SDB2));
	ck_assert(!topo_selection_has(&s, DM4));
	topo_selection_free(&s);

	/* stripe: the metadata disk comes through the pool above it */
	expand_one(DM_ROOT, DM3, &s);
	expect_set(DM_ROOT, &s, dm_stack, DM_STACK_N);
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_expand_dm_leaves)
{
	static const uint32_t sdb2[] = { SDB2, DM4, SDB };
	static const uint32_t sdb[] = {
		SDB, SDB1, SDB2, DM4, DM3, DM0, DM1, DM2, SDA1, SDA, SDC
	};
	static const uint32_t sdd[] = { SDD };
	struct topo_selection s;

	/* a partition: what is on it, and its disk, not its sibling's stack */
	expand_one(DM_ROOT, SDB2, &s);
	expect_set(DM_ROOT, &s, sdb2, 3);
	topo_selection_free(&s);

	/* a disk: everything on any of its partitions, and all that reaches */
	expand_one(DM_ROOT, SDB, &s);
	expect_set(DM_ROOT, &s, sdb, sizeof(sdb) / sizeof(sdb[0]));
	ck_assert(!topo_selection_has(&s, SDA2));
	topo_selection_free(&s);

	expand_one(DM_ROOT, SDD, &s);
	expect_set(DM_ROOT, &s, sdd, 1);
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_expand_many)
{
	static const uint32_t in[] = { SDB2, SDD, SDB2 };
	static const uint32_t want[] = { SDB2, DM4, SDB, SDD };
	struct topo_selection s;

	ck_assert_int_eq(topo_stack_expand(DM_ROOT, in, 3, &s), 0);
	expect_set(DM_ROOT, &s, want, 4);
	topo_selection_free(&s);

	ck_assert_int_eq(topo_stack_expand(DM_ROOT, NULL, 0, &s), 0);
	ck_assert_uint_eq(s.n, 0);
	ck_assert(!topo_selection_has(&s, SDD));
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_expand_unknown)
{
	static const uint32_t in[] = { DM2, KDEV_MKDEV(8, 64) };
	struct topo_selection s = { (uint32_t *)1, 5 };

	ck_assert_int_eq(topo_stack_expand(DM_ROOT, in, 2, &s), -ENOENT);
	ck_assert_ptr_null(s.devs);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_int_eq(topo_stack_expand(DM_ROOT, NULL, 1, &s), -EINVAL);
	ck_assert_int_eq(topo_stack_expand(DM_ROOT, in, 1, NULL), -EINVAL);
}
END_TEST

/* ---- cycles, on a tree that real sysfs never shows ---- */

static char cyc_root[] = "/tmp/check_topo.XXXXXX";

static void xmkdir(const char *path)
{
	char tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(tmp, 0755);
		*p = '/';
	}
	ck_assert_msg(!mkdir(tmp, 0755) || errno == EEXIST, "mkdir %s: %s", tmp, strerror(errno));
}

static void xwrite(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

/* cyc_dev - a device cN (7:N) under devices/virtual/block, or under @parent */
static void cyc_dev(const char *name, int minor, const char *parent)
{
	char dir[PATH_MAX + 64], path[PATH_MAX + 96], rel[PATH_MAX], num[16];

	if (parent)
		snprintf(rel, sizeof(rel), "../../devices/virtual/block/%s/%s", parent, name);
	else
		snprintf(rel, sizeof(rel), "../../devices/virtual/block/%s", name);
	snprintf(dir, sizeof(dir), "%s/sys/%s", cyc_root, rel + 6);
	xmkdir(dir);
	snprintf(path, sizeof(path), "%s/holders", dir);
	xmkdir(path);
	snprintf(path, sizeof(path), "%s/slaves", dir);
	xmkdir(path);
	snprintf(path, sizeof(path), "%s/dev", dir);
	snprintf(num, sizeof(num), "7:%d\n", minor);
	xwrite(path, num);
	if (parent) {
		snprintf(path, sizeof(path), "%s/partition", dir);
		xwrite(path, "1\n");
	}
	snprintf(path, sizeof(path), "%s/sys/class/block/%s", cyc_root, name);
	ck_assert_int_eq(symlink(rel, path), 0);
	snprintf(path, sizeof(path), "%s/sys/dev/block/7:%d", cyc_root, minor);
	ck_assert_int_eq(symlink(rel, path), 0);
}

/*
 * cyc_link - an entry of holders/ or slaves/, as a plain file: topo.c takes
 * only the names of the entries, so these work as the kernel's symlinks do
 */
static void cyc_link(const char *devpath, const char *sub, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/devices/virtual/block/%s/%s/%s", cyc_root,
		 devpath, sub, name);
	xwrite(path, "");
}

/*
 * c0 and c1 hold each other; c2 holds itself; c3's partition c3p1 holds c3
 * (up from c3 reaches c3 again, down from c3p1 reaches c3 again).
 */
static void cycles_setup(void)
{
	char path[PATH_MAX];

	ck_assert_ptr_nonnull(mkdtemp(cyc_root));
	snprintf(path, sizeof(path), "%s/sys/class/block", cyc_root);
	xmkdir(path);
	snprintf(path, sizeof(path), "%s/sys/dev/block", cyc_root);
	xmkdir(path);
	cyc_dev("c0", 0, NULL);
	cyc_dev("c1", 1, NULL);
	cyc_dev("c2", 2, NULL);
	cyc_dev("c3", 3, NULL);
	cyc_dev("c3p1", 4, "c3");
	cyc_dev("c5", 5, NULL);
	cyc_link("c0", "holders", "c1");
	cyc_link("c1", "slaves", "c0");
	cyc_link("c1", "holders", "c0");
	cyc_link("c0", "slaves", "c1");
	cyc_link("c2", "holders", "c2");
	cyc_link("c2", "slaves", "c2");
	cyc_link("c3/c3p1", "holders", "c3");
	cyc_link("c3", "slaves", "c3p1");
	/* a holder that has gone away since: skipped */
	cyc_link("c5", "holders", "gone");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void cycles_teardown(void)
{
	nftw(cyc_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	strcpy(cyc_root, "/tmp/check_topo.XXXXXX");
}

START_TEST(test_cycle_pair)
{
	static const uint32_t want[] = { KDEV_MKDEV(7, 0), KDEV_MKDEV(7, 1) };
	struct topo_selection s;

	expand_one(cyc_root, KDEV_MKDEV(7, 0), &s);
	expect_set(cyc_root, &s, want, 2);
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_cycle_self)
{
	static const uint32_t want[] = { KDEV_MKDEV(7, 2) };
	struct topo_selection s;

	expand_one(cyc_root, KDEV_MKDEV(7, 2), &s);
	expect_set(cyc_root, &s, want, 1);
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_cycle_partition)
{
	static const uint32_t want[] = { KDEV_MKDEV(7, 3), KDEV_MKDEV(7, 4) };
	struct topo_selection s;

	expand_one(cyc_root, KDEV_MKDEV(7, 3), &s);
	expect_set(cyc_root, &s, want, 2);
	topo_selection_free(&s);
	expand_one(cyc_root, KDEV_MKDEV(7, 4), &s);
	expect_set(cyc_root, &s, want, 2);
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_gone_holder)
{
	static const uint32_t want[] = { KDEV_MKDEV(7, 5) };
	struct topo_selection s;

	expand_one(cyc_root, KDEV_MKDEV(7, 5), &s);
	expect_set(cyc_root, &s, want, 1);
	topo_selection_free(&s);
}
END_TEST

/* ---- tops ---- */

/* every device of the dm fixture */
static const uint32_t dm_all[] = {
	SDA, SDA1, SDA2, SDB, SDB1, SDB2, SDC, SDD, DM0, DM1, DM2, DM3, DM4
};
#define DM_ALL_N	(sizeof(dm_all) / sizeof(dm_all[0]))

START_TEST(test_tops_dm)
{
	static const uint32_t all_tops[] = { SDA2, SDD, DM2, DM4 };
	struct topo_selection s;

	ck_assert_int_eq(topo_stack_tops(DM_ROOT, dm_stack, DM_STACK_N, &s), 0);
	expect_set(DM_ROOT, &s, (const uint32_t[]){ DM2 }, 1);
	topo_selection_free(&s);

	ck_assert_int_eq(topo_stack_tops(DM_ROOT, dm_all, DM_ALL_N, &s), 0);
	expect_set(DM_ROOT, &s, all_tops, 4);
	ck_assert_uint_eq(s.devs[0], SDA2);
	ck_assert_uint_eq(s.devs[3], DM4);
	topo_selection_free(&s);

	/* within the set only: the pool is a top once dm-1 is not in it */
	ck_assert_int_eq(topo_stack_tops(DM_ROOT, (const uint32_t[]){ DM0, DM3, SDC }, 3, &s), 0);
	expect_set(DM_ROOT, &s, (const uint32_t[]){ DM0 }, 1);
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_tops_partition)
{
	struct topo_selection s;

	/* a partition sits on its disk, though the disk has no holders/ entry */
	ck_assert_int_eq(topo_stack_tops(DM_ROOT, (const uint32_t[]){ SDA, SDA1, SDA }, 3, &s), 0);
	expect_set(DM_ROOT, &s, (const uint32_t[]){ SDA1 }, 1);
	topo_selection_free(&s);

	ck_assert_int_eq(topo_stack_tops(LOOP_ROOT, (const uint32_t[]){ LOOP0, LOOP0P1 }, 2, &s), 0);
	expect_set(LOOP_ROOT, &s, (const uint32_t[]){ LOOP0P1 }, 1);
	topo_selection_free(&s);

	ck_assert_int_eq(topo_stack_tops(DM_ROOT, (const uint32_t[]){ SDA }, 1, &s), 0);
	expect_set(DM_ROOT, &s, (const uint32_t[]){ SDA }, 1);
	topo_selection_free(&s);
}
END_TEST

START_TEST(test_tops_odd)
{
	static const uint32_t unknown[] = { DM1, KDEV_MKDEV(8, 64), DM0 };
	struct topo_selection s = { (uint32_t *)1, 3 };

	/* unknown to sysfs: nothing is known to sit on it, it is a top */
	ck_assert_int_eq(topo_stack_tops(DM_ROOT, unknown, 3, &s), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.devs[0], KDEV_MKDEV(8, 64));
	ck_assert_uint_eq(s.devs[1], DM1);
	topo_selection_free(&s);

	ck_assert_int_eq(topo_stack_tops(DM_ROOT, NULL, 0, &s), 0);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_ptr_null(s.devs);
	ck_assert_int_eq(topo_stack_tops(DM_ROOT, NULL, 2, &s), -EINVAL);
	ck_assert_int_eq(topo_stack_tops(DM_ROOT, unknown, 3, NULL), -EINVAL);
}
END_TEST

/* ---- device information ---- */

/* fake_target - what libdevmapper says of the dm fixture on its machine */
static int fake_target(uint32_t dev, char *buf, size_t len)
{
	const char *t;

	switch (dev) {
	case DM0:
		t = "thin-pool";
		break;
	case DM1:
		t = "thin";
		break;
	case DM2:
		t = "crypt";
		break;
	case DM3:
		t = "striped";
		break;
	case DM4:
		t = "linear";
		break;
	default:
		return -ENOENT;
	}
	snprintf(buf, len, "%s", t);
	return 0;
}

static int failing_target(uint32_t dev, char *buf, size_t len)
{
	(void)dev;
	snprintf(buf, len, "garbage");
	return -EIO;
}

static const struct topo_dm_ops fake_ops = { .target = fake_target };
static const struct topo_dm_ops failing_ops = { .target = failing_target };

static void fake_dm_setup(void)
{
	topo_dm_ops_set(&fake_ops);
}

static void fake_dm_teardown(void)
{
	topo_dm_ops_set(NULL);
}

/* expect_list - @got[0..n) is exactly @want, in that (ascending) order */
static void expect_list(const uint32_t *got, size_t n, const uint32_t *want, size_t nwant)
{
	size_t i;

	ck_assert_uint_eq(n, nwant);
	for (i = 0; i < n; i++)
		ck_assert_msg(got[i] == want[i], "entry %zu: got %u:%u, want %u:%u", i,
			      KDEV_MAJOR(got[i]), KDEV_MINOR(got[i]),
			      KDEV_MAJOR(want[i]), KDEV_MINOR(want[i]));
}

START_TEST(test_info_loop)
{
	struct topo_dev_info d;

	ck_assert_int_eq(topo_dev_info(LOOP_ROOT, LOOP0, &d), 0);
	ck_assert_uint_eq(d.dev, LOOP0);
	ck_assert_str_eq(d.name, "loop0");
	ck_assert_int_eq(d.kind, TOPO_LOOP);
	ck_assert_str_eq(d.backing, "/tmp/blkstack-capture.LLAtF4");
	ck_assert_uint_eq(d.size_sectors, 131072);
	ck_assert_str_eq(d.scheduler, "none");
	ck_assert(d.rotational);
	ck_assert_uint_eq(d.parent, 0);
	ck_assert_uint_eq(d.part_start, 0);
	/* its partition is no holder */
	ck_assert_uint_eq(d.nholders, 0);
	ck_assert_uint_eq(d.nslaves, 0);
	ck_assert_str_eq(d.dm_name, "");
	ck_assert_str_eq(d.target, "");
	topo_dev_info_free(&d);

	/* unattached: no loop/ directory, still a loop device */
	ck_assert_int_eq(topo_dev_info(LOOP_ROOT, LOOP1, &d), 0);
	ck_assert_int_eq(d.kind, TOPO_LOOP);
	ck_assert_str_eq(d.backing, "");
	ck_assert_uint_eq(d.size_sectors, 0);
	topo_dev_info_free(&d);
}
END_TEST

START_TEST(test_info_partition)
{
	struct topo_dev_info d;

	ck_assert_int_eq(topo_dev_info(LOOP_ROOT, LOOP0P1, &d), 0);
	ck_assert_str_eq(d.name, "loop0p1");
	ck_assert_int_eq(d.kind, TOPO_PARTITION);
	ck_assert_uint_eq(d.parent, LOOP0);
	ck_assert_uint_eq(d.part_start, 2048);
	ck_assert_uint_eq(d.size_sectors, 126976);
	/* the disk's queue */
	ck_assert_str_eq(d.scheduler, "none");
	ck_assert(d.rotational);
	ck_assert_str_eq(d.backing, "");
	topo_dev_info_free(&d);

	ck_assert_int_eq(topo_dev_info(DM_ROOT, SDB2, &d), 0);
	ck_assert_int_eq(d.kind, TOPO_PARTITION);
	ck_assert_uint_eq(d.parent, SDB);
	ck_assert_uint_eq(d.part_start, 10485760);
	ck_assert_str_eq(d.scheduler, "mq-deadline");
	ck_assert(d.rotational);
	expect_list(d.holders, d.nholders, (const uint32_t[]){ DM4 }, 1);
	ck_assert_uint_eq(d.nslaves, 0);
	topo_dev_info_free(&d);
}
END_TEST

START_TEST(test_info_disks)
{
	struct topo_dev_info d;

	ck_assert_int_eq(topo_dev_info(LOOP_ROOT, VDA, &d), 0);
	ck_assert_str_eq(d.name, "vda");
	ck_assert_int_eq(d.kind, TOPO_DISK);
	ck_assert_uint_eq(d.size_sectors, 536870912);
	ck_assert_str_eq(d.scheduler, "mq-deadline");
	ck_assert(d.rotational);
	topo_dev_info_free(&d);

	/* bio-based: no queue/scheduler at all on this kernel */
	ck_assert_int_eq(topo_dev_info(LOOP_ROOT, ZRAM0, &d), 0);
	ck_assert_str_eq(d.name, "zram0");
	ck_assert_int_eq(d.kind, TOPO_ZRAM);
	ck_assert_str_eq(d.scheduler, "");
	ck_assert(!d.rotational);
	topo_dev_info_free(&d);

	/* the thin-pool's metadata disk: held by the pool */
	ck_assert_int_eq(topo_dev_info(DM_ROOT, SDC, &d), 0);
	ck_assert_int_eq(d.kind, TOPO_DISK);
	expect_list(d.holders, d.nholders, (const uint32_t[]){ DM0 }, 1);
	topo_dev_info_free(&d);
}
END_TEST

struct dm_info_case {
	uint32_t dev;
	const char *name;
	const char *dm_name;
	const char *target;
	uint32_t slaves[2];
	size_t nslaves;
	uint32_t holders[2];
	size_t nholders;
};

static const struct dm_info_case dm_info_cases[] = {
	{ DM0, "dm-0", "pool", "thin-pool", { SDC, DM3 }, 2, { DM1 }, 1 },
	{ DM1, "dm-1", "thin", "thin", { DM0 }, 1, { DM2 }, 1 },
	{ DM2, "dm-2", "crypt", "crypt", { DM1 }, 1, { 0 }, 0 },
	{ DM3, "dm-3", "stripe", "striped", { SDA1, SDB1 }, 2, { DM0 }, 1 },
	{ DM4, "dm-4", "other", "linear", { SDB2 }, 1, { 0 }, 0 },
};

START_TEST(test_info_dm)
{
	const struct dm_info_case *c = &dm_info_cases[_i];
	struct topo_dev_info d;

	ck_assert_int_eq(topo_dev_info(DM_ROOT, c->dev, &d), 0);
	ck_assert_str_eq(d.name, c->name);
	ck_assert_int_eq(d.kind, TOPO_DM);
	ck_assert_str_eq(d.dm_name, c->dm_name);
	ck_assert_str_eq(d.target, c->target);
	ck_assert_uint_eq(d.size_sectors, 20971520);
	ck_assert_str_eq(d.scheduler, "none");
	ck_assert(!d.rotational);
	expect_list(d.slaves, d.nslaves, c->slaves, c->nslaves);
	expect_list(d.holders, d.nholders, c->holders, c->nholders);
	topo_dev_info_free(&d);
}
END_TEST

START_TEST(test_info_dm_uuid)
{
	struct topo_dev_info d;

	ck_assert_int_eq(topo_dev_info(DM_ROOT, DM2, &d), 0);
	ck_assert_str_eq(d.dm_uuid, "CRYPT-LUKS2-5d1f2a3b4c5d6e7f8091a2b3c4d5e6f7-crypt");
	topo_dev_info_free(&d);
}
END_TEST

/*
 * With no lookup (the default one is for this machine only, never for a
 * fixture) or a failing one, the uuid guesses: CRYPT- and LVM-...-tpool;
 * an LVM volume stays unknown, whatever its suffix.
 */
START_TEST(test_info_dm_guess)
{
	static const char *const want[] = { "thin-pool", "", "crypt", "", "" };
	const struct topo_dm_ops *ops[] = { NULL, &failing_ops };
	struct topo_dev_info d;
	size_t i, k;

	for (k = 0; k < 2; k++) {
		topo_dm_ops_set(ops[k]);
		for (i = 0; i < 5; i++) {
			ck_assert_int_eq(topo_dev_info(DM_ROOT, KDEV_MKDEV(253, i), &d), 0);
			ck_assert_msg(!strcmp(d.target, want[i]), "dm-%zu: got '%s', want '%s'",
				      i, d.target, want[i]);
			topo_dev_info_free(&d);
		}
	}
	topo_dm_ops_set(NULL);
}
END_TEST

START_TEST(test_info_fail)
{
	struct topo_dev_info d;

	memset(&d, 0x5a, sizeof(d));
	ck_assert_int_eq(topo_dev_info(DM_ROOT, KDEV_MKDEV(8, 64), &d), -ENOENT);
	ck_assert_ptr_null(d.slaves);
	ck_assert_ptr_null(d.holders);
	topo_dev_info_free(&d);
	ck_assert_int_eq(topo_dev_info(LOOP_ROOT, DM3, &d), -ENOENT);
	ck_assert_int_eq(topo_dev_info(DM_ROOT, DM0, NULL), -EINVAL);
	topo_dev_info_free(NULL);
}
END_TEST

START_TEST(test_kind_name)
{
	ck_assert_str_eq(topo_kind_name(TOPO_DISK), "disk");
	ck_assert_str_eq(topo_kind_name(TOPO_PARTITION), "part");
	ck_assert_str_eq(topo_kind_name(TOPO_DM), "dm");
	ck_assert_str_eq(topo_kind_name(TOPO_LOOP), "loop");
	ck_assert_str_eq(topo_kind_name(TOPO_ZRAM), "zram");
	ck_assert_str_eq(topo_kind_name(TOPO_MD), "md");
	ck_assert_str_eq(topo_kind_name((enum topo_kind)42), "?");
}
END_TEST

/*
 * On this machine: libdevmapper is asked only when /dev/mapper/control is
 * usable and the kernel lists device-mapper in /proc/misc. Here there is no
 * device-mapper (a control node may be left by dmsetup or udev all the
 * same); in tests/vm there is, and a loop device is no dm device.
 */
START_TEST(test_dm_target_live)
{
	char buf[32] = "x";
	int ret;

	ck_assert_int_eq(topo_dm_target(DM0, NULL, 8), -EINVAL);
	ck_assert_int_eq(topo_dm_target(DM0, buf, 0), -EINVAL);
	ret = topo_dm_target(KDEV_MKDEV(7, 0), buf, sizeof(buf));
	if (access("/dev/mapper/control", F_OK)) {
		ck_assert_int_eq(ret, -ENODEV);
		ck_assert_str_eq(buf, "");
	} else if (access("/dev/mapper/control", R_OK | W_OK)) {
		ck_assert_int_eq(ret, -EACCES);
	} else if (system("grep -q ' device-mapper$' /proc/misc") != 0) {
		/* a node left on a kernel without device-mapper */
		ck_assert_int_eq(ret, -ENODEV);
	} else {
		ck_assert_msg(ret == -EIO || ret == -ENOENT, "got %d", ret);
	}
	ck_assert_str_eq(buf, "");
}
END_TEST

/* ---- every kind, and the uuid guesses, on a tree made here ---- */

static char kind_root[] = "/tmp/check_topo_kind.XXXXXX";

/* kind_attr - one attribute file of device directory @dir */
static void kind_attr(const char *dir, const char *attr, const char *text)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (strchr(attr, '/')) {
		char sub[PATH_MAX + 64];

		snprintf(sub, sizeof(sub), "%s", path);
		*strrchr(sub, '/') = '\0';
		xmkdir(sub);
	}
	xwrite(path, text);
}

/* kind_dev - a device MAJ:MIN named @name under devices/virtual/block */
static void kind_dev(const char *name, unsigned int ma, unsigned int mi, char *dir, size_t len)
{
	char rel[128], path[PATH_MAX], num[32];

	snprintf(rel, sizeof(rel), "../../devices/virtual/block/%s", name);
	snprintf(dir, len, "%s/sys/%s", kind_root, rel + 6);
	xmkdir(dir);
	snprintf(num, sizeof(num), "%u:%u\n", ma, mi);
	kind_attr(dir, "dev", num);
	kind_attr(dir, "size", "2048\n");
	snprintf(path, sizeof(path), "%s/sys/class/block/%s", kind_root, name);
	ck_assert_int_eq(symlink(rel, path), 0);
	snprintf(path, sizeof(path), "%s/sys/dev/block/%u:%u", kind_root, ma, mi);
	ck_assert_int_eq(symlink(rel, path), 0);
}

/* the dm devices of the kind tree: 253:N with these uuids */
static const struct {
	const char *uuid;
	const char *guess;
} uuid_cases[] = {
	{ "CRYPT-LUKS1-0123456789abcdef0123456789abcdef-luks", "crypt" },
	{ "CRYPT-PLAIN-x", "crypt" },
	{ "CRYPT-VERITY-0123-root", "verity" },
	{ "CRYPT-INTEGRITY-x", "integrity" },
	{ "CRYPT-SUBDEV-0123-x_dif", "" },
	{ "mpath-3600508b400105e210000900000490000", "multipath" },
	{ "part1-mpath-3600508b400105e210000900000490000", "linear" },
	{ "part12-mpath-36005", "linear" },
	{ "partx-mpath-36005", "" },
	{ "part1", "" },
	{ "LVM-Jq3x0c4Wb2m5tQyG1a8hR7nD9kZpL6vFe0pO2sUi3yTr4wQa5zXc6vBn7mM8k-tpool",
	  "thin-pool" },
	{ "LVM-Jq3x0c4Wb2m5tQyG1a8hR7nD9kZpL6vFe0pO2sUi3yTr4wQa5zXc6vBn7mM8k", "" },
	{ "LVM-Jq3x0c4Wb2m5tQyG1a8hR7nD9kZpL6vFe0pO2sUi3yTr4wQa5zXc6vBn7mM8k-real", "" },
	{ "", "" },
	{ "tpool", "" },
};
#define UUID_N	(sizeof(uuid_cases) / sizeof(uuid_cases[0]))

static void kind_setup(void)
{
	char dir[PATH_MAX], path[PATH_MAX], name[32];
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(kind_root));
	snprintf(path, sizeof(path), "%s/sys/class/block", kind_root);
	xmkdir(path);
	snprintf(path, sizeof(path), "%s/sys/dev/block", kind_root);
	xmkdir(path);

	kind_dev("md0", 9, 0, dir, sizeof(dir));
	kind_attr(dir, "md/level", "raid1\n");
	kind_attr(dir, "queue/scheduler", "none\n");
	kind_dev("md1", 9, 1, dir, sizeof(dir));
	kind_attr(dir, "md/array_state", "clear\n");
	kind_dev("nvme0n1", 259, 0, dir, sizeof(dir));
	kind_attr(dir, "queue/scheduler", "[none] mq-deadline kyber bfq\n");
	kind_attr(dir, "queue/rotational", "0\n");
	kind_dev("zram1", 252, 1, dir, sizeof(dir));
	kind_dev("loop9", 7, 9, dir, sizeof(dir));
	kind_attr(dir, "loop/backing_file", "/var/lib/images/a disk with spaces.img\n");
	kind_dev("nbd0", 43, 0, dir, sizeof(dir));
	kind_attr(dir, "queue/scheduler", "none [bfq]\n");
	kind_attr(dir, "queue/rotational", "1\n");
	for (i = 0; i < UUID_N; i++) {
		snprintf(name, sizeof(name), "dm-%zu", i);
		kind_dev(name, 253, i, dir, sizeof(dir));
		kind_attr(dir, "dm/name", name);
		kind_attr(dir, "dm/uuid", uuid_cases[i].uuid);
	}
}

static void kind_teardown(void)
{
	nftw(kind_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	strcpy(kind_root, "/tmp/check_topo_kind.XXXXXX");
}

START_TEST(test_kinds)
{
	static const struct {
		uint32_t dev;
		enum topo_kind kind;
		const char *sched;
		bool rot;
	} cases[] = {
		{ KDEV_MKDEV(9, 0), TOPO_MD, "none", false },
		{ KDEV_MKDEV(9, 1), TOPO_MD, "", false },
		{ KDEV_MKDEV(259, 0), TOPO_DISK, "none", false },
		{ KDEV_MKDEV(252, 1), TOPO_ZRAM, "", false },
		{ KDEV_MKDEV(7, 9), TOPO_LOOP, "", false },
		{ KDEV_MKDEV(43, 0), TOPO_DISK, "bfq", true },
	};
	struct topo_dev_info d;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(topo_dev_info(kind_root, cases[i].dev, &d), 0);
		ck_assert_msg(d.kind == cases[i].kind, "%s: kind %d", d.name, d.kind);
		ck_assert_str_eq(d.scheduler, cases[i].sched);
		ck_assert_int_eq(d.rotational, cases[i].rot);
		ck_assert_uint_eq(d.size_sectors, 2048);
		topo_dev_info_free(&d);
	}
	ck_assert_int_eq(topo_dev_info(kind_root, KDEV_MKDEV(9, 0), &d), 0);
	ck_assert_str_eq(d.md_level, "raid1");
	topo_dev_info_free(&d);
	ck_assert_int_eq(topo_dev_info(kind_root, KDEV_MKDEV(9, 1), &d), 0);
	ck_assert_str_eq(d.md_level, "");
	topo_dev_info_free(&d);
	ck_assert_int_eq(topo_dev_info(kind_root, KDEV_MKDEV(7, 9), &d), 0);
	ck_assert_str_eq(d.backing, "/var/lib/images/a disk with spaces.img");
	topo_dev_info_free(&d);
}
END_TEST

START_TEST(test_uuid_guess)
{
	struct topo_dev_info d;

	ck_assert_int_eq(topo_dev_info(kind_root, KDEV_MKDEV(253, _i), &d), 0);
	ck_assert_int_eq(d.kind, TOPO_DM);
	ck_assert_str_eq(d.dm_uuid, uuid_cases[_i].uuid);
	ck_assert_msg(!strcmp(d.target, uuid_cases[_i].guess), "'%s': got '%s', want '%s'",
		      uuid_cases[_i].uuid, d.target, uuid_cases[_i].guess);
	topo_dev_info_free(&d);
}
END_TEST

/* a lookup that answers wins over the guess */
START_TEST(test_uuid_lookup_wins)
{
	struct topo_dev_info d;

	topo_dm_ops_set(&fake_ops);
	ck_assert_int_eq(topo_dev_info(kind_root, DM1, &d), 0);
	ck_assert_str_eq(d.target, "thin");
	topo_dev_info_free(&d);
	/* it does not know dm-7: the guess */
	ck_assert_int_eq(topo_dev_info(kind_root, KDEV_MKDEV(253, 7), &d), 0);
	ck_assert_str_eq(d.target, "linear");
	topo_dev_info_free(&d);
	topo_dm_ops_set(NULL);
}
END_TEST

/* ---- selections ---- */

START_TEST(test_selection_has)
{
	uint32_t devs[] = { 1, 5, 9, 1000, KDEV_MKDEV(259, 7) };
	struct topo_selection s = { devs, 5 };
	struct topo_selection empty = { 0 };
	uint32_t x;

	for (x = 0; x < 1100; x++)
		ck_assert_int_eq(topo_selection_has(&s, x),
				 x == 1 || x == 5 || x == 9 || x == 1000);
	ck_assert(topo_selection_has(&s, KDEV_MKDEV(259, 7)));
	ck_assert(!topo_selection_has(&s, UINT32_MAX));
	s.n = 1;
	ck_assert(topo_selection_has(&s, 1));
	ck_assert(!topo_selection_has(&s, 5));
	ck_assert(!topo_selection_has(&empty, 0));
	ck_assert(!topo_selection_has(NULL, 0));
}
END_TEST

START_TEST(test_selection_free)
{
	struct topo_selection s = { 0 };

	topo_selection_free(NULL);
	topo_selection_free(&s);
	s.devs = malloc(4 * sizeof(*s.devs));
	s.n = 4;
	topo_selection_free(&s);
	ck_assert_ptr_null(s.devs);
	ck_assert_uint_eq(s.n, 0);
	topo_selection_free(&s);
}
END_TEST

static Suite *topo_suite(void)
{
	Suite *s = suite_create("topo");
	TCase *tc;

	tc = tcase_create("resolve");
	tcase_add_loop_test(tc, test_resolve_ok, 0,
			    sizeof(resolve_cases) / sizeof(resolve_cases[0]));
	tcase_add_loop_test(tc, test_resolve_fail, 0,
			    sizeof(resolve_fail_cases) / sizeof(resolve_fail_cases[0]));
	tcase_add_test(tc, test_resolve_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("resolve-live");
	tcase_add_test(tc, test_resolve_live_chardev);
	tcase_add_test(tc, test_resolve_live_node);
	suite_add_tcase(s, tc);

	tc = tcase_create("name");
	tcase_add_test(tc, test_dev_name);
	tcase_add_test(tc, test_dev_name_fail);
	suite_add_tcase(s, tc);

	tc = tcase_create("expand-loop");
	tcase_add_test(tc, test_expand_partition);
	tcase_add_test(tc, test_expand_disk);
	suite_add_tcase(s, tc);

	tc = tcase_create("expand-dm");
	tcase_add_test(tc, test_expand_dm_top);
	tcase_add_test(tc, test_expand_dm_middle);
	tcase_add_test(tc, test_expand_dm_leaves);
	tcase_add_test(tc, test_expand_many);
	tcase_add_test(tc, test_expand_unknown);
	suite_add_tcase(s, tc);

	tc = tcase_create("cycles");
	tcase_add_checked_fixture(tc, cycles_setup, cycles_teardown);
	/* a hang is the failure this guards against */
	tcase_set_timeout(tc, 5);
	tcase_add_test(tc, test_cycle_pair);
	tcase_add_test(tc, test_cycle_self);
	tcase_add_test(tc, test_cycle_partition);
	tcase_add_test(tc, test_gone_holder);
	suite_add_tcase(s, tc);

	tc = tcase_create("tops");
	tcase_add_test(tc, test_tops_dm);
	tcase_add_test(tc, test_tops_partition);
	tcase_add_test(tc, test_tops_odd);
	suite_add_tcase(s, tc);

	tc = tcase_create("info");
	tcase_add_checked_fixture(tc, fake_dm_setup, fake_dm_teardown);
	tcase_add_test(tc, test_info_loop);
	tcase_add_test(tc, test_info_partition);
	tcase_add_test(tc, test_info_disks);
	tcase_add_loop_test(tc, test_info_dm, 0, sizeof(dm_info_cases) / sizeof(dm_info_cases[0]));
	tcase_add_test(tc, test_info_dm_uuid);
	tcase_add_test(tc, test_info_dm_guess);
	tcase_add_test(tc, test_info_fail);
	tcase_add_test(tc, test_kind_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("info-live");
	tcase_add_test(tc, test_dm_target_live);
	suite_add_tcase(s, tc);

	tc = tcase_create("kinds");
	tcase_add_checked_fixture(tc, kind_setup, kind_teardown);
	tcase_add_test(tc, test_kinds);
	tcase_add_loop_test(tc, test_uuid_guess, 0, UUID_N);
	tcase_add_test(tc, test_uuid_lookup_wins);
	suite_add_tcase(s, tc);

	tc = tcase_create("selection");
	tcase_add_test(tc, test_selection_has);
	tcase_add_test(tc, test_selection_free);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(topo_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
