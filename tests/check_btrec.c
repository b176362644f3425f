// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_btrec.c - blktrace records from decoded events, against golden
 * bytes laid out field by field from blktrace's struct blk_io_trace
 * (little-endian header, big-endian payloads); then the per-CPU files of
 * output/blktrace.c: sequence numbers per device and CPU, process notes, and
 * the plug attribution of plugdev (and of the text log, which uses it).
 */
#include <check.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "format/btrec.h"
#include "output/blkparse.h"
#include "output/blktrace.h"
#include "track/plugdev.h"

#define T0 1000000000ULL

static struct blk_event mk(enum blk_kind kind, unsigned int ma, unsigned int mi, int cpu,
			   uint64_t dt, int pid, const char *rwbs, uint64_t sector,
			   unsigned int nr, const char *comm)
{
	struct blk_event ev = {
		.kind = kind, .dev = KDEV_MKDEV(ma, mi), .cpu = cpu, .ts = T0 + dt,
		.pid = pid, .sector = sector, .nr_sector = nr, .bytes = nr * 512,
	};

	if (rwbs)
		blk_rwbs_parse(rwbs, strlen(rwbs), &ev.op, &ev.flags);
	if (comm)
		snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	return ev;
}

static const uint8_t golden_queue[] = {
	0x07, 0x74, 0x61, 0x65,	/* magic | version 7 */
	0x01, 0x00, 0x00, 0x00,	/* sequence 1 */
	0x7b, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00,	/* time 1000000123 ns */
	0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* sector 2048 */
	0x00, 0x00, 0x01, 0x00,	/* bytes 65536 */
	0x01, 0x00, 0x1a, 0x00,	/* action 0x001a0001 */
	0xd2, 0x04, 0x00, 0x00,	/* pid 1234 */
	0x10, 0x00, 0x80, 0x00,	/* device 8,16 */
	0x01, 0x00, 0x00, 0x00,	/* cpu 1 */
	0x00, 0x00,	/* error 0 */
	0x00, 0x00,	/* pdu_len 0 */
};

static const uint8_t golden_remap[] = {
	0x07, 0x74, 0x61, 0x65,	/* magic | version 7 */
	0x02, 0x00, 0x00, 0x00,	/* sequence 2 */
	0x40, 0xd7, 0x9d, 0x3b, 0x00, 0x00, 0x00, 0x00,	/* time 1000200000 ns */
	0x80, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* sector 33920 */
	0x00, 0x00, 0x01, 0x00,	/* bytes 65536 */
	0x0f, 0x00, 0x11, 0x08,	/* action 0x0811000f */
	0xd2, 0x04, 0x00, 0x00,	/* pid 1234 */
	0x10, 0x00, 0x80, 0x00,	/* device 8,16 */
	0x01, 0x00, 0x00, 0x00,	/* cpu 1 */
	0x00, 0x00,	/* error 0 */
	0x10, 0x00,	/* pdu_len 16 */
	0x00, 0x80, 0x00, 0x11,	/* from 8,17, big-endian */
	0x00, 0x80, 0x00, 0x10,	/* to 8,16 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x74, 0x80,	/* from sector 29824 */
};

static const uint8_t golden_split[] = {
	0x07, 0x74, 0x61, 0x65,	/* magic | version 7 */
	0x01, 0x00, 0x00, 0x00,	/* sequence 1 */
	0xe0, 0x5d, 0x9f, 0x3b, 0x00, 0x00, 0x00, 0x00,	/* time 1000300000 ns */
	0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* sector 1000 */
	0x00, 0x80, 0x00, 0x00,	/* bytes 32768: the piece, up to the new sector */
	0x0d, 0x00, 0x02, 0x00,	/* action 0x0002000d */
	0x4d, 0x00, 0x00, 0x00,	/* pid 77 */
	0x00, 0x00, 0xd0, 0x0f,	/* device 253,0 */
	0x01, 0x00, 0x00, 0x00,	/* cpu 1 */
	0x00, 0x00,	/* error 0 */
	0x08, 0x00,	/* pdu_len 8 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x28,	/* new sector 1064, big-endian */
};

static const uint8_t golden_unplug_timer[] = {
	0x07, 0x74, 0x61, 0x65,	/* magic | version 7 */
	0x03, 0x00, 0x00, 0x00,	/* sequence 3 */
	0x80, 0xe4, 0xa0, 0x3b, 0x00, 0x00, 0x00, 0x00,	/* time 1000400000 ns */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* sector 0 */
	0x00, 0x00, 0x00, 0x00,	/* bytes 0 */
	0x0b, 0x00, 0x11, 0x00,	/* action 0x0011000b */
	0xd2, 0x04, 0x00, 0x00,	/* pid 1234 */
	0x10, 0x00, 0x80, 0x00,	/* device 8,16 */
	0x00, 0x00, 0x00, 0x00,	/* cpu 0 */
	0x00, 0x00,	/* error 0 */
	0x08, 0x00,	/* pdu_len 8 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,	/* 3 requests, big-endian */
};

