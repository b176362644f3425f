/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * amp.h - amplification per layer: the I/Os and bytes each layer of the
 * stack moved for the top-level I/O it served (split pieces, mirror legs,
 * parity, copies) and for I/O it issued itself (metadata, zeroing, the
 * discards a pool passes down), against the top-level I/O's own.
 *
 * A consumer of the tracker's completed trees (a tk_io_fn), beside the
 * statistics: a tree rooted at top-level I/O serves it at every layer it
 * reaches; a tree a layer issued is that layer's own, at every layer below.
 */
#ifndef BLKSTACK_AMP_H
#define BLKSTACK_AMP_H

#include <stddef.h>
#include <stdint.h>

#include "track/tracker.h"

/**
 * struct amp_layer - one layer
 * @dev: the device
 * @kind: enum tk_layer_kind, as last seen
 * @serve_ios, @serve_bytes: bios and bytes of trees of top-level I/O
 * @own_ios, @own_bytes: bios and bytes of trees a layer issued itself
 */
struct amp_layer {
	uint32_t dev;
	uint8_t kind;
	uint64_t serve_ios, serve_bytes;
	uint64_t own_ios, own_bytes;
};

/**
 * struct amp - every layer, and the top-level I/O
 * @layers: @nlayers of them, in order of first appearance
 * @top_ios, @top_bytes: top-level I/Os completed and their bytes
 */
struct amp {
	struct amp_layer *layers;
	size_t nlayers, cap;
	uint64_t top_ios, top_bytes;
};

/** amp_init - empty */
void amp_init(struct amp *a);

/** amp_destroy - release; the accounting is empty afterwards */
void amp_destroy(struct amp *a);

/** amp_io - account one completed tree (a tk_io_fn: @ctx is the struct amp) */
void amp_io(const struct tk_io *io, void *ctx);

/**
 * amp_bytes - a layer's bytes per byte of top-level I/O (served and own
 * together); 0 when no top-level I/O completed
 */
double amp_bytes(const struct amp *a, const struct amp_layer *l);

/** amp_ios - a layer's bios per top-level I/O; 0 when none completed */
double amp_ios(const struct amp *a, const struct amp_layer *l);

#endif /* BLKSTACK_AMP_H */
