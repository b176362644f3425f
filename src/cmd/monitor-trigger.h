/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * monitor-trigger.h - the conditions of --record-on that the I/O itself
 * meets: a bio slower than latency>TIME at any layer, and an interval
 * whose p99 is above p99>TIME end to end or above p99>TIME@DEV at one
 * layer. Pure logic over completed trees, its devices resolved by the
 * caller (check_mtrigger tests it); the recorder (monitor-record) parses
 * them and acts on the reasons given here.
 */
#ifndef BLKSTACK_CMD_MONITOR_TRIGGER_H
#define BLKSTACK_CMD_MONITOR_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "track/hist.h"
#include "track/tracker.h"

/**
 * struct mtrig_layer - one p99>TIME@DEV
 * @dev: DEV, resolved
 * @name: its name, for the reason
 * @p99_ns: TIME
 * @iv: the stage total (C - Q) of DEV's bios completed in this interval
 */
struct mtrig_layer {
	uint32_t dev;
	char name[64];
	uint64_t p99_ns;
	struct hist iv;
};

/**
 * struct mtrig - the conditions and this interval's latencies
 * @latency_ns: latency>TIME, 0 when not asked
 * @p99_ns: p99>TIME, 0 when not asked
 * @e2e: the end-to-end latencies of this interval's top-level I/O (p99>)
 * @layers: the p99>TIME@DEV, @nlayers of them
 */
struct mtrig {
	uint64_t latency_ns;
	uint64_t p99_ns;
	struct hist e2e;
	struct mtrig_layer *layers;
	size_t nlayers;
};

/**
 * mtrig_init - the conditions: @latency_ns and @p99_ns (0 for none), and
 * room for @nlayers p99>TIME@DEV whose @dev, @name and @p99_ns the caller
 * fills
 * Returns 0, or -ENOMEM.
 */
int mtrig_init(struct mtrig *t, uint64_t latency_ns, uint64_t p99_ns, size_t nlayers);

/**
 * mtrig_io - a completed tree: counted for the p99s, and when @reason is
 * empty and a bio of it is slower than latency>TIME, that is said in it
 * Returns whether @reason was written.
 */
bool mtrig_io(struct mtrig *t, const struct tk_io *io, char *reason, size_t len);

/**
 * mtrig_interval - an interval ended: when @reason is empty and a p99 is
 * above its bound (end to end first, then the layers in order), that is
 * said in it; every p99 starts afresh
 * Returns whether @reason was written.
 */
bool mtrig_interval(struct mtrig *t, char *reason, size_t len);

/** mtrig_free - release @t; a zeroed one is accepted */
void mtrig_free(struct mtrig *t);

#endif /* BLKSTACK_CMD_MONITOR_TRIGGER_H */
