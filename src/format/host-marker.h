/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * host-marker.h - what blkstack record says of the machine it records, as
 * marker text.
 *
 * A recording is read elsewhere, later: on another kernel, whose release
 * and CONFIG_HZ are not the traced one's, and with only the trace clock,
 * which tells no date. "blkstack record" therefore writes one
 * "blkstack-host:" marker as tracing starts, with the kernel's release,
 * its CONFIG_HZ where this machine's configuration says it, and the
 * wall clock (CLOCK_REALTIME) read beside CLOCK_MONOTONIC, the clock of
 * its instance ("mono"):
 *
 *   blkstack-host: release=6.18.44 hz=250 realtime_ns=N mono_ns=N
 *
 * Words are KEY=VALUE, in any order; a key a reader does not know is
 * skipped, so that a later writer may add some.
 */
#ifndef BLKSTACK_HOST_MARKER_H
#define BLKSTACK_HOST_MARKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/tracehost.h"

/* What the host marker starts with. */
#define HOST_MARKER_PREFIX	"blkstack-host: "

/**
 * struct host_marker - the marker's content
 * @release: uname -r; "" when not said
 * @hz: CONFIG_HZ; 0 when not said
 * @has_clock: @realtime_ns and @mono_ns were read side by side
 * @realtime_ns: CLOCK_REALTIME, ns since the epoch
 * @mono_ns: CLOCK_MONOTONIC at the same moment, ns
 */
struct host_marker {
	char release[TRACE_HOST_RELEASE_MAX];
	unsigned int hz;
	bool has_clock;
	int64_t realtime_ns;
	uint64_t mono_ns;
};

/**
 * host_marker_format - the marker's whole text (prefix included) into @buf
 * Returns its length, or -ENAMETOOLONG when it does not fit @len.
 */
int host_marker_format(char *buf, size_t len, const struct host_marker *m);

/**
 * host_marker_parse - a marker's text after HOST_MARKER_PREFIX
 * @m: filled with what it says; the rest left unknown
 * Returns 0, or -EINVAL when a known key has a value that does not parse
 * (@m is then all unknown).
 */
int host_marker_parse(const char *text, size_t len, struct host_marker *m);

#endif /* BLKSTACK_HOST_MARKER_H */
