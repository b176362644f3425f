// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_v7.c - blkstack's own reader of trace-cmd's version 7 files
 * (format/datfile.c, format/datpages.c), with libtracecmd as the oracle:
 *  - the v7 recording of tests/fixtures/vm (trace-cmd, zstd): every event
 *    equal to what libtracecmd reads;
 *  - v7 files made here from a v6 recording of the fixture pages (zstd,
 *    zlib, uncompressed, chunks of one page to many): every event equal to
 *    the v6 original, and to what libtracecmd reads (Debian's libtracecmd
 *    has no zlib: for zlib files the v6 original is the only oracle);
 *  - the same files damaged (a chunk's data, its sizes, the chunk count,
 *    cut short, a loop of options sections): an error or a truncation
 *    said, the events before the damage delivered, never a crash, a hang
 *    or an allocation the size of a garbage number;
 *  - decoding in 2 to 4 threads (tracefile_set_jobs()), chunks decompressed
 *    ahead (chunkring.c): the same events in the same order and the same
 *    end as in one, damaged files included, and a consumer that gives up
 *    stops them all;
 *  - whether a file holds an event of a kind (tracefile_holds(), in 1 to 4
 *    threads, pages in runs): what a read in time order delivers, kind for
 *    kind, damaged files included.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "base/pcevent.h"
#include "check_dat.h"
#include "check_files.h"
#include "check_run.h"
#include "format/datfile.h"
#include "format/datwrite.h"
#include "format/decode.h"
#include "format/tracefile.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif

#define VM_V7	FIXTURES_DIR "/vm/6.1.0-56-amd64-ref-virtio-v7.dat"

/* ---- events, as blkstack reads them and as libtracecmd does ---- */

struct evlist {
	struct blk_event *ev;
	size_t n, cap;
};

static void evlist_add(struct evlist *l, const struct blk_event *ev)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->ev = realloc(l->ev, l->cap * sizeof(*l->ev));
		ck_assert_ptr_nonnull(l->ev);
	}
	l->ev[l->n++] = *ev;
}

static int collect(const struct blk_event *ev, void *ctx)
{
	evlist_add(ctx, ev);
	return 0;
}

/* blkstack's reader with @jobs threads: the return of tracefile_read(), the events in @l */
static int read_jobs(const char *path, int jobs, struct evlist *l, uint64_t *truncated)
{
	const struct source_stats *st;
	struct tracefile *f;
	int err, ret;

	f = tracefile_open(path, &err);
	if (!f)
		return err;
	tracefile_set_jobs(f, jobs);
	ret = tracefile_read(f, collect, l);
	st = tracefile_stats(f);
	*truncated = 0;
	for (int c = 0; c < st->ncpu; c++)
		*truncated += st->cpu[c].truncated;
	tracefile_close(f);
	return ret;
}

static int read_ours(const char *path, struct evlist *l, uint64_t *truncated)
{
	return read_jobs(path, 1, l, truncated);
}

struct oracle {
	struct decoder *d;
	struct evlist *l;
};

static int oracle_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct oracle *o = data;
	struct blk_event ev;

	(void)h;
	(void)cpu;
	memset(&ev, 0, sizeof(ev));
	if (decoder_decode(o->d, rec->data, rec->size, rec->ts, rec->cpu, &ev) > 0)
		evlist_add(o->l, &ev);
	return 0;
}

/* libtracecmd's reader, every buffer, decoded by the same decoder */
static void read_oracle(const char *path, struct evlist *l)
{
	struct tracecmd_input *h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS), *bufs[16];
	struct oracle o = { .l = l };
	int n = 0;

	ck_assert_msg(h != NULL, "libtracecmd cannot open '%s'", path);
	o.d = decoder_alloc(tracecmd_get_tep(h));
	ck_assert_ptr_nonnull(o.d);
	bufs[n++] = h;
	for (int i = 0; i < tracecmd_buffer_instances(h) && n < 16; i++) {
		bufs[n] = tracecmd_buffer_instance_handle(h, i);
		if (bufs[n])
			n++;
	}
	tracecmd_iterate_events_multi(bufs, n, oracle_record, &o);
	decoder_free(o.d);
	for (int i = 1; i < n; i++)
		tracecmd_close(bufs[i]);
	tracecmd_close(h);
}

