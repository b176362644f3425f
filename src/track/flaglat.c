// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flaglat.c - latency per layer, operation and rwbs flag combination.
 *
 * The rows are few (a layer sees a handful of combinations), so a linear
 * search finds a record's row; the last row found is tried first, because
 * the records of one tree and of a run of I/O mostly share it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track/flaglat.h"

void flaglat_free(struct flaglat *f)
{
	if (!f)
		return;
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

static struct flaglat_row *row_of(struct flaglat *f, uint32_t dev, uint8_t op, uint16_t flags)
{
	struct flaglat_row *r;

	for (size_t i = f->n; i-- > 0;) {
		r = &f->rows[i];
		if (r->dev == dev && r->op == op && r->flags == flags)
			return r;
	}
	if (f->n == FLAGLAT_MAX_ROWS) {
		f->over++;
		return NULL;
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;

		r = realloc(f->rows, cap * sizeof(*r));
		if (!r)
			return NULL;
		f->rows = r;
		f->cap = cap;
	}
	r = &f->rows[f->n++];
	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->op = op;
	r->flags = flags;
	return r;
}

int flaglat_io(struct flaglat *f, const struct tk_io *io)
{
	for (size_t i = 0; i < io->nrecs; i++) {
		const struct tk_rec *rec = &io->recs[i];
		uint64_t q = tk_rec_q(rec);
		struct flaglat_row *r;
		bool leaf = true;

		/* C - Q at the layer, as the report's total */
		if (!q || rec->c < q)
			continue;
		r = row_of(f, rec->dev, st_op_of_rec(rec), rec->flags & FLAGLAT_MASK);
		if (!r) {
			if (f->n < FLAGLAT_MAX_ROWS)
				return -ENOMEM;
			continue;
		}
		hist_add(&r->total, rec->c - q);
		/* children follow their parent in recs: a leaf has none after it */
		for (size_t j = i + 1; j < io->nrecs; j++)
			if (io->recs[j].parent == (int32_t)i) {
				leaf = false;
				break;
			}
		if (!leaf || rec->kind == TK_LAYER_REMAP)
			continue;
		if (rec->kind == TK_LAYER_REQUEST) {
			if (rec->d && rec->c >= rec->d)
				hist_add(&r->device, rec->c - rec->d);
		} else {
			hist_add(&r->device, rec->c - q);
		}
	}
	return 0;
}

const char *flaglat_name(uint16_t flags, char *buf, size_t len)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} words[] = {
		{ BLK_F_SYNC, "sync" }, { BLK_F_META, "meta" }, { BLK_F_FUA, "fua" },
		{ BLK_F_PREFLUSH, "preflush" }, { BLK_F_RAHEAD, "readahead" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		int w;

		if (!(flags & words[i].bit))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? "," : "", words[i].name);
		if (w < 0 || (size_t)w >= len - used) {
			/* whole words only */
			buf[used] = '\0';
			break;
		}
		used += w;
	}
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

static const struct stats *sort_st;

static size_t layer_index(uint32_t dev)
{
	for (size_t i = 0; sort_st && i < sort_st->nlayers; i++)
		if (sort_st->layers[i].dev == dev)
			return i;
	return SIZE_MAX;
}

static int cmp_row(const void *a, const void *b)
{
	const struct flaglat_row *x = a, *y = b;
	size_t lx = layer_index(x->dev), ly = layer_index(y->dev);

	if (lx != ly)
		return lx < ly ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->op != y->op)
		return x->op < y->op ? -1 : 1;
	return x->flags < y->flags ? -1 : x->flags > y->flags;
}

void flaglat_sort(struct flaglat *f, const struct stats *st)
{
	/* qsort has no context argument in C11: the layer order goes through a static */
	sort_st = st;
	qsort(f->rows, f->n, sizeof(*f->rows), cmp_row);
	sort_st = NULL;
}
