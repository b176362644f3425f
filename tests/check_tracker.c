// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_tracker.c - the stack tracker, one scenario per known kernel
 * behaviour (DESIGN.md), each an event sequence as the kernel emits it,
 * and a replay of every real dm-stack recording in tests/fixtures/vm.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "format/tracefile.h"
#include "track/topo-record.h"
#include "track/tracker.h"

#define DM(n)	KDEV_MKDEV(253, n)
#define SDA	KDEV_MKDEV(8, 0)
#define SDA1	KDEV_MKDEV(8, 1)
#define SDB	KDEV_MKDEV(8, 16)
#define SDB1	KDEV_MKDEV(8, 17)

/* Completed trees, copied out of the callback. */
#define MAX_TREES 16
#define MAX_RECS 16

struct tree_copy {
	struct tk_io io;
	struct tk_rec recs[MAX_RECS];
};

static struct tree_copy trees[MAX_TREES];
static int ntrees;
static struct tracker *t;
static uint64_t now;

static void collect(const struct tk_io *io, void *ctx)
{
	struct tree_copy *c;

	(void)ctx;
	ck_assert_int_lt(ntrees, MAX_TREES);
	ck_assert_int_le(io->nrecs, MAX_RECS);
	c = &trees[ntrees++];
	c->io = *io;
	memcpy(c->recs, io->recs, io->nrecs * sizeof(*io->recs));
	c->io.recs = c->recs;
	c->io.root = c->recs;
}

static void setup(void)
{
	ntrees = 0;
	now = 1000;
	t = tracker_alloc(NULL, collect, NULL);
	ck_assert_ptr_nonnull(t);
}

static void teardown(void)
{
	tracker_free(t);
}

/* Feed one event, 10 ns after the previous one. */
static void feed(enum blk_kind kind, uint32_t dev, uint64_t sector, uint32_t n, const char *rwbs)
{
	struct blk_event ev = {
		.kind = kind, .dev = dev, .sector = sector, .nr_sector = n,
		.bytes = n * 512, .ts = (now += 10), .pid = 100,
	};

	strcpy(ev.comm, "app");
	blk_rwbs_parse(rwbs, strlen(rwbs), &ev.op, &ev.flags);
	tracker_event(&ev, t);
}

static void remap(uint32_t to, uint64_t sector, uint32_t n, uint32_t from, uint64_t old,
		  const char *rwbs)
{
	struct blk_event ev = {
		.kind = BLK_EV_BIO_REMAP, .dev = to, .sector = sector, .nr_sector = n,
		.old_dev = from, .aux_sector = old, .ts = (now += 10), .pid = 200,
	};

	strcpy(ev.comm, "kworker");
	blk_rwbs_parse(rwbs, strlen(rwbs), &ev.op, &ev.flags);
	tracker_event(&ev, t);
}

/* block_rq_remap: request-based dm clones its request at @old onto path @to. */
static void rq_remap(uint32_t to, uint64_t sector, uint32_t n, uint32_t from, uint64_t old,
		     const char *rwbs)
{
	struct blk_event ev = {
		.kind = BLK_EV_RQ_REMAP, .dev = to, .sector = sector, .nr_sector = n,
		.old_dev = from, .aux_sector = old, .ts = (now += 10), .pid = 200,
	};

	strcpy(ev.comm, "kworker");
	blk_rwbs_parse(rwbs, strlen(rwbs), &ev.op, &ev.flags);
	tracker_event(&ev, t);
}

/* Feed a request's life at a request-based leaf: Q, G, D, C. */
static void leaf_io(uint32_t dev, uint64_t sector, uint32_t n, const char *rwbs)
{
	feed(BLK_EV_BIO_QUEUE, dev, sector, n, rwbs);
	feed(BLK_EV_GETRQ, dev, sector, n, rwbs);
	feed(BLK_EV_RQ_ISSUE, dev, sector, n, rwbs);
	feed(BLK_EV_RQ_COMPLETE, dev, sector, n, rwbs);
}

static const struct tk_rec *rec_of(const struct tree_copy *c, uint32_t dev)
{
	for (size_t i = 0; i < c->io.nrecs; i++)
		if (c->recs[i].dev == dev)
			return &c->recs[i];
	return NULL;
}

/* Every record: parents before children, times in order, all seen. */
static void check_tree_shape(const struct tree_copy *c)
{
	for (size_t i = 0; i < c->io.nrecs; i++) {
		const struct tk_rec *r = &c->recs[i];

		if (i == 0) {
			ck_assert_int_eq(r->parent, -1);
			ck_assert_int_eq(r->depth, 0);
		} else {
			ck_assert_int_ge(r->parent, 0);
			ck_assert_int_lt(r->parent, (int)i);
			ck_assert_int_eq(r->depth, c->recs[r->parent].depth + 1);
			ck_assert_uint_eq(r->parent_dev, c->recs[r->parent].dev);
		}
		ck_assert(r->complete);
		ck_assert_uint_gt(r->q, 0);
		ck_assert_uint_ge(r->c, r->q);
		if (r->down)
			ck_assert_uint_ge(r->down, r->q);
		if (r->up)
			ck_assert_uint_ge(r->c, r->up);
	}
}

/* A bio on a request-based disk: Q, G, I, D, C and the btt phases. */
START_TEST(request_based_leaf)
{
	feed(BLK_EV_BIO_QUEUE, SDA, 100, 8, "W");	/* 1010 */
	feed(BLK_EV_GETRQ, SDA, 100, 8, "W");		/* 1020 */
	feed(BLK_EV_RQ_INSERT, SDA, 100, 8, "W");	/* 1030 */
	feed(BLK_EV_RQ_ISSUE, SDA, 100, 8, "W");	/* 1040 */
	feed(BLK_EV_RQ_COMPLETE, SDA, 100, 8, "W");	/* 1050 */
	ck_assert_int_eq(ntrees, 1);
	ck_assert(trees[0].io.top);
	ck_assert(trees[0].io.matched);
	ck_assert_str_eq(trees[0].io.comm, "app");
	check_tree_shape(&trees[0]);
	ck_assert_int_eq(trees[0].recs[0].kind, TK_LAYER_REQUEST);
	ck_assert_uint_eq(trees[0].recs[0].q, 1010);
	ck_assert_uint_eq(trees[0].recs[0].g, 1020);
	ck_assert_uint_eq(trees[0].recs[0].i, 1030);
	ck_assert_uint_eq(trees[0].recs[0].d, 1040);
	ck_assert_uint_eq(trees[0].recs[0].down, 1040);
	ck_assert_uint_eq(trees[0].recs[0].up, 1050);
	ck_assert_uint_eq(trees[0].recs[0].c, 1050);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/*
 * The kinds a reader may leave bare (tracefile_bare_kinds()) are those no
 * rule takes: their fields, whatever they hold, change nothing.
 */
START_TEST(bare_kinds_have_no_rule)
{
	static const enum blk_kind rules[] = {
		BLK_EV_BIO_QUEUE, BLK_EV_BIO_REMAP, BLK_EV_SPLIT, BLK_EV_BIO_COMPLETE,
		BLK_EV_GETRQ, BLK_EV_BIO_BACKMERGE, BLK_EV_BIO_FRONTMERGE, BLK_EV_RQ_MERGE,
		BLK_EV_RQ_INSERT, BLK_EV_RQ_ISSUE, BLK_EV_RQ_REQUEUE, BLK_EV_RQ_COMPLETE,
	};
	uint64_t bare = tracker_bare_kinds();

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		ck_assert_msg(!(bare & (1ULL << rules[i])), "kind %d is bare", rules[i]);
	ck_assert(bare & (1ULL << BLK_EV_PLUG));
	ck_assert(bare & (1ULL << BLK_EV_UNPLUG));
	ck_assert(bare & (1ULL << BLK_EV_IO_START));
	ck_assert(bare & (1ULL << BLK_EV_IO_DONE));
	ck_assert(!(bare & 1ULL));
	ck_assert(!(bare >> BLK_EV_KIND_MAX));
	/* bare events that look like every step of the bio in flight */
	feed(BLK_EV_BIO_QUEUE, SDA, 100, 8, "W");
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++)
		if (bare & (1ULL << k))
			feed(k, SDA, 100, 8, "W");
	feed(BLK_EV_GETRQ, SDA, 100, 8, "W");
	feed(BLK_EV_RQ_ISSUE, SDA, 100, 8, "W");
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++)
		if (bare & (1ULL << k))
			feed(k, SDA, 100, 8, "W");
	feed(BLK_EV_RQ_COMPLETE, SDA, 100, 8, "W");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_uint_eq(trees[0].io.nrecs, 1);
	ck_assert(trees[0].io.matched);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_rq, 0);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/* DESIGN 1: identical keys in flight at once complete in arrival order. */
START_TEST(identical_keys_in_order)
{
	feed(BLK_EV_BIO_QUEUE, DM(0), 64, 8, "R");	/* 1010: first */
	feed(BLK_EV_BIO_QUEUE, DM(0), 64, 8, "R");	/* 1020: second, same key */
	feed(BLK_EV_BIO_COMPLETE, DM(0), 64, 8, "R");	/* 1030 */
	ck_assert_int_eq(ntrees, 1);
	ck_assert_uint_eq(trees[0].recs[0].q, 1010);
	feed(BLK_EV_BIO_COMPLETE, DM(0), 64, 8, "R");	/* 1040 */
	ck_assert_int_eq(ntrees, 2);
	ck_assert_uint_eq(trees[1].recs[0].q, 1020);
	ck_assert_uint_eq(trees[1].recs[0].c, 1040);
}
END_TEST

/*
 * DESIGN 2: a remap into a partition names the whole disk with the
 * partition-relative sector, then the partition remaps to the disk.
 */
START_TEST(partition_double_remap)
{
	feed(BLK_EV_BIO_QUEUE, DM(1), 55680, 128, "W");
	remap(SDB, 29824, 128, DM(1), 55680, "W");
	remap(SDB, 33920, 128, SDB1, 29824, "W");
	leaf_io(SDB, 33920, 128, "W");
	ck_assert_int_eq(ntrees, 0);			/* the dm bio is not done */
	feed(BLK_EV_BIO_COMPLETE, DM(1), 55680, 128, "W");
	ck_assert_int_eq(ntrees, 1);
	check_tree_shape(&trees[0]);
	ck_assert_int_eq(trees[0].io.nrecs, 3);
	ck_assert_uint_eq(trees[0].recs[1].dev, SDB1);	/* moved to the partition */
	ck_assert_int_eq(trees[0].recs[1].kind, TK_LAYER_REMAP);
	ck_assert_uint_eq(trees[0].recs[2].dev, SDB);
	ck_assert_uint_eq(trees[0].recs[2].parent_dev, SDB1);
	/* the partition completes with its child */
	ck_assert_uint_eq(trees[0].recs[1].c, trees[0].recs[2].c);
	/* the disk was entered at the remap; its queue event (btt's Q) is later */
	ck_assert_uint_gt(trees[0].recs[2].qev, trees[0].recs[2].q);
	ck_assert_uint_eq(trees[0].recs[1].qev, 0);	/* the partition has none */
	ck_assert_uint_gt(trees[0].recs[0].qev, 0);	/* the dm bio's own Q */
	ck_assert(trees[0].io.matched);
	ck_assert(tracker_roles(t, SDB1) & TK_ROLE_LOWER);
	ck_assert(tracker_roles(t, SDB1) & TK_ROLE_REMAP_ONLY);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_remap, 0);
}
END_TEST

