// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_array.c - ARRAY_ROOM: growth by doubling, no growth while there is
 * room, and sizes that would overflow refused with the array kept.
 */
#include <check.h>
#include <stdint.h>

#include "check_run.h"
#include "base/array.h"

struct item {
	uint64_t key;
	char pad[24];
};

START_TEST(grows_by_doubling)
{
	struct item *v = NULL;
	size_t len = 0, cap = 0;
	size_t caps[] = { 4, 8, 16, 32 };
	int step = 0;

	for (len = 0; len < 32; len++) {
		size_t before = cap;

		ck_assert_int_eq(ARRAY_ROOM(v, len, cap, 4), 0);
		ck_assert_ptr_nonnull(v);
		if (cap != before)
			ck_assert_uint_eq(cap, caps[step++]);
		ck_assert_uint_gt(cap, len);
		v[len].key = len;
	}
	ck_assert_int_eq(step, 4);
	/* what was stored before each growth is still there */
	for (len = 0; len < 32; len++)
		ck_assert_uint_eq(v[len].key, len);
	free(v);
}
END_TEST

START_TEST(room_left_is_not_touched)
{
	int *v = malloc(8 * sizeof(*v));
	int *was = v;
	uint32_t cap = 8;

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(ARRAY_ROOM(v, 7, cap, 2), 0);
	ck_assert_ptr_eq(v, was);
	ck_assert_uint_eq(cap, 8);
	free(v);
}
END_TEST

START_TEST(overflow_refused)
{
	/* a counter that cannot hold the doubled size: the array stays */
	uint8_t *v = malloc(200);
	uint8_t *was = v;
	uint8_t cap = 200;
	/* a byte count that does not fit in size_t */
	uint64_t *w = malloc(sizeof(*w));
	uint64_t *wwas = w;
	size_t wcap = SIZE_MAX / 4;

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(ARRAY_ROOM(v, 200, cap, 1), -ENOMEM);
	ck_assert_ptr_eq(v, was);
	ck_assert_uint_eq(cap, 200);
	ck_assert_int_eq(ARRAY_ROOM(w, wcap, wcap, 1), -ENOMEM);
	ck_assert_ptr_eq(w, wwas);
	ck_assert_uint_eq(wcap, SIZE_MAX / 4);
	free(v);
	free(w);
}
END_TEST

START_TEST(doubling_that_wraps_refused)
{
	char *v = malloc(1);
	char *was = v;
	size_t cap = SIZE_MAX / 2 + 1;

	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(ARRAY_ROOM(v, cap, cap, 1), -ENOMEM);
	ck_assert_ptr_eq(v, was);
	ck_assert_uint_eq(cap, SIZE_MAX / 2 + 1);
	free(v);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("array");
	TCase *tc = tcase_create("array");

	tcase_add_test(tc, grows_by_doubling);
	tcase_add_test(tc, room_left_is_not_touched);
	tcase_add_test(tc, overflow_refused);
	tcase_add_test(tc, doubling_that_wraps_refused);
	suite_add_tcase(su, tc);
	return check_run(su);
}
