// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_btt.c - btt's statistics on a hand-made event sequence, against
 * figures worked out by hand in the comments with btt's rules.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "track/btt.h"

#define SDA	KDEV_MKDEV(8, 0)
#define SDB	KDEV_MKDEV(8, 16)
#define DM0	KDEV_MKDEV(253, 0)

static struct btt *b;

static void ev(uint64_t ts, uint32_t dev, enum blk_kind kind, uint64_t sector, uint32_t nsec)
{
	struct blk_event e = { .ts = ts, .dev = dev, .kind = kind, .sector = sector,
			       .nr_sector = nsec, .bytes = nsec * 512, .pid = 10,
			       .op = BLK_OP_WRITE, .count = 1 };

	if (kind == BLK_EV_BIO_QUEUE)
		strcpy(e.comm, "dd");
	btt_event(&e, dev, false, b);
}

static void remap(uint64_t ts, uint32_t to, uint64_t sector, uint32_t from, uint64_t from_sector)
{
	struct blk_event e = { .ts = ts, .dev = to, .old_dev = from, .kind = BLK_EV_BIO_REMAP,
			       .sector = sector, .aux_sector = from_sector, .nr_sector = 8,
			       .bytes = 4096, .pid = 11 };

	btt_event(&e, to, false, b);
}

/*
 * dm0: Q 0+8 at 100, remapped to sda at 150 (Q2Adm 50), completed at 3000
 * (Q2Cdm 2900). sdb: a D before any Q or A: btt ignores the device.
 * sda: Q 100+8 at 1000, G 1100, I 1200, plugged 1250 to 1450 (one request
 * released), Q 108+8 at 1300 back-merged at 1400, a second Q at 100 at
 * 1350 (a followed bio starts there: btt 1.2 drops that one, with its G
 * and I, and follows this one), D 100+16 at 1500, C 100+16 at 2500.
 */
static void setup(void)
{
	struct blk_event plug = { .ts = 1250, .kind = BLK_EV_PLUG, .pid = 10 };
	struct blk_event unplug = { .ts = 1450, .kind = BLK_EV_UNPLUG, .pid = 10, .count = 1 };

	b = btt_alloc();
	ck_assert_ptr_nonnull(b);
	ev(50, SDB, BLK_EV_RQ_ISSUE, 0, 8);
	ev(100, DM0, BLK_EV_BIO_QUEUE, 0, 8);
	remap(150, SDA, 0, DM0, 0);
	ev(1000, SDA, BLK_EV_BIO_QUEUE, 100, 8);
	ev(1100, SDA, BLK_EV_GETRQ, 100, 8);
	ev(1200, SDA, BLK_EV_RQ_INSERT, 100, 8);
	btt_event(&plug, SDA, false, b);
	ev(1300, SDA, BLK_EV_BIO_QUEUE, 108, 8);
	ev(1350, SDA, BLK_EV_BIO_QUEUE, 100, 8);
	ev(1400, SDA, BLK_EV_BIO_BACKMERGE, 108, 8);
	btt_event(&unplug, SDA, false, b);
	ev(1500, SDA, BLK_EV_RQ_ISSUE, 100, 16);
	ev(2500, SDA, BLK_EV_RQ_COMPLETE, 100, 16);
	ev(3000, DM0, BLK_EV_BIO_COMPLETE, 0, 8);
	btt_finish(b);
}

static void teardown(void)
{
	btt_free(b);
}

static void avg_is(const struct btt_avg *a, uint64_t n, uint64_t total, uint64_t min, uint64_t max)
{
	ck_assert_uint_eq(a->n, n);
	ck_assert_uint_eq(a->total, total);
	ck_assert_uint_eq(a->min, min);
	ck_assert_uint_eq(a->max, max);
}

