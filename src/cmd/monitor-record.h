/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * monitor-record.h - the flight recorder of blkstack monitor: the last
 * seconds of raw pages kept in a fixed ring (capture/flight), the
 * conditions that trigger a recording, and the trace.dat written then, as
 * blkstack record writes one, with the stack inside. Command glue: it
 * prints what it wrote and why.
 */
#ifndef BLKSTACK_CMD_MONITOR_RECORD_H
#define BLKSTACK_CMD_MONITOR_RECORD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/live.h"
#include "cmd/opt.h"
#include "track/tracker.h"

/* Flight recorder defaults: what --record-window, --record-memory,
 * --record-gap and --record-keep say unless given. */
#define MONITOR_DEFAULT_RECORD_WINDOW_NS (30ULL * 1000000000ULL)
#define MONITOR_DEFAULT_RECORD_MEMORY_MB 64
#define MONITOR_DEFAULT_RECORD_GAP_NS (60ULL * 1000000000ULL)
#define MONITOR_DEFAULT_RECORD_KEEP 10

/* p99>TIME@DEV conditions at most (one per traceable device is plenty). */
#define MONITOR_MAX_RECORD_LAYERS CLI_MAX_DEVS

/**
 * struct monitor_record_layer - one --record-on p99>TIME@DEV
 * @cond: the condition as given, for messages
 * @dev: DEV, named as -d names a device (resolved when the monitor starts)
 * @p99_ns: TIME
 */
struct monitor_record_layer {
	const char *cond;
	const char *dev;
	uint64_t p99_ns;
};

/**
 * struct monitor_record_params - the flight recorder (--record-*)
 * @on: some --record-on was given: the recorder runs
 * @on_latency: --record-on latency>TIME: a bio slower than @latency_ns
 *		(C - Q) at any layer
 * @on_p99: --record-on p99>TIME: the end-to-end p99 of an interval above
 *	    @p99_ns
 * @layers: --record-on p99>TIME@DEV: the p99 of DEV's bios (stage total,
 *	    C - Q) in an interval above TIME, @nlayers of them
 * @on_signal: --record-on signal: SIGUSR1
 * @on_http: --record-on http: POST /record on the --listen endpoint
 * @dir: --record-dir: where recordings go
 * @window_ns: --record-window: how many seconds of pages are kept
 * @memory_mb: --record-memory: the memory for them (MiB, all CPUs)
 * @gap_ns: --record-gap: the least time between two recordings
 * @keep: --record-keep: recordings kept in @dir at most (oldest removed)
 * @set: a --record-* option other than --record-on was given
 */
struct monitor_record_params {
	bool on;
	bool on_latency;
	uint64_t latency_ns;
	bool on_p99;
	uint64_t p99_ns;
	struct monitor_record_layer layers[MONITOR_MAX_RECORD_LAYERS];
	size_t nlayers;
	bool on_signal;
	bool on_http;
	const char *dir;
	uint64_t window_ns;
	unsigned long long memory_mb;
	uint64_t gap_ns;
	unsigned long long keep;
	bool set;
};

/* The getopt values of the --record-* options, in monitor.c's option table. */
enum {
	MREC_OPT_ON = CHAR_MAX + 64,
	MREC_OPT_DIR,
	MREC_OPT_WINDOW,
	MREC_OPT_MEMORY,
	MREC_OPT_GAP,
	MREC_OPT_KEEP,
};

/**
 * monitor_record_option - one --record-* option's value into @r
 * @opt: its MREC_OPT_* value
 * Returns CLI_RUN, or CLI_USAGE_ERROR with the message in @err.
 */
enum cli_result monitor_record_option(int opt, const char *arg, struct monitor_record_params *r,
				      char *err, size_t errlen);

struct mrec;

/**
 * mrec_open - set up the recorder on @l (opened, not started): the devices
 * of p99>TIME@DEV (each must be traced), the ring, the formats of this
 * kernel, the page tap, SIGUSR1 when asked
 * Returns the recorder, or NULL after printing what failed.
 */
struct mrec *mrec_open(const struct monitor_record_params *p, struct live *l);

/** mrec_io - look at a completed tree: latency>TIME triggers, the p99s count it */
void mrec_io(struct mrec *r, const struct tk_io *io);

/** mrec_interval - an interval ended: the p99 conditions are checked and start afresh */
void mrec_interval(struct mrec *r);

/**
 * mrec_pass - after a read pass: take the triggers (and @http_requests, the
 * POST /record count so far) and write a recording when one is due
 */
void mrec_pass(struct mrec *r, uint64_t http_requests);

/** mrec_count - recordings written */
uint64_t mrec_count(const struct mrec *r);

/** mrec_close - NULL is accepted */
void mrec_close(struct mrec *r);

#endif /* BLKSTACK_CMD_MONITOR_RECORD_H */
