// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_roles.c - a recording read once, started again at its first remap
 * (cmd/roles.c's roles_read()), against the two passes made before every
 * read (roles_of_recording()), on recordings of the captured fixture pages
 * (tests/fixtures/ring: dd on a partition of a loop device, whose every bio
 * is remapped from the partition to the disk), with their remaps as
 * captured (early: in the first I/O), all left out but one after every
 * other event (late), or all left out (none):
 *  - tracefile_rewind(): a second read of an open file, after a whole
 *    read, a read its consumer stopped or one of some kinds only, gives
 *    the same events and the same accounting as the first, in 1 and 2
 *    threads;
 *  - the report of the statistics and tracking counters is the same both
 *    ways, in 1 and 2 threads, on version 6 and on version 7 (zstd, when
 *    trace-cmd is there to convert); the consumers are made again once
 *    when there is a remap, never without; and the late remap changes the
 *    report (the disk's I/O is issued by the layer above it): without the
 *    restart it would be wrong;
 *  - blkstack report itself, with every option that collects state
 *    (--slowest, --by flag, --access, --html, --amplification, --btt,
 *    --iostat, limits), -j 1 and -j 2: the same bytes as the two passes
 *    gave, kept as hashes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_dat.h"
#include "check_files.h"
#include "check_run.h"
#include "cmd/cmd.h"
#include "cmd/roles.h"
#include "format/pagewalk.h"
#include "format/tracefile.h"
#include "output/report.h"
#include "track/stats.h"
#include "track/tracker.h"

/* every block event the decoder knows, as the fixture's kernel has them */
static const char *const events[] = {
	"block_bio_queue", "block_rq_complete", "block_bio_remap", "block_bio_complete",
	"block_bio_backmerge", "block_bio_frontmerge", "block_getrq", "block_rq_insert",
	"block_rq_issue", "block_rq_merge", "block_rq_requeue", "block_split", "block_plug",
	"block_unplug", "block_io_start", "block_io_done",
};
#define NEVENTS ((int)(sizeof(events) / sizeof(events[0])))

/* an id no format of the recording has: its records are skipped as another event's */
#define NO_EVENT_ID 0xfffe

enum remaps { REMAPS_EARLY, REMAPS_LATE, REMAPS_NONE, REMAPS_KINDS };

static const char *const remaps_name[] = { "early", "late", "none" };

static uint16_t event_id(const char *name)
{
	char p[PATH_MAX], *fmt;
	uint16_t id;
	size_t len;

	snprintf(p, sizeof(p), RING "/events/block/%s/format", name);
	fmt = check_slurp(p, &len);
	ck_assert_ptr_nonnull(strstr(fmt, "ID: "));
	id = (uint16_t)atoi(strstr(fmt, "ID: ") + 4);
	free(fmt);
	return id;
}

/*
 * Write the fixture's pages to @path as a recording with every block
 * format: as captured (@how early: the first event is a remap), with every
 * remap made a record of no known event (none), or those and a page after
 * every other holding one of the remaps (late).
 */
static void write_recording(const char *path, enum remaps how)
{
	uint16_t remap_id = event_id("block_bio_remap"), none = NO_EVENT_ID;
	uint8_t *pages[2], remap[256];
	size_t len[2], remap_size = 0;
	uint64_t last = 0;

	for (int c = 0; c < 2; c++) {
		char p[PATH_MAX];
		struct pagewalk w;

		snprintf(p, sizeof(p), RING "/cpu%d.raw", c);
		pages[c] = (uint8_t *)check_slurp(p, &len[c]);
		pagewalk_init(&w, 8, false);
		for (size_t off = 0; off < len[c]; off += PAGE) {
			const uint8_t *r;
			unsigned int size;
			uint64_t ts;

			ck_assert_int_eq(pagewalk_load(&w, pages[c] + off, PAGE), 0);
			while ((r = pagewalk_next(&w, &ts, &size))) {
				last = ts > last ? ts : last;
				if (size < 2 || memcmp(r, &remap_id, 2))
					continue;
				if (!remap_size && size <= sizeof(remap)) {
					memcpy(remap, r, size);
					remap_size = size;
				}
				/* the walker's records are in the page walked */
				ck_assert(r >= pages[c] && r < pages[c] + len[c]);
				if (how != REMAPS_EARLY)
					memcpy(pages[c] + (r - pages[c]), &none, 2);
			}
		}
	}
	ck_assert_uint_gt(remap_size, 0);
	if (how == REMAPS_LATE) {
		/* a page of cpu1 after every other: its one record, the remap */
		uint64_t commit = 4 + remap_size;
		uint32_t head = remap_size / 4;
		uint8_t *page;

		ck_assert_uint_eq(remap_size % 4, 0);
		ck_assert_uint_le(head, 28);	/* its size in its header's type_len */
		pages[1] = realloc(pages[1], len[1] + PAGE);
		ck_assert_ptr_nonnull(pages[1]);
		page = pages[1] + len[1];
		memset(page, 0, PAGE);
		last += 1000;
		memcpy(page, &last, 8);
		memcpy(page + 8, &commit, 8);
		memcpy(page + 16, &head, 4);
		memcpy(page + 20, remap, remap_size);
		len[1] += PAGE;
	}
	check_write_dat_events(path, events, NEVENTS, false, false,
			       (const uint8_t *const *)pages, len);
	free(pages[0]);
	free(pages[1]);
}

/* @path as version 7, zstd; false when trace-cmd is not there to convert it */
static bool convert_v7(const char *path, const char *v7)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd),
		 "trace-cmd convert -i '%s' -o '%s' --file-version 7 --compression zstd "
		 ">/dev/null 2>&1", path, v7);
	return system(cmd) == 0;
}

