// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * series.c - per-layer series over time, in fixed memory.
 *
 * A value lands in the bin of its time; when a time falls past the last
 * bin, every series is coarsened (pairs of bins summed, width doubled)
 * until it fits. Coarsening is exact for counts and sums: a bin of width
 * 2w holds exactly what its two halves held. The in-flight figure is the
 * time each I/O spent in the layer, cut at bin boundaries, so that the
 * average number in flight of a bin is its busy time over its width
 * (Little's law per bin), and it too sums exactly when bins merge.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/event.h"
#include "track/series.h"

void series_init(struct series *s)
{
	memset(s, 0, sizeof(*s));
	s->shift = SERIES_FIRST_SHIFT;
	s->width_ns = 1ULL << s->shift;
	s->rng = 0x9e3779b97f4a7c15ULL;
}

void series_destroy(struct series *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nlayers; i++)
		free(s->layers[i]);
	free(s->layers);
	s->layers = NULL;
	s->nlayers = s->cap = 0;
}

void series_start(struct series *s, uint64_t ts)
{
	if (!s->started) {
		s->t0 = ts;
		s->started = true;
	}
}

unsigned int series_lat_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned int b = 0;

	while (us) {
		b++;
		us >>= 1;
	}
	return b < SERIES_LAT_BUCKETS ? b : SERIES_LAT_BUCKETS - 1;
}

uint64_t series_lat_low_ns(unsigned int b)
{
	return b ? (1ULL << (b - 1)) * 1000 : 0;
}

enum series_dir series_dir_of(uint8_t blk_op)
{
	switch (blk_op) {
	case BLK_OP_READ:
		return SERIES_READ;
	case BLK_OP_WRITE:
		return SERIES_WRITE;
	case BLK_OP_DISCARD:
	case BLK_OP_SECURE_ERASE:
		return SERIES_DISCARD;
	case BLK_OP_FLUSH:
		return SERIES_FLUSH;
	default:
		return SERIES_OTHER;
	}
}

enum series_dir series_dir_of_rec(const struct tk_rec *r)
{
	/* an empty preflush write is counted as a flush, as the statistics count it */
	return tk_rec_is_flush(r) ? SERIES_FLUSH : series_dir_of(r->op);
}

const struct series_layer *series_layer_of(const struct series *s, uint32_t dev)
{
	for (size_t i = 0; i < s->nlayers; i++)
		if (s->layers[i]->dev == dev)
			return s->layers[i];
	return NULL;
}

static struct series_layer *layer_get(struct series *s, uint32_t dev)
{
	struct series_layer *l = (struct series_layer *)series_layer_of(s, dev);

	if (l)
		return l;
	if (ARRAY_ROOM(s->layers, s->nlayers, s->cap, 8) < 0)
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->dev = dev;
	s->layers[s->nlayers++] = l;
	return l;
}

/* Halve the number of bins in use: bin i takes bins 2i and 2i+1. */
static void coarsen(struct series *s)
{
	for (size_t k = 0; k < s->nlayers; k++) {
		struct series_layer *l = s->layers[k];

		for (size_t i = 0; i < SERIES_BINS; i++) {
			size_t a = 2 * i, b = a + 1;
			bool in = a < SERIES_BINS;

			for (int d = 0; d < SERIES_DIRS; d++) {
				l->ios[d][i] = in ? l->ios[d][a] + (b < SERIES_BINS ? l->ios[d][b] : 0) : 0;
				l->bytes[d][i] = in ? l->bytes[d][a] +
						      (b < SERIES_BINS ? l->bytes[d][b] : 0) : 0;
				l->lat_sum_ns[d][i] = in ? l->lat_sum_ns[d][a] +
							   (b < SERIES_BINS ? l->lat_sum_ns[d][b] : 0)
							 : 0;
				l->lat_max_ns[d][i] = !in ? 0 : b < SERIES_BINS &&
						      l->lat_max_ns[d][b] > l->lat_max_ns[d][a] ?
						      l->lat_max_ns[d][b] : l->lat_max_ns[d][a];
				for (int j = 0; j < SERIES_LAT_BUCKETS; j++) {
					l->heat_total[d][i][j] = in ? l->heat_total[d][a][j] +
						(b < SERIES_BINS ? l->heat_total[d][b][j] : 0) : 0;
					l->heat_dev[d][i][j] = in ? l->heat_dev[d][a][j] +
						(b < SERIES_BINS ? l->heat_dev[d][b][j] : 0) : 0;
				}
			}
			l->busy_ns[i] = in ? l->busy_ns[a] + (b < SERIES_BINS ? l->busy_ns[b] : 0) : 0;
		}
	}
	s->shift++;
	s->width_ns = 1ULL << s->shift;
	s->nbins = (s->nbins + 1) / 2;
}