/* The fields every kind sets; the rest may be left from an earlier event. */
static void assert_same_event(const struct blk_event *a, const struct blk_event *b, size_t i)
{
	ck_assert_msg(a->ts == b->ts && a->cpu == b->cpu && a->kind == b->kind &&
		      a->dev == b->dev && a->sector == b->sector &&
		      a->nr_sector == b->nr_sector && a->pid == b->pid && a->op == b->op &&
		      a->flags == b->flags && a->error == b->error,
		      "event %zu differs: ts %llu/%llu kind %d/%d sector %llu/%llu", i,
		      (unsigned long long)a->ts, (unsigned long long)b->ts, a->kind, b->kind,
		      (unsigned long long)a->sector, (unsigned long long)b->sector);
}

static void assert_same(const struct evlist *a, const struct evlist *b)
{
	ck_assert_uint_eq(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_same_event(&a->ev[i], &b->ev[i], i);
}

static void assert_equals_oracle(const char *path)
{
	struct evlist ours = { 0 }, theirs = { 0 };
	uint64_t truncated;

	ck_assert_int_eq(read_ours(path, &ours, &truncated), 0);
	ck_assert_uint_eq(truncated, 0);
	read_oracle(path, &theirs);
	ck_assert_uint_gt(ours.n, 0);
	assert_same(&ours, &theirs);
	free(ours.ev);
	free(theirs.ev);
}

/* ---- a v6 recording of the fixture pages, and v7 files made from it ---- */

struct buf {
	uint8_t *d;
	size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2;
		b->d = realloc(b->d, b->cap);
		ck_assert_ptr_nonnull(b->d);
	}
	memcpy(b->d + b->len, p, n);
	b->len += n;
}

static void put16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static void set64(struct buf *b, size_t at, uint64_t v) { memcpy(b->d + at, &v, 8); }

static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

/* A section header (id, flags, no description); returns where its size goes. */
static size_t section(struct buf *b, uint16_t id, uint16_t flags)
{
	put16(b, id);
	put16(b, flags);
	put32(b, 0);
	put64(b, 0);
	return b->len - 8;
}

static void section_end(struct buf *b, size_t size_at)
{
	set64(b, size_at, b->len - size_at - 8);
}

enum damage {
	DMG_NONE,
	DMG_ZDATA,		/* bytes of a chunk's compressed data overwritten */
	DMG_USIZE_HUGE,		/* a chunk says it holds 4 GiB */
	DMG_USIZE_ODD,		/* a chunk that is not whole pages */
	DMG_ZSIZE_HUGE,		/* a chunk whose compressed size runs past the stream */
	DMG_NCHUNKS,		/* a chunk count larger than the chunks there are */
	DMG_OPTIONS_LOOP,	/* the last options section names the first as the next */
	DMG_CUT,		/* the file ends in the middle of cpu0's chunks */
};

/* where the v7 maker put things, for the damage */
struct v7_marks {
	size_t opt1, opt2_done, cpu0_count, cpu0_chunk1, cpu1_end;
};

static size_t compress_chunk(enum unzip_algo algo, const uint8_t *src, size_t n, uint8_t *dst,
			     size_t cap)
{
	if (algo == UNZIP_ZSTD) {
		size_t z = ZSTD_compress(dst, cap, src, n, 3);

		ck_assert(!ZSTD_isError(z));
		return z;
	}
	uLongf z = cap;

	ck_assert_int_eq(compress2(dst, &z, src, n, 6), Z_OK);
	return z;
}

/*
 * @v6 rewritten as a version 7 file (trace-cmd.dat.v7(5)): the same header
 * sections, uncompressed; each CPU's pages in chunks of @chunk_pages pages
 * compressed with @algo (or plain pages for UNZIP_NONE); the options that
 * name the buffer before the data, so that a cut in the data leaves them.
 */
