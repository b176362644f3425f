// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_localfmt.c - localfmt_load() against libtracefs's own loader on this
 * kernel: the same header layout and, for every event of the systems a live
 * run traces, the same id, name and fields at the same offsets and sizes.
 * Needs root and a mounted tracefs: SKIP (77) with the reason otherwise.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "check_run.h"
#include "capture/localfmt.h"

static const char *const systems[] = { "block", "filemap", "writeback", NULL };

/* The events of @a and @b, field by field. */
static void same_events(struct tep_handle *a, struct tep_handle *b)
{
	struct tep_event **ev = tep_list_events(a, TEP_EVENT_SORT_ID);
	int n = 0;

	ck_assert_ptr_nonnull(ev);
	for (; ev[n]; n++) {
		struct tep_event *o = tep_find_event(b, ev[n]->id);
		struct tep_format_field *f, *g;

		ck_assert_msg(o, "%s:%s missing", ev[n]->system, ev[n]->name);
		ck_assert_str_eq(o->name, ev[n]->name);
		ck_assert_str_eq(o->system, ev[n]->system);
		for (f = ev[n]->format.fields, g = o->format.fields; f && g; f = f->next, g = g->next) {
			ck_assert_str_eq(f->name, g->name);
			ck_assert_int_eq(f->offset, g->offset);
			ck_assert_int_eq(f->size, g->size);
			ck_assert_uint_eq(f->flags, g->flags);
		}
		ck_assert_msg(!f && !g, "%s: field lists differ", ev[n]->name);
	}
	ck_assert_int_eq(n, tep_get_events_count(b));
	/* the block system at least: a kernel without it fails elsewhere */
	ck_assert_int_gt(n, 10);
}

START_TEST(same_as_libtracefs)
{
	struct tep_handle *ours = localfmt_load((const char **)systems);
	struct tep_handle *ref = tracefs_local_events_system(NULL, (const char **)systems);

	ck_assert_ptr_nonnull(ours);
	ck_assert_ptr_nonnull(ref);
	ck_assert_int_eq(tep_get_header_page_size(ours), tep_get_header_page_size(ref));
	ck_assert_int_eq(tep_get_header_timestamp_size(ours), tep_get_header_timestamp_size(ref));
	ck_assert_int_eq(tep_get_long_size(ours), tep_get_long_size(ref));
	ck_assert_int_eq(tep_get_cpus(ours), tep_get_cpus(ref));
	ck_assert_int_gt(tep_get_cpus(ours), 0);
	ck_assert_int_eq(tep_get_sub_buffer_size(ours), tep_get_sub_buffer_size(ref));
	ck_assert_int_eq(tep_is_local_bigendian(ours), tep_is_local_bigendian(ref));
	ck_assert_int_eq(tep_is_file_bigendian(ours), tep_is_file_bigendian(ref));
	same_events(ref, ours);
	same_events(ours, ref);
	tep_free(ours);
	tep_free(ref);
}
END_TEST

START_TEST(missing_system_adds_nothing)
{
	static const char *const none[] = { "no_such_system_blkstack", NULL };
	struct tep_handle *tep = localfmt_load((const char **)none);

	ck_assert_ptr_nonnull(tep);
	ck_assert_int_eq(tep_get_events_count(tep), 0);
	tep_free(tep);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("localfmt");
	TCase *tc = tcase_create("localfmt");

	if (geteuid() != 0 || !tracefs_tracing_dir()) {
		printf("SKIP: needs root and a mounted tracefs\n");
		return 77;
	}
	tcase_add_test(tc, same_as_libtracefs);
	tcase_add_test(tc, missing_system_adds_nothing);
	suite_add_tcase(su, tc);
	return check_run(su);
}
