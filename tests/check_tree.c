// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_tree.c - unit tests of output/tree.c: the device tree of the dm
 * fixture (tests/fixtures/sysfs/dm, see check_topo.c) against the golden
 * tests/expected/tree-dm, written by hand from what `lsblk -s` shows for
 * such a stack; its JSON form, parsed back with json-c; the raw and bytes
 * forms; devices sysfs does not know.
 *
 * The dm target types come from a fake lookup, as in check_topo.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <json-c/json.h>

#include "base/event.h"
#include "check_files.h"
#include "check_run.h"
#include "output/tree.h"
#include "track/topo.h"

#define LOOP_ROOT	FIXTURES_DIR "/sysfs/loop"
#define DM_ROOT		FIXTURES_DIR "/sysfs/dm"
#define GOLDEN_DM	FIXTURES_DIR "/../expected/tree-dm"

#define LOOP0		KDEV_MKDEV(7, 0)
#define LOOP0P1		KDEV_MKDEV(259, 0)
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

/* every device of the dm fixture, in no particular order, one twice */
static const uint32_t dm_all[] = {
	DM4, SDA, SDA1, SDA2, SDB, SDB1, SDB2, SDC, SDD, DM0, DM1, DM2, DM3, SDA
};
#define DM_ALL_N	(sizeof(dm_all) / sizeof(dm_all[0]))

/* the expanded stack of dm-2 */
static const uint32_t dm_stack[] = { DM2, DM1, DM0, DM3, SDC, SDA1, SDB1, SDA, SDB };
#define DM_STACK_N	(sizeof(dm_stack) / sizeof(dm_stack[0]))

static int fake_target(uint32_t dev, char *buf, size_t len)
{
	static const char *const types[] = { "thin-pool", "thin", "crypt", "striped", "linear" };

	if (KDEV_MAJOR(dev) != 253 || KDEV_MINOR(dev) > 4)
		return -ENOENT;
	snprintf(buf, len, "%s", types[KDEV_MINOR(dev)]);
	return 0;
}

static const struct topo_dm_ops fake_ops = { .target = fake_target };

static void fake_dm_setup(void)
{
	topo_dm_ops_set(&fake_ops);
}

static void fake_dm_teardown(void)
{
	topo_dm_ops_set(NULL);
}

/*
 * strip_blanks - remove the blanks at the end of each line, in place
 *
 * libsmartcols pads a line to its column widths even when the last
 * columns are empty (lsblk's lines end so too); the golden files keep no
 * trailing blanks, which editors and git like to strip anyway.
 */
static char *strip_blanks(char *s)
{
	char *r = s, *w = s, *mark = s;

	for (; *r; r++) {
		if (*r == '\n')
			w = mark;
		*w++ = *r;
		if (*r != ' ')
			mark = w;
	}
	*mark = '\0';
	return s;
}

/* print_mem - out_tree_print() into a string (free it); the return value in *ret */
static char *print_mem(const char *root, const uint32_t *devs, size_t n, int flags, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	fp = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(fp);
	*ret = out_tree_print(fp, root, devs, n, flags);
	fclose(fp);
	return buf;
}


START_TEST(test_tree_golden)
{
	char *got, *want;
	int ret;

	got = strip_blanks(print_mem(DM_ROOT, dm_all, DM_ALL_N, OUT_TREE_ASCII, &ret));
	ck_assert_int_eq(ret, 0);
	want = check_slurp(GOLDEN_DM, NULL);
	ck_assert_msg(!strcmp(got, want), "got:\n%s\nwant:\n%s", got, want);
	free(got);
	free(want);
}
END_TEST

/* the stack of dm-2 alone: one tree, the first one of the golden's dm-2 */
START_TEST(test_tree_stack)
{
	char *got, *want, *from, *to;
	int ret;

	got = strip_blanks(print_mem(DM_ROOT, dm_stack, DM_STACK_N,
				     OUT_TREE_ASCII | OUT_TREE_NOHEADINGS, &ret));
	ck_assert_int_eq(ret, 0);
	want = check_slurp(GOLDEN_DM, NULL);
	from = strstr(want, "\ndm-2 ");
	ck_assert_ptr_nonnull(from);
	to = strstr(from, "\ndm-4 ");
	ck_assert_ptr_nonnull(to);
	to[1] = '\0';
	/* same widths: the rows left out are no wider than these */
	ck_assert_msg(!strcmp(got, from + 1), "got:\n%s\nwant:\n%s", got, from + 1);
	free(got);
	free(want);
}
END_TEST

