// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_stats.c - the statistics of hand-built I/O trees, against numbers
 * computed by hand in the comments.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "track/stackorder.h"
#include "track/stats.h"

#define DM0	KDEV_MKDEV(253, 0)
#define SDA	KDEV_MKDEV(8, 0)
#define SDA1	KDEV_MKDEV(8, 1)
#define SDB	KDEV_MKDEV(8, 16)
#define ZRAM0	KDEV_MKDEV(252, 0)

static struct stats *st;

static void setup(void)
{
	st = stats_alloc();
	ck_assert_ptr_nonnull(st);
}

static void teardown(void)
{
	stats_free(st);
}

/* A tree of class @cls, followed to a disk unless @reach says otherwise. */
static void feed_io(struct tk_rec *recs, size_t n, uint8_t cls, uint8_t reach, uint32_t end_dev,
		    int32_t pid, const char *comm)
{
	struct tk_io io = { .pid = pid, .top = cls == TK_IO_TOP, .cls = cls, .reach = reach,
			    .end_dev = end_dev, .matched = reach == TK_REACH_DISK, .root = recs,
			    .recs = recs, .nrecs = n };

	strncpy(io.comm, comm, sizeof(io.comm) - 1);
	stats_io(&io, st);
}

static void feed(struct tk_rec *recs, size_t n, bool top, int32_t pid, const char *comm)
{
	feed_io(recs, n, top ? TK_IO_TOP : TK_IO_LAYER, TK_REACH_DISK, 0, pid, comm);
}

/*
 * dm (Q 100, down 110, up 500, C 520) -> partition (Q 110, down 115, up and
 * C 500) -> disk (remapped into at 115, its queue event at 117, G 120,
 * D 130, C 500): 8 sectors written.
 */
static void three_layers(void)
{
	struct tk_rec r[3] = {
		{ .dev = DM0, .parent = -1, .kind = TK_LAYER_BIO, .op = BLK_OP_WRITE, .sectors = 8,
		  .q = 100, .down = 110, .up = 500, .c = 520, .complete = true },
		{ .dev = SDA1, .parent = 0, .parent_dev = DM0, .depth = 1, .kind = TK_LAYER_REMAP,
		  .op = BLK_OP_WRITE, .sectors = 8, .q = 110, .down = 115, .up = 500, .c = 500,
		  .complete = true },
		{ .dev = SDA, .parent = 1, .parent_dev = SDA1, .depth = 2,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_WRITE, .sectors = 8, .q = 115, .qev = 117, .g = 120,
		  .d = 130, .down = 130, .up = 500, .c = 500, .complete = true },
	};

	feed(r, 3, true, 42, "dd");
}

START_TEST(per_layer_latencies)
{
	const struct st_layer *dm, *part, *disk;
	const struct st_layer_op *o;

	three_layers();
	dm = stats_layer(st, DM0);
	part = stats_layer(st, SDA1);
	disk = stats_layer(st, SDA);
	ck_assert_ptr_nonnull(dm);
	ck_assert_ptr_nonnull(part);
	ck_assert_ptr_nonnull(disk);
	ck_assert_int_eq(dm->depth, 0);
	ck_assert_int_eq(disk->depth, 2);
	ck_assert_uint_eq(disk->parent, SDA1);

	o = &dm->op[ST_WRITE];
	ck_assert_uint_eq(o->ios, 1);
	ck_assert_uint_eq(o->bytes, 4096);
	ck_assert_uint_eq(o->sub.max, 10);	/* 110 - 100 */
	ck_assert_uint_eq(o->comp.max, 20);	/* 520 - 500 */
	ck_assert_uint_eq(o->total.max, 420);	/* 520 - 100 */
	ck_assert_uint_eq(o->issued, 0);

	o = &part->op[ST_WRITE];
	ck_assert_uint_eq(o->sub.max, 5);	/* 115 - 110 */
	ck_assert_uint_eq(o->comp.max, 0);	/* completes with its child */
	ck_assert_uint_eq(o->total.max, 390);

	o = &disk->op[ST_WRITE];
	ck_assert_uint_eq(o->sub.max, 13);	/* its queue event, to issue */
	ck_assert_uint_eq(o->q2g.max, 3);	/* btt's Q: the queue event */
	ck_assert_uint_eq(o->g2i.count, 0);	/* never inserted: no G2I, no I2D */
	ck_assert_uint_eq(o->i2d.count, 0);
	ck_assert_uint_eq(o->g2d.max, 10);	/* but G2D: 130 - 120 */
	ck_assert_uint_eq(o->d2c.max, 370);	/* 500 - 130 */
	ck_assert_uint_eq(o->q2c.max, 383);
	/* C - Q at the layer, Q its queue event (issue 28, 5): btt's Q2C */
	ck_assert_uint_eq(o->total.max, 383);
	ck_assert_uint_eq(o->q2m.count, 0);
	ck_assert_uint_eq(dm->op[ST_READ].ios, 0);
}
END_TEST