/* The bin of @ts, coarsening until it fits. */
static size_t bin_of(struct series *s, uint64_t ts)
{
	uint64_t idx;

	if (ts <= s->t0)
		return 0;
	while ((idx = (ts - s->t0) >> s->shift) >= SERIES_BINS)
		coarsen(s);
	if (idx + 1 > s->nbins)
		s->nbins = idx + 1;
	return idx;
}

/* Spread [a, b) over the bins it overlaps, as busy time. */
static void add_busy(struct series *s, struct series_layer *l, uint64_t a, uint64_t b)
{
	size_t first, last;

	if (a < s->t0)
		a = s->t0;
	if (b <= a)
		return;
	/* the end first: it may coarsen, which moves the start's bin too */
	last = bin_of(s, b - 1);
	first = bin_of(s, a);
	for (size_t i = first; i <= last; i++) {
		uint64_t lo = s->t0 + i * s->width_ns, hi = lo + s->width_ns;

		l->busy_ns[i] += (b < hi ? b : hi) - (a > lo ? a : lo);
	}
}

/* xorshift64: a fixed sequence, so that two reports of one trace sample alike */
static uint64_t next_rand(struct series *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

static void sample(struct series *s, struct series_layer *l, const struct tk_rec *r)
{
	struct series_point p = {
		.ts = tk_rec_q(r), .sector = r->sector, .sectors = r->sectors,
		.dir = series_dir_of_rec(r),
	};
	uint64_t j;

	l->offered++;
	if (l->npoints < SERIES_POINTS) {
		l->points[l->npoints++] = p;
		return;
	}
	/* reservoir: the k-th I/O replaces a kept one with probability N/k */
	/* a multiply-shift draw in [0, offered): no division on this path */
	j = l->offered < (1ULL << 32) ? ((next_rand(s) >> 32) * l->offered) >> 32
				      : next_rand(s) % l->offered;
	if (j < SERIES_POINTS)
		l->points[j] = p;
}

int series_io(struct series *s, const struct tk_io *io)
{
	if (!io->nrecs)
		return 0;
	if (!s->started) {
		s->t0 = io->root->q ? io->root->q : io->root->c;
		s->started = true;
	}
	for (size_t i = 0; i < io->nrecs; i++) {
		const struct tk_rec *r = &io->recs[i];
		struct series_layer *l = layer_get(s, r->dev);
		enum series_dir dir = series_dir_of_rec(r);
		uint64_t q = tk_rec_q(r);
		bool leaf = true;
		size_t bin;

		if (!l)
			return -ENOMEM;
		if (!r->c)
			continue;
		bin = bin_of(s, r->c);
		l->ios[dir][bin]++;
		l->bytes[dir][bin] += (uint64_t)r->sectors << 9;
		/* from the layer's Q, as its total (C - Q) */
		if (!q || r->c < q)
			continue;
		/* a remap may coarsen: the completion's bin is taken again after it */
		add_busy(s, l, q, r->c);
		bin = bin_of(s, r->c);
		l->heat_total[dir][bin][series_lat_bucket(r->c - q)]++;
		l->lat_sum_ns[dir][bin] += r->c - q;
		if (r->c - q > l->lat_max_ns[dir][bin])
			l->lat_max_ns[dir][bin] = r->c - q;
		if (r->op != BLK_OP_FLUSH || r->sectors)
			sample(s, l, r);
		for (size_t j = i + 1; j < io->nrecs; j++)
			if (io->recs[j].parent == (int32_t)i) {
				leaf = false;
				break;
			}
		/* a bio-based layer where a path ends is no device: its time is C - Q's */
		if (!leaf || r->kind != TK_LAYER_REQUEST || !r->d || r->c < r->d)
			continue;
		l->heat_dev[dir][bin][series_lat_bucket(r->c - r->d)]++;
		l->dev_seen = true;
	}
	return 0;
}