static void make_v7(const char *v6path, const char *path, enum unzip_algo algo,
		    unsigned int chunk_pages, enum damage dmg)
{
	static const char *const names[] = { "none", "zstd", "zlib" };
	static const uint16_t ids[] = { 16, 17, 18, 19, 20, 21 };
	size_t v6len, p, starts[7], sec_at[6], buffer_at, cpu_off[2], cpu_size[2], opt2;
	uint8_t *v6 = (uint8_t *)check_slurp(v6path, &v6len);
	struct datfile_layout l;
	struct v7_marks mk = { 0 };
	struct buf b = { 0 };
	size_t zcap = ZSTD_compressBound(chunk_pages * PAGE) + 1024;
	uint8_t *z = malloc(zcap);
	FILE *out;
	uint32_t n;

	ck_assert_int_eq(datfile_layout_parse(v6, v6len, &l), 0);
	ck_assert_int_eq(l.nstreams, 2);
	/* the v6 header sections: their bytes are the v7 sections' contents */
	p = 18;
	starts[0] = p;
	p += 12;
	p += 8 + get64(v6 + p);
	p += 13;
	p += 8 + get64(v6 + p);
	starts[1] = p;
	n = get32(v6 + p);
	p += 4;
	for (uint32_t i = 0; i < n; i++)
		p += 8 + get64(v6 + p);
	starts[2] = p;
	n = get32(v6 + p);
	p += 4;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t events;

		p += strlen((char *)v6 + p) + 1;
		events = get32(v6 + p);
		p += 4;
		for (uint32_t j = 0; j < events; j++)
			p += 8 + get64(v6 + p);
	}
	starts[3] = p;
	p += 4 + get32(v6 + p);
	starts[4] = p;
	p += 4 + get32(v6 + p);
	starts[5] = p;
	p += 8 + get64(v6 + p);
	starts[6] = p;

	put(&b, v6, 10);
	put(&b, "7", 2);
	put(&b, v6 + 12, 6);			/* endianness, long size, page size */
	put(&b, names[algo], strlen(names[algo]) + 1);
	put(&b, "1", 2);
	put64(&b, 0);				/* the first options section: below */
	for (int i = 0; i < 6; i++) {
		size_t at = section(&b, ids[i], 0);

		sec_at[i] = at - 8;
		put(&b, v6 + starts[i], starts[i + 1] - starts[i]);
		section_end(&b, at);
	}
	/* options 1: where the sections are, the CPU count, then options 2 */
	mk.opt1 = b.len;
	set64(&b, 10 + 2 + 6 + strlen(names[algo]) + 1 + 2, mk.opt1);
	{
		size_t at = section(&b, 0, 0);

		for (int i = 0; i < 6; i++) {
			put16(&b, ids[i]);
			put32(&b, 8);
			put64(&b, sec_at[i]);
		}
		put16(&b, 8);
		put32(&b, 4);
		put32(&b, 2);
		put16(&b, 0);
		put32(&b, 8);
		mk.opt2_done = b.len;
		put64(&b, 0);			/* options 2: patched below */
		section_end(&b, at);
	}
	/* options 2 come before the data: their size does not depend on it */
	opt2 = b.len;
	set64(&b, mk.opt2_done, opt2);
	{
		size_t at = section(&b, 0, 0), buf_opt;

		put16(&b, 3);
		put32(&b, 8 + 1 + 5 + 4 + 4 + 2 * 20);
		buf_opt = b.len;
		put64(&b, 0);			/* the buffer section: patched below */
		put(&b, "", 1);
		put(&b, "mono", 5);
		put32(&b, PAGE);
		put32(&b, 2);
		for (int c = 0; c < 2; c++) {
			put32(&b, c);
			put64(&b, 0);
			put64(&b, 0);
		}
		put16(&b, 0);
		put32(&b, 8);
		put64(&b, dmg == DMG_OPTIONS_LOOP ? mk.opt1 : 0);
		section_end(&b, at);

		buffer_at = b.len;
		at = section(&b, 3, algo == UNZIP_NONE ? 0 : 1);
		for (int c = 0; c < 2; c++) {
			const struct datfile_stream *s = &l.streams[c];
			uint32_t chunks = 0;
			size_t count_at;

			while (b.len % PAGE)		/* the data starts on a page */
				put(&b, "", 1);
			cpu_off[c] = b.len;
			if (algo == UNZIP_NONE) {
				put(&b, v6 + s->offset, s->size);
				cpu_size[c] = s->size;
				continue;
			}
			count_at = b.len;
			put32(&b, 0);
			for (uint64_t o = 0; o < s->size; o += (uint64_t)chunk_pages * PAGE) {
				size_t un = s->size - o < (uint64_t)chunk_pages * PAGE ?
					    s->size - o : (size_t)chunk_pages * PAGE;
				size_t zn = compress_chunk(algo, v6 + s->offset + o, un, z, zcap);

				if (c == 0 && chunks == 1)
					mk.cpu0_chunk1 = b.len;
				put32(&b, zn);
				put32(&b, un);
				put(&b, z, zn);
				chunks++;
			}
			memcpy(b.d + count_at, &chunks, 4);
			if (c == 0)
				mk.cpu0_count = count_at;
			cpu_size[c] = b.len - count_at - 4;
		}
		mk.cpu1_end = b.len;
		section_end(&b, at);
		set64(&b, buf_opt, buffer_at);
		for (int c = 0; c < 2; c++) {
			set64(&b, buf_opt + 8 + 1 + 5 + 8 + c * 20 + 4, cpu_off[c]);
			set64(&b, buf_opt + 8 + 1 + 5 + 8 + c * 20 + 12, cpu_size[c]);
		}
	}
	ck_assert(mk.cpu0_chunk1 || dmg == DMG_NONE || dmg == DMG_OPTIONS_LOOP);
	switch (dmg) {
	case DMG_ZDATA:
		memset(b.d + mk.cpu0_chunk1 + 8 + 4, 0x5a, 16);
		break;
	case DMG_USIZE_HUGE:
		memcpy(b.d + mk.cpu0_chunk1 + 4, &(uint32_t){ 0xfffff000 }, 4);
		break;
	case DMG_USIZE_ODD:
		memcpy(b.d + mk.cpu0_chunk1 + 4, &(uint32_t){ PAGE + 100 }, 4);
		break;
	case DMG_ZSIZE_HUGE:
		memcpy(b.d + mk.cpu0_chunk1, &(uint32_t){ 0x7fffffff }, 4);
		break;
	case DMG_NCHUNKS:
		memcpy(b.d + mk.cpu0_count, &(uint32_t){ 0xffffffff }, 4);
		break;
	case DMG_CUT:
		b.len = mk.cpu0_chunk1 + 20;
		break;
	default:
		break;
	}
	out = fopen(path, "w");
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(fwrite(b.d, 1, b.len, out), b.len);
	ck_assert_int_eq(fclose(out), 0);
	datfile_layout_free(&l);
	free(b.d);
	free(z);
	free(v6);
}

