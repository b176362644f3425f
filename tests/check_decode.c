// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_decode.c - the decoder against real ring-buffer pages and against
 * records built by hand.
 *
 * The real pages come from tests/fixtures/ring/<kver>/, made by
 * tests/fixtures/capture-ring.sh: per-CPU trace_pipe_raw pages, the kernel's
 * header_page and block format files, and workload.txt, which states what the
 * capture did (devices, partition start, every dd) without decoding anything.
 * Every assertion on the real pages compares the decoder's output with those
 * independent facts, never with the decoder's own idea of the trace. Every
 * directory under ring/ is tested, so fixtures from other kernels need only be
 * captured.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "base/event.h"
#include "check_run.h"
#include "format/decode.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif

#define RING_DIR	FIXTURES_DIR "/ring"
#define MAX_RINGS	16
#define MAX_CPUS	64
#define MAX_IO		32

/* Read a whole file; NULL if it cannot be read. */
static char *slurp(const char *path, size_t *size)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f || !buf) {
		if (f)
			fclose(f);
		free(buf);
		return NULL;
	}
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			char *tmp = realloc(buf, cap * 2 + 1);

			if (!tmp)
				break;
			buf = tmp;
			cap *= 2;
		}
	}
	fclose(f);
	buf[len] = '\0';
	*size = len;
	return buf;
}

/* Format a path into @buf (PATH_MAX bytes); a path that does not fit fails the test. */
static __attribute__((format(printf, 2, 3))) void path_fmt(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	ck_assert_msg(n >= 0 && n < PATH_MAX, "path too long: '%s'", buf);
}

/* ------------------------------------------------------------------------- */
/* Real pages                                                                 */
/* ------------------------------------------------------------------------- */

/* The capture directories under ring/, found once in main(). */
static char ring_names[MAX_RINGS][NAME_MAX + 1];
static int nr_rings;

/* One "io" line of workload.txt: COUNT I/Os of SIZE sectors from OFFSET. */
struct wl_io {
	char op[16];
	uint64_t offset;	/* on the partition */
	uint32_t size;
	uint32_t count;
	char comm[16];
};

struct workload {
	uint32_t loop;		/* kernel dev_t of the loop disk */
	uint32_t part;		/* ... and of its partition */
	uint64_t part_start;
	int nr_io;
	struct wl_io io[MAX_IO];
};

struct ring_fixture {
	char dir[PATH_MAX];
	struct tep_handle *tep;
	struct decoder *dec;
	struct workload wl;
	struct blk_event *ev;	/* every block event, per CPU in buffer order */
	size_t nr_ev;
	size_t cap_ev;
	unsigned long records;	/* records kbuffer handed out, block or not */
	unsigned long malformed;
	unsigned long missed;	/* pages flagged with missed events */
	unsigned long ts_backwards;
	int nr_cpus;
};

static struct ring_fixture rf;

static void ring_setup(void)
{
	memset(&rf, 0, sizeof(rf));
	rf.tep = tep_alloc();
	ck_assert_ptr_nonnull(rf.tep);
	/* the fixtures were captured on x86_64; the byte order is the file's */
	tep_set_file_bigendian(rf.tep, TEP_LITTLE_ENDIAN);
}

static void ring_teardown(void)
{
	decoder_free(rf.dec);
	tep_free(rf.tep);
	free(rf.ev);
	memset(&rf, 0, sizeof(rf));
}

static uint32_t parse_majmin(const char *s)
{
	unsigned int ma, mi;

	ck_assert_msg(sscanf(s, "%u:%u", &ma, &mi) == 2, "bad MAJ:MIN '%s'", s);
	return KDEV_MKDEV(ma, mi);
}

static void load_workload(struct workload *wl, const char *dir)
{
	char path[PATH_MAX], key[32], a[64];
	char *buf, *line, *save;
	size_t size;

	path_fmt(path, "%s/workload.txt", dir);
	buf = slurp(path, &size);
	ck_assert_msg(buf, "cannot read '%s'", path);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || sscanf(line, "%31s %63s", key, a) < 2)
			continue;
		if (!strcmp(key, "loop")) {
			wl->loop = parse_majmin(a);
		} else if (!strcmp(key, "part")) {
			wl->part = parse_majmin(a);
		} else if (!strcmp(key, "part_start")) {
			wl->part_start = strtoull(a, NULL, 10);
		} else if (!strcmp(key, "io")) {
			struct wl_io *io = &wl->io[wl->nr_io];
			unsigned long long off;

			ck_assert_int_lt(wl->nr_io, MAX_IO);
			ck_assert_msg(sscanf(line, "io %15s %llu %u %u %15s", io->op, &off,
					     &io->size, &io->count, io->comm) == 5,
				      "bad line '%s' in '%s'", line, path);
			io->offset = off;
			wl->nr_io++;
		}
	}
	free(buf);
	ck_assert_msg(wl->loop && wl->part && wl->part_start && wl->nr_io,
		      "'%s' lacks loop, part, part_start or io lines", path);
}

/* Parse header_page and every events/block/NAME/format into the handle. */
static void load_formats(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	int parsed = 0;
	size_t size;
	char *buf;
	DIR *d;

	path_fmt(path, "%s/header_page", dir);
	buf = slurp(path, &size);
	ck_assert_msg(buf, "cannot read '%s'", path);
	ck_assert_int_eq(tep_parse_header_page(rf.tep, buf, size, 8), 0);
	free(buf);

	path_fmt(path, "%s/events/block", dir);
	d = opendir(path);
	ck_assert_msg(d, "cannot open '%s'", path);
	while ((de = readdir(d))) {
		enum tep_errno ret;

		if (de->d_name[0] == '.')
			continue;
		path_fmt(path, "%s/events/block/%s/format", dir, de->d_name);
		buf = slurp(path, &size);
		if (!buf)
			continue;	/* "enable" and "filter" are not copied */
		ret = tep_parse_event(rf.tep, buf, size, "block");
		ck_assert_msg(ret == 0, "'%s' does not parse: %d", path, ret);
		free(buf);
		parsed++;
	}
	closedir(d);
	ck_assert_int_gt(parsed, 0);
}