/* ---- tracefile_rewind() ---- */

struct tally {
	uint64_t n, sum, stop_at;
};

static int count_event(const struct blk_event *ev, void *ctx)
{
	struct tally *t = ctx;

	if (t->stop_at && t->n == t->stop_at)
		return -ECANCELED;
	t->n++;
	t->sum = t->sum * 31 + ev->ts + ev->sector * 7 + ev->nr_sector + ev->kind * 3 + ev->cpu;
	return 0;
}

/* the accounting of a read, summed over the CPUs */
static uint64_t stats_sum(struct tracefile *f)
{
	const struct source_stats *st = tracefile_stats(f);
	uint64_t sum = st->ncpu;

	for (int c = 0; c < st->ncpu; c++)
		sum = sum * 131 + st->cpu[c].events * 7 + st->cpu[c].other * 5 +
		      st->cpu[c].pages * 3 + st->cpu[c].bytes + st->cpu[c].last_ts;
	return sum;
}

static void assert_rewind_reads_again(const char *path, int jobs)
{
	struct tally first = { 0 }, again = { 0 }, some = { 0 }, stopped = { .stop_at = 50 };
	uint64_t first_stats;
	struct tracefile *f;
	int err;

	f = tracefile_open(path, &err);
	ck_assert_msg(f != NULL, "%s: %d", path, err);
	tracefile_set_jobs(f, jobs);
	ck_assert_int_eq(tracefile_read(f, count_event, &first), 0);
	first_stats = stats_sum(f);
	ck_assert_uint_gt(first.n, 100);

	/* after a whole read */
	ck_assert_int_eq(tracefile_rewind(f), 0);
	ck_assert_int_eq(tracefile_read(f, count_event, &again), 0);
	ck_assert_uint_eq(again.n, first.n);
	ck_assert_uint_eq(again.sum, first.sum);
	ck_assert_uint_eq(stats_sum(f), first_stats);

	/* after a read its consumer stopped */
	ck_assert_int_eq(tracefile_rewind(f), 0);
	ck_assert_int_eq(tracefile_read(f, count_event, &stopped), -ECANCELED);
	ck_assert_int_eq(tracefile_rewind(f), 0);
	again = (struct tally){ 0 };
	ck_assert_int_eq(tracefile_read(f, count_event, &again), 0);
	ck_assert_uint_eq(again.sum, first.sum);
	ck_assert_uint_eq(stats_sum(f), first_stats);

	/* after a read of one kind: every kind again */
	ck_assert_int_eq(tracefile_rewind(f), 0);
	tracefile_keep_kinds(f, 1ULL << BLK_EV_BIO_QUEUE);
	ck_assert_int_eq(tracefile_read(f, count_event, &some), 0);
	ck_assert_uint_gt(some.n, 0);
	ck_assert_uint_lt(some.n, first.n);
	ck_assert_int_eq(tracefile_rewind(f), 0);
	again = (struct tally){ 0 };
	ck_assert_int_eq(tracefile_read(f, count_event, &again), 0);
	ck_assert_uint_eq(again.sum, first.sum);
	ck_assert_uint_eq(stats_sum(f), first_stats);
	tracefile_close(f);
}

