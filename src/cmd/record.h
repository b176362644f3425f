/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.h - the options of "blkstack record" (the events of a stack into a
 * trace.dat): the parameters, the parser and the usage text, next to the
 * command that uses them. The parser does no I/O and no privilege check
 * (check_cli tests it).
 */
#ifndef BLKSTACK_CMD_RECORD_H
#define BLKSTACK_CMD_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/**
 * struct record_params - blkstack record
 * @devs: -d: devices whose stacks to record (none: every device)
 * @ndevs: how many
 * @duration_ns: -w, when @has_duration
 * @command: the COMMAND ARGS after "--" (NULL-terminated), NULL if none
 * @output: -o file (default "trace.dat")
 * @buffer_kb: -b
 * @jobs: -j, threads reading the per-CPU buffers (0: one per CPU)
 * @page_cache: --page-cache: the page-cache events too, and the names of
 *		the files they touched
 * @resolve: --resolve-paths (CLI_RESOLVE_DEFAULT: proc)
 * @debug: -D
 */
struct record_params {
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	uint64_t duration_ns;
	bool has_duration;
	char **command;
	const char *output;
	unsigned int buffer_kb;
	int jobs;
	bool page_cache;
	int resolve;
	bool debug;
};

/** cli_parse_record - parse "blkstack record" arguments */
enum cli_result cli_parse_record(int argc, char **argv, struct record_params *p,
				 char *err, size_t errlen);

/** cli_usage_record - the usage text of "blkstack record" */
const char *cli_usage_record(void);

struct live;
struct host_marker;

/**
 * record_topology_markers - write the traced stack into @l's own buffer as
 * "blkstack-topology: " markers (print events), which a recording of the
 * buffer carries to wherever it is read (blkstack monitor's flight
 * recordings use it too)
 * Returns 0 or a negative errno.
 */
int record_topology_markers(struct live *l);

/**
 * record_host_marker - write what the recording knows of this machine
 * (@m, host_marker_now()'s) into @l's own buffer, as one "blkstack-host: "
 * marker (host-marker.h): the kernel's release, CONFIG_HZ, and
 * CLOCK_REALTIME read beside the trace clock (blkstack monitor's flight
 * recordings use it too)
 * Returns 0 or a negative errno.
 */
int record_host_marker(struct live *l, const struct host_marker *m);

#endif /* BLKSTACK_CMD_RECORD_H */