START_TEST(end_to_end_waterfall)
{
	const struct st_e2e *e;
	uint64_t sum = 0;

	three_layers();
	e = &st->e2e[ST_WRITE];
	ck_assert_uint_eq(e->ios, 1);
	ck_assert_uint_eq(e->bytes, 4096);
	ck_assert_uint_eq(e->matched, 1);
	ck_assert_uint_eq(e->total_ns, 420);
	ck_assert_uint_eq(e->nshares, 3);
	/* dm: down 10, up 20; partition: down 5; disk: down 15, device 370 */
	ck_assert_uint_eq(e->shares[0].dev, DM0);
	ck_assert_uint_eq(e->shares[0].sub_ns, 10);
	ck_assert_uint_eq(e->shares[0].comp_ns, 20);
	ck_assert_uint_eq(e->shares[1].sub_ns, 5);
	ck_assert_uint_eq(e->shares[1].comp_ns, 0);
	ck_assert_uint_eq(e->shares[2].dev, SDA);
	ck_assert_uint_eq(e->shares[2].sub_ns, 15);
	ck_assert_uint_eq(e->shares[2].dev_ns, 370);
	for (size_t i = 0; i < e->nshares; i++)
		sum += e->shares[i].sub_ns + e->shares[i].dev_ns + e->shares[i].comp_ns;
	ck_assert_uint_eq(sum, e->total_ns);	/* a chain accounts for all of it */
}
END_TEST

/*
 * A dm bio split to two disks: sda done at 200, sdb at 300: the path
 * follows sdb, the piece the dm bio waited for.
 */
START_TEST(waterfall_follows_last_piece)
{
	struct tk_rec r[3] = {
		{ .dev = DM0, .parent = -1, .op = BLK_OP_READ, .sectors = 16, .q = 1, .down = 10,
		  .up = 300, .c = 310, .splits = 1 },
		{ .dev = SDA, .parent = 0, .parent_dev = DM0, .depth = 1,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ, .sectors = 8, .q = 10, .qev = 10, .g = 11,
		  .d = 20, .down = 20, .up = 200, .c = 200 },
		{ .dev = SDB, .parent = 0, .parent_dev = DM0, .depth = 1,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ, .sectors = 8, .q = 12, .qev = 12, .g = 13,
		  .d = 25, .down = 25, .up = 300, .c = 300 },
	};
	const struct st_e2e *e;

	feed(r, 3, true, 7, "fio");
	e = &st->e2e[ST_READ];
	ck_assert_uint_eq(e->nshares, 2);
	ck_assert_uint_eq(e->shares[1].dev, SDB);
	ck_assert_uint_eq(e->shares[1].sub_ns, 13);	/* 25 - 12 */
	ck_assert_uint_eq(e->shares[1].dev_ns, 275);	/* 300 - 25 */
	ck_assert_uint_eq(e->shares[0].sub_ns, 9);
	ck_assert_uint_eq(e->shares[0].comp_ns, 10);
	ck_assert_uint_eq(stats_layer(st, DM0)->op[ST_READ].splits, 1);
	ck_assert_uint_eq(stats_layer(st, SDA)->op[ST_READ].bytes, 4096);
	ck_assert_uint_eq(stats_layer(st, SDB)->op[ST_READ].d2c.max, 275);
	/*
	 * 9 + 13 + 275 + 10 = 307 of 309: dm sent the sdb piece at 12, 2 ns
	 * after its down at 10; that gap is in no layer's share
	 */
	ck_assert_uint_eq(e->total_ns, 309);
	ck_assert_uint_eq(e->shares[0].sub_ns + e->shares[0].comp_ns + e->shares[1].sub_ns +
			  e->shares[1].dev_ns, 307);
	/* the fan-out is counted at both disks, whole at dm */
	ck_assert_uint_eq(stats_layer(st, DM0)->op[ST_READ].bytes, 8192);
	ck_assert_uint_eq(stats_layer(st, SDA)->op[ST_READ].ios, 1);
	ck_assert_uint_eq(stats_layer(st, SDB)->op[ST_READ].ios, 1);
	ck_assert_uint_eq(stats_layer(st, SDA)->parent, DM0);
}
END_TEST

/*
 * Waterfall rows follow the path, not the device: a disk reached under two
 * layers is a row under each (a mirror leg under md under dm must not be a
 * top row; issue 12, item 2). The layer tree takes the parent that sent the
 * most data, not the last one, and keeps every parent (items 3; issue 17, 7).
 */
START_TEST(waterfall_rows_and_parents_by_path)
{
	struct tk_rec via_part[3] = {
		{ .dev = DM0, .parent = -1, .op = BLK_OP_WRITE, .sectors = 8, .q = 1, .down = 2,
		  .up = 50, .c = 51 },
		{ .dev = SDA1, .parent = 0, .parent_dev = DM0, .depth = 1, .kind = TK_LAYER_REMAP,
		  .op = BLK_OP_WRITE, .sectors = 8, .q = 2, .down = 2, .up = 50, .c = 50 },
		{ .dev = SDA, .parent = 1, .parent_dev = SDA1, .depth = 2,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_WRITE, .sectors = 8, .q = 2, .qev = 3,
		  .g = 4, .d = 5, .down = 5, .up = 50, .c = 50 },
	};
	/* dm's empty flush, sent straight to the disk */
	struct tk_rec flush[2] = {
		{ .dev = DM0, .parent = -1, .op = BLK_OP_WRITE, .flags = BLK_F_PREFLUSH,
		  .q = 100, .down = 101, .up = 150, .c = 151 },
		{ .dev = SDA, .parent = 0, .parent_dev = DM0, .depth = 1,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_WRITE, .flags = BLK_F_PREFLUSH,
		  .q = 101, .qev = 102, .g = 103, .c = 150 },
	};
	const struct st_layer *l;
	const struct st_e2e *e;

	feed(via_part, 3, true, 7, "fio");
	for (int i = 0; i < 3; i++)
		feed(flush, 2, true, 7, "jbd2");
	l = stats_layer(st, SDA);
	ck_assert_uint_eq(l->parent, SDA1);	/* 1 bio of data, against 3 empty ones */
	ck_assert_uint_eq(l->nparents, 2);
	ck_assert_uint_eq(l->parents[1].dev, DM0);
	ck_assert_uint_eq(l->parents[1].bios, 3);
	ck_assert_uint_eq(l->parents[1].data_bios, 0);
	/* the flushes are flushes: their waterfall is apart from the write's */
	e = &st->e2e[ST_WRITE];
	ck_assert_uint_eq(e->ios, 1);
	ck_assert_uint_eq(e->nshares, 3);
	ck_assert_int_eq(e->shares[0].parent, -1);
	ck_assert_int_eq(e->shares[1].parent, 0);
	ck_assert_int_eq(e->shares[2].parent, 1);
	ck_assert_uint_eq(e->shares[2].dev, SDA);
	e = &st->e2e[ST_FLUSH];
	ck_assert_uint_eq(e->ios, 3);
	ck_assert_uint_eq(e->nshares, 2);
	ck_assert_uint_eq(e->shares[1].dev, SDA);
	ck_assert_int_eq(e->shares[1].parent, 0);	/* a row of its own, under dm */
}
END_TEST

