// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_pcdecode.c - the page-cache events through the one decoder, with
 * the format files of a real kernel (tests/fixtures/events/<kver>/, copied
 * from tracefs) and records built field by field: every kind, the bdi name
 * of writeback events, short records, and the older layouts of 5.x
 * kernels (no folio order, writeback_dirty_page). And the tick's timer
 * event (tickevent.h), which rides the same decoder.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "base/pcevent.h"
#include "base/tickevent.h"
#include "check_run.h"
#include "format/decode.h"
#include "format/pcdecode.h"

#define EVENTS_DIR FIXTURES_DIR "/events/6.18.44-fc-v657"

static struct tep_handle *tep;
static struct decoder *dec;

static void parse_format(const char *sys, const char *text, size_t len)
{
	ck_assert_int_eq(tep_parse_event(tep, text, len, sys), TEP_ERRNO__SUCCESS);
}

static void load(const char *sys, const char *event)
{
	char path[512], *buf;
	long len;
	FILE *fp;

	snprintf(path, sizeof(path), EVENTS_DIR "/%s/%s/format", sys, event);
	fp = fopen(path, "r");
	ck_assert_msg(fp != NULL, "cannot open %s", path);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	buf = malloc(len + 1);
	ck_assert_int_eq(fread(buf, 1, len, fp), len);
	fclose(fp);
	parse_format(sys, buf, len);
	free(buf);
}

static void setup(void)
{
	static const char *const events[][2] = {
		{ "block", "block_bio_queue" },
		{ "filemap", "mm_filemap_add_to_page_cache" },
		{ "filemap", "mm_filemap_delete_from_page_cache" },
		{ "filemap", "mm_filemap_fault" },
		{ "filemap", "mm_filemap_get_pages" },
		{ "filemap", "mm_filemap_map_pages" },
		{ "readahead", "page_cache_sync_ra" },
		{ "readahead", "page_cache_async_ra" },
		{ "writeback", "writeback_dirty_folio" },
		{ "writeback", "writeback_single_inode_start" },
		{ "writeback", "writeback_single_inode" },
		{ "writeback", "sb_mark_inode_writeback" },
		{ "iomap", "iomap_dio_rw_begin" },
		{ "iomap", "iomap_dio_complete" },
		{ "iomap", "iomap_iter" },
		{ "timer", "timer_expire_entry" },
	};

	tep = tep_alloc();
	ck_assert_ptr_nonnull(tep);
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		load(events[i][0], events[i][1]);
	dec = decoder_alloc(tep);
	ck_assert_ptr_nonnull(dec);
}

static void teardown(void)
{
	decoder_free(dec);
	tep_free(tep);
}

/* A record of @event with common_type and common_pid set, fields zero. */
static uint8_t rec[256];

static struct tep_event *start(const char *sys, const char *name, int pid)
{
	struct tep_event *ev = tep_find_event_by_name(tep, sys, name);
	struct tep_format_field *f;
	uint16_t type;

	ck_assert_ptr_nonnull(ev);
	memset(rec, 0, sizeof(rec));
	type = ev->id;
	f = tep_find_common_field(ev, "common_type");
	memcpy(rec + f->offset, &type, 2);
	f = tep_find_common_field(ev, "common_pid");
	memcpy(rec + f->offset, &pid, 4);
	return ev;
}

static void set(struct tep_event *ev, const char *field, uint64_t v)
{
	struct tep_format_field *f = tep_find_field(ev, field);

	ck_assert_msg(f != NULL, "no field %s in %s", field, ev->name);
	memcpy(rec + f->offset, &v, f->size);	/* little-endian host */
}

static void set_str(struct tep_event *ev, const char *field, const char *s)
{
	struct tep_format_field *f = tep_find_field(ev, field);

	ck_assert_ptr_nonnull(f);
	strncpy((char *)rec + f->offset, s, f->size);
}

static struct blk_event decode(struct tep_event *ev)
{
	struct blk_event out;

	memset(&out, 0xaa, sizeof(out));
	ck_assert_int_eq(decoder_decode(dec, rec, sizeof(rec), 777, 1, &out), 1);
	(void)ev;
	ck_assert_uint_eq(out.ts, 777);
	ck_assert_uint_eq(out.cpu, 1);
	return out;
}