static void push_event(const struct blk_event *ev)
{
	if (rf.nr_ev == rf.cap_ev) {
		rf.cap_ev = rf.cap_ev ? rf.cap_ev * 2 : 1024;
		rf.ev = realloc(rf.ev, rf.cap_ev * sizeof(*rf.ev));
		ck_assert_ptr_nonnull(rf.ev);
	}
	rf.ev[rf.nr_ev++] = *ev;
}

/* Decode every record of one cpuN.raw, page by page. */
static void walk_cpu(const char *path, int cpu, int subbuf_size, enum kbuffer_long_size lsize)
{
	unsigned long long ts, last_ts = 0;
	struct kbuffer *kbuf;
	size_t size, off;
	char *pages;

	pages = slurp(path, &size);
	ck_assert_msg(pages, "cannot read '%s'", path);
	ck_assert_msg(size % subbuf_size == 0, "'%s': %zu bytes is not whole %d-byte pages",
		      path, size, subbuf_size);
	kbuf = kbuffer_alloc(lsize, KBUFFER_ENDIAN_LITTLE);
	ck_assert_ptr_nonnull(kbuf);

	for (off = 0; off < size; off += subbuf_size) {
		void *data;

		ck_assert_int_eq(kbuffer_load_subbuffer(kbuf, pages + off), 0);
		if (kbuffer_missed_events(kbuf))
			rf.missed++;
		for (data = kbuffer_read_event(kbuf, &ts); data;
		     data = kbuffer_next_event(kbuf, &ts)) {
			struct blk_event ev;
			int ret;

			rf.records++;
			if (ts < last_ts)
				rf.ts_backwards++;
			last_ts = ts;
			memset(&ev, 0xa5, sizeof(ev));
			ret = decoder_decode(rf.dec, data, kbuffer_event_size(kbuf), ts, cpu, &ev);
			if (ret < 0) {
				rf.malformed++;
				continue;
			}
			if (ret == 0)
				continue;
			ck_assert_int_eq(ret, 1);
			ck_assert_uint_eq(ev.ts, ts);
			ck_assert_int_eq(ev.cpu, cpu);
			push_event(&ev);
		}
	}
	kbuffer_free(kbuf);
	free(pages);
}

/* Load capture @idx: formats, decoder, workload, and every decoded event. */
static void ring_load(int idx)
{
	enum kbuffer_long_size lsize;
	int subbuf_size, cpu;

	path_fmt(rf.dir, "%s/%s", RING_DIR, ring_names[idx]);
	load_workload(&rf.wl, rf.dir);
	load_formats(rf.dir);

	/* the header_page says how wide 'commit' is and how large a page is */
	lsize = tep_get_header_page_size(rf.tep) == 4 ? KBUFFER_LSIZE_4 : KBUFFER_LSIZE_8;
	subbuf_size = tep_get_sub_buffer_size(rf.tep);
	ck_assert_int_ge(subbuf_size, 4096);

	rf.dec = decoder_alloc(rf.tep);
	ck_assert_msg(rf.dec, "decoder_alloc: %s", strerror(errno));

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		char path[PATH_MAX];
		struct stat st;

		path_fmt(path, "%s/cpu%d.raw", rf.dir, cpu);
		if (stat(path, &st) < 0)
			break;
		walk_cpu(path, cpu, subbuf_size, lsize);
	}
	rf.nr_cpus = cpu;
	ck_assert_int_gt(rf.nr_cpus, 0);
}

/* Time order across CPUs: ties by CPU, then by buffer position. */
static int cmp_time(const void *pa, const void *pb)
{
	const struct blk_event *a = pa, *b = pb;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return a < b ? -1 : a > b;
}

static uint8_t wl_op(const struct wl_io *io)
{
	if (!strcmp(io->op, "read"))
		return BLK_OP_READ;
	/* an fsync of the block device is an empty preflush write */
	return BLK_OP_WRITE;
}

static uint64_t wl_total_ios(void)
{
	uint64_t n = 0;

	for (int i = 0; i < rf.wl.nr_io; i++)
		n += rf.wl.io[i].count;
	return n;
}

static uint64_t wl_total_sectors(void)
{
	uint64_t n = 0;

	for (int i = 0; i < rf.wl.nr_io; i++)
		n += (uint64_t)rf.wl.io[i].size * rf.wl.io[i].count;
	return n;
}

static uint64_t wl_data_ios(void)
{
	uint64_t n = 0;

	for (int i = 0; i < rf.wl.nr_io; i++)
		if (rf.wl.io[i].size)
			n += rf.wl.io[i].count;
	return n;
}

static uint64_t sum_sectors(enum blk_kind kind, uint32_t dev, unsigned long *nr)
{
	uint64_t sum = 0;

	*nr = 0;
	for (size_t i = 0; i < rf.nr_ev; i++) {
		if (rf.ev[i].kind != kind || rf.ev[i].dev != dev)
			continue;
		sum += rf.ev[i].nr_sector;
		(*nr)++;
	}
	return sum;
}

/* Every page loads, every record is whole, time never runs backwards. */
START_TEST(test_ring_well_formed)
{
	bool seen[BLK_EV_KIND_MAX] = { false };

	ring_load(_i);
	ck_assert_uint_gt(rf.records, 0);
	ck_assert_uint_gt(rf.nr_ev, 0);
	ck_assert_uint_eq(rf.malformed, 0);
	/* capture-ring.sh refuses to write a fixture that lost events */
	ck_assert_uint_eq(rf.missed, 0);
	ck_assert_uint_eq(rf.ts_backwards, 0);
	for (size_t i = 0; i < rf.nr_ev; i++) {
		const struct blk_event *ev = &rf.ev[i];

		ck_assert_int_gt(ev->kind, BLK_EV_NONE);
		ck_assert_int_lt(ev->kind, BLK_EV_KIND_MAX);
		ck_assert_int_lt(ev->op, BLK_OP_MAX);
		ck_assert_int_lt(ev->cpu, rf.nr_cpus);
		ck_assert_ptr_nonnull(memchr(ev->comm, '\0', sizeof(ev->comm)));
		seen[ev->kind] = true;
	}
	/* an O_DIRECT workload on a partition of a blk-mq disk has at least these */
	ck_assert(seen[BLK_EV_BIO_REMAP]);
	ck_assert(seen[BLK_EV_BIO_QUEUE]);
	ck_assert(seen[BLK_EV_RQ_ISSUE]);
	ck_assert(seen[BLK_EV_RQ_COMPLETE]);
}
END_TEST