START_TEST(test_rewind_reads_again)
{
	char path[] = "/tmp/check_roles.XXXXXX", v7[PATH_MAX];
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_recording(path, REMAPS_EARLY);
	snprintf(v7, sizeof(v7), "%s.v7", path);
	for (int jobs = 1; jobs <= 2; jobs++) {
		assert_rewind_reads_again(path, jobs);
		if (convert_v7(path, v7))
			assert_rewind_reads_again(v7, jobs);
	}
	unlink(v7);
	unlink(path);
}
END_TEST

/* ---- one read started again at the first remap, against two passes ---- */

/* What the report is made of: the statistics behind a tracker. */
struct consumers {
	struct stats *st;
	struct tracker *t;
	int builds;
};

static struct tracker *consumers_build(void *ctx)
{
	struct consumers *c = ctx;

	tracker_free(c->t);
	stats_free(c->st);
	c->st = stats_alloc();
	ck_assert_ptr_nonnull(c->st);
	c->t = tracker_alloc(NULL, stats_io, c->st);
	ck_assert_ptr_nonnull(c->t);
	c->builds++;
	return c->t;
}

static int read_into(struct tracefile *f, void *ctx)
{
	struct consumers *c = ctx;

	return tracefile_read(f, tracker_event, c->t);
}

/* The text report of @c after the read of @f, in a string to free. */
static char *report_of(struct consumers *c, struct tracefile *f)
{
	struct report r = { 0 };
	size_t len;
	char *text;
	FILE *fp;

	tracker_finish(c->t);
	r.st = c->st;
	r.tk = tracker_counters(c->t);
	r.src = tracefile_stats(f);
	r.source = "recording";
	fp = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(out_report_text(fp, &r), 0);
	fclose(fp);
	tracker_free(c->t);
	stats_free(c->st);
	return text;
}

enum way { WAY_TWO_PASSES, WAY_ONE_READ, WAY_NO_ROLES };

/* The report of @path read @way in @jobs threads; *@builds: the consumers made */
static char *report(const char *path, enum way way, int jobs, int *builds)
{
	struct consumers c = { 0 };
	struct roles_reader r = { .read = read_into, .rebuild = consumers_build, .ctx = &c };
	struct tracefile *f;
	char *text;
	int err;

	consumers_build(&c);
	f = tracefile_open(path, &err);
	ck_assert_msg(f != NULL, "%s: %d", path, err);
	tracefile_set_jobs(f, jobs);
	if (way == WAY_TWO_PASSES) {
		ck_assert_int_eq(roles_of_recording(path, f, NULL, c.t, jobs), 0);
		tracefile_set_jobs(f, jobs);
		ck_assert_int_eq(read_into(f, &c), 0);
	} else if (way == WAY_ONE_READ) {
		ck_assert_int_eq(roles_read(path, f, NULL, c.t, jobs, &r), 0);
	} else {
		ck_assert_int_eq(read_into(f, &c), 0);
	}
	*builds = c.builds;
	text = report_of(&c, f);
	tracefile_close(f);
	return text;
}