static const uint8_t golden_complete_error[] = {
	0x07, 0x74, 0x61, 0x65,	/* magic | version 7 */
	0x04, 0x00, 0x00, 0x00,	/* sequence 4 */
	0x60, 0x78, 0xa5, 0x3b, 0x00, 0x00, 0x00, 0x00,	/* time 1000700000 ns */
	0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* sector 2048 */
	0x00, 0x10, 0x00, 0x00,	/* bytes 4096 */
	0x08, 0x00, 0x82, 0x81,	/* action 0x81820008 */
	0x00, 0x00, 0x00, 0x00,	/* pid 0 */
	0x10, 0x00, 0x80, 0x00,	/* device 8,16 */
	0x00, 0x00, 0x00, 0x00,	/* cpu 0 */
	0xfb, 0xff,	/* error -5 */
	0x00, 0x00,	/* pdu_len 0 */
};

static const uint8_t golden_flush_complete[] = {
	0x07, 0x74, 0x61, 0x65,	/* magic | version 7 */
	0x05, 0x00, 0x00, 0x00,	/* sequence 5 */
	0xa0, 0x85, 0xa8, 0x3b, 0x00, 0x00, 0x00, 0x00,	/* time 1000900000 ns */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* sector 0 */
	0x00, 0x00, 0x00, 0x00,	/* bytes 0 */
	0x08, 0x00, 0x85, 0x01,	/* action 0x01850008 */
	0x00, 0x00, 0x00, 0x00,	/* pid 0 */
	0x10, 0x00, 0x80, 0x00,	/* device 8,16 */
	0x00, 0x00, 0x00, 0x00,	/* cpu 0 */
	0x00, 0x00,	/* error 0 */
	0x00, 0x00,	/* pdu_len 0 */
};

static const uint8_t golden_discard_issue[] = {
	0x07, 0x74, 0x61, 0x65,	/* magic | version 7 */
	0x06, 0x00, 0x00, 0x00,	/* sequence 6 */
	0x40, 0x0c, 0xaa, 0x3b, 0x00, 0x00, 0x00, 0x00,	/* time 1001000000 ns */
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* sector 4096 */
	0x00, 0x00, 0x10, 0x00,	/* bytes 1048576 */
	0x07, 0x00, 0x42, 0x21,	/* action 0x21420007 */
	0xd2, 0x04, 0x00, 0x00,	/* pid 1234 */
	0x10, 0x00, 0x80, 0x00,	/* device 8,16 */
	0x00, 0x00, 0x00, 0x00,	/* cpu 0 */
	0x00, 0x00,	/* error 0 */
	0x00, 0x00,	/* pdu_len 0 */
};

static const uint8_t golden_note[] = {
	0x07, 0x74, 0x61, 0x65,	/* magic | version 7 */
	0x00, 0x00, 0x00, 0x00,	/* sequence 0 */
	0x7b, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00,	/* time 1000000123 ns */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* sector 0 */
	0x00, 0x00, 0x00, 0x00,	/* bytes 0 */
	0x00, 0x00, 0x00, 0x04,	/* action 0x04000000 */
	0xd2, 0x04, 0x00, 0x00,	/* pid 1234 */
	0x10, 0x00, 0x80, 0x00,	/* device 8,16 */
	0x01, 0x00, 0x00, 0x00,	/* cpu 1 */
	0x00, 0x00,	/* error 0 */
	0x10, 0x00,	/* pdu_len 16 */
	0x64, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* "dd", NUL-padded */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* to 16 bytes */
};

/* The golden bytes are little-endian: on a big-endian host, swap them. */
static void host_order(uint8_t *b)
{
	static const struct {
		int off, size;
	} fields[] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 4 }, { 28, 4 }, { 32, 4 },
		{ 36, 4 }, { 40, 4 }, { 44, 2 }, { 46, 2 },
	};

	if (htole16(1) == 1)
		return;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		for (int j = 0; j < fields[i].size / 2; j++) {
			uint8_t t = b[fields[i].off + j];

			b[fields[i].off + j] = b[fields[i].off + fields[i].size - 1 - j];
			b[fields[i].off + fields[i].size - 1 - j] = t;
		}
}

static void check_bytes(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len,
			const char *what)
{
	uint8_t w[BTREC_MAX_SIZE];

	ck_assert_msg(got_len == want_len, "%s: %zu bytes, want %zu", what, got_len, want_len);
	memcpy(w, want, want_len);
	host_order(w);
	for (size_t i = 0; i < want_len; i++)
		ck_assert_msg(got[i] == w[i], "%s: byte %zu is 0x%02x, want 0x%02x", what, i,
			      got[i], w[i]);
}

