// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_svg.c - the axes of the HTML page's charts: round ticks on plain
 * spans, and an end to the ticks where a span is below the precision of
 * its values (a damaged recording's offsets near 2^64 sectors once made
 * the y-axis loop for ever).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "output/svg.h"

/* The tick labels svg_axes() writes for @p. */
static int ticks(const struct svg_plot *p, char **text)
{
	size_t len;
	FILE *fp = open_memstream(text, &len);
	int n = 0;

	ck_assert_ptr_nonnull(fp);
	svg_axes(fp, p, "time (s)", "offset (MiB)", true);
	fclose(fp);
	for (const char *s = *text; (s = strstr(s, "class=\"tick\"")); s++)
		n++;
	return n;
}

START_TEST(round_ticks)
{
	struct svg_plot p = { .x = 60, .y = 10, .w = 800, .h = 200,
			      .xmin = 0, .xmax = 10, .ymin = 0, .ymax = 100 };
	char *text = NULL;

	/* x: 10 / 8 = 1.25, a step of 2: 0, 2, ... 10; y: 100 / 4 = 25, a step of 50 */
	ck_assert_int_eq(ticks(&p, &text), 6 + 3);
	ck_assert_ptr_nonnull(strstr(text, ">10</text>"));
	ck_assert_ptr_nonnull(strstr(text, ">50</text>"));
	free(text);
}
END_TEST

START_TEST(span_below_precision_ends)
{
	/* offsets in MiB near 2^64 sectors, 1 MiB apart: a step of 0.25 adds nothing */
	struct svg_plot p = { .x = 60, .y = 10, .w = 800, .h = 200, .xmin = 0, .xmax = 1,
			      .ymin = 9007199254740992.0, .ymax = 9007199254740993.0 };
	char *text = NULL;
	int n = ticks(&p, &text);

	/* the x axis's 6 ticks (0.2 apart) and no more than a few on y */
	ck_assert_int_ge(n, 7);
	ck_assert_int_le(n, 6 + 8);
	free(text);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("svg");
	TCase *tc = tcase_create("svg");

	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, round_ticks);
	tcase_add_test(tc, span_below_precision_ends);
	suite_add_tcase(su, tc);
	return check_run(su);
}
