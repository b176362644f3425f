// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_filetree.c - files as a tree of paths: a directory holds the sum of
 * its files, the folded format line by line, names from the attribution
 * (resolved, deleted, unknown, categories), and the SVG flame graph.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/pcevent.h"
#include "check_run.h"
#include "files/filetree.h"
#include "output/files.h"

static struct filetree t;

static void setup(void)
{
	ck_assert_int_eq(filetree_init(&t), 0);
}

static void teardown(void)
{
	filetree_free(&t);
}

static struct pc_counts counts(uint64_t rd, uint64_t wr, uint64_t misses)
{
	return (struct pc_counts){ .read_bytes = rd, .write_bytes = wr, .misses = misses,
				   .lat_n = 1, .lat_sum = rd, .lat_max = rd };
}

static long find(const char *path)
{
	char buf[4096];

	for (size_t i = 0; i < t.nn; i++)
		if (!filetree_path(&t, i, buf, sizeof(buf)) && !strcmp(buf, path))
			return (long)i;
	return -1;
}

/* Reads a whole FILE * written by a test into a string (caller frees). */
static char *slurp(FILE *fp)
{
	long len;
	char *s;

	fflush(fp);
	len = ftell(fp);
	ck_assert_int_ge(len, 0);
	s = calloc(1, len + 1);
	rewind(fp);
	ck_assert_int_eq(fread(s, 1, len, fp), len);
	return s;
}

START_TEST(rollup_is_the_sum_of_files)
{
	struct pc_counts a = counts(100, 0, 1), b = counts(20, 5, 2), c = counts(3, 0, 4);
	const struct ft_node *d;

	ck_assert_int_ge(filetree_add(&t, "/mnt/x/a", false, 0, &a), 1);
	ck_assert_int_ge(filetree_add(&t, "/mnt/x/sub/b", false, 1, &b), 1);
	ck_assert_int_ge(filetree_add(&t, "//mnt/y/c", false, 2, &c), 1);
	filetree_rollup(&t);

	d = &t.n[find("/mnt/x")];
	ck_assert_uint_eq(d->c.read_bytes, 120);
	ck_assert_uint_eq(d->c.write_bytes, 5);
	ck_assert_uint_eq(d->c.misses, 3);
	ck_assert(!d->file);
	ck_assert_uint_eq(t.n[find("/mnt/x/sub")].c.read_bytes, 20);
	d = &t.n[find("/mnt")];
	ck_assert_uint_eq(d->c.read_bytes, 123);
	ck_assert_uint_eq(d->c.misses, 7);
	ck_assert_uint_eq(d->c.lat_n, 3);
	ck_assert_uint_eq(d->c.lat_max, 100);
	ck_assert_uint_eq(t.n[FT_ROOT].c.read_bytes, 123);
	ck_assert(t.n[find("/mnt/y/c")].file);
	ck_assert_uint_eq(t.n[find("/mnt/y/c")].file_idx, 2);
	ck_assert_int_eq(filetree_add(&t, "/", false, 0, &a), -EINVAL);
}
END_TEST

/* Hard links, and a category added twice, add up in one node. */
START_TEST(same_path_adds_up)
{
	struct pc_counts a = counts(100, 0, 1);

	filetree_add(&t, "[journal]", false, FT_NONE, &a);
	filetree_add(&t, "[journal]", false, FT_NONE, &a);
	filetree_rollup(&t);
	ck_assert_uint_eq(t.n[find("[journal]")].c.read_bytes, 200);
	ck_assert_uint_eq(t.nn, 2);
}
END_TEST

/*
 * Folded stacks: components as frames, bytes (read + written) as weight,
 * one line per file with disk I/O; ';' and line breaks are not frames'.
 */
