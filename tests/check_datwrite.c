// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_datwrite.c - the trace.dat version 6 writer: a file made from
 * pages captured on this project's kernel (tests/fixtures/ring) must be
 * laid out as blkstack's own reader expects, be opened by libtracecmd,
 * and give back the captured pages byte for byte; a full disk must fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <trace-cmd.h>
#include <unistd.h>

#include "check_files.h"
#include "check_run.h"
#include "format/datfile.h"
#include "format/datwrite.h"
#include "format/tracefile.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif

#define RING	FIXTURES_DIR "/ring/6.18.44-fc-v657"


struct fixture {
	struct dat_text header_page, header_event, formats[2], pc_format, cmdlines, clock;
	struct dat_system systems[2];
	char *pages[2];
	size_t pages_len[2];
	FILE *spill[2];
	uint64_t spill_bytes[2];
	struct dat_source src;
};

static void fixture_load(struct fixture *fx)
{
	static const char *const events[] = { "block_bio_queue", "block_rq_complete" };

	memset(fx, 0, sizeof(*fx));
	fx->header_page.data = check_slurp(RING "/header_page", &fx->header_page.len);
	fx->header_event.data = check_slurp(RING "/header_event", &fx->header_event.len);
	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX];

		snprintf(path, sizeof(path), RING "/events/block/%s/format", events[i]);
		fx->formats[i].data = check_slurp(path, &fx->formats[i].len);
		snprintf(path, sizeof(path), RING "/cpu%d.raw", i);
		fx->pages[i] = check_slurp(path, &fx->pages_len[i]);
		fx->spill[i] = tmpfile();
		ck_assert_ptr_nonnull(fx->spill[i]);
		ck_assert_uint_eq(fwrite(fx->pages[i], 1, fx->pages_len[i], fx->spill[i]),
				  fx->pages_len[i]);
		fx->spill_bytes[i] = fx->pages_len[i];
	}
	/* a second system, as record --page-cache writes */
	fx->pc_format.data = check_slurp(FIXTURES_DIR "/events/6.18.44-fc-v657/filemap/"
				   "mm_filemap_add_to_page_cache/format", &fx->pc_format.len);
	fx->systems[0] = (struct dat_system){ "block", fx->formats, 2 };
	fx->systems[1] = (struct dat_system){ "filemap", &fx->pc_format, 1 };
	fx->cmdlines = (struct dat_text){ "42 dd\n", 6 };
	fx->clock = (struct dat_text){ "local global counter [mono]\n", 28 };
	fx->src = (struct dat_source){
		.page_size = 4096, .header_page = fx->header_page,
		.header_event = fx->header_event, .systems = fx->systems,
		.nsystems = 2, .cmdlines = fx->cmdlines, .clock = fx->clock, .ncpu = 2,
		.spill = fx->spill, .spill_bytes = fx->spill_bytes,
	};
}

static void fixture_free(struct fixture *fx)
{
	free((char *)fx->header_page.data);
	free((char *)fx->header_event.data);
	free((char *)fx->pc_format.data);
	for (int i = 0; i < 2; i++) {
		free((char *)fx->formats[i].data);
		free(fx->pages[i]);
		fclose(fx->spill[i]);
	}
}

START_TEST(test_round_trip)
{
	char path[] = "/tmp/check_datwrite.XXXXXX";
	struct datfile_layout l;
	struct tracecmd_input *h;
	struct fixture fx;
	struct stat st;
	uint8_t *map;
	FILE *out;
	int fd;

	fixture_load(&fx);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	out = fdopen(fd, "w+");
	ck_assert_int_eq(datwrite_v6(out, &fx.src), 0);
	ck_assert_int_eq(fclose(out), 0);

	/* blkstack's reader: one stream per CPU, page-aligned, the pages as captured */
	ck_assert_int_eq(stat(path, &st), 0);
	fd = open(path, O_RDONLY);
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	ck_assert(map != MAP_FAILED);
	ck_assert_int_eq(datfile_layout_parse(map, st.st_size, &l), 0);
	ck_assert_int_eq(l.ncpu, 2);
	ck_assert_uint_eq(l.page_size, 4096);
	ck_assert_int_eq(l.nstreams, 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(l.streams[i].cpu, i);
		ck_assert_uint_eq(l.streams[i].offset % 4096, 0);
		ck_assert_uint_eq(l.streams[i].size, fx.pages_len[i]);
		ck_assert_uint_eq(l.streams[i].avail, fx.pages_len[i]);
		ck_assert(memcmp(map + l.streams[i].offset, fx.pages[i], fx.pages_len[i]) == 0);
	}
	datfile_layout_free(&l);
	/* the clock option's body: the clock text, NUL-terminated, as trace-cmd
	 * writes it (libtracecmd parses it as a string) */
	{
		static const char opt[] = "\x04\x00" "\x1d\x00\x00\x00" "local global counter [mono]\n";

		ck_assert_ptr_nonnull(memmem(map, st.st_size, opt, sizeof(opt)));
	}
	munmap(map, st.st_size);

	/* and libtracecmd's: headers, formats, the clock option */
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(tep_get_cpus(tracecmd_get_tep(h)), 2);
	ck_assert_ptr_nonnull(tep_find_event_by_name(tracecmd_get_tep(h), "block",
						     "block_bio_queue"));
	ck_assert_ptr_nonnull(tep_find_event_by_name(tracecmd_get_tep(h), "filemap",
						     "mm_filemap_add_to_page_cache"));
	ck_assert_int_eq(tep_get_header_page_size(tracecmd_get_tep(h)), 8);
	tracecmd_close(h);
	unlink(path);
	fixture_free(&fx);
}
END_TEST

