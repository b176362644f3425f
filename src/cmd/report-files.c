// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-files.c - the file side of "blkstack report": --by, --folded
 * and --flame, and the file table that --page-cache appends. Glue only:
 * the attribution (pagecache) -> the tree of paths (filetree) -> output/files.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "cmd/opt.h"
#include "cmd/report-files.h"
#include "files/filetree.h"
#include "output/files.h"
#include "output/outfile.h"

/* Rows of the file table appended to the per-layer report by --page-cache. */
#define APPENDED_ROWS 10
/* Rows of a --by table without --top. */
#define DEFAULT_ROWS 20

static int write_flame(const char *path, const struct filetree *tree, const char *source)
{
	struct outfile of = { 0 };
	char title[512];
	int ret;

	ret = outfile_open(&of, path);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", path, strerror(-ret));
		return -1;
	}
	snprintf(title, sizeof(title), "Disk I/O per directory: %s", source);
	ret = out_files_flame(of.fp, tree, title);
	if (!ret)
		ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write the flame graph to '%s': %s", path, strerror(-ret));
		outfile_abort(&of);
		return -1;
	}
	return 0;
}

/* Files with disk I/O whose name is unknown. */
static size_t count_unnamed(const struct pc_run *run)
{
	const struct pc_file *f;
	size_t n, m = 0;

	f = pagecache_files(run->pc, &n);
	for (size_t i = 0; i < n; i++)
		if (ft_bytes(&f[i].tot) && !pathres_lookup(run->pr, f[i].sdev, f[i].ino, NULL))
			m++;
	return m;
}

int report_files_output(FILE *fp, const struct report_files_opts *p, struct pc_run *run,
			const char *source, const struct source_stats *src, bool appended)
{
	struct filetree tree, flame;
	struct files_report fr;
	const char *notes[4] = { NULL, NULL, NULL, NULL };
	size_t nn = 0;
	char unnamed_note[256];
	size_t unnamed;
	bool table = !p->folded && (p->by != CLI_BY_NONE || appended);
	int ret = 0;

	/* categories are frames of the folded stacks and the flame graph, rows of their own in tables */
	if (filetree_build(&tree, run->pc, run->pr, false, !table) < 0) {
		err_msg("out of memory");
		return -ECANCELED;
	}
	if (p->flame && table && filetree_build(&flame, run->pc, run->pr, false, true) < 0) {
		filetree_free(&tree);
		err_msg("out of memory");
		return -ECANCELED;
	}
	if (p->flame) {
		ret = write_flame(p->flame, table ? &flame : &tree, source);
		if (table)
			filetree_free(&flame);
		if (ret < 0) {
			filetree_free(&tree);
			return -ECANCELED;
		}
	}
	if (!pagecache_has_events(run->pc))
		notes[nn++] = p->recording ? "the recording has no page-cache event (record with blkstack record --page-cache, or trace-cmd record -e filemap -e readahead -e writeback -e iomap)"
				    : "no page-cache event was traced";
	else if (run->resolve == CLI_RESOLVE_PROC && (unnamed = count_unnamed(run))) {
		snprintf(unnamed_note, sizeof(unnamed_note),
			 "%zu files with disk I/O have no name (no process had them open when looked up): --resolve-paths=walk names them",
			 unnamed);
		notes[nn++] = unnamed_note;
	}
	if (pagecache_has_events(run->pc) && run->dio_note)
		notes[nn++] = run->dio_note;
	if (run->fw_note[0])
		notes[nn++] = run->fw_note;
	fr = (struct files_report){
		.pc = run->pc, .pr = run->pr, .tree = &tree,
		.by = p->by == CLI_BY_NONE ? FILES_BY_FILE : p->by,
		.top = p->top ? p->top : appended ? APPENDED_ROWS : p->json ? 0 : DEFAULT_ROWS,
		.source = source, .names = pc_run_names(run), .notes = notes, .src = src,
	};
	if (p->folded)
		ret = filetree_folded(&tree, fp);
	else if (table)
		ret = p->json ? out_files_json(fp, &fr) : out_files_text(fp, &fr);
	filetree_free(&tree);
	return ret < 0 ? ret : 0;
}
