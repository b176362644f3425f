/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_dat.h - a version 6 recording of the captured fixture pages
 * (tests/fixtures/ring), written with datwrite, for the unit tests of the
 * trace.dat readers; damaged or as a 32-bit machine writes it on request.
 */
#ifndef BLKSTACK_CHECK_DAT_H
#define BLKSTACK_CHECK_DAT_H

#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_files.h"
#include "format/datwrite.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif

#define RING	FIXTURES_DIR "/ring/6.18.44-fc-v657"
#define PAGE	4096

/* replace @old by @new (same length) in @s */
static inline void check_replace(char *s, const char *old, const char *new)
{
	char *p = strstr(s, old);

	ck_assert_msg(p, "'%s' not found", old);
	ck_assert_uint_eq(strlen(old), strlen(new));
	memcpy(p, new, strlen(new));
}

/* A page as a 4-byte-long machine writes it: the timestamp, a 4-byte commit, the data. */
static inline void check_page_to_long4(uint8_t *page)
{
	uint64_t commit;
	uint32_t commit4;

	memcpy(&commit, page + 8, 8);
	ck_assert_uint_eq(commit >> 32, 0);
	commit4 = commit;
	memcpy(page + 8, &commit4, 4);
	memmove(page + 12, page + 16, PAGE - 16);
	memset(page + PAGE - 4, 0, 4);
}

/*
 * Write a recording to @path with the formats of the block events @events
 * (@nevents of them): the fixture's pages, or where @pages[cpu] is given,
 * @len[cpu] bytes of pages of one's own; @bad_format: damage
 * block_rq_complete's format (@events[1]); @long4: as a 4-byte-long
 * machine would.
 */
static inline void check_write_dat_events(const char *path, const char *const *events,
					  int nevents, bool bad_format, bool long4,
					  const uint8_t *const given[2],
					  const size_t given_len[2])
{
	struct dat_text formats[32], header_page, header_event;
	struct dat_system system = { "block", formats, nevents };
	uint64_t spill_bytes[2];
	FILE *spill[2], *out;
	char p[PATH_MAX];

	header_page.data = check_slurp(RING "/header_page", &header_page.len);
	header_event.data = check_slurp(RING "/header_event", &header_event.len);
	if (long4) {
		check_replace((char *)header_page.data, "commit;\toffset:8;\tsize:8;",
			"commit;\toffset:8;\tsize:4;");
		check_replace((char *)header_page.data, "data;\toffset:16;\tsize:4080;",
			"data;\toffset:12;\tsize:4084;");
	}
	ck_assert_int_le(nevents, 32);
	for (int i = 0; i < nevents; i++) {
		snprintf(p, sizeof(p), RING "/events/block/%s/format", events[i]);
		formats[i].data = check_slurp(p, &formats[i].len);
	}
	for (int i = 0; i < 2; i++) {
		size_t len;
		char *pages;

		if (given && given[i]) {
			len = given_len[i];
			pages = malloc(len);
			ck_assert_ptr_nonnull(pages);
			memcpy(pages, given[i], len);
		} else {
			snprintf(p, sizeof(p), RING "/cpu%d.raw", i);
			pages = check_slurp(p, &len);
		}
		ck_assert_uint_eq(len % PAGE, 0);
		if (long4)
			for (size_t off = 0; off < len; off += PAGE)
				check_page_to_long4((uint8_t *)pages + off);
		spill[i] = tmpfile();
		ck_assert_ptr_nonnull(spill[i]);
		ck_assert_uint_eq(fwrite(pages, 1, len, spill[i]), len);
		spill_bytes[i] = len;
		free(pages);
	}
	if (bad_format)
		check_replace((char *)formats[1].data, "unsigned short ioprio;", "unsigned sh[rt ioprio;");

	struct dat_source src = {
		.page_size = PAGE, .header_page = header_page, .header_event = header_event,
		.systems = &system, .nsystems = 1, .cmdlines = { "42 dd\n", 6 },
		.clock = { "local global counter [mono]\n", 28 }, .ncpu = 2,
		.spill = spill, .spill_bytes = spill_bytes,
	};
	out = fopen(path, "w+");
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(datwrite_v6(out, &src), 0);
	if (long4) {
		/* the file header's long size: magic (10), "6\0", the endianness, then it */
		ck_assert_int_eq(fseek(out, 13, SEEK_SET), 0);
		ck_assert_int_eq(fputc(4, out), 4);
	}
	ck_assert_int_eq(fclose(out), 0);

	free((char *)header_page.data);
	free((char *)header_event.data);
	for (int i = 0; i < nevents; i++)
		free((char *)formats[i].data);
	for (int i = 0; i < 2; i++)
		fclose(spill[i]);
}

/* check_write_dat_events() of block_bio_queue and block_rq_complete */
static inline void check_write_dat_pages(const char *path, bool bad_format, bool long4,
					 const uint8_t *const given[2], const size_t given_len[2])
{
	static const char *const events[] = { "block_bio_queue", "block_rq_complete" };

	check_write_dat_events(path, events, 2, bad_format, long4, given, given_len);
}

/* check_write_dat_pages() of the fixture's pages */
static inline void check_write_dat(const char *path, bool bad_format, bool long4)
{
	check_write_dat_pages(path, bad_format, long4, NULL, NULL);
}

#endif /* BLKSTACK_CHECK_DAT_H */
