// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_datformats.c - which formats of a trace.dat datformats_load()
 * parses, and how: a recording written with datwrite whose block,
 * page-cache and other systems hold formats the decoders look up and
 * formats they do not (one of them damaged), and one whose first line is
 * not a plain name. The decoded events are there with every field as a
 * whole parse gives it (but the marks only the print fmt sets, which no
 * decoder reads) and an empty print fmt, or theirs when asked; the others are not; the
 * saved_cmdlines come back as written, apart.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>

#include "check_files.h"
#include "check_run.h"
#include "format/datfile.h"
#include "format/datformats.h"
#include "format/datwrite.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif

#define RING	FIXTURES_DIR "/ring/6.18.44-fc-v657"
#define EVENTS	FIXTURES_DIR "/events/6.18.44-fc-v657"

static char *text_of(const char *path)
{
	size_t len;
	char *t = check_slurp(path, &len);
	char *z = realloc(t, len + 1);

	ck_assert_ptr_nonnull(z);
	z[len] = '\0';
	return z;
}

/* @t with its "name: OLD" line replaced by @first_line */
static char *renamed(const char *t, const char *first_line)
{
	const char *nl = strchr(t, '\n');
	char *out;

	ck_assert_ptr_nonnull(nl);
	out = malloc(strlen(first_line) + strlen(nl) + 1);
	ck_assert_ptr_nonnull(out);
	strcpy(out, first_line);
	strcat(out, nl);
	return out;
}

static struct dat_text dt(const char *s)
{
	return (struct dat_text){ s, strlen(s) };
}

struct recording {
	uint8_t *map;
	size_t len;
	struct datfile_layout l;
	char *texts[16];
	int ntexts;
};

static const char *keep(struct recording *r, char *t)
{
	ck_assert_int_lt(r->ntexts, 16);
	r->texts[r->ntexts++] = t;
	return t;
}

/*
 * block: bio_queue and rq_complete (decoded), dirty_buffer (not),
 * touch_buffer damaged (not decoded: never parsed), and one named
 * "name: block_odd " (not a plain name); filemap: add_to_page_cache
 * (decoded) and a copy named mm_filemap_other (not); writeback:
 * writeback_dirty_folio under its older name writeback_dirty_page
 * (decoded); sched: a copy named sched_switch (a system no decoder reads).
 */
static void write_recording(struct recording *r, const char *path)
{
	const char *bq = keep(r, text_of(RING "/events/block/block_bio_queue/format"));
	const char *rc = keep(r, text_of(RING "/events/block/block_rq_complete/format"));
	const char *db = keep(r, text_of(RING "/events/block/block_dirty_buffer/format"));
	char *tb = text_of(RING "/events/block/block_touch_buffer/format");
	const char *fa = keep(r, text_of(EVENTS "/filemap/mm_filemap_add_to_page_cache/format"));
	const char *wd = keep(r, text_of(EVENTS "/writeback/writeback_dirty_folio/format"));
	const char *odd = keep(r, renamed(bq, "name: block_odd "));
	const char *fo = keep(r, renamed(fa, "name: mm_filemap_other"));
	const char *wp = keep(r, renamed(wd, "name: writeback_dirty_page"));
	const char *ss = keep(r, renamed(bq, "name: sched_switch"));
	struct dat_text block[] = { dt(bq), dt(rc), dt(db), dt(tb), dt(odd) };
	struct dat_text filemap[] = { dt(fa), dt(fo) };
	struct dat_text writeback[] = { dt(wp) };
	struct dat_text sched[] = { dt(ss) };
	struct dat_system systems[] = {
		{ "block", block, 5 }, { "filemap", filemap, 2 },
		{ "writeback", writeback, 1 }, { "sched", sched, 1 },
	};
	struct dat_text header_page, header_event;
	uint64_t spill_bytes[1] = { 0 };
	FILE *spill[1], *out;
	char *p;

	/* a field type libtraceevent refuses: the format would be flagged failed */
	p = strstr(tb, "field:");
	ck_assert_ptr_nonnull(p);
	memcpy(p, "field(", 6);
	keep(r, tb);
	header_page.data = check_slurp(RING "/header_page", &header_page.len);
	header_event.data = check_slurp(RING "/header_event", &header_event.len);
	spill[0] = tmpfile();
	ck_assert_ptr_nonnull(spill[0]);

	struct dat_source src = {
		.page_size = 4096, .header_page = header_page, .header_event = header_event,
		.systems = systems, .nsystems = 4, .cmdlines = dt("42 dd\n7 fio\n"),
		.clock = dt("local [mono]\n"), .ncpu = 1,
		.spill = spill, .spill_bytes = spill_bytes,
	};
	out = fopen(path, "w+");
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(datwrite_v6(out, &src), 0);
	ck_assert_int_eq(fclose(out), 0);
	fclose(spill[0]);
	free((char *)header_page.data);
	free((char *)header_event.data);
	r->map = (uint8_t *)check_slurp(path, &r->len);
	ck_assert_int_eq(datfile_layout_parse(r->map, r->len, &r->l), 0);
}

static void recording_free(struct recording *r)
{
	datfile_layout_free(&r->l);
	free(r->map);
	for (int i = 0; i < r->ntexts; i++)
		free(r->texts[i]);
}

