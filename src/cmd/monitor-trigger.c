// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * monitor-trigger.c - the conditions of --record-on met by the I/O itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cmd/monitor-trigger.h"

int mtrig_init(struct mtrig *t, uint64_t latency_ns, uint64_t p99_ns, size_t nlayers)
{
	memset(t, 0, sizeof(*t));
	t->latency_ns = latency_ns;
	t->p99_ns = p99_ns;
	if (!nlayers)
		return 0;
	t->layers = calloc(nlayers, sizeof(*t->layers));
	if (!t->layers)
		return -ENOMEM;
	t->nlayers = nlayers;
	return 0;
}

bool mtrig_io(struct mtrig *t, const struct tk_io *io, char *reason, size_t len)
{
	const struct tk_rec *root = io->root;
	bool said = false;

	if (t->p99_ns && io->top && root->q && root->c >= root->q)
		hist_add(&t->e2e, root->c - root->q);
	for (size_t i = 0; i < io->nrecs; i++) {
		const struct tk_rec *rec = &io->recs[i];
		uint64_t q = tk_rec_q(rec);

		/* the stage total of the layer's histograms: C - Q, both seen */
		if (!q || !rec->c || rec->c < q)
			continue;
		for (size_t k = 0; k < t->nlayers; k++)
			if (rec->dev == t->layers[k].dev)
				hist_add(&t->layers[k].iv, rec->c - q);
		if (t->latency_ns && !reason[0] && !said && rec->c - q > t->latency_ns) {
			snprintf(reason, len, "latency: a bio of %.3f ms at %u:%u",
				 (rec->c - q) / 1e6, KDEV_MAJOR(rec->dev), KDEV_MINOR(rec->dev));
			said = true;
		}
	}
	return said;
}

bool mtrig_interval(struct mtrig *t, char *reason, size_t len)
{
	bool said = false;
	uint64_t p99;

	if (t->p99_ns) {
		p99 = hist_percentile(&t->e2e, 99);
		if (p99 > t->p99_ns && !reason[0]) {
			snprintf(reason, len, "p99: end-to-end p99 of %.3f ms", p99 / 1e6);
			said = true;
		}
		memset(&t->e2e, 0, sizeof(t->e2e));
	}
	for (size_t k = 0; k < t->nlayers; k++) {
		struct mtrig_layer *l = &t->layers[k];

		p99 = hist_percentile(&l->iv, 99);
		if (p99 > l->p99_ns && !reason[0]) {
			snprintf(reason, len, "p99: p99 of %.3f ms at %s (%u:%u)", p99 / 1e6,
				 l->name, KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
			said = true;
		}
		memset(&l->iv, 0, sizeof(l->iv));
	}
	return said;
}

void mtrig_free(struct mtrig *t)
{
	free(t->layers);
	memset(t, 0, sizeof(*t));
}