/* A full disk: the write fails with ENOSPC, not a silently short file. */
START_TEST(test_full_disk)
{
	struct fixture fx;
	FILE *out = fopen("/dev/full", "w");
	int ret;

	if (!out) {
		fprintf(stderr, "SKIP test_full_disk: no /dev/full\n");
		return;
	}
	fixture_load(&fx);
	ret = datwrite_v6(out, &fx.src);
	ck_assert_msg(ret == -ENOSPC || ret == -ESPIPE, "datwrite_v6 on /dev/full: %d", ret);
	fclose(out);
	fixture_free(&fx);
}
END_TEST

/* @path's bytes with @ins inserted after the first "options  \0" tag */
static void insert_option(const char *path, const void *ins, size_t n)
{
	size_t len;
	char *text = check_slurp(path, &len), *at;
	FILE *out;

	at = memmem(text, len, "options  ", 10);
	ck_assert_ptr_nonnull(at);
	at += 10;
	out = fopen(path, "w");
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(fwrite(text, 1, at - text, out), (size_t)(at - text));
	ck_assert_uint_eq(fwrite(ins, 1, n, out), n);
	ck_assert_uint_eq(fwrite(at, 1, len - (at - text), out), len - (at - text));
	ck_assert_int_eq(fclose(out), 0);
	free(text);
}

/* The layout of @path, into @l; unmapped after */
static void parse_layout(const char *path, struct datfile_layout *l)
{
	struct stat st;
	void *map;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	ck_assert(map != MAP_FAILED);
	ck_assert_int_eq(datfile_layout_parse(map, st.st_size, l), 0);
	munmap(map, st.st_size);
}

/*
 * What a recording says of its host: the UNAME option as trace-cmd writes
 * it, the clock in use (the bracketed one of trace_clock), and trace-cmd
 * record --date's DATE option (microseconds, in hex).
 */
START_TEST(test_host_options)
{
	/* id 1, 16 bytes: "0x6615ea5b289f1" and its NUL, in the host's order */
	static const char date[] = "\x01\x00" "\x10\x00\x00\x00" "0x6615ea5b289f1";
	char path[] = "/tmp/check_datwrite.XXXXXX";
	struct trace_host host;
	struct datfile_layout l;
	struct tracefile *f;
	struct fixture fx;
	FILE *out;
	int fd, err;

	fixture_load(&fx);
	fx.src.uname = "Linux vm 6.18.44-fc-v657 x86_64";
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	out = fdopen(fd, "w+");
	ck_assert_int_eq(datwrite_v6(out, &fx.src), 0);
	ck_assert_int_eq(fclose(out), 0);

	parse_layout(path, &l);
	ck_assert_str_eq(l.host.uname, "Linux vm 6.18.44-fc-v657 x86_64");
	ck_assert_str_eq(l.host.clock, "mono");
	ck_assert(!l.host.has_date);
	datfile_layout_free(&l);

	/* the release from UNAME; without a blkstack marker, no HZ and no wall clock */
	f = tracefile_open(path, &err);
	ck_assert_msg(f, "tracefile_open: %d", err);
	tracefile_host(f, &host);
	ck_assert_str_eq(host.release, "6.18.44-fc-v657");
	ck_assert_uint_eq(host.hz, 0);
	ck_assert(!host.wall_known);
	ck_assert_ptr_nonnull(strstr(host.wall_from, "unknown"));
	tracefile_close(f);

	insert_option(path, date, sizeof(date));
	parse_layout(path, &l);
	ck_assert(l.host.has_date);
	ck_assert_int_eq(l.host.date_ns, 0x6615ea5b289f1LL * 1000);
	ck_assert_str_eq(l.host.uname, "Linux vm 6.18.44-fc-v657 x86_64");
	datfile_layout_free(&l);
	unlink(path);
	fixture_free(&fx);
}
END_TEST

static Suite *datwrite_suite(void)
{
	Suite *s = suite_create("datwrite");
	TCase *tc = tcase_create("v6");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_full_disk);
	tcase_add_test(tc, test_host_options);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(datwrite_suite());
}