static char v6_path[] = "/tmp/check_v7.v6.XXXXXX";
static char v7_path[] = "/tmp/check_v7.v7.XXXXXX";

static void setup(void)
{
	int fd = mkstemp(v6_path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	fd = mkstemp(v7_path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	check_write_dat(v6_path, false, false);
}

static void teardown(void)
{
	unlink(v6_path);
	unlink(v7_path);
	strcpy(v6_path, "/tmp/check_v7.v6.XXXXXX");
	strcpy(v7_path, "/tmp/check_v7.v7.XXXXXX");
}

START_TEST(test_fixture_zstd)
{
	assert_equals_oracle(VM_V7);
}
END_TEST

/*
 * The tasks' names of the saved_cmdlines, in a v6 file and in the v7
 * fixture (its section compressed): libtracecmd's, pid for pid.
 */
static void assert_names_are_oracles(const char *path)
{
	struct tracecmd_input *h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	struct tracefile *f;
	struct tep_handle *tep;
	int err = 0, named = 0;

	ck_assert_ptr_nonnull(h);
	tep = tracecmd_get_tep(h);
	f = tracefile_open(path, &err);
	ck_assert_ptr_nonnull(f);
	for (int pid = 1; pid < 32768; pid++) {
		const char *ours = tracefile_comm(f, pid);

		if (!tep_is_pid_registered(tep, pid)) {
			ck_assert_ptr_null(ours);
			continue;
		}
		ck_assert_ptr_nonnull(ours);
		ck_assert_str_eq(ours, tep_data_comm_from_pid(tep, pid));
		named++;
	}
	ck_assert_int_gt(named, 10);
	tracefile_close(f);
	tracecmd_close(h);
}

START_TEST(test_fixture_names)
{
	assert_names_are_oracles(VM_V7);
	assert_names_are_oracles(FIXTURES_DIR "/vm/6.1.0-56-amd64-ref-virtio.dat");
}
END_TEST

/* algorithm and chunk size of the hand-made files */
static const struct {
	enum unzip_algo algo;
	unsigned int chunk_pages;
} made[] = {
	{ UNZIP_ZSTD, 10 }, { UNZIP_ZSTD, 1 }, { UNZIP_ZSTD, 1000 },
	{ UNZIP_ZLIB, 10 }, { UNZIP_ZLIB, 3 }, { UNZIP_NONE, 0 },
};

START_TEST(test_made_equals_oracle_and_v6)
{
	struct evlist v6 = { 0 }, v7 = { 0 };
	uint64_t truncated;

	make_v7(v6_path, v7_path, made[_i].algo, made[_i].chunk_pages, DMG_NONE);
	if (made[_i].algo != UNZIP_ZLIB)	/* not in every libtracecmd */
		assert_equals_oracle(v7_path);
	ck_assert_int_eq(read_ours(v6_path, &v6, &truncated), 0);
	ck_assert_int_eq(read_ours(v7_path, &v7, &truncated), 0);
	assert_same(&v7, &v6);
	free(v6.ev);
	free(v7.ev);
}
END_TEST

/* damage, what tracefile_read() must then return, whether events are then missing */
static const struct {
	enum damage dmg;
	int ret;
	bool lost;
} damaged[] = {
	{ DMG_ZDATA, -EBADMSG, true }, { DMG_USIZE_HUGE, -EBADMSG, true },
	{ DMG_USIZE_ODD, -EBADMSG, true }, { DMG_ZSIZE_HUGE, -EBADMSG, true },
	/* every chunk is there: the count is found wrong after the last */
	{ DMG_NCHUNKS, -EBADMSG, false }, { DMG_CUT, 0, true },
};

/* both algorithms: zlib's chunks may be inflated by libdeflate rather than zlib */
START_TEST(test_damaged_chunks)
{
	static const enum unzip_algo algos[] = { UNZIP_ZSTD, UNZIP_ZLIB };

	for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
		struct evlist whole = { 0 }, got = { 0 };
		uint64_t truncated;

		make_v7(v6_path, v7_path, algos[a], 2, DMG_NONE);
		ck_assert_int_eq(read_ours(v7_path, &whole, &truncated), 0);
		make_v7(v6_path, v7_path, algos[a], 2, damaged[_i].dmg);
		ck_assert_int_eq(read_ours(v7_path, &got, &truncated), damaged[_i].ret);
		/* the pages before the damage are delivered, none after */
		ck_assert_uint_gt(got.n, 0);
		if (damaged[_i].lost)
			ck_assert_uint_lt(got.n, whole.n);
		else
			ck_assert_uint_eq(got.n, whole.n);
		if (damaged[_i].dmg == DMG_CUT)
			ck_assert_uint_gt(truncated, 0);
		free(whole.ev);
		free(got.ev);
	}
}
END_TEST

START_TEST(test_options_loop)
{
	struct evlist got = { 0 };
	uint64_t truncated;
	uint8_t *map;
	size_t len;
	struct datfile_layout l;

	make_v7(v6_path, v7_path, UNZIP_ZSTD, 10, DMG_OPTIONS_LOOP);
	map = (uint8_t *)check_slurp(v7_path, &len);
	ck_assert_int_eq(datfile_layout_parse(map, len, &l), -EINVAL);
	free(map);
	ck_assert_int_eq(read_ours(v7_path, &got, &truncated), -EBADMSG);
	free(got.ev);
}
END_TEST

/* Decoding in threads: the same events in the same order, the same end. */
static void assert_jobs_same(const char *path)
{
	struct evlist one = { 0 };
	uint64_t t1, tn;
	int r1 = read_jobs(path, 1, &one, &t1);

	for (int jobs = 2; jobs <= 4; jobs++) {
		struct evlist n = { 0 };

		ck_assert_int_eq(read_jobs(path, jobs, &n, &tn), r1);
		ck_assert_uint_eq(tn, t1);
		assert_same(&n, &one);
		free(n.ev);
	}
	free(one.ev);
}

START_TEST(test_jobs_fixtures)
{
	assert_jobs_same(VM_V7);
	assert_jobs_same(FIXTURES_DIR "/vm/6.1.0-56-amd64-ref-virtio.dat");
	assert_jobs_same(FIXTURES_DIR "/vm/6.1.0-56-amd64-crypt.dat");
}
END_TEST

START_TEST(test_jobs_made)
{
	make_v7(v6_path, v7_path, UNZIP_ZSTD, 1, DMG_NONE);
	assert_jobs_same(v7_path);
	assert_jobs_same(v6_path);
	make_v7(v6_path, v7_path, UNZIP_ZSTD, 2, DMG_ZDATA);
	assert_jobs_same(v7_path);
	make_v7(v6_path, v7_path, UNZIP_ZSTD, 2, DMG_CUT);
	assert_jobs_same(v7_path);
	/* damaged headers: the chunks decompressed ahead stop at them too */
	make_v7(v6_path, v7_path, UNZIP_ZSTD, 2, DMG_USIZE_ODD);
	assert_jobs_same(v7_path);
	make_v7(v6_path, v7_path, UNZIP_ZLIB, 1, DMG_ZSIZE_HUGE);
	assert_jobs_same(v7_path);
}
END_TEST

struct cancel {
	struct evlist l;
	size_t after;
};

/* what a consumer that gives up (report's Ctrl-C, an error) returns after @after events */
static int cancel_after(const struct blk_event *ev, void *ctx)
{
	struct cancel *c = ctx;

	if (c->l.n == c->after)
		return -ECANCELED;
	evlist_add(&c->l, ev);
	return 0;
}

/*
 * A consumer that gives up, at the start, in the middle or near the end:
 * the threads decoding and decompressing ahead stop and are joined (ASan
 * and valgrind builds tell a leak or a use after free), the events before
 * delivered as in one thread.
 */
START_TEST(test_jobs_cancel)
{
	struct evlist one = { 0 };
	uint64_t t1;

	make_v7(v6_path, v7_path, UNZIP_ZSTD, 1, DMG_NONE);
	ck_assert_int_eq(read_jobs(v7_path, 1, &one, &t1), 0);
	for (int jobs = 2; jobs <= 4; jobs++) {
		size_t at[] = { 0, 1, one.n / 2, one.n - 1 };

		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
			struct cancel c = { .after = at[k] };
			struct tracefile *f;
			int err;

			f = tracefile_open(v7_path, &err);
			ck_assert_ptr_nonnull(f);
			tracefile_set_jobs(f, jobs);
			ck_assert_int_eq(tracefile_read(f, cancel_after, &c), -ECANCELED);
			tracefile_close(f);
			ck_assert_uint_eq(c.l.n, at[k]);
			for (size_t i = 0; i < c.l.n; i++)
				assert_same_event(&c.l.ev[i], &one.ev[i], i);
			free(c.l.ev);
		}
	}
	free(one.ev);
}
END_TEST