START_TEST(every_kind_present)
{
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++) {
		ck_assert_msg(decoder_has(dec, k), "%s:%s missing", pc_kind_system(k),
			      pc_kind_name(k));
		ck_assert_int_ge(decoder_event_id(dec, k), 0);
	}
	ck_assert(decoder_has(dec, BLK_EV_BIO_QUEUE));
	ck_assert(!decoder_has(dec, BLK_EV_RQ_ISSUE));
	ck_assert_ptr_null(pc_kind_name(PC_EV_KIND_MAX));
	ck_assert_ptr_null(pc_kind_system(BLK_EV_BIO_QUEUE));
}
END_TEST

/* timer_expire_entry: its "now" is the jiffies, kept in sector; nothing else */
START_TEST(tick_event)
{
	struct tep_event *ev = start(TICK_EV_SYSTEM, TICK_EV_NAME, 0);
	struct blk_event out;

	ck_assert(decoder_has(dec, TICK_EV_TIMER));
	ck_assert_int_eq(decoder_event_id(dec, TICK_EV_TIMER), ev->id);
	set(ev, "now", 4295088692ULL);
	set(ev, "timer", 0xffff888012345678ULL);
	set(ev, "baseclk", 4295088690ULL);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, TICK_EV_TIMER);
	ck_assert(!pc_kind_is(out.kind));
	ck_assert_uint_eq(tick_ev_jiffies(&out), 4295088692ULL);
	ck_assert_uint_eq(out.dev, 0);
	ck_assert_uint_eq(out.nr_sector, 0);
	ck_assert_str_eq(out.comm, "");
	/* cut before "now": malformed */
	ck_assert_int_eq(decoder_decode(dec, rec, 20, 777, 1, &out), -EINVAL);
}
END_TEST

START_TEST(filemap_events)
{
	struct tep_event *ev = start("filemap", "mm_filemap_add_to_page_cache", 4242);
	struct blk_event out;

	set(ev, "i_ino", 0x8002);
	set(ev, "index", 96);
	set(ev, "s_dev", KDEV_MKDEV(0, 39));
	set(ev, "order", 4);
	set(ev, "pfn", 0x123456);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_ADD);
	ck_assert_int_eq(out.pid, 4242);
	ck_assert_uint_eq(pc_ev_ino(&out), 0x8002);
	ck_assert_uint_eq(pc_ev_index(&out), 96);
	ck_assert_uint_eq(out.dev, KDEV_MKDEV(0, 39));
	ck_assert_uint_eq(pc_ev_pages(&out), 16);
	ck_assert_str_eq(out.comm, "");

	ev = start("filemap", "mm_filemap_delete_from_page_cache", 1);
	set(ev, "i_ino", 5);
	set(ev, "order", 0);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_DELETE);
	ck_assert_uint_eq(pc_ev_pages(&out), 1);

	ev = start("filemap", "mm_filemap_get_pages", 1);
	set(ev, "i_ino", 5);
	set(ev, "index", 10);
	set(ev, "last_index", 41);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_GET_PAGES);
	ck_assert_uint_eq(pc_ev_index(&out), 10);
	ck_assert_uint_eq(pc_ev_pages(&out), 32);

	ev = start("filemap", "mm_filemap_map_pages", 1);
	set(ev, "i_ino", 5);
	set(ev, "index", 10);
	set(ev, "last_index", 10);
	ck_assert_uint_eq(pc_ev_pages(&(struct blk_event){ 0 }), 0);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_MAP_PAGES);
	ck_assert_uint_eq(pc_ev_pages(&out), 1);

	ev = start("filemap", "mm_filemap_fault", 1);
	set(ev, "i_ino", 6);
	set(ev, "index", 3);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_FAULT);
	ck_assert_uint_eq(pc_ev_pages(&out), 1);
	ck_assert_uint_eq(pc_ev_index(&out), 3);
}
END_TEST