/* I/O submitted to a partition enters the trace at its remap to the disk. */
START_TEST(io_on_partition)
{
	remap(SDA, 2048 + 8, 8, SDA1, 8, "R");
	leaf_io(SDA, 2056, 8, "R");
	ck_assert_int_eq(ntrees, 1);
	ck_assert(trees[0].io.top);
	ck_assert(trees[0].io.matched);
	ck_assert_uint_eq(trees[0].recs[0].dev, SDA1);
	ck_assert_int_eq(trees[0].recs[0].kind, TK_LAYER_REMAP);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_remap, 0);
}
END_TEST

/* DESIGN 3: back and front merges name no request: found by adjacency. */
START_TEST(back_and_front_merges)
{
	feed(BLK_EV_BIO_QUEUE, SDA, 100, 8, "W");
	feed(BLK_EV_GETRQ, SDA, 100, 8, "W");
	feed(BLK_EV_BIO_QUEUE, SDA, 108, 8, "W");
	feed(BLK_EV_BIO_BACKMERGE, SDA, 108, 8, "W");	/* ends where the rq ends */
	feed(BLK_EV_BIO_QUEUE, SDA, 92, 8, "W");
	feed(BLK_EV_BIO_FRONTMERGE, SDA, 92, 8, "W");	/* ends where it starts */
	feed(BLK_EV_RQ_ISSUE, SDA, 92, 24, "W");
	ck_assert_int_eq(ntrees, 0);
	feed(BLK_EV_RQ_COMPLETE, SDA, 92, 24, "W");
	ck_assert_int_eq(ntrees, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert(trees[i].io.matched);
		ck_assert_uint_gt(trees[i].recs[0].d, 0);
	}
	ck_assert_int_eq(trees[0].recs[0].merge, TK_MERGE_NONE);
	ck_assert_int_eq(trees[1].recs[0].merge, TK_MERGE_BACK);
	ck_assert_uint_gt(trees[1].recs[0].m, trees[1].recs[0].q);
	ck_assert_int_eq(trees[2].recs[0].merge, TK_MERGE_FRONT);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_rq, 0);
}
END_TEST

/*
 * DESIGN 4 and 5: a dm split reports sector == new_sector (the remainder);
 * pieces come from remaps (here the first before the split event), the
 * completion names the trimmed remainder with the same end, and the parent
 * fans out to two disks: its up time is its last child's completion.
 */
START_TEST(dm_split_fan_out)
{
	feed(BLK_EV_BIO_QUEUE, DM(0), 0, 128, "W");
	remap(SDA, 0, 64, DM(0), 0, "W");		/* first piece */
	feed(BLK_EV_SPLIT, DM(0), 64, 0, "W");		/* remainder at 64 */
	remap(SDB, 0, 64, DM(0), 64, "W");		/* second piece */
	feed(BLK_EV_BIO_QUEUE, SDB, 0, 64, "W");
	feed(BLK_EV_GETRQ, SDB, 0, 64, "W");
	feed(BLK_EV_BIO_QUEUE, SDA, 0, 64, "W");
	feed(BLK_EV_GETRQ, SDA, 0, 64, "W");
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 64, "W");
	feed(BLK_EV_RQ_ISSUE, SDB, 0, 64, "W");
	feed(BLK_EV_RQ_COMPLETE, SDB, 0, 64, "W");
	feed(BLK_EV_RQ_COMPLETE, SDA, 0, 64, "W");	/* the last piece */
	feed(BLK_EV_BIO_COMPLETE, DM(0), 64, 64, "W");	/* trimmed: 64 + 64 */
	ck_assert_int_eq(ntrees, 1);
	check_tree_shape(&trees[0]);
	ck_assert_int_eq(trees[0].io.nrecs, 3);
	ck_assert_int_eq(trees[0].recs[0].splits, 1);
	ck_assert_uint_eq(trees[0].recs[0].sectors, 128);
	ck_assert_uint_eq(trees[0].recs[0].up, rec_of(&trees[0], SDA)->c);
	ck_assert_uint_gt(rec_of(&trees[0], SDA)->c, rec_of(&trees[0], SDB)->c);
	ck_assert_uint_eq(trees[0].recs[0].down, rec_of(&trees[0], SDA)->q);
	ck_assert(trees[0].io.matched);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 0);
}
END_TEST

/*
 * The block layer splits a bio to a disk's limits: X names the piece and the
 * remainder's start; the remainder gets no queue event and its own request.
 */
static void split_feed(enum blk_kind kind, uint32_t dev, uint64_t sector, uint64_t new_sector)
{
	struct blk_event ev = { .kind = kind, .dev = dev, .sector = sector,
				.aux_sector = new_sector, .ts = (now += 10), .pid = 100 };

	blk_rwbs_parse("W", 1, &ev.op, &ev.flags);
	tracker_event(&ev, t);
}

START_TEST(block_layer_split_at_disk)
{
	remap(SDA, 22530, 4096, SDA1, 20482, "W");
	feed(BLK_EV_BIO_QUEUE, SDA, 22530, 4096, "W");
	split_feed(BLK_EV_SPLIT, SDA, 22530, 25090);
	feed(BLK_EV_GETRQ, SDA, 22530, 2560, "W");
	feed(BLK_EV_GETRQ, SDA, 25090, 1536, "W");
	feed(BLK_EV_RQ_ISSUE, SDA, 22530, 2560, "W");
	feed(BLK_EV_RQ_ISSUE, SDA, 25090, 1536, "W");
	feed(BLK_EV_RQ_COMPLETE, SDA, 22530, 2560, "W");
	ck_assert_int_eq(ntrees, 0);
	feed(BLK_EV_RQ_COMPLETE, SDA, 25090, 1536, "W");
	ck_assert_int_eq(ntrees, 1);
	check_tree_shape(&trees[0]);
	ck_assert(trees[0].io.matched);
	ck_assert_int_eq(trees[0].io.nrecs, 3);	/* partition, piece, remainder */
	ck_assert_uint_eq(trees[0].recs[1].sectors + trees[0].recs[2].sectors, 4096);
	ck_assert_uint_eq(trees[0].recs[1].splits, 1);
	ck_assert(!trees[0].recs[1].split_rest);
	ck_assert(trees[0].recs[2].split_rest);	/* no queue event of its own ... */
	ck_assert_uint_gt(trees[0].recs[1].qev, 0);
	ck_assert_uint_eq(trees[0].recs[2].qev, trees[0].recs[1].qev);	/* ... the bio's */
	ck_assert_uint_eq(trees[0].recs[0].up, trees[0].recs[2].c);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/* DESIGN 6: a request completes in parts; the dm bio above after it. */
START_TEST(partial_request_completion)
{
	feed(BLK_EV_BIO_QUEUE, DM(0), 0, 16, "R");
	remap(SDA, 1000, 16, DM(0), 0, "R");
	feed(BLK_EV_BIO_QUEUE, SDA, 1000, 16, "R");
	feed(BLK_EV_GETRQ, SDA, 1000, 16, "R");
	feed(BLK_EV_BIO_QUEUE, SDA, 1016, 16, "R");	/* a second, top-level bio */
	feed(BLK_EV_BIO_BACKMERGE, SDA, 1016, 16, "R");
	feed(BLK_EV_RQ_ISSUE, SDA, 1000, 32, "R");
	feed(BLK_EV_RQ_COMPLETE, SDA, 1000, 16, "R");	/* the front half */
	ck_assert_int_eq(ntrees, 0);			/* dm bio not complete yet */
	feed(BLK_EV_BIO_COMPLETE, DM(0), 0, 16, "R");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_uint_eq(trees[0].recs[0].dev, DM(0));
	feed(BLK_EV_RQ_COMPLETE, SDA, 1016, 16, "R");	/* the rest */
	ck_assert_int_eq(ntrees, 2);
	ck_assert_uint_eq(trees[1].recs[0].dev, SDA);
	ck_assert(trees[1].io.matched);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/* DESIGN 7: flush and FUA flags change on the way; identity ignores them. */
START_TEST(flags_change_on_the_way)
{
	feed(BLK_EV_BIO_QUEUE, DM(2), 184, 8, "FWFSM");
	remap(SDA, 184, 8, DM(2), 184, "WFSM");		/* preflush done above */
	feed(BLK_EV_BIO_QUEUE, SDA, 184, 8, "WSM");	/* FUA emulated below */
	feed(BLK_EV_GETRQ, SDA, 184, 8, "WSM");
	feed(BLK_EV_RQ_ISSUE, SDA, 184, 8, "WSM");
	feed(BLK_EV_RQ_COMPLETE, SDA, 184, 8, "WSM");
	/* the device's post-flush, then the zero-length end of the request */
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 0, "FF");
	feed(BLK_EV_RQ_COMPLETE, SDA, UINT64_MAX, 0, "FF");
	feed(BLK_EV_RQ_COMPLETE, SDA, 184, 0, "WSM");
	feed(BLK_EV_BIO_COMPLETE, DM(2), 184, 8, "WFSM");
	/* the dm write, and the device's own flush request */
	ck_assert_int_eq(ntrees, 2);
	ck_assert(!trees[0].io.top);			/* the flush: issued by sda */
	ck_assert_int_eq(trees[0].recs[0].op, BLK_OP_FLUSH);
	ck_assert(trees[1].io.top);
	ck_assert(trees[1].io.matched);
	ck_assert_int_eq(trees[1].io.nrecs, 2);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 0);
}
END_TEST

