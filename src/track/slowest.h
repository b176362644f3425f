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
 * struct slow_caused - an I/O a layer issued on behalf of a kept one (a
 * read-modify-write read, a parity write, a copy-on-write copy, a flush),
 * or on behalf of such an I/O
 * @id, @cause, @cls, @issuer: as struct tk_io gives them (@cause: the I/O
 *			       it served directly)
 * @recs: its records, root first; @nrecs of them
 */
struct slow_caused {
	uint64_t id;
	uint64_t cause;
	uint8_t cls;
	uint32_t issuer;
	struct tk_rec *recs;
	size_t nrecs;
};

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
 * @caused: the I/Os issued on its behalf that completed before it or
 *	    while it was kept, in order of completion; @ncaused of them
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
	struct slow_caused *caused;
	size_t ncaused;
};

#define SLOWEST_NO_OWNER INT32_MIN

/*
 * Caused I/Os waiting for the I/O they served to complete, at most: the
 * oldest is let go past it (slowest_caused_dropped() counts them).
 */
#define SLOWEST_MAX_PENDING 65536

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
 * queued and completed in order is considered. A tree issued on behalf of
 * another (a cause, struct tk_io) is kept until that one completes, then
 * given to it if it is kept, directly or through a chain of causes.
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

/**
 * slowest_caused_dropped - caused I/Os let go while their cause was in
 * flight, past SLOWEST_MAX_PENDING waiting
 */
uint64_t slowest_caused_dropped(const struct slowest *s);

#endif /* BLKSTACK_SLOWEST_H */