/* the bytes @a and @b have in common at their start */
static size_t strspn_same(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

static void assert_one_read_as_two_passes(const char *path, enum remaps how, int jobs)
{
	char *two, *one, *none;
	int builds;

	two = report(path, WAY_TWO_PASSES, jobs, &builds);
	one = report(path, WAY_ONE_READ, jobs, &builds);
	ck_assert_msg(!strcmp(one, two), "%s, remaps %s, -j %d: read once, the report differs at "
		      "byte %zu from two passes'", path, remaps_name[how], jobs,
		      (size_t)(strspn_same(one, two)));
	/* made again at the remap, and only then */
	ck_assert_int_eq(builds, how == REMAPS_NONE ? 1 : 2);
	none = report(path, WAY_NO_ROLES, jobs, &builds);
	if (how == REMAPS_LATE)
		ck_assert_msg(strcmp(none, two), "%s: the late remap changes nothing", path);
	else if (how == REMAPS_NONE)
		ck_assert_str_eq(none, two);
	free(none);
	free(one);
	free(two);
}

START_TEST(test_one_read_as_two_passes)
{
	char path[] = "/tmp/check_roles.XXXXXX", v7[PATH_MAX];
	enum remaps how = _i;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_recording(path, how);
	snprintf(v7, sizeof(v7), "%s.v7", path);
	for (int jobs = 1; jobs <= 2; jobs++) {
		assert_one_read_as_two_passes(path, how, jobs);
		if (convert_v7(path, v7))
			assert_one_read_as_two_passes(v7, how, jobs);
	}
	unlink(v7);
	unlink(path);
}
END_TEST

/* A read that fails (an out-of-memory rebuild, said by it) stops there. */
static struct tracker *no_rebuild(void *ctx)
{
	(void)ctx;
	return NULL;
}

START_TEST(test_failed_rebuild_said)
{
	char path[] = "/tmp/check_roles.XXXXXX";
	struct consumers c = { 0 };
	struct roles_reader r = { .read = read_into, .rebuild = no_rebuild, .ctx = &c };
	struct tracefile *f;
	int fd = mkstemp(path), err;

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_recording(path, REMAPS_LATE);
	consumers_build(&c);
	f = tracefile_open(path, &err);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(roles_read(path, f, NULL, c.t, 1, &r), -ECANCELED);
	tracefile_close(f);
	tracker_free(c.t);
	stats_free(c.st);
	unlink(path);
}
END_TEST

/* ---- report, with every option that collects state, as two passes made it ---- */

/* the options, an empty string ending each set */
static const char *const report_opts[][10] = {
	{ "" },
	{ "--json", "" },
	{ "--slowest", "5", "" },
	{ "--slowest", "5", "--json", "" },
	{ "--by", "flag", "" },
	{ "--by", "flag", "--json", "" },
	{ "--access", "" },
	{ "--access", "--json", "" },
	{ "--html", "check_roles.html", "" },
	{ "--amplification", "" },
	{ "--amplification", "--json", "" },
	{ "--btt", "" },
	{ "--iostat", "--json", "" },
	{ "--slowest", "3", "--access", "--amplification", "--html", "check_roles.html", "--json",
	  "" },
	{ "--timeout", "1ms", "--max-inflight", "16", "" },
};
#define NOPTS ((int)(sizeof(report_opts) / sizeof(report_opts[0])))

/*
 * The FNV-1a hash of the report and HTML page that the two passes before
 * every read gave (blkstack 833b8ec) on check_roles-{early,late,none}.dat,
 * version 6 and its version 7 (-z7), with each set of options, -j 1 and 2
 * alike. The page-cache options are left out: what they say of a device
 * depends on what this machine mounts. The pages (options 8 and 13) were
 * made anew when issue 30 rewrote them (without the charting library, so
 * that no machine's copy changes them), by a build whose every other
 * output still had the two passes' hash. The reports and pages (options 0
 * to 3, 5 to 10, 13, 14) were made anew when issue 31 named and ordered the
 * layers as their stack, checked by test_one_read_as_two_passes first
 * (print_hashes() prints them). All were made anew when issue 28 changed
 * what the report says (the match rate per operation, the classes per
 * layer, C - Q from the queue event). The JSON documents and pages (options
 * 1, 3, 7, 8, 10, 12, 13) were made anew when the report said what the
 * recording knows of its machine: JSON's "host", "first_wall" and
 * "last_wall", --iostat's "kernel", the page's note on the wall clock.
 */
static const uint64_t want_hash[REMAPS_KINDS][2][NOPTS] = {
	[REMAPS_EARLY] = {
		{ 0x62f25b0e8521fb92ULL, 0x0e18488b1a217413ULL, 0x72644e31c675c684ULL,
		  0xcc0de0b2f2642f84ULL, 0xf3a0561ec36fe1e2ULL, 0x05445e45285d0317ULL,
		  0x7e548db31a357947ULL, 0x58f90cd179855d0cULL, 0x074922600333ebfdULL,
		  0x277194631fef3a1aULL, 0x374706a57fac1790ULL, 0xbc7950f784da43efULL,
		  0xb9ab9dfd584085f6ULL, 0x1b4ec650c0563566ULL, 0x05c577194a18b304ULL },
		{ 0xbb81eb0310683504ULL, 0xc319a0e2bce35519ULL, 0xd360c39557a23516ULL,
		  0x6238feb17cbc7486ULL, 0x1679100a66db98e0ULL, 0xc571530027c69d6dULL,
		  0x0fa6b1c4a5aac9e5ULL, 0x9bfda1eb79b3a1eeULL, 0x53542e61f0e6431dULL,
		  0x097caaed26bc1860ULL, 0x5add2375456d1e5aULL, 0xbc7950f784da43efULL,
		  0xb9ab9dfd584085f6ULL, 0xab5b4e9c21386612ULL, 0x753fb56012939642ULL },
	},
	[REMAPS_LATE] = {
		{ 0x97aaa0d97a2f501bULL, 0x2b7767d82507a2b9ULL, 0xeb66a58688af593fULL,
		  0x5bf0edc1f28474feULL, 0xe2a8a93ecc95b081ULL, 0x396601eb5946070aULL,
		  0xbd61ac823a14463fULL, 0xc73877fb0c75b5a1ULL, 0x2df17133beb29d3cULL,
		  0xff9fba5f3d63a73bULL, 0x55506cf3bc005dfcULL, 0xe156316f58c2aa15ULL,
		  0xb51e29474c0bf7d9ULL, 0x3c97ce0d78401991ULL, 0x0b15c76fae40772fULL },
		{ 0x7a3512a6287a724bULL, 0xe7393b337f33c29dULL, 0xaf3ed2712d6ccfafULL,
		  0x1fbb03a1294cce7aULL, 0x0f93abd28e9d6811ULL, 0xac82c656986108c6ULL,
		  0x2177fb92dfd8990fULL, 0x5d14facdb041f2e5ULL, 0xcb590be5e77a69aeULL,
		  0xe369492fd23ad26bULL, 0x1ddc610d069d92f8ULL, 0xe156316f58c2aa15ULL,
		  0xb51e29474c0bf7d9ULL, 0x3dc906e7ae683cc7ULL, 0x48c8d7ef662a3f1fULL },
	},
	[REMAPS_NONE] = {
		{ 0x48c95d73708c7e34ULL, 0x668cbf8ed321cbacULL, 0xa73c7912706d9dadULL,
		  0x6c4d729cc9f17a31ULL, 0x5aec97f64758ddcbULL, 0x02b528d6019f4128ULL,
		  0x294c13ed52aba460ULL, 0xcee4437167698faaULL, 0xfb60661006bf162cULL,
		  0x6a0089cfe062132aULL, 0xf5cd2bcdab497d85ULL, 0xbaccb6660df235ebULL,
		  0x27f97d053ab9ba7eULL, 0xe4d28bace90cf5dbULL, 0x7c8fd26e275cf307ULL },
		{ 0xf182e2dc712b88c0ULL, 0x1b48524b0cd91e84ULL, 0x27f423d4e0d450c1ULL,
		  0x15224381c1e6d779ULL, 0x4913ba71825334afULL, 0x614620f6f1d6b8b0ULL,
		  0xd10b12a56bf7487cULL, 0x27ea538fbca59112ULL, 0xe886d310f0024b6eULL,
		  0x6de3a5cc7daa574eULL, 0x0e27c982d4f9da6dULL, 0xbaccb6660df235ebULL,
		  0x27f97d053ab9ba7eULL, 0xa0cdad505f910ac5ULL, 0x98578929fcee1c13ULL },
	},
};

static uint64_t fnv_file(uint64_t h, const char *path)
{
	size_t len;
	char *d = check_slurp(path, &len);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)d[i]) * 0x100000001b3ULL;
	free(d);
	return h;
}

