/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btt-qtree.h - the bios btt follows at one device, held the way btt holds
 * them: a red-black tree by first sector, walked as btt walks it.
 *
 * btt finds a bio for an event by walking its tree, not by searching all
 * bios: where followed bios overlap (a bio split and completed under a
 * later sector stays in the tree until a new bio starts at its sector),
 * which one a walk meets, and which it misses, depends on the tree's shape.
 * So the shape is btt's: the same balancing (the kernel's red-black tree
 * that btt carries, in its 2.6 form), the same walks (btt's dip_rb.c), and
 * a bio queued where one already starts takes that one's place in the tree.
 *
 * The btt followed is blktrace 1.2.0's, the one Debian 12 and its kin ship
 * and the tests run; blktrace 1.3 changed the walks (see btt-qtree.c).
 */
#ifndef BLKSTACK_BTT_QTREE_H
#define BLKSTACK_BTT_QTREE_H

#include <stddef.h>
#include <stdint.h>

/* one bio btt follows at a device: its Q and what happened since (0: not yet) */
struct btt_q {
	uint64_t sector;
	uint32_t nsec;
	int32_t proc;
	uint64_t q, g, s, i, m, d;
};

struct btt_qnode;

/**
 * struct btt_qtree - the tree, its nodes in one array (index 0: none)
 * @node, @cap: the nodes
 * @root: the root's index
 * @free: the first unused node (chained by @left), 0 when none
 * @n: bios held
 * @found, @found_cap: btt_qtree_inside's answer
 */
struct btt_qtree {
	struct btt_qnode *node;
	uint32_t cap;
	uint32_t root;
	uint32_t free;
	size_t n;
	struct btt_q **found;
	size_t found_cap;
};

/** btt_qtree_init - an empty tree */
void btt_qtree_init(struct btt_qtree *t);

/** btt_qtree_destroy - free its memory */
void btt_qtree_destroy(struct btt_qtree *t);

/**
 * btt_qtree_put - follow @q: a new node, or, where a followed bio starts at
 * @q's sector, @q in that one's place (btt 1.2's rb_insert: the one there is
 * dropped, never to complete)
 * @limit: bios held at most
 * Returns the bio held, or NULL when the tree holds @limit or memory ran out.
 */
struct btt_q *btt_qtree_put(struct btt_qtree *t, const struct btt_q *q, size_t limit);

/**
 * btt_qtree_holding - btt's rb_find_sec: from the root, left while @sector
 * is before a bio, right while it is at or after its end; the first bio
 * that holds @sector, or NULL
 */
struct btt_q *btt_qtree_holding(const struct btt_qtree *t, uint64_t sector);

/**
 * btt_qtree_inside - btt's rb_foreach: the bios wholly inside
 * [@start, @end), in btt's order (a node, then its left, then its right
 * subtree; left only when @start is before the node, right only when the
 * node ends before @end)
 * @n: receives how many
 * Returns them (valid until the next put), or NULL when none or out of memory.
 */
struct btt_q *const *btt_qtree_inside(struct btt_qtree *t, uint64_t start, uint64_t end,
				      size_t *n);

/** btt_qtree_erase - stop following @q, a bio the tree holds */
void btt_qtree_erase(struct btt_qtree *t, struct btt_q *q);

#endif /* BLKSTACK_BTT_QTREE_H */