/* ---- tracefile_holds(): what a read in time order would deliver ---- */

static int stop_at_first(const struct blk_event *ev __attribute__((unused)),
			 void *ctx __attribute__((unused)))
{
	return -ECANCELED;
}

/* Whether a read of @path in time order, of @kind only, delivers an event. */
static bool read_holds(const char *path, unsigned int kind)
{
	struct tracefile *f;
	bool held;
	int err;

	f = tracefile_open(path, &err);
	ck_assert_ptr_nonnull(f);
	tracefile_keep_kinds(f, 1ULL << kind);
	held = tracefile_read(f, stop_at_first, NULL) == -ECANCELED;
	tracefile_close(f);
	return held;
}

/*
 * For every kind of @kinds, tracefile_holds() in 1 to 4 threads says what
 * the read says; the kinds held, a bit each, in *@held.
 */
static void assert_holds_as_read(const char *path, uint64_t kinds, uint64_t *held)
{
	struct tracefile *f;
	int err;

	f = tracefile_open(path, &err);
	ck_assert_ptr_nonnull(f);
	*held = 0;
	for (unsigned int k = BLK_EV_NONE + 1; k < PC_EV_KIND_MAX; k++) {
		bool want;

		if (!(kinds & (1ULL << k)))
			continue;
		want = read_holds(path, k);

		if (want)
			*held |= 1ULL << k;
		for (int jobs = 1; jobs <= 4; jobs++)
			ck_assert_msg(tracefile_holds(f, 1ULL << k, jobs) == want,
				      "%s: kind %u, %d threads: %d expected", path, k, jobs, want);
	}
	tracefile_close(f);
}

