/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-files.h - the file side of "blkstack report" (--by, --folded,
 * --flame, --page-cache).
 */
#ifndef BLKSTACK_CMD_REPORT_FILES_H
#define BLKSTACK_CMD_REPORT_FILES_H

#include <stdbool.h>
#include <stdio.h>

#include "base/source.h"
#include "cmd/pagecache.h"

/**
 * struct report_files_opts - report's options for the file side
 * @by: --by, a CLI_BY_* value
 * @top: --top, 0 for the default
 * @folded: --folded
 * @flame: --flame FILE.svg, NULL if none
 * @json: --json
 * @recording: the events come from a recording (-i), not live tracing
 */
struct report_files_opts {
	int by;
	unsigned long long top;
	bool folded;
	const char *flame;
	bool json;
	bool recording;
};

/**
 * report_files_output - write what the file options ask for
 * @fp: the report's output
 * @p: the options
 * @run: the finished page-cache run
 * @source: where the events came from
 * @src: events read and lost (NULL: unknown)
 * @appended: after the per-layer report (--page-cache alone): a short
 *	      file table
 *
 * --flame is written to its own file; --folded, or the --by table (text or
 * JSON), or with @appended the file table, go to @fp.
 * Returns 0, a negative errno from writing @fp, or -ECANCELED after
 * printing what failed otherwise.
 */
int report_files_output(FILE *fp, const struct report_files_opts *p, struct pc_run *run,
			const char *source, const struct source_stats *src, bool appended);

#endif /* BLKSTACK_CMD_REPORT_FILES_H */
