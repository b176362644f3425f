/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * filetree.h - the files of a page-cache attribution as a tree of path
 * components, every directory holding the sum of what lies beneath it:
 * the per-directory roll-up, the folded stacks and the flame graph are
 * all read from it.
 *
 * A file whose name is unknown is one component "MAJ:MIN:ino"; a
 * category of I/O that belongs to no file is one component "[journal]".
 */
#ifndef BLKSTACK_FILETREE_H
#define BLKSTACK_FILETREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "files/pagecache.h"
#include "files/pathres.h"

#define FT_ROOT 0
#define FT_NONE ((size_t)-1)

/**
 * struct ft_node - one path component
 * @name: the component ("" for the root)
 * @parent: index of the parent (FT_NONE for the root)
 * @first_child, @next_sibling: indexes (FT_NONE when none)
 * @file: a file (or category), not a directory
 * @deleted: the file was unlinked
 * @file_idx: for a file, its index in pagecache_files(); FT_NONE otherwise
 * @c: its counts; a directory's are the sum of its children's
 */
struct ft_node {
	char *name;
	size_t parent;
	size_t first_child, next_sibling;
	bool file;
	bool deleted;
	size_t file_idx;
	struct pc_counts c;
};

/**
 * struct filetree - the tree; node FT_ROOT is "/"
 */
struct filetree {
	struct ft_node *n;
	size_t nn, cap;
	size_t *hash;		/* (parent, name) -> index + 1, open addressing */
	size_t hash_cap;
};

/** filetree_init - an empty tree (the root only). Returns 0 or -ENOMEM. */
int filetree_init(struct filetree *t);

/** filetree_free - release; a zeroed tree is accepted */
void filetree_free(struct filetree *t);

/**
 * filetree_add - add a file (or a category) and its counts
 * @path: "/a/b/c" (components split on '/'; empty components skipped), or
 *	  one component without a slash
 * @deleted: mark the leaf as unlinked
 * @file_idx: the file's index, or FT_NONE
 * Adds to the counts of a node already there (hard links, categories).
 * The directories' sums are made by filetree_rollup().
 * Returns the leaf's index, or -ENOMEM.
 */
long filetree_add(struct filetree *t, const char *path, bool deleted, size_t file_idx,
		  const struct pc_counts *c);

/** filetree_rollup - every directory gets the sum of its children */
void filetree_rollup(struct filetree *t);

/**
 * filetree_path - the full path of a node ("/a/b"; a top-level component
 * that is no absolute path, such as "[journal]", stays as it is)
 * Returns 0, or -ERANGE when @buf is too small.
 */
int filetree_path(const struct filetree *t, size_t idx, char *buf, size_t len);

/**
 * filetree_build - the tree of everything a page-cache attribution holds
 * @pc: the attribution
 * @pr: the names (NULL: none known)
 * @interval: take the counts since the last interval reset, not the totals
 * @cats: add the categories as top-level "[name]" components
 * Returns 0 or -ENOMEM.
 */
int filetree_build(struct filetree *t, const struct pagecache *pc, const struct pathres *pr,
		   bool interval, bool cats);

/**
 * filetree_file_name - how a file is shown: its path, or "MAJ:MIN:ino" when
 * its name is unknown ("MAJ:MIN:1 (the filesystem's own)" for inode 1, no
 * user's file); the tree adds " (deleted)" to an unlinked file's
 */
void filetree_file_name(const struct pathres *pr, uint32_t sdev, uint64_t ino, char *buf,
			size_t len);

/** ft_bytes - the weight of a node: bytes read and written from disk */
static inline uint64_t ft_bytes(const struct pc_counts *c)
{
	return c->read_bytes + c->write_bytes;
}

/**
 * filetree_folded - folded stacks, one line per file with disk I/O:
 * "comp;comp;file BYTES" (flamegraph.pl, inferno and speedscope read it)
 * Returns 0 or a negative errno from writing.
 */
int filetree_folded(const struct filetree *t, FILE *fp);

#endif /* BLKSTACK_FILETREE_H */
