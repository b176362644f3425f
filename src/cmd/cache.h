/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cache.h - the options of "blkstack cache" (the page cache per file, live):
 * the parameters, the parser and the usage text, next to the command that
 * uses them. The parser does no I/O and no privilege check (check_cli tests
 * it).
 */
#ifndef BLKSTACK_CMD_CACHE_H
#define BLKSTACK_CMD_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/opt.h"

/**
 * struct cache_params - blkstack cache
 * @devs: -d (devices or mounted directories whose filesystems to watch)
 * @ndevs: how many; 0 watches every filesystem
 * @interval_ns: the interval argument (default 1 s)
 * @count: the count argument, when @has_count
 * @duration_ns: -w, when @has_duration
 * @output: -o file, NULL for stdout
 * @buffer_kb: -b
 * @log: --log, one line per run of pages inserted instead of tables
 * @top: --top, files per interval (0: the default)
 * @resolve: --resolve-paths (CLI_RESOLVE_DEFAULT: proc)
 * @debug: -D
 */
struct cache_params {
	const char *devs[CLI_MAX_DEVS];
	size_t ndevs;
	uint64_t interval_ns;
	unsigned long long count;
	bool has_count;
	uint64_t duration_ns;
	bool has_duration;
	const char *output;
	unsigned int buffer_kb;
	bool log;
	unsigned long long top;
	int resolve;
	bool debug;
};

/** cli_parse_cache - parse "blkstack cache" arguments */
enum cli_result cli_parse_cache(int argc, char **argv, struct cache_params *p,
				char *err, size_t errlen);

/** cli_usage_cache - the usage text of "blkstack cache" */
const char *cli_usage_cache(void);

#endif /* BLKSTACK_CMD_CACHE_H */
