/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perfetto.h - completed I/Os as Chrome trace-event JSON, which
 * ui.perfetto.dev and chrome://tracing open: a track per device, a slice
 * per I/O per layer with its phases nested inside, and an arrow from each
 * layer's slice to the slices of the layers below it, so that one slow I/O
 * can be followed down the stack.
 */
#ifndef BLKSTACK_OUT_PERFETTO_H
#define BLKSTACK_OUT_PERFETTO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "track/topo-record.h"
#include "track/tracker.h"

/* The name of a device into @buf, or NULL when unknown (then MAJ:MIN). */
typedef const char *(*perfetto_name_fn)(uint32_t dev, char *buf, size_t len, void *ctx);

struct perfetto_out;

/**
 * struct perfetto_stats - what was written
 * @ios: I/Os (trees) written
 * @slices: layer slices (one per I/O per layer)
 * @phases: phase slices nested in them
 * @flows: arrows between layers
 * @no_span: layers of written I/Os without both their entry and their
 *	     completion, so without a slice
 * @devices: device tracks
 */
struct perfetto_stats {
	uint64_t ios;
	uint64_t slices;
	uint64_t phases;
	uint64_t flows;
	uint64_t no_span;
	uint64_t devices;
};

/**
 * perfetto_out_alloc - a writer to @fp; it writes the opening of the
 * document at once
 * @name: device names, or NULL
 * Returns the writer, or NULL with errno set.
 */
struct perfetto_out *perfetto_out_alloc(FILE *fp, perfetto_name_fn name, void *name_ctx);

/**
 * perfetto_out_stack - the recorded stack of the devices, or NULL: a
 * device that no layer above sent I/O to is placed under its holder there
 * (dm-thin's metadata disk under its pool), as the report places it
 */
void perfetto_out_stack(struct perfetto_out *o, const struct topo_record *stack);

/**
 * perfetto_out_base - the time shown as 0: the trace's first event (times
 * in the file are relative to it, in microseconds with nanosecond digits;
 * the absolute value is kept in the document's "otherData")
 */
void perfetto_out_base(struct perfetto_out *o, uint64_t ts);

/** perfetto_out_io - write the slices of a completed tree (a tk_io_fn) */
void perfetto_out_io(const struct tk_io *io, void *ctx);

/**
 * perfetto_out_io_file - perfetto_out_io() of a tree whose owner the
 * page-cache attribution knows: each slice's args get "file" (see struct row)
 */
void perfetto_out_io_file(struct perfetto_out *o, const struct tk_io *io, const char *file);

/**
 * perfetto_out_finish - close the document and flush
 * Returns 0, or the first negative errno a write returned.
 */
int perfetto_out_finish(struct perfetto_out *o);

/** perfetto_out_error - the first write error so far, or 0 */
int perfetto_out_error(const struct perfetto_out *o);

/** perfetto_out_stats - what was written so far */
const struct perfetto_stats *perfetto_out_stats(const struct perfetto_out *o);

/** perfetto_out_free - NULL is accepted (does not close @fp) */
void perfetto_out_free(struct perfetto_out *o);

#endif /* BLKSTACK_OUT_PERFETTO_H */
