/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt.h - btt's statistics, per device of the stack, from the event stream.
 *
 * btt (blktrace's analyser) reads one device's events at a time and knows
 * nothing of the stack; its figures come from rules of its own, not from
 * the stack tracker's trees: a bio is found by the sector its events name,
 * a completion ends only the bios wholly inside it, a bio queued at a
 * sector where an earlier one is still held takes its place (the earlier
 * one never completes), and device-mapper and md are told from disks by
 * major number alone. To
 * give the same numbers on the same I/O, this module applies those rules to
 * blkstack's events (after plugdev has named the device of each plug and
 * unplug), per device, with fixed memory per device and per process.
 *
 * What it gives, with btt's names: the phase averages Q2Q, Q2A, Q2G, S2G,
 * G2I, Q2M, I2D, M2D, D2C, Q2C and, at devices btt takes for device-mapper
 * or md, Q2Qdm, Q2Adm, Q2Cdm (MIN AVG MAX N), per device, per process and
 * for all devices; the merge ratio and completed sizes; the Q2Q and D2D
 * seek distances (track/seek.h); plugs and timer unplugs with the time a
 * queue was plugged; the average number of bios waiting at each Q (track/
 * inflight.h); the periods with I/O issued and not completed; and the Q2D
 * histogram. Times are ns, sizes 512-byte blocks.
 */
#ifndef BLKSTACK_BTT_H
#define BLKSTACK_BTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/event.h"
#include "track/btt-qtree.h"
#include "track/inflight.h"
#include "track/seek.h"

/* The phases in btt's order of output; the first three are the "dm" ones. */
enum btt_phase {
	BTT_Q2Q_DM = 0,
	BTT_Q2A_DM,
	BTT_Q2C_DM,
	BTT_Q2Q,
	BTT_Q2A,
	BTT_Q2G,
	BTT_S2G,
	BTT_G2I,
	BTT_Q2M,
	BTT_I2D,
	BTT_M2D,
	BTT_D2C,
	BTT_Q2C,
	BTT_PHASES
};

/** btt_phase_name - btt's name of a phase ("Q2Qdm", "D2C") */
const char *btt_phase_name(enum btt_phase p);

/* Q2D histogram: bucket upper bounds in ns, the last bucket is >= 1 s */
#define BTT_Q2D_BUCKETS 10
extern const uint64_t btt_q2d_bound[BTT_Q2D_BUCKETS - 1];

/**
 * struct btt_avg - btt's MIN AVG MAX N of a phase
 * @n: how many
 * @total: their sum (ns, or blocks for sizes)
 * @min, @max: extremes
 */
struct btt_avg {
	uint64_t n;
	uint64_t total;
	uint64_t min;
	uint64_t max;
};

/* the disjoint periods with I/O issued and not completed, sorted by start */
struct btt_lives {
	struct { uint64_t d, c; } *v;
	size_t n, cap;
	/* periods older than the horizon, counted and let go */
	uint64_t done_n, done_ns, last_c;
};

/**
 * struct btt_dev - one device
 * @dev: the device
 * @remapper: btt takes it for device-mapper or md (major 9, 253 or 254)
 * @culling: no Q or A seen yet: btt ignores everything before the first
 * @start, @end: its first event, and its last event btt followed (ns)
 * @avg: phase figures of bios queued here
 * @blks: sizes completed (blocks)
 * @n_qs, @n_ds: bios queued (and requeued), requests issued
 * @last_q: time of the previous Q, for Q2Q (0: none yet)
 * @actq: bios queued and not yet merged or issued (Active Requests At Q)
 * @q2q_seek, @d2d_seek: seek distances of Qs and of Ds
 * @plugged, @last_plug: plugged since @last_plug
 * @plugged_ns: time plugged
 * @nplugs, @nplugs_t: unplugs, and unplugs on a timer (or a sleep)
 * @nios_up, @nios_upt: requests those unplugs released
 * @q2d: Q2D histogram
 * @lives: the I/O active periods
 * @qs: the bios followed, in btt's tree (track/btt-qtree.h)
 * @aqd: requests issued and not completed, as btt's -Q counts them
 */
struct btt_dev {
	uint32_t dev;
	bool remapper;
	bool culling;
	uint64_t start, end;
	struct btt_avg avg[BTT_PHASES];
	struct btt_avg blks;
	uint64_t n_qs, n_ds;
	uint64_t last_q;
	struct inflight actq;
	struct seek q2q_seek, d2d_seek;
	bool plugged;
	uint64_t last_plug;
	uint64_t plugged_ns;
	uint64_t nplugs, nplugs_t;
	uint64_t nios_up, nios_upt;
	uint64_t q2d[BTT_Q2D_BUCKETS];
	struct btt_lives lives;
	struct btt_qtree qs;
	unsigned int aqd;
};

