/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * files.h - the page-cache attribution as tables per file, directory
 * or process (libsmartcols), as JSON (json-c), folded stacks, an SVG flame
 * graph, and the interval view and log of "blkstack cache".
 */
#ifndef BLKSTACK_OUT_FILES_H
#define BLKSTACK_OUT_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/source.h"
#include "files/filetree.h"
#include "files/pagecache.h"
#include "files/pathres.h"

enum files_by {
	FILES_BY_FILE = 0,
	FILES_BY_DIR,
	FILES_BY_PROCESS,
};

/** files_by_name - "file", "dir", "process" */
const char *files_by_name(enum files_by by);

/**
 * struct files_report - what the file tables show
 * @pc: the attribution
 * @pr: the names (NULL: none)
 * @tree: the tree of @pc (filetree_build() with categories)
 * @by: rows per file, per directory or per process
 * @top: rows at most (0: all)
 * @source: where the events came from
 * @names: how names were found ("open files and maps", "... and a walk")
 * @notes: lines to print under the title (missing events), NULL-terminated
 *	   or NULL
 * @src: events read and lost per CPU (NULL: unknown)
 */
struct files_report {
	const struct pagecache *pc;
	const struct pathres *pr;
	const struct filetree *tree;
	enum files_by by;
	size_t top;
	const char *source;
	const char *names;
	const char *const *notes;
	const struct source_stats *src;
};

/** out_files_text - the table of @r->by, the categories and the attributed share */
int out_files_text(FILE *fp, const struct files_report *r);

/** out_files_json - every file (and directory or process per @r->by) as JSON */
int out_files_json(FILE *fp, const struct files_report *r);

/**
 * out_files_flame - a self-contained SVG flame graph of disk bytes per
 * directory: one box per path component, as wide as its bytes, with the
 * path, bytes and share as a hover title
 * @title: the heading drawn above it
 * Returns 0 or a negative errno from writing.
 */
int out_files_flame(FILE *fp, const struct filetree *t, const char *title);

/**
 * out_files_interval - one interval of "blkstack cache": per file, page
 * cache misses, readahead, evictions, lookups and the share of them
 * served from cache, the files with most activity first
 * @label: when the interval ended
 * @top: rows at most (0: all)
 */
int out_files_interval(FILE *fp, const struct pagecache *pc, const struct pathres *pr,
		       const char *label, size_t top);

/**
 * out_files_log_line - one line of "blkstack cache --log":
 * "path ino first..last [RA sync|async]"
 */
int out_files_log_line(FILE *fp, const struct pathres *pr, const struct pc_log_range *lr);

#endif /* BLKSTACK_OUT_FILES_H */
