// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_pagecache.c - attribution of disk I/O to files, on event sequences
 * shaped like the kernel's (see the traces in the comments): interleaved
 * tasks, readahead across two files, a flusher writing several inodes,
 * fsync, direct I/O, a partition, a stacked device, the categories of I/O
 * that is no file's, the block device's own page cache, evictions,
 * latency from the tracker, the --log runs and the lookups.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "base/pcevent.h"
#include "check_run.h"
#include "files/pagecache.h"
#include "format/pcdecode.h"

#define MKDEV KDEV_MKDEV

/*
 * The machine: ext4 on loop0 (7:0), ext4 on the partition loop1p1 (259:0)
 * of loop1 (7:1), btrfs (anonymous 0:40) on loop2 and loop3, xfs on dm-0
 * (254:0) over sda (8:0), loop4 a swap device, loop5 no filesystem.
 */
static uint32_t devs_a[] = { MKDEV(7, 0) };
static uint32_t devs_b[] = { MKDEV(259, 0) };
static uint32_t devs_c[] = { MKDEV(7, 2), MKDEV(7, 3) };
static uint32_t devs_d[] = { MKDEV(254, 0) };
static uint32_t swaps[] = { MKDEV(7, 4) };
static struct fsmap_fs fss[4];
static struct fsmap map;
static struct pagecache *pc;
static uint64_t now;

static void setup(void)
{
	memset(fss, 0, sizeof(fss));
	fss[0] = (struct fsmap_fs){ .sdev = MKDEV(7, 0), .fstype = "ext4", .devs = devs_a,
				    .ndevs = 1, .bdi = "7:0" };
	fss[1] = (struct fsmap_fs){ .sdev = MKDEV(259, 0), .fstype = "ext4", .devs = devs_b,
				    .ndevs = 1, .bdi = "7:1" };
	fss[2] = (struct fsmap_fs){ .sdev = MKDEV(0, 40), .fstype = "btrfs", .devs = devs_c,
				    .ndevs = 2, .bdi = "btrfs-1" };
	fss[3] = (struct fsmap_fs){ .sdev = MKDEV(254, 0), .fstype = "xfs", .devs = devs_d,
				    .ndevs = 1, .bdi = "254:0" };
	map = (struct fsmap){ .fs = fss, .nfs = 4, .swaps = swaps, .nswaps = 1 };
	pc = pagecache_alloc(&map);
	ck_assert_ptr_nonnull(pc);
	now = 1000000;
}

static void teardown(void)
{
	pagecache_free(pc);
}

static void feed(struct blk_event *ev)
{
	ev->ts = now;
	now += 1000;
	ck_assert_int_eq(pagecache_event(ev, pc), 0);
}

/* filemap, readahead, iomap and sb_mark_inode_writeback: by superblock */
static void pcev(unsigned int kind, int pid, uint32_t sdev, uint64_t ino, uint64_t index,
		 uint32_t pages)
{
	struct blk_event ev = { .kind = kind, .pid = pid, .dev = sdev, .aux_sector = ino,
				.sector = index, .nr_sector = pages };

	feed(&ev);
}

/* writeback events: by bdi name */
static void wbev(unsigned int kind, int pid, const char *bdi, uint64_t ino)
{
	struct blk_event ev = { .kind = kind, .pid = pid, .aux_sector = ino, .nr_sector = 1 };

	strcpy(ev.comm, bdi);
	ev.dev = pc_bdi_dev(bdi);
	feed(&ev);
}

static uint64_t queue(int pid, const char *comm, uint32_t dev, uint64_t sector, uint32_t nr,
		      uint8_t op, uint16_t flags)
{
	struct blk_event ev = { .kind = BLK_EV_BIO_QUEUE, .pid = pid, .dev = dev,
				.sector = sector, .nr_sector = nr, .op = op, .flags = flags };

	strcpy(ev.comm, comm);
	feed(&ev);
	return ev.ts;
}

static uint64_t remap(int pid, uint32_t dev, uint64_t sector, uint32_t old_dev, uint64_t old)
{
	struct blk_event ev = { .kind = BLK_EV_BIO_REMAP, .pid = pid, .dev = dev,
				.sector = sector, .old_dev = old_dev, .aux_sector = old,
				.nr_sector = 8, .op = BLK_OP_READ };

	feed(&ev);
	return ev.ts;
}

static const struct pc_file *file(uint32_t sdev, uint64_t ino)
{
	size_t n;
	const struct pc_file *f = pagecache_files(pc, &n);

	for (size_t i = 0; i < n; i++)
		if (f[i].sdev == sdev && f[i].ino == ino)
			return &f[i];
	return NULL;
}

static const struct pc_proc *proc(int pid)
{
	size_t n;
	const struct pc_proc *p = pagecache_procs(pc, &n);

	for (size_t i = 0; i < n; i++)
		if (p[i].pid == pid)
			return &p[i];
	return NULL;
}