/*
 * Every bio at a layer is counted in the class of its I/O, I/Os and bytes:
 * the classes add up to the layer's figures, unexplained apart from the
 * layer's own (issue 28, 2).
 */
START_TEST(layer_io_by_class)
{
	static const uint8_t cls[] = { TK_IO_TOP, TK_IO_CAUSED, TK_IO_LAYER, TK_IO_UNEXPLAINED,
				       TK_IO_CAUSED };
	const struct st_layer_op *o;
	uint64_t ios = 0, bytes = 0;

	for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
		struct tk_rec r = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				    .op = BLK_OP_READ, .sectors = 8 * (i + 1), .q = 10, .c = 20 };

		feed_io(&r, 1, cls[i], TK_REACH_DISK, 0, 1, "a");
	}
	o = &stats_layer(st, SDA)->op[ST_READ];
	ck_assert_uint_eq(o->ios, 5);
	ck_assert_uint_eq(o->cls_ios[TK_IO_TOP], 1);
	ck_assert_uint_eq(o->cls_ios[TK_IO_CAUSED], 2);
	ck_assert_uint_eq(o->cls_ios[TK_IO_LAYER], 1);
	ck_assert_uint_eq(o->cls_ios[TK_IO_UNEXPLAINED], 1);
	ck_assert_uint_eq(o->cls_bytes[TK_IO_CAUSED], (16 + 40) * 512);
	ck_assert_uint_eq(o->cls_bytes[TK_IO_UNEXPLAINED], 32 * 512);
	for (int c = 0; c < TK_CLASSES; c++) {
		ios += o->cls_ios[c];
		bytes += o->cls_bytes[c];
	}
	ck_assert_uint_eq(ios, o->ios);
	ck_assert_uint_eq(bytes, o->bytes);
}
END_TEST

/*
 * How far each top-level I/O was followed, per operation, and where it
 * ended, counted at that layer (issue 28, 1).
 */
START_TEST(reach_per_op_and_layer)
{
	struct tk_rec r[2] = {
		{ .dev = DM0, .parent = -1, .kind = TK_LAYER_BIO, .op = BLK_OP_DISCARD,
		  .sectors = 8, .q = 10, .down = 11, .up = 19, .c = 20 },
		{ .dev = SDA, .parent = 0, .parent_dev = DM0, .depth = 1, .kind = TK_LAYER_REQUEST,
		  .op = BLK_OP_DISCARD, .sectors = 8, .q = 11, .c = 19 },
	};

	feed_io(r, 2, TK_IO_TOP, TK_REACH_DISK, 0, 1, "fstrim");
	feed_io(r, 1, TK_IO_TOP, TK_REACH_SELF, DM0, 1, "fstrim");
	feed_io(r, 1, TK_IO_TOP, TK_REACH_ENDED, DM0, 1, "fstrim");
	feed_io(r, 1, TK_IO_TOP, TK_REACH_ENDED, DM0, 1, "fstrim");
	feed_io(r, 2, TK_IO_TOP, TK_REACH_PARTIAL, SDA, 1, "fstrim");
	ck_assert_uint_eq(st->e2e[ST_DISCARD].ios, 5);
	ck_assert_uint_eq(st->e2e[ST_DISCARD].matched, 1);
	ck_assert_uint_eq(st->e2e[ST_DISCARD].reach[TK_REACH_DISK], 1);
	ck_assert_uint_eq(st->e2e[ST_DISCARD].reach[TK_REACH_SELF], 1);
	ck_assert_uint_eq(st->e2e[ST_DISCARD].reach[TK_REACH_ENDED], 2);
	ck_assert_uint_eq(st->e2e[ST_DISCARD].reach[TK_REACH_PARTIAL], 1);
	ck_assert_uint_eq(stats_layer(st, DM0)->op[ST_DISCARD].top_end[TK_REACH_ENDED], 2);
	ck_assert_uint_eq(stats_layer(st, DM0)->op[ST_DISCARD].top_end[TK_REACH_SELF], 1);
	ck_assert_uint_eq(stats_layer(st, SDA)->op[ST_DISCARD].top_end[TK_REACH_PARTIAL], 1);
	ck_assert_uint_eq(stats_layer(st, SDA)->op[ST_DISCARD].top_end[TK_REACH_ENDED], 0);
	ck_assert_uint_eq(st->e2e[ST_READ].ios, 0);
}
END_TEST

