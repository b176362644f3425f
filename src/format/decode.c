// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decode.c - raw tracepoint records to struct blk_event.
 *
 * The expensive part, finding fields by name in the format descriptions,
 * happens once in decoder_alloc(). decoder_decode() is on the per-event hot
 * path: an id lookup in a dense table, then loads at known offsets. No
 * tep_print, no string formatting, no allocation.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/decode.h"
#include "format/pcdecode.h"

/* The fields blkstack reads, by the names the kernel gives them. */
enum field {
	F_DEV, F_SECTOR, F_NR_SECTOR, F_BYTES, F_OLD_DEV, F_OLD_SECTOR,
	F_NEW_SECTOR, F_ERROR, F_NR_RQ, F_NR_BIOS, F_IOPRIO, F_RWBS, F_COMM,
	F_MAX
};

static const char *const field_names[F_MAX] = {
	[F_DEV] = "dev", [F_SECTOR] = "sector", [F_NR_SECTOR] = "nr_sector",
	[F_BYTES] = "bytes", [F_OLD_DEV] = "old_dev", [F_OLD_SECTOR] = "old_sector",
	[F_NEW_SECTOR] = "new_sector", [F_ERROR] = "error", [F_NR_RQ] = "nr_rq",
	[F_NR_BIOS] = "nr_bios", [F_IOPRIO] = "ioprio", [F_RWBS] = "rwbs",
	[F_COMM] = "comm",
};

struct field_loc {
	int16_t offset;		/* -1: the event has no such field */
	uint8_t size;
};

/*
 * The fast path (decode_fast()): a file in the host's byte order whose fields
 * have the sizes every kernel so far gives them is read by fixed offset and
 * mask, without a branch per field. An absent field is read at offset 0
 * (inside every record: the common fields) and masked to 0.
 */
struct fast_layout {
	uint16_t dev, sector, nr_sector, bytes, old_dev, aux, error, count, ioprio;
	int16_t rwbs, comm;	/* -1: absent */
	uint8_t rwbs_size;
	uint32_t m_dev, m_nr_sector, m_bytes, m_old_dev, m_error, m_count;
	uint64_t m_sector, m_aux;
	uint16_t m_ioprio;
};

struct kind_layout {
	bool present;
	bool fast;		/* fl is usable: see struct fast_layout */
	int id;
	unsigned int min_size;	/* a record shorter than this is malformed */
	unsigned int check_size;	/* max of min_size and the end of common_pid */
	struct field_loc f[F_MAX];
	struct fast_layout fl;
};

#define RWBS_MEMO_SLOTS 64

struct decoder {
	bool swap;		/* file written on a host of the other endianness */
	bool fast;		/* host order, 2-byte common_type, 4-byte common_pid */
	struct field_loc type;	/* common_type */
	struct field_loc pid;	/* common_pid */
	int min_id;
	int nr_ids;
	uint8_t *kind_of_id;	/* dense: id - min_id -> enum blk_kind or pc_kind */
	struct kind_layout kinds[BLK_EV_KIND_MAX];
	/* rwbs strings are few ("R", "WS", "FWFS"...): parsed once each */
	struct rwbs_memo {
		uint64_t key;	/* the string's bytes up to its NUL, zero-padded */
		uint16_t flags;
		uint8_t op;
		bool used;
	} rwbs_memo[RWBS_MEMO_SLOTS];
	struct pcdecoder *pc;	/* the page-cache events (pcdecode.c) */
};

/*
 * An rwbs field of 8 bytes or more (8 on 6.1, 10 on later kernels) through
 * the memo when its string ends within 8 bytes, as all but the rarest do.
 * The bytes after the string's NUL are whatever the ring buffer held: they
 * are masked off the key.
 */