/*
 * Two readers at once on one filesystem: each one's bios follow its own
 * insertions, whatever the other did in between.
 */
START_TEST(interleaved_tasks)
{
	const uint32_t a = MKDEV(7, 0);

	pcev(PC_EV_ADD, 100, a, 10, 0, 4);
	pcev(PC_EV_ADD, 200, a, 11, 0, 1);
	pcev(PC_EV_ADD, 200, a, 11, 1, 1);
	pcev(PC_EV_ADD, 100, a, 10, 4, 4);
	queue(200, "b", a, 5000, 16, BLK_OP_READ, BLK_F_RAHEAD);
	queue(100, "a", a, 1000, 64, BLK_OP_READ, BLK_F_RAHEAD);

	ck_assert_uint_eq(file(a, 10)->tot.read_bytes, 64 * 512);
	ck_assert_uint_eq(file(a, 10)->tot.misses, 8);
	ck_assert_uint_eq(file(a, 11)->tot.read_bytes, 16 * 512);
	ck_assert_uint_eq(file(a, 11)->tot.misses, 2);
	ck_assert_uint_eq(file(a, 10)->tot.read_ios, 1);
	ck_assert_uint_eq(proc(100)->tot.read_bytes, 64 * 512);
	ck_assert_str_eq(proc(200)->comm, "b");
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->read_bytes, 0);
	ck_assert(pagecache_has_events(pc));
}
END_TEST

/*
 * cat of two files: sync readahead of the first, its bio, the lookups of
 * read(), then async readahead of the second. Readahead inserts before its
 * bio is queued, in the reading task; the lookup ends the readahead run.
 */
START_TEST(readahead_across_two_files)
{
	const uint32_t c = MKDEV(0, 40);

	pcev(PC_EV_RA_SYNC, 100, c, 20, 0, 32);
	pcev(PC_EV_ADD, 100, c, 20, 0, 16);
	pcev(PC_EV_ADD, 100, c, 20, 16, 16);
	queue(100, "cat", MKDEV(7, 2), 8000, 256, BLK_OP_READ, BLK_F_RAHEAD);
	pcev(PC_EV_GET_PAGES, 100, c, 20, 0, 32);
	pcev(PC_EV_RA_ASYNC, 100, c, 21, 32, 32);
	pcev(PC_EV_ADD, 100, c, 21, 32, 32);
	/* the file is on two devices: this bio goes to the second */
	queue(100, "cat", MKDEV(7, 3), 100, 256, BLK_OP_READ, BLK_F_RAHEAD);
	pcev(PC_EV_GET_PAGES, 100, c, 21, 32, 64);
	/* no readahead before it: a plain miss */
	pcev(PC_EV_ADD, 100, c, 21, 200, 1);
	queue(100, "cat", MKDEV(7, 3), 900, 8, BLK_OP_READ, 0);

	ck_assert_uint_eq(file(c, 20)->tot.ra_sync, 32);
	ck_assert_uint_eq(file(c, 20)->tot.ra_async, 0);
	ck_assert_uint_eq(file(c, 20)->tot.read_bytes, 256 * 512);
	ck_assert_uint_eq(file(c, 21)->tot.ra_async, 32);
	ck_assert_uint_eq(file(c, 21)->tot.ra_sync, 0);
	ck_assert_uint_eq(file(c, 21)->tot.misses, 33);
	ck_assert_uint_eq(file(c, 21)->tot.read_bytes, 264 * 512);
	ck_assert_uint_eq(file(c, 20)->tot.lookups, 32);
	ck_assert_uint_eq(proc(100)->tot.ra_sync, 32);
	ck_assert_uint_eq(proc(100)->tot.ra_async, 32);
}
END_TEST

/*
 * The flusher writes three inodes in turn (writeback_single_inode_start ..
 * writeback_single_inode), one of them without I/O; a write after the last
 * end belongs to none. The writeback of a file is the work of the task
 * that dirtied it.
 */