/*
 * The queue events on the loop disk are the workload, I/O for I/O and in
 * order: each dd is synchronous, so one I/O is queued only after the previous
 * one completed, whichever CPU it ran on.
 */
START_TEST(test_ring_queue_matches_workload)
{
	struct blk_event *q;
	unsigned long nr;
	size_t nq = 0, k = 0;
	uint64_t sectors;

	ring_load(_i);
	sectors = sum_sectors(BLK_EV_BIO_QUEUE, rf.wl.loop, &nr);
	ck_assert_uint_eq(nr, wl_total_ios());
	ck_assert_uint_eq(sectors, wl_total_sectors());
	/* the partition has no queue of its own */
	sum_sectors(BLK_EV_BIO_QUEUE, rf.wl.part, &nr);
	ck_assert_uint_eq(nr, 0);

	q = calloc(rf.nr_ev, sizeof(*q));
	ck_assert_ptr_nonnull(q);
	for (size_t i = 0; i < rf.nr_ev; i++)
		if (rf.ev[i].kind == BLK_EV_BIO_QUEUE && rf.ev[i].dev == rf.wl.loop)
			q[nq++] = rf.ev[i];
	qsort(q, nq, sizeof(*q), cmp_time);

	for (int w = 0; w < rf.wl.nr_io; w++) {
		const struct wl_io *io = &rf.wl.io[w];

		for (uint32_t j = 0; j < io->count; j++, k++) {
			const struct blk_event *ev = &q[k];

			ck_assert_uint_lt(k, nq);
			ck_assert_uint_eq(ev->nr_sector, io->size);
			ck_assert_uint_eq(ev->bytes, (uint64_t)io->size * 512);
			if (io->size)
				ck_assert_uint_eq(ev->sector,
						  rf.wl.part_start + io->offset +
						  (uint64_t)j * io->size);
			ck_assert_str_eq(ev->comm, io->comm);
			ck_assert_int_gt(ev->pid, 0);
			ck_assert_int_eq(ev->op, wl_op(io));
			if (!strcmp(io->op, "write")) {
				/* O_DIRECT writes are REQ_SYNC, never flush or FUA */
				ck_assert_int_eq(ev->flags, BLK_F_SYNC);
			} else if (!strcmp(io->op, "read")) {
				/* REQ_SYNC or not depends on the dio path taken */
				ck_assert_int_eq(ev->flags & ~BLK_F_SYNC, 0);
			} else {
				ck_assert_str_eq(io->op, "flush");
				ck_assert(ev->flags & BLK_F_PREFLUSH);
				ck_assert(!(ev->flags & BLK_F_FUA));
			}
		}
	}
	ck_assert_uint_eq(k, nq);
	free(q);
}
END_TEST

/*
 * A remap out of the partition names the whole disk and the disk sector; its
 * old sector is the partition-relative one the workload used.
 */
START_TEST(test_ring_partition_remap)
{
	unsigned long nr = 0;
	uint64_t sectors = 0;

	ring_load(_i);
	for (size_t i = 0; i < rf.nr_ev; i++) {
		const struct blk_event *ev = &rf.ev[i];
		bool known = false;

		if (ev->kind != BLK_EV_BIO_REMAP || ev->old_dev != rf.wl.part)
			continue;
		ck_assert_uint_eq(ev->dev, rf.wl.loop);
		ck_assert_uint_eq(ev->sector, ev->aux_sector + rf.wl.part_start);
		ck_assert_str_eq(ev->comm, "");	/* block_bio_remap has no comm */
		for (int w = 0; w < rf.wl.nr_io && !known; w++) {
			const struct wl_io *io = &rf.wl.io[w];

			known = io->size && ev->nr_sector == io->size &&
				ev->op == wl_op(io) && ev->aux_sector >= io->offset &&
				ev->aux_sector < io->offset + (uint64_t)io->size * io->count &&
				(ev->aux_sector - io->offset) % io->size == 0;
		}
		ck_assert_msg(known, "remap %llu+%u <- %llu is no I/O of the workload",
			      (unsigned long long)ev->sector, ev->nr_sector,
			      (unsigned long long)ev->aux_sector);
		nr++;
		sectors += ev->nr_sector;
	}
	/* every I/O with data crosses the partition once; an empty flush does not */
	ck_assert_uint_eq(nr, wl_data_ios());
	ck_assert_uint_eq(sectors, wl_total_sectors());
}
END_TEST