/* The thin volume remaps into its pool, the pool into the stripe: 3 layers. */
START_TEST(thin_through_pool)
{
	feed(BLK_EV_BIO_QUEUE, DM(2), 127104, 128, "WS");
	remap(DM(1), 16384, 128, DM(2), 127104, "WS");
	feed(BLK_EV_BIO_QUEUE, DM(1), 16384, 128, "WS");
	remap(DM(0), 16384, 128, DM(1), 16384, "WS");
	feed(BLK_EV_BIO_QUEUE, DM(0), 16384, 128, "WS");
	remap(SDA, 8192, 128, DM(0), 16384, "WS");
	remap(SDA, 10240, 128, SDA1, 8192, "WS");
	leaf_io(SDA, 10240, 128, "WS");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 16384, 128, "WS");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 16384, 128, "WS");
	feed(BLK_EV_BIO_COMPLETE, DM(2), 127104, 128, "WS");
	ck_assert_int_eq(ntrees, 1);
	check_tree_shape(&trees[0]);
	ck_assert_int_eq(trees[0].io.nrecs, 5);
	ck_assert_uint_eq(trees[0].recs[1].dev, DM(1));
	ck_assert_uint_eq(trees[0].recs[2].dev, DM(0));
	ck_assert_uint_eq(trees[0].recs[3].dev, SDA1);
	ck_assert_uint_eq(trees[0].recs[4].dev, SDA);
	ck_assert_int_eq(trees[0].recs[4].depth, 4);
	/* the originator is the top-level queue's, not the kworker's */
	ck_assert_int_eq(trees[0].io.pid, 100);
	ck_assert(trees[0].io.matched);
}
END_TEST

/* DESIGN 9: zeroing writes a pool issues itself are I/O of that layer. */
START_TEST(layer_issued_io)
{
	/* a remap into the pool makes it a lower layer */
	feed(BLK_EV_BIO_QUEUE, DM(2), 0, 8, "W");
	remap(DM(1), 0, 8, DM(2), 0, "W");
	feed(BLK_EV_BIO_QUEUE, DM(1), 0, 8, "W");
	/* a zeroing write queued on the pool by a kworker, no remap into it */
	feed(BLK_EV_BIO_QUEUE, DM(1), 16256, 128, "W");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 16256, 128, "W");
	ck_assert_int_eq(ntrees, 1);
	ck_assert(!trees[0].io.top);
	ck_assert_uint_eq(tracker_counters(t)->ios_layer, 1);
	/* metadata I/O on a disk no remap leads to: lower by topology */
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
	leaf_io(SDB, 8, 8, "WSM");
	ck_assert_int_eq(ntrees, 2);
	ck_assert(!trees[1].io.top);
}
END_TEST

/* DESIGN 10: lost completions expire; memory is capped. */
START_TEST(expiry_and_cap)
{
	struct tk_params p = { .max_inflight = 4, .timeout_ns = 1000000 };

	tracker_free(t);
	t = tracker_alloc(&p, collect, NULL);
	for (int i = 0; i < 6; i++)
		feed(BLK_EV_BIO_QUEUE, DM(0), i * 8, 8, "R");
	ck_assert_uint_eq(tracker_counters(t)->dropped_cap, 2);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 4);
	/* a completion for a bio never seen */
	feed(BLK_EV_BIO_COMPLETE, DM(0), 1000, 8, "R");
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 1);
	tracker_finish(t);
	ck_assert_uint_eq(tracker_counters(t)->expired, 4);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
	ck_assert_int_eq(ntrees, 0);
}
END_TEST

/*
 * The sweep is due at a time kept, not read from the oldest tree: when the
 * oldest completes, the next one still expires exactly a timeout after its
 * Q, never earlier; a plug or unplug never sweeps (a tree expires after an
 * event that could have completed it, never before).
 */
START_TEST(expiry_after_oldest_completes)
{
	struct tk_params p = { .timeout_ns = 1000 };
	uint64_t q_b;

	tracker_free(t);
	t = tracker_alloc(&p, collect, NULL);
	feed(BLK_EV_BIO_QUEUE, SDA, 0, 8, "R");		/* A: Q 1010, due 2010 */
	now += 300;
	feed(BLK_EV_BIO_QUEUE, SDA, 64, 8, "R");	/* B: Q 1320, due 2320 */
	q_b = now;
	feed(BLK_EV_GETRQ, SDA, 0, 8, "R");
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 8, "R");
	feed(BLK_EV_RQ_COMPLETE, SDA, 0, 8, "R");	/* A completes: B is the oldest */
	ck_assert_int_eq(ntrees, 1);
	now = q_b + 1000 - 11;
	feed(BLK_EV_GETRQ, SDA, 64, 8, "R");		/* one ns before B is due */
	ck_assert_uint_eq(tracker_counters(t)->expired, 0);
	now = q_b + 1000 - 10;
	feed(BLK_EV_PLUG, SDA, 0, 0, "N");		/* due: a plug does not sweep */
	ck_assert_uint_eq(tracker_counters(t)->expired, 0);
	now = q_b + 1000 - 10;
	feed(BLK_EV_RQ_ISSUE, SDA, 64, 8, "R");		/* the next event does, at due */
	ck_assert_uint_eq(tracker_counters(t)->expired, 1);
	ck_assert_uint_eq(tracker_counters(t)->expired_top, 1);
	/* a tree queued after the lists emptied is due a timeout after its Q */
	now += 2000;
	feed(BLK_EV_BIO_QUEUE, SDA, 128, 8, "R");	/* B is freed; C: Q now */
	ck_assert_uint_eq(tracker_counters(t)->inflight, 1);
	now += 1000 - 11;
	feed(BLK_EV_GETRQ, SDA, 128, 8, "R");
	ck_assert_uint_eq(tracker_counters(t)->expired, 1);
	feed(BLK_EV_RQ_ISSUE, SDA, 128, 8, "R");
	ck_assert_uint_eq(tracker_counters(t)->expired, 2);
	ck_assert_int_eq(ntrees, 1);
}
END_TEST

/*
 * A bio of an expired tree split at a disk: the remainder is a tree of its
 * own that entered with the bio (its Q), so it is due a timeout after that,
 * not after the split, though it is the only live tree.
 */
START_TEST(split_of_expired_bio_expires_in_time)
{
	struct tk_params p = { .timeout_ns = 1000 };
	struct blk_event split = { .kind = BLK_EV_SPLIT, .dev = SDA, .sector = 0,
				   .aux_sector = 8, .nr_sector = 16 };

	tracker_free(t);
	t = tracker_alloc(&p, collect, NULL);
	feed(BLK_EV_BIO_QUEUE, SDA, 0, 16, "R");		/* Q 1010, due 2010 */
	now = 2100;
	feed(BLK_EV_IO_START, SDA, 0, 16, "R");		/* sweeps: expired */
	ck_assert_uint_eq(tracker_counters(t)->expired, 1);
	split.ts = (now += 10);
	blk_rwbs_parse("R", 1, &split.op, &split.flags);
	tracker_event(&split, t);			/* the remainder: Q 1010 */
	ck_assert_uint_eq(tracker_counters(t)->inflight, 2);
	feed(BLK_EV_IO_START, SDA, 0, 8, "R");		/* 2120: past its due */
	ck_assert_uint_eq(tracker_counters(t)->expired, 2);
	ck_assert_int_eq(ntrees, 0);
}
END_TEST

/*
 * DESIGN 1 for requests: identical request keys at a disk are taken oldest
 * first (issue, completion), also after a request between them left.
 */
START_TEST(identical_requests_in_order)
{
	feed(BLK_EV_BIO_QUEUE, SDA, 0, 8, "R");		/* 1010: A */
	feed(BLK_EV_GETRQ, SDA, 0, 8, "R");
	feed(BLK_EV_BIO_QUEUE, SDA, 8, 8, "R");		/* 1030: B */
	feed(BLK_EV_GETRQ, SDA, 8, 8, "R");
	feed(BLK_EV_BIO_QUEUE, SDA, 16, 8, "R");	/* 1050: C */
	feed(BLK_EV_GETRQ, SDA, 16, 8, "R");
	feed(BLK_EV_BIO_QUEUE, SDA, 16, 8, "R");	/* 1070: D, C's key */
	feed(BLK_EV_GETRQ, SDA, 16, 8, "R");
	feed(BLK_EV_RQ_ISSUE, SDA, 8, 8, "R");
	feed(BLK_EV_RQ_COMPLETE, SDA, 8, 8, "R");	/* B leaves from before them */
	ck_assert_int_eq(ntrees, 1);
	ck_assert_uint_eq(trees[0].recs[0].q, 1030);
	feed(BLK_EV_RQ_ISSUE, SDA, 16, 8, "R");		/* 1110: C's request */
	feed(BLK_EV_RQ_ISSUE, SDA, 16, 8, "R");		/* 1120: D's */
	feed(BLK_EV_RQ_COMPLETE, SDA, 16, 8, "R");	/* 1130: C */
	ck_assert_int_eq(ntrees, 2);
	ck_assert_uint_eq(trees[1].recs[0].q, 1050);
	ck_assert_uint_eq(trees[1].recs[0].d, 1110);
	feed(BLK_EV_RQ_COMPLETE, SDA, 16, 8, "R");	/* 1140: D */
	ck_assert_int_eq(ntrees, 3);
	ck_assert_uint_eq(trees[2].recs[0].q, 1070);
	ck_assert_uint_eq(trees[2].recs[0].d, 1120);
	ck_assert_uint_eq(trees[2].recs[0].c, 1140);
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 8, "R");
	feed(BLK_EV_RQ_COMPLETE, SDA, 0, 8, "R");
	ck_assert_int_eq(ntrees, 4);
	ck_assert_uint_eq(trees[3].recs[0].q, 1010);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_rq, 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/*
 * Nodes are reused from a free list and initialised only in part: a bio
 * that follows a two-layer tree, merges and a scheduler's merge gets a
 * record of its own, with nothing of the nodes' earlier lives.
 */