START_TEST(flusher_writes_several_inodes)
{
	const uint32_t a = MKDEV(7, 0);

	wbev(PC_EV_WB_DIRTY, 300, "7:0", 11);
	wbev(PC_EV_WB_DIRTY, 300, "7:0", 11);
	wbev(PC_EV_WB_START, 50, "7:0", 10);
	queue(50, "kworker/u8:1", a, 100, 16, BLK_OP_WRITE, 0);
	wbev(PC_EV_WB_END, 50, "7:0", 10);
	wbev(PC_EV_WB_START, 50, "7:0", 11);
	queue(50, "kworker/u8:1", a, 200, 8, BLK_OP_WRITE, 0);
	queue(50, "kworker/u8:1", a, 300, 8, BLK_OP_WRITE, 0);
	wbev(PC_EV_WB_END, 50, "7:0", 11);
	wbev(PC_EV_WB_START, 50, "7:0", 12);
	wbev(PC_EV_WB_END, 50, "7:0", 12);
	queue(50, "kworker/u8:1", a, 400, 8, BLK_OP_WRITE, 0);
	/* btrfs names its own bdi; the file's bio goes to one of its devices */
	wbev(PC_EV_WB_START, 50, "btrfs-1", 10);
	queue(50, "kworker/u8:1", MKDEV(7, 3), 500, 8, BLK_OP_WRITE, 0);
	wbev(PC_EV_WB_END, 50, "btrfs-1", 10);

	ck_assert_uint_eq(file(a, 10)->tot.write_bytes, 16 * 512);
	ck_assert_uint_eq(file(a, 11)->tot.write_bytes, 16 * 512);
	ck_assert_uint_eq(file(a, 11)->tot.write_ios, 2);
	ck_assert_uint_eq(file(a, 11)->tot.dirtied, 2);
	ck_assert_uint_eq(file(a, 12)->tot.write_bytes, 0);
	ck_assert_uint_eq(file(MKDEV(0, 40), 10)->tot.write_bytes, 8 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->write_bytes, 8 * 512);
	/* 11 was dirtied by 300: its writeback is 300's; 10 had no dirtier */
	ck_assert_uint_eq(proc(300)->tot.write_bytes, 16 * 512);
	ck_assert_uint_eq(proc(300)->tot.dirtied, 2);
	ck_assert_uint_eq(proc(50)->tot.write_bytes, (16 + 8 + 8) * 512);
}
END_TEST

/* fsync: sb_mark_inode_writeback in the task, then its writes. */
START_TEST(fsync_writes)
{
	const uint32_t a = MKDEV(7, 0);

	pcev(PC_EV_WB_MARK, 400, a, 13, 0, 1);
	queue(400, "sync", a, 700, 392, BLK_OP_WRITE, BLK_F_SYNC);
	/* the journal commit that follows: jbd2's, even with REQ_META */
	queue(41, "jbd2/loop0-8", a, 9000, 2, BLK_OP_WRITE, BLK_F_SYNC | BLK_F_META);
	ck_assert_uint_eq(file(a, 13)->tot.write_bytes, 392 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_JOURNAL)->write_bytes, 2 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_METADATA)->write_bytes, 0);
}
END_TEST

/* iomap_dio_rw_begin .. iomap_dio_complete: the task's I/O in between. */
START_TEST(direct_io)
{
	const uint32_t c = MKDEV(0, 40);

	pcev(PC_EV_DIO_BEGIN, 500, c, 30, 0, 0);
	queue(500, "dd", MKDEV(7, 2), 100, 128, BLK_OP_READ, BLK_F_SYNC);
	pcev(PC_EV_DIO_END, 500, c, 30, 0, 0);
	pcev(PC_EV_DIO_BEGIN, 500, c, 30, 0, 0);
	queue(500, "dd", MKDEV(7, 2), 228, 128, BLK_OP_WRITE, BLK_F_SYNC);
	pcev(PC_EV_DIO_END, 500, c, 30, 0, 0);
	queue(500, "dd", MKDEV(7, 2), 400, 8, BLK_OP_READ, 0);

	ck_assert_uint_eq(file(c, 30)->tot.read_bytes, 128 * 512);
	ck_assert_uint_eq(file(c, 30)->tot.write_bytes, 128 * 512);
	ck_assert_uint_eq(file(c, 30)->tot.direct_bytes, 256 * 512);
	ck_assert_uint_eq(file(c, 30)->tot.misses, 0);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->read_bytes, 8 * 512);
}
END_TEST

/*
 * A direct write that reads metadata first, as on 6.18 (ext4 on loop1p1):
 *   dd iomap_dio_rw_begin: dev 259:1 ino 0xc offset 0xe00000 length 0x100000
 *   dd mm_filemap_add_to_page_cache: dev 259:1 ino 1 ofs=12288 order=0
 *   dd block_bio_remap: 7,1 WS 100354 + 2048 <- (259,1) 98306
 *   dd block_bio_queue: 7,1 WS 100354 + 2048 [dd]
 * and over dm-crypt, where the insert is into the block device's own page
 * cache (its inode number is the device). The insert must not take the
 * write away from the file (it went to "unattributed", or "raw").
 */
START_TEST(direct_write_after_insert)
{
	const uint32_t b = MKDEV(259, 0), d = MKDEV(254, 0);

	pcev(PC_EV_DIO_BEGIN, 600, b, 12, 0xe00000, 0);
	pcev(PC_EV_ADD, 600, b, 1, 3, 1);
	remap(600, MKDEV(7, 1), 100354, b, 98306);
	queue(600, "dd", MKDEV(7, 1), 100354, 2048, BLK_OP_WRITE, BLK_F_SYNC);
	pcev(PC_EV_DIO_END, 600, b, 12, 0xf00000, 0);
	ck_assert_uint_eq(file(b, 12)->tot.write_bytes, 2048 * 512);
	ck_assert_uint_eq(file(b, 12)->tot.direct_bytes, 2048 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->write_bytes, 0);

	/* xfs on dm-0: the block device's own page (its inode is 254:0) */
	pcev(PC_EV_DIO_BEGIN, 601, d, 77, 0, 0);
	pcev(PC_EV_ADD, 601, MKDEV(0, 5), d, 16, 1);
	queue(601, "fio", d, 9000, 2048, BLK_OP_WRITE, BLK_F_SYNC);
	pcev(PC_EV_DIO_END, 601, d, 77, 0x100000, 0);
	ck_assert_uint_eq(file(d, 77)->tot.write_bytes, 2048 * 512);
	ck_assert_uint_eq(file(d, 77)->tot.direct_bytes, 2048 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_RAW)->write_bytes, 0);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_METADATA)->write_bytes, 0);
}
END_TEST