/* What was issued to the loop disk is what completed, and what was queued. */
START_TEST(test_ring_issue_complete_sums)
{
	uint64_t d_sum, c_sum, d_op[BLK_OP_MAX] = { 0 }, c_op[BLK_OP_MAX] = { 0 };
	uint64_t wl_op_sum[BLK_OP_MAX] = { 0 };
	unsigned long nd, nc;

	ring_load(_i);
	d_sum = sum_sectors(BLK_EV_RQ_ISSUE, rf.wl.loop, &nd);
	c_sum = sum_sectors(BLK_EV_RQ_COMPLETE, rf.wl.loop, &nc);
	ck_assert_uint_gt(nd, 0);
	ck_assert_uint_gt(nc, 0);
	ck_assert_uint_eq(d_sum, c_sum);
	ck_assert_uint_eq(d_sum, wl_total_sectors());

	for (size_t i = 0; i < rf.nr_ev; i++) {
		const struct blk_event *ev = &rf.ev[i];

		if (ev->dev != rf.wl.loop)
			continue;
		if (ev->kind == BLK_EV_RQ_ISSUE)
			d_op[ev->op] += ev->nr_sector;
		else if (ev->kind == BLK_EV_RQ_COMPLETE)
			c_op[ev->op] += ev->nr_sector;
		if (ev->kind == BLK_EV_RQ_COMPLETE)
			ck_assert_int_eq(ev->error, 0);
	}
	for (int w = 0; w < rf.wl.nr_io; w++)
		wl_op_sum[wl_op(&rf.wl.io[w])] += (uint64_t)rf.wl.io[w].size * rf.wl.io[w].count;
	for (int op = 0; op < BLK_OP_MAX; op++) {
		ck_assert_uint_eq(d_op[op], wl_op_sum[op]);
		ck_assert_uint_eq(c_op[op], wl_op_sum[op]);
	}
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Hand-built records                                                         */
/* ------------------------------------------------------------------------- */

/* Format texts as this kernel (6.18) writes them; ids as in the fixture. */
static const char bio_queue_format[] =
	"name: block_bio_queue\n"
	"ID: 2097\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:28;\tsize:10;\tsigned:0;\n"
	"\tfield:char comm[16];\toffset:38;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d,%d %s %llu + %u [%s]\", "
	"((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1))), "
	"REC->rwbs, (unsigned long long)REC->sector, REC->nr_sector, REC->comm\n";

static const char bio_remap_format[] =
	"name: block_bio_remap\n"
	"ID: 2091\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:dev_t old_dev;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t old_sector;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:40;\tsize:10;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d,%d %s %llu + %u <- (%d,%d) %llu\", "
	"((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1))), "
	"REC->rwbs, (unsigned long long)REC->sector, REC->nr_sector, "
	"((unsigned int) ((REC->old_dev) >> 20)), "
	"((unsigned int) ((REC->old_dev) & ((1U << 20) - 1))), "
	"(unsigned long long)REC->old_sector\n";

static const char rq_complete_format[] =
	"name: block_rq_complete\n"
	"ID: 2107\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:int error;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned short ioprio;\toffset:32;\tsize:2;\tsigned:0;\n"
	"\tfield:char rwbs[10];\toffset:34;\tsize:10;\tsigned:0;\n"
	"\tfield:__data_loc char[] cmd;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d,%d %s (%s) %llu + %u [%d]\", "
	"((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1))), "
	"REC->rwbs, __get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, "
	"REC->error\n";

/* A block event the decoder has no kind for: its records must be skipped. */
static const char dirty_buffer_format[] =
	"name: block_dirty_buffer\n"
	"ID: 2109\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t size;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"%d,%d sector=%llu size=%zu\", "
	"((unsigned int) ((REC->dev) >> 20)), ((unsigned int) ((REC->dev) & ((1U << 20) - 1))), "
	"(unsigned long long) REC->sector, REC->size\n";

/* block_bio_queue: 259,3 WFS 0x123456789a + 256 [fio], 56 bytes as committed */
static const unsigned char bio_queue_rec[] = {
	/* common_type: u16 @0 = 2097 */
	0x31, 0x08,
	/* common_flags: u8 @2 */
	0x01,
	/* common_preempt_count: u8 @3 */
	0x00,
	/* common_pid: int @4 = 4242 */
	0x92, 0x10, 0x00, 0x00,
	/* dev: dev_t @8 = 259:3 = (259 << 20) | 3 */
	0x03, 0x00, 0x30, 0x10,
	/* hole @12, sector_t is 8-aligned */
	0xee, 0xee, 0xee, 0xee,
	/* sector: sector_t @16 = 0x123456789a */
	0x9a, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00, 0x00,
	/* nr_sector: unsigned int @24 = 256 */
	0x00, 0x01, 0x00, 0x00,
	/* rwbs: char[10] @28 = "WFS" */
	'W', 'F', 'S', 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* comm: char[16] @38 = "fio" */
	'f', 'i', 'o', 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* ring-buffer padding @54 to a 4-byte length */
	0x00, 0x00,
};

/* block_bio_remap: 8,16 WS 33920 + 128 <- (8,17) 29824 */
static const unsigned char bio_remap_rec[] = {
	/* common_type: u16 @0 = 2091 */
	0x2b, 0x08,
	/* common_flags: u8 @2 */
	0x00,
	/* common_preempt_count: u8 @3 */
	0x01,
	/* common_pid: int @4 = 77 */
	0x4d, 0x00, 0x00, 0x00,
	/* dev: dev_t @8 = 8:16 */
	0x10, 0x00, 0x80, 0x00,
	/* hole @12 */
	0x00, 0x00, 0x00, 0x00,
	/* sector: sector_t @16 = 33920 */
	0x80, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* nr_sector: unsigned int @24 = 128 */
	0x80, 0x00, 0x00, 0x00,
	/* old_dev: dev_t @28 = 8:17 */
	0x11, 0x00, 0x80, 0x00,
	/* old_sector: sector_t @32 = 29824 */
	0x80, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* rwbs: char[10] @40 = "WS" */
	'W', 'S', 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* padding @50 */
	0x00, 0x00,
};

/* block_rq_complete: 254,0 FWS () 4096 + 8 be,0,4 [-5] */
static const unsigned char rq_complete_rec[] = {
	/* common_type: u16 @0 = 2107 */
	0x3b, 0x08,
	/* common_flags: u8 @2 */
	0x00,
	/* common_preempt_count: u8 @3 */
	0x00,
	/* common_pid: int @4 = 0 (the idle task: completion in interrupt) */
	0x00, 0x00, 0x00, 0x00,
	/* dev: dev_t @8 = 254:0 */
	0x00, 0x00, 0xe0, 0x0f,
	/* hole @12 */
	0x00, 0x00, 0x00, 0x00,
	/* sector: sector_t @16 = 4096 */
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* nr_sector: unsigned int @24 = 8 */
	0x08, 0x00, 0x00, 0x00,
	/* error: int @28 = -5 (EIO) */
	0xfb, 0xff, 0xff, 0xff,
	/* ioprio: unsigned short @32 = class BE (2 << 13) | level 4 */
	0x04, 0x40,
	/* rwbs: char[10] @34 = "FWS" */
	'F', 'W', 'S', 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* cmd: __data_loc @44 = length 1 << 16 | offset 48 */
	0x30, 0x00, 0x01, 0x00,
	/* cmd data @48 = "" */
	0x00, 0x00, 0x00, 0x00,
};

static struct tep_handle *hand_tep;
static struct decoder *hand_dec;

static void parse_format(struct tep_handle *tep, const char *text)
{
	ck_assert_int_eq(tep_parse_event(tep, text, strlen(text), "block"), 0);
}

static void hand_setup(void)
{
	hand_tep = tep_alloc();
	ck_assert_ptr_nonnull(hand_tep);
	tep_set_file_bigendian(hand_tep, TEP_LITTLE_ENDIAN);
	parse_format(hand_tep, bio_queue_format);
	parse_format(hand_tep, bio_remap_format);
	parse_format(hand_tep, rq_complete_format);
	parse_format(hand_tep, dirty_buffer_format);
	hand_dec = decoder_alloc(hand_tep);
	ck_assert_ptr_nonnull(hand_dec);
}

static void hand_teardown(void)
{
	decoder_free(hand_dec);
	tep_free(hand_tep);
	hand_dec = NULL;
	hand_tep = NULL;
}

START_TEST(test_hand_bio_queue)
{
	struct blk_event ev;

	ck_assert(decoder_has(hand_dec, BLK_EV_BIO_QUEUE));
	ck_assert_int_eq(decoder_event_id(hand_dec, BLK_EV_BIO_QUEUE), 2097);
	ck_assert(!decoder_has(hand_dec, BLK_EV_RQ_ISSUE));
	ck_assert_int_eq(decoder_event_id(hand_dec, BLK_EV_RQ_ISSUE), -1);

	memset(&ev, 0xa5, sizeof(ev));
	ck_assert_int_eq(decoder_decode(hand_dec, bio_queue_rec, sizeof(bio_queue_rec),
					123456789012ULL, 3, &ev), 1);
	ck_assert_uint_eq(ev.ts, 123456789012ULL);
	ck_assert_int_eq(ev.cpu, 3);
	ck_assert_int_eq(ev.kind, BLK_EV_BIO_QUEUE);
	ck_assert_int_eq(ev.pid, 4242);
	ck_assert_uint_eq(ev.dev, KDEV_MKDEV(259, 3));
	ck_assert_uint_eq(KDEV_MAJOR(ev.dev), 259);
	ck_assert_uint_eq(KDEV_MINOR(ev.dev), 3);
	ck_assert_uint_eq(ev.sector, 0x123456789aULL);
	ck_assert_uint_eq(ev.nr_sector, 256);
	ck_assert_uint_eq(ev.bytes, 256 * 512);
	ck_assert_uint_eq(ev.old_dev, 0);
	ck_assert_uint_eq(ev.aux_sector, 0);
	ck_assert_int_eq(ev.error, 0);
	ck_assert_uint_eq(ev.count, 0);
	ck_assert_int_eq(ev.op, BLK_OP_WRITE);
	ck_assert_int_eq(ev.flags, BLK_F_FUA | BLK_F_SYNC);
	ck_assert_uint_eq(ev.ioprio, 0);
	ck_assert_str_eq(ev.comm, "fio");
}
END_TEST

/*
 * rwbs strings are parsed once each and remembered: the bytes after the
 * NUL (ring-buffer leftovers) must not matter, and two strings must not
 * share an answer.
 */
START_TEST(test_hand_rwbs_memo)
{
	static const struct {
		const char rwbs[10];
		uint8_t op;
		uint16_t flags;
	} cases[] = {
		{ "WFS\0\xff\x13\x37\x42\x01", BLK_OP_WRITE, BLK_F_FUA | BLK_F_SYNC },
		{ "WFS\0\0\0\0\0\0", BLK_OP_WRITE, BLK_F_FUA | BLK_F_SYNC },
		{ "R\0S\0\0\0\0\0\0", BLK_OP_READ, 0 },
		{ "RA\0WWWWWW", BLK_OP_READ, BLK_F_RAHEAD },
		{ "FWFSM\0\x80\x80\x80", BLK_OP_WRITE, BLK_F_PREFLUSH | BLK_F_FUA | BLK_F_SYNC | BLK_F_META },
		{ "\0WS\0\0\0\0\0\0", BLK_OP_OTHER, 0 },
		{ "WS\0\0\0\0\0\0\0", BLK_OP_WRITE, BLK_F_SYNC },
		{ "DSM\0\0\0\0\0\0", BLK_OP_DISCARD, BLK_F_SYNC | BLK_F_META },
	};
	uint8_t rec[sizeof(bio_queue_rec)];
	struct blk_event ev;

	for (int round = 0; round < 2; round++) {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			memcpy(rec, bio_queue_rec, sizeof(rec));
			memcpy(rec + 28, cases[i].rwbs, 10);
			ck_assert_int_eq(decoder_decode(hand_dec, rec, sizeof(rec), 1, 0, &ev), 1);
			ck_assert_msg(ev.op == cases[i].op && ev.flags == cases[i].flags,
				      "case %zu round %d: op %d flags %#x, want %d %#x", i, round,
				      ev.op, ev.flags, cases[i].op, cases[i].flags);
		}
	}
}
END_TEST

