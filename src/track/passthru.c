// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * passthru.c - the bytes of passthrough requests in flight (passthru.h).
 */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "track/passthru.h"

const struct blk_event *passthru_bytes(struct passthru *p, const struct blk_event *ev,
				       uint32_t dev, struct blk_event *copy)
{
	if (ev->kind == BLK_EV_RQ_ISSUE) {
		/* without room, its completion keeps no bytes: nothing else is lost */
		if (ARRAY_ROOM(p->rqs, p->n, p->cap, 8) == 0)
			p->rqs[p->n++] = (struct passthru_rq){ .dev = dev, .bytes = ev->bytes };
		return ev;
	}
	if (ev->kind != BLK_EV_RQ_COMPLETE)
		return ev;
	for (size_t i = 0; i < p->n; i++) {
		if (p->rqs[i].dev != dev)
			continue;
		*copy = *ev;
		copy->bytes = p->rqs[i].bytes;
		memmove(&p->rqs[i], &p->rqs[i + 1], (p->n - i - 1) * sizeof(*p->rqs));
		p->n--;
		return copy;
	}
	return ev;
}

void passthru_free(struct passthru *p)
{
	free(p->rqs);
	p->rqs = NULL;
	p->n = p->cap = 0;
}