/*
 * A direct read that reads an extent block first: the read of the page it
 * inserted is metadata, the reads after it are the file's.
 */
START_TEST(direct_read_after_insert)
{
	const uint32_t d = MKDEV(254, 0);

	pcev(PC_EV_DIO_BEGIN, 610, d, 78, 0, 0);
	pcev(PC_EV_ADD, 610, MKDEV(0, 5), d, 16, 1);
	queue(610, "fio", d, 128, 8, BLK_OP_READ, BLK_F_META);
	queue(610, "fio", d, 20000, 256, BLK_OP_READ, BLK_F_SYNC);
	pcev(PC_EV_DIO_END, 610, d, 78, 0x20000, 0);
	ck_assert_uint_eq(file(d, 78)->tot.read_bytes, 256 * 512);
	ck_assert_uint_eq(file(d, 78)->tot.direct_bytes, 256 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_METADATA)->read_bytes, 8 * 512);

	/* the same without REQ_META: the inserted page's read is still not the file's */
	pcev(PC_EV_DIO_BEGIN, 611, d, 79, 0, 0);
	pcev(PC_EV_ADD, 611, MKDEV(0, 5), d, 24, 1);
	queue(611, "fio", d, 192, 8, BLK_OP_READ, 0);
	queue(611, "fio", d, 30000, 128, BLK_OP_READ, BLK_F_SYNC);
	pcev(PC_EV_DIO_END, 611, d, 79, 0x10000, 0);
	ck_assert_uint_eq(file(d, 79)->tot.read_bytes, 128 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_METADATA)->read_bytes, 16 * 512);
}
END_TEST

/*
 * A direct read at the end of the file has iomap_dio_rw_begin but no
 * iomap_dio_complete (__iomap_dio_rw returns early); the fsync that follows
 * in the same task writes another file, which must keep its writes.
 */
START_TEST(direct_read_at_eof_then_fsync)
{
	const uint32_t a = MKDEV(7, 0);

	pcev(PC_EV_DIO_BEGIN, 630, a, 50, 0, 0);
	queue(630, "python3", a, 3000, 2048, BLK_OP_READ, BLK_F_SYNC);
	pcev(PC_EV_DIO_END, 630, a, 50, 0x100000, 0);
	pcev(PC_EV_DIO_BEGIN, 630, a, 50, 0x100000, 0);	/* at EOF: no end */
	pcev(PC_EV_WB_MARK, 630, a, 51, 0, 1);
	queue(630, "python3", a, 7000, 392, BLK_OP_WRITE, BLK_F_SYNC);
	ck_assert_uint_eq(file(a, 50)->tot.read_bytes, 2048 * 512);
	ck_assert_uint_eq(file(a, 50)->tot.direct_bytes, 2048 * 512);
	ck_assert_uint_eq(file(a, 50)->tot.write_bytes, 0);
	ck_assert_uint_eq(file(a, 51)->tot.write_bytes, 392 * 512);
	ck_assert_uint_eq(file(a, 51)->tot.direct_bytes, 0);
}
END_TEST

/*
 * A kernel without iomap_dio_rw_begin (6.1): iomap_iter with IOMAP_DIRECT,
 * one per extent, marks the task's direct I/O; buffered iomap_iter (xfs)
 * and the task's next buffered read end it.
 */
START_TEST(direct_io_from_iomap_iter)
{
	const uint32_t a = MKDEV(7, 0);
	struct blk_event it = { .kind = PC_EV_DIO_ITER, .pid = 620, .dev = a, .aux_sector = 40,
				.count = PC_IOMAP_DIRECT | 1 };

	feed(&it);
	queue(620, "dd", a, 4096, 2048, BLK_OP_WRITE, BLK_F_SYNC);
	feed(&it);
	queue(620, "dd", a, 6144, 2048, BLK_OP_WRITE, BLK_F_SYNC);
	ck_assert_uint_eq(file(a, 40)->tot.write_bytes, 4096 * 512);
	ck_assert_uint_eq(file(a, 40)->tot.direct_bytes, 4096 * 512);

	/* a buffered read of another file: its lookup ends the window */
	pcev(PC_EV_GET_PAGES, 620, a, 41, 0, 1);
	queue(620, "dd", a, 8192, 8, BLK_OP_READ, 0);
	ck_assert_uint_eq(file(a, 40)->tot.read_bytes, 0);

	/* buffered iomap_iter: no direct I/O */
	it.count = 1;
	it.aux_sector = 42;
	feed(&it);
	queue(620, "dd", a, 9000, 8, BLK_OP_WRITE, 0);
	ck_assert_ptr_null(file(a, 42));
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->write_bytes, 8 * 512);
}
END_TEST

