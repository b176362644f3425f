/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * access.h - per layer, the access pattern (seek distances, share of
 * sequential I/O, the entropy of the distances) per direction, and the
 * number of I/Os in flight over time (average, maximum, average found by
 * each arrival: btt's "Active Requests At Q"), from the tracker's completed
 * trees.
 *
 * Both need each layer's I/Os in the order they entered it, and the trees
 * come out in the order they completed. So each record's entry (Q) and exit
 * (C) wait in a heap until no tree still in flight can bring an earlier
 * one: the caller gives that horizon (tracker_oldest_q()), and events before
 * it are taken in time order. The heap is bounded (ACCESS_MAX_PENDING): past
 * it, the oldest events are taken anyway, and counted as forced.
 */
#ifndef BLKSTACK_ACCESS_H
#define BLKSTACK_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "track/hist.h"
#include "track/inflight.h"
#include "track/seek.h"
#include "track/tracker.h"

/* Directions of the access pattern: btt's seek tables mix them, a stream does not. */
enum access_dir {
	ACCESS_READ = 0,
	ACCESS_WRITE,
	ACCESS_DIRS
};

/* Events waiting for the horizon at most (32 bytes each). */
#define ACCESS_MAX_PENDING (1U << 18)

/**
 * struct access_layer - one device
 * @dev: the device
 * @seek: per direction, the seek distances of its I/Os in the order they
 *	  entered the layer (btt's rule, see seek.h)
 * @dist: per direction, the absolute distances but the first (which btt
 *	  measures from sector 0), for the entropy
 * @inflight: its I/Os between Q and C at this layer; arrivals sampled
 * @mark_seeks, @mark_seq: per direction, @seek's nseeks and nseq at the
 *			   last access_mark() (interval views)
 */
struct access_layer {
	uint32_t dev;
	struct seek seek[ACCESS_DIRS];
	struct hist dist[ACCESS_DIRS];
	struct inflight inflight;
	uint64_t mark_seeks[ACCESS_DIRS];
	uint64_t mark_seq[ACCESS_DIRS];
};

struct access_ev;

/**
 * struct access - every layer's
 * @layers: @nlayers of them, in order of first appearance
 * @heap: events waiting for the horizon, @npending of them
 * @done_ts: the time of the last event taken
 * @late: events that came before @done_ts (taken at once: a tree that
 *	  the horizon did not cover)
 * @forced: events taken before the horizon passed them (the heap was full)
 * @first_ts, @last_ts: the first and last event taken
 */
struct access {
	struct access_layer **layers;
	size_t nlayers, cap;
	struct access_ev *heap;
	size_t npending, heap_cap;
	uint64_t seq;
	uint64_t done_ts;
	uint64_t late;
	uint64_t forced;
	uint64_t first_ts, last_ts;
};

/** access_init - nothing seen yet */
void access_init(struct access *a);

/** access_destroy - release everything; a zeroed struct is accepted */
void access_destroy(struct access *a);

/**
 * access_io - take the records of a completed tree (queued until the horizon)
 * Returns 0, or -ENOMEM (the tree is then partly taken).
 */
int access_io(struct access *a, const struct tk_io *io);

/**
 * access_release - take, in time order, every waiting event before @horizon
 * (no tree in flight has a record that entered a layer before it)
 */
void access_release(struct access *a, uint64_t horizon);

/** access_finish - the trace ended: take every waiting event */
void access_finish(struct access *a);

/** access_mark - remember every stream's counts: an interval starts */
void access_mark(struct access *a);

/**
 * access_seq_since_mark - the share (0 to 1) of sequential I/O of @dir at
 * @l among those taken since the last access_mark()
 * @n: set to how many were taken
 */
double access_seq_since_mark(const struct access_layer *l, enum access_dir dir, uint64_t *n);

/** access_layer_of - the layer of @dev, or NULL */
const struct access_layer *access_layer_of(const struct access *a, uint32_t dev);

/**
 * access_entropy - the Shannon entropy, in bits, of the distribution of the
 * absolute seek distances (log-linear buckets of hist.h): 0 when every I/O
 * followed the one before at the same distance (a sequential stream), more
 * the more scattered the distances are
 */
double access_entropy(const struct hist *dist);

#endif /* BLKSTACK_ACCESS_H */