START_TEST(folded_format)
{
	struct pc_counts a = counts(4096, 4096, 1), b = counts(512, 0, 1), z = counts(0, 0, 9);
	FILE *fp = tmpfile();
	char *out;

	filetree_add(&t, "/data/logs/app.log", false, 0, &a);
	filetree_add(&t, "/data/a;b\nc", false, 1, &b);
	filetree_add(&t, "/data/cached", false, 2, &z);
	filetree_add(&t, "7:0:12", false, 3, &b);
	filetree_add(&t, "[metadata]", false, FT_NONE, &b);
	filetree_rollup(&t);
	ck_assert_int_eq(filetree_folded(&t, fp), 0);
	out = slurp(fp);
	ck_assert_str_eq(out, "data;logs;app.log 8192\n"
			      "data;a_b_c 512\n"
			      "7:0:12 512\n"
			      "[metadata] 512\n");
	free(out);
	fclose(fp);
}
END_TEST

START_TEST(paths)
{
	struct pc_counts a = counts(1, 0, 0);
	char buf[16];

	filetree_add(&t, "/a/bb/ccc", false, 0, &a);
	filetree_add(&t, "7:0:12", false, 1, &a);
	ck_assert_int_eq(filetree_path(&t, find("/a/bb/ccc"), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/a/bb/ccc");
	ck_assert_int_eq(filetree_path(&t, FT_ROOT, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/");
	ck_assert_int_eq(filetree_path(&t, find("7:0:12"), buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "7:0:12");
	ck_assert_int_eq(filetree_path(&t, find("/a/bb/ccc"), buf, 6), -ERANGE);
}
END_TEST

/* From the attribution: names resolved, deleted, unknown; categories. */
START_TEST(build_from_attribution)
{
	const uint32_t sdev = KDEV_MKDEV(7, 0);
	uint32_t devs[] = { sdev };
	struct fsmap_fs fs = { .sdev = sdev, .devs = devs, .ndevs = 1, .bdi = "7:0" };
	struct fsmap map = { .fs = &fs, .nfs = 1 };
	struct pagecache *pc = pagecache_alloc(&map);
	struct pathres *pr = pathres_alloc("");
	struct blk_event ev = { 0 };
	struct filetree bt;
	FILE *fp = tmpfile();
	char *out;

	ck_assert_ptr_nonnull(pc);
	ck_assert_ptr_nonnull(pr);
	for (uint64_t ino = 10; ino <= 12; ino++) {
		ev = (struct blk_event){ .kind = PC_EV_ADD, .pid = 1, .dev = sdev, .aux_sector = ino,
					 .nr_sector = 2, .ts = ino };
		pagecache_event(&ev, pc);
		ev = (struct blk_event){ .kind = BLK_EV_BIO_QUEUE, .pid = 1, .dev = sdev,
					 .nr_sector = 8 * ino, .op = BLK_OP_READ, .ts = ino + 100 };
		pagecache_event(&ev, pc);
	}
	ev = (struct blk_event){ .kind = BLK_EV_BIO_QUEUE, .pid = 2, .dev = sdev, .nr_sector = 8,
				 .op = BLK_OP_WRITE, .ts = 500 };
	strcpy(ev.comm, "jbd2/loop0-8");
	pagecache_event(&ev, pc);
	pathres_set(pr, sdev, 10, "/mnt/d/ten", false);
	pathres_set(pr, sdev, 11, "/mnt/d/eleven", true);

	ck_assert_int_eq(filetree_build(&bt, pc, pr, false, true), 0);
	ck_assert_int_eq(filetree_folded(&bt, fp), 0);
	out = slurp(fp);
	ck_assert_str_eq(out, "mnt;d;ten 40960\n"
			      "mnt;d;eleven (deleted) 45056\n"
			      "7:0:12 49152\n"
			      "[journal] 4096\n");
	ck_assert_uint_eq(bt.n[FT_ROOT].c.read_bytes, 40960 + 45056 + 49152);
	ck_assert_uint_eq(bt.n[FT_ROOT].c.misses, 6);
	free(out);
	fclose(fp);
	filetree_free(&bt);

	/* without categories, for the tables */
	ck_assert_int_eq(filetree_build(&bt, pc, pr, false, false), 0);
	ck_assert_uint_eq(bt.n[FT_ROOT].c.write_bytes, 0);
	filetree_free(&bt);
	pathres_free(pr);
	pagecache_free(pc);
}
END_TEST

/* An unnamed file is MAJ:MIN:ino; inode 1 is said to be the filesystem's own. */
START_TEST(unnamed_files)
{
	char buf[64];

	filetree_file_name(NULL, KDEV_MKDEV(259, 0), 12, buf, sizeof(buf));
	ck_assert_str_eq(buf, "259:0:12");
	/* ext4's allocator cache, as the demo's per-file report met it */
	filetree_file_name(NULL, KDEV_MKDEV(259, 0), 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "259:0:1 (the filesystem's own)");
}
END_TEST

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The flame graph: one box per component with bytes, each with its path as title. */
START_TEST(flame_svg)
{
	struct pc_counts a = counts(3 << 20, 0, 1), b = counts(1 << 20, 0, 1), z = counts(0, 0, 1);
	FILE *fp = tmpfile();
	char *out;

	filetree_add(&t, "/srv/www/index.html", false, 0, &a);
	filetree_add(&t, "/srv/db/<table>&\"x\"", false, 1, &b);
	filetree_add(&t, "/srv/empty", false, 2, &z);
	filetree_rollup(&t);
	ck_assert_int_eq(out_files_flame(fp, &t, "test & title"), 0);
	out = slurp(fp);
	ck_assert_ptr_nonnull(strstr(out, "<?xml"));
	ck_assert_ptr_nonnull(strstr(out, "<svg "));
	ck_assert_ptr_nonnull(strstr(out, "</svg>\n"));
	ck_assert_ptr_nonnull(strstr(out, "test &amp; title"));
	/* all, srv, www, index.html, db, the table: 6 boxes; the empty file none */
	ck_assert_int_eq(count(out, "<g><title>"), 6);
	ck_assert_int_eq(count(out, "rx=\"2\""), 6);
	ck_assert_ptr_nonnull(strstr(out, "<title>/srv/www/index.html (3.00 MiB, 75.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(out, "<title>/srv (4.00 MiB, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(out, "/srv/db/&lt;table&gt;&amp;&quot;x&quot;"));
	ck_assert_ptr_null(strstr(out, "empty"));
	ck_assert_ptr_null(strstr(out, "<script"));
	free(out);
	fclose(fp);
}
END_TEST

START_TEST(flame_empty)
{
	FILE *fp = tmpfile();
	char *out;

	ck_assert_int_eq(out_files_flame(fp, &t, "nothing"), 0);
	out = slurp(fp);
	ck_assert_ptr_nonnull(strstr(out, "no disk I/O was traced"));
	ck_assert_ptr_nonnull(strstr(out, "</svg>"));
	free(out);
	fclose(fp);
}
END_TEST

/* A directory of many files is built in linear time and keeps them all. */
START_TEST(wide_directory)
{
	struct pc_counts a = counts(1, 0, 0);
	char path[64];

	for (int i = 0; i < 20000; i++) {
		snprintf(path, sizeof(path), "/big/f%d", i);
		ck_assert_int_ge(filetree_add(&t, path, false, i, &a), 1);
	}
	filetree_rollup(&t);
	ck_assert_uint_eq(t.nn, 20002);
	ck_assert_uint_eq(t.n[find("/big")].c.read_bytes, 20000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("filetree");
	TCase *tc = tcase_create("filetree");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rollup_is_the_sum_of_files);
	tcase_add_test(tc, same_path_adds_up);
	tcase_add_test(tc, folded_format);
	tcase_add_test(tc, paths);
	tcase_add_test(tc, build_from_attribution);
	tcase_add_test(tc, unnamed_files);
	tcase_add_test(tc, flame_svg);
	tcase_add_test(tc, flame_empty);
	tcase_add_test(tc, wide_directory);
	suite_add_tcase(s, tc);
	return check_run(s);
}