/*
 * ext4 on a partition: its bio is remapped to the disk, then queued there
 * ("A 7,1 2056 <- (259,0) 8", "Q 7,1 2056"). The partition is the
 * filesystem's device; the tracker's tree starts at the remap.
 */
START_TEST(partition)
{
	const uint32_t b = MKDEV(259, 0);
	struct tk_rec root = { .dev = b };
	struct tk_io io = { .root = &root, .recs = &root, .nrecs = 1, .top = true };

	pcev(PC_EV_ADD, 600, b, 5, 0, 1);
	root.q = remap(600, MKDEV(7, 1), 2056, b, 8);
	queue(600, "cat", MKDEV(7, 1), 2056, 8, BLK_OP_READ, BLK_F_RAHEAD);
	root.c = root.q + 250000;
	pagecache_io(pc, &io);

	ck_assert_uint_eq(file(b, 5)->tot.read_bytes, 4096);
	ck_assert_uint_eq(file(b, 5)->tot.lat_n, 1);
	ck_assert_uint_eq(file(b, 5)->tot.lat_sum, 250000);
	ck_assert_uint_eq(file(b, 5)->tot.lat_max, 250000);
	/* a second completion of the same tree finds nothing pending */
	pagecache_io(pc, &io);
	ck_assert_uint_eq(file(b, 5)->tot.lat_n, 1);
}
END_TEST

/*
 * A bio split at the disk ("Q 7,0 19686 + 2048", "X 19686 / 20710"): the
 * tracker hands out each piece as a tree of its own, with the bio's queue
 * time, completing in any order. Every piece is the file's.
 */
START_TEST(split_pieces_keep_the_file)
{
	const uint32_t a = MKDEV(7, 0);
	struct tk_rec piece = { .dev = a, .splits = 1 }, rest = { .dev = a, .split_rest = true };
	struct tk_io io1 = { .root = &rest, .recs = &rest, .nrecs = 1, .top = true };
	struct tk_io io2 = { .root = &piece, .recs = &piece, .nrecs = 1, .top = true };

	pcev(PC_EV_ADD, 800, a, 16, 0, 256);
	piece.q = rest.q = queue(800, "python3", a, 19686, 2048, BLK_OP_READ, BLK_F_RAHEAD);
	piece.c = piece.q + 5000;
	rest.c = rest.q + 4000;
	/* the remainder completes first: it takes the pending entry */
	ck_assert_int_eq(pagecache_io(pc, &io1), 0);
	ck_assert_int_eq(pagecache_io(pc, &io2), 0);
	ck_assert_uint_eq(file(a, 16)->tot.lat_n, 2);
	ck_assert_uint_eq(file(a, 16)->tot.lat_max, 5000);
	/* an unsplit tree of another queue time is still nobody's */
	piece.q += 1;
	piece.splits = 0;
	ck_assert_int_eq(pagecache_io(pc, &io2), PC_OWNER_NONE);
}
END_TEST

/* xfs on dm-0 over sda: the bio queued again on sda is the same bytes. */
START_TEST(stacked_device_counted_once)
{
	const uint32_t d = MKDEV(254, 0);
	struct tk_rec root = { .dev = d };
	struct tk_io io = { .root = &root, .recs = &root, .nrecs = 1, .top = true };

	pcev(PC_EV_ADD, 700, d, 6, 0, 2);
	root.q = queue(700, "cat", d, 100, 16, BLK_OP_READ, 0);
	remap(700, MKDEV(8, 0), 2148, d, 100);
	queue(700, "cat", MKDEV(8, 0), 2148, 16, BLK_OP_READ, 0);
	root.c = root.q + 1000;
	pagecache_io(pc, &io);

	ck_assert_uint_eq(file(d, 6)->tot.read_bytes, 16 * 512);
	ck_assert_uint_eq(file(d, 6)->tot.read_ios, 1);
	ck_assert_uint_eq(file(d, 6)->tot.lat_n, 1);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_RAW)->read_bytes, 0);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->read_bytes, 0);
}
END_TEST

