/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flight.h - the flight recorder's page ring: the last seconds of raw
 * ring-buffer pages of every CPU, in memory allocated once and never grown,
 * so that a trace.dat of the moment something went wrong can be written
 * after the fact.
 *
 * Each CPU has a fixed number of page slots. A new page takes the oldest
 * slot when all are full; pages older than the window are forgotten. Pure
 * logic: the caller copies pages in and spills them out.
 */
#ifndef BLKSTACK_FLIGHT_H
#define BLKSTACK_FLIGHT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct flight;

/**
 * flight_alloc - a ring for @ncpu CPUs of pages of @page_size bytes
 * @max_bytes: memory for pages, all CPUs together (at least 2 pages per CPU
 *	       are kept whatever it says)
 * @window_ns: how far back pages are kept
 * Returns the ring, or NULL with errno set.
 */
struct flight *flight_alloc(int ncpu, size_t page_size, size_t max_bytes, uint64_t window_ns);

/** flight_free - NULL is accepted */
void flight_free(struct flight *f);

/**
 * flight_add - keep a copy of one page of @cpu
 * @page: the sub-buffer; its first 8 bytes are its timestamp (of the
 *	  trace clock, as the kernel's page header has it)
 * @size: its size, at most the ring's page size (the rest is zeroed)
 * @now: the trace clock now: pages whose successor started before
 *	 @now - window are dropped
 * Returns 0, or -EINVAL for a bad @cpu or @size.
 */
int flight_add(struct flight *f, int cpu, const void *page, size_t size, uint64_t now);

/**
 * flight_spill - write @cpu's pages in the window, oldest first, to @out
 * @now: as for flight_add()
 * @bytes: set to the bytes written
 * Returns 0 or a negative errno.
 */
int flight_spill(struct flight *f, int cpu, uint64_t now, FILE *out, uint64_t *bytes);

/**
 * flight_pages - pages of @cpu kept now, and the timestamp of the oldest
 * (for tests and the messages)
 */
size_t flight_pages(const struct flight *f, int cpu, uint64_t *oldest_ts);

/** flight_dropped - pages dropped because the memory was full (not by age) */
uint64_t flight_dropped(const struct flight *f);

/** flight_bytes - the memory the pages take, fixed at flight_alloc() */
size_t flight_bytes(const struct flight *f);

#endif /* BLKSTACK_FLIGHT_H */