START_TEST(reused_nodes_start_clean)
{
	tracker_set_role(t, DM(0), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(0), 64, 8, "W");
	remap(SDA, 64, 8, DM(0), 64, "W");
	feed(BLK_EV_BIO_QUEUE, SDA, 64, 8, "W");
	feed(BLK_EV_GETRQ, SDA, 64, 8, "W");
	feed(BLK_EV_RQ_INSERT, SDA, 64, 8, "W");
	feed(BLK_EV_BIO_QUEUE, SDA, 72, 8, "W");
	feed(BLK_EV_GETRQ, SDA, 72, 8, "W");
	feed(BLK_EV_RQ_MERGE, SDA, 72, 8, "W");		/* into the request at 64 */
	feed(BLK_EV_RQ_ISSUE, SDA, 64, 16, "W");
	feed(BLK_EV_RQ_COMPLETE, SDA, 64, 16, "W");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 64, 8, "W");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_int_eq(trees[1].io.nrecs, 2);
	ck_assert_int_eq(trees[1].recs[1].depth, 1);
	ck_assert(trees[0].recs[0].rq_merged);
	/* four bios at once take every node freed above */
	for (int k = 0; k < 4; k++)
		feed(BLK_EV_BIO_QUEUE, SDB, 800 + 8 * k, 8, "R");
	for (int k = 0; k < 4; k++) {
		feed(BLK_EV_GETRQ, SDB, 800 + 8 * k, 8, "R");
		feed(BLK_EV_RQ_ISSUE, SDB, 800 + 8 * k, 8, "R");
		feed(BLK_EV_RQ_COMPLETE, SDB, 800 + 8 * k, 8, "R");
	}
	ck_assert_int_eq(ntrees, 6);
	for (int k = 2; k < 6; k++) {
		const struct tk_rec *r = &trees[k].recs[0];

		ck_assert_int_eq(trees[k].io.nrecs, 1);
		check_tree_shape(&trees[k]);
		ck_assert(trees[k].io.top);
		ck_assert(trees[k].io.matched);
		ck_assert_uint_eq(trees[k].io.issuer, 0);
		ck_assert_str_eq(trees[k].io.comm, "app");
		ck_assert_uint_eq(r->dev, SDB);
		ck_assert_uint_eq(r->sector, 800 + 8 * (k - 2));
		ck_assert_uint_eq(r->parent_dev, 0);
		ck_assert_int_eq(r->kind, TK_LAYER_REQUEST);
		ck_assert_int_eq(r->merge, TK_MERGE_NONE);
		ck_assert_uint_eq(r->m + r->i + r->splits + r->requeues, 0);
		ck_assert(!r->rq_merged && !r->split_rest && !r->linked);
		ck_assert_int_eq(r->error, 0);
		ck_assert_uint_eq(r->qev, r->q);
		ck_assert_uint_gt(r->g, r->q);
	}
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/* ---- replay of the real recordings ---------------------------------- */

struct replay {
	uint64_t top, matched, rw, rw_matched, top_bytes, recs;
	bool shape_ok;
};

static void on_replay(const struct tk_io *io, void *ctx)
{
	struct replay *r = ctx;

	r->recs += io->nrecs;
	if (!io->top)
		return;
	r->top++;
	r->matched += io->matched;
	/* reads and writes of data: a layer may complete a discard or a flush itself */
	if ((io->root->op == BLK_OP_READ || io->root->op == BLK_OP_WRITE) && io->root->sectors) {
		r->rw++;
		r->rw_matched += io->matched;
	}
	r->top_bytes += (uint64_t)io->root->sectors * 512;
	for (size_t i = 1; i < io->nrecs; i++)
		if (io->recs[i].parent < 0 || (size_t)io->recs[i].parent >= i)
			r->shape_ok = false;
}

START_TEST(replay_vm_fixtures)
{
	DIR *dir = opendir(FIXTURES_DIR "/vm");
	struct dirent *de;
	int files = 0;

	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir))) {
		struct replay r = { .shape_ok = true };
		struct topo_record stack = { 0 };
		struct tracefile *f;
		struct tracker *tk;
		char path[4096];
		unsigned int line;
		int err;

		if (!strstr(de->d_name, ".dat"))
			continue;
		snprintf(path, sizeof(path), FIXTURES_DIR "/vm/%s", de->d_name);
		f = tracefile_open(path, &err);
		ck_assert_msg(f != NULL, "%s: %d", path, err);
		tk = tracker_alloc(NULL, on_replay, &r);
		/* as the commands do for a recording with no stack: a first pass */
		ck_assert_int_eq(tracefile_read(f, tracker_learn_event, tk), 0);
		tracefile_close(f);
		/* and with its stack (--topology): dm-thin completes its flushes itself */
		strcpy(strstr(path, ".dat"), ".topo");
		ck_assert_int_eq(topo_record_load(path, &stack, &line), 0);
		topo_record_mark_roles(&stack, tk);
		topo_record_free(&stack);
		snprintf(path, sizeof(path), FIXTURES_DIR "/vm/%s", de->d_name);
		f = tracefile_open(path, &err);
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(tracefile_read(f, tracker_event, tk), 0);
		tracker_finish(tk);
		/* at least 99% of top-level reads and writes followed to the disks */
		ck_assert_msg(r.rw > 0 && r.rw_matched * 100 >= r.rw * 99,
			      "%s: %llu of %llu reads and writes matched", de->d_name,
			      (unsigned long long)r.rw_matched, (unsigned long long)r.rw);
		ck_assert_msg(tracker_counters(tk)->expired == 0, "%s: expired", de->d_name);
		ck_assert_msg(tracker_counters(tk)->unmatched_complete == 0, "%s: unmatched",
			      de->d_name);
		ck_assert(r.shape_ok);
		tracker_free(tk);
		tracefile_close(f);
		files++;
	}
	closedir(dir);
	ck_assert_int_ge(files, 4);
}
END_TEST

/* dm sends a preflush write's empty flush naming sector 0 (6.12, dm-linear over md):
 * it is part of that write, never a top-level I/O of its own (issue 12, 1). */
START_TEST(dm_preflush_flush_names_sector_zero)
{
	tracker_set_role(t, DM(0), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(0), 4096, 8, "FWFS");
	remap(SDA, 0, 0, DM(0), 0, "FWFS");		/* the empty flush */
	feed(BLK_EV_BIO_QUEUE, SDA, 0, 0, "FWFS");
	feed(BLK_EV_GETRQ, SDA, 0, 0, "FWFS");
	feed(BLK_EV_RQ_ISSUE, SDA, UINT64_MAX, 0, "FN");	/* the flush machinery */
	feed(BLK_EV_RQ_COMPLETE, SDA, UINT64_MAX, 0, "FN");
	feed(BLK_EV_RQ_COMPLETE, SDA, 0, 0, "WS");	/* the empty bio's request */
	remap(SDA, 4096, 8, DM(0), 4096, "WFS");	/* the data, F cleared, by a worker */
	leaf_io(SDA, 4096, 8, "WFS");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 4096, 8, "WFS");
	/* the write, and the flush request the flush machinery made for it */
	ck_assert_int_eq(ntrees, 2);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_CAUSED);
	ck_assert_int_eq(trees[1].io.cls, TK_IO_TOP);
	ck_assert_int_eq(trees[1].io.nrecs, 3);
	ck_assert(trees[1].io.matched);
	ck_assert(tk_rec_is_flush(&trees[1].recs[1]));
	ck_assert(!tk_rec_is_flush(&trees[1].recs[0]));
	ck_assert_uint_eq(tracker_counters(t)->ios_top, 1);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_remap, 0);
}
END_TEST

/* md's superblock write on a leg before any remap into it: issued by the
 * layer, like the same write after the first remap (issue 17, 3). */
START_TEST(class_does_not_depend_on_timing)
{
	struct blk_event learn[] = {
		{ .kind = BLK_EV_BIO_QUEUE, .dev = SDB },
		{ .kind = BLK_EV_BIO_REMAP, .dev = SDB, .old_dev = DM(0) },
	};

	for (size_t i = 0; i < sizeof(learn) / sizeof(learn[0]); i++)
		tracker_learn_event(&learn[i], t);
	leaf_io(SDB, 8, 8, "WFSM");		/* superblock, before any remap */
	feed(BLK_EV_BIO_QUEUE, DM(0), 100, 8, "W");
	remap(SDB, 100, 8, DM(0), 100, "W");
	leaf_io(SDB, 100, 8, "W");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 100, 8, "W");
	leaf_io(SDB, 8, 8, "WFSM");		/* the same, after */
	ck_assert_int_eq(ntrees, 3);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_LAYER);
	ck_assert_int_eq(trees[1].io.cls, TK_IO_TOP);
	ck_assert_int_eq(trees[2].io.cls, TK_IO_LAYER);
}
END_TEST

/* A reset tracker knows nothing of before: roles, bios in flight, counters. */
START_TEST(reset_forgets_everything)
{
	struct blk_event learn = { .kind = BLK_EV_BIO_REMAP, .dev = SDB, .old_dev = DM(0) };

	tracker_learn_event(&learn, t);
	ck_assert(tracker_roles(t, SDB) & TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, SDA, 100, 8, "W");
	feed(BLK_EV_GETRQ, SDA, 100, 8, "W");
	ck_assert_uint_eq(tracker_counters(t)->inflight, 1);
	tracker_reset(t);
	ck_assert_uint_eq(tracker_counters(t)->events, 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
	ck_assert_uint_eq(tracker_roles(t, SDB), 0);
	/* the request queued before the reset is no longer known */
	feed(BLK_EV_RQ_COMPLETE, SDA, 100, 8, "W");
	ck_assert_int_eq(ntrees, 0);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 1);
	/* SDB is no longer under a layer: its I/O is top-level */
	leaf_io(SDB, 8, 8, "WFSM");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_TOP);
	ck_assert_uint_eq(tracker_counters(t)->ios_top, 1);
}
END_TEST

/*
 * Told to stop at a remap: every other event is taken, the first remap is
 * refused with -ERESTART (not taken: no I/O of the layer above is made of
 * it), and a reset ends the stop.
 */
START_TEST(stop_at_remap_until_reset)
{
	struct blk_event q = { .kind = BLK_EV_BIO_QUEUE, .dev = DM(0), .sector = 64,
			       .nr_sector = 8, .ts = 10 };
	struct blk_event a = { .kind = BLK_EV_BIO_REMAP, .dev = SDA, .sector = 64, .nr_sector = 8,
			       .old_dev = DM(0), .aux_sector = 64, .ts = 20 };

	tracker_stop_at_remap(t);
	ck_assert_int_eq(tracker_event(&q, t), 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 1);
	ck_assert_int_eq(tracker_event(&a, t), -ERESTART);
	ck_assert_uint_eq(tracker_roles(t, SDA), 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 1);
	tracker_reset(t);
	ck_assert_int_eq(tracker_event(&q, t), 0);
	ck_assert_int_eq(tracker_event(&a, t), 0);
	ck_assert(tracker_roles(t, SDA) & TK_ROLE_LOWER);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 2);
}
END_TEST

/* md raid5's stripe I/O: parity named by sector 0 is never lumped into a
 * write at sector 0; a read of a block a pending write covers is that
 * write's read-modify-write; neither is top-level (issue 17, 1 and 2). */
