// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decode.c - raw tracepoint records to struct blk_event.
 *
 * The expensive part, finding fields by name in the format descriptions,
 * happens once in decoder_alloc(). decoder_decode() is on the per-event hot
 * path: an id lookup in a dense table, then loads at known offsets. No
 * tep_print, no string formatting, no allocation. Its common case is inline
 * in decode.h; decoder_decode_slow() here is the rest.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/tickevent.h"
#include "format/decode.h"
#include "format/pcdecode.h"

/* The fields blkstack reads, by the names the kernel gives them. */
enum field {
	F_DEV, F_SECTOR, F_NR_SECTOR, F_BYTES, F_OLD_DEV, F_OLD_SECTOR,
	F_NEW_SECTOR, F_ERROR, F_NR_RQ, F_NR_BIOS, F_IOPRIO, F_RWBS, F_COMM,
	F_MAX
};

_Static_assert(F_MAX == DECODE_NFIELDS, "decode.h sizes the field table");

static const char *const field_names[F_MAX] = {
	[F_DEV] = "dev", [F_SECTOR] = "sector", [F_NR_SECTOR] = "nr_sector",
	[F_BYTES] = "bytes", [F_OLD_DEV] = "old_dev", [F_OLD_SECTOR] = "old_sector",
	[F_NEW_SECTOR] = "new_sector", [F_ERROR] = "error", [F_NR_RQ] = "nr_rq",
	[F_NR_BIOS] = "nr_bios", [F_IOPRIO] = "ioprio", [F_RWBS] = "rwbs",
	[F_COMM] = "comm",
};

static uint64_t load(const struct decoder *d, const uint8_t *p, struct field_loc loc)
{
	return decode_load(p, loc.offset, loc.size, d->swap);
}