START_TEST(encode_golden)
{
	uint8_t buf[BTREC_MAX_SIZE];
	struct blk_event ev;
	size_t n;

	ev = mk(BLK_EV_BIO_QUEUE, 8, 16, 1, 123, 1234, "WS", 2048, 128, "dd");
	n = btrec_encode_event(&ev, ev.dev, false, 1, buf);
	check_bytes(buf, n, golden_queue, sizeof(golden_queue), "queue");

	ev = mk(BLK_EV_BIO_REMAP, 8, 16, 1, 200000, 1234, "RA", 33920, 128, NULL);
	ev.old_dev = KDEV_MKDEV(8, 17);
	ev.aux_sector = 29824;
	n = btrec_encode_event(&ev, ev.dev, false, 2, buf);
	check_bytes(buf, n, golden_remap, sizeof(golden_remap), "remap");

	/*
	 * block_split has no size: the block layer's piece runs up to the new
	 * sector; the new sector goes in the payload
	 */
	ev = mk(BLK_EV_SPLIT, 253, 0, 1, 300000, 77, "W", 1000, 0, "kworker/u4:1");
	ev.aux_sector = 1064;
	n = btrec_encode_event(&ev, ev.dev, false, 1, buf);
	check_bytes(buf, n, golden_split, sizeof(golden_split), "split");
	/* dm's split names the remainder (new == sector), of unknown size:
	 * one sector, so that blkparse shows a read as R, as blktrace's does */
	ev.aux_sector = 1000;
	btrec_encode_event(&ev, ev.dev, false, 1, buf);
	ck_assert_uint_eq(buf[24] | buf[25] << 8 | buf[26] << 16 | (uint32_t)buf[27] << 24, 512);

	/* an unplug names no device: recorded under the one given */
	ev = mk(BLK_EV_UNPLUG, 0, 0, 0, 400000, 1234, NULL, 0, 0, "dd");
	ev.count = 3;
	n = btrec_encode_event(&ev, KDEV_MKDEV(8, 16), true, 3, buf);
	check_bytes(buf, n, golden_unplug_timer, sizeof(golden_unplug_timer), "unplug_timer");

	ev = mk(BLK_EV_RQ_COMPLETE, 8, 16, 0, 700000, 0, "WF", 2048, 8, NULL);
	ev.error = -5;
	n = btrec_encode_event(&ev, ev.dev, false, 4, buf);
	check_bytes(buf, n, golden_complete_error, sizeof(golden_complete_error), "complete");

	/* a flush request completes at position -1: blktrace records 0 */
	ev = mk(BLK_EV_RQ_COMPLETE, 8, 16, 0, 900000, 0, "F", UINT64_MAX, 0, NULL);
	n = btrec_encode_event(&ev, ev.dev, false, 5, buf);
	check_bytes(buf, n, golden_flush_complete, sizeof(golden_flush_complete), "flush");

	ev = mk(BLK_EV_RQ_ISSUE, 8, 16, 0, 1000000, 1234, "D", 4096, 2048, "fstrim");
	n = btrec_encode_event(&ev, ev.dev, false, 6, buf);
	check_bytes(buf, n, golden_discard_issue, sizeof(golden_discard_issue), "discard");

	n = btrec_encode_process(1234, "dd", KDEV_MKDEV(8, 16), 1, T0 + 123, buf);
	check_bytes(buf, n, golden_note, sizeof(golden_note), "note");
}
END_TEST

/* Each kind's action, and the kinds blktrace has none for. */
static const struct {
	enum blk_kind kind;
	bool timer;
	uint32_t action;	/* without the read/write bits */
} actions[] = {
	{ BLK_EV_BIO_QUEUE, false, BTREC_TA_QUEUE | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_BIO_BACKMERGE, false, BTREC_TA_BACKMERGE | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_BIO_FRONTMERGE, false, BTREC_TA_FRONTMERGE | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_BIO_BOUNCE, false, BTREC_TA_BOUNCE },
	{ BLK_EV_GETRQ, false, BTREC_TA_GETRQ | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_SLEEPRQ, false, BTREC_TA_SLEEPRQ | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_RQ_INSERT, false, BTREC_TA_INSERT | (BTREC_TC_QUEUE | BTREC_TC_FS) << 16 },
	{ BLK_EV_RQ_ISSUE, false, BTREC_TA_ISSUE | (BTREC_TC_ISSUE | BTREC_TC_FS) << 16 },
	{ BLK_EV_RQ_MERGE, false, BTREC_TA_BACKMERGE | (BTREC_TC_QUEUE | BTREC_TC_FS) << 16 },
	{ BLK_EV_RQ_REQUEUE, false, BTREC_TA_REQUEUE | (BTREC_TC_REQUEUE | BTREC_TC_FS) << 16 },
	{ BLK_EV_RQ_COMPLETE, false, BTREC_TA_COMPLETE | (BTREC_TC_COMPLETE | BTREC_TC_FS) << 16 },
	{ BLK_EV_BIO_COMPLETE, false, BTREC_TA_COMPLETE | BTREC_TC_COMPLETE << 16 },
	{ BLK_EV_BIO_REMAP, false, BTREC_TA_REMAP | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_RQ_REMAP, false, BTREC_TA_REMAP | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_SPLIT, false, BTREC_TA_SPLIT },
	{ BLK_EV_PLUG, false, BTREC_TA_PLUG | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_UNPLUG, false, BTREC_TA_UNPLUG_IO | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_UNPLUG, true, BTREC_TA_UNPLUG_TIMER | BTREC_TC_QUEUE << 16 },
	{ BLK_EV_RQ_ERROR, false, 0 },
	{ BLK_EV_IO_START, false, 0 },
	{ BLK_EV_IO_DONE, false, 0 },
};

START_TEST(action_of_each_kind)
{
	struct blk_event ev = mk(actions[_i].kind, 8, 0, 0, 0, 1, "R", 8, 8, "x");
	uint8_t buf[BTREC_MAX_SIZE];
	uint32_t want = actions[_i].action;

	if (want)
		want |= BTREC_TC_READ << 16;
	ck_assert_uint_eq(btrec_action(&ev, actions[_i].timer), want);
	ck_assert_uint_eq(btrec_encode_event(&ev, ev.dev, actions[_i].timer, 1, buf) != 0,
			  want != 0);
}
END_TEST