/* find_child - the member of array @arr whose "name" is @name */
static json_object *find_child(json_object *arr, const char *name)
{
	size_t i, n = json_object_array_length(arr);

	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(arr, i), *v;

		if (json_object_object_get_ex(o, "name", &v) &&
		    !strcmp(json_object_get_string(v), name))
			return o;
	}
	return NULL;
}

/* field - the string value of @key in @o, "" for null */
static const char *field(json_object *o, const char *key)
{
	json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no '%s'", key);
	return v ? json_object_get_string(v) : "";
}

/* path_get - follow names down "children" from the top array */
static json_object *path_get(json_object *devices, const char *const *names, size_t n)
{
	json_object *o = NULL, *arr = devices;
	size_t i;

	for (i = 0; i < n; i++) {
		o = find_child(arr, names[i]);
		ck_assert_msg(o != NULL, "no '%s' at depth %zu", names[i], i);
		if (i + 1 < n)
			ck_assert_msg(json_object_object_get_ex(o, "children", &arr),
				      "'%s' has no children", names[i]);
	}
	return o;
}

START_TEST(test_tree_json)
{
	static const char *const to_sdb[] = { "dm-2", "dm-1", "dm-0", "dm-3", "sdb1", "sdb" };
	static const char *const to_sdc[] = { "dm-2", "dm-1", "dm-0", "sdc" };
	json_object *doc, *devices, *o, *v;
	char *got;
	int ret;

	got = print_mem(DM_ROOT, dm_all, DM_ALL_N, OUT_TREE_JSON | OUT_TREE_BYTES, &ret);
	ck_assert_int_eq(ret, 0);
	doc = json_tokener_parse(got);
	ck_assert_msg(doc != NULL, "not JSON:\n%s", got);
	ck_assert(json_object_object_get_ex(doc, "devices", &devices));
	ck_assert(json_object_is_type(devices, json_type_array));
	/* the four tops, in dev_t order */
	ck_assert_uint_eq(json_object_array_length(devices), 4);
	ck_assert_str_eq(field(json_object_array_get_idx(devices, 0), "name"), "sda2");
	ck_assert_str_eq(field(json_object_array_get_idx(devices, 3), "name"), "dm-4");

	o = path_get(devices, to_sdb, 6);
	ck_assert_str_eq(field(o, "maj:min"), "8:16");
	ck_assert_str_eq(field(o, "kind"), "disk");
	ck_assert_str_eq(field(o, "sched"), "mq-deadline");
	ck_assert(!json_object_object_get_ex(o, "children", NULL));
	/* in bytes, a number */
	ck_assert(json_object_object_get_ex(o, "size", &v));
	ck_assert(json_object_is_type(v, json_type_int));
	ck_assert_int_eq(json_object_get_int64(v), 20971520LL * 512);

	o = path_get(devices, to_sdb, 4);
	ck_assert_str_eq(field(o, "kind"), "striped");
	ck_assert_str_eq(field(o, "detail"), "stripe");
	o = path_get(devices, to_sdc, 3);
	ck_assert_str_eq(field(o, "kind"), "thin-pool");
	ck_assert_str_eq(field(o, "detail"), "pool");
	o = path_get(devices, to_sdc, 4);
	ck_assert_str_eq(field(o, "kind"), "disk");
	o = path_get(devices, (const char *const[]){ "dm-4", "sdb2" }, 2);
	ck_assert_str_eq(field(o, "kind"), "part");
	ck_assert_int_eq(json_object_get_int64(json_object_object_get(o, "size")),
			 10483712LL * 512);

	json_object_put(doc);
	free(got);
}
END_TEST

START_TEST(test_tree_json_human)
{
	json_object *doc, *devices, *v;
	char *got;
	int ret;

	/* JSON ignores the text-only flags */
	got = print_mem(DM_ROOT, dm_stack, DM_STACK_N,
			OUT_TREE_JSON | OUT_TREE_RAW | OUT_TREE_NOHEADINGS, &ret);
	ck_assert_int_eq(ret, 0);
	doc = json_tokener_parse(got);
	ck_assert_msg(doc != NULL, "not JSON:\n%s", got);
	ck_assert(json_object_object_get_ex(doc, "devices", &devices));
	ck_assert_uint_eq(json_object_array_length(devices), 1);
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(devices, 0), "size", &v));
	ck_assert_str_eq(json_object_get_string(v), "10G");
	json_object_put(doc);
	free(got);
}
END_TEST