/**
 * struct btt_proc - one process name (btt groups by name, cut at '/':
 * every kworker is "kworker")
 */
struct btt_proc {
	char name[16];
	uint64_t last_q;
	struct btt_avg avg[BTT_PHASES];
};

/* processes kept apart at most; the rest are summed as "other" */
#define BTT_MAX_PROCS 256
/* bios followed at once per device at most */
#define BTT_MAX_QS (1U << 20)

/**
 * struct btt_live_info - the I/O active periods of a device (or all)
 * @nlives: periods
 * @avg_live: their average length, ns
 * @avg_lull: the average time between them, ns
 * @pct_live: share of the trace (from its first event) with I/O active
 */
struct btt_live_info {
	uint64_t nlives;
	double avg_live;
	double avg_lull;
	double pct_live;
};

/* btt's per-I/O latency files (-l, -q, -z) */
enum btt_lat {
	BTT_LAT_D2C = 0,	/* at the completion's time */
	BTT_LAT_Q2C,		/* at the queue's time */
	BTT_LAT_Q2D,		/* at the time */
};

/**
 * struct btt_sink - btt's per-event data (its -l -q -z -Q -s -m -B files
 * and its iops and mbps files), as the statistics see each event; times in
 * ns of the trace clock
 * @latency: one bio's D2C, Q2C or Q2D
 * @aqd: the requests issued and not completed went from @from to @to
 * @seek: one seek of the Q2Q (@d2d false) or D2D stream, @read or a write
 * @bno: a request issued, sectors @start to @end
 * @complete: a completion btt follows, of @nsec sectors (its I/Os per
 *	second count completions, not bios)
 * @ctx: passed to each
 */
struct btt_sink {
	void (*latency)(void *ctx, uint32_t dev, enum btt_lat kind, uint64_t ts, uint64_t lat);
	void (*aqd)(void *ctx, uint32_t dev, uint64_t ts, unsigned int from, unsigned int to);
	void (*seek)(void *ctx, uint32_t dev, bool d2d, uint64_t ts, int64_t dist, bool read);
	void (*bno)(void *ctx, uint32_t dev, uint64_t ts, uint64_t start, uint64_t end, bool read);
	void (*complete)(void *ctx, uint32_t dev, uint64_t ts, uint32_t nsec);
	void *ctx;
};

struct btt;

/** btt_set_sink - hand each event's data to @s (NULL: none) */
void btt_set_sink(struct btt *b, const struct btt_sink *s);

/** btt_genesis - the first event's time: btt's files count time from it */
uint64_t btt_genesis(const struct btt *b);

/** btt_alloc - empty statistics; NULL with errno set */
struct btt *btt_alloc(void);

/** btt_free - NULL is accepted */
void btt_free(struct btt *b);

/**
 * btt_event - take one event, in time order, with the device plugdev gave
 * it (a plugdev_fn: @ctx is the struct btt)
 * Returns 0.
 */
int btt_event(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx);

/**
 * btt_finish - the trace ended: close the plugs still open at each
 * device's last event, as btt does before it reports
 */
void btt_finish(struct btt *b);

/** btt_devs - the devices btt reports (a Q or a D seen), in order of first
 * appearance; @n receives how many */
const struct btt_dev *btt_devs(const struct btt *b, size_t *n);

/** btt_dev_at - the @i'th device of btt_devs() */
const struct btt_dev *btt_dev_at(const struct btt *b, size_t i);

/** btt_ndevs - how many devices btt_devs() holds */
size_t btt_ndevs(const struct btt *b);

/** btt_procs - the processes, sorted by name; @n receives how many */
const struct btt_proc *btt_procs(const struct btt *b, size_t *n);

/** btt_all - the phase figures of all devices together (btt's "ALL") */
const struct btt_avg *btt_all(const struct btt *b);

/** btt_lives - the I/O active periods of @d, or of all devices when NULL */
struct btt_live_info btt_lives(const struct btt *b, const struct btt_dev *d);

/** btt_unfollowed - bios not followed because a device held BTT_MAX_QS */
uint64_t btt_unfollowed(const struct btt *b);

/** btt_remapper - whether btt takes @dev for device-mapper or md */
static inline bool btt_remapper(uint32_t dev)
{
	unsigned int major = KDEV_MAJOR(dev);

	return major == 9 || major == 253 || major == 254;
}

#endif /* BLKSTACK_BTT_H */