START_TEST(readahead_events)
{
	struct tep_event *ev = start("readahead", "page_cache_async_ra", 9);
	struct blk_event out;

	set(ev, "i_ino", 0x3edc0);
	set(ev, "s_dev", KDEV_MKDEV(254, 0));
	set(ev, "index", 48);
	set(ev, "req_count", 2);
	set(ev, "size", 128);
	set(ev, "async_size", 128);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_RA_ASYNC);
	ck_assert_uint_eq(out.dev, KDEV_MKDEV(254, 0));
	ck_assert_uint_eq(pc_ev_index(&out), 48);
	ck_assert_uint_eq(pc_ev_pages(&out), 2);
	ck_assert_uint_eq(out.count, 128);
	ev = start("readahead", "page_cache_sync_ra", 9);
	set(ev, "i_ino", 1);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_RA_SYNC);
}
END_TEST

/* Writeback events name the bdi: MAJ:MIN, or btrfs's own. */
START_TEST(writeback_events)
{
	struct tep_event *ev = start("writeback", "writeback_dirty_folio", 3);
	struct blk_event out;

	set_str(ev, "name", "7:0");
	set(ev, "ino", 32772);
	set(ev, "index", 5);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_WB_DIRTY);
	ck_assert_str_eq(pc_ev_bdi(&out), "7:0");
	ck_assert_uint_eq(out.dev, KDEV_MKDEV(7, 0));
	ck_assert_uint_eq(pc_ev_ino(&out), 32772);
	ck_assert_uint_eq(pc_ev_index(&out), 5);

	ev = start("writeback", "writeback_single_inode_start", 3);
	set_str(ev, "name", "btrfs-1");
	set(ev, "ino", 261);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_WB_START);
	ck_assert_str_eq(pc_ev_bdi(&out), "btrfs-1");
	ck_assert_uint_eq(out.dev, 0);
	ck_assert_uint_eq(pc_ev_ino(&out), 261);

	ev = start("writeback", "writeback_single_inode", 3);
	set_str(ev, "name", "254:0");
	set(ev, "ino", 11);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_WB_END);
	ck_assert_uint_eq(out.dev, KDEV_MKDEV(254, 0));

	/* fsync's: the superblock device itself */
	ev = start("writeback", "sb_mark_inode_writeback", 3);
	set(ev, "dev", KDEV_MKDEV(0, 39));
	set(ev, "ino", 260);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_WB_MARK);
	ck_assert_uint_eq(out.dev, KDEV_MKDEV(0, 39));
	ck_assert_uint_eq(pc_ev_ino(&out), 260);
}
END_TEST

START_TEST(direct_io_events)
{
	struct tep_event *ev = start("iomap", "iomap_dio_rw_begin", 5);
	struct blk_event out;

	set(ev, "dev", KDEV_MKDEV(7, 0));
	set(ev, "ino", 0x8003);
	set(ev, "pos", 0x10000);
	set(ev, "count", 0x10000);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_DIO_BEGIN);
	ck_assert_uint_eq(out.dev, KDEV_MKDEV(7, 0));
	ck_assert_uint_eq(pc_ev_ino(&out), 0x8003);
	ck_assert_uint_eq(out.sector, 0x10000);
	ck_assert_uint_eq(out.bytes, 0x10000);

	ev = start("iomap", "iomap_dio_complete", 5);
	set(ev, "ino", 0x8003);
	set(ev, "error", (uint32_t)-5);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_DIO_END);
	ck_assert_int_eq(out.error, -5);

	/* iomap_iter: its flags (IOMAP_DIRECT) and the length of the mapping */
	ev = start("iomap", "iomap_iter", 5);
	set(ev, "dev", KDEV_MKDEV(7, 0));
	set(ev, "ino", 0x8004);
	set(ev, "pos", 0x20000);
	set(ev, "length", 0x30000);
	set(ev, "flags", PC_IOMAP_DIRECT | 1);
	out = decode(ev);
	ck_assert_uint_eq(out.kind, PC_EV_DIO_ITER);
	ck_assert_uint_eq(pc_ev_ino(&out), 0x8004);
	ck_assert_uint_eq(out.sector, 0x20000);
	ck_assert_uint_eq(out.bytes, 0x30000);
	ck_assert_uint_eq(out.count, PC_IOMAP_DIRECT | 1);
}
END_TEST

