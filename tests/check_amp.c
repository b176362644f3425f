// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_amp.c - amplification per layer on hand-made trees: a mirror, a
 * stripe that splits, a metadata write a layer issued.
 */
#include <check.h>

#include "check_run.h"
#include "track/amp.h"

#define MD0	KDEV_MKDEV(9, 0)
#define DM0	KDEV_MKDEV(253, 0)
#define SDA	KDEV_MKDEV(8, 0)
#define SDB	KDEV_MKDEV(8, 16)

static struct amp a;

static void setup(void)
{
	amp_init(&a);
}

static void teardown(void)
{
	amp_destroy(&a);
}

static void tree(const struct tk_rec *r, size_t n, bool top)
{
	struct tk_io io = { .top = top, .matched = true, .root = r, .recs = r, .nrecs = n };

	amp_io(&io, &a);
}

static const struct amp_layer *layer(uint32_t dev)
{
	for (size_t i = 0; i < a.nlayers; i++)
		if (a.layers[i].dev == dev)
			return &a.layers[i];
	return NULL;
}

/* raid1: one 8-sector write, one leg per disk: each disk moves it all */
START_TEST(mirror)
{
	const struct tk_rec r[3] = {
		{ .dev = MD0, .parent = -1, .kind = TK_LAYER_BIO, .sectors = 8 },
		{ .dev = SDA, .parent = 0, .depth = 1, .kind = TK_LAYER_REQUEST, .sectors = 8 },
		{ .dev = SDB, .parent = 0, .depth = 1, .kind = TK_LAYER_REQUEST, .sectors = 8 },
	};

	tree(r, 3, true);
	ck_assert_uint_eq(a.top_ios, 1);
	ck_assert_uint_eq(a.top_bytes, 4096);
	ck_assert_double_eq(amp_bytes(&a, layer(MD0)), 1.0);
	ck_assert_double_eq(amp_bytes(&a, layer(SDA)), 1.0);
	ck_assert_double_eq(amp_bytes(&a, layer(SDB)), 1.0);
	/* the stack as a whole wrote it twice: the two disks together */
	ck_assert_double_eq(amp_bytes(&a, layer(SDA)) + amp_bytes(&a, layer(SDB)), 2.0);
}
END_TEST

/* a stripe splits a 16-sector read into two pieces on one disk: 2 I/Os, 1x the bytes */
START_TEST(stripe_split)
{
	const struct tk_rec r[3] = {
		{ .dev = DM0, .parent = -1, .kind = TK_LAYER_BIO, .sectors = 16 },
		{ .dev = SDA, .parent = 0, .depth = 1, .kind = TK_LAYER_REQUEST, .sectors = 8 },
		{ .dev = SDA, .parent = 0, .depth = 1, .kind = TK_LAYER_REQUEST, .sectors = 8 },
	};

	tree(r, 3, true);
	ck_assert_double_eq(amp_ios(&a, layer(SDA)), 2.0);
	ck_assert_double_eq(amp_bytes(&a, layer(SDA)), 1.0);
	ck_assert_uint_eq(layer(SDA)->serve_ios, 2);
	ck_assert_uint_eq(layer(SDA)->own_ios, 0);
}
END_TEST

/* a thin pool's metadata write (a tree not rooted at top-level I/O) is the
 * layer's own: counted apart, and in the ratio */
START_TEST(metadata)
{
	const struct tk_rec top[2] = {
		{ .dev = DM0, .parent = -1, .kind = TK_LAYER_BIO, .sectors = 8 },
		{ .dev = SDA, .parent = 0, .depth = 1, .kind = TK_LAYER_REQUEST, .sectors = 8 },
	};
	const struct tk_rec meta[1] = {
		{ .dev = SDB, .parent = -1, .kind = TK_LAYER_REQUEST, .sectors = 8 },
	};

	tree(top, 2, true);
	tree(meta, 1, false);
	ck_assert_uint_eq(a.top_ios, 1);
	ck_assert_uint_eq(layer(SDB)->serve_bytes, 0);
	ck_assert_uint_eq(layer(SDB)->own_bytes, 4096);
	ck_assert_double_eq(amp_bytes(&a, layer(SDB)), 1.0);
	ck_assert_double_eq(amp_bytes(&a, layer(DM0)), 1.0);
}
END_TEST

START_TEST(no_top_level)
{
	const struct tk_rec meta[1] = {
		{ .dev = SDB, .parent = -1, .kind = TK_LAYER_REQUEST, .sectors = 8 },
	};

	tree(meta, 1, false);
	ck_assert_double_eq(amp_bytes(&a, layer(SDB)), 0.0);
	ck_assert_double_eq(amp_ios(&a, layer(SDB)), 0.0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("amp");
	TCase *tc = tcase_create("amp");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, mirror);
	tcase_add_test(tc, stripe_split);
	tcase_add_test(tc, metadata);
	tcase_add_test(tc, no_top_level);
	suite_add_tcase(s, tc);
	return check_run(s);
}