/*
 * A request the layer made itself (the flush machinery's) was never
 * queued: no submission of 0 us, but its time from its issue (issue 28, 8).
 */
START_TEST(unqueued_request_has_no_submission)
{
	struct tk_rec r = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
			    .op = BLK_OP_FLUSH, .q = 100, .d = 100, .down = 100, .up = 160,
			    .c = 160, .no_q = true };
	const struct st_layer_op *o;

	feed(&r, 1, false, 1, "kworker");
	o = &stats_layer(st, SDA)->op[ST_FLUSH];
	ck_assert_uint_eq(o->ios, 1);
	ck_assert_uint_eq(o->sub.count, 0);
	ck_assert_uint_eq(o->total.count, 1);
	ck_assert_uint_eq(o->total.max, 60);
}
END_TEST

START_TEST(merged_bio_and_layer_issued)
{
	struct tk_rec merged = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				 .op = BLK_OP_WRITE, .merge = TK_MERGE_BACK, .sectors = 8,
				 .q = 100, .qev = 100, .m = 104, .d = 150, .down = 150, .up = 400,
				 .c = 400 };
	struct tk_rec zeroing = { .dev = DM0, .parent = -1, .kind = TK_LAYER_BIO,
				  .op = BLK_OP_WRITE, .sectors = 128, .q = 10, .c = 90,
				  .error = -5 };
	const struct st_layer_op *o;

	feed(&merged, 1, true, 1, "a");
	feed(&zeroing, 1, false, 2, "kworker/0:1");
	o = &stats_layer(st, SDA)->op[ST_WRITE];
	ck_assert_uint_eq(o->merges_back, 1);
	ck_assert_uint_eq(o->q2m.max, 4);
	ck_assert_uint_eq(o->q2g.count, 0);
	o = &stats_layer(st, DM0)->op[ST_WRITE];
	ck_assert_uint_eq(o->issued, 1);
	ck_assert_uint_eq(o->errors, 1);
	ck_assert_uint_eq(o->total.max, 80);
	ck_assert_uint_eq(o->sub.count, 0);	/* a bio-based leaf has no way down */
	/* only the top-level I/O is end to end, and only its process */
	ck_assert_uint_eq(st->e2e[ST_WRITE].ios, 1);
	ck_assert_uint_eq(st->nprocs, 1);
	ck_assert_str_eq(st->procs[0].comm, "a");
}
END_TEST

/*
 * A request inserted into a scheduler: Q 1000, G 1010, I 1040, D 1100, C 1500.
 * Q2G 10, G2I 30, I2D 60, no G2D, D2C 400, Q2C 500; submission Q to D 100.
 */
START_TEST(inserted_request_phases)
{
	struct tk_rec r = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
			    .op = BLK_OP_READ, .sectors = 256, .q = 1000, .qev = 1000, .g = 1010, .i = 1040,
			    .d = 1100, .down = 1100, .up = 1500, .c = 1500 };
	const struct st_layer_op *o;

	feed(&r, 1, true, 3, "fio");
	o = &stats_layer(st, SDA)->op[ST_READ];
	ck_assert_uint_eq(o->q2g.sum, 10);
	ck_assert_uint_eq(o->g2i.sum, 30);
	ck_assert_uint_eq(o->i2d.sum, 60);
	ck_assert_uint_eq(o->g2d.count, 0);
	ck_assert_uint_eq(o->d2c.sum, 400);
	ck_assert_uint_eq(o->q2c.sum, 500);
	ck_assert_uint_eq(o->q2m.count, 0);
	ck_assert_uint_eq(o->sub.sum, 100);
	ck_assert_uint_eq(o->comp.sum, 0);	/* up == C at a disk */
	ck_assert_uint_eq(o->size.sum, 131072);
	/* a leaf alone: the waterfall is submission 100 + device 400 = 500 */
	ck_assert_uint_eq(st->e2e[ST_READ].shares[0].sub_ns, 100);
	ck_assert_uint_eq(st->e2e[ST_READ].shares[0].dev_ns, 400);
	ck_assert_uint_eq(st->first_ts, 1000);
	ck_assert_uint_eq(st->last_ts, 1500);
}
END_TEST

/*
 * I2D once per request issued as itself: not for a bio merged into a
 * request (M), nor for a request the scheduler merged into another, whose
 * own D never came (btt finds no D at its start: issue 12, item 5).
 */
START_TEST(i2d_once_per_issued_request)
{
	struct tk_rec started = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				  .op = BLK_OP_WRITE, .sectors = 8, .q = 100, .qev = 100,
				  .g = 110, .i = 120, .d = 200, .c = 300 };
	struct tk_rec merged = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				 .op = BLK_OP_WRITE, .sectors = 8, .q = 130, .qev = 130,
				 .merge = TK_MERGE_BACK, .m = 131, .i = 120, .d = 200, .c = 300 };
	struct tk_rec absorbed = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				   .op = BLK_OP_WRITE, .sectors = 8, .q = 140, .qev = 140,
				   .g = 141, .i = 150, .m = 160, .d = 200, .c = 300,
				   .rq_merged = true };
	const struct st_layer_op *o;

	feed(&started, 1, true, 3, "fio");
	feed(&merged, 1, true, 3, "fio");
	feed(&absorbed, 1, true, 3, "fio");
	o = &stats_layer(st, SDA)->op[ST_WRITE];
	ck_assert_uint_eq(o->i2d.count, 1);
	ck_assert_uint_eq(o->i2d.sum, 80);
	ck_assert_uint_eq(o->q2g.count, 2);	/* both requests were started */
	ck_assert_uint_eq(o->g2i.count, 2);	/* and both inserted */
	/* the merged bio, and the absorbed request's bio: btt sees an M at its start */
	ck_assert_uint_eq(o->q2m.count, 2);
	ck_assert_uint_eq(o->q2m.sum, 1 + 20);
	ck_assert_uint_eq(o->d2c.count, 3);	/* every bio completed with its request */
}
END_TEST

