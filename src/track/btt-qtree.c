// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btt-qtree.c - the bios btt follows at one device, in btt's red-black tree
 * by first sector, walked as btt walks it (see btt-qtree.h).
 *
 * The balancing is the classic one (the kernel's lib/rbtree.c of 2.6, which
 * btt carries): insertion recolours or rotates up from the new red node;
 * removing a node with two children moves its successor into its place.
 * Any other balancing would give another shape, and btt's walks, which
 * stop early where bios overlap, other answers.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "base/array.h"
#include "track/btt-qtree.h"

struct btt_qnode {
	struct btt_q q;		/* first: a bio's address is its node's */
	uint32_t left, right, parent;
	bool red;
};

#define N(t, i) ((t)->node[i])

void btt_qtree_init(struct btt_qtree *t)
{
	*t = (struct btt_qtree){ 0 };
}

void btt_qtree_destroy(struct btt_qtree *t)
{
	free(t->node);
	free(t->found);
	btt_qtree_init(t);
}

static inline bool is_red(const struct btt_qtree *t, uint32_t i)
{
	return i && N(t, i).red;
}

/* put @to where @from hangs from @parent (or at the root) */
static void relink(struct btt_qtree *t, uint32_t parent, uint32_t from, uint32_t to)
{
	if (!parent)
		t->root = to;
	else if (N(t, parent).left == from)
		N(t, parent).left = to;
	else
		N(t, parent).right = to;
}

static void rotate_left(struct btt_qtree *t, uint32_t x)
{
	uint32_t r = N(t, x).right, p = N(t, x).parent;

	N(t, x).right = N(t, r).left;
	if (N(t, r).left)
		N(t, N(t, r).left).parent = x;
	N(t, r).left = x;
	N(t, r).parent = p;
	relink(t, p, x, r);
	N(t, x).parent = r;
}

static void rotate_right(struct btt_qtree *t, uint32_t x)
{
	uint32_t l = N(t, x).left, p = N(t, x).parent;

	N(t, x).left = N(t, l).right;
	if (N(t, l).right)
		N(t, N(t, l).right).parent = x;
	N(t, l).right = x;
	N(t, l).parent = p;
	relink(t, p, x, l);
	N(t, x).parent = l;
}

static void insert_color(struct btt_qtree *t, uint32_t x)
{
	uint32_t p, g, u;

	while ((p = N(t, x).parent) && N(t, p).red) {
		g = N(t, p).parent;
		if (p == N(t, g).left) {
			u = N(t, g).right;
			if (is_red(t, u)) {
				N(t, u).red = N(t, p).red = false;
				N(t, g).red = true;
				x = g;
				continue;
			}
			if (N(t, p).right == x) {
				uint32_t up = p;

				rotate_left(t, p);
				p = x;
				x = up;
			}
			N(t, p).red = false;
			N(t, g).red = true;
			rotate_right(t, g);
		} else {
			u = N(t, g).left;
			if (is_red(t, u)) {
				N(t, u).red = N(t, p).red = false;
				N(t, g).red = true;
				x = g;
				continue;
			}
			if (N(t, p).left == x) {
				uint32_t up = p;

				rotate_right(t, p);
				p = x;
				x = up;
			}
			N(t, p).red = false;
			N(t, g).red = true;
			rotate_left(t, g);
		}
	}
	N(t, t->root).red = false;
}

/* restore the black heights after a black node left from under @parent */
static void erase_color(struct btt_qtree *t, uint32_t x, uint32_t parent)
{
	uint32_t o;

	while (!is_red(t, x) && x != t->root) {
		if (N(t, parent).left == x) {
			o = N(t, parent).right;
			if (is_red(t, o)) {
				N(t, o).red = false;
				N(t, parent).red = true;
				rotate_left(t, parent);
				o = N(t, parent).right;
			}
			if (!is_red(t, N(t, o).left) && !is_red(t, N(t, o).right)) {
				N(t, o).red = true;
				x = parent;
				parent = N(t, x).parent;
				continue;
			}
			if (!is_red(t, N(t, o).right)) {
				if (N(t, o).left)
					N(t, N(t, o).left).red = false;
				N(t, o).red = true;
				rotate_right(t, o);
				o = N(t, parent).right;
			}
			N(t, o).red = N(t, parent).red;
			N(t, parent).red = false;
			if (N(t, o).right)
				N(t, N(t, o).right).red = false;
			rotate_left(t, parent);
		} else {
			o = N(t, parent).left;
			if (is_red(t, o)) {
				N(t, o).red = false;
				N(t, parent).red = true;
				rotate_right(t, parent);
				o = N(t, parent).left;
			}
			if (!is_red(t, N(t, o).left) && !is_red(t, N(t, o).right)) {
				N(t, o).red = true;
				x = parent;
				parent = N(t, x).parent;
				continue;
			}
			if (!is_red(t, N(t, o).left)) {
				if (N(t, o).right)
					N(t, N(t, o).right).red = false;
				N(t, o).red = true;
				rotate_left(t, o);
				o = N(t, parent).left;
			}
			N(t, o).red = N(t, parent).red;
			N(t, parent).red = false;
			if (N(t, o).left)
				N(t, N(t, o).left).red = false;
			rotate_right(t, parent);
		}
		x = t->root;
		break;
	}
	if (x)
		N(t, x).red = false;
}