START_TEST(devices_after_culling)
{
	ck_assert_uint_eq(btt_ndevs(b), 2);
	ck_assert_uint_eq(btt_dev_at(b, 0)->dev, DM0);
	ck_assert(btt_dev_at(b, 0)->remapper);
	ck_assert_uint_eq(btt_dev_at(b, 1)->dev, SDA);
	ck_assert(!btt_dev_at(b, 1)->remapper);
	ck_assert_ptr_null(btt_dev_at(b, 2));
}
END_TEST

START_TEST(phases)
{
	const struct btt_dev *dm = btt_dev_at(b, 0), *sda = btt_dev_at(b, 1);
	const struct btt_avg *all = btt_all(b);

	avg_is(&dm->avg[BTT_Q2A_DM], 1, 50, 50, 50);
	avg_is(&dm->avg[BTT_Q2C_DM], 1, 2900, 2900, 2900);
	/* 1000 -> 1300 -> 1350 */
	avg_is(&sda->avg[BTT_Q2Q], 2, 350, 50, 300);
	avg_is(&sda->avg[BTT_Q2G], 1, 100, 100, 100);
	avg_is(&sda->avg[BTT_G2I], 1, 100, 100, 100);
	avg_is(&sda->avg[BTT_Q2M], 1, 100, 100, 100);
	/* the bio inserted at 1200 was dropped: none issued had an I */
	avg_is(&sda->avg[BTT_I2D], 0, 0, 0, 0);
	avg_is(&sda->avg[BTT_M2D], 1, 100, 100, 100);
	/* both bios of the request complete with it */
	avg_is(&sda->avg[BTT_D2C], 2, 2000, 1000, 1000);
	avg_is(&sda->avg[BTT_Q2C], 2, 2350, 1150, 1200);
	/* all devices: the time between Qs of any device, 100 -> 1000 -> 1300 -> 1350 */
	avg_is(&all[BTT_Q2Q], 3, 1250, 50, 900);
	ck_assert_uint_eq(all[BTT_Q2Q_DM].n, 0);
}
END_TEST

