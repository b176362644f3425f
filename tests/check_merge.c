// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_merge.c - per-CPU streams merged by time: ties by CPU then arrival,
 * an idle CPU that does not hold the others back, a CPU that lost events.
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "track/merge.h"

#define MAX_OUT 64

struct sink {
	int n;
	uint64_t ts[MAX_OUT];
	int cpu[MAX_OUT];
	uint64_t tag[MAX_OUT];	/* sector field used as a tag */
	int stop_after;
};

static int collect(const struct blk_event *ev, void *ctx)
{
	struct sink *s = ctx;

	ck_assert_int_lt(s->n, MAX_OUT);
	s->ts[s->n] = ev->ts;
	s->cpu[s->n] = ev->cpu;
	s->tag[s->n] = ev->sector;
	s->n++;
	if (s->stop_after && s->n == s->stop_after)
		return -42;
	return 0;
}

static void push(struct merge *m, int cpu, uint64_t ts, uint64_t tag)
{
	struct blk_event ev = { .ts = ts, .cpu = cpu, .sector = tag };

	ck_assert_int_eq(merge_push(m, cpu, &ev), 0);
}

static struct merge *m;

static void setup(void)
{
	m = merge_alloc(3);
	ck_assert_ptr_nonnull(m);
}

static void teardown(void)
{
	merge_free(m);
}

START_TEST(order_by_time)
{
	struct sink s = { 0 };

	push(m, 0, 10, 1);
	push(m, 0, 30, 3);
	push(m, 1, 20, 2);
	push(m, 2, 5, 0);
	push(m, 2, 40, 4);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(s.tag[i], i);
	ck_assert_int_eq(merge_queued(m), 0);
}
END_TEST

START_TEST(ties_by_cpu_then_arrival)
{
	struct sink s = { 0 };

	push(m, 2, 100, 4);
	push(m, 1, 100, 2);
	push(m, 1, 100, 3);
	push(m, 0, 100, 0);
	push(m, 0, 100, 1);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(s.tag[i], i);
}
END_TEST

START_TEST(waits_for_silent_cpu)
{
	struct sink s = { 0 };

	/* CPU 2 has said nothing: it may still hold something earlier */
	push(m, 0, 50, 1);
	push(m, 1, 60, 2);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 0);
	/* once CPU 2 is known to have reached 55, 50 can go, 60 not yet */
	merge_reached(m, 2, 55);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_int_eq(s.tag[0], 1);
	/* CPU 0 is empty now and bounded by its last event (50) */
	merge_reached(m, 0, 70);
	merge_reached(m, 2, 70);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.tag[1], 2);
}
END_TEST

START_TEST(idle_cpu_does_not_hold_back)
{
	struct sink s = { 0 };

	/* an idle CPU declared drained up to "now" releases the busy ones */
	for (int i = 0; i < 10; i++)
		push(m, 0, 1000 + i, i);
	merge_reached(m, 1, 2000);
	merge_reached(m, 2, 2000);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 10);
}
END_TEST

START_TEST(equal_time_on_lower_silent_cpu_goes_first)
{
	struct sink s = { 0 };

	/* CPU 0 reached 100 and may still produce a 100: CPU 1's 100 waits */
	merge_reached(m, 0, 100);
	merge_reached(m, 2, 1000);
	push(m, 1, 100, 7);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 0);
	push(m, 0, 100, 6);
	merge_reached(m, 0, 200);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.tag[0], 6);
	ck_assert_int_eq(s.tag[1], 7);
}
END_TEST

START_TEST(cpu_with_lost_events)
{
	struct sink s = { 0 };

	/* a CPU that lost events jumps ahead in time: order still holds */
	push(m, 0, 10, 0);
	push(m, 0, 5000, 3);
	push(m, 1, 20, 1);
	push(m, 1, 30, 2);
	push(m, 2, 6000, 4);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(s.tag[i], i);
}
END_TEST

START_TEST(out_of_order_clamped_and_counted)
{
	struct sink s = { 0 };

	push(m, 0, 100, 0);
	push(m, 0, 90, 1);
	ck_assert_int_eq(merge_reordered(m), 1);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_int_eq(s.ts[1], 100);
}
END_TEST

/*
 * A run of one stream ends at its queue's end, or, when the queue's last
 * event is after the next stream's head, at the first event after it; a
 * consumer may stop it anywhere. Every event comes once, in order.
 */
