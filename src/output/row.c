// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * row.c - one completed I/O as a row of an export.
 *
 * The tracker hands out every bio of the tree; a row folds them by device.
 * Entry and leaving downward are the earliest of the device's bios (the
 * I/O reached the layer, the layer started passing it down), the lower
 * completion and the completion the latest (the layer waited for the last
 * piece): the same reading as the report's per-layer latencies, for one I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "output/row.h"

static const char *const op_names[BLK_OP_MAX] = {
	[BLK_OP_READ] = "read", [BLK_OP_WRITE] = "write", [BLK_OP_DISCARD] = "discard",
	[BLK_OP_SECURE_ERASE] = "secure-erase", [BLK_OP_FLUSH] = "flush",
	[BLK_OP_OTHER] = "other",
};

const char *row_op_name(uint8_t op)
{
	return op < BLK_OP_MAX ? op_names[op] : "other";
}

const char *row_kind_name(uint8_t kind)
{
	switch (kind) {
	case TK_LAYER_BIO:
		return "bio";
	case TK_LAYER_REQUEST:
		return "request";
	case TK_LAYER_REMAP:
		return "remap";
	default:
		return "?";
	}
}

const char *row_class_name(uint8_t cls)
{
	static const char *const names[TK_CLASSES] = {
		[TK_IO_TOP] = "top", [TK_IO_CAUSED] = "caused", [TK_IO_LAYER] = "own",
		[TK_IO_UNEXPLAINED] = "unexplained",
	};

	return cls < TK_CLASSES ? names[cls] : "?";
}

const char *row_reach_name(uint8_t reach)
{
	static const char *const names[TK_REACHES] = {
		[TK_REACH_DISK] = "disk", [TK_REACH_SELF] = "self", [TK_REACH_ENDED] = "ended",
		[TK_REACH_PARTIAL] = "partial",
	};

	return reach < TK_REACHES ? names[reach] : "?";
}

const char *row_end_name(uint8_t end)
{
	switch (end) {
	case TK_END_DISK:
		return "disk";
	case TK_END_SELF:
		return "self";
	case TK_END_LAYER:
		return "ended";
	case TK_END_LOST:
		return "lost";
	default:
		return NULL;
	}
}

void row_release(struct row *r)
{
	free(r->layers);
	r->layers = NULL;
	r->nlayers = r->layers_cap = 0;
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

static uint64_t latest(uint64_t a, uint64_t b)
{
	return b > a ? b : a;
}

static struct row_layer *layer_of(struct row *r, const struct tk_rec *rec)
{
	struct row_layer *l;

	for (size_t i = 0; i < r->nlayers; i++)
		if (r->layers[i].dev == rec->dev)
			return &r->layers[i];
	if (ARRAY_ROOM(r->layers, r->nlayers, r->layers_cap, 8) < 0)
		return NULL;
	l = &r->layers[r->nlayers++];
	*l = (struct row_layer){
		.dev = rec->dev, .parent_dev = rec->parent_dev, .depth = rec->depth,
		.kind = rec->kind, .no_q = true,
	};
	return l;
}

/* By depth, then by entry: the order in which the I/O went down. */
static void sort_layers(struct row *r)
{
	for (size_t i = 1; i < r->nlayers; i++) {
		struct row_layer x = r->layers[i];
		size_t j = i;

		while (j > 0 && (r->layers[j - 1].depth > x.depth ||
				 (r->layers[j - 1].depth == x.depth && r->layers[j - 1].q > x.q))) {
			r->layers[j] = r->layers[j - 1];
			j--;
		}
		r->layers[j] = x;
	}
}

int row_build(struct row *r, const struct tk_io *io)
{
	const struct tk_rec *root = io->root;

	r->io = io->id;
	r->top = io->top;
	r->cls = io->cls;
	r->cause = io->cause;
	r->cause_dev = io->cause_dev;
	r->cause_q = io->cause_q;
	r->issuer = io->issuer;
	r->reach = io->reach;
	r->end_dev = io->end_dev;
	r->matched = io->matched;
	/* an empty preflush bio is a flush, as the report counts it */
	r->op = tk_rec_is_flush(root) ? BLK_OP_FLUSH : root->op;
	r->dev = root->dev;
	r->sector = root->sector;
	r->bytes = (uint64_t)root->sectors << 9;
	r->pid = io->pid;
	memcpy(r->comm, io->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = '\0';
	r->q = tk_rec_q(root);
	r->c = root->c;
	r->error = root->error;
	r->nlayers = 0;
	for (size_t i = 0; i < io->nrecs; i++) {
		const struct tk_rec *rec = &io->recs[i];
		struct row_layer *l = layer_of(r, rec);

		if (!l)
			return -ENOMEM;
		if (rec->depth < l->depth) {
			l->depth = rec->depth;
			l->parent_dev = rec->parent_dev;
		}
		l->bios++;
		l->bytes += (uint64_t)rec->sectors << 9;
		l->q = earliest(l->q, tk_rec_q(rec));
		l->down = earliest(l->down, rec->down);
		l->up = latest(l->up, rec->up);
		l->c = latest(l->c, rec->c);
		l->splits += rec->splits;
		l->requeues += rec->requeues;
		l->requeue_ns += rec->requeue_ns;
		if (rec->end > l->end)
			l->end = rec->end;
		l->no_q &= rec->no_q;
		if (rec->merge != TK_MERGE_NONE)
			l->merges++;
		if (rec->error && !l->error)
			l->error = rec->error;
	}
	sort_layers(r);
	return 0;
}