START_TEST(merges_queue_and_plugs)
{
	const struct btt_dev *sda = btt_dev_at(b, 1);
	struct btt_live_info li = btt_lives(b, sda);
	const struct btt_proc *pr;
	size_t n;

	ck_assert_uint_eq(sda->n_qs, 3);
	ck_assert_uint_eq(sda->n_ds, 1);
	avg_is(&sda->blks, 1, 16, 16, 16);
	/* the Qs find 0, 1 and 2 waiting (the dropped one too), M and D take 2 */
	ck_assert_uint_eq(sda->actq.sampled, 3);
	ck_assert_uint_eq(sda->actq.now, 1);
	ck_assert_uint_eq(sda->q2q_seek.nseeks, 3);
	ck_assert_uint_eq(sda->q2q_seek.nseq, 1);
	ck_assert_uint_eq(sda->d2d_seek.nseeks, 1);
	ck_assert_uint_eq(sda->nplugs, 1);
	ck_assert_uint_eq(sda->nplugs_t, 0);
	ck_assert_uint_eq(sda->nios_up, 1);
	ck_assert_uint_eq(sda->plugged_ns, 200);
	ck_assert_uint_eq(sda->q2d[0], 2);
	ck_assert_uint_eq(li.nlives, 1);
	ck_assert_double_eq(li.pct_live, 100.0);
	pr = btt_procs(b, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(pr[0].name, "dd");
	ck_assert_uint_eq(pr[0].avg[BTT_Q2C].n, 2);
	ck_assert_uint_eq(pr[0].avg[BTT_Q2C_DM].n, 1);
}
END_TEST

/* Two periods [10, 20] and [40, 50] from a trace that began at 0: btt
 * measures % live from the trace's start: 20 of 50 ns. */
START_TEST(active_periods)
{
	struct btt_live_info li;

	btt_free(b);
	b = btt_alloc();
	ev(0, SDA, BLK_EV_BIO_QUEUE, 0, 8);
	ev(5, SDA, BLK_EV_BIO_QUEUE, 8, 8);
	ev(10, SDA, BLK_EV_RQ_ISSUE, 0, 8);
	ev(20, SDA, BLK_EV_RQ_COMPLETE, 0, 8);
	ev(40, SDA, BLK_EV_RQ_ISSUE, 8, 8);
	ev(50, SDA, BLK_EV_RQ_COMPLETE, 8, 8);
	btt_finish(b);
	li = btt_lives(b, btt_dev_at(b, 0));
	ck_assert_uint_eq(li.nlives, 2);
	ck_assert_double_eq_tol(li.avg_live, 10.0, 1e-9);
	ck_assert_double_eq_tol(li.avg_lull, 30.0, 1e-9);
	ck_assert_double_eq_tol(li.pct_live, 40.0, 1e-9);
}
END_TEST

/* an I/O of lives_in_any_order: issued at @d, completed at @c */
struct io_span {
	uint64_t d, c;
};

static int ev_ts_cmp(const void *a, const void *b)
{
	const struct blk_event *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int span_cmp(const void *a, const void *b)
{
	const struct io_span *x = a, *y = b;

	return x->d < y->d ? -1 : x->d > y->d;
}

/*
 * 3000 I/Os at distinct sectors, completed out of order, some of them
 * long enough to span many periods: the periods btt counts are the union
 * of their [D, C] (touching ones joined), whatever the order they end in.
 */
START_TEST(lives_in_any_order)
{
	enum { NIO = 3000 };
	static struct blk_event evs[3 * NIO];
	static struct io_span span[NIO];
	uint64_t seed = 12345, live = 0, nlives = 0, cd = 0, cc = 0;
	struct btt_live_info li;
	size_t n = 0;

	btt_free(b);
	b = btt_alloc();
	for (size_t i = 0; i < NIO; i++) {
		uint64_t q = 1000 * (i + 1), len;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		len = 1 + (seed >> 33) % 1500;
		if ((seed >> 20) % 50 == 0)
			len += 100000;
		span[i] = (struct io_span){ .d = q + 10, .c = q + 10 + len };
		evs[n++] = (struct blk_event){ .ts = q, .kind = BLK_EV_BIO_QUEUE };
		evs[n++] = (struct blk_event){ .ts = span[i].d, .kind = BLK_EV_RQ_ISSUE };
		evs[n++] = (struct blk_event){ .ts = span[i].c, .kind = BLK_EV_RQ_COMPLETE };
		for (size_t k = n - 3; k < n; k++) {
			evs[k].dev = SDA;
			evs[k].sector = 8 * i;
			evs[k].nr_sector = 8;
			evs[k].pid = 10;
		}
	}
	/* each I/O's own Q, D, C at increasing times: a sort keeps them in order */
	qsort(evs, n, sizeof(evs[0]), ev_ts_cmp);
	for (size_t k = 0; k < n; k++)
		btt_event(&evs[k], SDA, false, b);
	btt_finish(b);

	qsort(span, NIO, sizeof(span[0]), span_cmp);
	for (size_t i = 0; i < NIO; i++) {
		if (nlives && span[i].d <= cc) {
			if (span[i].c > cc)
				cc = span[i].c;
			continue;
		}
		if (nlives)
			live += cc - cd;
		nlives++;
		cd = span[i].d;
		cc = span[i].c;
	}
	live += cc - cd;

	li = btt_lives(b, btt_dev_at(b, 0));
	ck_assert_uint_gt(nlives, 100);
	ck_assert_uint_eq(li.nlives, nlives);
	ck_assert_double_eq_tol(li.avg_live * (double)li.nlives, (double)live, 1e-3);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("btt");
	TCase *tc = tcase_create("btt");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, devices_after_culling);
	tcase_add_test(tc, phases);
	tcase_add_test(tc, merges_queue_and_plugs);
	tcase_add_test(tc, active_periods);
	tcase_add_test(tc, lives_in_any_order);
	suite_add_tcase(s, tc);
	return check_run(s);
}
