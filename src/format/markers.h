/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * markers.h - the markers of a trace: the print events (writes to a
 * trace_marker) of ring-buffer pages, found page by page, and the
 * workload's among them kept in time order, blkstack's own
 * ("blkstack-...": the stack, file names, the host) left out.
 *
 * The same for a recording's pages (tracefile.c) and for live pages as they
 * are read (a live report's page), so that both show the same markers.
 */
#ifndef BLKSTACK_MARKERS_H
#define BLKSTACK_MARKERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/pagewalk.h"

struct tep_handle;

/**
 * struct tracefile_marker - a print event of the workload's (a write to
 * trace_marker), blkstack's own markers left out
 * @ts: when, ns of the trace clock
 * @text: what it said, without its trailing newline (cut at 200 bytes)
 */
struct tracefile_marker {
	uint64_t ts;
	char *text;
};

/**
 * struct markscan - what finds the print events of pages
 * (markscan_init() fills it)
 */
struct markscan {
	struct pagewalk w;
	uint32_t page_size;
	int id;			/* ftrace/print's event id */
	unsigned int buf;	/* its "buf" field's offset */
	bool swap;		/* the pages are not in the host's byte order */
};

/**
 * markscan_init - for the pages of @tep's trace: @long_size the kernel's
 * long (4 or 8), @big_endian their byte order, @page_size the sub-buffer size
 * Returns 0, or -ENOENT when @tep has no print event (no markers to find).
 */
int markscan_init(struct markscan *ms, struct tep_handle *tep, int long_size, bool big_endian,
		  uint32_t page_size);

/* Takes a marker's text (@len bytes, not terminated, no trailing newline) at @ts. */
typedef void (*markscan_fn)(void *ctx, uint64_t ts, const char *text, size_t len);

/** markscan_page - hand every print event of one sub-buffer to @fn, in its order */
void markscan_page(struct markscan *ms, const void *page, markscan_fn fn, void *ctx);

/* The workload's markers kept at most: a page marks phases, not every I/O. */
#define MARKERS_MAX	4096
/* and the text kept of each */
#define MARKERS_TEXT	200

/**
 * struct marker_set - the workload's markers, up to MARKERS_MAX
 * @marks: @n of them, in the order added (marker_set_sort() orders them)
 * @n: how many
 * @cap: room
 * @dropped: markers past MARKERS_MAX, not kept
 * @err: -ENOMEM when one could not be kept
 */
struct marker_set {
	struct tracefile_marker *marks;
	size_t n, cap, dropped;
	int err;
};

/** marker_set_add - keep a marker (a markscan_fn); blkstack's own are left out */
void marker_set_add(void *set, uint64_t ts, const char *text, size_t len);

/** marker_set_sort - in time order (pages of several CPUs come out of order) */
void marker_set_sort(struct marker_set *s);

/** marker_set_free - release the markers; a zeroed set is accepted */
void marker_set_free(struct marker_set *s);

#endif /* BLKSTACK_MARKERS_H */