START_TEST(parity_raid_stripe_io)
{
	tracker_set_role(t, DM(9), TK_ROLE_UPPER | TK_ROLE_PARITY);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(9), 0, 8, "WS");	/* ext4's superblock, at sector 0 */
	remap(SDB, 8, 8, DM(9), 0, "WS");		/* its block, stripe 0 at member 8 */
	remap(SDA, 8, 8, DM(9), 0, "WS");		/* its stripe's parity, at 8 too */
	feed(BLK_EV_BIO_QUEUE, DM(9), 1024, 8, "WS");	/* the write */
	remap(SDB, 2048, 8, DM(9), 1024, "R");		/* rmw: the old data */
	remap(SDA, 2048, 8, DM(9), 0, "R");		/* rmw: the old parity */
	leaf_io(SDB, 2048, 8, "R");
	leaf_io(SDA, 2048, 8, "R");
	remap(SDB, 2048, 8, DM(9), 1024, "WS");	/* the new data: the write's */
	remap(SDA, 2048, 8, DM(9), 0, "WS");		/* the new parity, another stripe */
	leaf_io(SDB, 2048, 8, "WS");
	leaf_io(SDA, 2048, 8, "WS");
	feed(BLK_EV_BIO_COMPLETE, DM(9), 1024, 8, "WS");
	ck_assert_uint_eq(tracker_counters(t)->ios_top, 1);	/* the superblock is in flight */
	ck_assert_uint_eq(tracker_counters(t)->ios_caused, 1);	/* the old data */
	ck_assert_uint_eq(tracker_counters(t)->ios_layer, 2);	/* the parity pair */
	leaf_io(SDB, 8, 8, "WS");
	leaf_io(SDA, 8, 8, "WS");
	feed(BLK_EV_BIO_COMPLETE, DM(9), 0, 8, "WS");
	ck_assert_uint_eq(tracker_counters(t)->ios_top, 2);
	for (int i = 0; i < ntrees; i++) {
		check_tree_shape(&trees[i]);
		if (trees[i].io.top) {
			/* md0 and the data disk, and for the superblock its parity */
			ck_assert_int_eq(trees[i].io.nrecs, trees[i].recs[0].sector ? 2 : 3);
			ck_assert(trees[i].io.matched);
		}
	}
}
END_TEST

/* An expired I/O stays one I/O: its late events start nothing; expiry goes
 * by trace time, however few events (issue 12, 6; issue 17, 8). */
START_TEST(expired_io_stays_one)
{
	struct tk_params p = { .timeout_ns = 1000 };

	tracker_free(t);
	t = tracker_alloc(&p, collect, NULL);
	tracker_set_role(t, DM(0), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(0), 64, 8, "R");
	remap(SDA, 64, 8, DM(0), 64, "R");
	now += 5000;					/* slow: past the timeout */
	leaf_io(SDA, 64, 8, "R");
	ck_assert_uint_eq(tracker_counters(t)->expired, 1);
	ck_assert_uint_eq(tracker_counters(t)->expired_top, 1);
	feed(BLK_EV_BIO_COMPLETE, DM(0), 64, 8, "R");
	ck_assert_int_eq(ntrees, 0);
	ck_assert_uint_eq(tracker_counters(t)->ios_top, 0);
	ck_assert_uint_eq(tracker_counters(t)->ios_layer, 0);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
	/* the next I/O is followed as usual */
	feed(BLK_EV_BIO_QUEUE, DM(0), 128, 8, "R");
	remap(SDA, 128, 8, DM(0), 128, "R");
	leaf_io(SDA, 128, 8, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 128, 8, "R");
	ck_assert_int_eq(ntrees, 1);
	ck_assert(trees[0].io.matched);
}
END_TEST

/* The in-flight cap is on bios, children included: never more in flight
 * than the cap (issue 12, 10). */
START_TEST(cap_holds_for_children)
{
	struct tk_params p = { .max_inflight = 3 };

	tracker_free(t);
	t = tracker_alloc(&p, collect, NULL);
	feed(BLK_EV_BIO_QUEUE, DM(0), 0, 32, "R");
	for (int i = 0; i < 4; i++)
		remap(SDA, i * 8, 8, DM(0), i * 8, "R");
	ck_assert_uint_le(tracker_counters(t)->inflight_peak, 3);
	ck_assert_uint_eq(tracker_counters(t)->dropped_cap, 2);
	for (int i = 0; i < 2; i++)
		leaf_io(SDA, i * 8, 8, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 0, 32, "R");
	ck_assert_int_eq(ntrees, 1);
	ck_assert(!trees[0].io.matched);		/* pieces were not followed */
}
END_TEST

/* A path that ends at a layer with lower devices was lost there: such an
 * I/O is partly followed, never matched (issue 17, 4 and 9). */
START_TEST(hollow_path_is_not_matched)
{
	tracker_set_role(t, DM(1), TK_ROLE_UPPER);
	feed(BLK_EV_BIO_QUEUE, DM(1), 0, 8, "W");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 0, 8, "W");
	ck_assert_int_eq(ntrees, 1);
	ck_assert(trees[0].io.top);
	ck_assert(!trees[0].io.matched);
	/* a bio-based device with nothing below (zram) completes its own I/O */
	feed(BLK_EV_BIO_QUEUE, DM(2), 0, 8, "W");
	feed(BLK_EV_BIO_COMPLETE, DM(2), 0, 8, "W");
	ck_assert(trees[1].io.matched);
	ck_assert_uint_eq(tracker_counters(t)->ios_top_matched, 1);
}
END_TEST

/*
 * A request-based layer with devices below (dm-multipath) is no disk: a
 * path that ends there "ended at" it, and is not followed (issue 28, 1).
 */
START_TEST(path_ended_at_request_layer)
{
	tracker_set_role(t, DM(1), TK_ROLE_UPPER);
	tracker_set_role(t, DM(0), TK_ROLE_UPPER | TK_ROLE_LOWER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(1), 64, 8, "R");
	remap(DM(0), 64, 8, DM(1), 64, "R");
	leaf_io(DM(0), 64, 8, "R");		/* its clone on the path: not followed */
	feed(BLK_EV_BIO_COMPLETE, DM(1), 64, 8, "R");
	ck_assert_int_eq(ntrees, 1);
	ck_assert(trees[0].io.top);
	ck_assert(!trees[0].io.matched);
	ck_assert_int_eq(trees[0].io.reach, TK_REACH_ENDED);
	ck_assert_uint_eq(trees[0].io.end_dev, DM(0));
	ck_assert_int_eq(rec_of(&trees[0], DM(0))->end, TK_END_LAYER);
	ck_assert_int_eq(rec_of(&trees[0], DM(1))->end, TK_END_NONE);
	ck_assert_uint_eq(tracker_counters(t)->ios_top_reach[TK_REACH_ENDED], 1);
	ck_assert_uint_eq(tracker_counters(t)->ios_top_matched, 0);
	/* a disk under it completes what reaches it */
	leaf_io(SDA, 8, 8, "R");
	ck_assert_int_eq(trees[1].io.reach, TK_REACH_DISK);
	ck_assert_int_eq(trees[1].recs[0].end, TK_END_DISK);
}
END_TEST

/*
 * Layers that complete I/O themselves by design are their own class, not
 * "ended at": dm-thin's reads of unprovisioned blocks, its discards and
 * flushes, md raid5's discards shorter than a stripe, dm-zero (issue 28, 1).
 */
START_TEST(layer_completes_itself)
{
	static const char *const ops[] = { "R", "D", "FWS" };

	tracker_set_role(t, DM(2), TK_ROLE_UPPER | TK_ROLE_THIN);
	tracker_set_role(t, DM(9), TK_ROLE_UPPER | TK_ROLE_PARITY);
	tracker_set_role(t, DM(5), TK_ROLE_COMPLETES);
	for (int i = 0; i < 3; i++) {
		feed(BLK_EV_BIO_QUEUE, DM(2), 0, i == 2 ? 0 : 8, ops[i]);
		feed(BLK_EV_BIO_COMPLETE, DM(2), 0, i == 2 ? 0 : 8, ops[i]);
		ck_assert_int_eq(trees[i].io.reach, TK_REACH_SELF);
		ck_assert_uint_eq(trees[i].io.end_dev, DM(2));
		ck_assert_int_eq(trees[i].recs[0].end, TK_END_SELF);
	}
	/* a write dm-thin sent nothing down for was not followed */
	feed(BLK_EV_BIO_QUEUE, DM(2), 0, 8, "W");
	feed(BLK_EV_BIO_COMPLETE, DM(2), 0, 8, "W");
	ck_assert_int_eq(trees[3].io.reach, TK_REACH_ENDED);
	feed(BLK_EV_BIO_QUEUE, DM(9), 0, 168, "D");
	feed(BLK_EV_BIO_COMPLETE, DM(9), 0, 168, "D");
	ck_assert_int_eq(trees[4].io.reach, TK_REACH_SELF);
	/* dm-zero has nothing below, and is no disk */
	feed(BLK_EV_BIO_QUEUE, DM(5), 0, 8, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(5), 0, 8, "R");
	ck_assert_int_eq(trees[5].io.reach, TK_REACH_SELF);
	ck_assert_uint_eq(tracker_counters(t)->ios_top_reach[TK_REACH_SELF], 5);
	ck_assert_uint_eq(tracker_counters(t)->ios_top_matched, 0);
}
END_TEST

/*
 * I/O a layer issues for another names it: md's flushes to its members
 * while the flush it got waits carry that flush's number, and the flush,
 * which md sent nothing down for, was completed by md (issue 28, 1 and 3).
 */
START_TEST(caused_io_names_its_cause)
{
	tracker_set_role(t, DM(9), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
	tracker_set_edge(t, DM(9), SDA);
	tracker_set_edge(t, DM(9), SDB);
	leaf_io(SDB, 8, 8, "W");			/* md's own, before: tree 1 */
	feed(BLK_EV_BIO_QUEUE, DM(9), 0, 0, "FWS");	/* the flush: tree 2 */
	leaf_io(SDA, 0, 0, "FWS");			/* md's flush to each member */
	leaf_io(SDB, 0, 0, "FWS");
	feed(BLK_EV_BIO_COMPLETE, DM(9), 0, 0, "FWS");
	ck_assert_int_eq(ntrees, 4);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_LAYER);
	ck_assert_uint_eq(trees[0].io.id, 1);
	ck_assert_uint_eq(trees[0].io.cause, 0);
	for (int i = 1; i < 3; i++) {
		ck_assert_int_eq(trees[i].io.cls, TK_IO_CAUSED);
		ck_assert_uint_eq(trees[i].io.cause, 2);
		ck_assert_uint_eq(trees[i].io.id, 2 + i);
	}
	ck_assert_uint_eq(trees[3].io.id, 2);
	ck_assert(trees[3].io.top);
	ck_assert_int_eq(trees[3].io.reach, TK_REACH_SELF);
	ck_assert_uint_eq(trees[3].io.end_dev, DM(9));
	ck_assert_uint_eq(tracker_counters(t)->ios_caused, 2);
	ck_assert_uint_eq(tracker_counters(t)->ios_layer, 1);
}
END_TEST

