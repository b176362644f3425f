/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * host.h - this machine as the host of a live trace, and what "blkstack
 * record" writes of it into a recording: the kernel's release, its
 * CONFIG_HZ and the wall clock of the trace clock (base/tracehost.h).
 */
#ifndef BLKSTACK_CMD_HOST_H
#define BLKSTACK_CMD_HOST_H

#include "base/tracehost.h"
#include "format/host-marker.h"

/**
 * host_live - this machine, for a live trace: its release, CONFIG_HZ (0
 * when unreadable) and the wall clock of the live trace clock
 * (CLOCK_MONOTONIC, capture/session.c), read side by side
 */
void host_live(struct trace_host *h);

/**
 * host_marker_now - what "blkstack record" says of this machine as it
 * starts: release, CONFIG_HZ, and CLOCK_REALTIME read beside CLOCK_MONOTONIC
 */
void host_marker_now(struct host_marker *m);

#endif /* BLKSTACK_CMD_HOST_H */
