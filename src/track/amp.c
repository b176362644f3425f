// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * amp.c - amplification per layer (see amp.h). Fixed memory per layer.
 */
#include <stdlib.h>
#include <string.h>

#include "track/amp.h"

void amp_init(struct amp *a)
{
	memset(a, 0, sizeof(*a));
}

void amp_destroy(struct amp *a)
{
	free(a->layers);
	amp_init(a);
}

static struct amp_layer *layer_of(struct amp *a, uint32_t dev)
{
	for (size_t i = 0; i < a->nlayers; i++)
		if (a->layers[i].dev == dev)
			return &a->layers[i];
	if (a->nlayers == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 8;
		struct amp_layer *n = realloc(a->layers, cap * sizeof(*n));

		if (!n)
			return NULL;
		a->layers = n;
		a->cap = cap;
	}
	a->layers[a->nlayers] = (struct amp_layer){ .dev = dev };
	return &a->layers[a->nlayers++];
}

void amp_io(const struct tk_io *io, void *ctx)
{
	struct amp *a = ctx;

	if (!io->nrecs)
		return;
	if (io->top) {
		a->top_ios++;
		a->top_bytes += (uint64_t)io->root->sectors << 9;
	}
	for (size_t i = 0; i < io->nrecs; i++) {
		const struct tk_rec *r = &io->recs[i];
		struct amp_layer *l = layer_of(a, r->dev);
		uint64_t bytes = (uint64_t)r->sectors << 9;

		if (!l)
			continue;
		l->kind = r->kind;
		if (io->top) {
			l->serve_ios++;
			l->serve_bytes += bytes;
		} else {
			l->own_ios++;
			l->own_bytes += bytes;
		}
	}
}

double amp_bytes(const struct amp *a, const struct amp_layer *l)
{
	return a->top_bytes ? (double)(l->serve_bytes + l->own_bytes) / (double)a->top_bytes : 0.0;
}

double amp_ios(const struct amp *a, const struct amp_layer *l)
{
	return a->top_ios ? (double)(l->serve_ios + l->own_ios) / (double)a->top_ios : 0.0;
}
