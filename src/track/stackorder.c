// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stackorder.c - a stack's layers top first (see stackorder.h).
 *
 * Statistics keep their layers in the order the trace first showed them,
 * which is the order of device numbers more often than the stack's (md's
 * members before md0): every table, the JSON and Perfetto's tracks take
 * this order instead, so that they read as the stack does.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "track/stackorder.h"

struct walk {
	const uint32_t *devs;
	const uint32_t *parents;
	size_t n;
	size_t *by_dev;		/* indexes in device order */
	bool *placed;
	size_t *order;
	size_t done;
};

static int cmp_by_dev(const void *a, const void *b, void *devs)
{
	const uint32_t *d = devs;
	uint32_t x = d[*(const size_t *)a], y = d[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

/* @i, then what is under it, depth first, in device order */
static void place(struct walk *w, size_t i)
{
	w->placed[i] = true;
	w->order[w->done++] = i;
	for (size_t k = 0; k < w->n; k++) {
		size_t j = w->by_dev[k];

		if (!w->placed[j] && j != i && w->parents[j] == w->devs[i])
			place(w, j);
	}
}

static bool is_top(const struct walk *w, size_t i)
{
	if (!w->parents[i] || w->parents[i] == w->devs[i])
		return true;
	for (size_t k = 0; k < w->n; k++)
		if (w->devs[k] == w->parents[i])
			return false;
	return true;
}

int stack_order(const uint32_t *devs, const uint32_t *parents, size_t n, size_t *order)
{
	struct walk w = { .devs = devs, .parents = parents, .n = n, .order = order };

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (n < 2)
		return 0;
	w.by_dev = malloc(n * sizeof(*w.by_dev));
	w.placed = calloc(n, sizeof(*w.placed));
	if (!w.by_dev || !w.placed) {
		free(w.by_dev);
		free(w.placed);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		w.by_dev[i] = i;
	qsort_r(w.by_dev, n, sizeof(*w.by_dev), cmp_by_dev, (void *)devs);
	for (size_t k = 0; k < n; k++)
		if (!w.placed[w.by_dev[k]] && is_top(&w, w.by_dev[k]))
			place(&w, w.by_dev[k]);
	/* parents in a circle: none of them is a top */
	for (size_t k = 0; k < n; k++)
		if (!w.placed[w.by_dev[k]])
			place(&w, w.by_dev[k]);
	free(w.by_dev);
	free(w.placed);
	return 0;
}
