// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_event.c - action letters, tracepoint names, and rwbs rendered the way
 * blkparse renders blktrace's category bits.
 */
#include <check.h>
#include <string.h>

#include "base/event.h"
#include "check_run.h"

static const struct {
	enum blk_kind kind;
	char action;
	const char *name;
} kinds[] = {
	{ BLK_EV_BIO_QUEUE, 'Q', "block_bio_queue" },
	{ BLK_EV_BIO_BACKMERGE, 'M', "block_bio_backmerge" },
	{ BLK_EV_BIO_FRONTMERGE, 'F', "block_bio_frontmerge" },
	{ BLK_EV_GETRQ, 'G', "block_getrq" },
	{ BLK_EV_RQ_INSERT, 'I', "block_rq_insert" },
	{ BLK_EV_RQ_ISSUE, 'D', "block_rq_issue" },
	{ BLK_EV_RQ_MERGE, 'M', "block_rq_merge" },
	{ BLK_EV_RQ_REQUEUE, 'R', "block_rq_requeue" },
	{ BLK_EV_RQ_COMPLETE, 'C', "block_rq_complete" },
	{ BLK_EV_BIO_COMPLETE, 'C', "block_bio_complete" },
	{ BLK_EV_BIO_REMAP, 'A', "block_bio_remap" },
	{ BLK_EV_RQ_REMAP, 'A', "block_rq_remap" },
	{ BLK_EV_SPLIT, 'X', "block_split" },
	{ BLK_EV_PLUG, 'P', "block_plug" },
	{ BLK_EV_UNPLUG, 'U', "block_unplug" },
	{ BLK_EV_IO_START, 0, "block_io_start" },
	{ BLK_EV_RQ_ERROR, 0, "block_rq_error" },
};

START_TEST(kind_letters)
{
	ck_assert_int_eq(blk_kind_action(kinds[_i].kind), kinds[_i].action);
	ck_assert_str_eq(blk_kind_name(kinds[_i].kind), kinds[_i].name);
}
END_TEST

START_TEST(kind_out_of_range)
{
	ck_assert_int_eq(blk_kind_action(BLK_EV_NONE), 0);
	ck_assert_int_eq(blk_kind_action(BLK_EV_KIND_MAX), 0);
	ck_assert_ptr_null(blk_kind_name(BLK_EV_KIND_MAX));
}
END_TEST

/* kernel rwbs -> op, flags -> what blkparse prints for the same I/O */
static const struct {
	const char *rwbs;
	unsigned int nr_sector;
	int ret;
	uint8_t op;
	uint16_t flags;
	const char *blkparse;
} rwbs_cases[] = {
	{ "W", 8, 0, BLK_OP_WRITE, 0, "W" },
	{ "WS", 8, 0, BLK_OP_WRITE, BLK_F_SYNC, "WS" },
	{ "FWS", 8, 0, BLK_OP_WRITE, BLK_F_PREFLUSH | BLK_F_SYNC, "FWS" },
	{ "WFS", 8, 0, BLK_OP_WRITE, BLK_F_FUA | BLK_F_SYNC, "WFS" },
	{ "FWFSM", 8, 0, BLK_OP_WRITE, BLK_F_PREFLUSH | BLK_F_FUA | BLK_F_SYNC | BLK_F_META,
	  "FWFSM" },
	{ "R", 8, 0, BLK_OP_READ, 0, "R" },
	{ "RA", 8, 0, BLK_OP_READ, BLK_F_RAHEAD, "RA" },
	{ "RM", 8, 0, BLK_OP_READ, BLK_F_META, "RM" },
	/* a read with no data is N in blkparse: blktrace has no read bit */
	{ "R", 0, 0, BLK_OP_READ, 0, "N" },
	{ "D", 8, 0, BLK_OP_DISCARD, 0, "D" },
	{ "DE", 8, 0, BLK_OP_SECURE_ERASE, 0, "D" },
	/* an empty flush request: blktrace's flush bit, no write, no bytes */
	{ "F", 0, 0, BLK_OP_FLUSH, 0, "FN" },
	{ "FF", 0, 0, BLK_OP_FLUSH, BLK_F_PREFLUSH, "FN" },
	{ "FS", 0, 0, BLK_OP_FLUSH, BLK_F_SYNC, "FNS" },
	{ "N", 0, 0, BLK_OP_OTHER, 0, "N" },
	/* write-zeroes: blktrace sets its write bit */
	{ "NS", 8, 0, BLK_OP_OTHER, BLK_F_SYNC, "WS" },
	{ "", 0, -22, BLK_OP_OTHER, 0, "N" },
	{ "WX", 8, -22, BLK_OP_WRITE, 0, "W" },
};

START_TEST(rwbs_parse_and_render)
{
	struct blk_event ev = { 0 };
	char buf[8];
	int ret;

	ret = blk_rwbs_parse(rwbs_cases[_i].rwbs, 10, &ev.op, &ev.flags);
	ck_assert_msg(ret == rwbs_cases[_i].ret, "'%s': ret %d", rwbs_cases[_i].rwbs, ret);
	ck_assert_msg(ev.op == rwbs_cases[_i].op, "'%s': op %d", rwbs_cases[_i].rwbs, ev.op);
	ck_assert_msg(ev.flags == rwbs_cases[_i].flags, "'%s': flags %#x",
		      rwbs_cases[_i].rwbs, ev.flags);
	ev.nr_sector = rwbs_cases[_i].nr_sector;
	ev.bytes = ev.nr_sector * 512;
	ck_assert_str_eq(blk_rwbs_blkparse(&ev, buf), rwbs_cases[_i].blkparse);
}
END_TEST

START_TEST(rwbs_not_terminated)
{
	/* the field is a fixed array: a full one has no NUL */
	const char raw[4] = { 'W', 'S', 'X', 'Y' };
	uint8_t op;
	uint16_t flags;

	ck_assert_int_eq(blk_rwbs_parse(raw, 2, &op, &flags), 0);
	ck_assert_int_eq(op, BLK_OP_WRITE);
	ck_assert_int_eq(flags, BLK_F_SYNC);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("event");
	TCase *tc = tcase_create("kinds");

	tcase_add_loop_test(tc, kind_letters, 0, sizeof(kinds) / sizeof(kinds[0]));
	tcase_add_test(tc, kind_out_of_range);
	suite_add_tcase(s, tc);
	tc = tcase_create("rwbs");
	tcase_add_loop_test(tc, rwbs_parse_and_render, 0,
			    sizeof(rwbs_cases) / sizeof(rwbs_cases[0]));
	tcase_add_test(tc, rwbs_not_terminated);
	suite_add_tcase(s, tc);
	return check_run(s);
}