/*
 * I/O that came down from a layer with nothing in flight to send it is
 * unexplained, never "issued on its own" (issue 28, 2); a layer issuing
 * for I/O of its own issues it on its own, cause named.
 */
START_TEST(unexplained_is_counted_apart)
{
	tracker_set_role(t, DM(0), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_edge(t, DM(0), SDA);
	remap(SDA, 64, 8, DM(0), 64, "W");	/* its bio at dm-0 was never seen */
	leaf_io(SDA, 64, 8, "W");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_UNEXPLAINED);
	ck_assert_uint_eq(trees[0].io.issuer, DM(0));
	ck_assert_uint_eq(tracker_counters(t)->ios_unexplained, 1);
	ck_assert_uint_eq(tracker_counters(t)->ios_layer, 0);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_remap, 1);
	/* a preflush write of the flush machinery's for a request of sda's own */
	feed(BLK_EV_BIO_QUEUE, SDA, 512, 8, "FWS");	/* sda's own: tree 2 */
	feed(BLK_EV_GETRQ, SDA, 512, 8, "FWS");
	feed(BLK_EV_RQ_ISSUE, SDA, UINT64_MAX, 0, "FN");	/* its flush: tree 3 */
	feed(BLK_EV_RQ_COMPLETE, SDA, UINT64_MAX, 0, "FN");
	ck_assert_int_eq(trees[1].io.cls, TK_IO_LAYER);
	ck_assert_uint_eq(trees[1].io.cause, 2);
}
END_TEST

/* A request requeued waits until it is issued again: that time is counted (issue 28, 4). */
START_TEST(requeue_wait_is_timed)
{
	feed(BLK_EV_BIO_QUEUE, SDA, 0, 8, "R");
	feed(BLK_EV_GETRQ, SDA, 0, 8, "R");
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 8, "R");
	feed(BLK_EV_RQ_REQUEUE, SDA, 0, 8, "R");	/* at now */
	now += 1000;
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 8, "R");		/* 1010 ns later */
	feed(BLK_EV_RQ_REQUEUE, SDA, 0, 8, "R");
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 8, "R");		/* 10 ns later */
	feed(BLK_EV_RQ_COMPLETE, SDA, 0, 8, "R");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_uint_eq(trees[0].recs[0].requeues, 2);
	ck_assert_uint_eq(trees[0].recs[0].requeue_ns, 1020);
	ck_assert(trees[0].io.matched);
}
END_TEST

/* A merged request's bios: no I2D of their own (btt gives none). */
START_TEST(scheduler_merge_marks_bios)
{
	feed(BLK_EV_BIO_QUEUE, SDA, 0, 8, "W");
	feed(BLK_EV_GETRQ, SDA, 0, 8, "W");
	feed(BLK_EV_RQ_INSERT, SDA, 0, 8, "W");
	feed(BLK_EV_BIO_QUEUE, SDA, 8, 8, "W");
	feed(BLK_EV_GETRQ, SDA, 8, 8, "W");
	feed(BLK_EV_RQ_INSERT, SDA, 8, 8, "W");
	feed(BLK_EV_RQ_MERGE, SDA, 8, 8, "W");
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 16, "W");
	feed(BLK_EV_RQ_COMPLETE, SDA, 0, 16, "W");
	ck_assert_int_eq(ntrees, 2);
	ck_assert(!trees[0].recs[0].rq_merged);
	ck_assert(trees[1].recs[0].rq_merged);
	ck_assert_uint_gt(trees[1].recs[0].m, trees[1].recs[0].g);	/* merged after its G */
}
END_TEST

/* md splits a read at its chunks (6.12: X with the cut, the pieces remapped
 * and completed, the bio completing last as the remainder): one top-level
 * I/O, as the application queued it (issue 17, item 5). */
START_TEST(md_chunk_split_stays_one_io)
{
	struct blk_event x = { .kind = BLK_EV_SPLIT, .dev = DM(9), .sector = 17288,
			       .aux_sector = 17408, .op = BLK_OP_READ, .pid = 100 };

	tracker_set_role(t, DM(9), TK_ROLE_UPPER | TK_ROLE_PARITY);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(9), 17288, 192, "R");
	x.ts = (now += 10);
	tracker_event(&x, t);
	remap(SDB, 7816, 120, DM(9), 17288, "R");
	leaf_io(SDB, 7816, 120, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(9), 17288, 120, "R");	/* the piece */
	remap(SDA, 7808, 72, DM(9), 17408, "R");
	leaf_io(SDA, 7808, 72, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(9), 17408, 72, "R");	/* the bio, last */
	ck_assert_int_eq(ntrees, 1);
	ck_assert(trees[0].io.top);
	ck_assert(trees[0].io.matched);
	ck_assert_uint_eq(trees[0].recs[0].sectors, 192);
	ck_assert_int_eq(trees[0].io.nrecs, 3);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 0);
}
END_TEST

/* dm-snapshot's origin holds a write until kcopyd copied the chunk, then
 * releases it to the base with no remap: linked, and the copy read is
 * issued for it (issue 17, item 4). */
START_TEST(snapshot_held_write_linked)
{
	tracker_set_role(t, DM(1), TK_ROLE_UPPER);
	tracker_set_role(t, DM(0), TK_ROLE_UPPER | TK_ROLE_LOWER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_edge(t, DM(1), DM(0));
	feed(BLK_EV_BIO_QUEUE, DM(1), 8032, 8, "WSM");		/* held */
	feed(BLK_EV_BIO_QUEUE, DM(0), 8024, 32, "R");		/* kcopyd reads the chunk */
	remap(SDA, 8024, 32, DM(0), 8024, "R");
	leaf_io(SDA, 8024, 32, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 8024, 32, "R");
	feed(BLK_EV_BIO_QUEUE, DM(0), 8032, 8, "WSM");		/* released */
	remap(SDA, 8032, 8, DM(0), 8032, "WSM");
	leaf_io(SDA, 8032, 8, "WSM");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 8032, 8, "WSM");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 8032, 8, "WSM");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_CAUSED);
	ck_assert_int_eq(trees[1].io.cls, TK_IO_TOP);
	ck_assert_int_eq(trees[1].io.nrecs, 3);
	ck_assert(trees[1].io.matched);
	ck_assert(trees[1].recs[1].linked);
	/* the wait for the copy is the origin's way down */
	ck_assert_uint_eq(trees[1].recs[0].down, trees[1].recs[1].q);
}
END_TEST

/*
 * 6.12 nvme-snap, fsync-write: jbd2's preflush FUA write at the origin; dm
 * sends its flush down at once (an empty remap at its sector), holds the
 * data until the chunk is copied, then submits it to the base with no
 * remap, without the preflush. The data is the write's, linked.
 */
START_TEST(snapshot_held_preflush_write_linked)
{
	tracker_set_role(t, DM(1), TK_ROLE_UPPER);
	tracker_set_role(t, DM(0), TK_ROLE_UPPER | TK_ROLE_LOWER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_edge(t, DM(1), DM(0));
	feed(BLK_EV_BIO_QUEUE, DM(1), 248, 8, "FWFSM");
	remap(DM(0), 248, 0, DM(1), 248, "FWFSM");		/* the flush, ahead */
	feed(BLK_EV_BIO_QUEUE, DM(0), 248, 0, "FWFSM");
	remap(SDA, 248, 0, DM(0), 248, "FWFSM");
	leaf_io(SDA, 248, 0, "FWFSM");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 248, 0, "FWFSM");
	feed(BLK_EV_BIO_QUEUE, DM(0), 248, 8, "R");		/* the chunk's copy */
	remap(SDA, 248, 8, DM(0), 248, "R");
	leaf_io(SDA, 248, 8, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 248, 8, "R");
	feed(BLK_EV_BIO_QUEUE, DM(0), 248, 8, "WFSM");		/* the data, released */
	remap(SDA, 248, 8, DM(0), 248, "WFSM");
	leaf_io(SDA, 248, 8, "WFSM");
	feed(BLK_EV_BIO_COMPLETE, DM(0), 248, 8, "WFSM");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 248, 8, "WFSM");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_CAUSED);
	ck_assert_int_eq(trees[1].io.cls, TK_IO_TOP);
	/* the origin, the flush and the data at the base, each at the disk */
	ck_assert_int_eq(trees[1].io.nrecs, 5);
	ck_assert(trees[1].io.matched);
	ck_assert_uint_eq(tracker_counters(t)->ios_layer, 0);
}
END_TEST

/* md holds a write until its superblock marks the array dirty: the FUA
 * superblock write it sends to each leg's partition is issued for the
 * held write (6.12 md raid1; issue 17, item 2). */
START_TEST(md_superblock_for_held_write)
{
	tracker_set_role(t, DM(9), TK_ROLE_UPPER);
	tracker_set_role(t, SDA1, TK_ROLE_LOWER | TK_ROLE_REMAP_ONLY);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_edge(t, DM(9), SDA1);
	feed(BLK_EV_BIO_QUEUE, DM(9), 634960, 192, "WS");	/* held */
	remap(SDA, 4104, 1, SDA1, 8, "FWFSM");			/* the superblock */
	leaf_io(SDA, 4104, 1, "WFSM");
	remap(SDA, 637008, 192, DM(9), 634960, "WS");		/* then the write, */
	remap(SDA, 639056, 192, SDA1, 637008, "WS");		/* through the partition */
	leaf_io(SDA, 639056, 192, "WS");
	feed(BLK_EV_BIO_COMPLETE, DM(9), 634960, 192, "WS");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_CAUSED);
	ck_assert_int_eq(trees[1].io.cls, TK_IO_TOP);
	ck_assert(trees[1].io.matched);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_remap, 0);
}
END_TEST