START_TEST(runs_end_at_queue_end_or_later_time)
{
	for (int stop = 0; stop <= 8; stop++) {
		for (int late = 0; late < 2; late++) {
			struct sink s = { .stop_after = stop };
			int ret;

			merge_free(m);
			m = merge_alloc(2);
			ck_assert_ptr_nonnull(m);
			/* cpu0: 10..60 (and 100 when late), cpu1: 65 */
			for (int i = 1; i <= 6; i++)
				push(m, 0, 10 * i, i);
			if (late)
				push(m, 0, 100, 7);
			push(m, 1, 65, 8);
			merge_end(m, 0);
			merge_end(m, 1);
			ret = merge_drain(m, true, collect, &s);
			if (ret == -42) {
				ck_assert_int_eq(s.n, stop);
				s.stop_after = 0;
				ret = merge_drain(m, true, collect, &s);
			}
			ck_assert_int_eq(ret, 0);
			ck_assert_int_eq(s.n, 7 + late);
			for (int i = 0; i < 6; i++)
				ck_assert_int_eq(s.tag[i], i + 1);
			ck_assert_int_eq(s.tag[6], 8);
			if (late)
				ck_assert_int_eq(s.tag[7], 7);
			ck_assert_int_eq(merge_queued(m), 0);
		}
	}
}
END_TEST

START_TEST(consumer_stops_drain)
{
	struct sink s = { .stop_after = 2 };

	for (int i = 0; i < 5; i++)
		push(m, i % 3, 10 * i, i);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), -42);
	ck_assert_int_eq(merge_queued(m), 3);
	s.stop_after = 0;
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 5);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(s.tag[i], i);
}
END_TEST

/*
 * A lent array is merged where it is: times clamped in place, ties by CPU
 * as for pushed events; a stream holding events takes no loan; emptied,
 * the stream queues into its own ring again.
 */
START_TEST(lent_events_merged_in_place)
{
	struct blk_event lent[4] = {
		{ .ts = 20, .cpu = 1, .sector = 1 }, { .ts = 30, .cpu = 1, .sector = 3 },
		{ .ts = 25, .cpu = 1, .sector = 4 }, { .ts = 40, .cpu = 1, .sector = 6 },
	};
	struct sink s = { 0 };

	push(m, 0, 10, 0);
	push(m, 0, 30, 2);
	push(m, 2, 30, 5);
	ck_assert_int_eq(merge_lend(m, 0, lent, 4, false), -EBUSY);
	ck_assert_int_eq(merge_lend(m, 3, lent, 4, false), -EINVAL);
	ck_assert_int_eq(merge_lend(m, 1, lent, 4, false), 0);
	ck_assert_uint_eq(merge_stream_len(m, 1), 4);
	/* 25 after 30 on CPU 1: clamped to 30, in the caller's array */
	ck_assert_uint_eq(merge_reordered(m), 1);
	ck_assert_uint_eq(lent[2].ts, 30);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 7);
	/* 30: CPU 0, then CPU 1's two in arrival order, then CPU 2 */
	{
		static const uint64_t want[7] = { 0, 1, 2, 3, 4, 5, 6 };

		for (int i = 0; i < 7; i++)
			ck_assert_uint_eq(s.tag[i], want[i]);
	}
	ck_assert_uint_eq(merge_stream_len(m, 1), 0);
	/* its own ring again: a push does not touch the array */
	push(m, 1, 50, 7);
	ck_assert_uint_eq(lent[0].sector, 1);
	s.n = 0;
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_uint_eq(s.tag[0], 7);
}
END_TEST

/*
 * Events said to be in order are still clamped when the first is behind
 * the stream's last: all of them, and counted, as one by one.
 */
START_TEST(ordered_commit_behind_stream_clamped)
{
	struct sink s = { 0 };
	unsigned int room;
	struct blk_event *slot;

	push(m, 0, 100, 0);
	slot = merge_reserve(m, 0, &room);
	ck_assert_ptr_nonnull(slot);
	ck_assert_uint_ge(room, 3);
	slot[0] = (struct blk_event){ .ts = 90, .cpu = 0, .sector = 1 };
	slot[1] = (struct blk_event){ .ts = 95, .cpu = 0, .sector = 2 };
	slot[2] = (struct blk_event){ .ts = 120, .cpu = 0, .sector = 3 };
	merge_commit_n(m, 0, 3, true);
	ck_assert_uint_eq(merge_reordered(m), 2);
	push(m, 1, 100, 4);
	ck_assert_int_eq(merge_drain(m, true, collect, &s), 0);
	ck_assert_int_eq(s.n, 5);
	ck_assert_uint_eq(s.ts[1], 100);
	ck_assert_uint_eq(s.ts[2], 100);
	/* the CPU 1 event at 100 goes after CPU 0's three at 100 */
	ck_assert_uint_eq(s.tag[3], 4);
	ck_assert_uint_eq(s.tag[4], 3);
}
END_TEST

struct order_sink {
	uint64_t n;
	uint64_t last_ts;
	int last_cpu;
	bool bad;
};