START_TEST(test_tree_raw)
{
	/* tops in dev_t order (253:0 before 259:0), each before its disk; empty columns stay */
	static const char want[] =
		"zram0 253:0 zram 0  \n"
		"loop0p1 259:0 part 65011712 none \n"
		"loop0 7:0 loop 67108864 none /tmp/blkstack-capture.LLAtF4\n";
	static const uint32_t devs[] = { LOOP0, LOOP0P1, ZRAM0 };
	char *got;
	int ret;

	got = print_mem(LOOP_ROOT, devs, 3, OUT_TREE_RAW | OUT_TREE_NOHEADINGS | OUT_TREE_BYTES,
			&ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_msg(!strcmp(got, want), "got:\n%s\nwant:\n%s", got, want);
	free(got);
}
END_TEST

/* a device sysfs does not know: a top of its own, with only its number */
START_TEST(test_tree_unknown)
{
	static const char want[] =
		"NAME  MAJ:MIN KIND SIZE SCHED       DETAIL\n"
		"sda1  8:1     part   5G mq-deadline\n"
		"`-sda 8:0     disk  10G mq-deadline\n"
		"?     8:64\n";
	static const uint32_t devs[] = { KDEV_MKDEV(8, 64), SDA, SDA1 };
	char *got;
	int ret;

	got = strip_blanks(print_mem(DM_ROOT, devs, 3, OUT_TREE_ASCII, &ret));
	ck_assert_int_eq(ret, 0);
	ck_assert_msg(!strcmp(got, want), "got:\n%s\nwant:\n%s", got, want);
	free(got);
}
END_TEST

START_TEST(test_tree_empty)
{
	json_object *doc, *devices;
	char *got;
	int ret;

	got = print_mem(DM_ROOT, NULL, 0, OUT_TREE_NOHEADINGS, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(got, "");
	free(got);

	got = print_mem(DM_ROOT, NULL, 0, OUT_TREE_JSON, &ret);
	ck_assert_int_eq(ret, 0);
	doc = json_tokener_parse(got);
	ck_assert_msg(doc != NULL, "not JSON:\n%s", got);
	ck_assert(json_object_object_get_ex(doc, "devices", &devices));
	ck_assert_uint_eq(json_object_array_length(devices), 0);
	json_object_put(doc);
	free(got);
}
END_TEST

START_TEST(test_tree_bad_args)
{
	int ret;

	ck_assert_int_eq(out_tree_print(NULL, DM_ROOT, dm_stack, 1, 0), -EINVAL);
	free(print_mem(DM_ROOT, NULL, 3, 0, &ret));
	ck_assert_int_eq(ret, -EINVAL);
}
END_TEST

/*
 * Sizes as lsblk prints them: one decimal, rounded, dropped when zero. The
 * fixture sizes give 62M (exact), 64M, 256G, 0B here and 5G (4.999G,
 * rounded up) in the golden.
 */
START_TEST(test_tree_sizes)
{
	static const uint32_t devs[] = { LOOP0, LOOP0P1, ZRAM0, KDEV_MKDEV(254, 0) };
	char *got;
	int ret;

	got = print_mem(LOOP_ROOT, devs, 4, OUT_TREE_RAW | OUT_TREE_NOHEADINGS, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_msg(strstr(got, "loop0p1 259:0 part 62M none \n"), "%s", got);
	ck_assert_msg(strstr(got, "loop0 7:0 loop 64M none /"), "%s", got);
	ck_assert_msg(strstr(got, "zram0 253:0 zram 0B  \n"), "%s", got);
	ck_assert_msg(strstr(got, "vda 254:0 disk 256G mq-deadline \n"), "%s", got);
	free(got);
}
END_TEST

static Suite *tree_suite(void)
{
	Suite *s = suite_create("tree");
	TCase *tc;

	tc = tcase_create("text");
	tcase_add_checked_fixture(tc, fake_dm_setup, fake_dm_teardown);
	tcase_add_test(tc, test_tree_golden);
	tcase_add_test(tc, test_tree_stack);
	tcase_add_test(tc, test_tree_raw);
	tcase_add_test(tc, test_tree_unknown);
	tcase_add_test(tc, test_tree_empty);
	tcase_add_test(tc, test_tree_bad_args);
	tcase_add_test(tc, test_tree_sizes);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_checked_fixture(tc, fake_dm_setup, fake_dm_teardown);
	tcase_add_test(tc, test_tree_json);
	tcase_add_test(tc, test_tree_json_human);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return check_run(tree_suite());
}
