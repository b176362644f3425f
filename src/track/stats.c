// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stats.c - aggregation of the tracker's completed I/O trees.
 *
 * Everything here is fixed-size per layer, per operation and per process:
 * memory depends on how many devices and processes there are, never on how
 * long the trace is. A timestamp of 0 means "not seen" in a record, so an
 * interval is only counted when both of its ends were seen.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "track/stats.h"

static const char *const op_names[ST_OPS] = {
	[ST_READ] = "read", [ST_WRITE] = "write", [ST_DISCARD] = "discard",
	[ST_FLUSH] = "flush", [ST_OTHER] = "other",
};

enum st_op st_op_of(uint8_t blk_op)
{
	switch (blk_op) {
	case BLK_OP_READ:
		return ST_READ;
	case BLK_OP_WRITE:
		return ST_WRITE;
	case BLK_OP_DISCARD:
	case BLK_OP_SECURE_ERASE:
		return ST_DISCARD;
	case BLK_OP_FLUSH:
		return ST_FLUSH;
	default:
		return ST_OTHER;
	}
}

const char *st_op_name(enum st_op op)
{
	return op < ST_OPS ? op_names[op] : "?";
}

struct stats *stats_alloc(void)
{
	struct stats *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->procs = calloc(ST_PROC_SLOTS, sizeof(*st->procs));
	if (!st->procs) {
		free(st);
		errno = ENOMEM;
		return NULL;
	}
	return st;
}

void stats_free(struct stats *st)
{
	if (!st)
		return;
	if (st->layers)
		munmap(st->layers, st->layers_cap * sizeof(*st->layers));
	free(st->procs);
	free(st);
}

void stats_reset(struct stats *st)
{
	/* the layers past nlayers were never written */
	memset(st->layers, 0, st->nlayers * sizeof(*st->layers));
	st->nlayers = 0;
	memset(st->e2e, 0, sizeof(st->e2e));
	memset(st->procs, 0, ST_PROC_SLOTS * sizeof(*st->procs));
	memset(st->proc_hint, 0, sizeof(st->proc_hint));
	st->nprocs = 0;
	st->nnames = 0;
	st->first_ts = st->last_ts = 0;
}

const struct st_layer *stats_layer(const struct stats *st, uint32_t dev)
{
	for (size_t i = 0; i < st->nlayers; i++)
		if (st->layers[i].dev == dev)
			return &st->layers[i];
	return NULL;
}

uint64_t stats_size_percentile(const struct hist *h, double pct)
{
	uint64_t v = hist_percentile(h, pct);
	uint64_t lo = hist_bucket_low(hist_bucket_of(v));

	if (!h->count)
		return 0;
	if (lo < hist_min(h))
		lo = hist_min(h);
	lo = (lo + 511) / 512 * 512;
	return lo > h->max ? h->max : lo;
}

/*
 * The layers' array, of @cap entries, from fresh anonymous memory: a layer
 * is 300 KB of histograms of which an I/O mix touches a few pages, and the
 * kernel zeroes a page when it is first touched. Zeroing the array with
 * memset() faulted in 2.5 MB for the first layer: 1 ms of the 10 ms of a
 * report on a small trace. Growing moves the pages (mremap), no copy.
 */
static struct st_layer *layers_grow(struct st_layer *old, size_t old_cap, size_t cap)
{
	void *n;

	if (old)
		n = mremap(old, old_cap * sizeof(*old), cap * sizeof(*old), MREMAP_MAYMOVE);
	else
		n = mmap(NULL, cap * sizeof(*old), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	return n;
}

static struct st_layer *layer_find(struct stats *st, uint32_t dev)
{
	struct st_layer *l = (struct st_layer *)stats_layer(st, dev);