/* The hash of report -i @path -j @jobs with @opts' options, run here. */
static uint64_t report_hash(const char *path, int jobs, const char *const *opts)
{
	char *argv[20] = { "report", "-i", (char *)path, "-j", jobs == 1 ? "1" : "2",
			   "-o", "check_roles.out" };
	uint64_t h = 0xcbf29ce484222325ULL;
	bool html = false;
	int argc = 7;

	for (; **opts; opts++) {
		html |= !strcmp(*opts, "--html");
		argv[argc++] = (char *)*opts;
	}
	ck_assert_int_eq(cmd_report(argc, argv), 0);
	h = fnv_file(h, "check_roles.out");
	if (html)
		h = fnv_file(h, "check_roles.html");
	unlink("check_roles.out");
	unlink("check_roles.html");
	return h;
}

/*
 * With BLKSTACK_PRINT_HASHES set in the environment, the hashes are
 * printed as this table's rows, not checked: for an output that changed
 * on purpose, once test_one_read_as_two_passes holds one read to two
 * passes' report.
 */
static void print_hashes(enum remaps how, uint64_t h[2][NOPTS], int versions)
{
	fprintf(stderr, "\t[%s] = {\n", how == REMAPS_EARLY ? "REMAPS_EARLY" :
					how == REMAPS_LATE ? "REMAPS_LATE" : "REMAPS_NONE");
	for (int v = 0; v < versions; v++) {
		fprintf(stderr, "\t\t{");
		for (int o = 0; o < NOPTS; o++)
			fprintf(stderr, "%s0x%016llxULL%s", o % 3 ? " " : o ? "\n\t\t  " : " ",
				(unsigned long long)h[v][o], o + 1 < NOPTS ? "," : " },\n");
	}
	fprintf(stderr, "\t},\n");
}

