/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * monitor.h - the options of "blkstack monitor" (the per-layer statistics,
 * always on, for Prometheus): the parameters, the parser and the usage
 * text, next to the command that uses them. The parser does no I/O and no
 * privilege check (check_cli tests it).
 */
#ifndef BLKSTACK_CMD_MONITOR_H
#define BLKSTACK_CMD_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/* Where the endpoint listens unless --listen says otherwise: loopback only. */
#define MONITOR_DEFAULT_LISTEN "127.0.0.1:9581"
/* How often --textfile is rewritten unless --interval says otherwise. */
#define MONITOR_DEFAULT_INTERVAL_NS (15ULL * 1000000000ULL)

/* --max-cgroups unless given: cgroups counted apart before "other". */
#define MONITOR_DEFAULT_MAX_CGROUPS 16

/* Flight recorder defaults: what --record-window, --record-memory,
 * --record-gap and --record-keep say unless given. */
#define MONITOR_DEFAULT_RECORD_WINDOW_NS (30ULL * 1000000000ULL)
#define MONITOR_DEFAULT_RECORD_MEMORY_MB 64
#define MONITOR_DEFAULT_RECORD_GAP_NS (60ULL * 1000000000ULL)
#define MONITOR_DEFAULT_RECORD_KEEP 10

/**
 * struct monitor_record_params - the flight recorder (--record-*)
 * @on: some --record-on was given: the recorder runs
 * @on_latency: --record-on latency>TIME: a bio slower than @latency_ns
 *		(C - Q) at any layer
 * @on_p99: --record-on p99>TIME: the end-to-end p99 of an interval above
 *	    @p99_ns
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
	bool on_signal;
	bool on_http;
	const char *dir;
	uint64_t window_ns;
	unsigned long long memory_mb;
	uint64_t gap_ns;
	unsigned long long keep;
	bool set;
};

/**
 * struct monitor_params - blkstack monitor
 * @devs: -d: devices whose stacks to monitor (none: every device)
 * @ndevs: how many
 * @listen: --listen ADDR:PORT, NULL when not serving HTTP
 * @textfile: --textfile DIR, NULL when not writing DIR/blkstack.prom
 * @interval_ns: --interval: how often the textfile is written and the
 *		 device names are read again
 * @buffer_kb: -b
 * @max_inflight: --max-inflight, 0 for the default
 * @timeout_ns: --timeout, 0 for the default
 * @by_cgroup: --by cgroup: the layer and end-to-end series per cgroup
 * @max_cgroups: --max-cgroups: cgroups counted apart, the rest "other"
 * @rec: the flight recorder
 * @debug: -D
 */
struct monitor_params {
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	const char *listen;
	const char *textfile;
	uint64_t interval_ns;
	unsigned int buffer_kb;
	unsigned long long max_inflight;
	uint64_t timeout_ns;
	bool by_cgroup;
	unsigned long long max_cgroups;
	struct monitor_record_params rec;
	bool debug;
};

/** cli_parse_monitor - parse "blkstack monitor" arguments */
enum cli_result cli_parse_monitor(int argc, char **argv, struct monitor_params *p,
				  char *err, size_t errlen);

/** cli_usage_monitor - the usage text of "blkstack monitor" */
const char *cli_usage_monitor(void);

#endif /* BLKSTACK_CMD_MONITOR_H */
