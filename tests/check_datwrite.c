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

static Suite *datwrite_suite(void)
{
	Suite *s = suite_create("datwrite");
	TCase *tc = tcase_create("v6");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_full_disk);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(datwrite_suite());
}