START_TEST(test_hand_bio_remap)
{
	struct blk_event ev;

	memset(&ev, 0xa5, sizeof(ev));
	ck_assert_int_eq(decoder_decode(hand_dec, bio_remap_rec, sizeof(bio_remap_rec),
					5, 0, &ev), 1);
	ck_assert_uint_eq(ev.ts, 5);
	ck_assert_int_eq(ev.cpu, 0);
	ck_assert_int_eq(ev.kind, BLK_EV_BIO_REMAP);
	ck_assert_int_eq(ev.pid, 77);
	ck_assert_uint_eq(ev.dev, KDEV_MKDEV(8, 16));
	ck_assert_uint_eq(ev.sector, 33920);
	ck_assert_uint_eq(ev.nr_sector, 128);
	ck_assert_uint_eq(ev.bytes, 128 * 512);
	ck_assert_uint_eq(ev.old_dev, KDEV_MKDEV(8, 17));
	ck_assert_uint_eq(ev.aux_sector, 29824);
	ck_assert_int_eq(ev.error, 0);
	ck_assert_uint_eq(ev.count, 0);
	ck_assert_int_eq(ev.op, BLK_OP_WRITE);
	ck_assert_int_eq(ev.flags, BLK_F_SYNC);
	ck_assert_uint_eq(ev.ioprio, 0);
	ck_assert_str_eq(ev.comm, "");
}
END_TEST