/* What is no file's is named, never dropped. */
START_TEST(categories)
{
	const uint32_t a = MKDEV(7, 0);

	queue(1, "jbd2/loop0-8", a, 10, 8, BLK_OP_WRITE, BLK_F_META);
	queue(2, "ls", a, 20, 8, BLK_OP_READ, BLK_F_META);
	queue(3, "kswapd0", MKDEV(7, 4), 30, 8, BLK_OP_WRITE, 0);
	queue(4, "dd", MKDEV(7, 5), 40, 8, BLK_OP_WRITE, 0);
	queue(5, "x", a, 50, 8, BLK_OP_READ, 0);
	/* a reader's REQ_META bio (an extent block) is metadata, not the file */
	pcev(PC_EV_ADD, 6, a, 10, 0, 1);
	queue(6, "cat", a, 60, 8, BLK_OP_READ, BLK_F_META);
	/* flushes and discards are no bytes of anyone's */
	queue(7, "x", a, 0, 0, BLK_OP_FLUSH, BLK_F_PREFLUSH);
	queue(7, "x", a, 0, 64, BLK_OP_DISCARD, 0);

	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_JOURNAL)->write_bytes, 4096);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_METADATA)->read_bytes, 8192);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_SWAP)->write_bytes, 4096);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_RAW)->write_bytes, 4096);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->read_bytes, 4096);
	ck_assert_uint_eq(file(a, 10)->tot.read_bytes, 0);
	ck_assert_str_eq(pc_cat_name(PC_CAT_SWAP), "swap");
}
END_TEST

/*
 * Without iomap's direct-I/O events (a kernel before 5.15, or a recording
 * made without them), direct I/O of a file cannot be given to its file:
 * a read that filled no page and a sync write outside writeback are
 * "direct", not "raw" nor "unattributed"; a plain write with no context
 * stays unattributed, and the device without a filesystem is raw.
 */
START_TEST(direct_without_iomap_events)
{
	const uint32_t a = MKDEV(7, 0);

	pagecache_set_source(pc, true, false);
	queue(900, "fio", a, 100, 128, BLK_OP_READ, BLK_F_SYNC);
	queue(900, "fio", a, 300, 64, BLK_OP_WRITE, BLK_F_SYNC);
	queue(901, "x", a, 500, 8, BLK_OP_WRITE, 0);
	queue(902, "dd", MKDEV(7, 5), 40, 8, BLK_OP_WRITE, BLK_F_SYNC);

	ck_assert_str_eq(pc_cat_name(PC_CAT_DIRECT), "direct");
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_DIRECT)->read_bytes, 128 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_DIRECT)->write_bytes, 64 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_DIRECT)->direct_bytes, 192 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->write_bytes, 8 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_RAW)->write_bytes, 8 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_RAW)->read_bytes, 0);
}
END_TEST

/*
 * A recording of another machine: this machine's mounts say nothing of its
 * devices, so a device they do not know is not "raw": its direct I/O is
 * direct, the rest unattributed.
 */
START_TEST(recording_devices_not_raw)
{
	const uint32_t other = MKDEV(253, 7);

	pagecache_set_source(pc, false, false);
	queue(910, "fio", other, 100, 16, BLK_OP_READ, BLK_F_SYNC);
	queue(910, "x", other, 300, 8, BLK_OP_WRITE, 0);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_RAW)->read_bytes +
			  pagecache_cat(pc, PC_CAT_RAW)->write_bytes, 0);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_DIRECT)->read_bytes, 16 * 512);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->write_bytes, 8 * 512);
	/* with iomap's events, what no event explains is unattributed */
	pagecache_set_source(pc, false, true);
	queue(911, "fio", other, 500, 16, BLK_OP_READ, BLK_F_SYNC);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_UNATTRIBUTED)->read_bytes, 16 * 512);
}
END_TEST

/*
 * Without iomap's events, a direct read that follows a read of filesystem
 * metadata through the block device's page cache (ext4 reads a file's
 * extent block so, first): the metadata read takes the page it inserted,
 * the direct read after it is direct, not metadata.
 */
START_TEST(direct_read_after_metadata_read)
{
	const uint32_t bdevfs = MKDEV(0, 3);

	pagecache_set_source(pc, true, false);
	pcev(PC_EV_ADD, 820, bdevfs, MKDEV(7, 0), 10, 1);
	queue(820, "dd", MKDEV(7, 0), 80, 8, BLK_OP_READ, 0);
	queue(820, "dd", MKDEV(7, 0), 4096, 128, BLK_OP_READ, BLK_F_SYNC);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_METADATA)->read_bytes, 4096);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_DIRECT)->read_bytes, 128 * 512);
}
END_TEST

/*
 * A block device's own page cache (superblock "bdev", mounted nowhere,
 * inode number = the device's dev_t): dd from a bare device is raw access,
 * a filesystem's buffers on its device are metadata. Neither is a file.
 */