START_TEST(test_holds_fixtures)
{
	static const char *const paths[] = {
		VM_V7, FIXTURES_DIR "/vm/6.1.0-56-amd64-ref-virtio.dat",
		FIXTURES_DIR "/vm/6.1.0-56-amd64-crypt.dat",
		FIXTURES_DIR "/vm/6.12.117+deb12-amd64-md-raid5.dat",
	};
	uint64_t held;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		assert_holds_as_read(paths[i], ~0ULL, &held);
		ck_assert(held & (1ULL << BLK_EV_BIO_QUEUE));
	}
	/* a stack of layers: its remaps are found */
	ck_assert(held & (1ULL << BLK_EV_BIO_REMAP));
}
END_TEST

/* Hand-made files, whole and damaged in each way. */
START_TEST(test_holds_made)
{
	static const enum damage dmgs[] = { DMG_ZDATA, DMG_USIZE_HUGE, DMG_USIZE_ODD,
					    DMG_ZSIZE_HUGE, DMG_NCHUNKS, DMG_CUT };
	uint64_t whole, got;

	assert_holds_as_read(v6_path, ~0ULL, &whole);
	make_v7(v6_path, v7_path, UNZIP_ZSTD, 1, DMG_NONE);
	assert_holds_as_read(v7_path, ~0ULL, &got);
	ck_assert_uint_eq(got, whole);
	make_v7(v6_path, v7_path, UNZIP_ZLIB, 3, DMG_NONE);
	assert_holds_as_read(v7_path, ~0ULL, &got);
	ck_assert_uint_eq(got, whole);
	for (size_t i = 0; i < sizeof(dmgs) / sizeof(dmgs[0]); i++) {
		make_v7(v6_path, v7_path, UNZIP_ZSTD, 1, dmgs[i]);
		assert_holds_as_read(v7_path, whole, &got);
	}
}
END_TEST