/*
 * btt follows bios with data from their queue event: each piece of a bio
 * split at the disk starts a request (Q2G from the bio's Q) but has no D2C
 * or Q2C; a flush request no bio was queued for, and an empty preflush bio
 * (a "flush" at every layer), are in the layer's counts and latencies but
 * not in its btt phases (btt compared on a real trace in test-agree-btt).
 */
START_TEST(btt_phases_leave_out_splits_and_unqueued)
{
	struct tk_rec split[3] = {
		{ .dev = SDA1, .parent = -1, .kind = TK_LAYER_REMAP, .op = BLK_OP_READ,
		  .sectors = 2048, .q = 10, .down = 11, .up = 300, .c = 300 },
		{ .dev = SDA, .parent = 0, .parent_dev = SDA1, .depth = 1,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ, .sectors = 1024, .q = 11,
		  .qev = 12, .g = 13, .d = 14, .c = 200, .splits = 1 },
		{ .dev = SDA, .parent = 0, .parent_dev = SDA1, .depth = 1,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ, .sectors = 1024, .q = 11,
		  .qev = 12, .g = 15, .d = 16, .c = 300, .split_rest = true },
	};
	struct tk_rec flush = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				.op = BLK_OP_FLUSH, .q = 400, .d = 400, .down = 400, .c = 900 };
	struct tk_rec plain = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				.op = BLK_OP_READ, .sectors = 8, .q = 1000, .qev = 1000,
				.g = 1001, .d = 1002, .c = 1100 };
	/* an empty preflush bio: queued, got a request, never issued itself */
	struct tk_rec preflush = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				   .op = BLK_OP_WRITE, .flags = BLK_F_PREFLUSH, .q = 2000,
				   .qev = 2000, .g = 2001, .c = 2500 };
	const struct st_layer_op *o;

	feed(split, 3, true, 5, "cat");
	feed(&flush, 1, false, 6, "kworker/0:1H");
	feed(&plain, 1, true, 7, "cat");
	feed(&preflush, 1, true, 8, "jbd2/sda1-8");
	ck_assert_uint_eq(stats_layer(st, SDA)->op[ST_WRITE].ios, 0);
	o = &stats_layer(st, SDA)->op[ST_READ];
	ck_assert_uint_eq(o->ios, 3);
	ck_assert_uint_eq(o->total.count, 3);
	ck_assert_uint_eq(o->d2c.count, 1);
	ck_assert_uint_eq(o->d2c.sum, 98);
	ck_assert_uint_eq(o->q2c.sum, 100);
	ck_assert_uint_eq(o->q2g.count, 3);	/* both pieces, and the plain read */
	ck_assert_uint_eq(o->q2g.sum, 1 + 3 + 1);
	o = &stats_layer(st, SDA)->op[ST_FLUSH];
	ck_assert_uint_eq(o->ios, 2);		/* the flush request, the empty bio */
	ck_assert_uint_eq(o->total.sum, 500 + 500);
	ck_assert_uint_eq(o->q2g.count + o->d2c.count + o->q2c.count, 0);
}
END_TEST

/*
 * 0 is "not seen", and an interval whose end is before its start (a
 * record the tracker had to infer) is garbage: neither is ever counted.
 */
START_TEST(absent_and_garbage_timestamps)
{
	struct tk_rec r[2] = {
		/* dm: never went down (0), up before Q (garbage), C before up */
		{ .dev = DM0, .parent = -1, .kind = TK_LAYER_BIO, .op = BLK_OP_WRITE,
		  .sectors = 8, .q = 500, .down = 0, .up = 400, .c = 450 },
		/* disk: no G, no D, no M; C before Q */
		{ .dev = SDA, .parent = 0, .parent_dev = DM0, .depth = 1,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_WRITE, .sectors = 8, .q = 600,
		  .qev = 600, .up = 0, .c = 550 },
	};
	const struct st_layer_op *o;

	feed(r, 2, true, 9, "x");
	o = &stats_layer(st, DM0)->op[ST_WRITE];
	ck_assert_uint_eq(o->ios, 1);		/* counted as an I/O ... */
	ck_assert_uint_eq(o->bytes, 4096);
	ck_assert_uint_eq(o->sub.count, 0);	/* ... but with no latency */
	ck_assert_uint_eq(o->comp.count, 1);	/* 450 - 400: both seen, in order */
	ck_assert_uint_eq(o->comp.sum, 50);
	ck_assert_uint_eq(o->total.count, 0);	/* 450 < 500 */
	o = &stats_layer(st, SDA)->op[ST_WRITE];
	ck_assert_uint_eq(o->ios, 1);
	ck_assert_uint_eq(o->sub.count + o->comp.count + o->total.count, 0);
	ck_assert_uint_eq(o->q2g.count + o->g2i.count + o->i2d.count + o->g2d.count, 0);
	ck_assert_uint_eq(o->d2c.count + o->q2c.count + o->q2m.count, 0);
	/* no end-to-end latency and no waterfall from a root C before its Q */
	ck_assert_uint_eq(st->e2e[ST_WRITE].ios, 1);
	ck_assert_uint_eq(st->e2e[ST_WRITE].total.count, 0);
	ck_assert_uint_eq(st->e2e[ST_WRITE].total_ns, 0);
	ck_assert_uint_eq(st->e2e[ST_WRITE].nshares, 0);
}
END_TEST