/* The multipath roles of the 6.12 recording: dm-1 (linear) -> dm-0 -> sda, sdb. */
static void multipath_roles(void)
{
	tracker_set_role(t, DM(1), TK_ROLE_UPPER);
	tracker_set_role(t, DM(0), TK_ROLE_UPPER | TK_ROLE_LOWER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
}

/*
 * 6.12 tests/vm multipath, raw-read: the bio on dm-1 becomes a dm-0
 * request, cloned onto sda (block_rq_remap, then issued there with no
 * insert); sda completes, dm-0 completes with the full size, dm-1's bio
 * completes, and dm-0 completes once more with + 0.
 */
START_TEST(multipath_clone_reaches_path)
{
	multipath_roles();
	feed(BLK_EV_BIO_QUEUE, DM(1), 127056, 192, "RS");
	remap(DM(0), 129104, 192, DM(1), 127056, "RS");
	feed(BLK_EV_BIO_QUEUE, DM(0), 129104, 192, "RS");
	feed(BLK_EV_GETRQ, DM(0), 129104, 192, "RS");
	feed(BLK_EV_RQ_INSERT, DM(0), 129104, 192, "RS");
	feed(BLK_EV_RQ_ISSUE, DM(0), 129104, 192, "RS");
	rq_remap(SDA, 129104, 192, DM(0), 129104, "RS");
	feed(BLK_EV_IO_START, SDA, 129104, 192, "RS");
	feed(BLK_EV_RQ_ISSUE, SDA, 129104, 192, "RS");
	feed(BLK_EV_RQ_COMPLETE, SDA, 129104, 192, "RS");
	feed(BLK_EV_RQ_COMPLETE, DM(0), 129104, 192, "RS");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 127056, 192, "RS");
	feed(BLK_EV_RQ_COMPLETE, DM(0), 129104, 0, "RS");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_TOP);
	ck_assert(trees[0].io.matched);
	ck_assert_int_eq(trees[0].io.nrecs, 3);
	ck_assert_ptr_nonnull(rec_of(&trees[0], SDA));
	ck_assert_uint_eq(rec_of(&trees[0], SDA)->parent_dev, DM(0));
	ck_assert_int_eq(rec_of(&trees[0], SDA)->kind, TK_LAYER_REQUEST);
	check_tree_shape(&trees[0]);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 0);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_rq, 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/*
 * 6.12 path-offline: sda is offline; the clone it rejects gets only
 * block_io_start and block_io_done there. dm-0 requeues its request,
 * kblockd inserts and issues it again, and it is cloned onto sdb, which
 * serves it. The I/O reached sdb, once, and was requeued once at dm-0.
 */
START_TEST(multipath_rejected_clone_goes_to_other_path)
{
	multipath_roles();
	feed(BLK_EV_BIO_QUEUE, DM(1), 32, 32, "RS");
	remap(DM(0), 2080, 32, DM(1), 32, "RS");
	feed(BLK_EV_BIO_QUEUE, DM(0), 2080, 32, "RS");
	feed(BLK_EV_GETRQ, DM(0), 2080, 32, "RS");
	feed(BLK_EV_RQ_INSERT, DM(0), 2080, 32, "RS");
	feed(BLK_EV_RQ_ISSUE, DM(0), 2080, 32, "RS");
	rq_remap(SDA, 2080, 32, DM(0), 2080, "RS");
	feed(BLK_EV_IO_START, SDA, 2080, 32, "RS");
	feed(BLK_EV_IO_DONE, SDA, 2080, 32, "RS");
	feed(BLK_EV_RQ_REQUEUE, DM(0), 2080, 32, "RS");
	feed(BLK_EV_RQ_INSERT, DM(0), 2080, 32, "RS");
	feed(BLK_EV_RQ_ISSUE, DM(0), 2080, 32, "RS");
	rq_remap(SDB, 2080, 32, DM(0), 2080, "RS");
	feed(BLK_EV_IO_START, SDB, 2080, 32, "RS");
	feed(BLK_EV_RQ_ISSUE, SDB, 2080, 32, "RS");
	feed(BLK_EV_RQ_COMPLETE, SDB, 2080, 32, "RS");
	feed(BLK_EV_RQ_COMPLETE, DM(0), 2080, 32, "RS");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 32, 32, "RS");
	feed(BLK_EV_RQ_COMPLETE, DM(0), 2080, 0, "RS");
	ck_assert_int_eq(ntrees, 1);
	ck_assert(trees[0].io.matched);
	ck_assert_int_eq(trees[0].io.nrecs, 3);
	ck_assert_ptr_null(rec_of(&trees[0], SDA));
	ck_assert_ptr_nonnull(rec_of(&trees[0], SDB));
	ck_assert_uint_eq(rec_of(&trees[0], DM(0))->requeues, 1);
	/* the wait for a path is dm-0's: it went down at the second issue */
	ck_assert_uint_eq(rec_of(&trees[0], DM(0))->down, rec_of(&trees[0], SDB)->q - 10);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_rq, 0);
}
END_TEST

/*
 * 6.12 flush: dm-1's empty preflush becomes a dm-0 request that the flush
 * machinery serves with a flush request (FF, no bio); that one is cloned
 * onto sdb at sector 2^64-1 with no bio. The flush request is I/O dm-0
 * issued for the preflush, and reached sdb.
 */
START_TEST(multipath_flush_clone_at_minus_one)
{
	multipath_roles();
	feed(BLK_EV_BIO_QUEUE, DM(1), 0, 0, "FWS");
	remap(DM(0), 0, 0, DM(1), 0, "FWS");
	feed(BLK_EV_BIO_QUEUE, DM(0), 0, 0, "FWS");
	feed(BLK_EV_GETRQ, DM(0), 0, 0, "FWS");
	feed(BLK_EV_RQ_ISSUE, DM(0), 0, 0, "FF");
	rq_remap(SDB, UINT64_MAX, 0, DM(0), UINT64_MAX, "FF");
	feed(BLK_EV_RQ_ISSUE, SDB, 0, 0, "FF");
	feed(BLK_EV_RQ_COMPLETE, SDB, UINT64_MAX, 0, "FF");
	feed(BLK_EV_RQ_COMPLETE, DM(0), UINT64_MAX, 0, "FF");
	feed(BLK_EV_RQ_COMPLETE, DM(0), 0, 0, "WS");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 0, 0, "FWS");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_CAUSED);
	ck_assert_uint_eq(trees[0].io.cause_dev, DM(1));
	ck_assert_uint_eq(trees[0].io.root->dev, DM(0));
	ck_assert_ptr_nonnull(rec_of(&trees[0], SDB));
	ck_assert(trees[0].io.matched);
	ck_assert_int_eq(trees[1].io.cls, TK_IO_TOP);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_rq, 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/*
 * 6.12 md-raid1: md's superblock write (FUA, preflush) through vdb1; vdb
 * emulates FUA: the data completes, then the post-flush (FF, no bio) is
 * issued, then the request completes once more with + 0. That flush is
 * for the superblock write, not for itself nor for nothing: it names it,
 * and is, as the write is here (no write of md0 waits), the layers' own.
 */
START_TEST(post_flush_of_fua_write)
{
	const struct tk_io *sb = NULL;
	int nflush = 0;

	tracker_set_role(t, DM(9), TK_ROLE_UPPER);
	tracker_set_role(t, SDB1, TK_ROLE_LOWER | TK_ROLE_REMAP_ONLY);
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
	tracker_set_edge(t, DM(9), SDB1);
	remap(SDB, 4104, 1, SDB1, 8, "FWFSM");
	feed(BLK_EV_BIO_QUEUE, SDB, 4104, 1, "FWFSM");
	feed(BLK_EV_GETRQ, SDB, 4104, 1, "FWFSM");
	feed(BLK_EV_RQ_ISSUE, SDB, 0, 0, "FF");		/* the preflush */
	feed(BLK_EV_RQ_COMPLETE, SDB, UINT64_MAX, 0, "FF");
	feed(BLK_EV_RQ_INSERT, SDB, 4104, 1, "WSM");
	feed(BLK_EV_RQ_ISSUE, SDB, 4104, 1, "WSM");
	feed(BLK_EV_RQ_COMPLETE, SDB, 4104, 1, "WSM");
	feed(BLK_EV_RQ_ISSUE, SDB, 0, 0, "FF");		/* the post-flush */
	feed(BLK_EV_RQ_COMPLETE, SDB, UINT64_MAX, 0, "FF");
	feed(BLK_EV_RQ_COMPLETE, SDB, 4104, 0, "WSM");
	ck_assert_int_eq(ntrees, 3);
	for (int i = 0; i < 3; i++)
		if (trees[i].io.root->dev == SDB1)
			sb = &trees[i].io;
	ck_assert_ptr_nonnull(sb);
	for (int i = 0; i < 3; i++)
		if (trees[i].io.root->op == BLK_OP_FLUSH) {
			ck_assert_int_eq(trees[i].io.cls, sb->cls);
			ck_assert_int_eq(trees[i].io.cls, TK_IO_LAYER);
			ck_assert_uint_eq(trees[i].io.cause, sb->id);
			ck_assert_uint_eq(trees[i].io.cause_dev, SDB1);
			ck_assert_uint_eq(trees[i].io.cause_q, sb->root->q);
			nflush++;
		}
	ck_assert_int_eq(nflush, 2);	/* the preflush and the post-flush */
}
END_TEST

/*
 * 6.12 tests/vm md-raid5 (4 disks, 64 KiB chunks: 384-sector stripes of 3
 * data chunks), raw-write: a 96 KiB write at array sector 36944 covers the
 * end of chunk 0, chunk 1 and the start of chunk 2 of stripe row 96. md
 * reads the blocks of those stripes it does not write (array sector 36864,
 * which the write does not cover) and the old parity (named 0), then
 * writes. With the geometry, every such read is the write's.
 */
START_TEST(raid5_stripe_reads_caused_by_write)
{
	tracker_set_role(t, DM(9), TK_ROLE_UPPER | TK_ROLE_PARITY);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
	tracker_set_stripe(t, DM(9), 128, 3);
	feed(BLK_EV_BIO_QUEUE, DM(9), 36944, 192, "WS");
	remap(SDA, 14336, 8, DM(9), 36864, "R");	/* chunk 0's first page: not written */
	remap(SDB, 14352, 8, DM(9), 0, "R");		/* the parity of the third page */
	leaf_io(SDA, 14336, 8, "R");
	leaf_io(SDB, 14352, 8, "R");
	ck_assert_int_eq(ntrees, 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(trees[i].io.cls, TK_IO_CAUSED);
		ck_assert_uint_eq(trees[i].io.cause_dev, DM(9));
		ck_assert_uint_eq(trees[i].io.issuer, DM(9));
	}
	ck_assert_uint_eq(trees[0].io.cause_q, trees[1].io.cause_q);
	/* without a write on that stripe, a read there is md's own */
	tracker_set_stripe(t, DM(9), 128, 3);
	remap(SDA, 14336 + 128 * 10, 8, DM(9), 36864 + 384 * 10, "R");
	leaf_io(SDA, 14336 + 128 * 10, 8, "R");
	ck_assert_int_eq(ntrees, 3);
	ck_assert_int_eq(trees[2].io.cls, TK_IO_LAYER);
}
END_TEST

/*
 * 6.12 dm-cache: sync's empty preflush at the cache, and a kworker's 4 KiB
 * metadata write at sector 0 of the cache device in flight beside it: the
 * flush remap (sector 0, no data) is the preflush's, never the write's.
 */