/* rwbs to categories: what blkparse rebuilds rwbs from */
START_TEST(categories_of_rwbs)
{
	static const struct {
		const char *rwbs;
		unsigned int nr;
		uint32_t cats;
	} c[] = {
		{ "R", 8, BTREC_TC_READ },
		{ "W", 8, BTREC_TC_WRITE },
		{ "FWFS", 8, BTREC_TC_WRITE | BTREC_TC_FLUSH | BTREC_TC_FUA | BTREC_TC_SYNC },
		{ "RAM", 8, BTREC_TC_READ | BTREC_TC_AHEAD | BTREC_TC_META },
		{ "D", 8, BTREC_TC_WRITE | BTREC_TC_DISCARD },
		{ "DE", 8, BTREC_TC_WRITE | BTREC_TC_DISCARD },
		{ "FN", 0, BTREC_TC_READ | BTREC_TC_FLUSH },
		{ "F", 0, BTREC_TC_READ | BTREC_TC_FLUSH },
		/* write-zeroes: N with sectors is a write; a zone op is not */
		{ "N", 8, BTREC_TC_WRITE },
		{ "ZO", 0, BTREC_TC_READ },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct blk_event ev = mk(BLK_EV_BIO_QUEUE, 8, 0, 0, 0, 1, c[i].rwbs, 8, c[i].nr,
					 "x");
		uint32_t cats = btrec_action(&ev, false) >> BTREC_TC_SHIFT & ~BTREC_TC_QUEUE;

		ck_assert_msg(cats == c[i].cats, "%s: categories 0x%x, want 0x%x", c[i].rwbs, cats,
			      c[i].cats);
	}
}
END_TEST

/* ---- plugdev: the device of each plug and unplug ---------------------- */

/*
 * Plug and unplug scenarios, each with the device blktrace records for it
 * (it knows the queue): plugdev must name the same, and the text log,
 * which takes its plugs from plugdev, must print it. U against UT is
 * inferred (the tracepoint does not say), as the comments say.
 */
static size_t plug_events(struct blk_event *e)
{
	size_t n = 0;

	/* explicit flush: the task issues at once */
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 0, 0, 100, "W", 2048, 8, "dd");
	e[n++] = mk(BLK_EV_GETRQ, 8, 16, 0, 10, 100, "W", 2048, 8, "dd");
	e[n++] = mk(BLK_EV_PLUG, 0, 0, 0, 20, 100, NULL, 0, 0, "dd");
	e[n++] = mk(BLK_EV_UNPLUG, 0, 0, 0, 30, 100, NULL, 0, 0, "dd");
	e[n - 1].count = 1;
	e[n++] = mk(BLK_EV_RQ_ISSUE, 8, 16, 0, 40, 100, "W", 2048, 8, "dd");
	/* going to sleep: inserted, not issued by the task (UT) */
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 32, 1, 100, 200, "W", 0, 8, "kworker/1:1");
	e[n++] = mk(BLK_EV_GETRQ, 8, 32, 1, 110, 200, "W", 0, 8, "kworker/1:1");
	e[n++] = mk(BLK_EV_PLUG, 0, 0, 1, 120, 200, NULL, 0, 0, "kworker/1:1");
	e[n++] = mk(BLK_EV_UNPLUG, 0, 0, 1, 130, 200, NULL, 0, 0, "kworker/1:1");
	e[n++] = mk(BLK_EV_RQ_INSERT, 8, 32, 1, 140, 200, "W", 0, 8, "kworker/1:1");
	e[n++] = mk(BLK_EV_RQ_COMPLETE, 8, 16, 1, 145, 0, "W", 2048, 8, NULL);
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 1, 150, 300, "R", 64, 8, "cat");
	/* a task never seen queueing: its plug's device is unknown (no line) */
	e[n++] = mk(BLK_EV_PLUG, 0, 0, 0, 200, 999, NULL, 0, 0, "bash");
	/* migrated: plugged on cpu0, unplugged on cpu1, device from the task */
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 48, 0, 300, 400, "R", 8, 8, "fio");
	e[n++] = mk(BLK_EV_GETRQ, 8, 48, 0, 310, 400, "R", 8, 8, "fio");
	e[n++] = mk(BLK_EV_PLUG, 0, 0, 0, 320, 400, NULL, 0, 0, "fio");
	e[n++] = mk(BLK_EV_UNPLUG, 0, 0, 1, 330, 400, NULL, 0, 0, "fio");
	e[n++] = mk(BLK_EV_RQ_ISSUE, 8, 48, 1, 340, 400, "R", 8, 8, "fio");
	/* one flush over two queues: the second unplug shares the first's kind */
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 0, 400, 500, "W", 4096, 8, "sync");
	e[n++] = mk(BLK_EV_GETRQ, 8, 16, 0, 405, 500, "W", 4096, 8, "sync");
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 32, 0, 410, 500, "W", 4096, 8, "sync");
	e[n++] = mk(BLK_EV_GETRQ, 8, 32, 0, 415, 500, "W", 4096, 8, "sync");
	e[n++] = mk(BLK_EV_PLUG, 0, 0, 0, 420, 500, NULL, 0, 0, "sync");
	e[n++] = mk(BLK_EV_UNPLUG, 0, 0, 0, 430, 500, NULL, 0, 0, "sync");
	e[n++] = mk(BLK_EV_RQ_INSERT, 8, 16, 0, 440, 500, "W", 4096, 8, "sync");
	e[n++] = mk(BLK_EV_UNPLUG, 0, 0, 0, 450, 500, NULL, 0, 0, "sync");
	e[n++] = mk(BLK_EV_RQ_INSERT, 8, 32, 0, 460, 500, "W", 4096, 8, "sync");
	e[n++] = mk(BLK_EV_RQ_ISSUE, 8, 32, 0, 470, 500, "W", 4096, 8, "sync");
	/*
	 * md raid5's own unplug (6.12 md-raid5 in tests/vm, jbd2's commit):
	 * jbd2 queues a preflush write at md0 (9,0), md sends the flush to a
	 * member (254,0) in jbd2's context, then md's plug callback traces its
	 * unplug of md0, before the member's request is even allocated (G).
	 */
	e[n++] = mk(BLK_EV_GETRQ, 254, 0, 1, 500, 386, "W", 8, 8, "jbd2/md0-8");
	e[n++] = mk(BLK_EV_BIO_QUEUE, 9, 0, 1, 510, 386, "FWFS", 136, 8, "jbd2/md0-8");
	e[n++] = mk(BLK_EV_BIO_QUEUE, 254, 0, 1, 520, 386, "FW", 0, 0, "jbd2/md0-8");
	e[n++] = mk(BLK_EV_UNPLUG, 0, 0, 1, 530, 386, NULL, 0, 0, "jbd2/md0-8");
	e[n++] = mk(BLK_EV_GETRQ, 254, 0, 1, 540, 386, "FW", 0, 0, "jbd2/md0-8");
	/*
	 * kblockd inserts a request another task queued, then flushes a plug
	 * of its own for a device that is not traced (blktrace shows nothing
	 * at 8,16; the host's test-agree-btt-tables saw it on a busy machine)
	 */
	e[n++] = mk(BLK_EV_RQ_INSERT, 8, 16, 0, 560, 78, "W", 4096, 8, "kworker/0:1H");
	e[n++] = mk(BLK_EV_UNPLUG, 0, 0, 0, 570, 78, NULL, 0, 0, "kworker/0:1H");
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 32, 0, 580, 79, "R", 512, 8, "cat");
	/* the stream ends on an unplug: resolved at the end */
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 1, 600, 600, "R", 99, 8, "tail");
	e[n++] = mk(BLK_EV_UNPLUG, 0, 0, 1, 610, 600, NULL, 0, 0, "tail");
	return n;
}

