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
 * and on a temporary tree with cycles, made per test.
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
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <check.h>

#include "event.h"
#include "topo.h"

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