/*
 * dm (Q 0+100, down 110, up 300, C 330) over zram, a bio-based leaf with
 * no way down (Q 110, C 300): zram's share is its Q to C, 190, as device.
 */
START_TEST(bio_based_leaf_waterfall)
{
	struct tk_rec r[2] = {
		{ .dev = DM0, .parent = -1, .kind = TK_LAYER_BIO, .op = BLK_OP_WRITE,
		  .sectors = 8, .q = 100, .down = 110, .up = 300, .c = 330 },
		{ .dev = ZRAM0, .parent = 0, .parent_dev = DM0, .depth = 1,
		  .kind = TK_LAYER_BIO, .op = BLK_OP_WRITE, .sectors = 8, .q = 110, .c = 300 },
	};
	const struct st_e2e *e;

	feed(r, 2, true, 9, "x");
	e = &st->e2e[ST_WRITE];
	ck_assert_uint_eq(e->total_ns, 230);
	ck_assert_uint_eq(e->shares[0].sub_ns, 10);
	ck_assert_uint_eq(e->shares[0].comp_ns, 30);
	ck_assert_uint_eq(e->shares[1].dev, ZRAM0);
	ck_assert_uint_eq(e->shares[0].sub_n, 1);
	ck_assert_uint_eq(e->shares[1].sub_ns, 0);
	/* zram never sends it down: no submission, not one of 0 (issue 28, 8) */
	ck_assert_uint_eq(e->shares[1].sub_n, 0);
	ck_assert_uint_eq(e->shares[1].dev_ns, 190);
	ck_assert_uint_eq(stats_layer(st, ZRAM0)->op[ST_WRITE].sub.count, 0);
	ck_assert_uint_eq(stats_layer(st, ZRAM0)->op[ST_WRITE].d2c.count, 0);
	ck_assert_uint_eq(stats_layer(st, ZRAM0)->op[ST_WRITE].total.sum, 190);
}
END_TEST

/* the common sizes are exact: the bucket's midpoint rounded to a sector */
START_TEST(size_percentiles_whole_sectors)
{
	static const uint64_t sizes[] = { 512, 4096, 8192, 65536, 131072, 1048576 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct hist h;

		memset(&h, 0, sizeof(h));
		for (int n = 0; n < 10; n++)
			hist_add(&h, sizes[k]);
		hist_add(&h, 4 * sizes[k]);
		ck_assert_uint_eq(stats_size_percentile(&h, 50), sizes[k]);
		ck_assert_uint_eq(stats_size_percentile(&h, 99), 4 * sizes[k]);
	}
}
END_TEST

START_TEST(processes_capped)
{
	struct tk_rec r = { .dev = SDA, .parent = -1, .op = BLK_OP_READ, .sectors = 1, .q = 1,
			    .c = 2 };

	for (int pid = 0; pid < ST_MAX_PROCS + 10; pid++)
		feed(&r, 1, true, pid, "p");
	ck_assert_uint_eq(st->nprocs, ST_MAX_PROCS + 1);
	ck_assert_int_eq(st->procs[ST_MAX_PROCS].pid, -1);
	ck_assert_str_eq(st->procs[ST_MAX_PROCS].comm, "p");
	ck_assert_uint_eq(st->procs[ST_MAX_PROCS].ios, 10);
	/* past the cap, a late process is still named: by its command (issue 28, 7) */
	r.sectors = 1000;
	feed(&r, 1, true, 100000, "fstrim");
	feed(&r, 1, true, 100001, "fstrim");
	ck_assert_uint_eq(st->nprocs, ST_MAX_PROCS + 2);
	ck_assert_int_eq(st->procs[ST_MAX_PROCS + 1].pid, -1);
	ck_assert_str_eq(st->procs[ST_MAX_PROCS + 1].comm, "fstrim");
	ck_assert_uint_eq(st->procs[ST_MAX_PROCS + 1].bytes, 2 * 1000 * 512);
	/* past as many names, the rest is "other" */
	for (int i = 0; i < ST_MAX_COMMS; i++) {
		char comm[16];

		snprintf(comm, sizeof(comm), "c%d", i);
		feed(&r, 1, true, 200000 + i, comm);
	}
	ck_assert_uint_eq(st->nprocs, ST_PROC_SLOTS);
	ck_assert_int_eq(st->procs[ST_PROC_SLOTS - 1].pid, -2);
	ck_assert_str_eq(st->procs[ST_PROC_SLOTS - 1].comm, "other");
	ck_assert_uint_eq(st->procs[ST_PROC_SLOTS - 1].ios, 2);
	stats_reset(st);
	ck_assert_uint_eq(st->nprocs, 0);
	ck_assert_uint_eq(st->nnames, 0);
	ck_assert_uint_eq(st->nlayers, 0);
	ck_assert_uint_eq(st->e2e[ST_READ].ios, 0);
}
END_TEST

/*
 * Forty devices: the layers' array grows past its first 8 and 16 entries
 * (moved, not copied), each layer keeps its own figures, and after a reset
 * the layers found again start from zero.
 */