/* what blktrace records for plug_events(), in order */
static const char plug_want[] =
	"8,16 P\n"	/* dd */
	"8,16 U\n"
	"8,32 P\n"	/* kworker, going to sleep */
	"8,32 UT\n"
	"8,48 P\n"	/* fio, migrated */
	"8,48 U\n"
	"8,32 P\n"	/* sync: its plug follows its last get-request */
	"8,16 UT\n"	/* inserted, not issued: as on the way to sleep */
	"8,32 UT\n"	/* one flush: the kind of the first */
	"9,0 U\n"	/* md raid5's callback */
	"8,16 U\n";	/* tail */

struct collected {
	char text[4096];
	size_t len;
};

/* "maj,min ACT" for each plug and unplug, in the order handed on */
static int collect(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	struct collected *c = ctx;

	if ((ev->kind != BLK_EV_PLUG && ev->kind != BLK_EV_UNPLUG) || !dev)
		return 0;
	c->len += snprintf(c->text + c->len, sizeof(c->text) - c->len, "%u,%u %s\n",
			   KDEV_MAJOR(dev), KDEV_MINOR(dev),
			   ev->kind == BLK_EV_PLUG ? "P" : timer ? "UT" : "U");
	return 0;
}

START_TEST(plugdev_names_blktraces_device)
{
	struct blk_event e[64];
	size_t n = plug_events(e);
	struct collected got = { .len = 0 };
	struct plugdev *pd;

	pd = plugdev_alloc(collect, &got);
	ck_assert_ptr_nonnull(pd);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(plugdev_event(&e[i], pd), 0);
	ck_assert_int_eq(plugdev_finish(pd), 0);
	plugdev_free(pd);
	ck_assert_str_eq(got.text, plug_want);
}
END_TEST

/* every event handed on: kind, device, U or UT, time */
static int collect_all(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	struct collected *c = ctx;

	c->len += snprintf(c->text + c->len, sizeof(c->text) - c->len, "%d %u,%u %d %llu\n",
			   ev->kind, KDEV_MAJOR(dev), KDEV_MINOR(dev), timer,
			   (unsigned long long)ev->ts);
	ck_assert_uint_lt(c->len, sizeof(c->text));
	return 0;
}

/*
 * A consumer of letters only is handed what any consumer is, less the
 * events with no letter: those still wait behind an unplug (one comes
 * between an unplug and its issue, as 6.12's block_io_start does), and
 * one of a task whose slot another task holds still takes the slot (the
 * plug after it has no device).
 */