START_TEST(test_hand_rq_complete)
{
	struct blk_event ev;

	memset(&ev, 0xa5, sizeof(ev));
	ck_assert_int_eq(decoder_decode(hand_dec, rq_complete_rec, sizeof(rq_complete_rec),
					~0ULL, 1, &ev), 1);
	ck_assert_uint_eq(ev.ts, ~0ULL);
	ck_assert_int_eq(ev.cpu, 1);
	ck_assert_int_eq(ev.kind, BLK_EV_RQ_COMPLETE);
	ck_assert_int_eq(ev.pid, 0);
	ck_assert_uint_eq(ev.dev, KDEV_MKDEV(254, 0));
	ck_assert_uint_eq(ev.sector, 4096);
	ck_assert_uint_eq(ev.nr_sector, 8);
	ck_assert_uint_eq(ev.bytes, 8 * 512);
	ck_assert_uint_eq(ev.old_dev, 0);
	ck_assert_uint_eq(ev.aux_sector, 0);
	ck_assert_int_eq(ev.error, -5);
	ck_assert_uint_eq(ev.count, 0);
	ck_assert_int_eq(ev.op, BLK_OP_WRITE);
	ck_assert_int_eq(ev.flags, BLK_F_PREFLUSH | BLK_F_SYNC);
	ck_assert_uint_eq(ev.ioprio, (2 << 13) | 4);
	ck_assert_str_eq(ev.comm, "");
}
END_TEST

/* Every length short of the format's last field is malformed, not a guess. */
START_TEST(test_hand_truncated)
{
	/* comm ends at 54: the format's size before ring-buffer padding */
	static const unsigned int short_sizes[] = { 2, 4, 8, 12, 16, 24, 28, 37, 38, 53 };
	struct blk_event ev;

	for (size_t i = 0; i < sizeof(short_sizes) / sizeof(short_sizes[0]); i++)
		ck_assert_msg(decoder_decode(hand_dec, bio_queue_rec, short_sizes[i], 0, 0,
					     &ev) == -EINVAL,
			      "a %u-byte block_bio_queue record is not -EINVAL", short_sizes[i]);
	ck_assert_int_eq(decoder_decode(hand_dec, bio_queue_rec, 54, 0, 0, &ev), 1);
	ck_assert_str_eq(ev.comm, "fio");
	ck_assert_int_eq(decoder_decode(hand_dec, bio_remap_rec, 49, 0, 0, &ev), -EINVAL);
	ck_assert_int_eq(decoder_decode(hand_dec, rq_complete_rec, 43, 0, 0, &ev), -EINVAL);
}
END_TEST

/*
 * A bare kind fills its kind, time and CPU only, and its records are as
 * malformed when short as before; the other kinds are decoded whole.
 */
START_TEST(test_hand_bare_kinds)
{
	struct blk_event ev;

	decoder_bare_kinds(hand_dec, 1ULL << BLK_EV_BIO_QUEUE);
	memset(&ev, 0xa5, sizeof(ev));
	ck_assert_int_eq(decoder_decode(hand_dec, bio_queue_rec, sizeof(bio_queue_rec), 77, 2,
					&ev), 1);
	ck_assert_uint_eq(ev.ts, 77);
	ck_assert_int_eq(ev.cpu, 2);
	ck_assert_int_eq(ev.kind, BLK_EV_BIO_QUEUE);
	ck_assert_uint_eq(ev.dev, 0xa5a5a5a5U);
	ck_assert_uint_eq(ev.sector, 0xa5a5a5a5a5a5a5a5ULL);
	ck_assert_int_eq(ev.pid, (int32_t)0xa5a5a5a5U);
	ck_assert_int_eq(ev.comm[0], (char)0xa5);
	ck_assert_int_eq(decoder_decode(hand_dec, bio_queue_rec, 53, 0, 0, &ev), -EINVAL);
	/* another kind, whole */
	ck_assert_int_eq(decoder_decode(hand_dec, bio_remap_rec, sizeof(bio_remap_rec), 5, 0,
					&ev), 1);
	ck_assert_int_eq(ev.kind, BLK_EV_BIO_REMAP);
	ck_assert_uint_eq(ev.dev, KDEV_MKDEV(8, 16));
	ck_assert_uint_eq(ev.aux_sector, 29824);
	ck_assert_str_eq(ev.comm, "");
}
END_TEST

/* A record of an event the decoder does not handle is skipped, whole or not. */
START_TEST(test_hand_other_event)
{
	static const uint16_t ids[] = {
		2109,	/* block_dirty_buffer: parsed, a block event, no kind */
		2098,	/* between the known ids, no format at all */
		2090,	/* just below the lowest known id */
		2108,	/* just above the highest */
		0, 1, 65535,
	};
	unsigned char rec[sizeof(bio_queue_rec)];
	struct blk_event ev;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		memcpy(rec, bio_queue_rec, sizeof(rec));
		rec[0] = ids[i] & 0xff;
		rec[1] = ids[i] >> 8;
		ck_assert_msg(decoder_decode(hand_dec, rec, sizeof(rec), 0, 0, &ev) == 0,
			      "a record of id %u is not skipped", ids[i]);
		ck_assert_msg(decoder_decode(hand_dec, rec, 8, 0, 0, &ev) == 0,
			      "a short record of id %u is not skipped", ids[i]);
	}
	/* too short to hold even common_type: never an event */
	ck_assert_int_ne(decoder_decode(hand_dec, bio_queue_rec, 1, 0, 0, &ev), 1);
	ck_assert_int_ne(decoder_decode(hand_dec, bio_queue_rec, 0, 0, 0, &ev), 1);
}
END_TEST