/* Resolve one field; arrays (rwbs, comm) keep their length as size. */
static void resolve_field(struct tep_event *event, enum field f, struct field_loc *loc)
{
	struct tep_format_field *field = tep_find_field(event, field_names[f]);

	loc->offset = -1;
	loc->size = 0;
	if (!field || (field->flags & TEP_FIELD_IS_DYNAMIC))
		return;
	if (f == F_RWBS || f == F_COMM) {
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

static int resolve_common(struct tep_event *event, const char *name, struct field_loc *loc)
{
	struct tep_format_field *field = tep_find_common_field(event, name);

	if (!field || field->offset < 0 || (field->size != 2 && field->size != 4))
		return -ENOENT;
	loc->offset = field->offset;
	loc->size = field->size;
	return 0;
}

/*
 * One field for the fast path: false when present with another size than
 * @want; an absent field gets offset 0 and mask 0.
 */
static bool fast_field(const struct field_loc *loc, unsigned int want, uint16_t *off,
		       uint64_t *mask)
{
	*off = 0;
	*mask = 0;
	if (loc->offset < 0)
		return true;
	if (loc->size != want)
		return false;
	*off = loc->offset;
	*mask = want == 8 ? ~0ULL : (1ULL << (8 * want)) - 1;
	return true;
}

/* The shape of a fast layout whose present fields are one of decode.h's sets. */
static void fast_shape_set(struct kind_layout *kl)
{
	static const unsigned int shapes[] = DECODE_SHAPE_FIELDS;
	const struct field_loc *f = kl->f;
	unsigned int has = 0;

	has |= f[F_DEV].offset >= 0 ? DF_DEV : 0;
	has |= f[F_SECTOR].offset >= 0 ? DF_SECTOR : 0;
	has |= f[F_NR_SECTOR].offset >= 0 ? DF_NR_SECTOR : 0;
	has |= f[F_BYTES].offset >= 0 ? DF_BYTES : 0;
	has |= f[F_OLD_DEV].offset >= 0 ? DF_OLD_DEV : 0;
	has |= f[F_OLD_SECTOR].offset >= 0 || f[F_NEW_SECTOR].offset >= 0 ? DF_AUX : 0;
	has |= f[F_ERROR].offset >= 0 ? DF_ERROR : 0;
	has |= f[F_NR_RQ].offset >= 0 || f[F_NR_BIOS].offset >= 0 ? DF_COUNT : 0;
	has |= f[F_IOPRIO].offset >= 0 ? DF_IOPRIO : 0;
	has |= f[F_RWBS].offset >= 0 ? DF_RWBS : 0;
	has |= f[F_COMM].offset >= 0 ? DF_COMM : 0;
	kl->fl.shape = DECODE_SHAPE_ANY;
	for (unsigned int s = DECODE_SHAPE_ANY + 1; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		if (shapes[s] == has)
			kl->fl.shape = s;
}

static void fast_layout_set(struct decoder *d, struct kind_layout *kl)
{
	struct fast_layout *fl = &kl->fl;
	const struct field_loc *aux, *count;
	uint64_t m = 0;
	bool ok = true;

	kl->fast = false;
	if (!d->fast || kl->check_size < 8)
		return;
	aux = kl->f[F_OLD_SECTOR].offset >= 0 ? &kl->f[F_OLD_SECTOR] : &kl->f[F_NEW_SECTOR];
	count = kl->f[F_NR_RQ].offset >= 0 ? &kl->f[F_NR_RQ] : &kl->f[F_NR_BIOS];
	ok &= fast_field(&kl->f[F_DEV], 4, &fl->dev, &m);
	fl->m_dev = m;
	ok &= fast_field(&kl->f[F_SECTOR], 8, &fl->sector, &m);
	fl->m_sector = m;
	ok &= fast_field(&kl->f[F_NR_SECTOR], 4, &fl->nr_sector, &m);
	fl->m_nr_sector = m;
	ok &= fast_field(&kl->f[F_BYTES], 4, &fl->bytes, &m);
	fl->m_bytes = m;
	ok &= fast_field(&kl->f[F_OLD_DEV], 4, &fl->old_dev, &m);
	fl->m_old_dev = m;
	ok &= fast_field(aux, 8, &fl->aux, &m);
	fl->m_aux = m;
	ok &= fast_field(&kl->f[F_ERROR], 4, &fl->error, &m);
	fl->m_error = m;
	ok &= fast_field(count, 4, &fl->count, &m);
	fl->m_count = m;
	ok &= fast_field(&kl->f[F_IOPRIO], 2, &fl->ioprio, &m);
	fl->m_ioprio = m;
	/* rwbs through the memo only (8 bytes or more); comm as the kernel's 16 */
	if (kl->f[F_RWBS].offset >= 0 && kl->f[F_RWBS].size < 8)
		ok = false;
	if (kl->f[F_COMM].offset >= 0 && kl->f[F_COMM].size != 16)
		ok = false;
	fl->rwbs = kl->f[F_RWBS].offset;
	fl->rwbs_size = kl->f[F_RWBS].size;
	fl->comm = kl->f[F_COMM].offset;
	kl->fast = ok;
	fast_shape_set(kl);
}

/*
 * The tick's event, where the formats have it with a "now" of 4 or 8 bytes
 * (unsigned long): d->tick_id stays -1 otherwise.
 */
static void tick_resolve(struct decoder *d, struct tep_handle *tep)
{
	struct tep_event *event = tep_find_event_by_name(tep, TICK_EV_SYSTEM, TICK_EV_NAME);
	struct tep_format_field *now = event ? tep_find_field(event, "now") : NULL;

	d->tick_id = -1;
	if (!now || (now->size != 4 && now->size != 8) || now->offset < 0 || now->offset > 0x7fff)
		return;
	d->tick_now.offset = now->offset;
	d->tick_now.size = now->size;
	d->tick_id = event->id;
}

struct decoder *decoder_alloc(struct tep_handle *tep)
{
	struct decoder *d;
	int max_id = -1;
	int found = 0;

	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->swap = tep_is_file_bigendian(tep) != tep_is_local_bigendian(tep);
	d->rwbs_last_op = UINT8_MAX;
	d->min_id = -1;

	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++) {
		struct kind_layout *kl = &d->kinds[k];
		struct tep_event *event;

		event = tep_find_event_by_name(tep, "block", blk_kind_name(k));
		if (!event)
			continue;
		if (!d->type.size && (resolve_common(event, "common_type", &d->type) ||
				      resolve_common(event, "common_pid", &d->pid))) {
			d->type.size = 0;
			continue;
		}
		for (int f = 0; f < F_MAX; f++) {
			resolve_field(event, f, &kl->f[f]);
			if (kl->f[f].offset >= 0 &&
			    (unsigned int)kl->f[f].offset + kl->f[f].size > kl->min_size)
				kl->min_size = kl->f[f].offset + kl->f[f].size;
		}
		/* plug and unplug name no device; every other block event must */
		if (kl->f[F_DEV].offset < 0 && k != BLK_EV_PLUG && k != BLK_EV_UNPLUG)
			continue;
		kl->present = true;
		kl->id = event->id;
		if (d->min_id < 0 || event->id < d->min_id)
			d->min_id = event->id;
		if (event->id > max_id)
			max_id = event->id;
		found++;
	}
	if (!found) {
		free(d);
		errno = ENOENT;
		return NULL;
	}
	d->fast = !d->swap && d->type.size == 2 && d->pid.size == 4;
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++) {
		struct kind_layout *kl = &d->kinds[k];
		unsigned int pid_end = (unsigned int)d->pid.offset + d->pid.size;

		if (!kl->present)
			continue;
		kl->check_size = kl->min_size > pid_end ? kl->min_size : pid_end;
		fast_layout_set(d, kl);
	}
	/* page-cache events share the id table: one lookup decides for both */
	d->pc = pcdecoder_alloc(tep, d->swap);
	if (!d->pc) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++) {
		int id = pcdecoder_event_id(d->pc, k);

		if (id < 0)
			continue;
		if (id < d->min_id)
			d->min_id = id;
		if (id > max_id)
			max_id = id;
	}
	tick_resolve(d, tep);
	if (d->tick_id >= 0) {
		if (d->tick_id < d->min_id)
			d->min_id = d->tick_id;
		if (d->tick_id > max_id)
			max_id = d->tick_id;
	}
	d->nr_ids = max_id - d->min_id + 1;
	d->ids = calloc(d->nr_ids, sizeof(*d->ids));
	if (!d->ids) {
		pcdecoder_free(d->pc);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < d->nr_ids; i++)
		d->ids[i].fast_size = UINT32_MAX;
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++) {
		const struct kind_layout *kl = &d->kinds[k];
		struct decode_id *e = &d->ids[kl->id - d->min_id];

		if (!kl->present)
			continue;
		e->kind = k;
		if (kl->fast) {
			e->fl = &kl->fl;
			e->fast_size = kl->check_size;
		}
	}
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++)
		if (pcdecoder_has(d->pc, k))
			d->ids[pcdecoder_event_id(d->pc, k) - d->min_id].kind = k;
	if (d->tick_id >= 0)
		d->ids[d->tick_id - d->min_id].kind = TICK_EV_TIMER;
	d->fast_type_end = d->fast ? (unsigned int)d->type.offset + 2 : UINT32_MAX;
	return d;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	free(d->ids);
	pcdecoder_free(d->pc);
	free(d);
}