START_TEST(plugdev_letters_only_hands_on_the_rest)
{
	struct blk_event e[64], x[96];
	size_t n = plug_events(e), m = 0;
	struct collected all = { .len = 0 }, letters = { .len = 0 }, want = { .len = 0 };
	struct plugdev *pa, *pl;
	char *line, *save;

	for (size_t i = 0; i < n; i++) {
		x[m++] = e[i];
		if (e[i].kind == BLK_EV_BIO_QUEUE) {
			x[m] = e[i];
			x[m++].kind = BLK_EV_IO_START;
		}
		if (e[i].kind == BLK_EV_UNPLUG && e[i].pid == 100) {
			/* between dd's unplug and its issue: held, then handed on (or not) */
			x[m] = e[i];
			x[m].dev = KDEV_MKDEV(8, 16);
			x[m++].kind = BLK_EV_IO_START;
		}
		if (e[i].kind == BLK_EV_RQ_COMPLETE) {
			x[m] = e[i];
			x[m++].kind = BLK_EV_IO_DONE;
			x[m] = e[i];
			x[m++].kind = BLK_EV_RQ_ERROR;
		}
		if (e[i].kind == BLK_EV_GETRQ && e[i].pid == 400) {
			/* another task in fio's slot: fio's plug has no device any more */
			x[m] = e[i];
			x[m].pid = 400 + 4096;
			x[m++].kind = BLK_EV_IO_DONE;
		}
	}
	ck_assert_uint_le(m, 96);
	pa = plugdev_alloc(collect_all, &all);
	pl = plugdev_alloc(collect_all, &letters);
	ck_assert_ptr_nonnull(pa);
	ck_assert_ptr_nonnull(pl);
	plugdev_letters_only(pl);
	for (size_t i = 0; i < m; i++) {
		ck_assert_int_eq(plugdev_event(&x[i], pa), 0);
		ck_assert_int_eq(plugdev_event(&x[i], pl), 0);
	}
	ck_assert_int_eq(plugdev_finish(pa), 0);
	ck_assert_int_eq(plugdev_finish(pl), 0);
	plugdev_free(pa);
	plugdev_free(pl);
	/* the whole stream has them, and fio's plug lost its device */
	ck_assert_ptr_nonnull(strstr(all.text, "17 8,16 0 1000000030\n19 8,16 0 1000000030\n"));
	ck_assert_ptr_nonnull(strstr(all.text, "16 0,0 0 1000000320\n"));
	for (line = strtok_r(all.text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int kind = atoi(line);

		if (blk_kind_action(kind))
			want.len += snprintf(want.text + want.len, sizeof(want.text) - want.len,
					     "%s\n", line);
	}
	ck_assert_str_eq(letters.text, want.text);
}
END_TEST

START_TEST(text_log_prints_plugdevs_device)
{
	struct blk_event e[64];
	size_t n = plug_events(e);
	struct collected want = { .len = 0 };
	struct blkparse_out *bo;
	char *text = NULL, *line, *save;
	size_t len = 0;
	FILE *fp;

	fp = open_memstream(&text, &len);
	bo = blkparse_out_alloc(fp, NULL);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(blkparse_out_event(&e[i], bo), 0);
	ck_assert_int_eq(blkparse_out_finish(bo), 0);
	blkparse_out_free(bo);
	fclose(fp);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[16], act[4];

		/* "  8,16   0        3     0.000000020   100  P   N [dd]" */
		if (sscanf(line, "%15s %*u %*u %*s %*d %3s", dev, act) == 2 && act[0] != 'P' &&
		    act[0] != 'U')
			continue;
		want.len += snprintf(want.text + want.len, sizeof(want.text) - want.len, "%s %s\n",
				     dev, act);
	}
	free(text);
	ck_assert_str_eq(want.text, plug_want);
}
END_TEST

/* ---- the files ------------------------------------------------------------ */

struct rec {
	uint32_t seq, action, pid, dev, cpu, bytes;
	uint64_t ts, sector;
	uint16_t pdu_len;
	char comm[17];
};

/* Read back one file's records (header fields in host order). */
static size_t read_records(const char *path, struct rec *r, size_t max)
{
	uint8_t h[BTREC_HDR_SIZE], pdu[64];
	FILE *fp = fopen(path, "r");
	size_t n = 0;

	ck_assert_msg(fp != NULL, "cannot open %s", path);
	while (n < max && fread(h, 1, sizeof(h), fp) == sizeof(h)) {
		uint32_t magic;

		memcpy(&magic, h, 4);
		ck_assert_uint_eq(magic, BTREC_MAGIC | BTREC_VERSION);
		memcpy(&r[n].seq, h + 4, 4);
		memcpy(&r[n].ts, h + 8, 8);
		memcpy(&r[n].sector, h + 16, 8);
		memcpy(&r[n].bytes, h + 24, 4);
		memcpy(&r[n].action, h + 28, 4);
		memcpy(&r[n].pid, h + 32, 4);
		memcpy(&r[n].dev, h + 36, 4);
		memcpy(&r[n].cpu, h + 40, 4);
		memcpy(&r[n].pdu_len, h + 46, 2);
		ck_assert_uint_le(r[n].pdu_len, sizeof(pdu));
		ck_assert_uint_eq(fread(pdu, 1, r[n].pdu_len, fp), r[n].pdu_len);
		memset(r[n].comm, 0, sizeof(r[n].comm));
		if (r[n].action == BTREC_TC_NOTIFY << BTREC_TC_SHIFT)
			memcpy(r[n].comm, pdu, 16);
		n++;
	}
	ck_assert(feof(fp));
	fclose(fp);
	return n;
}

static char tmpdir[64];

static void tmp_setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_btrec.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmp_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

/* names for bt_out_devmap(): @ctx picks a set; 8:32 has none */
static const char *devmap_name(uint32_t dev, char *buf, size_t len, void *ctx)
{
	const char *set = ctx;

	if (dev == KDEV_MKDEV(8, 32))
		return NULL;
	if (!strcmp(set, "plain"))
		snprintf(buf, len, "%s", dev == KDEV_MKDEV(253, 0) ? "dm-0" : "sdb");
	else if (!strcmp(set, "odd"))	/* btt's charset, its 32-byte arrays */
		snprintf(buf, len, "%s", dev == KDEV_MKDEV(253, 0) ? "cciss!c0d0 x"
				   : "a2345678901234567890123456789012345");
	else				/* where btt stops reading */
		snprintf(buf, len, "%s", dev == KDEV_MKDEV(253, 0) ? "Device" : "sdDevice");
	return buf;
}

