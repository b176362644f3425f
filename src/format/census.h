/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * census.h - what a trace.dat holds, counted per event type, for telling a
 * user whose recording has no block event what it has instead.
 */
#ifndef BLKSTACK_CENSUS_H
#define BLKSTACK_CENSUS_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct census_row - the records of one event type
 * @name: "system:event" ("sched:sched_switch"), or "#ID" when the file
 *	  has no format of that ID
 * @count: its records
 */
struct census_row {
	char name[160];
	uint64_t count;
};

/**
 * census_of_file - count the records of a trace.dat per event type
 * @path: the file (version 6, or 7 compressed with zstd or zlib)
 * @rows: set to the types seen, the most records first (free() it)
 * @n: set to how many
 *
 * Every page of every CPU of every buffer is walked, to the end of what a
 * truncated file holds or to the first damaged chunk.
 *
 * Returns 0; -ENOTSUP for a file of another kind (libtracecmd reads it);
 * -EINVAL when it is not a readable trace.dat; -ENOMEM; -errno of open().
 */
int census_of_file(const char *path, struct census_row **rows, size_t *n);

#endif /* BLKSTACK_CENSUS_H */
