// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracker.c - the stack tracker.
 *
 * The kernel gives a bio no id: it is found by device, sector and operation.
 * Each device keeps a vector of the bios in flight at it (nodes) and, for
 * request-based devices, of its requests. The rules (DESIGN.md, "Known
 * kernel behaviours"):
 *
 *  - Q on a device either confirms a bio that a remap brought there (same
 *    device, start and size, still waiting for its queue event) or starts a
 *    new tree: top-level I/O, or I/O the layer issues itself.
 *  - A (remap) finds its source bio at the old device by containment: a dm
 *    bio that is split sends several pieces down from inside its range, in
 *    an order that block_split events do not reliably precede. The piece
 *    becomes a child waiting at the new device.
 *  - A remap into a partition first names the whole disk with the
 *    partition-relative sector, then remaps from the partition to the disk:
 *    when the source is not found at the partition, the child waiting at
 *    the disk at that relative sector was really at the partition; it is
 *    moved there and becomes a remap-only layer.
 *  - A bio completion names the trimmed remainder of a split bio: it is
 *    matched on device and end sector, after an exact start and size
 *    match (a request completion likewise, on its start).
 *  - Request-based dm (multipath) clones an issued request onto a path
 *    (block_rq_remap, at -1 for a flush): each bio of the request gets a
 *    child there; a clone the path rejects unissued is dropped when dm
 *    requeues the request, and dm's second completion (+ 0) completes
 *    nothing.
 *  - At request-based devices bios start (G) or join (M, F) requests, and
 *    request events (I, D, C, requeue, scheduler merges) are matched on the
 *    request's start; a completion may cover only the front of a request.
 *  - A parent's up time is its last child's completion; a remap-only layer
 *    completes with its last child.
 *  - Among identical keys in flight, the oldest matches first; but a bio
 *    or request that was in flight across a stretch of lost events (its
 *    tree is counted broken whatever it matches) comes after those that
 *    were not: it may have lost the very event sought, and the oldest-first
 *    rule would then hand it a younger I/O's event, that I/O the next
 *    one's, and so on, every later I/O of that key taking the wrong times.
 *  - An empty flush dm sends down names sector 0, whatever the bio it
 *    serves: it belongs to the oldest empty or preflush bio in flight at
 *    the layer (a preflush write's flush is part of that write), never to
 *    a data write that holds the sector.
 *  - A remap whose source is not in flight at a layer that queues its own
 *    bios is I/O that layer issued (md's stripe I/O, dm's own flushes):
 *    never a new top-level I/O. A parity RAID names the array sector of a
 *    block, or 0 for parity: a read of a block a pending write covers is
 *    that write's read-modify-write; sector 0 is matched to a bio at the
 *    array's start only for the member sector of that bio's stripe. With the
 *    array's geometry (tracker_set_stripe()), any other stripe I/O is
 *    caused by the oldest write in flight on its stripe.
 *  - The class of a tree (top-level, or issued by a layer) comes from the
 *    roles of its root's device (tracker_set_role()), so it never depends
 *    on which event came first. A tree is numbered as it begins; one a
 *    layer issues for a bio in flight names that bio's tree (its cause).
 *  - When a tree completes, each path of it is classed by where it ended:
 *    a disk (nothing below it), a layer that completes such I/O itself
 *    (by its role, or having issued I/O for it), a layer with devices
 *    below that sent nothing down, or a step not seen; the worst is the
 *    I/O's reach, and only a reach of the disks is "matched".
 *
 * A tree is handed out when its root completes. Memory is bounded by the
 * cap on bios in flight and by the timeout: a tree older than the timeout
 * expires (counted once), and stays in the tables for one more timeout, so
 * that its late events are taken by it instead of starting new trees.
 *
 * Why one file of over 1,000 lines: the tracker is one state machine. Its
 * event rules, the lookups in the in-flight tables and the building of
 * trees share the private node, request and device structures, and every
 * one of them runs for every event: kept in one translation unit, the
 * small helpers are inlined on the hot path, which an interface between
 * files would prevent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/lostevent.h"
#include "track/tracker.h"

/* Layers directly above one device that are remembered (a stack is a graph,
 * but a narrow one: dm-snapshot's base has the origin and the snapshot). */
#define TK_MAX_UPPERS 4

struct rq;

struct node {
	/*
	 * Its record, kept up to date in place (r.sector is its start, which
	 * moves on a partial completion): a tree of one bio is handed out
	 * with no copy. The fields that place it in its tree (parent,
	 * parent_dev, depth, complete) are set when the tree completes.
	 */
	struct tk_rec r;
	uint64_t seq;		/* arrival order, for identical keys */
	uint64_t end;		/* sector after its last */
	uint64_t stripe0;	/* parity RAID: member sector + 1 of its stripe at array sector 0 */
	struct node *parent;
	struct node *root;
	struct node *first_child, *next_sibling, *last_child;
	struct rq *rq;		/* request it is part of, while in one */
	struct node *rq_next;	/* next bio of the same request */
	int vidx;		/* index in its device's vector, -1 when out */
	uint32_t pending;	/* children not completed */
	uint32_t ncaused;	/* trees issued for it (set_cause()) */
	bool await_q;		/* brought by a remap, queue event not seen yet */
	bool done;
	bool lost_met;		/* its root entered before a stretch of lost events ended */
	/* root only: set by root_new(), read at no other node */
	bool broken;		/* some step of the tree could not be followed */
	bool expired;		/* timed out: counted, kept to absorb late events */
	uint8_t cls;		/* enum tk_class, before the device's roles apply */
	int32_t pid;
	char comm[16];
	uint32_t issuer;	/* the layer that issued it, when not its own device */
	uint64_t id;		/* the tree's number (struct tk_io) */
	uint64_t cause;		/* the number of the tree it was issued for, 0 if none */
	uint32_t cause_dev;	/* and that tree's root: its device and Q (set_cause()) */
	uint64_t cause_q;
	uint32_t nnodes;
	uint64_t expired_at;
	struct node *tree_next, *tree_prev;	/* list of live trees, oldest first */
};

struct rq {
	uint32_t dev;
	uint8_t op;
	bool issued;
	uint64_t start, end;
	uint64_t g, i, d;
	uint64_t requeued;	/* when it was last requeued, 0 once issued again */
	uint16_t requeues;
	bool lost_met;		/* in flight while events were lost */
	struct node *bios;	/* bios in it, in order of arrival */
	/* request-based dm: the clone of this request on a path, and the
	 * request a clone was made from, while both are in flight */
	struct rq *clone, *origin;
};

struct tdev {
	uint32_t dev;
	unsigned int roles;	/* enum tk_role, told (topology) */
	bool queues;		/* queue events were seen here: not a partition */
	bool receives;		/* remaps into it were seen: a lower device */
	bool sends;		/* remaps out of it were seen: an upper device */
	bool clones;		/* request remaps out of it were seen: request-based dm */
	uint32_t uppers[TK_MAX_UPPERS];	/* devices that send I/O to this one */
	int nuppers;
	struct node **nodes;
	int nnodes, nodes_cap;
	struct rq **rqs;
	int nrqs, rqs_cap;
	/*
	 * A FUA or preflush write whose data completed, while the flush
	 * machinery may still send its post-flush (then completes the request
	 * once more with + 0 at @seq_start): the I/O that flush is for, as
	 * set_cause() names it, and the class it gives.
	 */
	bool seq_open;
	uint8_t seq_cause_cls;
	uint64_t seq_start;
	uint64_t seq_cause;
	uint32_t seq_cause_dev;
	uint64_t seq_cause_q;
	/* that write's bio here, its parent and grandparent, with their
	 * arrival numbers: the bio really ends at the + 0 completion, while a
	 * layer above waits for it */
	struct node *seq_bio;
	uint64_t seq_seq[3];
	/* parity RAID: chunk and data blocks a stripe (tracker_set_stripe()),
	 * and where the members' data starts, once a remap told */
	uint32_t stripe_chunk, stripe_data;
	bool stripe_off_known;
	uint64_t stripe_off;
};

struct tracker {
	struct tk_params p;
	tk_io_fn fn;
	void *ctx;
	struct tk_counters cnt;
	uint64_t seq;
	uint64_t ntrees;	/* trees begun: the last tree's number */
	uint64_t now;
	/* no tree is due to expire or be freed before this (it may be earlier
	 * than the first due time, never later): one compare per event */
	uint64_t sweep_at;
	bool stop_at_remap;	/* tracker_stop_at_remap() */
	/* the latest end of a stretch of lost events (0: none): a tree that
	 * entered the stack before it may have lost an event */
	uint64_t lost_until;

	struct tdev **devs;
	int ndevs, devs_cap;
	struct tdev *last_dev;

	struct node *free_nodes;
	struct rq *free_rqs;
	struct node trees;	/* sentinel of the live-tree list, oldest first */
	struct node zombies;	/* sentinel of the expired-tree list, oldest first */

	struct tk_rec *recs;
	struct node **order;	/* the nodes of recs, same index */
	size_t recs_cap;
};

/* ---- allocation ------------------------------------------------------- */

struct tracker *tracker_alloc(const struct tk_params *p, tk_io_fn fn, void *ctx)
{
	struct tracker *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (p)
		t->p = *p;
	if (!t->p.max_inflight)
		t->p.max_inflight = TK_DEFAULT_MAX_INFLIGHT;
	if (!t->p.timeout_ns)
		t->p.timeout_ns = TK_DEFAULT_TIMEOUT_NS;
	t->fn = fn;
	t->ctx = ctx;
	t->sweep_at = UINT64_MAX;
	t->trees.tree_next = t->trees.tree_prev = &t->trees;
	t->zombies.tree_next = t->zombies.tree_prev = &t->zombies;
	return t;
}

static void free_list_nodes(struct node *n)
{
	while (n) {
		struct node *next = n->next_sibling;

		free(n);
		n = next;
	}
}

/* Free every node of a tree (depth first). */
static void tree_free_all(struct node *n)
{
	struct node *c = n->first_child;

	while (c) {
		struct node *next = c->next_sibling;

		tree_free_all(c);
		c = next;
	}
	free(n);
}

/* Free every tree of a list. */
static void list_free_all(struct node *head)
{
	while (head->tree_next != head) {
		struct node *r = head->tree_next;

		head->tree_next = r->tree_next;
		tree_free_all(r);
	}
}

/* Release every tree, node, request and device; the tracker itself stays. */
static void tracker_release_all(struct tracker *t)
{
	list_free_all(&t->trees);
	list_free_all(&t->zombies);
	free_list_nodes(t->free_nodes);
	while (t->free_rqs) {
		struct rq *next = (struct rq *)t->free_rqs->bios;

		free(t->free_rqs);
		t->free_rqs = next;
	}
	for (int i = 0; i < t->ndevs; i++) {
		for (int j = 0; j < t->devs[i]->nrqs; j++)
			free(t->devs[i]->rqs[j]);
		free(t->devs[i]->nodes);
		free(t->devs[i]->rqs);
		free(t->devs[i]);
	}
	free(t->devs);
	free(t->recs);
	free(t->order);
}

void tracker_free(struct tracker *t)
{
	if (!t)
		return;
	tracker_release_all(t);
	free(t);
}

void tracker_reset(struct tracker *t)
{
	struct tk_params p = t->p;
	tk_io_fn fn = t->fn;
	void *ctx = t->ctx;

	tracker_release_all(t);
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->fn = fn;
	t->ctx = ctx;
	t->sweep_at = UINT64_MAX;
	t->trees.tree_next = t->trees.tree_prev = &t->trees;
	t->zombies.tree_next = t->zombies.tree_prev = &t->zombies;
}

static struct tdev *get_dev_slow(struct tracker *t, uint32_t dev)
{
	struct tdev *d;

	for (int i = 0; i < t->ndevs; i++) {
		if (t->devs[i]->dev == dev) {
			t->last_dev = t->devs[i];
			return t->devs[i];
		}
	}
	if (ARRAY_ROOM(t->devs, t->ndevs, t->devs_cap, 16) < 0)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->dev = dev;
	t->devs[t->ndevs++] = d;
	t->last_dev = d;
	return d;
}

/* The device's state, created on first sight; the last one found, inline. */
static inline struct tdev *get_dev(struct tracker *t, uint32_t dev)
{
	if (t->last_dev && t->last_dev->dev == dev)
		return t->last_dev;
	return get_dev_slow(t, dev);
}

static inline int dev_add_node(struct tdev *d, struct node *n)
{
	if (ARRAY_ROOM(d->nodes, d->nnodes, d->nodes_cap, 16) < 0)
		return -ENOMEM;
	n->vidx = d->nnodes;
	d->nodes[d->nnodes++] = n;
	return 0;
}

static inline void dev_del_node(struct tdev *d, struct node *n)
{
	int i = n->vidx;

	if (i < 0 || i >= d->nnodes || d->nodes[i] != n)
		return;
	d->nodes[i] = d->nodes[--d->nnodes];
	d->nodes[i]->vidx = i;
	n->vidx = -1;
}

static inline int dev_add_rq(struct tdev *d, struct rq *r)
{
	if (ARRAY_ROOM(d->rqs, d->nrqs, d->rqs_cap, 16) < 0)
		return -ENOMEM;
	d->rqs[d->nrqs++] = r;
	return 0;
}

/*
 * Requests stay in their order of arrival (find_rq() takes the first match
 * as the oldest); the one leaving is most often the oldest, at the front.
 */
static inline void dev_del_rq(struct tdev *d, struct rq *r)
{
	int i = 0;

	while (i < d->nrqs && d->rqs[i] != r)
		i++;
	if (i == d->nrqs)
		return;
	/* the last one (often, requests completing out of order) moves nothing */
	if (--d->nrqs > i)
		memmove(&d->rqs[i], &d->rqs[i + 1], (d->nrqs - i) * sizeof(*d->rqs));
}

static inline __attribute__((always_inline)) struct node *
node_new(struct tracker *t, struct tdev *d, const struct blk_event *ev,
	 uint64_t start, uint32_t sectors)
{
	struct node *n;

	/* the cap is on bios, whatever their tree: it bounds memory */
	if (t->cnt.inflight >= t->p.max_inflight) {
		t->cnt.dropped_cap++;
		return NULL;
	}
	n = t->free_nodes;
	if (n)
		t->free_nodes = n->next_sibling;
	else
		n = malloc(sizeof(*n));
	if (!n)
		return NULL;
	/* what every node reads; the root's own fields are root_new()'s */
	n->r = (struct tk_rec){ .dev = d->dev, .sector = start, .parent = -1, .op = ev->op,
				.sectors = sectors, .flags = ev->flags, .q = ev->ts };
	n->seq = ++t->seq;
	n->end = start + sectors;
	n->stripe0 = 0;
	n->parent = NULL;
	n->first_child = n->next_sibling = n->last_child = NULL;
	n->rq = NULL;
	n->rq_next = NULL;
	n->pending = 0;
	n->ncaused = 0;
	n->await_q = false;
	n->done = false;
	if (dev_add_node(d, n)) {
		free(n);
		return NULL;
	}
	t->cnt.inflight++;
	if (t->cnt.inflight > t->cnt.inflight_peak)
		t->cnt.inflight_peak = t->cnt.inflight;
	return n;
}

static void node_release(struct tracker *t, struct node *n)
{
	n->next_sibling = t->free_nodes;
	t->free_nodes = n;
}

static inline struct rq *rq_new(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct rq *r = t->free_rqs;

	if (r)
		t->free_rqs = (struct rq *)r->bios;
	else
		r = malloc(sizeof(*r));
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->dev = d->dev;
	r->op = ev->op;
	r->start = ev->sector;
	r->end = ev->sector + ev->nr_sector;
	r->lost_met = ev->ts < t->lost_until;
	if (dev_add_rq(d, r)) {
		free(r);
		return NULL;
	}
	return r;
}

/* Requests on the free list are chained through their bios pointer. */
static inline void rq_release(struct tracker *t, struct tdev *d, struct rq *r)
{
	for (struct node *b = r->bios; b; b = b->rq_next)
		b->rq = NULL;
	if (r->clone)
		r->clone->origin = NULL;
	if (r->origin)
		r->origin->clone = NULL;
	dev_del_rq(d, r);
	r->bios = (struct node *)t->free_rqs;
	t->free_rqs = r;
}

/* ---- trees ------------------------------------------------------------ */

/* Append @root to the list at @head (live trees, or expired ones). */
static void tree_link(struct node *head, struct node *root)
{
	root->tree_prev = head->tree_prev;
	root->tree_next = head;
	head->tree_prev->tree_next = root;
	head->tree_prev = root;
}

static void tree_unlink(struct node *root)
{
	root->tree_prev->tree_next = root->tree_next;
	root->tree_next->tree_prev = root->tree_prev;
}

/* A tree may be due at @due (a root's Q or expiry plus the timeout): sweep by then. */
static inline void sweep_by(struct tracker *t, uint64_t due)
{
	if (due < t->sweep_at)
		t->sweep_at = due;
}

/* A new tree: inline where every I/O starts one (its queue event), root_new() elsewhere. */
static inline __attribute__((always_inline)) struct node *
root_new_at(struct tracker *t, struct tdev *d, const struct blk_event *ev, uint64_t start,
	    uint32_t sectors)
{
	struct node *n = node_new(t, d, ev, start, sectors);

	if (!n)
		return NULL;
	n->root = n;
	n->lost_met = n->r.q < t->lost_until;
	n->broken = false;
	n->expired = false;
	n->cls = TK_IO_TOP;
	n->pid = ev->pid;
	memcpy(n->comm, ev->comm, sizeof(n->comm));
	n->issuer = 0;
	n->id = ++t->ntrees;
	n->cause = 0;
	n->cause_dev = 0;
	n->cause_q = 0;
	n->nnodes = 1;
	tree_link(&t->trees, n);
	sweep_by(t, n->r.q + t->p.timeout_ns);
	return n;
}

/* root_new_at(), called, from the rules that start trees less often */
static __attribute__((noinline)) struct node *
root_new(struct tracker *t, struct tdev *d, const struct blk_event *ev, uint64_t start,
	 uint32_t sectors)
{
	return root_new_at(t, d, ev, start, sectors);
}

static struct node *child_new(struct tracker *t, struct tdev *d, struct node *parent,
			      const struct blk_event *ev, uint64_t start, uint32_t sectors)
{
	struct node *n = node_new(t, d, ev, start, sectors);

	if (!n) {
		/* the tree has lost a piece: it can no longer be followed whole */
		parent->root->broken = true;
		return NULL;
	}
	n->parent = parent;
	n->root = parent->root;
	n->lost_met = n->root->lost_met;
	n->root->nnodes++;
	if (parent->last_child)
		parent->last_child->next_sibling = n;
	else
		parent->first_child = n;
	parent->last_child = n;
	parent->pending++;
	return n;
}

static int grow_recs(struct tracker *t, size_t need)
{
	struct node **o;
	struct tk_rec *r;
	size_t cap;

	if (need <= t->recs_cap)
		return 0;
	cap = t->recs_cap ? t->recs_cap : 64;
	while (cap < need)
		cap *= 2;
	r = realloc(t->recs, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	t->recs = r;
	o = realloc(t->order, cap * sizeof(*o));
	if (!o)
		return -ENOMEM;
	t->order = o;
	t->recs_cap = cap;
	return 0;
}

/* Whether @d is under another layer: told so, or it received remaps. */
static inline bool dev_lower(const struct tdev *d)
{
	return (d->roles & TK_ROLE_LOWER) || d->receives;
}

/* Whether @d sends its I/O to lower devices: told so, or it remapped. */
static inline bool dev_upper(const struct tdev *d)
{
	return (d->roles & TK_ROLE_UPPER) || d->sends;
}

/*
 * Whether @d is a partition, which only remaps: told so, or it was never
 * seen queueing and is not told to be a layer that does.
 */
static inline bool remap_only(const struct tdev *d)
{
	if (d->roles & TK_ROLE_REMAP_ONLY)
		return true;
	return !d->queues && !(d->roles & (TK_ROLE_UPPER | TK_ROLE_PARITY));
}

/*
 * Whether the layer of @d completes a bio like @x by its own means, with
 * nothing sent down (dm-zero and dm-error, with nothing below, are
 * leaf_end()'s): dm-thin and its pool a read (of a block never
 * provisioned), a discard (the pool discards the data device with pieces
 * of its own) or a flush (a metadata commit); md raid4/5/6 a discard, of
 * which it sends down whole stripes only.
 */
static bool completes_itself(const struct tdev *d, const struct node *x)
{
	if ((d->roles & (TK_ROLE_THIN | TK_ROLE_PARITY)) && x->r.op == BLK_OP_DISCARD)
		return true;
	return (d->roles & TK_ROLE_THIN) &&
	       (x->r.op == BLK_OP_READ || x->r.op == BLK_OP_FLUSH || tk_rec_is_flush(&x->r));
}

/*
 * Where the path that reaches @x, with nothing below it in its tree, ended
 * (enum tk_end). A disk is a device with nothing below it in the stack:
 * request-based or not (zram), it completed the I/O. A layer with devices
 * below (a partition, a dm or md device, a request-based multipath device)
 * that sent nothing down completed it itself when it does so by design,
 * or when it issued I/O for it (md's flushes to its members); otherwise
 * the path was not followed further.
 */
static enum tk_end leaf_end(struct tracker *t, const struct node *x)
{
	struct tdev *d;

	if (!x->done)
		return TK_END_LOST;
	if (x->r.kind == TK_LAYER_REMAP)
		return TK_END_LAYER;
	d = get_dev(t, x->r.dev);
	/* dm-zero and dm-error have nothing below, and are no disk */
	if (d && (d->roles & TK_ROLE_COMPLETES))
		return TK_END_SELF;
	if (!d || !dev_upper(d))
		return TK_END_DISK;
	if (x->ncaused || completes_itself(d, x))
		return TK_END_SELF;
	return TK_END_LAYER;
}

/*
 * What a record's end makes of its tree's reach (the worst one counts).
 * The empty flush that a preflush write with data becomes at a layer is
 * the layer's to serve: served by the layer itself, it leaves the write's
 * data, which reached the disks, followed (@data: the root has data).
 */
static void reach_add(struct tk_io *io, const struct tk_rec *r, bool data)
{
	static const uint8_t of_end[] = {
		[TK_END_NONE] = TK_REACH_DISK, [TK_END_DISK] = TK_REACH_DISK,
		[TK_END_SELF] = TK_REACH_SELF, [TK_END_LAYER] = TK_REACH_ENDED,
		[TK_END_LOST] = TK_REACH_PARTIAL,
	};
	uint8_t reach = r->complete ? of_end[r->end] : TK_REACH_PARTIAL;

	if (reach == TK_REACH_SELF && data && !r->sectors)
		return;
	if (reach > io->reach) {
		io->reach = reach;
		io->end_dev = r->dev;
	}
}

/* Fill records breadth first, so that parents come before children. */
static size_t tree_records(struct tracker *t, struct node *root, struct tk_io *io)
{
	size_t head = 0, tail = 0, n = root->nnodes;
	struct node **queue;

	if (grow_recs(t, n))
		return 0;
	queue = t->order;
	queue[tail++] = root;
	while (head < tail) {
		struct node *x = queue[head];
		struct tk_rec *r = &t->recs[head];
		int32_t parent = -1;

		if (x->parent) {
			/* the parent's record index was stored in its vidx slot */
			parent = x->parent->vidx;
		}
		x->vidx = head;
		*r = x->r;
		r->parent = parent;
		r->parent_dev = x->parent ? x->parent->r.dev : 0;
		r->depth = parent < 0 ? 0 : t->recs[parent].depth + 1;
		r->complete = x->done;
		r->end = x->first_child ? TK_END_NONE : leaf_end(t, x);
		reach_add(io, r, root->r.sectors != 0);
		head++;
		for (struct node *c = x->first_child; c && tail < n; c = c->next_sibling)
			queue[tail++] = c;
	}
	return head;
}

/* Take every node of a tree out of the device vectors and requests. */
static void tree_detach(struct tracker *t, struct node *n)
{
	for (struct node *c = n->first_child; c; c = c->next_sibling)
		tree_detach(t, c);
	if (n->rq) {
		/* unlink from its request; an emptied request stays to match */
		struct node **pp = &n->rq->bios;

		while (*pp && *pp != n)
			pp = &(*pp)->rq_next;
		if (*pp)
			*pp = n->rq_next;
		n->rq = NULL;
	}
	if (n->vidx >= 0) {
		struct tdev *d = get_dev(t, n->r.dev);

		if (d)
			dev_del_node(d, n);
	}
	if (!n->done)
		t->cnt.inflight--;
}

static void tree_release(struct tracker *t, struct node *n)
{
	struct node *c = n->first_child;

	while (c) {
		struct node *next = c->next_sibling;

		tree_release(t, c);
		c = next;
	}
	node_release(t, n);
}

/*
 * The class of a tree: a root at a lower device (@d, the root's) is a
 * layer's I/O, however it came.
 */
static enum tk_class tree_class(const struct node *root, const struct tdev *d)
{
	if (root->cls == TK_IO_TOP && d && dev_lower(d))
		return TK_IO_LAYER;
	return root->cls;
}

/* The root completed at its device @d: hand out the tree and free it (an
 * expired one is only freed: it was counted when it expired). */
static inline __attribute__((always_inline)) void
tree_finish(struct tracker *t, struct node *root, const struct tdev *d)
{
	struct tk_io io;
	size_t n;

	/* a root completed by its request is out of it and of its device */
	if (root->first_child || root->rq || root->vidx >= 0 || !root->done)
		tree_detach(t, root);
	tree_unlink(root);
	if (root->expired) {
		tree_release(t, root);
		return;
	}
	if (__builtin_expect(root->r.q < t->lost_until, 0)) {
		/*
		 * every mark before its completion is in: its life met a
		 * stretch (one that ends at its Q ended with the page it is on)
		 */
		t->cnt.broken_lost++;
		if (tree_class(root, d) == TK_IO_TOP)
			t->cnt.broken_lost_top++;
		tree_release(t, root);
		return;
	}
	io.reach = TK_REACH_DISK;
	io.end_dev = 0;
	if (!root->first_child) {
		/* a tree of one bio (most I/O at a plain disk): its record as it
		 * is, a root's from node_new() (no parent, depth 0) */
		root->r.complete = root->done;
		root->r.end = leaf_end(t, root);
		reach_add(&io, &root->r, false);
		io.recs = &root->r;
		n = 1;
	} else {
		n = tree_records(t, root, &io);
		io.recs = t->recs;
	}
	if (root->broken && io.reach < TK_REACH_PARTIAL) {
		/* a piece of it was never tracked (the cap, a lost source) */
		io.reach = TK_REACH_PARTIAL;
		io.end_dev = root->r.dev;
	}
	io.id = root->id;
	io.pid = root->pid;
	memcpy(io.comm, root->comm, sizeof(io.comm));
	io.cls = tree_class(root, d);
	io.top = io.cls == TK_IO_TOP;
	io.cause = root->cause;
	io.issuer = io.top ? 0 : root->issuer ? root->issuer : root->r.dev;
	io.cause_dev = root->cause ? root->cause_dev : 0;
	io.cause_q = root->cause ? root->cause_q : 0;
	io.matched = io.reach == TK_REACH_DISK;
	io.root = io.recs;
	io.nrecs = n;
	if (io.top) {
		t->cnt.ios_top++;
		t->cnt.ios_top_reach[io.reach]++;
		if (io.matched)
			t->cnt.ios_top_matched++;
	} else if (io.cls == TK_IO_CAUSED) {
		t->cnt.ios_caused++;
	} else if (io.cls == TK_IO_UNEXPLAINED) {
		t->cnt.ios_unexplained++;
	} else {
		t->cnt.ios_layer++;
	}
	if (n && t->fn)
		t->fn(&io, t->ctx);
	if (root->first_child)
		tree_release(t, root);
	else
		node_release(t, root);
}

static void complete_node(struct tracker *t, struct node *n, struct tdev *d, uint64_t ts,
			  int32_t error);

/* A child finished: its parent's up time moves; a remap-only parent ends with it. */
static void child_done(struct tracker *t, struct node *parent, uint64_t ts, int32_t error)
{
	if (ts > parent->r.up)
		parent->r.up = ts;
	if (parent->pending)
		parent->pending--;
	if (!parent->pending && parent->r.kind == TK_LAYER_REMAP && !parent->done)
		complete_node(t, parent, NULL, ts, error);
}

/*
 * @n completed at @ts; @d: its device when the caller has it, else NULL.
 * Inline where every request completes its bios, complete_node() elsewhere.
 */
static inline __attribute__((always_inline)) void
complete_node_at(struct tracker *t, struct node *n, struct tdev *d, uint64_t ts, int32_t error)
{
	if (!d || d->dev != n->r.dev)
		d = get_dev(t, n->r.dev);
	n->r.c = ts;
	n->done = true;
	if (error && !n->r.error)
		n->r.error = error;
	if (n->vidx >= 0 && d)
		dev_del_node(d, n);
	t->cnt.inflight--;
	if (n->parent)
		child_done(t, n->parent, ts, error);
	else
		tree_finish(t, n, d);
}

/* complete_node_at(), called: a child's completion may complete its parent */
static void complete_node(struct tracker *t, struct node *n, struct tdev *d, uint64_t ts,
			  int32_t error)
{
	complete_node_at(t, n, d, ts, error);
}

/* ---- lookups ---------------------------------------------------------- */

/*
 * Whether bio @a matches before @b, of the same key: the older, unless its
 * tree met a stretch of lost events and @b's did not.
 */
static inline bool matches_before(const struct node *a, const struct node *b)
{
	if (a->lost_met != b->lost_met)
		return !a->lost_met;
	return a->seq < b->seq;
}

/* Operations match when equal; flush and FUA flags are not part of identity. */
static inline bool same_op(uint8_t a, uint8_t b)
{
	return a == b;
}

/* The oldest bio waiting for its queue event at start/size. */
static inline __attribute__((always_inline)) struct node *
find_awaiting(struct tdev *d, uint64_t start, uint32_t sectors, uint8_t op)
{
	struct node *best = NULL;

	for (int i = 0; i < d->nnodes; i++) {
		struct node *n = d->nodes[i];

		if (n->await_q && n->r.sector == start && n->r.sectors == sectors && same_op(n->r.op, op) &&
		    (!best || matches_before(n, best)))
			best = n;
	}
	return best;
}

/*
 * The oldest bio in flight whose range holds [start, start + sectors); one
 * of exactly that range that sent nothing down yet first: a 4 KiB read
 * inside an older 64 KiB one in flight is remapped as itself.
 */
static struct node *find_containing(struct tdev *d, uint64_t start, uint32_t sectors, uint8_t op)
{
	struct node *best = NULL, *exact = NULL;

	for (int i = 0; i < d->nnodes; i++) {
		struct node *n = d->nodes[i];

		if (n->await_q || n->r.sector > start || start + sectors > n->end ||
		    !same_op(n->r.op, op))
			continue;
		if (n->r.sector == start && n->r.sectors == sectors && !n->first_child &&
		    (!exact || matches_before(n, exact)))
			exact = n;
		if (!best || matches_before(n, best))
			best = n;
	}
	return exact ? exact : best;
}

/*
 * An empty flush that dm sends to each of its devices names sector 0 there,
 * whatever sector the flush had above: the oldest empty bio in flight.
 */
static struct node *find_empty(struct tdev *d, uint8_t op)
{
	struct node *best = NULL;

	for (int i = 0; i < d->nnodes; i++) {
		struct node *n = d->nodes[i];

		if (!n->await_q && n->r.sector == n->end && same_op(n->r.op, op) &&
		    (!best || matches_before(n, best)))
			best = n;
	}
	return best;
}

/*
 * The oldest bio in flight that asked for a flush before or after its data
 * (PREFLUSH or FUA): the one a flush with no bio of its own serves.
 */
static struct node *find_flushing(struct tdev *d)
{
	struct node *best = NULL;

	for (int i = 0; i < d->nnodes; i++) {
		struct node *n = d->nodes[i];

		if (!n->done && (n->r.flags & (BLK_F_PREFLUSH | BLK_F_FUA)) &&
		    (!best || matches_before(n, best)))
			best = n;
	}
	return best;
}

/*
 * The bio a completion of [start, start + sectors) names: the oldest in
 * flight of exactly that start and size, else the oldest ending there (a
 * completion names the remainder of a split bio). A 4 KiB and a 64 KiB
 * read ending at one sector are both in flight at times: the exact one is
 * the one completed.
 */
static struct node *find_completed(struct tdev *d, uint64_t start, uint32_t sectors, uint8_t op)
{
	struct node *exact = NULL, *best = NULL;

	for (int i = 0; i < d->nnodes; i++) {
		struct node *n = d->nodes[i];

		if (n->end != start + sectors || n->rq || !same_op(n->r.op, op))
			continue;
		if (n->r.sector == start && n->r.sectors == sectors &&
		    (!exact || matches_before(n, exact)))
			exact = n;
		if (!best || matches_before(n, best))
			best = n;
	}
	return exact ? exact : best;
}

/* The oldest queued bio at start/size not yet in a request. */
static inline __attribute__((always_inline)) struct node *
find_unplaced(struct tdev *d, uint64_t start, uint32_t sectors, uint8_t op)
{
	struct node *best = NULL;

	for (int i = 0; i < d->nnodes; i++) {
		struct node *n = d->nodes[i];

		if (!n->rq && !n->r.down && n->r.sector == start && n->r.sectors == sectors &&
		    same_op(n->r.op, op) && (!best || matches_before(n, best)))
			best = n;
	}
	return best;
}

/* The oldest queued bio starting at @start, whatever its size, not in a request. */
static struct node *find_unplaced_at(struct tdev *d, uint64_t start, uint8_t op)
{
	struct node *best = NULL;

	for (int i = 0; i < d->nnodes; i++) {
		struct node *n = d->nodes[i];

		if (!n->rq && !n->r.down && !n->await_q && n->r.sector == start && same_op(n->r.op, op) &&
		    (!best || matches_before(n, best)))
			best = n;
	}
	return best;
}

enum rq_key { RQ_START, RQ_END };

/*
 * The oldest request matching @key == @sector; @issued: -1 any, 0 not, 1
 * yes: the first, as they are in order of arrival, one in flight across a
 * stretch of lost events only when no other matches. Inlined: each
 * caller's constant key and state leave one compare per request in the scan.
 */
static inline __attribute__((always_inline)) struct rq *
find_rq(struct tdev *d, enum rq_key key, uint64_t sector, uint8_t op, int issued)
{
	struct rq *met = NULL;

	for (int i = 0; i < d->nrqs; i++) {
		struct rq *r = d->rqs[i];
		uint64_t v = key == RQ_START ? r->start : r->end;

		if (v != sector || !same_op(r->op, op))
			continue;
		if (issued >= 0 && r->issued != (bool)issued)
			continue;
		if (!r->lost_met)
			return r;
		if (!met)
			met = r;
	}
	return met;
}

/* Whether request @a, later in arrival than @b (or @b NULL), matches before it. */
static inline bool rq_matches_before(const struct rq *a, const struct rq *b)
{
	return !b || (b->lost_met && !a->lost_met);
}

/*
 * The issued request a completion of [start, start + sectors) names: the
 * oldest of exactly that start and size, else the oldest at that start (a
 * completion may cover only the front of a request); of each, one in
 * flight across a stretch of lost events only when no other is.
 */
static struct rq *find_rq_exact(struct tdev *d, uint64_t start, uint32_t sectors, uint8_t op)
{
	struct rq *exact = NULL, *first = NULL;

	for (int i = 0; i < d->nrqs; i++) {
		struct rq *r = d->rqs[i];

		if (!r->issued || r->start != start || !same_op(r->op, op))
			continue;
		if (r->end - r->start == sectors) {
			if (rq_matches_before(r, exact))
				exact = r;
		} else if (rq_matches_before(r, first)) {
			first = r;
		}
	}
	return exact ? exact : first;
}

/* ---- events ----------------------------------------------------------- */

/* Remember that @upper sends I/O to @d. */
static void add_upper(struct tdev *d, uint32_t upper)
{
	for (int i = 0; i < d->nuppers; i++)
		if (d->uppers[i] == upper)
			return;
	if (d->nuppers < TK_MAX_UPPERS)
		d->uppers[d->nuppers++] = upper;
}

/* What find_held() looks for. */
enum held_match {
	HELD_EXACT,	/* the bio itself, released below (or a dm piece of it) */
	HELD_OVERLAP,	/* one whose sectors the I/O below covers */
	HELD_ANY,	/* any one not sent down yet */
};

/*
 * Whether all that went down of @n is its flush: a preflush write whose dm
 * sent the flush ahead and holds the data (dm-snapshot's origin, until the
 * chunk is copied).
 */
static bool flush_sent_only(const struct node *n)
{
	if (!n->first_child || !(n->r.flags & BLK_F_PREFLUSH))
		return false;
	for (const struct node *c = n->first_child; c; c = c->next_sibling)
		if (c->r.sectors)
			return false;
	return true;
}

/*
 * A bio a layer above @d holds, not sent down yet: at @start/@sectors with
 * @op (or, split by dm into pieces, containing them), one it overlaps, or
 * any. dm-snapshot's origin holds a write until the chunk it covers is
 * copied, then releases it to the base device with no remap event; md
 * holds a write until its superblock says the array is dirty.
 */
static struct node *find_held(struct tracker *t, struct tdev *d, uint64_t start,
			      uint32_t sectors, uint8_t op, enum held_match how)
{
	struct node *best = NULL;

	for (int u = 0; u < d->nuppers; u++) {
		struct tdev *up = get_dev(t, d->uppers[u]);

		for (int i = 0; up && i < up->nnodes; i++) {
			struct node *n = up->nodes[i];

			if (n->done || n->await_q || n->rq)
				continue;
			if (how == HELD_ANY) {
				if (n->r.down && !flush_sent_only(n))
					continue;
			} else if (how == HELD_OVERLAP) {
				if ((n->r.down && !flush_sent_only(n)) || n->end <= start ||
				    start + sectors <= n->r.sector)
					continue;
			} else if (!same_op(n->r.op, op)) {
				continue;
			} else if (n->r.splits) {
				/* split by dm into pieces, each held and released */
				if (start < n->r.sector || n->end < start + sectors)
					continue;
			} else if ((n->r.down && !flush_sent_only(n)) || n->r.sector != start ||
				   n->r.sectors != sectors) {
				continue;
			}
			if (!best || matches_before(n, best))
				best = n;
		}
	}
	return best;
}

/*
 * The bio held above that I/O a layer issued at @d serves, or NULL: the one
 * whose chunk it copies (dm-snapshot's read), or for a flush or FUA write
 * (md's superblock) one that waits to be sent down.
 */
static inline struct node *held_for(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct node *held;

	if (!d->nuppers)
		return NULL;
	if (ev->nr_sector &&
	    (held = find_held(t, d, ev->sector, ev->nr_sector, ev->op, HELD_OVERLAP)))
		return held;
	if (!(ev->flags & (BLK_F_PREFLUSH | BLK_F_FUA)))
		return NULL;
	return find_held(t, d, ev->sector, ev->nr_sector, ev->op, HELD_ANY);
}

/*
 * The class of I/O a layer issues for a bio of tree @root: caused when that
 * tree is top-level or caused by one (so through any chain), else I/O of
 * the layers' own.
 */
static enum tk_class class_for(struct tracker *t, const struct node *root)
{
	enum tk_class cls = tree_class(root, get_dev(t, root->r.dev));

	return cls == TK_IO_TOP || cls == TK_IO_CAUSED ? TK_IO_CAUSED : TK_IO_LAYER;
}

/*
 * Tree @n was issued for @cause, a bio in flight (any bio of the I/O it
 * serves): it names @cause's tree, by number and by its root's device and
 * Q (as that tree's row gives them), and takes its class from it. @cause
 * then has I/O issued for it: a path that ends at it was completed by its
 * layer.
 */
static void set_cause(struct tracker *t, struct node *n, struct node *cause)
{
	struct node *root = cause->root;

	n->cls = class_for(t, root);
	n->cause = root->id;
	n->cause_dev = root->r.dev;
	n->cause_q = tk_rec_q(&root->r);
	cause->ncaused++;
}

static void on_queue(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	/* only a remap into @d (which tells it receives) brings a bio awaiting its Q */
	struct node *n = d->receives ? find_awaiting(d, ev->sector, ev->nr_sector, ev->op) : NULL;
	struct node *held;

	d->queues = true;
	if (n) {
		n->await_q = false;
		n->r.qev = ev->ts;
		/* a tree entered at a remap (a partition) learns its task's name here */
		if (!n->root->comm[0] && n->root->pid == ev->pid)
			memcpy(n->root->comm, ev->comm, sizeof(n->root->comm));
		return;
	}
	if (d->nuppers && ev->nr_sector) {
		held = find_held(t, d, ev->sector, ev->nr_sector, ev->op, HELD_EXACT);
		if (held) {
			/* the release of a held bio: its layer's way down ends here */
			n = child_new(t, d, held, ev, ev->sector, ev->nr_sector);
			if (!n)
				return;
			if (!held->r.down)
				held->r.down = ev->ts;
			n->r.qev = ev->ts;
			n->r.linked = true;
			return;
		}
	}
	n = root_new_at(t, d, ev, ev->sector, ev->nr_sector);
	if (!n)
		return;
	n->r.qev = ev->ts;
	/* I/O a device under one layer gets with no remap is that layer's
	 * (dm-cache's and dm-thin's metadata), a partition's aside: it
	 * issues nothing, I/O to the disk is the disk's */
	if (d->nuppers == 1) {
		struct tdev *u = get_dev(t, d->uppers[0]);

		if (u && !remap_only(u))
			n->issuer = u->dev;
	}
	held = held_for(t, d, ev);
	if (held)
		set_cause(t, n, held);
}

/* The oldest bio in flight with @op whose range meets [start, start + sectors). */
static struct node *find_overlapping(struct tdev *d, uint64_t start, uint32_t sectors, uint8_t op)
{
	struct node *best = NULL;

	for (int i = 0; i < d->nnodes; i++) {
		struct node *n = d->nodes[i];

		if (!n->await_q && n->r.sector < start + sectors && start < n->end &&
		    same_op(n->r.op, op) && (!best || matches_before(n, best)))
			best = n;
	}
	return best;
}

/*
 * The write (or discard) in flight at parity RAID @src that stripe I/O md
 * sends to member sector @msec serves: one that covers a data block of
 * that stripe (md's stripes take a page of every member at one sector).
 * Needs the geometry (tracker_set_stripe()) and the members' data offset,
 * which a remap of a data block teaches.
 */
static struct node *stripe_cause(struct tdev *src, const struct blk_event *ev)
{
	uint64_t chunk = src->stripe_chunk, row, off, width = chunk * src->stripe_data;
	uint8_t op = ev->op == BLK_OP_DISCARD ? BLK_OP_DISCARD : BLK_OP_WRITE;
	struct node *best = NULL;

	if (!chunk || !src->stripe_off_known || ev->sector < src->stripe_off)
		return NULL;
	row = (ev->sector - src->stripe_off) / chunk;
	off = (ev->sector - src->stripe_off) % chunk;
	for (uint32_t k = 0; k < src->stripe_data; k++) {
		struct node *n = find_overlapping(src, row * width + k * chunk + off,
						  ev->nr_sector, op);

		if (n && (!best || matches_before(n, best)))
			best = n;
	}
	return best;
}

/*
 * The bio a remap out of parity RAID @src comes from, or NULL. md names the
 * array sector of a data block, or 0 for parity, which names no bio; stripe
 * I/O of its own (the reads of a read-modify-write, parity) serves a write
 * in flight: *@cause.
 */
static struct node *parity_source(struct tdev *src, const struct blk_event *ev,
				  struct node **cause)
{
	struct node *n;

	if (ev->aux_sector && src->stripe_chunk) {
		/* a data block: where the members' data starts */
		uint64_t width = (uint64_t)src->stripe_chunk * src->stripe_data;
		uint64_t at = ev->aux_sector / width * src->stripe_chunk +
			      ev->aux_sector % src->stripe_chunk;

		if (ev->sector >= at) {
			src->stripe_off = ev->sector - at;
			src->stripe_off_known = true;
		}
	}
	if (!ev->aux_sector) {
		/*
		 * Sector 0 names the array's first block and every stripe's
		 * parity. A stripe's blocks lie at one member sector: a bio at
		 * the array's start takes the remaps of its own stripe only,
		 * the first one it gets telling which member sector that is.
		 */
		n = NULL;
		/* the first block is at the members' first data sector */
		if (!src->stripe_off_known || ev->sector == src->stripe_off)
			n = find_containing(src, 0, ev->nr_sector, ev->op);
		if (n && (!n->stripe0 || n->stripe0 == ev->sector + 1)) {
			n->stripe0 = ev->sector + 1;
			return n;
		}
	} else {
		n = find_containing(src, ev->aux_sector, ev->nr_sector, ev->op);
		if (n)
			return n;
	}
	*cause = stripe_cause(src, ev);
	if (!*cause && ev->aux_sector && ev->op == BLK_OP_READ)
		*cause = find_containing(src, ev->aux_sector, ev->nr_sector, BLK_OP_WRITE);
	return NULL;
}

/*
 * The bio a remap out of @src comes from, or NULL. An empty flush (dm's
 * names sector 0, whatever the bio it serves) comes from an empty bio, else
 * from a bio that asked for a preflush: never from a data write that
 * happens to hold its sector.
 */
static struct node *remap_source(struct tdev *src, const struct blk_event *ev,
				 struct node **cause)
{
	struct node *n;

	*cause = NULL;
	if (!ev->nr_sector) {
		n = find_empty(src, ev->op);
		if (!n)
			n = find_flushing(src);
		return n;
	}
	if (src->roles & TK_ROLE_PARITY)
		return parity_source(src, ev, cause);
	return find_containing(src, ev->aux_sector, ev->nr_sector, ev->op);
}

static void on_remap(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct tdev *src_dev = get_dev(t, ev->old_dev);
	struct node *src, *child, *cause;

	if (!src_dev)
		return;
	d->receives = true;
	src_dev->sends = true;
	add_upper(d, src_dev->dev);
	src = remap_source(src_dev, ev, &cause);
	if (!src && !cause) {
		/*
		 * A partition: the bio waits at the whole disk (this remap's
		 * target) at the partition-relative sector. It was really at
		 * the partition, which only remaps.
		 */
		struct node *p = find_awaiting(d, ev->aux_sector, ev->nr_sector, ev->op);

		if (p) {
			dev_del_node(d, p);
			p->r.dev = src_dev->dev;
			p->await_q = false;
			p->r.kind = TK_LAYER_REMAP;
			src_dev->roles |= TK_ROLE_LOWER | TK_ROLE_REMAP_ONLY;
			if (dev_add_node(src_dev, p))
				return;
			src = p;
		}
	}
	if (!src && !remap_only(src_dev)) {
		/*
		 * No bio of @src_dev is the source, and it is a layer that
		 * queues bios of its own: it issued this one itself (md's
		 * stripe I/O, dm's own flushes). The tree is rooted where the
		 * I/O is, below, never top-level and never counted at
		 * @src_dev, which did not queue it; the remap's count says
		 * when no cause was found either.
		 */
		child = root_new(t, d, ev, ev->sector, ev->nr_sector);
		if (!child)
			return;
		child->issuer = src_dev->dev;
		child->await_q = true;
		if (cause) {
			set_cause(t, child, cause);
		} else if (src_dev->roles & TK_ROLE_PARITY) {
			/* a parity RAID's stripe I/O has no source bio by design */
			child->cls = TK_IO_LAYER;
		} else {
			child->cls = TK_IO_UNEXPLAINED;
			t->cnt.unmatched_remap++;
		}
		return;
	}
	if (!src) {
		/*
		 * I/O submitted to a partition enters the trace at its remap
		 * to the disk: a new tree, rooted at a remap-only layer.
		 */
		struct node *held;

		src = root_new(t, src_dev, ev, ev->aux_sector, ev->nr_sector);
		if (!src)
			return;
		src->r.kind = TK_LAYER_REMAP;
		held = held_for(t, src_dev, ev);
		if (held) {
			/* md writes its superblock to each leg while the write waits */
			set_cause(t, src, held);
		} else if (dev_lower(src_dev) && !(src_dev->roles & TK_ROLE_REMAP_ONLY)) {
			/* a partition under a layer: its source was lost */
			t->cnt.unmatched_remap++;
			src->broken = true;
			src->cls = TK_IO_UNEXPLAINED;
		}
	}
	if (!src->r.down)
		src->r.down = ev->ts;
	child = child_new(t, d, src, ev, ev->sector, ev->nr_sector);
	if (child)
		child->await_q = true;
}

static void place_bio(struct node *b, struct rq *r, enum tk_merge how, uint64_t ts);

/*
 * Request-based dm (multipath) clones a request it issued onto a path:
 * block_rq_remap names the path and the request's start at the dm device
 * (a flush request's, at sector -1 on both). The clone is issued on the
 * path with no getrq and no insert; each bio of the dm request gets a
 * child there, in one request.
 */
static void on_rq_remap(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct tdev *src_dev = get_dev(t, ev->old_dev);
	uint64_t from = ev->aux_sector == UINT64_MAX ? 0 : ev->aux_sector;
	struct rq *r = NULL, *clone;

	if (!src_dev)
		return;
	d->receives = true;
	src_dev->sends = true;
	src_dev->clones = true;
	add_upper(d, src_dev->dev);
	for (int i = 0; i < src_dev->nrqs; i++) {
		struct rq *x = src_dev->rqs[i];

		if (x->issued && !x->clone && x->start == from && same_op(x->op, ev->op)) {
			r = x;
			break;
		}
	}
	if (!r || !r->bios) {
		t->cnt.unmatched_rq++;
		return;
	}
	clone = rq_new(t, d, ev);
	if (!clone)
		return;
	clone->origin = r;
	r->clone = clone;
	for (struct node *b = r->bios; b; b = b->rq_next) {
		struct node *c = child_new(t, d, b, ev, ev->sector + (b->r.sector - r->start),
					   b->r.sectors);

		if (!c)
			continue;
		place_bio(c, clone, TK_MERGE_NONE, ev->ts);
		c->r.g = 0;
	}
}

/* Take @n, a leaf, out of its tree: a clone its path never took. */
static void node_drop(struct tracker *t, struct node *n)
{
	struct node *p = n->parent, **pp = &p->first_child;
	struct tdev *d = get_dev(t, n->r.dev);

	while (*pp && *pp != n)
		pp = &(*pp)->next_sibling;
	if (*pp)
		*pp = n->next_sibling;
	p->last_child = NULL;
	for (struct node *c = p->first_child; c; c = c->next_sibling)
		p->last_child = c;
	if (p->pending)
		p->pending--;
	n->root->nnodes--;
	if (d)
		dev_del_node(d, n);
	if (!n->done)
		t->cnt.inflight--;
	node_release(t, n);
}

/*
 * A dm request was requeued: a clone its path rejected before issuing it
 * (an offline device: only block_io_start and block_io_done there) is
 * gone; the request is issued again and cloned onto a path anew.
 */
static void drop_clone(struct tracker *t, struct rq *r)
{
	struct rq *clone = r->clone;
	struct tdev *cd;
	struct node *b, *next;

	if (!clone || clone->issued)
		return;
	cd = get_dev(t, clone->dev);
	b = clone->bios;
	clone->bios = NULL;
	if (cd)
		rq_release(t, cd, clone);
	for (; b; b = next) {
		next = b->rq_next;
		b->rq = NULL;
		node_drop(t, b);
	}
}

/*
 * A split. dm names the remainder (sector == new_sector): the pieces come
 * from the remaps that follow, nothing to do but count. The block layer,
 * splitting a bio to a request-based device's limits, names the piece and
 * the remainder's start (new_sector): the remainder goes on as a bio of its
 * own, without a queue event, so the node is cut in two.
 */
static void on_split(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	uint64_t cut = ev->aux_sector;
	struct node *rest, *n = NULL;

	/* the block layer's: the bio starting at the piece, not yet in a request */
	if (cut > ev->sector && cut - ev->sector <= UINT32_MAX)
		n = find_unplaced_at(d, ev->sector, ev->op);
	if (!n)
		n = find_containing(d, ev->sector, 0, ev->op);
	if (!n)
		return;
	n->r.splits++;
	/* dm: sector == new_sector; the block layer: sector is the piece's start */
	if (ev->sector == cut || ev->sector != n->r.sector || cut >= n->end || n->rq)
		return;
	/*
	 * A bio split by the top layer of a stack (md splits at its chunks):
	 * the bio goes on as the remainder, the pieces are chained to it and
	 * it completes last. It stays one top-level I/O, whole; the pieces'
	 * completions are taken by it (on_bio_complete).
	 */
	if (!n->parent && dev_upper(d))
		return;
	if (n->parent) {
		rest = child_new(t, d, n->parent, ev, cut, n->end - cut);
	} else {
		/* a root split at a disk: the remainder is traced as I/O of its own */
		rest = root_new(t, d, ev, cut, n->end - cut);
		if (rest) {
			rest->pid = n->pid;
			memcpy(rest->comm, n->comm, sizeof(rest->comm));
		}
	}
	if (!rest)
		return;
	rest->r.q = n->r.q;
	rest->r.qev = n->r.qev;
	rest->r.split_rest = true;
	if (!rest->parent)
		sweep_by(t, rest->r.q + t->p.timeout_ns);
	n->end = cut;
	n->r.sectors = cut - n->r.sector;
}

/* A completion that matched nothing in flight: after lost events, its start was lost. */
static void unmatched_complete(struct tracker *t)
{
	t->cnt.unmatched_complete++;
	if (t->lost_until)
		t->cnt.unmatched_after_loss++;
}

static void on_bio_complete(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct node *n = find_completed(d, ev->sector, ev->nr_sector, ev->op);

	if (!n) {
		/*
		 * A piece of a bio split at the top of a stack, which stayed
		 * whole (on_split), completed; md on 6.1 splits at its chunks
		 * with no split event at all: a piece of a bio in flight at a
		 * layer that sends its I/O down is such a piece too.
		 */
		n = find_containing(d, ev->sector, ev->nr_sector, ev->op);
		if (!n || !(n->r.splits || dev_upper(d)) || !ev->nr_sector ||
		    n->end == ev->sector + ev->nr_sector)
			unmatched_complete(t);
		return;
	}
	if (n->r.kind == TK_LAYER_REMAP)
		n->r.kind = TK_LAYER_BIO;
	complete_node(t, n, d, ev->ts, ev->error);
}

static void place_bio(struct node *b, struct rq *r, enum tk_merge how, uint64_t ts)
{
	struct node **pp = &r->bios;

	while (*pp)
		pp = &(*pp)->rq_next;
	*pp = b;
	b->rq_next = NULL;
	b->rq = r;
	b->r.kind = TK_LAYER_REQUEST;
	b->r.merge = how;
	if (how == TK_MERGE_NONE)
		b->r.g = ts;
	else
		b->r.m = ts;
}

static void on_getrq(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct node *b = find_unplaced(d, ev->sector, ev->nr_sector, ev->op);
	struct rq *r = rq_new(t, d, ev);

	if (!r)
		return;
	r->g = ev->ts;
	if (b)
		place_bio(b, r, TK_MERGE_NONE, ev->ts);
}

static void on_bio_merge(struct tracker *t, struct tdev *d, const struct blk_event *ev, bool back)
{
	struct node *b = find_unplaced(d, ev->sector, ev->nr_sector, ev->op);
	struct rq *r;

	r = back ? find_rq(d, RQ_END, ev->sector, ev->op, 0)
		 : find_rq(d, RQ_START, ev->sector + ev->nr_sector, ev->op, 0);
	if (!r) {
		t->cnt.unmatched_rq++;
		return;
	}
	if (back)
		r->end = ev->sector + ev->nr_sector;
	else
		r->start = ev->sector;
	if (b)
		place_bio(b, r, back ? TK_MERGE_BACK : TK_MERGE_FRONT, ev->ts);
}

/* The scheduler merged request @ev into a neighbour: its bios move over. */
static void on_rq_merge(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct rq *from = find_rq(d, RQ_START, ev->sector, ev->op, 0);
	struct rq *into;
	struct node **pp;

	if (!from) {
		t->cnt.unmatched_rq++;
		return;
	}
	into = find_rq(d, RQ_END, from->start, ev->op, 0);
	if (into && into != from) {
		into->end = from->end;
	} else {
		into = find_rq(d, RQ_START, from->end, ev->op, 0);
		if (!into || into == from) {
			t->cnt.unmatched_rq++;
			return;
		}
		into->start = from->start;
	}
	for (struct node *b = from->bios; b; b = b->rq_next) {
		b->rq = into;
		b->r.rq_merged = true;
		/* the bio that started it was merged now (btt's M at its start) */
		if (b->r.merge == TK_MERGE_NONE && !b->r.m)
			b->r.m = ev->ts;
	}
	pp = &into->bios;
	while (*pp)
		pp = &(*pp)->rq_next;
	*pp = from->bios;
	from->bios = NULL;
	rq_release(t, d, from);
}

static void on_insert(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct rq *r = find_rq(d, RQ_START, ev->sector, ev->op, 0);

	if (!r) {
		t->cnt.unmatched_rq++;
		return;
	}
	if (!r->i)
		r->i = ev->ts;
	for (struct node *b = r->bios; b; b = b->rq_next)
		if (!b->r.i)
			b->r.i = ev->ts;
}

static void on_issue(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct rq *r = find_rq(d, RQ_START, ev->sector, ev->op, 0);

	if (!r) {
		/*
		 * A request no bio started: a flush the flush machinery made
		 * for a preflush bio, or a driver command. It is I/O of this
		 * layer: track it as a tree of its own.
		 */
		struct node *flushing = find_flushing(d);
		struct node *n;

		n = root_new(t, d, ev, ev->sector, ev->nr_sector);
		if (!n)
			return;
		if (flushing) {
			set_cause(t, n, flushing);
		} else if (ev->op == BLK_OP_FLUSH && d->seq_open) {
			/* the post-flush of a FUA write whose data completed */
			n->cls = d->seq_cause_cls;
			n->cause = d->seq_cause;
			n->cause_dev = d->seq_cause_dev;
			n->cause_q = d->seq_cause_q;
		} else {
			n->cls = TK_IO_LAYER;
		}
		r = rq_new(t, d, ev);
		if (!r)
			return;
		place_bio(n, r, TK_MERGE_NONE, ev->ts);
		n->r.g = 0;
		n->r.no_q = true;
	}
	r->issued = true;
	r->d = ev->ts;
	for (struct node *b = r->bios; b; b = b->rq_next) {
		b->r.d = ev->ts;
		if (!b->r.down)
			b->r.down = ev->ts;
		/* issued again after a requeue: the wait counts */
		if (r->requeued && ev->ts >= r->requeued)
			b->r.requeue_ns += ev->ts - r->requeued;
	}
	r->requeued = 0;
}

static void on_requeue(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	struct rq *r = find_rq(d, RQ_START, ev->sector, ev->op, 1);

	if (!r) {
		t->cnt.unmatched_rq++;
		return;
	}
	r->issued = false;
	r->requeued = ev->ts;
	r->requeues++;
	for (struct node *b = r->bios; b; b = b->rq_next) {
		b->r.requeues++;
		/* request-based dm: waiting for a path is the layer's own time,
		 * until the issue that goes down a path */
		if (d->clones)
			b->r.down = 0;
	}
	drop_clone(t, r);
}

/*
 * The flush machinery completed a FUA (or preflush) write once more, with
 * + 0, after its post-flush: the write's bio ends now, not at its data's
 * completion. It takes that time where a layer above still waits for it
 * (dm, md; through a partition, which ended with it); a bio at the root of
 * its tree was handed out already. Nodes are kept on a free list and
 * numbered anew when reused: the numbers tell whether they are still the
 * ones noted.
 */
static void post_flush_done(struct tdev *d, uint64_t ts)
{
	struct node *b = d->seq_bio, *x = b, *p;

	d->seq_open = false;
	d->seq_bio = NULL;
	if (!x || x->seq != d->seq_seq[0])
		return;
	for (int i = 1; i < 3; i++) {
		p = x->parent;
		if (!p || p->seq != d->seq_seq[i])
			return;
		if (!p->done) {
			/* the layer still waiting: its bio's path ends now */
			for (struct node *n = b; n != p; n = n->parent)
				n->r.c = ts;
			if (ts > p->r.up)
				p->r.up = ts;
			return;
		}
		/* a partition ended with its bio: the layer above it waits */
		if (p->r.kind != TK_LAYER_REMAP || !p->parent)
			return;
		x = p;
	}
}

static void on_rq_complete(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	uint64_t done_end = ev->sector + ev->nr_sector;
	struct rq *r = find_rq_exact(d, ev->sector, ev->nr_sector, ev->op);
	struct node *b;

	/*
	 * Request-based dm completes a request twice: with its size, then
	 * with + 0. The second names a request already gone, or another one
	 * at the same start, which it must not complete.
	 */
	if (!ev->nr_sector && d->clones && r && r->end > r->start)
		return;
	/* the request of an empty preflush bio completes without an issue */
	if (!r)
		r = find_rq(d, RQ_START, ev->sector, ev->op, 0);
	if (!r) {
		/*
		 * A request whose FUA or preflush the device emulates completes
		 * its data, then once more with no sectors after the flush: the
		 * bios already finished with the data.
		 */
		if (ev->nr_sector)
			unmatched_complete(t);
		else if (d->seq_open && d->seq_start == ev->sector)
			post_flush_done(d, ev->ts);
		return;
	}
	/* complete the bios the completed part covers, front to back */
	while ((b = r->bios) && (b->end <= done_end || done_end >= r->end || !ev->nr_sector)) {
		r->bios = b->rq_next;
		b->rq = NULL;
		b->rq_next = NULL;
		b->r.up = ev->ts;
		if (ev->nr_sector && (b->r.flags & (BLK_F_PREFLUSH | BLK_F_FUA))) {
			d->seq_open = true;
			d->seq_start = r->start;
			d->seq_cause_cls = class_for(t, b->root);
			d->seq_cause = b->root->id;
			d->seq_cause_dev = b->root->r.dev;
			d->seq_cause_q = tk_rec_q(&b->root->r);
			d->seq_bio = b->parent ? b : NULL;
			d->seq_seq[0] = b->seq;
			d->seq_seq[1] = b->parent ? b->parent->seq : 0;
			d->seq_seq[2] = b->parent && b->parent->parent ? b->parent->parent->seq : 0;
		}
		complete_node_at(t, b, d, ev->ts, ev->error);
	}
	if (ev->nr_sector && done_end < r->end) {
		r->start = done_end;	/* a partial completion: the rest is pending */
		return;
	}
	rq_release(t, d, r);
}

/* A tree did not complete in time: count it once, keep it to absorb late events. */
static void tree_expire(struct tracker *t, struct node *root)
{
	tree_unlink(root);
	root->expired = true;
	root->expired_at = t->now;
	t->cnt.expired++;
	if (tree_class(root, get_dev(t, root->r.dev)) == TK_IO_TOP)
		t->cnt.expired_top++;
	tree_link(&t->zombies, root);
	sweep_by(t, root->expired_at + t->p.timeout_ns);
}

/* Free an expired tree whose late events had a whole timeout to come. */
static void tree_drop(struct tracker *t, struct node *root)
{
	tree_detach(t, root);
	tree_unlink(root);
	tree_release(t, root);
}

/*
 * Expire trees older than the timeout, free those expired a timeout ago,
 * and note when the oldest left is due. Called early (t->sweep_at was
 * a bound: the tree it was set for has completed), it does nothing else.
 */
static __attribute__((noinline)) void sweep(struct tracker *t)
{
	while (t->trees.tree_next != &t->trees) {
		struct node *root = t->trees.tree_next;

		if (root->r.q + t->p.timeout_ns > t->now)
			break;
		tree_expire(t, root);
	}
	while (t->zombies.tree_next != &t->zombies) {
		struct node *root = t->zombies.tree_next;

		if (root->expired_at + t->p.timeout_ns > t->now)
			break;
		tree_drop(t, root);
	}
	t->sweep_at = UINT64_MAX;
	if (t->trees.tree_next != &t->trees)
		sweep_by(t, t->trees.tree_next->r.q + t->p.timeout_ns);
	if (t->zombies.tree_next != &t->zombies)
		sweep_by(t, t->zombies.tree_next->expired_at + t->p.timeout_ns);
}

/*
 * One event of a kind a rule takes: its device, the rule @on (inlined: a
 * constant where this is), then the sweep, if due. Returns 0, for
 * tracker_event() to return.
 */
static inline __attribute__((always_inline)) int
take(struct tracker *t, const struct blk_event *ev,
     void (*on)(struct tracker *t, struct tdev *d, const struct blk_event *ev))
{
	struct blk_event static_ev;
	struct tdev *d;

	if (ev->sector == UINT64_MAX) {
		/* a flush request is issued at 0 and completes at -1: one key */
		static_ev = *ev;
		static_ev.sector = 0;
		ev = &static_ev;
	}
	d = get_dev(t, ev->dev);
	if (d)
		on(t, d, ev);
	if (t->now >= t->sweep_at)
		sweep(t);
	return 0;
}

static void on_backmerge(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	on_bio_merge(t, d, ev, true);
}

static void on_frontmerge(struct tracker *t, struct tdev *d, const struct blk_event *ev)
{
	on_bio_merge(t, d, ev, false);
}

typedef int (*rule_fn)(struct tracker *t, const struct blk_event *ev);

/* A rule's entry point: a function each, so that each saves only the registers it uses. */
#define RULE(name, on) \
	static __attribute__((noinline)) int name(struct tracker *t, const struct blk_event *ev) \
	{ \
		return take(t, ev, on); \
	}

RULE(take_queue, on_queue)
RULE(take_split, on_split)
RULE(take_bio_complete, on_bio_complete)
RULE(take_getrq, on_getrq)
RULE(take_backmerge, on_backmerge)
RULE(take_frontmerge, on_frontmerge)
RULE(take_rq_merge, on_rq_merge)
RULE(take_insert, on_insert)
RULE(take_issue, on_issue)
RULE(take_requeue, on_requeue)
RULE(take_rq_complete, on_rq_complete)

static __attribute__((noinline)) int take_rq_remap(struct tracker *t, const struct blk_event *ev)
{
	if (t->stop_at_remap)
		return -ERESTART;
	return take(t, ev, on_rq_remap);
}

/* A remap, unless the read is to start again at the first one (tracker_stop_at_remap()). */
static __attribute__((noinline)) int take_remap(struct tracker *t, const struct blk_event *ev)
{
	if (t->stop_at_remap)
		return -ERESTART;
	return take(t, ev, on_remap);
}

/*
 * A stretch of lost events (lostevent.h): a tree whose root entered the
 * stack before its end, and that completes after its start (every tree
 * completing from now on), may have lost an event. A mark is no event.
 */
static int take_lost(struct tracker *t, const struct blk_event *ev)
{
	t->cnt.events--;
	t->cnt.lost_marks++;
	if (lost_mark_until(ev) > t->lost_until)
		t->lost_until = lost_mark_until(ev);
	/*
	 * and whatever is in flight may have lost its next event: it matches
	 * after what is not (matches_before()). A stretch is rare, its mark
	 * worth a walk of the tables.
	 */
	for (int i = 0; i < t->ndevs; i++) {
		struct tdev *d = t->devs[i];

		for (int j = 0; j < d->nnodes; j++)
			if (d->nodes[j]->root->r.q < t->lost_until)
				d->nodes[j]->lost_met = true;
		for (int j = 0; j < d->nrqs; j++)
			d->rqs[j]->lost_met = true;
	}
	return 0;
}

/* The rule of each kind; none: the event only moves the clock (and may sweep). */
static const rule_fn rules[256] = {
	[LOST_EV_MARK] = take_lost,
	[BLK_EV_BIO_QUEUE] = take_queue, [BLK_EV_BIO_REMAP] = take_remap,
	[BLK_EV_SPLIT] = take_split, [BLK_EV_BIO_COMPLETE] = take_bio_complete,
	[BLK_EV_GETRQ] = take_getrq, [BLK_EV_BIO_BACKMERGE] = take_backmerge,
	[BLK_EV_BIO_FRONTMERGE] = take_frontmerge, [BLK_EV_RQ_MERGE] = take_rq_merge,
	[BLK_EV_RQ_INSERT] = take_insert, [BLK_EV_RQ_ISSUE] = take_issue,
	[BLK_EV_RQ_REQUEUE] = take_requeue, [BLK_EV_RQ_COMPLETE] = take_rq_complete,
	[BLK_EV_RQ_REMAP] = take_rq_remap,
};

/*
 * Half the events of a plain disk have no rule (plug, unplug,
 * block_io_start, block_io_done). A plug or unplug does not even sweep: a
 * tree expires after an event that could have completed it, never before.
 */
static inline bool plug_kind(unsigned int kind)
{
	return kind == BLK_EV_PLUG || kind == BLK_EV_UNPLUG;
}

int tracker_event(const struct blk_event *ev, void *ctx)
{
	struct tracker *t = ctx;
	rule_fn rule = rules[ev->kind];

	t->cnt.events++;
	if (ev->ts > t->now)
		t->now = ev->ts;
	if (rule)
		return rule(t, ev);
	if (!plug_kind(ev->kind) && t->now >= t->sweep_at)
		sweep(t);
	return 0;
}

uint64_t tracker_bare_kinds(void)
{
	uint64_t kinds = 0;

	for (unsigned int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++)
		if (!rules[k])
			kinds |= 1ULL << k;
	return kinds;
}

void tracker_stop_at_remap(struct tracker *t)
{
	t->stop_at_remap = true;
}

void tracker_finish(struct tracker *t)
{
	while (t->trees.tree_next != &t->trees)
		tree_expire(t, t->trees.tree_next);
	while (t->zombies.tree_next != &t->zombies)
		tree_drop(t, t->zombies.tree_next);
}

uint64_t tracker_oldest_q(const struct tracker *t)
{
	/* the list of live trees is in order of creation, that is of their roots' Q */
	return t->trees.tree_next != &t->trees ? t->trees.tree_next->r.q : UINT64_MAX;
}

const struct tk_counters *tracker_counters(const struct tracker *t)
{
	return &t->cnt;
}

void tracker_set_role(struct tracker *t, uint32_t dev, unsigned int roles)
{
	struct tdev *d = get_dev(t, dev);

	if (d)
		d->roles |= roles;
}

/* What a remap or a queue event tells of its devices' roles. */
static __attribute__((noinline)) void learn(struct tracker *t, const struct blk_event *ev)
{
	struct tdev *d;

	if (ev->kind == BLK_EV_BIO_REMAP || ev->kind == BLK_EV_RQ_REMAP) {
		if ((d = get_dev(t, ev->dev))) {
			d->receives = true;
			add_upper(d, ev->old_dev);
		}
		if ((d = get_dev(t, ev->old_dev)))
			d->sends = true;
	} else if ((d = get_dev(t, ev->dev))) {
		d->queues = true;
	}
}

int tracker_learn_event(const struct blk_event *ev, void *ctx)
{
	/* most events tell nothing: they return before any register is saved */
	if (ev->kind == BLK_EV_BIO_REMAP || ev->kind == BLK_EV_RQ_REMAP ||
	    ev->kind == BLK_EV_BIO_QUEUE)
		learn(ctx, ev);
	return 0;
}

void tracker_set_edge(struct tracker *t, uint32_t upper, uint32_t lower)
{
	struct tdev *d = get_dev(t, lower);

	if (d)
		add_upper(d, upper);
}

void tracker_set_stripe(struct tracker *t, uint32_t dev, uint32_t chunk, uint32_t data_disks)
{
	struct tdev *d = get_dev(t, dev);

	if (d && chunk && data_disks) {
		d->stripe_chunk = chunk;
		d->stripe_data = data_disks;
	}
}

unsigned int tracker_roles(const struct tracker *t, uint32_t dev)
{
	for (int i = 0; i < t->ndevs; i++) {
		const struct tdev *d = t->devs[i];

		if (d->dev == dev)
			return d->roles | (dev_lower(d) ? TK_ROLE_LOWER : 0) |
			       (dev_upper(d) ? TK_ROLE_UPPER : 0) |
			       (d->sends && remap_only(d) ? TK_ROLE_REMAP_ONLY : 0);
	}
	return 0;
}