/*
 * The trace-cmd fixture with the data of one chunk of a stream (its first,
 * or one in its middle) overwritten: a kind that only that chunk and what
 * follows it on its CPU hold is not held, as the read never delivers it.
 */
START_TEST(test_holds_damaged_fixture)
{
	uint64_t whole, got, hidden = 0;
	struct datfile_layout l;
	uint8_t *d;
	size_t len;

	assert_holds_as_read(VM_V7, ~0ULL, &whole);
	d = (uint8_t *)check_slurp(VM_V7, &len);
	ck_assert_int_eq(datfile_layout_parse(d, len, &l), 0);
	for (int i = 0; i < l.nstreams; i++) {
		for (uint32_t nth = 0; nth < l.streams[i].nchunks; nth += l.streams[i].nchunks / 2) {
			uint64_t off = l.streams[i].offset;
			uint8_t save[8];
			FILE *out;

			for (uint32_t c = 0; c < nth; c++)
				off += 8 + get32(d + off);
			/* the zstd frame's magic number and header */
			memcpy(save, d + off + 8, 8);
			memset(d + off + 8, 0xff, 8);
			out = fopen(v7_path, "w");
			ck_assert_ptr_nonnull(out);
			ck_assert_uint_eq(fwrite(d, 1, len, out), len);
			ck_assert_int_eq(fclose(out), 0);
			memcpy(d + off + 8, save, 8);
			/* damage hides kinds, it adds none: the kinds held whole are asked */
			assert_holds_as_read(v7_path, whole, &got);
			hidden |= whole & ~got;
			if (l.streams[i].nchunks < 2)
				break;
		}
	}
	/* the case above was met */
	ck_assert_uint_ne(hidden, 0);
	datfile_layout_free(&l);
	free(d);
}
END_TEST

static Suite *v7_suite(void)
{
	Suite *s = suite_create("v7");
	TCase *tc = tcase_create("trace-cmd");

	tcase_add_test(tc, test_fixture_zstd);
	tcase_add_test(tc, test_fixture_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("made");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_made_equals_oracle_and_v6, 0, sizeof(made) / sizeof(made[0]));
	tcase_add_loop_test(tc, test_damaged_chunks, 0, sizeof(damaged) / sizeof(damaged[0]));
	tcase_add_test(tc, test_options_loop);
	tcase_add_test(tc, test_jobs_made);
	tcase_add_test(tc, test_jobs_cancel);
	tcase_add_test(tc, test_holds_made);
	tcase_add_test(tc, test_holds_damaged_fixture);
	suite_add_tcase(s, tc);
	tc = tcase_create("jobs");
	tcase_add_test(tc, test_jobs_fixtures);
	tcase_add_test(tc, test_holds_fixtures);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(v7_suite());
}