void decoder_keep_kinds(struct decoder *d, uint64_t kinds)
{
	for (int i = 0; i < d->nr_ids; i++)
		if (d->ids[i].kind && !(kinds & (1ULL << d->ids[i].kind)))
			d->ids[i].kind = 0;
}

void decoder_bare_kinds(struct decoder *d, uint64_t kinds)
{
	d->bare.shape = DECODE_SHAPE_BARE;
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++) {
		const struct kind_layout *kl = &d->kinds[k];

		/* the slow path decodes whole: only a fast layout's entry changes */
		if (kl->present && kl->fast && (kinds & (1ULL << k)))
			d->ids[kl->id - d->min_id].fl = &d->bare;
	}
}

bool decoder_has(const struct decoder *d, enum blk_kind kind)
{
	if (tick_kind_is(kind))
		return d->tick_id >= 0;
	if (pc_kind_is(kind))
		return pcdecoder_has(d->pc, kind);
	return kind > BLK_EV_NONE && kind < BLK_EV_KIND_MAX && d->kinds[kind].present;
}

int decoder_event_id(const struct decoder *d, enum blk_kind kind)
{
	if (tick_kind_is(kind))
		return d->tick_id;
	if (pc_kind_is(kind))
		return pcdecoder_event_id(d->pc, kind);
	return decoder_has(d, kind) ? d->kinds[kind].id : -1;
}

static void copy_str(char *dst, size_t dstlen, const uint8_t *src, struct field_loc loc)
{
	size_t n;

	if (loc.offset < 0) {
		dst[0] = '\0';
		return;
	}
	n = loc.size < dstlen - 1 ? loc.size : dstlen - 1;
	memcpy(dst, src + loc.offset, n);
	dst[n] = '\0';
}

