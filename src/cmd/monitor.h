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

#include "cmd/monitor-record.h"
#include "cmd/opt.h"

/* Where the endpoint listens unless --listen says otherwise: loopback only. */
#define MONITOR_DEFAULT_LISTEN "127.0.0.1:9581"
/* How often --textfile is rewritten unless --interval says otherwise. */
#define MONITOR_DEFAULT_INTERVAL_NS (15ULL * 1000000000ULL)

/* --max-cgroups unless given: cgroups counted apart before "other". */
#define MONITOR_DEFAULT_MAX_CGROUPS 16

/**
 * struct monitor_params - blkstack monitor
 * @devs: -d: devices whose stacks to monitor (none: every device)
 * @ndevs: how many
 * @listen: --listen ADDR:PORT, NULL when not serving HTTP
 * @web_config: --web-config FILE: TLS and users of the endpoint, or NULL
 * @record_without_auth: --record-without-auth: POST /record from anyone
 *			 on a listener that is not loopback, with no users
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
	const char *web_config;
	bool record_without_auth;
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