/* bt_out_devmap() of @o with the names of set @set (NULL: none) is @want */
static void devmap_is(const struct bt_out *o, const char *set, const char *want)
{
	size_t maplen;
	char *map;
	FILE *fp = open_memstream(&map, &maplen);

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(bt_out_devmap(o, fp, set ? devmap_name : NULL, (void *)set), 0);
	fclose(fp);
	ck_assert_str_eq(map, want);
	free(map);
}

START_TEST(files_per_cpu)
{
	struct blk_event e[16];
	char prefix[128], path[160];
	struct rec r[32];
	struct bt_out *o;
	FILE *fp;
	size_t n = 0, k;

	/* two devices on cpu0, one on cpu1; cpu2 has nothing; a stale cpu3 file */
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 0, 0, 100, "W", 0, 8, "dd");
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 32, 0, 10, 100, "W", 0, 8, "dd");
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 1, 20, 100, "W", 8, 8, "dd");
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 0, 30, 100, "W", 16, 8, "dd");
	/* renamed: a new note */
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 0, 40, 100, "W", 24, 8, "dd2");
	e[n++] = mk(BLK_EV_RQ_COMPLETE, 8, 16, 0, 50, 0, "W", 0, 8, NULL);
	e[n++] = mk(BLK_EV_BIO_REMAP, 8, 16, 0, 60, 100, "W", 2048, 8, NULL);
	e[n - 1].old_dev = KDEV_MKDEV(253, 0);
	/* no blktrace action: not written */
	e[n++] = mk(BLK_EV_IO_START, 8, 16, 0, 70, 100, "W", 0, 8, "dd");

	snprintf(prefix, sizeof(prefix), "%s/out", tmpdir);
	snprintf(path, sizeof(path), "%s.blktrace.3", prefix);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fclose(fp);

	o = bt_out_alloc(prefix);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(bt_out_open(o, 3), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(bt_out_event(&e[i], o), 0);
	ck_assert_int_eq(bt_out_finish(o), 0);
	/* not presented as complete before the commit */
	snprintf(path, sizeof(path), "%s.blktrace.0", prefix);
	ck_assert_int_ne(access(path, F_OK), 0);
	ck_assert_int_eq(bt_out_commit(o), 0);
	ck_assert_uint_eq(bt_out_stats(o)->records, 7);
	ck_assert_uint_eq(bt_out_stats(o)->notes, 2);
	ck_assert_uint_eq(bt_out_stats(o)->no_action, 1);
	ck_assert_int_eq(bt_out_stats(o)->ncpu, 3);

	k = read_records(path, r, 32);
	/* note(dd), Q 8:16 #1, Q 8:32 #1, Q 8:16 #2, note(dd2), Q #3, C #4, A #5 */
	ck_assert_uint_eq(k, 8);
	ck_assert_str_eq(r[0].comm, "dd");
	ck_assert_uint_eq(r[0].pid, 100);
	ck_assert_uint_eq(r[1].seq, 1);
	ck_assert_uint_eq(r[1].dev, KDEV_MKDEV(8, 16));
	ck_assert_uint_eq(r[2].seq, 1);
	ck_assert_uint_eq(r[2].dev, KDEV_MKDEV(8, 32));
	ck_assert_uint_eq(r[3].seq, 2);
	ck_assert_str_eq(r[4].comm, "dd2");
	ck_assert_uint_eq(r[5].seq, 3);
	ck_assert_uint_eq(r[6].seq, 4);
	ck_assert_uint_eq(r[7].seq, 5);
	for (size_t i = 0; i < k; i++)
		ck_assert_uint_eq(r[i].cpu, 0);

	snprintf(path, sizeof(path), "%s.blktrace.1", prefix);
	k = read_records(path, r, 32);
	/* the pid was noted on cpu0 already: blkparse keeps names across CPUs */
	ck_assert_uint_eq(k, 1);
	ck_assert_uint_eq(r[0].seq, 1);
	ck_assert_uint_eq(r[0].cpu, 1);
	ck_assert_uint_eq(r[0].ts, T0 + 20);

	snprintf(path, sizeof(path), "%s.blktrace.2", prefix);
	ck_assert_uint_eq(read_records(path, r, 32), 0);
	snprintf(path, sizeof(path), "%s.blktrace.3", prefix);
	ck_assert_int_ne(access(path, F_OK), 0);

	/* the device map: by depth (a remap's source above its target), then number */
	devmap_is(o, NULL, "8:32 8,32\n253:0 253,0\n8:16 8,16\n");
	/* with names: as btt reads them, and MAJ:MIN where there is none */
	devmap_is(o, "plain", "8:32 8,32\ndm-0 253,0\nsdb 8,16\n");
	devmap_is(o, "odd", "8:32 8,32\n"
			    "cciss_c0d0_x 253,0\n"
			    "a234567890123456789012345678901 8,16\n");
	devmap_is(o, "Device", "8:32 8,32\n253:0 253,0\n8:16 8,16\n");
	bt_out_free(o);
}
END_TEST

/* the recording's names: pid 121 only */
static const char *saved_name(void *ctx, int32_t pid)
{
	(void)ctx;
	return pid == 121 ? "kworker/u4:4" : NULL;
}