START_TEST(flush_remap_never_owned_by_data_write)
{
	tracker_set_role(t, DM(2), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(2), 0, 8, "WS");	/* the data write at 0 */
	feed(BLK_EV_BIO_QUEUE, DM(2), 0, 0, "FWS");	/* the preflush */
	remap(SDA, 0, 0, DM(2), 0, "FWS");
	leaf_io(SDA, 0, 0, "FWS");
	feed(BLK_EV_BIO_COMPLETE, DM(2), 0, 0, "FWS");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_uint_eq(trees[0].io.root->sectors, 0);
	ck_assert_int_eq(trees[0].io.nrecs, 2);
	remap(SDA, 0, 8, DM(2), 0, "WS");
	leaf_io(SDA, 0, 8, "WS");
	feed(BLK_EV_BIO_COMPLETE, DM(2), 0, 8, "WS");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_int_eq(trees[1].io.nrecs, 2);
	ck_assert(trees[1].io.matched);
}
END_TEST

/*
 * Completion pairing: a 64 KiB and a 4 KiB read in flight at one layer,
 * both ending at sector 65752; the 4 KiB one completes first. Its exact
 * start and size name it, though the older one ends there too.
 */
START_TEST(completion_exact_before_end)
{
	tracker_set_role(t, DM(1), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(1), 65624, 128, "R");
	remap(SDA, 65624, 128, DM(1), 65624, "R");
	feed(BLK_EV_BIO_QUEUE, SDA, 65624, 128, "R");
	feed(BLK_EV_GETRQ, SDA, 65624, 128, "R");
	feed(BLK_EV_RQ_ISSUE, SDA, 65624, 128, "R");
	feed(BLK_EV_BIO_QUEUE, DM(1), 65744, 8, "R");
	remap(SDA, 65744, 8, DM(1), 65744, "R");
	leaf_io(SDA, 65744, 8, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 65744, 8, "R");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_uint_eq(trees[0].io.root->sectors, 8);
	ck_assert(trees[0].io.matched);
	feed(BLK_EV_RQ_COMPLETE, SDA, 65624, 128, "R");
	feed(BLK_EV_BIO_COMPLETE, DM(1), 65624, 128, "R");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_uint_eq(trees[1].io.root->sectors, 128);
	ck_assert(trees[1].io.matched);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 0);
}
END_TEST

/* Two requests at one start, the shorter issued last, completes first. */
START_TEST(request_completion_exact_size)
{
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, SDA, 1000, 64, "W");
	feed(BLK_EV_GETRQ, SDA, 1000, 64, "W");
	feed(BLK_EV_RQ_ISSUE, SDA, 1000, 64, "W");
	feed(BLK_EV_BIO_QUEUE, SDA, 1000, 8, "W");
	feed(BLK_EV_GETRQ, SDA, 1000, 8, "W");
	feed(BLK_EV_RQ_ISSUE, SDA, 1000, 8, "W");
	feed(BLK_EV_RQ_COMPLETE, SDA, 1000, 8, "W");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_uint_eq(trees[0].io.root->sectors, 8);
	feed(BLK_EV_RQ_COMPLETE, SDA, 1000, 64, "W");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_uint_eq(trees[1].io.root->sectors, 64);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/*
 * 6.12 multipath, path-offline: setting sda back to running rescans it:
 * passthrough requests with no bio, issued at 0, completed at -1. They are
 * sda's own I/O, not an application's and not a request left unmatched.
 */
START_TEST(multipath_rescan_passthrough_is_paths_own)
{
	multipath_roles();
	tracker_set_edge(t, DM(0), SDA);
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 0, "N");
	feed(BLK_EV_RQ_COMPLETE, SDA, UINT64_MAX, 0, "N");
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 0, "N");
	feed(BLK_EV_RQ_COMPLETE, SDA, UINT64_MAX, 1, "N");
	ck_assert_int_eq(ntrees, 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(trees[i].io.cls, TK_IO_LAYER);
		ck_assert(!trees[i].io.top);
	}
	ck_assert_uint_eq(tracker_counters(t)->unmatched_complete, 0);
	ck_assert_uint_eq(tracker_counters(t)->unmatched_rq, 0);
	ck_assert_uint_eq(tracker_counters(t)->inflight, 0);
}
END_TEST

/*
 * 6.12 md-raid5, fsync-write: jbd2's preflush FUA write at md0; md sends
 * an empty flush to each member itself (queued there, no remap). Each is
 * caused by that write.
 */
START_TEST(md_member_flushes_caused_by_preflush)
{
	tracker_set_role(t, DM(9), TK_ROLE_UPPER | TK_ROLE_PARITY);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
	tracker_set_edge(t, DM(9), SDA);
	tracker_set_edge(t, DM(9), SDB);
	feed(BLK_EV_BIO_QUEUE, DM(9), 2352, 8, "FWFSM");
	leaf_io(SDA, 0, 0, "FW");
	leaf_io(SDB, 0, 0, "FW");
	ck_assert_int_eq(ntrees, 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(trees[i].io.cls, TK_IO_CAUSED);
		ck_assert_uint_eq(trees[i].io.cause_dev, DM(9));
		ck_assert_uint_eq(trees[i].io.issuer, DM(9));
	}
}
END_TEST

/*
 * 6.12 dm-cache: its metadata device gets the cache's own writes (a
 * kworker's, dmsetup status's commit), queued there with no remap. They
 * are I/O of the cache, not of the metadata device, nor top-level.
 */
START_TEST(cache_metadata_is_the_caches)
{
	tracker_set_role(t, DM(0), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	tracker_set_role(t, SDB, TK_ROLE_LOWER);
	tracker_set_edge(t, DM(0), SDA);
	tracker_set_edge(t, DM(0), SDB);
	leaf_io(SDB, 216, 8, "W");
	ck_assert_int_eq(ntrees, 1);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_LAYER);
	ck_assert_uint_eq(trees[0].io.issuer, DM(0));
}
END_TEST

/*
 * 6.12 multipath, fsync-write: jbd2's FUA write through a layer to a
 * device that emulates FUA. Its data completes, the post-flush runs, then
 * the request completes once more with + 0, and only then the layer's bio:
 * the write ended at the disk with the + 0 completion.
 */
START_TEST(fua_write_ends_after_post_flush)
{
	uint64_t zero;

	tracker_set_role(t, DM(1), TK_ROLE_UPPER);
	tracker_set_role(t, SDA, TK_ROLE_LOWER);
	feed(BLK_EV_BIO_QUEUE, DM(1), 2176, 56, "WFSM");
	remap(SDA, 2176, 56, DM(1), 2176, "WFSM");
	feed(BLK_EV_BIO_QUEUE, SDA, 2176, 56, "WFSM");
	feed(BLK_EV_GETRQ, SDA, 2176, 56, "WFSM");
	feed(BLK_EV_RQ_ISSUE, SDA, 2176, 56, "WSM");
	feed(BLK_EV_RQ_COMPLETE, SDA, 2176, 56, "WSM");	/* the data */
	feed(BLK_EV_RQ_ISSUE, SDA, 0, 0, "FF");			/* the post-flush */
	feed(BLK_EV_RQ_COMPLETE, SDA, UINT64_MAX, 0, "FF");
	feed(BLK_EV_RQ_COMPLETE, SDA, 2176, 0, "WSM");
	zero = now;
	feed(BLK_EV_BIO_COMPLETE, DM(1), 2176, 56, "WFSM");
	ck_assert_int_eq(ntrees, 2);
	ck_assert_int_eq(trees[1].io.cls, TK_IO_TOP);
	ck_assert_uint_eq(rec_of(&trees[1], SDA)->c, zero);
	ck_assert_uint_eq(rec_of(&trees[1], DM(1))->up, zero);
	ck_assert(trees[1].io.matched);
	ck_assert_int_eq(trees[0].io.cls, TK_IO_CAUSED);	/* the post-flush */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tracker");
	TCase *tc = tcase_create("behaviours");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, request_based_leaf);
	tcase_add_test(tc, bare_kinds_have_no_rule);
	tcase_add_test(tc, identical_keys_in_order);
	tcase_add_test(tc, identical_requests_in_order);
	tcase_add_test(tc, partition_double_remap);
	tcase_add_test(tc, io_on_partition);
	tcase_add_test(tc, back_and_front_merges);
	tcase_add_test(tc, dm_split_fan_out);
	tcase_add_test(tc, partial_request_completion);
	tcase_add_test(tc, block_layer_split_at_disk);
	tcase_add_test(tc, flags_change_on_the_way);
	tcase_add_test(tc, thin_through_pool);
	tcase_add_test(tc, layer_issued_io);
	tcase_add_test(tc, expiry_and_cap);
	tcase_add_test(tc, dm_preflush_flush_names_sector_zero);
	tcase_add_test(tc, class_does_not_depend_on_timing);
	tcase_add_test(tc, parity_raid_stripe_io);
	tcase_add_test(tc, expired_io_stays_one);
	tcase_add_test(tc, cap_holds_for_children);
	tcase_add_test(tc, hollow_path_is_not_matched);
	tcase_add_test(tc, path_ended_at_request_layer);
	tcase_add_test(tc, layer_completes_itself);
	tcase_add_test(tc, caused_io_names_its_cause);
	tcase_add_test(tc, unexplained_is_counted_apart);
	tcase_add_test(tc, requeue_wait_is_timed);
	tcase_add_test(tc, scheduler_merge_marks_bios);
	tcase_add_test(tc, md_chunk_split_stays_one_io);
	tcase_add_test(tc, snapshot_held_write_linked);
	tcase_add_test(tc, md_superblock_for_held_write);
	tcase_add_test(tc, snapshot_held_preflush_write_linked);
	tcase_add_test(tc, completion_exact_before_end);
	tcase_add_test(tc, multipath_rescan_passthrough_is_paths_own);
	tcase_add_test(tc, md_member_flushes_caused_by_preflush);
	tcase_add_test(tc, cache_metadata_is_the_caches);
	tcase_add_test(tc, fua_write_ends_after_post_flush);
	tcase_add_test(tc, request_completion_exact_size);
	tcase_add_test(tc, multipath_clone_reaches_path);
	tcase_add_test(tc, multipath_rejected_clone_goes_to_other_path);
	tcase_add_test(tc, multipath_flush_clone_at_minus_one);
	tcase_add_test(tc, post_flush_of_fua_write);
	tcase_add_test(tc, raid5_stripe_reads_caused_by_write);
	tcase_add_test(tc, flush_remap_never_owned_by_data_write);
	tcase_add_test(tc, reset_forgets_everything);
	tcase_add_test(tc, stop_at_remap_until_reset);
	tcase_add_test(tc, expiry_after_oldest_completes);
	tcase_add_test(tc, reused_nodes_start_clean);
	tcase_add_test(tc, split_of_expired_bio_expires_in_time);
	suite_add_tcase(s, tc);
	tc = tcase_create("replay");
	tcase_add_test(tc, replay_vm_fixtures);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return check_run(s);
}