START_TEST(test_report_as_two_passes)
{
	bool print = getenv("BLKSTACK_PRINT_HASHES") != NULL;
	uint64_t got[2][NOPTS];
	enum remaps how = _i;
	char path[64], v7[64];
	int versions = 1;

	/* named as when the hashes were made: the report names its source */
	snprintf(path, sizeof(path), "check_roles-%s.dat", remaps_name[how]);
	snprintf(v7, sizeof(v7), "check_roles-%s-z7.dat", remaps_name[how]);
	/* the page's charting library is this machine's: hashed without it */
	setenv("BLKSTACK_DYGRAPHS", "/nonexistent/dygraph.min.js", 1);
	write_recording(path, how);
	if (convert_v7(path, v7))
		versions = 2;
	for (int v = 0; v < versions; v++) {
		for (int o = 0; o < NOPTS; o++) {
			for (int jobs = 1; jobs <= 2; jobs++) {
				uint64_t h = report_hash(v ? v7 : path, jobs, report_opts[o]);

				got[v][o] = h;
				if (print)
					continue;
				ck_assert_msg(h == want_hash[how][v][o],
					      "%s, options %d (%s...), -j %d: hash 0x%016llx, "
					      "two passes 0x%016llx", v ? v7 : path, o,
					      report_opts[o][0], jobs, (unsigned long long)h,
					      (unsigned long long)want_hash[how][v][o]);
			}
		}
	}
	if (print)
		print_hashes(how, got, versions);
	unlink(v7);
	unlink(path);
}
END_TEST

static Suite *roles_suite(void)
{
	Suite *s = suite_create("roles");
	TCase *tc = tcase_create("one read");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rewind_reads_again);
	tcase_add_loop_test(tc, test_one_read_as_two_passes, REMAPS_EARLY, REMAPS_KINDS);
	tcase_add_test(tc, test_failed_rebuild_said);
	tcase_add_loop_test(tc, test_report_as_two_passes, REMAPS_EARLY, REMAPS_KINDS);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(roles_suite());
}