START_TEST(short_record)
{
	struct tep_event *ev = start("filemap", "mm_filemap_add_to_page_cache", 1);
	struct blk_event out;

	ck_assert_int_eq(decoder_decode(dec, rec, 30, 1, 0, &out), -EINVAL);
	(void)ev;
}
END_TEST

/*
 * 5.10 had no folio order and called the dirtying event
 * writeback_dirty_page; 6.1 has no get_pages, readahead or fault events.
 */
static const char old_add[] =
	"name: mm_filemap_add_to_page_cache\n"
	"ID: 500\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long i_ino;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:dev_t s_dev;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"ino %lx\", REC->i_ino\n";

static const char old_dirty[] =
	"name: writeback_dirty_page\n"
	"ID: 501\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char name[32];\toffset:8;\tsize:32;\tsigned:0;\n"
	"\tfield:ino_t ino;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long index;\toffset:48;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"bdi %s: ino=%lu\", REC->name, REC->ino\n";

START_TEST(older_kernel_layouts)
{
	struct tep_handle *old = tep_alloc();
	struct tep_event *ev;
	struct decoder *d;
	struct blk_event out;
	char path[512], *buf;
	long len;
	FILE *fp;

	ck_assert_ptr_nonnull(old);
	snprintf(path, sizeof(path), EVENTS_DIR "/block/block_bio_queue/format");
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	buf = malloc(len);
	ck_assert_int_eq(fread(buf, 1, len, fp), len);
	fclose(fp);
	ck_assert_int_eq(tep_parse_event(old, buf, len, "block"), TEP_ERRNO__SUCCESS);
	free(buf);
	ck_assert_int_eq(tep_parse_event(old, old_add, strlen(old_add), "filemap"),
			 TEP_ERRNO__SUCCESS);
	ck_assert_int_eq(tep_parse_event(old, old_dirty, strlen(old_dirty), "writeback"),
			 TEP_ERRNO__SUCCESS);
	d = decoder_alloc(old);
	ck_assert_ptr_nonnull(d);
	ck_assert(decoder_has(d, (enum blk_kind)PC_EV_ADD));
	ck_assert(decoder_has(d, (enum blk_kind)PC_EV_WB_DIRTY));
	ck_assert(!decoder_has(d, (enum blk_kind)PC_EV_GET_PAGES));
	ck_assert(!decoder_has(d, (enum blk_kind)PC_EV_RA_SYNC));

	memset(rec, 0, sizeof(rec));
	ev = tep_find_event_by_name(old, "filemap", "mm_filemap_add_to_page_cache");
	rec[0] = ev->id & 0xff;
	rec[1] = ev->id >> 8;
	rec[16] = 42;
	ck_assert_int_eq(decoder_decode(d, rec, 40, 5, 0, &out), 1);
	ck_assert_uint_eq(out.kind, PC_EV_ADD);
	ck_assert_uint_eq(pc_ev_ino(&out), 42);
	ck_assert_uint_eq(pc_ev_pages(&out), 1);

	memset(rec, 0, sizeof(rec));
	ev = tep_find_event_by_name(old, "writeback", "writeback_dirty_page");
	rec[0] = ev->id & 0xff;
	rec[1] = ev->id >> 8;
	strcpy((char *)rec + 8, "8:16");
	rec[40] = 7;
	ck_assert_int_eq(decoder_decode(d, rec, 56, 5, 0, &out), 1);
	ck_assert_uint_eq(out.kind, PC_EV_WB_DIRTY);
	ck_assert_uint_eq(out.dev, KDEV_MKDEV(8, 16));
	ck_assert_uint_eq(pc_ev_ino(&out), 7);
	decoder_free(d);
	tep_free(old);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pcdecode");
	TCase *tc = tcase_create("pcdecode");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_kind_present);
	tcase_add_test(tc, filemap_events);
	tcase_add_test(tc, tick_event);
	tcase_add_test(tc, readahead_events);
	tcase_add_test(tc, writeback_events);
	tcase_add_test(tc, direct_io_events);
	tcase_add_test(tc, short_record);
	tcase_add_test(tc, older_kernel_layouts);
	suite_add_tcase(s, tc);
	return check_run(s);
}