/* A tick: the jiffies, nothing else. */
static int tick_decode(const struct decoder *d, const uint8_t *p, unsigned int size,
		       struct blk_event *ev)
{
	if (size < (unsigned int)d->tick_now.offset + d->tick_now.size)
		return -EINVAL;
	ev->sector = load(d, p, d->tick_now);
	ev->aux_sector = 0;
	ev->dev = ev->old_dev = 0;
	ev->nr_sector = ev->bytes = ev->count = 0;
	ev->error = 0;
	ev->op = BLK_OP_OTHER;
	ev->flags = ev->ioprio = 0;
	ev->comm[0] = '\0';
	return 1;
}

int decoder_decode_slow(struct decoder *d, const void *data, unsigned int size,
			unsigned long long ts, int cpu, struct blk_event *ev)
{
	const struct kind_layout *kl;
	const uint8_t *p = data;
	unsigned int id;
	int kind;

	if (size < (unsigned int)d->type.offset + d->type.size)
		return 0;
	if (d->fast)
		id = decode_rd16(p, d->type.offset) - (unsigned int)d->min_id;
	else
		id = load(d, p, d->type) - (unsigned int)d->min_id;
	if (id >= (unsigned int)d->nr_ids)
		return 0;
	kind = d->ids[id].kind;
	if (!kind)
		return 0;
	if (kind >= BLK_EV_KIND_MAX) {
		if (size < (unsigned int)d->pid.offset + d->pid.size)
			return -EINVAL;
		ev->ts = ts;
		ev->cpu = cpu;
		ev->kind = kind;
		ev->pid = (int32_t)load(d, p, d->pid);
		if (tick_kind_is(kind))
			return tick_decode(d, p, size, ev);
		return pcdecoder_decode(d->pc, kind, p, size, ev);
	}
	kl = &d->kinds[kind];
	if (size < kl->check_size)
		return -EINVAL;

	ev->ts = ts;
	ev->cpu = cpu;
	ev->kind = kind;
	if (kl->fast) {
		decode_fast(d, &kl->fl, p, ev);
		return 1;
	}
	ev->pid = (int32_t)load(d, p, d->pid);
	ev->dev = kl->f[F_DEV].offset >= 0 ? load(d, p, kl->f[F_DEV]) : 0;
	ev->sector = kl->f[F_SECTOR].offset >= 0 ? load(d, p, kl->f[F_SECTOR]) : 0;
	ev->nr_sector = kl->f[F_NR_SECTOR].offset >= 0 ? load(d, p, kl->f[F_NR_SECTOR]) : 0;
	ev->bytes = kl->f[F_BYTES].offset >= 0 ? load(d, p, kl->f[F_BYTES])
					       : (uint64_t)ev->nr_sector << 9;
	ev->old_dev = kl->f[F_OLD_DEV].offset >= 0 ? load(d, p, kl->f[F_OLD_DEV]) : 0;
	if (kl->f[F_OLD_SECTOR].offset >= 0)
		ev->aux_sector = load(d, p, kl->f[F_OLD_SECTOR]);
	else if (kl->f[F_NEW_SECTOR].offset >= 0)
		ev->aux_sector = load(d, p, kl->f[F_NEW_SECTOR]);
	else
		ev->aux_sector = 0;
	ev->error = kl->f[F_ERROR].offset >= 0 ? (int32_t)load(d, p, kl->f[F_ERROR]) : 0;
	if (kl->f[F_NR_RQ].offset >= 0)
		ev->count = load(d, p, kl->f[F_NR_RQ]);
	else if (kl->f[F_NR_BIOS].offset >= 0)
		ev->count = load(d, p, kl->f[F_NR_BIOS]);
	else
		ev->count = 0;
	ev->ioprio = kl->f[F_IOPRIO].offset >= 0 ? load(d, p, kl->f[F_IOPRIO]) : 0;
	if (kl->f[F_RWBS].offset >= 0) {
		const char *rwbs = (const char *)p + kl->f[F_RWBS].offset;

		if (kl->f[F_RWBS].size >= 8)
			rwbs_parse_memo(d, rwbs, kl->f[F_RWBS].size, &ev->op, &ev->flags);
		else
			blk_rwbs_parse(rwbs, kl->f[F_RWBS].size, &ev->op, &ev->flags);
	} else {
		ev->op = BLK_OP_OTHER;
		ev->flags = 0;
	}
	copy_str(ev->comm, sizeof(ev->comm), p, kl->f[F_COMM]);
	return 1;
}
