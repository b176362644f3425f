// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * layermatch.c - the layers of two recordings paired (see layermatch.h).
 *
 * Device numbers and kernel names are this machine's: vda on one is sda
 * on another, and the two disks of a dm-snapshot may swap numbers from
 * one boot to the next. What stays is what the administrator named (dm
 * and md names) and the place a device fills in the layer above it (the
 * first leg of a stripe, a pool's metadata device).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/event.h"
#include "track/layermatch.h"

/* Holders followed at most: a recorded stack whose holders go round. */
#define ROLE_MAX_DEPTH 16

/* The index of @dev among @devs, or -1. */
static int index_of(const uint32_t *devs, size_t n, uint32_t dev)
{
	for (size_t i = 0; i < n; i++)
		if (devs[i] == dev)
			return (int)i;
	return -1;
}

/* A partition of disk @disk whose place is known (it has a holder), else any. */
static const struct topo_dev_info *partition_of(const struct topo_record *rec, uint32_t disk)
{
	const struct topo_dev_info *any = NULL;

	for (size_t i = 0; i < rec->n; i++) {
		const struct topo_dev_info *p = &rec->devs[i];

		if (p->kind != TOPO_PARTITION || p->parent != disk)
			continue;
		if (p->nholders)
			return p;
		if (!any)
			any = p;
	}
	return any;
}

static void role(const struct topo_record *rec, uint32_t dev, char *buf, size_t len, int depth)
{
	const struct topo_dev_info *d = rec ? topo_record_find(rec, dev) : NULL;
	const struct topo_dev_info *h, *p;
	size_t n;
	int slot;

	if (!d || depth > ROLE_MAX_DEPTH) {
		snprintf(buf, len, "dev %u:%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
		return;
	}
	if (d->kind == TOPO_DM && d->dm_name[0]) {
		snprintf(buf, len, "dm %s", d->dm_name);
		return;
	}
	if (d->kind == TOPO_MD) {
		snprintf(buf, len, "md %s", d->name);
		return;
	}
	h = d->nholders ? topo_record_find(rec, d->holders[0]) : NULL;
	if (h) {
		slot = index_of(h->slots, h->nslots, dev);
		if (slot < 0)
			slot = index_of(h->slaves, h->nslaves, dev);
		role(rec, h->dev, buf, len, depth + 1);
		n = strlen(buf);
		snprintf(buf + n, len - n, "/%d", slot);
		return;
	}
	p = d->kind == TOPO_PARTITION ? NULL : partition_of(rec, dev);
	if (p && p->nholders) {
		role(rec, p->dev, buf, len, depth + 1);
		n = strlen(buf);
		snprintf(buf + n, len - n, "/disk");
		return;
	}
	snprintf(buf, len, "name %s", d->name);
}

const char *layer_role(const struct topo_record *rec, uint32_t dev, char *buf, size_t len)
{
	role(rec, dev, buf, len, 0);
	return buf;
}

int layer_match(const struct topo_record *ra, const uint32_t *a, size_t na,
		const struct topo_record *rb, const uint32_t *b, size_t nb,
		struct layer_pair **out, size_t *n)
{
	bool *used = calloc(nb ? nb : 1, sizeof(*used));
	struct layer_pair *p = calloc(na + nb ? na + nb : 1, sizeof(*p));
	char ka[256], kb[256];

	*out = NULL;
	*n = 0;
	if (!used || !p) {
		free(used);
		free(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < na; i++) {
		p[i].a = a[i];
		layer_role(ra, a[i], ka, sizeof(ka));
		for (size_t j = 0; j < nb && !p[i].b; j++)
			if (!used[j] && !strcmp(ka, layer_role(rb, b[j], kb, sizeof(kb)))) {
				p[i].b = b[j];
				/* a device no stack describes is its number */
				p[i].by_role = strncmp(ka, "dev ", 4) != 0;
				used[j] = true;
			}
	}
	/* what is left: the same device number (an unknown stack, this machine's) */
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb && !p[i].b; j++)
			if (!used[j] && b[j] == a[i]) {
				p[i].b = b[j];
				used[j] = true;
			}
	*n = na;
	for (size_t j = 0; j < nb; j++)
		if (!used[j])
			p[(*n)++].b = b[j];
	free(used);
	*out = p;
	return 0;
}