/* @ev's fields: those of @text parsed whole by libtraceevent, one by one */
static void same_fields(struct tep_event *ev, const char *sys, const char *text)
{
	struct tep_handle *whole = tep_alloc();
	const unsigned long print_marks = TEP_FIELD_IS_FLAG | TEP_FIELD_IS_SYMBOLIC;
	struct tep_format_field **want, **got;
	struct tep_event *w;
	int n = 0;

	ck_assert_int_eq(tep_parse_event(whole, text, strlen(text), sys), 0);
	w = tep_get_event(whole, 0);
	ck_assert_int_eq(ev->id, w->id);
	want = tep_event_fields(w);
	got = tep_event_fields(ev);
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(got);
	for (; want[n]; n++) {
		ck_assert_ptr_nonnull(got[n]);
		ck_assert_str_eq(got[n]->name, want[n]->name);
		ck_assert_str_eq(got[n]->type, want[n]->type);
		ck_assert_int_eq(got[n]->offset, want[n]->offset);
		ck_assert_int_eq(got[n]->size, want[n]->size);
		/* but the marks the print fmt's __print_flags/_symbolic set */
		ck_assert_uint_eq(got[n]->flags, want[n]->flags & ~print_marks);
	}
	ck_assert_ptr_null(got[n]);
	ck_assert_int_gt(n, 2);
	ck_assert_str_ne(w->print_fmt.format, "");
	ck_assert_str_eq(ev->print_fmt.format, "");
	ck_assert_int_eq(ev->flags & TEP_EVENT_FL_FAILED, 0);
	free(want);
	free(got);
	tep_free(whole);
}

START_TEST(test_only_decoded_formats)
{
	char path[] = "/tmp/check_datformats.XXXXXX";
	struct recording r = { 0 };
	struct tep_handle *tep;
	int fd, err = 0;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_recording(&r, path);
	tep = datformats_load(r.map, r.len, &r.l, false, &err);
	ck_assert_msg(tep != NULL, "datformats_load: %d", err);

	same_fields(tep_find_event_by_name(tep, "block", "block_bio_queue"), "block", r.texts[0]);
	same_fields(tep_find_event_by_name(tep, "block", "block_rq_complete"), "block",
		    r.texts[1]);
	same_fields(tep_find_event_by_name(tep, "filemap", "mm_filemap_add_to_page_cache"),
		    "filemap", r.texts[3]);
	same_fields(tep_find_event_by_name(tep, "writeback", "writeback_dirty_page"),
		    "writeback", r.texts[7]);
	/* not a plain name: libtraceevent judges it, as before */
	ck_assert_ptr_nonnull(tep_find_event_by_name(tep, "block", "block_odd"));
	/* not decoded: not parsed, the damaged one included (nothing flagged failed) */
	{
		struct tep_handle *whole = tep_alloc();

		tep_parse_event(whole, r.texts[9], strlen(r.texts[9]), "block");
		ck_assert_int_ne(tep_get_event(whole, 0)->flags & TEP_EVENT_FL_FAILED, 0);
		tep_free(whole);
	}
	ck_assert_ptr_null(tep_find_event_by_name(tep, "block", "block_dirty_buffer"));
	ck_assert_ptr_null(tep_find_event_by_name(tep, "block", "block_touch_buffer"));
	ck_assert_ptr_null(tep_find_event_by_name(tep, "filemap", "mm_filemap_other"));
	ck_assert_ptr_null(tep_find_event_by_name(tep, "sched", "sched_switch"));
	ck_assert_int_eq(tep_get_events_count(tep), 5);
	for (int i = 0; i < tep_get_events_count(tep); i++)
		ck_assert_int_eq(tep_get_event(tep, i)->flags & TEP_EVENT_FL_FAILED, 0);
	/* the names are read apart, on demand */
	ck_assert(!tep_is_pid_registered(tep, 42));
	tep_free(tep);

	/* whole: the same formats, print fmt included */
	tep = datformats_load(r.map, r.len, &r.l, true, &err);
	ck_assert_ptr_nonnull(tep);
	ck_assert_int_eq(tep_get_events_count(tep), 5);
	ck_assert_str_ne(tep_find_event_by_name(tep, "block", "block_bio_queue")->print_fmt.format,
			 "");
	tep_free(tep);
	recording_free(&r);
	unlink(path);
}
END_TEST

START_TEST(test_cmdlines_apart)
{
	char path[] = "/tmp/check_datformats.XXXXXX";
	struct recording r = { 0 };
	const char *text;
	void *owned;
	size_t size;
	int fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_recording(&r, path);
	ck_assert_int_eq(datformats_cmdlines(r.map, r.len, &r.l, &text, &size, &owned), 0);
	ck_assert_uint_eq(size, 12);
	ck_assert_int_eq(memcmp(text, "42 dd\n7 fio\n", 12), 0);
	free(owned);
	/* a section size beyond the file: damaged, no text */
	r.l.sections[DATFILE_SEC_CMDLINES] = r.len - 4;
	ck_assert_int_eq(datformats_cmdlines(r.map, r.len, &r.l, &text, &size, &owned), -EINVAL);
	ck_assert_ptr_null(text);
	free(owned);
	r.l.sections[DATFILE_SEC_CMDLINES] = 0;
	ck_assert_int_eq(datformats_cmdlines(r.map, r.len, &r.l, &text, &size, &owned), -ENOENT);
	free(owned);
	recording_free(&r);
	unlink(path);
}
END_TEST

static Suite *datformats_suite(void)
{
	Suite *s = suite_create("datformats");
	TCase *tc = tcase_create("selection");

	tcase_add_test(tc, test_only_decoded_formats);
	tcase_add_test(tc, test_cmdlines_apart);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(datformats_suite());
}
