// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcdecode.c - raw page-cache tracepoint records to struct blk_event.
 *
 * Same scheme as decode.c: fields resolved by name once per event type,
 * then loads at fixed offsets. The events name their fields differently
 * (s_dev or dev, i_ino or ino, index or pos): each logical field has the
 * list of names it may go by.
 */
#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/field.h"
#include "format/pcdecode.h"

enum pc_field {
	PF_DEV, PF_INO, PF_INDEX, PF_ORDER, PF_LAST, PF_REQ, PF_SIZE, PF_COUNT,
	PF_ERROR, PF_NAME, PF_FLAGS, PF_LENGTH, PF_MAX
};

/* The names each field goes by, first match wins. */
static const char *const pc_field_names[PF_MAX][3] = {
	[PF_DEV]   = { "s_dev", "dev", NULL },
	[PF_INO]   = { "i_ino", "ino", NULL },
	[PF_INDEX] = { "index", "pos", NULL },
	[PF_ORDER] = { "order", NULL },
	[PF_LAST]  = { "last_index", NULL },
	[PF_REQ]   = { "req_count", NULL },
	[PF_SIZE]  = { "size", NULL },
	[PF_COUNT] = { "count", NULL },
	[PF_ERROR] = { "error", NULL },
	[PF_NAME]  = { "name", NULL },
	[PF_FLAGS] = { "flags", NULL },
	[PF_LENGTH] = { "length", NULL },
};

struct pc_loc {
	int16_t offset;		/* -1: absent */
	uint8_t size;
};

struct pc_layout {
	bool present;
	int id;
	unsigned int min_size;
	struct pc_loc f[PF_MAX];
};

struct pcdecoder {
	bool swap;
	struct pc_layout kinds[PC_NKINDS];
};

static uint64_t pc_load(const struct pcdecoder *pd, const uint8_t *p, struct pc_loc loc)
{
	return decode_load(p, loc.offset, loc.size, pd->swap);
}

/* One field of one event: a scalar of 1..8 bytes, or the bdi name array. */
static void pc_resolve_field(struct tep_event *event, enum pc_field f, struct pc_loc *loc)
{
	struct tep_format_field *field = NULL;

	loc->offset = -1;
	loc->size = 0;
	for (int i = 0; i < 3 && pc_field_names[f][i] && !field; i++)
		field = tep_find_field(event, pc_field_names[f][i]);
	if (!field || (field->flags & TEP_FIELD_IS_DYNAMIC))
		return;
	if (f == PF_NAME) {
		if (!(field->flags & TEP_FIELD_IS_ARRAY) || field->size <= 0)
			return;
	} else if (field->size != 1 && field->size != 2 && field->size != 4 &&
		   field->size != 8) {
		return;
	}
	if (field->offset < 0 || field->offset > 0x7fff || field->size > 255)
		return;
	loc->offset = field->offset;
	loc->size = field->size;
}

struct pcdecoder *pcdecoder_alloc(struct tep_handle *tep, bool swap)
{
	struct pcdecoder *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	pd->swap = swap;
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++) {
		struct pc_layout *pl = &pd->kinds[k - PC_EV_ADD];
		struct tep_event *event;

		event = tep_find_event_by_name(tep, pc_kind_system(k), pc_kind_name(k));
		if (!event && pc_kind_alt_name(k))
			event = tep_find_event_by_name(tep, pc_kind_system(k), pc_kind_alt_name(k));
		if (!event)
			continue;
		for (int f = 0; f < PF_MAX; f++) {
			pc_resolve_field(event, f, &pl->f[f]);
			if (pl->f[f].offset >= 0 &&
			    (unsigned int)pl->f[f].offset + pl->f[f].size > pl->min_size)
				pl->min_size = pl->f[f].offset + pl->f[f].size;
		}
		/* without an inode, and a device or bdi, an event tells nothing */
		if (pl->f[PF_INO].offset < 0 ||
		    (pl->f[PF_DEV].offset < 0 && pl->f[PF_NAME].offset < 0))
			continue;
		pl->present = true;
		pl->id = event->id;
	}
	return pd;
}

void pcdecoder_free(struct pcdecoder *pd)
{
	free(pd);
}

