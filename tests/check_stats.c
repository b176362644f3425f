// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_stats.c - the statistics of hand-built I/O trees, against numbers
 * computed by hand in the comments.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "check_run.h"

#define DM0	KDEV_MKDEV(253, 0)
#define SDA	KDEV_MKDEV(8, 0)
#define SDA1	KDEV_MKDEV(8, 1)
#define SDB	KDEV_MKDEV(8, 16)

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

static void feed(struct tk_rec *recs, size_t n, bool top, int32_t pid, const char *comm)
{
	struct tk_io io = { .pid = pid, .top = top, .matched = true, .root = recs, .recs = recs,
			    .nrecs = n };

	strncpy(io.comm, comm, sizeof(io.comm) - 1);
	stats_io(&io, st);
}

/*
 * dm (Q 100, down 110, up 500, C 520) -> partition (Q 110, down 115, up and
 * C 500) -> disk (Q 115, G 120, D 130, C 500): 8 sectors written.
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
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_WRITE, .sectors = 8, .q = 115, .g = 120,
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
	ck_assert_uint_eq(o->sub.max, 15);	/* Q to issue */
	ck_assert_uint_eq(o->q2g.max, 5);
	ck_assert_uint_eq(o->g2i.count, 0);	/* never inserted: no G2I, no I2D */
	ck_assert_uint_eq(o->i2d.count, 0);
	ck_assert_uint_eq(o->d2c.max, 370);	/* 500 - 130 */
	ck_assert_uint_eq(o->q2c.max, 385);
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
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ, .sectors = 8, .q = 10, .g = 11,
		  .d = 20, .down = 20, .up = 200, .c = 200 },
		{ .dev = SDB, .parent = 0, .parent_dev = DM0, .depth = 1,
		  .kind = TK_LAYER_REQUEST, .op = BLK_OP_READ, .sectors = 8, .q = 12, .g = 13,
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
}
END_TEST

START_TEST(merged_bio_and_layer_issued)
{
	struct tk_rec merged = { .dev = SDA, .parent = -1, .kind = TK_LAYER_REQUEST,
				 .op = BLK_OP_WRITE, .merge = TK_MERGE_BACK, .sectors = 8,
				 .q = 100, .m = 104, .d = 150, .down = 150, .up = 400, .c = 400 };
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

START_TEST(processes_capped)
{
	struct tk_rec r = { .dev = SDA, .parent = -1, .op = BLK_OP_READ, .sectors = 1, .q = 1,
			    .c = 2 };

	for (int pid = 0; pid < ST_MAX_PROCS + 10; pid++)
		feed(&r, 1, true, pid, "p");
	ck_assert_uint_eq(st->nprocs, ST_MAX_PROCS + 1);
	ck_assert_int_eq(st->procs[ST_MAX_PROCS].pid, -1);
	ck_assert_uint_eq(st->procs[ST_MAX_PROCS].ios, 10);
	stats_reset(st);
	ck_assert_uint_eq(st->nprocs, 0);
	ck_assert_uint_eq(st->nlayers, 0);
	ck_assert_uint_eq(st->e2e[ST_READ].ios, 0);
}
END_TEST

START_TEST(op_names)
{
	ck_assert_int_eq(st_op_of(BLK_OP_SECURE_ERASE), ST_DISCARD);
	ck_assert_int_eq(st_op_of(BLK_OP_OTHER), ST_OTHER);
	ck_assert_str_eq(st_op_name(ST_FLUSH), "flush");
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
	tcase_add_test(tc, merged_bio_and_layer_issued);
	tcase_add_test(tc, processes_capped);
	tcase_add_test(tc, op_names);
	suite_add_tcase(s, tc);
	return check_run(s);
}