	if (l) {
		st->last_layer = l - st->layers;
		return l;
	}
	if (st->nlayers == st->layers_cap) {
		size_t cap = st->layers_cap ? st->layers_cap * 2 : 8;
		struct st_layer *n = layers_grow(st->layers, st->layers_cap, cap);

		if (!n)
			return NULL;
		st->layers = n;
		st->layers_cap = cap;
	}
	st->last_layer = st->nlayers;
	l = &st->layers[st->nlayers++];
	l->dev = dev;
	l->depth = UINT8_MAX;
	return l;
}

/* The layer of @dev, created on first sight; the last one found, inline. */
static inline struct st_layer *layer_of(struct stats *st, uint32_t dev)
{
	if (st->last_layer < st->nlayers && st->layers[st->last_layer].dev == dev)
		return &st->layers[st->last_layer];
	return layer_find(st, dev);
}

/*
 * Add b - a when both ends were seen and in order (b >= a > 0: b was seen
 * too). One compare tells: b - a < b exactly when a > 0 and a <= b.
 */
static inline void span(struct hist *h, uint64_t a, uint64_t b)
{
	uint64_t d = b - a;

	if (d < b)
		hist_add(h, d);
}

/* One bio sent to @l by @dev; the main parent is the one with the most data. */
static void add_parent(struct st_layer *l, uint32_t dev, bool data)
{
	struct st_parent *p = NULL, *best;

	for (size_t i = 0; i < l->nparents; i++)
		if (l->parents[i].dev == dev)
			p = &l->parents[i];
	if (!p) {
		if (l->nparents == ST_MAX_PARENTS)
			return;
		p = &l->parents[l->nparents++];
		p->dev = dev;
	}
	p->bios++;
	p->data_bios += data;
	best = l->parents;
	for (size_t i = 1; i < l->nparents; i++)
		if (l->parents[i].data_bios > best->data_bios ||
		    (l->parents[i].data_bios == best->data_bios && l->parents[i].bios > best->bios))
			best = &l->parents[i];
	l->parent = best->dev;
}

/*
 * One bio's figures in its operation at its layer. Apart from the layer's
 * lookup, so that @o stays in a register: inlined, the compiler computes
 * it again from the layer for every histogram. Returns the bucket of its
 * total (C - Q), UINT_MAX when it has none, for the end-to-end histograms
 * that take the same value.
 */
static __attribute__((noinline)) unsigned int account_op(struct st_layer_op *o,
							 const struct tk_rec *r, uint8_t cls)
{
	uint64_t bytes = (uint64_t)r->sectors << 9;
	uint64_t q = tk_rec_q(r);
	unsigned int total_b = UINT_MAX;
	uint64_t total = 0;

	o->ios++;
	o->bytes += bytes;
	o->cls_ios[cls]++;
	o->cls_bytes[cls] += bytes;
	o->splits += r->splits;
	o->requeues += r->requeues;
	if (r->error)
		o->errors++;
	if (r->merge == TK_MERGE_BACK)
		o->merges_back++;
	else if (r->merge == TK_MERGE_FRONT)
		o->merges_front++;
	if (bytes != o->size_last) {
		o->size_last = bytes;
		o->size_last_b = hist_bucket_of(bytes);
	}
	hist_add_in(&o->size, bytes, o->size_last_b);
	/* a request the layer made itself (a flush of the flush machinery) was never queued */
	if (!r->no_q)
		span(&o->sub, q, r->down);
	span(&o->comp, r->up, r->c);
	if (q && r->c >= q) {
		total = r->c - q;
		total_b = hist_bucket_of(total);
		hist_add_in(&o->total, total, total_b);
	}
	if (r->kind != TK_LAYER_REQUEST || !r->qev)
		return total_b;
	/*
	 * btt's phases, as btt counts them: per bio with data queued at this
	 * device (from its queue event, not from a remap into it: not an
	 * empty preflush bio, whose request the flush machinery handles, nor
	 * a request no bio was queued for), the request phases once per
	 * request: to the bio that started it (each piece of a bio split
	 * here starts one, timed from the bio's queue event), and I2D only
	 * when that request was issued as itself, not merged into another by
	 * the scheduler. D2C and Q2C leave out the pieces of a split bio, and
	 * count only bios whose request was issued.
	 */
	if (r->sectors) {
		if (r->merge == TK_MERGE_NONE)
			span(&o->q2g, r->qev, r->g);
		/* a bio merged into a request, or one whose request the
		 * scheduler merged into another (btt sees an M at its start) */
		if (r->merge != TK_MERGE_NONE || r->rq_merged)
			span(&o->q2m, r->qev, r->m);
		span(&o->g2i, r->g, r->i);
		if (r->merge == TK_MERGE_NONE && !r->rq_merged) {
			span(&o->i2d, r->i, r->d);
			/* a request never inserted into a scheduler goes straight from G to D */
			if (!r->i)
				span(&o->g2d, r->g, r->d);
		}
	}
	/* btt completes only what it saw issued: an empty preflush bio (the
	 * flush machinery issues a flush request of its own) is not */
	if (!r->splits && !r->split_rest && r->d) {
		span(&o->d2c, r->d, r->c);
		/* the total is C - Q, from the queue event: Q2C, bucket and all */
		if (total_b != UINT_MAX)
			hist_add_in(&o->q2c, total, total_b);
	}
	return total_b;
}

/* One bio at its layer, in operation @op; returns account_op()'s bucket of its total. */
static inline __attribute__((always_inline)) unsigned int
account_rec(struct stats *st, const struct tk_io *io, const struct tk_rec *r, enum st_op op)
{
	struct st_layer *l = layer_of(st, r->dev);

	if (!l)
		return UINT_MAX;
	l->kind = r->kind;
	if (io->top && r->depth < l->depth)
		l->depth = r->depth;
	if (r->parent_dev)
		add_parent(l, r->parent_dev, r->sectors != 0);
	else if (!io->top && io->issuer && io->issuer != r->dev)
		/* a layer's own I/O on a device it uses (its metadata) */
		add_parent(l, io->issuer, r->sectors != 0);
	return account_op(&l->op[op], r, io->cls < TK_CLASSES ? io->cls : TK_IO_UNEXPLAINED);
}

/* The share of @dev under the share @parent (-1: at the top) on a path. */
static inline struct st_share *share_of(struct st_e2e *e, uint32_t dev, uint8_t depth,
					int parent)
{
	for (size_t i = 0; i < e->nshares; i++)
		if (e->shares[i].dev == dev && e->shares[i].parent == parent)
			return &e->shares[i];
	if (e->nshares == ST_MAX_SHARES)
		return NULL;
	e->shares[e->nshares] = (struct st_share){ .dev = dev, .depth = depth, .parent = parent };
	return &e->shares[e->nshares++];
}

/* The leaf of a path: its submission, then the device until done. */
static inline void account_leaf(struct st_share *s, const struct tk_rec *r)
{
	uint64_t start = r->down ? r->down : r->q;

	if (r->down && r->down >= r->q) {
		s->sub_ns += r->down - r->q;
		s->sub_n++;
	}
	if (r->c >= start)
		s->dev_ns += r->c - start;
}

/*
 * The waterfall: from the root, follow the child that completed last (the
 * one the parent waited for) down to a leaf, adding each layer's way down,
 * the device's own time at the leaf, and each layer's way up.
 */
static void account_path(struct st_e2e *e, const struct tk_io *io)
{
	int32_t i = 0;
	int parent = -1;

	if (io->nrecs == 1) {
		/* a tree of one bio (most I/O at a plain disk): the top is the leaf */
		struct st_share *s = share_of(e, io->recs->dev, io->recs->depth, -1);

		if (s)
			account_leaf(s, io->recs);
		return;
	}
	for (;;) {
		const struct tk_rec *r = &io->recs[i];
		struct st_share *s = share_of(e, r->dev, r->depth, parent);
		int32_t next = -1;

		for (size_t j = i + 1; j < io->nrecs; j++)
			if (io->recs[j].parent == i &&
			    (next < 0 || io->recs[j].c > io->recs[next].c))
				next = j;
		if (!s)
			return;
		if (next < 0) {
			account_leaf(s, r);
			return;
		}
		if (r->down && r->down >= r->q) {
			s->sub_ns += r->down - r->q;
			s->sub_n++;
		}
		if (r->up && r->c >= r->up)
			s->comp_ns += r->c - r->up;
		parent = s - e->shares;
		i = next;
	}
}

/* The entry of (@pid, @comm) among the procs, or NULL. */
static struct st_proc *proc_find(struct stats *st, int32_t pid, const char *comm)
{
	for (size_t i = 0; i < st->nprocs; i++) {
		if (st->procs[i].pid == pid && !strncmp(st->procs[i].comm, comm, 16))
			return &st->procs[i];
	}
	return NULL;
}

static struct st_proc *proc_new(struct stats *st, int32_t pid, const char *comm)
{
	struct st_proc *p = &st->procs[st->nprocs++];
	size_t n = strnlen(comm, sizeof(p->comm) - 1);

