// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flight.c - the flight recorder's page ring.
 *
 * The memory is allocated once: slots of one page each, per CPU, used as a
 * circle (@head is the oldest kept page, @n how many). Expiry by age looks
 * at the successor of the oldest page: a page's events run until the next
 * page of its CPU starts, so a page is only wholly out of the window when
 * its successor started at or before the window's start. The newest page is never
 * dropped by age: its end is unknown.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture/flight.h"

struct flight_cpu {
	unsigned char *pages;	/* slots * page_size */
	uint64_t *ts;		/* each slot's page timestamp */
	size_t head;		/* the oldest page kept */
	size_t n;		/* pages kept */
};

struct flight {
	int ncpu;
	size_t page_size;
	size_t slots;		/* per CPU */
	uint64_t window_ns;
	uint64_t dropped;
	struct flight_cpu *cpu;
};

struct flight *flight_alloc(int ncpu, size_t page_size, size_t max_bytes, uint64_t window_ns)
{
	struct flight *f;

	if (ncpu <= 0 || page_size < 16) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->ncpu = ncpu;
	f->page_size = page_size;
	f->window_ns = window_ns;
	f->slots = max_bytes / page_size / ncpu;
	if (f->slots < 2)
		f->slots = 2;
	f->cpu = calloc(ncpu, sizeof(*f->cpu));
	if (!f->cpu)
		goto fail;
	for (int c = 0; c < ncpu; c++) {
		f->cpu[c].pages = malloc(f->slots * page_size);
		f->cpu[c].ts = calloc(f->slots, sizeof(uint64_t));
		if (!f->cpu[c].pages || !f->cpu[c].ts)
			goto fail;
	}
	return f;
fail:
	flight_free(f);
	errno = ENOMEM;
	return NULL;
}

void flight_free(struct flight *f)
{
	if (!f)
		return;
	for (int c = 0; f->cpu && c < f->ncpu; c++) {
		free(f->cpu[c].pages);
		free(f->cpu[c].ts);
	}
	free(f->cpu);
	free(f);
}

/* Forget the pages wholly before @now - window (see the top comment). */
static void expire(struct flight *f, struct flight_cpu *fc, uint64_t now)
{
	uint64_t cutoff = now > f->window_ns ? now - f->window_ns : 0;

	while (fc->n > 1 && fc->ts[(fc->head + 1) % f->slots] <= cutoff) {
		fc->head = (fc->head + 1) % f->slots;
		fc->n--;
	}
}

int flight_add(struct flight *f, int cpu, const void *page, size_t size, uint64_t now)
{
	struct flight_cpu *fc;
	unsigned char *slot;
	size_t at;

	if (cpu < 0 || cpu >= f->ncpu || size < 8 || size > f->page_size)
		return -EINVAL;
	fc = &f->cpu[cpu];
	if (fc->n == f->slots) {
		/* full: the oldest page makes room, whatever its age */
		fc->head = (fc->head + 1) % f->slots;
		fc->n--;
		f->dropped++;
	}
	at = (fc->head + fc->n) % f->slots;
	slot = fc->pages + at * f->page_size;
	memcpy(slot, page, size);
	if (size < f->page_size)
		memset(slot + size, 0, f->page_size - size);
	memcpy(&fc->ts[at], page, sizeof(uint64_t));
	fc->n++;
	expire(f, fc, now);
	return 0;
}

int flight_spill(struct flight *f, int cpu, uint64_t now, FILE *out, uint64_t *bytes)
{
	struct flight_cpu *fc;

	*bytes = 0;
	if (cpu < 0 || cpu >= f->ncpu)
		return -EINVAL;
	fc = &f->cpu[cpu];
	expire(f, fc, now);
	for (size_t i = 0; i < fc->n; i++) {
		size_t at = (fc->head + i) % f->slots;

		if (fwrite(fc->pages + at * f->page_size, 1, f->page_size, out) != f->page_size)
			return errno ? -errno : -EIO;
		*bytes += f->page_size;
	}
	return 0;
}

size_t flight_pages(const struct flight *f, int cpu, uint64_t *oldest_ts)
{
	const struct flight_cpu *fc;

	if (cpu < 0 || cpu >= f->ncpu)
		return 0;
	fc = &f->cpu[cpu];
	if (oldest_ts)
		*oldest_ts = fc->n ? fc->ts[fc->head] : 0;
	return fc->n;
}

uint64_t flight_dropped(const struct flight *f)
{
	return f->dropped;
}

size_t flight_bytes(const struct flight *f)
{
	return f->slots * f->page_size * f->ncpu;
}