/*
 * A task whose first event is a completion (no name in tracefs) is noted
 * before it by the recording's name, as the kernel notes it; its later
 * named event needs no note. A task the recording does not name is noted
 * at its first named event.
 */
/*
 * The commands of a SCSI rescan (6.12 tests/vm multipath, a path set back
 * to running): passthrough requests, 'N' with no sectors, issued at 0 with
 * their bytes, completed at -1 (one of 512 bytes with 1 sector). blktrace
 * records them as PC requests that read, with the bytes at completion too.
 */
START_TEST(passthrough_as_pc)
{
	struct blk_event e[4];
	char prefix[128], path[160];
	struct rec r[8];
	struct bt_out *o;
	size_t k;

	e[0] = mk(BLK_EV_RQ_ISSUE, 8, 0, 0, 0, 530, "N", 0, 0, "bash");
	e[0].bytes = 36;
	e[1] = mk(BLK_EV_RQ_COMPLETE, 8, 0, 0, 10, 0, "N", UINT64_MAX, 0, NULL);
	e[2] = mk(BLK_EV_RQ_ISSUE, 8, 0, 0, 20, 530, "N", 0, 0, "bash");
	e[2].bytes = 512;
	e[3] = mk(BLK_EV_RQ_COMPLETE, 8, 0, 0, 30, 0, "N", UINT64_MAX, 1, NULL);
	snprintf(prefix, sizeof(prefix), "%s/pc", tmpdir);
	o = bt_out_alloc(prefix);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(bt_out_open(o, 1), 0);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(bt_out_event(&e[i], o), 0);
	ck_assert_int_eq(bt_out_finish(o), 0);
	ck_assert_int_eq(bt_out_commit(o), 0);
	bt_out_free(o);
	snprintf(path, sizeof(path), "%s.blktrace.0", prefix);
	k = read_records(path, r, 8);
	ck_assert_uint_eq(k, 5);	/* the note of bash, then the four */
	for (size_t i = 1; i < k; i++) {
		uint32_t cat = r[i].action >> BTREC_TC_SHIFT;

		ck_assert_uint_eq(cat & BTREC_TC_PC, BTREC_TC_PC);
		ck_assert_uint_eq(cat & (BTREC_TC_FS | BTREC_TC_WRITE), 0);
		ck_assert_uint_eq(cat & BTREC_TC_READ, BTREC_TC_READ);
		ck_assert_uint_eq(r[i].sector, 0);
		ck_assert_uint_eq(r[i].bytes, i < 3 ? 36 : 512);
	}
	ck_assert_uint_eq(r[1].action & 0xffff, BTREC_TA_ISSUE);
	ck_assert_uint_eq(r[2].action & 0xffff, BTREC_TA_COMPLETE);
}
END_TEST

START_TEST(named_by_the_recording)
{
	struct blk_event e[4];
	char prefix[128], path[160];
	struct rec r[8];
	struct bt_out *o;
	size_t n = 0;

	e[n++] = mk(BLK_EV_RQ_COMPLETE, 8, 16, 0, 10, 121, "W", 0, 8, NULL);
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 0, 20, 121, "W", 8, 8, "kworker/u4:4");
	e[n++] = mk(BLK_EV_RQ_COMPLETE, 8, 16, 0, 30, 7, "W", 8, 8, NULL);
	e[n++] = mk(BLK_EV_BIO_QUEUE, 8, 16, 0, 40, 7, "W", 16, 8, "dd");
	snprintf(prefix, sizeof(prefix), "%s/named", tmpdir);
	o = bt_out_alloc(prefix);
	ck_assert_ptr_nonnull(o);
	bt_out_set_names(o, saved_name, NULL);
	ck_assert_int_eq(bt_out_open(o, 1), 0);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(bt_out_event(&e[i], o), 0);
	ck_assert_int_eq(bt_out_finish(o), 0);
	ck_assert_int_eq(bt_out_commit(o), 0);
	ck_assert_uint_eq(bt_out_stats(o)->notes, 2);
	snprintf(path, sizeof(path), "%s.blktrace.0", prefix);
	/* note(kworker/u4:4), C, Q, C, note(dd), Q */
	ck_assert_uint_eq(read_records(path, r, 8), 6);
	ck_assert_uint_eq(r[0].pid, 121);
	ck_assert_str_eq(r[0].comm, "kworker/u4:4");
	ck_assert_uint_eq(r[0].ts, T0 + 10);
	ck_assert_uint_eq(r[4].pid, 7);
	ck_assert_str_eq(r[4].comm, "dd");
	bt_out_free(o);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("btrec");
	TCase *tc = tcase_create("encode");

	tcase_add_test(tc, encode_golden);
	tcase_add_loop_test(tc, action_of_each_kind, 0, sizeof(actions) / sizeof(actions[0]));
	tcase_add_test(tc, categories_of_rwbs);
	suite_add_tcase(s, tc);
	tc = tcase_create("plugdev");
	tcase_add_test(tc, plugdev_names_blktraces_device);
	tcase_add_test(tc, plugdev_letters_only_hands_on_the_rest);
	tcase_add_test(tc, text_log_prints_plugdevs_device);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_add_checked_fixture(tc, tmp_setup, tmp_teardown);
	tcase_add_test(tc, files_per_cpu);
	tcase_add_test(tc, named_by_the_recording);
	tcase_add_test(tc, passthrough_as_pc);
	suite_add_tcase(s, tc);
	return check_run(s);
}