START_TEST(many_layers_grow_and_reset)
{
	for (int round = 0; round < 2; round++) {
		for (uint32_t i = 0; i < 40; i++) {
			struct tk_rec r = { .dev = KDEV_MKDEV(8, i), .parent = -1,
					    .op = BLK_OP_READ, .sectors = 1, .q = 10,
					    .c = 10 + 1000 * (i + 1) };

			for (uint32_t n = 0; n <= i % 3; n++)
				feed(&r, 1, true, 7, "p");
		}
		ck_assert_uint_eq(st->nlayers, 40);
		ck_assert_uint_ge(st->layers_cap, 40);
		for (uint32_t i = 0; i < 40; i++) {
			const struct st_layer *l = stats_layer(st, KDEV_MKDEV(8, i));

			ck_assert_ptr_nonnull(l);
			ck_assert_uint_eq(l->op[ST_READ].ios, i % 3 + 1);
			ck_assert_uint_eq(l->op[ST_READ].total.count, i % 3 + 1);
			ck_assert_uint_eq(l->op[ST_READ].total.max, 1000 * (i + 1));
			ck_assert_uint_eq(l->op[ST_WRITE].ios, 0);
		}
		stats_reset(st);
		ck_assert_uint_eq(st->nlayers, 0);
		ck_assert_ptr_null(stats_layer(st, KDEV_MKDEV(8, 0)));
	}
}
END_TEST

/*
 * A top-level root's total at its layer and its end-to-end latency are one
 * value, bucketed once: both histograms take it alike, and a root with no
 * Q seen (0) still gives its end-to-end C - 0, bucketed on its own.
 */
START_TEST(root_total_is_end_to_end)
{
	struct tk_rec a = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ,
			    .sectors = 8, .q = 1000, .qev = 1000, .g = 1100, .d = 1200,
			    .down = 1200, .up = 91000, .c = 91000, .complete = true };
	struct tk_rec b = { .dev = SDA, .parent = -1, .kind = TK_LAYER_BIO, .op = BLK_OP_READ,
			    .sectors = 8, .q = 0, .c = 700, .complete = true };
	const struct st_layer_op *o;
	const struct st_e2e *e = &st->e2e[ST_READ];

	feed(&a, 1, true, 7, "fio");
	o = &stats_layer(st, SDA)->op[ST_READ];
	ck_assert_uint_eq(o->total.count, 1);
	ck_assert_uint_eq(o->q2c.count, 1);
	ck_assert_uint_eq(e->total.count, 1);
	ck_assert_uint_eq(e->total.sum, 90000);
	ck_assert_uint_eq(st->procs[0].total.sum, 90000);
	for (unsigned int i = 0; i < HIST_BUCKETS; i++) {
		ck_assert_uint_eq(e->total.bucket[i], o->total.bucket[i]);
		ck_assert_uint_eq(st->procs[0].total.bucket[i], o->total.bucket[i]);
	}
	ck_assert_uint_eq(e->total.bucket[hist_bucket_of(90000)], 1);
	feed(&b, 1, true, 7, "fio");
	ck_assert_uint_eq(o->total.count, 1);		/* no Q: no total at the layer ... */
	ck_assert_uint_eq(e->total.count, 2);		/* ... but end to end, C - 0 */
	ck_assert_uint_eq(hist_min(&e->total), 700);
	ck_assert_uint_eq(e->total.bucket[hist_bucket_of(700)], 1);
	ck_assert_uint_eq(st->procs[0].total.count, 2);
}
END_TEST

/*
 * An interval is counted when both ends were seen and in order: one of
 * 0 ns (D at Q) counts, one with an end not seen (0) does not, whatever
 * the other end.
 */
START_TEST(spans_of_zero_and_unseen_ends)
{
	struct tk_rec a = { .dev = SDA, .parent = -1, .kind = TK_LAYER_BIO, .op = BLK_OP_WRITE,
			    .sectors = 8, .q = 500, .down = 500, .up = 900, .c = 900,
			    .complete = true };
	struct tk_rec b = { .dev = SDA, .parent = -1, .kind = TK_LAYER_BIO, .op = BLK_OP_WRITE,
			    .sectors = 8, .q = 0, .down = 0, .up = 0, .c = 0 };
	const struct st_layer_op *o;

	feed(&a, 1, true, 1, "x");
	feed(&b, 1, true, 1, "x");
	o = &stats_layer(st, SDA)->op[ST_WRITE];
	ck_assert_uint_eq(o->ios, 2);
	ck_assert_uint_eq(o->sub.count, 1);	/* 500 - 500 */
	ck_assert_uint_eq(o->sub.sum, 0);
	ck_assert_uint_eq(o->sub.bucket[0], 1);
	ck_assert_uint_eq(o->comp.count, 1);	/* 900 - 900 */
	ck_assert_uint_eq(o->comp.max, 0);
	ck_assert_uint_eq(o->total.count, 1);	/* b: no Q seen */
	ck_assert_uint_eq(o->total.sum, 400);
}
END_TEST

/*
 * Sizes repeat, and each operation keeps the last one's bucket: sizes that
 * change, a 0-byte bio and a reset still land in their own buckets.
 */
