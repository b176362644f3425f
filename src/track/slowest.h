/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slowest.h - the N slowest top-level I/Os of a trace, each kept whole
 * (every layer's record), in memory bounded by N whatever the trace length.
 */
#ifndef BLKSTACK_SLOWEST_H
#define BLKSTACK_SLOWEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "track/tracker.h"

/**
 * struct slow_io - one kept I/O
 * @lat: end-to-end latency, root C - root Q, ns
 * @id: its number (struct tk_io)
 * @pid, @comm: the originator
 * @owner: what the page-cache attribution said it belongs to (an owner of
 *	   pagecache_io()), or @SLOWEST_NO_OWNER
 * @reach, @end_dev: how far it was followed, and where it ended (struct tk_io)
 * @matched: followed through every layer
 * @recs: its records, root first, as the tracker gave them; @nrecs of them
 */
struct slow_io {
	uint64_t lat;
	uint64_t id;
	int32_t pid;
	char comm[16];
	int32_t owner;
	uint8_t reach;
	uint32_t end_dev;
	bool matched;
	struct tk_rec *recs;
	size_t nrecs;
	size_t recs_cap;
};

#define SLOWEST_NO_OWNER INT32_MIN

struct slowest;

/**
 * slowest_alloc - keep the @n slowest top-level I/Os
 * Returns the set, or NULL with errno set (EINVAL for @n == 0).
 */
struct slowest *slowest_alloc(size_t n);

/** slowest_free - NULL is accepted */
void slowest_free(struct slowest *s);

/**
 * slowest_io - offer a completed tree; only top-level I/O whose root was
 * queued and completed in order is considered
 * @owner: the page-cache owner of the tree, or SLOWEST_NO_OWNER
 *
 * Ties on latency keep the I/O queued first, then the one that began
 * first (the lower number): the result does not depend on the order of
 * offers. Returns 0, or -ENOMEM (the set is unchanged).
 */
int slowest_io(struct slowest *s, const struct tk_io *io, int32_t owner);

/**
 * slowest_sorted - the kept I/Os, slowest first (ties: queued first, then
 * begun first); the set is reordered in place and stays usable
 * @n: set to how many there are (at most the @n of slowest_alloc())
 */
const struct slow_io *slowest_sorted(struct slowest *s, size_t *n);

/** slowest_offered - top-level I/Os offered and considered so far */
uint64_t slowest_offered(const struct slowest *s);

#endif /* BLKSTACK_SLOWEST_H */