	p->pid = pid;
	memcpy(p->comm, comm, n);
	p->comm[n] = '\0';
	return p;
}

/*
 * The entry of a process: its own up to ST_MAX_PROCS of them, then its
 * command name's (pid -1), so that a process that comes late (fstrim
 * after thousands of kworkers) is still named, then "other" (pid -2).
 */
static struct st_proc *proc_place(struct stats *st, int32_t pid, const char *comm)
{
	size_t own = st->nprocs - st->nnames;
	struct st_proc *p;

	p = proc_find(st, pid, comm);
	if (p)
		return p;
	/* "other", when there, is after every entry of a process of its own */
	if (own < ST_MAX_PROCS && !(st->nprocs && st->procs[st->nprocs - 1].pid == -2))
		return proc_new(st, pid, comm);
	p = proc_find(st, -1, comm);
	if (p)
		return p;
	if (st->nnames < ST_MAX_COMMS) {
		st->nnames++;
		return proc_new(st, -1, comm);
	}
	p = proc_find(st, -2, "other");
	return p ? p : proc_new(st, -2, "other");
}

/* proc_place(), looked up first where the task's I/O went last */
static struct st_proc *proc_of(struct stats *st, int32_t pid, const char *comm)
{
	struct st_proc_hint *h = &st->proc_hint[((uint32_t)pid * 0x9E3779B1U) >> 26];
	struct st_proc *p;