START_TEST(block_device_page_cache)
{
	const uint32_t bdevfs = MKDEV(0, 3);
	size_t n;

	pcev(PC_EV_ADD, 800, bdevfs, MKDEV(7, 5), 0, 1);
	queue(800, "dd", MKDEV(7, 5), 0, 8, BLK_OP_READ, 0);
	pcev(PC_EV_ADD, 801, bdevfs, MKDEV(7, 0), 10, 1);
	queue(801, "ext4lazyinit", MKDEV(7, 0), 80, 8, BLK_OP_READ, 0);
	wbev(PC_EV_WB_START, 802, "7:0", MKDEV(7, 0));
	queue(802, "kworker/u8:0", MKDEV(7, 0), 88, 8, BLK_OP_WRITE, 0);
	wbev(PC_EV_WB_DIRTY, 803, "7:0", MKDEV(7, 0));

	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_RAW)->read_bytes, 4096);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_METADATA)->read_bytes, 4096);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_METADATA)->write_bytes, 4096);
	pagecache_files(pc, &n);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(evictions_and_intervals)
{
	const uint32_t a = MKDEV(7, 0);

	pcev(PC_EV_ADD, 100, a, 10, 0, 16);
	pagecache_interval_reset(pc);
	pcev(PC_EV_DELETE, 1, a, 10, 0, 4);
	pcev(PC_EV_DELETE, 1, a, 10, 4, 1);
	pcev(PC_EV_DELETE, 1, a, 99, 0, 1);
	ck_assert_uint_eq(file(a, 10)->tot.evicted, 5);
	ck_assert_uint_eq(file(a, 10)->iv.evicted, 5);
	ck_assert_uint_eq(file(a, 10)->tot.misses, 16);
	ck_assert_uint_eq(file(a, 10)->iv.misses, 0);
	ck_assert_uint_eq(file(a, 99)->tot.evicted, 1);
}
END_TEST

static struct pc_log_range logged[16];
static size_t nlogged;

static void log_fn(const struct pc_log_range *r, void *ctx)
{
	(void)ctx;
	ck_assert_uint_lt(nlogged, 16);
	logged[nlogged++] = *r;
}

/* Consecutive insertions of one task into one file make one run. */
START_TEST(log_runs)
{
	const uint32_t a = MKDEV(7, 0);

	nlogged = 0;
	pagecache_set_log(pc, log_fn, NULL);
	pcev(PC_EV_RA_SYNC, 100, a, 10, 0, 8);
	pcev(PC_EV_ADD, 100, a, 10, 0, 1);
	pcev(PC_EV_ADD, 200, a, 11, 7, 1);	/* another task between: no effect */
	pcev(PC_EV_ADD, 100, a, 10, 1, 1);
	pcev(PC_EV_ADD, 100, a, 10, 2, 4);	/* a folio of 4 pages */
	queue(100, "cat", a, 0, 48, BLK_OP_READ, 0);
	pcev(PC_EV_GET_PAGES, 100, a, 10, 0, 6);	/* read() takes them: readahead over */
	pcev(PC_EV_ADD, 100, a, 10, 50, 1);	/* no readahead now, elsewhere */
	pagecache_flush_log(pc);

	ck_assert_uint_eq(nlogged, 3);
	ck_assert_uint_eq(logged[0].ino, 10);
	ck_assert_uint_eq(logged[0].first, 0);
	ck_assert_uint_eq(logged[0].last, 5);
	ck_assert_uint_eq(logged[0].ra, PC_EV_RA_SYNC);
	ck_assert_int_eq(logged[0].pid, 100);
	ck_assert_uint_eq(logged[1].ino, 10);
	ck_assert_uint_eq(logged[1].first, 50);
	ck_assert_uint_eq(logged[1].ra, 0);
	ck_assert_uint_eq(logged[2].ino, 11);
	ck_assert_uint_eq(logged[2].first, 7);
	ck_assert_uint_eq(logged[2].last, 7);
}
END_TEST

/* read() asks again for the page it stopped in: counted once. */
START_TEST(lookups_counted_once)
{
	const uint32_t a = MKDEV(7, 0);

	pcev(PC_EV_GET_PAGES, 100, a, 10, 0, 32);	/* 0..31 */
	pcev(PC_EV_GET_PAGES, 100, a, 10, 31, 1);	/* 31..31 again */
	pcev(PC_EV_GET_PAGES, 100, a, 10, 32, 32);	/* 32..63 */
	pcev(PC_EV_GET_PAGES, 100, a, 10, 33, 31);	/* 33..63 again */
	pcev(PC_EV_FAULT, 100, a, 10, 100, 1);
	pcev(PC_EV_GET_PAGES, 100, a, 10, 0, 2);	/* reading again from the start */
	ck_assert_uint_eq(file(a, 10)->tot.lookups, 64 + 1 + 2);
}
END_TEST

