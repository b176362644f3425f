// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * layer.c - how every output names a stack's layers and the order it lists
 * them in: one place, so that the tables, the JSON, the page, top, diff
 * and Perfetto agree (see report.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "output/report.h"
#include "track/stackorder.h"

static const char *dev_name(const struct report *r, uint32_t dev, char *buf, size_t len)
{
	if (r->names)
		return topo_record_label(dev, buf, len, (void *)r->names);
	return r->name ? r->name(dev, buf, len, r->name_ctx) : NULL;
}

const char *report_dev_label(const struct report *r, uint32_t dev, char *buf, size_t len)
{
	const char *name = dev_name(r, dev, buf, len);

	if (!name) {
		snprintf(buf, len, "%u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
		name = buf;
	}
	return name;
}

const char *report_dev_kname(const struct report *r, uint32_t dev, char *buf, size_t len)
{
	if (r->names)
		return topo_record_name(dev, buf, len, (void *)r->names);
	return r->name ? r->name(dev, buf, len, r->name_ctx) : NULL;
}

bool report_dev_named(const struct report *r, uint32_t dev)
{
	char buf[64];

	return dev_name(r, dev, buf, sizeof(buf)) != NULL;
}

/*
 * The layer above each layer of @r->st: the one that sent it the most,
 * else the holder its stack names (dm-thin's metadata disk, which only its
 * pool writes to, on its own: under the pool, not a top of its own).
 */
static void layer_parents(const struct report *r, uint32_t *devs, uint32_t *parents)
{
	const struct stats *st = r->st;

	for (size_t i = 0; i < st->nlayers; i++) {
		const struct topo_dev_info *d;

		devs[i] = st->layers[i].dev;
		parents[i] = st->layers[i].parent;
		if (parents[i] && stats_layer(st, parents[i]))
			continue;
		d = r->names ? topo_record_find(r->names, devs[i]) : NULL;
		for (size_t h = 0; d && h < d->nholders; h++)
			if (stats_layer(st, d->holders[h])) {
				parents[i] = d->holders[h];
				break;
			}
	}
}

size_t *report_layer_order(const struct report *r)
{
	size_t n = r->st->nlayers ? r->st->nlayers : 1;
	size_t *order = malloc(n * sizeof(*order));
	uint32_t *devs = malloc(n * sizeof(*devs)), *parents = malloc(n * sizeof(*parents));

	if (order && devs && parents) {
		layer_parents(r, devs, parents);
		stack_order(devs, parents, r->st->nlayers, order);
	} else {
		free(order);
		order = NULL;
	}
	free(devs);
	free(parents);
	return order;
}

int report_layer_depths(const struct report *r, const size_t *order, int *depth)
{
	size_t n = r->st->nlayers ? r->st->nlayers : 1;
	uint32_t *devs = malloc(n * sizeof(*devs)), *parents = malloc(n * sizeof(*parents));

	if (!devs || !parents) {
		free(devs);
		free(parents);
		return -ENOMEM;
	}
	layer_parents(r, devs, parents);
	/* a layer comes after the one it is placed under: its depth is known by then */
	for (size_t k = 0; k < r->st->nlayers; k++) {
		depth[k] = 0;
		for (size_t j = 0; j < k; j++)
			if (devs[order[j]] == parents[order[k]]) {
				depth[k] = depth[j] + 1;
				break;
			}
	}
	free(devs);
	free(parents);
	return 0;
}

int report_devs_order(const struct report *r, const uint32_t *devs, size_t n, size_t *order)
{
	size_t *layers = report_layer_order(r);
	size_t *rank = malloc((n ? n : 1) * sizeof(*rank));

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (!layers || !rank) {
		free(layers);
		free(rank);
		return -ENOMEM;
	}
	/* a device no layer is: after them all, in the order given */
	for (size_t i = 0; i < n; i++) {
		rank[i] = r->st->nlayers + i;
		for (size_t k = 0; k < r->st->nlayers; k++)
			if (r->st->layers[layers[k]].dev == devs[i]) {
				rank[i] = k;
				break;
			}
	}
	/* a handful of rows: insertion sort by rank */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j && rank[order[j - 1]] > rank[order[j]]; j--) {
			size_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	free(layers);
	free(rank);
	return 0;
}