START_TEST(size_buckets_as_sizes_change)
{
	static const uint32_t sectors[] = { 8, 8, 128, 8, 0, 0, 2048 };
	struct tk_rec r = { .dev = SDA, .parent = -1, .kind = TK_LAYER_BIO, .op = BLK_OP_READ,
			    .q = 100, .c = 200, .complete = true };
	const struct hist *h;

	for (size_t i = 0; i < sizeof(sectors) / sizeof(*sectors); i++) {
		r.sectors = sectors[i];
		feed(&r, 1, true, 1, "x");
	}
	h = &stats_layer(st, SDA)->op[ST_READ].size;
	ck_assert_uint_eq(h->count, 7);
	ck_assert_uint_eq(h->bucket[hist_bucket_of(4096)], 3);
	ck_assert_uint_eq(h->bucket[hist_bucket_of(65536)], 1);
	ck_assert_uint_eq(h->bucket[hist_bucket_of(1048576)], 1);
	ck_assert_uint_eq(h->bucket[0], 2);
	ck_assert_uint_eq(hist_min(h), 0);
	ck_assert_uint_eq(h->max, 1048576);
	stats_reset(st);
	r.sectors = 128;
	feed(&r, 1, true, 1, "x");
	h = &stats_layer(st, SDA)->op[ST_READ].size;
	ck_assert_uint_eq(h->count, 1);
	ck_assert_uint_eq(h->bucket[hist_bucket_of(65536)], 1);
}
END_TEST

START_TEST(op_names)
{
	ck_assert_int_eq(st_op_of(BLK_OP_SECURE_ERASE), ST_DISCARD);
	ck_assert_int_eq(st_op_of(BLK_OP_OTHER), ST_OTHER);
	ck_assert_str_eq(st_op_name(ST_FLUSH), "flush");
}
END_TEST

/* md0 (9:0) on four members, in the order a trace shows them: members first */
START_TEST(stack_order_md_top_first)
{
	const uint32_t devs[] = { KDEV_MKDEV(254, 16), KDEV_MKDEV(254, 0), KDEV_MKDEV(9, 0),
				  KDEV_MKDEV(254, 48), KDEV_MKDEV(254, 32) };
	const uint32_t parents[] = { KDEV_MKDEV(9, 0), KDEV_MKDEV(9, 0), 0, KDEV_MKDEV(9, 0),
				     KDEV_MKDEV(9, 0) };
	const size_t want[] = { 2, 1, 0, 4, 3 };
	size_t order[5];

	ck_assert_int_eq(stack_order(devs, parents, 5, order), 0);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(order[i], want[i]);
}
END_TEST

/*
 * dm-snapshot: origin dm-1 over base dm-0 over nvme0n1, snapshot dm-2 over
 * its COW disk nvme1n1: each top, then what is under it, depth first (the
 * device numbers alone would give dm-0, dm-1, dm-2, nvme0n1, nvme1n1)
 */
START_TEST(stack_order_depth_first)
{
	const uint32_t dm0 = KDEV_MKDEV(253, 0), dm1 = KDEV_MKDEV(253, 1), dm2 = KDEV_MKDEV(253, 2);
	const uint32_t nv0 = KDEV_MKDEV(259, 0), nv1 = KDEV_MKDEV(259, 1);
	const uint32_t devs[] = { dm0, nv0, nv1, dm1, dm2 };
	const uint32_t parents[] = { dm1, dm0, dm2, 0, 0 };
	const size_t want[] = { 3, 0, 1, 4, 2 };
	size_t order[5];

	ck_assert_int_eq(stack_order(devs, parents, 5, order), 0);
	for (size_t i = 0; i < 5; i++)
		ck_assert_uint_eq(order[i], want[i]);
}
END_TEST

/* parents in a circle, and a parent that is not a layer: each device once */
START_TEST(stack_order_circle_and_strangers)
{
	const uint32_t devs[] = { 30, 10, 20, 40 };
	const uint32_t parents[] = { 20, 30, 10, 99 };
	bool seen[4] = { false };
	size_t order[4];

	ck_assert_int_eq(stack_order(devs, parents, 4, order), 0);
	/* 40's parent is no layer: a top, placed first; then the circle by number */
	ck_assert_uint_eq(order[0], 3);
	ck_assert_uint_eq(order[1], 1);
	for (size_t i = 0; i < 4; i++) {
		ck_assert(!seen[order[i]]);
		seen[order[i]] = true;
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("stats");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, per_layer_latencies);
	tcase_add_test(tc, end_to_end_waterfall);
	tcase_add_test(tc, waterfall_follows_last_piece);
	tcase_add_test(tc, waterfall_rows_and_parents_by_path);
	tcase_add_test(tc, merged_bio_and_layer_issued);
	tcase_add_test(tc, layer_io_by_class);
	tcase_add_test(tc, reach_per_op_and_layer);
	tcase_add_test(tc, unqueued_request_has_no_submission);
	tcase_add_test(tc, inserted_request_phases);
	tcase_add_test(tc, i2d_once_per_issued_request);
	tcase_add_test(tc, btt_phases_leave_out_splits_and_unqueued);
	tcase_add_test(tc, absent_and_garbage_timestamps);
	tcase_add_test(tc, bio_based_leaf_waterfall);
	tcase_add_test(tc, size_percentiles_whole_sectors);
	tcase_add_test(tc, processes_capped);
	tcase_add_test(tc, many_layers_grow_and_reset);
	tcase_add_test(tc, root_total_is_end_to_end);
	tcase_add_test(tc, spans_of_zero_and_unseen_ends);
	tcase_add_test(tc, size_buckets_as_sizes_change);
	tcase_add_test(tc, op_names);
	tcase_add_test(tc, stack_order_md_top_first);
	tcase_add_test(tc, stack_order_depth_first);
	tcase_add_test(tc, stack_order_circle_and_strangers);
	suite_add_tcase(s, tc);
	return check_run(s);
}