/* Remove the line declaring @field from a copy of @format. */
static char *format_without(const char *format, const char *field)
{
	char needle[64];
	char *text, *line, *end;

	text = strdup(format);
	ck_assert_ptr_nonnull(text);
	snprintf(needle, sizeof(needle), " %s", field);
	line = strstr(text, needle);
	ck_assert_ptr_nonnull(line);
	while (line > text && line[-1] != '\n')
		line--;
	end = strchr(line, '\n');
	ck_assert_ptr_nonnull(end);
	memmove(line, end + 1, strlen(end + 1) + 1);
	return text;
}

/* A kernel without comm in block_bio_queue: the rest still decodes. */
START_TEST(test_hand_missing_field)
{
	struct tep_handle *tep = tep_alloc();
	char *text = format_without(bio_queue_format, "comm[16]");
	struct blk_event ev;
	struct decoder *dec;

	ck_assert_ptr_null(strstr(text, "comm[16]"));
	ck_assert_ptr_nonnull(strstr(text, "rwbs[10]"));
	/* the print fmt names REC->comm; libtraceevent may warn but parses */
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_loglevel(TEP_LOG_NONE);
	ck_assert_int_eq(tep_parse_event(tep, text, strlen(text), "block"), 0);
	ck_assert_ptr_null(tep_find_field(tep_find_event_by_name(tep, "block",
								 "block_bio_queue"), "comm"));
	dec = decoder_alloc(tep);
	ck_assert_ptr_nonnull(dec);
	ck_assert(decoder_has(dec, BLK_EV_BIO_QUEUE));

	memset(&ev, 0xa5, sizeof(ev));
	ck_assert_int_eq(decoder_decode(dec, bio_queue_rec, sizeof(bio_queue_rec), 9, 2, &ev), 1);
	ck_assert_str_eq(ev.comm, "");
	ck_assert_int_eq(ev.kind, BLK_EV_BIO_QUEUE);
	ck_assert_int_eq(ev.pid, 4242);
	ck_assert_uint_eq(ev.dev, KDEV_MKDEV(259, 3));
	ck_assert_uint_eq(ev.sector, 0x123456789aULL);
	ck_assert_uint_eq(ev.nr_sector, 256);
	ck_assert_int_eq(ev.op, BLK_OP_WRITE);
	ck_assert_int_eq(ev.flags, BLK_F_FUA | BLK_F_SYNC);
	/* without comm, the record is whole once rwbs is */
	ck_assert_int_eq(decoder_decode(dec, bio_queue_rec, 38, 9, 2, &ev), 1);
	ck_assert_int_eq(decoder_decode(dec, bio_queue_rec, 37, 9, 2, &ev), -EINVAL);

	decoder_free(dec);
	tep_free(tep);
	free(text);
}
END_TEST