static inline void rwbs_parse_memo(struct decoder *d, const char *rwbs, unsigned int size,
			    uint8_t *op, uint16_t *flags)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	struct rwbs_memo *m;
	uint64_t key, zero;

	memcpy(&key, rwbs, 8);
	key = le64toh(key);
	zero = (key - ones) & ~key & highs;	/* lowest set bit: the first NUL */
	if (!zero) {
		blk_rwbs_parse(rwbs, size, op, flags);
		return;
	}
	key &= (1ULL << (__builtin_ctzll(zero) & ~7)) - 1;
	m = &d->rwbs_memo[(key * 0x9E3779B97F4A7C15ULL) >> 58];
	if (!m->used || m->key != key) {
		m->used = true;
		m->key = key;
		blk_rwbs_parse(rwbs, size, &m->op, &m->flags);
	}
	*op = m->op;
	*flags = m->flags;
}

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
	d->nr_ids = max_id - d->min_id + 1;
	d->kind_of_id = calloc(d->nr_ids, 1);
	if (!d->kind_of_id) {
		pcdecoder_free(d->pc);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++)
		if (d->kinds[k].present)
			d->kind_of_id[d->kinds[k].id - d->min_id] = k;
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++)
		if (pcdecoder_has(d->pc, k))
			d->kind_of_id[pcdecoder_event_id(d->pc, k) - d->min_id] = k;
	return d;
}

void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	free(d->kind_of_id);
	pcdecoder_free(d->pc);
	free(d);
}

bool decoder_has(const struct decoder *d, enum blk_kind kind)
{
	if (pc_kind_is(kind))
		return pcdecoder_has(d->pc, kind);
	return kind > BLK_EV_NONE && kind < BLK_EV_KIND_MAX && d->kinds[kind].present;
}

int decoder_event_id(const struct decoder *d, enum blk_kind kind)
{
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

static inline uint16_t rd16(const uint8_t *p, unsigned int off)
{
	uint16_t v;

	memcpy(&v, p + off, 2);
	return v;
}

static inline uint32_t rd32(const uint8_t *p, unsigned int off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static inline uint64_t rd64(const uint8_t *p, unsigned int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/* decoder_decode() of a block event whose layout is fast (see fast_layout) */
static inline void decode_fast(struct decoder *d, const struct fast_layout *fl, const uint8_t *p,
			       struct blk_event *ev)
{
	uint32_t nr = rd32(p, fl->nr_sector) & fl->m_nr_sector;

	ev->pid = (int32_t)rd32(p, d->pid.offset);
	ev->dev = rd32(p, fl->dev) & fl->m_dev;
	ev->sector = rd64(p, fl->sector) & fl->m_sector;
	ev->nr_sector = nr;
	ev->bytes = (rd32(p, fl->bytes) & fl->m_bytes) | ((nr << 9) & ~fl->m_bytes);
	ev->old_dev = rd32(p, fl->old_dev) & fl->m_old_dev;
	ev->aux_sector = rd64(p, fl->aux) & fl->m_aux;
	ev->error = (int32_t)(rd32(p, fl->error) & fl->m_error);
	ev->count = rd32(p, fl->count) & fl->m_count;
	ev->ioprio = rd16(p, fl->ioprio) & fl->m_ioprio;
	if (fl->rwbs >= 0) {
		rwbs_parse_memo(d, (const char *)p + fl->rwbs, fl->rwbs_size, &ev->op, &ev->flags);
	} else {
		ev->op = BLK_OP_OTHER;
		ev->flags = 0;
	}
	if (fl->comm >= 0) {
		memcpy(ev->comm, p + fl->comm, 16);
		ev->comm[15] = '\0';
	} else {
		ev->comm[0] = '\0';
	}
}

int decoder_decode(struct decoder *d, const void *data, unsigned int size,
		   unsigned long long ts, int cpu, struct blk_event *ev)
{
	const struct kind_layout *kl;
	const uint8_t *p = data;
	unsigned int id;
	int kind;

	if (size < (unsigned int)d->type.offset + d->type.size)
		return 0;
	if (d->fast)
		id = rd16(p, d->type.offset) - (unsigned int)d->min_id;
	else
		id = load(d, p, d->type) - (unsigned int)d->min_id;
	if (id >= (unsigned int)d->nr_ids)
		return 0;
	kind = d->kind_of_id[id];
	if (!kind)
		return 0;
	if (kind >= BLK_EV_KIND_MAX) {
		if (size < (unsigned int)d->pid.offset + d->pid.size)
			return -EINVAL;
		ev->ts = ts;
		ev->cpu = cpu;
		ev->kind = kind;
		ev->pid = (int32_t)load(d, p, d->pid);
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