/*
 * A stream that ended bounds nothing, even against events at UINT64_MAX: a
 * damaged page can put them there, and an "ended at UINT64_MAX" tie held
 * them back forever (the readers spun on an endless fill loop).
 */
START_TEST(ended_stream_releases_events_at_max_time)
{
	struct sink s = { 0 };

	push(m, 1, UINT64_MAX, 1);
	merge_end(m, 0);
	merge_end(m, 2);
	ck_assert_int_eq(merge_drain(m, false, collect, &s), 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_uint_eq(s.ts[0], UINT64_MAX);
	ck_assert_uint_eq(merge_queued(m), 0);
}
END_TEST

static int check_order(const struct blk_event *ev, void *ctx)
{
	struct order_sink *s = ctx;

	if (s->n && (ev->ts < s->last_ts || (ev->ts == s->last_ts && ev->cpu < s->last_cpu)))
		s->bad = true;
	s->last_ts = ev->ts;
	s->last_cpu = ev->cpu;
	s->n++;
	return 0;
}

START_TEST(grows_and_wraps)
{
	struct order_sink s = { 0 };
	uint64_t pushed = 0;

	/* rounds of uneven pushes and partial drains: the rings wrap and grow */
	for (int round = 0; round < 30; round++) {
		uint64_t base = 100000ULL * round;

		for (int i = 0; i < 37 * (round + 1); i++) {
			push(m, i % 3, base + i / 2, i);
			pushed++;
		}
		for (int c = 0; c < 3; c++)
			merge_reached(m, c, base + 50);
		ck_assert_int_eq(merge_drain(m, false, check_order, &s), 0);
	}
	ck_assert_int_eq(merge_drain(m, true, check_order, &s), 0);
	ck_assert(!s.bad);
	ck_assert_uint_eq(s.n, pushed);
	ck_assert_uint_eq(merge_queued(m), 0);
}
END_TEST

/*
 * A model of the merge, without a heap: at each step the earliest head by
 * (time, CPU) goes if no empty stream that has not ended may still produce
 * something before it. Random pushes (merge_push, runs through
 * merge_reserve()/merge_commit_n(), in order or not, and loans through
 * merge_lend()), reaches, ends and drains must give the model's order,
 * event for event.
 */
#define MODEL_CPUS 5
#define MODEL_MAX 4096

struct model {
	uint64_t ts[MODEL_CPUS][MODEL_MAX];
	uint64_t tag[MODEL_CPUS][MODEL_MAX];
	int head[MODEL_CPUS], len[MODEL_CPUS];
	uint64_t reached[MODEL_CPUS];
	bool ended[MODEL_CPUS];
};

static void model_push(struct model *md, int cpu, uint64_t ts, uint64_t tag)
{
	int at = md->head[cpu] + md->len[cpu];

	ck_assert_int_lt(at, MODEL_MAX);
	if (ts < md->reached[cpu])
		ts = md->reached[cpu];
	md->reached[cpu] = ts;
	md->ts[cpu][at] = ts;
	md->tag[cpu][at] = tag;
	md->len[cpu]++;
}

struct tag_sink {
	uint64_t n;
	uint64_t tag[MODEL_MAX * MODEL_CPUS];
};

static int collect_tag(const struct blk_event *ev, void *ctx)
{
	struct tag_sink *s = ctx;

	s->tag[s->n++] = ev->sector;
	return 0;
}

static void model_drain(struct model *md, bool final, struct tag_sink *s)
{
	for (;;) {
		int best = -1, hcpu = -1;
		uint64_t bts = 0, hts = 0;

		for (int c = 0; c < MODEL_CPUS; c++) {
			if (md->len[c]) {
				uint64_t t = md->ts[c][md->head[c]];

				if (best < 0 || t < bts) {
					best = c;
					bts = t;
				}
			} else if (!final && !md->ended[c] &&
				   (hcpu < 0 || md->reached[c] < hts)) {
				hcpu = c;
				hts = md->reached[c];
			}
		}
		if (best < 0)
			return;
		if (hcpu >= 0 && (bts > hts || (bts == hts && best > hcpu)))
			return;
		s->tag[s->n++] = md->tag[best][md->head[best]];
		md->head[best]++;
		md->len[best]--;
	}
}

START_TEST(random_against_model)
{
	static struct model md;
	static struct tag_sink got, want;
	uint64_t now[MODEL_CPUS] = { 0 };
	uint64_t tag = 0, clk = 0;
	struct merge *mm;

	for (int seed = 1; seed <= 40; seed++) {
		srand(seed);
		memset(&md, 0, sizeof(md));
		memset(now, 0, sizeof(now));
		clk = 0;
		got.n = want.n = 0;
		mm = merge_alloc(MODEL_CPUS);
		ck_assert_ptr_nonnull(mm);
		for (int step = 0; step < 400; step++) {
			int cpu = rand() % MODEL_CPUS, op = rand() % 10;

			/* one busy stream most of the time, as on a loaded CPU */
			if (seed % 2 && rand() % 4)
				cpu = 0;
			if (md.ended[cpu])
				continue;
			if (op < 6) {
				static struct blk_event lend[MODEL_CPUS][8];
				int n = 1 + rand() % 8, mode = rand() % 3, made = 0;
				struct blk_event *slot = NULL;
				unsigned int room = 0, used = 0;
				bool ordered = true;
				uint64_t prev = 0;

				/* a loan only to an empty stream: its array is free again */
				if (mode == 2 && merge_stream_len(mm, cpu))
					mode = 1;
				for (int i = 0; i < n && md.head[cpu] + md.len[cpu] < MODEL_MAX; i++) {
					struct blk_event ev = { .cpu = cpu, .sector = ++tag };

					/* a clock shared by the streams: many ties */
					clk += rand() % 3 == 0;
					now[cpu] = clk > now[cpu] ? clk : now[cpu];
					ev.ts = now[cpu] - (rand() % 16 == 0 ? rand() % 3 : 0);
					if (ev.ts > now[cpu])
						ev.ts = 0;
					model_push(&md, cpu, ev.ts, ev.sector);
					if (made && ev.ts < prev)
						ordered = false;
					prev = ev.ts;
					made++;
					if (mode == 0) {
						ck_assert_int_eq(merge_push(mm, cpu, &ev), 0);
						continue;
					}
					if (mode == 2) {
						lend[cpu][i] = ev;
						continue;
					}
					if (used == room) {
						ordered &= rand() % 2;
						merge_commit_n(mm, cpu, used, ordered);
						used = 0;
						ordered = true;
						made = 1;
						slot = merge_reserve(mm, cpu, &room);
						ck_assert_ptr_nonnull(slot);
						ck_assert_uint_ge(room, 1);
					}
					slot[used++] = ev;
				}
				/* "ordered" only where it is true; false is always allowed */
				if (mode == 1)
					merge_commit_n(mm, cpu, used, ordered && rand() % 2);
				if (mode == 2)
					ck_assert_int_eq(merge_lend(mm, cpu, lend[cpu], made,
								    ordered && rand() % 2), 0);
			} else if (op < 7) {
				uint64_t t = now[cpu] + rand() % 5;

				merge_reached(mm, cpu, t);
				if (t > md.reached[cpu])
					md.reached[cpu] = t;
			} else if (op < 8 && rand() % 8 == 0) {
				merge_end(mm, cpu);
				md.ended[cpu] = true;
			} else {
				ck_assert_int_eq(merge_drain(mm, false, collect_tag, &got), 0);
				model_drain(&md, false, &want);
				ck_assert_uint_eq(got.n, want.n);
			}
		}
		ck_assert_int_eq(merge_drain(mm, true, collect_tag, &got), 0);
		model_drain(&md, true, &want);
		ck_assert_uint_eq(got.n, want.n);
		for (uint64_t i = 0; i < got.n; i++)
			ck_assert_uint_eq(got.tag[i], want.tag[i]);
		ck_assert_uint_eq(merge_queued(mm), 0);
		merge_free(mm);
	}
}
END_TEST

START_TEST(cpu_out_of_range)
{
	struct blk_event ev = { .cpu = 3 };

	ck_assert_int_eq(merge_push(m, 3, &ev), -22);
	ck_assert_ptr_null(merge_alloc(0));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("order");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, order_by_time);
	tcase_add_test(tc, ties_by_cpu_then_arrival);
	tcase_add_test(tc, waits_for_silent_cpu);
	tcase_add_test(tc, idle_cpu_does_not_hold_back);
	tcase_add_test(tc, equal_time_on_lower_silent_cpu_goes_first);
	tcase_add_test(tc, cpu_with_lost_events);
	tcase_add_test(tc, out_of_order_clamped_and_counted);
	tcase_add_test(tc, consumer_stops_drain);
	tcase_add_test(tc, runs_end_at_queue_end_or_later_time);
	tcase_add_test(tc, grows_and_wraps);
	tcase_add_test(tc, cpu_out_of_range);
	tcase_add_test(tc, random_against_model);
	tcase_add_test(tc, ended_stream_releases_events_at_max_time);
	tcase_add_test(tc, lent_events_merged_in_place);
	tcase_add_test(tc, ordered_commit_behind_stream_clamped);
	suite_add_tcase(s, tc);
	return check_run(s);
}