	_Static_assert(ST_PROC_HINTS == 1 << (32 - 26), "the hash takes 6 bits");
	_Static_assert(ST_PROC_SLOTS < UINT16_MAX, "a hint holds an index + 1");
	/* the same 16 bytes are the same name: no strncmp for the common case */
	if (h->idx && h->pid == pid && !memcmp(h->comm, comm, 16))
		return &st->procs[h->idx - 1];
	p = proc_place(st, pid, comm);
	h->pid = pid;
	h->idx = (uint16_t)(p - st->procs + 1);
	memcpy(h->comm, comm, 16);
	return p;
}

void stats_io(const struct tk_io *io, void *ctx)
{
	struct stats *st = ctx;
	const struct tk_rec *root = io->root;
	uint64_t q = tk_rec_q(root);
	unsigned int total_b;
	struct st_layer *l;
	enum st_op op;

	if (!io->nrecs)
		return;
	op = st_op_of_rec(root);
	if (!st->first_ts || q < st->first_ts)
		st->first_ts = q;
	if (root->c > st->last_ts)
		st->last_ts = root->c;
	/* the root's total at its layer is the end-to-end latency: one bucket */
	if (root == io->recs) {
		total_b = account_rec(st, io, root, op);
	} else {
		account_rec(st, io, &io->recs[0], st_op_of_rec(&io->recs[0]));
		total_b = UINT_MAX;
	}
	for (size_t i = 1; i < io->nrecs; i++)
		account_rec(st, io, &io->recs[i], st_op_of_rec(&io->recs[i]));
	if (!io->top) {
		/* counted at the layer that issued it (md0 for its stripe I/O) */
		l = layer_of(st, io->issuer ? io->issuer : root->dev);
		if (l)
			l->op[op].issued++;
	}
	if (io->top) {
		struct st_e2e *e = &st->e2e[op];
		struct st_proc *p = proc_of(st, io->pid, io->comm);

		e->ios++;
		e->bytes += (uint64_t)root->sectors << 9;
		e->matched += io->matched;
		if (io->reach < TK_REACHES) {
			e->reach[io->reach]++;
			/* where it was not followed to a disk, counted at that layer */
			if (io->reach != TK_REACH_DISK && (l = layer_of(st, io->end_dev)))
				l->op[op].top_end[io->reach]++;
		}
		if (root->c >= q) {
			if (total_b == UINT_MAX)
				total_b = hist_bucket_of(root->c - q);
			hist_add_in(&e->total, root->c - q, total_b);
			e->total_ns += root->c - q;
			account_path(e, io);
		}
		p->ios++;
		p->bytes += (uint64_t)root->sectors << 9;
		if (root->c >= q)
			hist_add_in(&p->total, root->c - q, total_b);
	}
}