void btt_qtree_erase(struct btt_qtree *t, struct btt_q *q)
{
	uint32_t z = (uint32_t)((struct btt_qnode *)q - t->node);
	uint32_t child, parent;
	bool red;

	if (!N(t, z).left || !N(t, z).right) {
		child = N(t, z).left ? N(t, z).left : N(t, z).right;
		parent = N(t, z).parent;
		red = N(t, z).red;
		if (child)
			N(t, child).parent = parent;
		relink(t, parent, z, child);
	} else {
		/* the successor leaves its place and takes z's, colour and all */
		uint32_t s = N(t, z).right;

		while (N(t, s).left)
			s = N(t, s).left;
		child = N(t, s).right;
		parent = N(t, s).parent;
		red = N(t, s).red;
		if (child)
			N(t, child).parent = parent;
		if (parent == z) {
			N(t, z).right = child;
			parent = s;
		} else {
			N(t, parent).left = child;
		}
		N(t, s).parent = N(t, z).parent;
		N(t, s).red = N(t, z).red;
		N(t, s).left = N(t, z).left;
		N(t, s).right = N(t, z).right;
		relink(t, N(t, z).parent, z, s);
		N(t, N(t, z).left).parent = s;
		if (N(t, z).right)
			N(t, N(t, z).right).parent = s;
	}
	if (!red)
		erase_color(t, child, parent);
	N(t, z).left = t->free;
	t->free = z;
	t->n--;
}

/* a free node, the array grown when none is left (0: no memory) */
static uint32_t node_alloc(struct btt_qtree *t)
{
	uint32_t i;

	if (!t->free) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		struct btt_qnode *n = realloc(t->node, cap * sizeof(*n));

		if (!n)
			return 0;
		t->node = n;
		/* node 0 stands for "none" and is never handed out */
		for (i = cap - 1; i >= (t->cap ? t->cap : 1); i--) {
			n[i].left = t->free;
			t->free = i;
		}
		t->cap = cap;
	}
	i = t->free;
	t->free = N(t, i).left;
	return i;
}

struct btt_q *btt_qtree_put(struct btt_qtree *t, const struct btt_q *q, size_t limit)
{
	uint32_t p = 0, i = t->root, x;
	bool left = false;

	while (i) {
		p = i;
		if (q->sector < N(t, i).q.sector) {
			i = N(t, i).left;
			left = true;
		} else if (q->sector > N(t, i).q.sector) {
			i = N(t, i).right;
			left = false;
		} else {
			N(t, i).q = *q;
			return &N(t, i).q;
		}
	}
	if (t->n >= limit || !(x = node_alloc(t)))
		return NULL;
	N(t, x) = (struct btt_qnode){ .q = *q, .parent = p, .red = true };
	if (!p)
		t->root = x;
	else if (left)
		N(t, p).left = x;
	else
		N(t, p).right = x;
	insert_color(t, x);
	t->n++;
	return &N(t, x).q;
}

/*
 * Where bios overlap this can pass by one that holds @sector, or return
 * an older one: arguably a bug of btt's (blktrace 1.3 walks otherwise,
 * "btt: Fix overlapping IO stats"), kept for 1.2.0's figures.
 */
struct btt_q *btt_qtree_holding(const struct btt_qtree *t, uint64_t sector)
{
	uint32_t i = t->root;

	while (i) {
		const struct btt_q *q = &N(t, i).q;

		if (sector < q->sector)
			i = N(t, i).left;
		else if (sector >= q->sector + q->nsec)
			i = N(t, i).right;
		else
			return &t->node[i].q;
	}
	return NULL;
}

/*
 * A node that ends where the range ends hides the bios to its right that
 * start later inside the range: arguably a bug of btt's (blktrace 1.3 looks
 * right also when the node starts before the range), kept for 1.2.0's
 * figures: such a bio stays followed.
 *
 * The walk is btt's recursion (a node, its left subtree, then its right
 * one) on a stack of the right subtrees still to walk: at most one per
 * level, and a red-black tree of 2^32 nodes is at most 64 levels deep.
 */
struct btt_q *const *btt_qtree_inside(struct btt_qtree *t, uint64_t start, uint64_t end,
				      size_t *n)
{
	uint32_t stack[66], i;
	unsigned int top = 0;

	*n = 0;
	if (t->root)
		stack[top++] = t->root;
	while (top) {
		uint64_t s, e;

		i = stack[--top];
		s = N(t, i).q.sector;
		e = s + N(t, i).q.nsec;
		if (start <= s && e <= end) {
			/* no memory: on past its subtrees, as the recursion went */
			if (ARRAY_ROOM(t->found, *n, t->found_cap, 64) < 0)
				continue;
			t->found[(*n)++] = &N(t, i).q;
		}
		/* pushed first, walked after the whole left subtree */
		if (e < end && N(t, i).right)
			stack[top++] = N(t, i).right;
		if (start < s && N(t, i).left)
			stack[top++] = N(t, i).left;
	}
	return *n ? t->found : NULL;
}