/* A handle with no block event gives no decoder. */
START_TEST(test_hand_no_block_events)
{
	struct tep_handle *tep = tep_alloc();
	struct decoder *dec;

	errno = 0;
	dec = decoder_alloc(tep);
	ck_assert_ptr_null(dec);
	ck_assert_int_eq(errno, ENOENT);
	decoder_free(NULL);
	tep_free(tep);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* rwbs                                                                       */
/* ------------------------------------------------------------------------- */

static const struct rwbs_case {
	const char *rwbs;
	int ret;
	uint8_t op;
	uint16_t flags;
} rwbs_cases[] = {
	{ "W",   0,       BLK_OP_WRITE,        0 },
	{ "WS",  0,       BLK_OP_WRITE,        BLK_F_SYNC },
	{ "FWS", 0,       BLK_OP_WRITE,        BLK_F_PREFLUSH | BLK_F_SYNC },
	{ "WFS", 0,       BLK_OP_WRITE,        BLK_F_FUA | BLK_F_SYNC },
	{ "FWFS", 0,      BLK_OP_WRITE,        BLK_F_PREFLUSH | BLK_F_FUA | BLK_F_SYNC },
	{ "R",   0,       BLK_OP_READ,         0 },
	{ "RA",  0,       BLK_OP_READ,         BLK_F_RAHEAD },
	{ "RM",  0,       BLK_OP_READ,         BLK_F_META },
	{ "RSM", 0,       BLK_OP_READ,         BLK_F_SYNC | BLK_F_META },
	{ "D",   0,       BLK_OP_DISCARD,      0 },
	{ "DE",  0,       BLK_OP_SECURE_ERASE, 0 },
	{ "F",   0,       BLK_OP_FLUSH,        0 },
	/* blk-flush's own request: REQ_OP_FLUSH | REQ_PREFLUSH */
	{ "FF",  0,       BLK_OP_FLUSH,        BLK_F_PREFLUSH },
	{ "N",   0,       BLK_OP_OTHER,        0 },
	{ "",    -EINVAL, BLK_OP_OTHER,        0 },
};

START_TEST(test_rwbs_parse)
{
	const struct rwbs_case *c = &rwbs_cases[_i];
	char field[10] = { 0 };	/* as the tracepoint stores it: NUL-padded */
	uint16_t flags = 0xffff;
	uint8_t op = 0xff;

	memcpy(field, c->rwbs, strlen(c->rwbs));
	ck_assert_msg(blk_rwbs_parse(field, sizeof(field), &op, &flags) == c->ret,
		      "\"%s\": return value", c->rwbs);
	ck_assert_msg(op == c->op, "\"%s\": op %u, expected %u", c->rwbs, op, c->op);
	ck_assert_msg(flags == c->flags, "\"%s\": flags %#x, expected %#x", c->rwbs, flags,
		      c->flags);

	/* a string filling its length exactly, with no NUL after it */
	op = 0xff;
	flags = 0xffff;
	ck_assert_int_eq(blk_rwbs_parse(c->rwbs, strlen(c->rwbs), &op, &flags), c->ret);
	ck_assert_int_eq(op, c->op);
	ck_assert_int_eq(flags, c->flags);
}
END_TEST

START_TEST(test_rwbs_garbage)
{
	uint16_t flags;
	uint8_t op;

	ck_assert_int_eq(blk_rwbs_parse("X", 1, &op, &flags), -EINVAL);
	ck_assert_int_eq(blk_rwbs_parse("WQ", 2, &op, &flags), -EINVAL);
	/* a full ten letters with no NUL is read no further than @len */
	ck_assert_int_eq(blk_rwbs_parse("RSSSSSSSSSW", 10, &op, &flags), 0);
	ck_assert_int_eq(op, BLK_OP_READ);
	ck_assert_int_eq(flags, BLK_F_SYNC);
}
END_TEST

/*
 * A record decoded three ways gives the same event, byte for byte: by its
 * shape's code (decode.h, the fields of 6.x kernels), by masked loads of
 * every field, and by the per-field loads of decoder_decode_slow(). Random
 * records of every block event of the captured kernel's formats; the
 * shapes must cover the events the tracker follows.
 */
START_TEST(test_ring_shapes_match_masked)
{
	unsigned int shapes_seen = 0;

	ring_load(_i);
	srand(7);
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++) {
		struct kind_layout *kl = &rf.dec->kinds[k];
		struct decode_id *e;
		uint8_t rec[512];
		unsigned int sz;
		uint8_t shape;

		if (!kl->present || !kl->fast)
			continue;
		sz = kl->check_size;
		ck_assert_uint_le(sz, sizeof(rec));
		e = &rf.dec->ids[kl->id - rf.dec->min_id];
		shape = kl->fl.shape;
		shapes_seen |= 1U << shape;
		for (int n = 0; n < 200; n++) {
			struct blk_event ev[3];
			uint16_t id = kl->id;

			for (size_t i = 0; i < sizeof(rec); i++)
				rec[i] = rand();
			/* a short string in rwbs most of the time, as the kernel writes it */
			/* rwbs: the next to last of decode.c's fields */
			if (n % 4 && kl->f[DECODE_NFIELDS - 2].offset >= 0)
				memcpy(rec + kl->f[DECODE_NFIELDS - 2].offset, "WS\0", 3);
			memcpy(rec, &id, 2);
			memset(ev, 0x5a, sizeof(ev));
			ck_assert_int_eq(decoder_decode(rf.dec, rec, sz, 1, 1, &ev[0]), 1);
			kl->fl.shape = DECODE_SHAPE_ANY;
			ck_assert_int_eq(decoder_decode(rf.dec, rec, sz, 1, 1, &ev[1]), 1);
			kl->fast = false;
			e->fast_size = UINT32_MAX;
			ck_assert_int_eq(decoder_decode(rf.dec, rec, sz, 1, 1, &ev[2]), 1);
			kl->fast = true;
			e->fast_size = kl->check_size;
			kl->fl.shape = shape;
			ck_assert_msg(!memcmp(&ev[0], &ev[1], sizeof(ev[0])),
				      "%s: shape %u and masked loads differ", blk_kind_name(k),
				      shape);
			ck_assert_msg(!memcmp(&ev[0], &ev[2], sizeof(ev[0])),
				      "%s: shape %u and per-field loads differ", blk_kind_name(k),
				      shape);
		}
	}
	/* queue, issue, complete, bio complete, remap, plug, unplug on 6.x */
	for (unsigned int sh = DECODE_SHAPE_BIO; sh <= DECODE_SHAPE_UNPLUG; sh++)
		ck_assert_msg(shapes_seen & (1U << sh), "%s: no event of shape %u",
			      ring_names[_i], sh);
}
END_TEST

/* ------------------------------------------------------------------------- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every capture directory under ring/ (one per kernel). */
static void find_rings(void)
{
	struct dirent *de;
	DIR *d = opendir(RING_DIR);

	if (!d)
		return;
	while ((de = readdir(d)) && nr_rings < MAX_RINGS) {
		char path[sizeof(RING_DIR) + sizeof(de->d_name) + 16];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		/* runs before any test: no ck_assert here */
		snprintf(path, sizeof(path), "%s/%s/workload.txt", RING_DIR, de->d_name);
		if (stat(path, &st) < 0)
			continue;
		snprintf(ring_names[nr_rings++], sizeof(ring_names[0]), "%s", de->d_name);
	}
	closedir(d);
	qsort(ring_names, nr_rings, sizeof(ring_names[0]), cmp_names);
}

static Suite *decode_suite(void)
{
	Suite *s = suite_create("decode");
	TCase *tc;

	tc = tcase_create("ring");
	tcase_add_checked_fixture(tc, ring_setup, ring_teardown);
	tcase_add_loop_test(tc, test_ring_well_formed, 0, nr_rings);
	tcase_add_loop_test(tc, test_ring_queue_matches_workload, 0, nr_rings);
	tcase_add_loop_test(tc, test_ring_partition_remap, 0, nr_rings);
	tcase_add_loop_test(tc, test_ring_issue_complete_sums, 0, nr_rings);
	tcase_add_loop_test(tc, test_ring_shapes_match_masked, 0, nr_rings);
	suite_add_tcase(s, tc);

	tc = tcase_create("hand-built");
	tcase_add_checked_fixture(tc, hand_setup, hand_teardown);
	tcase_add_test(tc, test_hand_bio_queue);
	tcase_add_test(tc, test_hand_rwbs_memo);
	tcase_add_test(tc, test_hand_bio_remap);
	tcase_add_test(tc, test_hand_rq_complete);
	tcase_add_test(tc, test_hand_truncated);
	tcase_add_test(tc, test_hand_other_event);
	tcase_add_test(tc, test_hand_bare_kinds);
	tcase_add_test(tc, test_hand_missing_field);
	tcase_add_test(tc, test_hand_no_block_events);
	suite_add_tcase(s, tc);

	tc = tcase_create("rwbs");
	tcase_add_loop_test(tc, test_rwbs_parse, 0, sizeof(rwbs_cases) / sizeof(rwbs_cases[0]));
	tcase_add_test(tc, test_rwbs_garbage);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	find_rings();
	if (!nr_rings) {
		fprintf(stderr, "check_decode: no capture under '%s'\n", RING_DIR);
		return 1;
	}
	return check_run(decode_suite());
}
