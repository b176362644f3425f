/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * series.h - per-layer figures over time: I/Os, bytes and latency per
 * operation, in-flight I/Os, latency heatmaps per operation (time x
 * log-scale latency), and a sample of the offsets each device saw
 * (iowatcher's I/O graph).
 *
 * Memory is fixed per layer whatever the trace length: there are at most
 * SERIES_BINS bins, and when the trace outgrows them, neighbouring bins are
 * merged two by two and the bin width doubles. The width is thus chosen by
 * the trace's length: the smallest power-of-two multiple of the first width
 * that holds the whole trace in SERIES_BINS bins. Widths are powers of two
 * of nanoseconds, so that finding a bin is a shift, not a division: this
 * runs for every record of every completed I/O.
 */
#ifndef BLKSTACK_SERIES_H
#define BLKSTACK_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "track/tracker.h"

#define SERIES_BINS		240
/* bucket 0: under 1 us; bucket k: [2^(k-1), 2^k) us; the last is open-ended */
#define SERIES_LAT_BUCKETS	26
#define SERIES_POINTS		1500
/* the first bin width, 2^20 ns (1.05 ms): a power of two, so a bin is a shift */
#define SERIES_FIRST_SHIFT	20

/*
 * Operations of the series, those of the statistics (enum st_op, in its
 * order): each has its own scale, a discard's bytes never swamp a read's.
 */
enum series_dir {
	SERIES_READ = 0,
	SERIES_WRITE,
	SERIES_DISCARD,	/* discard and secure erase */
	SERIES_FLUSH,	/* empty flushes and flush requests */
	SERIES_OTHER,	/* write-zeroes, zone and driver operations */
	SERIES_DIRS
};

/**
 * struct series_point - one sampled I/O at a layer
 * @ts: when it entered the layer (Q), ns of the trace clock
 * @sector: its first sector there
 * @sectors: its size
 * @dir: enum series_dir
 */
struct series_point {
	uint64_t ts;
	uint64_t sector;
	uint32_t sectors;
	uint8_t dir;
};

/**
 * struct series_layer - one device over time
 * @dev: the device
 * @dev_seen: some request was issued to it and completed (@heat_dev holds
 *	      device time); never for a bio-based layer, whose whole time
 *	      is @heat_total's
 * @ios, @bytes: completed at this layer in each bin (by completion time)
 * @lat_sum_ns, @lat_max_ns: C - Q at this layer, summed and the largest,
 *			     of the I/Os completed in each bin with both
 *			     ends seen (as many as @heat_total's bin holds)
 * @busy_ns: summed time the layer's I/Os were in flight within each bin:
 *	     divided by the bin width, the average number in flight
 * @heat_total: C - Q at this layer, per operation, bin of completion and
 *		latency bucket
 * @heat_dev: at request-based layers, the device's time (D to C) of the
 *	      requests that were not split below, likewise
 * @points: a uniform sample (reservoir) of the I/Os, @npoints of them
 * @offered: I/Os the sample was drawn from
 */
struct series_layer {
	uint32_t dev;
	bool dev_seen;
	uint64_t ios[SERIES_DIRS][SERIES_BINS];
	uint64_t bytes[SERIES_DIRS][SERIES_BINS];
	uint64_t lat_sum_ns[SERIES_DIRS][SERIES_BINS];
	uint64_t lat_max_ns[SERIES_DIRS][SERIES_BINS];
	uint64_t busy_ns[SERIES_BINS];
	uint32_t heat_total[SERIES_DIRS][SERIES_BINS][SERIES_LAT_BUCKETS];
	uint32_t heat_dev[SERIES_DIRS][SERIES_BINS][SERIES_LAT_BUCKETS];
	struct series_point points[SERIES_POINTS];
	size_t npoints;
	uint64_t offered;
};

/**
 * struct series - every layer's series
 * @t0: start of bin 0 (the Q of the first completed tree, or the time
 *	given to series_start()); an earlier time counts in bin 0
 * @started: @t0 is set
 * @width_ns: the bin width now, 1 << @shift
 * @nbins: bins in use (the last one holding a value, plus one)
 * @layers: @nlayers of them, in order of first appearance
 * @rng: the sampling's generator state (fixed seed: reports repeat)
 */
struct series {
	uint64_t t0;
	bool started;
	uint64_t width_ns;
	unsigned int shift;
	size_t nbins;
	struct series_layer **layers;
	size_t nlayers;
	size_t cap;
	uint64_t rng;
};

/** series_init - empty series; bin 0 starts at the first I/O */
void series_init(struct series *s);

/** series_destroy - release the layers; a zeroed struct is accepted */
void series_destroy(struct series *s);

/**
 * series_start - start bin 0 at @ts (the trace's first event), before any
 * I/O is accounted; ignored after
 */
void series_start(struct series *s, uint64_t ts);

/**
 * series_io - account every record of a completed tree
 * Returns 0, or -ENOMEM (the tree is then partly counted).
 */
int series_io(struct series *s, const struct tk_io *io);

/** series_layer_of - the series of @dev, or NULL */
const struct series_layer *series_layer_of(const struct series *s, uint32_t dev);

/** series_lat_bucket - the latency bucket of @ns */
unsigned int series_lat_bucket(uint64_t ns);

/** series_lat_low_ns - the smallest latency of bucket @b, ns */
uint64_t series_lat_low_ns(unsigned int b);

/** series_dir_of - the operation of an enum blk_op */
enum series_dir series_dir_of(uint8_t blk_op);

/** series_dir_of_rec - the operation of a record: a flush (tk_rec_is_flush()) is a flush */
enum series_dir series_dir_of_rec(const struct tk_rec *r);

#endif /* BLKSTACK_SERIES_H */