bool pcdecoder_has(const struct pcdecoder *pd, unsigned int kind)
{
	return pd && pc_kind_is(kind) && pd->kinds[kind - PC_EV_ADD].present;
}

int pcdecoder_event_id(const struct pcdecoder *pd, unsigned int kind)
{
	return pcdecoder_has(pd, kind) ? pd->kinds[kind - PC_EV_ADD].id : -1;
}

uint32_t pc_bdi_dev(const char *name)
{
	uint32_t ma = 0, mi = 0;
	const char *p = name;

	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		ma = ma * 10 + (*p++ - '0');
	if (*p++ != ':' || *p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		mi = mi * 10 + (*p++ - '0');
	if (*p || ma >= (1U << (32 - KDEV_MINORBITS)) || mi >= (1U << KDEV_MINORBITS))
		return 0;
	return KDEV_MKDEV(ma, mi);
}

static uint64_t opt_load(const struct pcdecoder *pd, const uint8_t *p, struct pc_loc loc,
			 uint64_t dflt)
{
	return loc.offset >= 0 ? pc_load(pd, p, loc) : dflt;
}

int pcdecoder_decode(const struct pcdecoder *pd, unsigned int kind, const void *data,
		     unsigned int size, struct blk_event *ev)
{
	const struct pc_layout *pl = &pd->kinds[kind - PC_EV_ADD];
	const uint8_t *p = data;
	uint64_t v;

	if (size < pl->min_size)
		return -EINVAL;
	ev->aux_sector = pc_load(pd, p, pl->f[PF_INO]);
	ev->sector = opt_load(pd, p, pl->f[PF_INDEX], 0);
	ev->dev = opt_load(pd, p, pl->f[PF_DEV], 0);
	ev->old_dev = 0;
	ev->nr_sector = 1;
	ev->bytes = 0;
	ev->count = 0;
	ev->error = 0;
	ev->op = BLK_OP_OTHER;
	ev->flags = 0;
	ev->ioprio = 0;
	ev->comm[0] = '\0';

	switch (kind) {
	case PC_EV_ADD:
	case PC_EV_DELETE:
		v = opt_load(pd, p, pl->f[PF_ORDER], 0);
		ev->nr_sector = v < 31 ? 1U << v : 1;
		break;
	case PC_EV_GET_PAGES:
	case PC_EV_MAP_PAGES:
		v = opt_load(pd, p, pl->f[PF_LAST], ev->sector);
		ev->nr_sector = v >= ev->sector && v - ev->sector < UINT32_MAX ?
				v - ev->sector + 1 : 1;
		break;
	case PC_EV_RA_SYNC:
	case PC_EV_RA_ASYNC:
		v = opt_load(pd, p, pl->f[PF_REQ], 1);
		ev->nr_sector = v < UINT32_MAX ? v : UINT32_MAX;
		ev->count = opt_load(pd, p, pl->f[PF_SIZE], 0);
		break;
	case PC_EV_DIO_BEGIN:
		v = opt_load(pd, p, pl->f[PF_COUNT], 0);
		ev->bytes = v < UINT32_MAX ? v : UINT32_MAX;
		ev->nr_sector = 0;
		break;
	case PC_EV_DIO_END:
		ev->error = (int32_t)opt_load(pd, p, pl->f[PF_ERROR], 0);
		ev->nr_sector = 0;
		break;
	case PC_EV_DIO_ITER:
		v = opt_load(pd, p, pl->f[PF_LENGTH], 0);
		ev->bytes = v < UINT32_MAX ? v : UINT32_MAX;
		ev->count = (uint32_t)opt_load(pd, p, pl->f[PF_FLAGS], 0);
		ev->nr_sector = 0;
		break;
	default:
		break;
	}
	if (pl->f[PF_NAME].offset >= 0) {
		/* writeback events name the bdi, not the superblock */
		size_t n = pl->f[PF_NAME].size < sizeof(ev->comm) - 1 ? pl->f[PF_NAME].size
								       : sizeof(ev->comm) - 1;

		memcpy(ev->comm, p + pl->f[PF_NAME].offset, n);
		ev->comm[n] = '\0';
		ev->dev = pc_bdi_dev(ev->comm);
	}
	return 1;
}