/* The tracker hands every tree: only the attributed ones find their file. */
START_TEST(latency_only_for_attributed)
{
	const uint32_t a = MKDEV(7, 0);
	struct tk_rec root = { .dev = a };
	struct tk_io io = { .root = &root, .recs = &root, .nrecs = 1, .top = true };

	pcev(PC_EV_ADD, 100, a, 10, 0, 1);
	root.q = queue(100, "cat", a, 0, 8, BLK_OP_READ, 0);
	root.c = root.q + 3000;
	/* the owner of each I/O, as convert's rows name it */
	ck_assert_int_eq(pagecache_io(pc, &io), 0);	/* the first file */
	root.q += 5;	/* a tree that was never queued as ours */
	ck_assert_int_eq(pagecache_io(pc, &io), PC_OWNER_NONE);
	root.q = queue(9, "jbd2/loop0-8", a, 100, 8, BLK_OP_WRITE, 0);
	root.c = root.q + 7000;
	ck_assert_int_eq(pagecache_io(pc, &io), PC_OWNER_CAT(PC_CAT_JOURNAL));
	ck_assert(PC_OWNER_IS_CAT(PC_OWNER_CAT(PC_CAT_JOURNAL)));
	ck_assert(PC_OWNER_IS_CAT(PC_OWNER_CAT(PC_CAT_UNATTRIBUTED)));
	ck_assert(!PC_OWNER_IS_CAT(PC_OWNER_NONE));
	ck_assert_int_eq(PC_OWNER_TO_CAT(PC_OWNER_CAT(PC_CAT_SWAP)), PC_CAT_SWAP);
	ck_assert_uint_eq(file(a, 10)->tot.lat_n, 1);
	ck_assert_uint_eq(file(a, 10)->tot.lat_sum, 3000);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_JOURNAL)->lat_n, 1);
	ck_assert_uint_eq(pagecache_cat(pc, PC_CAT_JOURNAL)->lat_max, 7000);
}
END_TEST

/* New files are handed out once, with the task that touched them. */
START_TEST(new_files)
{
	struct pc_new out[4];

	pcev(PC_EV_ADD, 100, MKDEV(7, 0), 10, 0, 1);
	pcev(PC_EV_ADD, 100, MKDEV(7, 0), 10, 1, 1);
	pcev(PC_EV_DELETE, 200, MKDEV(7, 0), 11, 0, 1);
	ck_assert_uint_eq(pagecache_take_new(pc, out, 1), 1);
	ck_assert_uint_eq(out[0].ino, 10);
	ck_assert_int_eq(out[0].pid, 100);
	ck_assert_uint_eq(pagecache_take_new(pc, out, 4), 1);
	ck_assert_uint_eq(out[0].ino, 11);
	ck_assert_uint_eq(pagecache_take_new(pc, out, 4), 0);
}
END_TEST

START_TEST(bdi_names)
{
	ck_assert_uint_eq(pc_bdi_dev("254:0"), MKDEV(254, 0));
	ck_assert_uint_eq(pc_bdi_dev("7:12"), MKDEV(7, 12));
	ck_assert_uint_eq(pc_bdi_dev("btrfs-1"), 0);
	ck_assert_uint_eq(pc_bdi_dev("7:"), 0);
	ck_assert_uint_eq(pc_bdi_dev("7:1x"), 0);
	ck_assert_uint_eq(pc_bdi_dev(""), 0);
}
END_TEST

/* Many files and tasks: the tables grow and keep every entry. */
START_TEST(many_files)
{
	for (int i = 0; i < 5000; i++) {
		pcev(PC_EV_ADD, 1000 + i % 700, MKDEV(7, 0), 100000 + i, 0, 1);
		queue(1000 + i % 700, "w", MKDEV(7, 0), i * 8, 8, BLK_OP_READ, 0);
	}
	for (int i = 0; i < 5000; i++)
		ck_assert_uint_eq(file(MKDEV(7, 0), 100000 + i)->tot.read_bytes, 4096);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pagecache");
	TCase *tc = tcase_create("attribution");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, interleaved_tasks);
	tcase_add_test(tc, readahead_across_two_files);
	tcase_add_test(tc, flusher_writes_several_inodes);
	tcase_add_test(tc, fsync_writes);
	tcase_add_test(tc, direct_io);
	tcase_add_test(tc, direct_write_after_insert);
	tcase_add_test(tc, direct_read_after_insert);
	tcase_add_test(tc, direct_io_from_iomap_iter);
	tcase_add_test(tc, direct_read_at_eof_then_fsync);
	tcase_add_test(tc, partition);
	tcase_add_test(tc, split_pieces_keep_the_file);
	tcase_add_test(tc, stacked_device_counted_once);
	tcase_add_test(tc, categories);
	tcase_add_test(tc, block_device_page_cache);
	tcase_add_test(tc, direct_read_after_metadata_read);
	tcase_add_test(tc, evictions_and_intervals);
	tcase_add_test(tc, log_runs);
	tcase_add_test(tc, lookups_counted_once);
	tcase_add_test(tc, latency_only_for_attributed);
	tcase_add_test(tc, new_files);
	tcase_add_test(tc, bdi_names);
	tcase_add_test(tc, many_files);
	tcase_add_test(tc, direct_without_iomap_events);
	tcase_add_test(tc, recording_devices_not_raw);
	suite_add_tcase(s, tc);
	return check_run(s);
}
