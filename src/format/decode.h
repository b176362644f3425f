/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode.h - raw tracepoint records to struct blk_event.
 *
 * At start-up every field the tool uses is looked up by name, per event type,
 * in the running kernel's (or the file's) format descriptions; the hot path
 * then reads fixed offsets. Field layouts move between kernel versions
 * (block_rq_* gained ioprio, block_rq_requeue lost error, block_io_start is
 * new in 6.5): resolving by name is what lets one binary read them all.
 */
#ifndef BLKSTACK_DECODE_H
#define BLKSTACK_DECODE_H

#include <endian.h>
#include <event-parse.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/event.h"
#include "format/field.h"

/**
 * decoder_alloc - resolve the block events of @tep into a decode table
 * @tep: a handle with the "block" system's formats parsed
 *
 * Events the handle lacks are simply absent (see decoder_has()); a present
 * event whose fields cannot be resolved is treated as absent too.
 *
 * Returns a decoder, or NULL with errno set (ENOMEM, or ENOENT when the
 * handle has no block event at all).
 */
struct decoder *decoder_alloc(struct tep_handle *tep);

/** decoder_free - release a decoder; NULL is accepted */
void decoder_free(struct decoder *d);

/**
 * decoder_has - whether the kernel/file had a usable event of this kind
 * @d: the decoder
 * @kind: an enum blk_kind value
 */
bool decoder_has(const struct decoder *d, enum blk_kind kind);

/**
 * decoder_event_id - the tep event id of @kind, or -1 when absent
 * @d: the decoder
 * @kind: an enum blk_kind value
 */
int decoder_event_id(const struct decoder *d, enum blk_kind kind);

/**
 * decoder_keep_kinds - decode only some kinds: the records of the others
 * read as records of another event type (decoder_decode() returns 0)
 * @kinds: a bit per kind, 1ULL << kind (enum blk_kind, pc_kind or tick_kind)
 */
void decoder_keep_kinds(struct decoder *d, uint64_t kinds);

/**
 * decoder_bare_kinds - for some block kinds, fill only the kind, the time
 * and the CPU of an event (its other fields are left as they were): for a
 * consumer that reads nothing else of them. A record too short for its
 * format is still malformed.
 * @kinds: a bit per kind, 1ULL << kind (enum blk_kind)
 */
void decoder_bare_kinds(struct decoder *d, uint64_t kinds);

/**
 * decoder_decode_slow - decoder_decode() outside its inline common case
 * (another byte order, unusual field sizes, page-cache and other events)
 */
int decoder_decode_slow(struct decoder *d, const void *data, unsigned int size,
			unsigned long long ts, int cpu, struct blk_event *ev);

/*
 * ---- the per-event path, inline in the readers' loops -------------------
 * The decoder's tables are here for decoder_decode() only: they are filled
 * by decoder_alloc() and read nowhere else.
 */

/* the fields blkstack reads (enum field in decode.c) */
#define DECODE_NFIELDS 13

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
	uint8_t shape;		/* enum decode_shape: which fields are there */
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
	struct field_loc f[DECODE_NFIELDS];
	struct fast_layout fl;
};

#define RWBS_MEMO_SLOTS 64

/*
 * An event id's entry: what the per-event path needs in one load, the
 * kind and, for a block event of a fast layout, that layout and the
 * record size it needs (UINT32_MAX otherwise: no record is that long).
 */
struct decode_id {
	const struct fast_layout *fl;
	uint32_t fast_size;
	uint8_t kind;		/* enum blk_kind, pc_kind or tick_kind; 0: not decoded */
};

struct decoder {
	bool swap;		/* file written on a host of the other endianness */
	bool fast;		/* host order, 2-byte common_type, 4-byte common_pid */
	unsigned int fast_type_end;	/* end of common_type when fast, else UINT32_MAX */
	struct field_loc type;	/* common_type */
	struct field_loc pid;	/* common_pid */
	int min_id;
	int nr_ids;
	struct decode_id *ids;	/* dense: id - min_id */
	struct kind_layout kinds[BLK_EV_KIND_MAX];
	/* rwbs strings are few ("R", "WS", "FWFS"...): parsed once each */
	struct rwbs_memo {
		uint64_t key;	/* the string's bytes up to its NUL, zero-padded */
		uint16_t flags;
		uint8_t op;
		bool used;
	} rwbs_memo[RWBS_MEMO_SLOTS];
	uint64_t rwbs_last;	/* the last rwbs field's 8 bytes, as they were */
	uint16_t rwbs_last_flags;
	uint8_t rwbs_last_op;	/* UINT8_MAX: none */
	struct fast_layout bare;	/* the layout of the kinds decoder_bare_kinds() named */
	struct pcdecoder *pc;	/* the page-cache events (pcdecode.c) */
	int tick_id;		/* timer_expire_entry (tickevent.h), or -1 */
	struct field_loc tick_now;	/* its "now": the jiffies */
};

/*
 * An rwbs field of 8 bytes or more (8 on 6.1, 10 on later kernels) through
 * the memo when its string ends within 8 bytes, as all but the rarest do.
 * The bytes after the string's NUL are whatever the ring buffer held: they
 * are masked off the key.
 */
static inline __attribute__((always_inline)) void
rwbs_parse_memo(struct decoder *d, const char *rwbs, unsigned int size, uint8_t *op,
		uint16_t *flags)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	struct rwbs_memo *m;
	uint64_t key, zero;

	memcpy(&key, rwbs, 8);
	/* the same 8 bytes as the last record's, NUL included: the same string */
	if (key == d->rwbs_last && d->rwbs_last_op != UINT8_MAX) {
		*op = d->rwbs_last_op;
		*flags = d->rwbs_last_flags;
		return;
	}
	d->rwbs_last = key;
	key = le64toh(key);
	zero = (key - ones) & ~key & highs;	/* lowest set bit: the first NUL */
	if (!zero) {
		d->rwbs_last_op = UINT8_MAX;
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
	*op = d->rwbs_last_op = m->op;
	*flags = d->rwbs_last_flags = m->flags;
}

static inline uint16_t decode_rd16(const uint8_t *p, unsigned int off)
{
	uint16_t v;

	memcpy(&v, p + off, 2);
	return v;
}

static inline uint32_t decode_rd32(const uint8_t *p, unsigned int off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static inline uint64_t decode_rd64(const uint8_t *p, unsigned int off)
{
	uint64_t v;

	memcpy(&v, p + off, 8);
	return v;
}

/* The fields of a fast layout, a bit each (struct fast_layout). */
#define DF_DEV		(1U << 0)
#define DF_SECTOR	(1U << 1)
#define DF_NR_SECTOR	(1U << 2)
#define DF_BYTES	(1U << 3)
#define DF_OLD_DEV	(1U << 4)
#define DF_AUX		(1U << 5)
#define DF_ERROR	(1U << 6)
#define DF_COUNT	(1U << 7)
#define DF_IOPRIO	(1U << 8)
#define DF_RWBS		(1U << 9)
#define DF_COMM		(1U << 10)

#define DF_BIO		(DF_DEV | DF_SECTOR | DF_NR_SECTOR | DF_RWBS)

/*
 * The field sets of the block events of the kernels of these years (6.x):
 * a layout with one of them is decoded by code that knows which fields are
 * there, without loading and masking the absent ones. Any other set
 * (older kernels, a future field) takes the masked loads of DECODE_SHAPE_ANY.
 */
enum decode_shape {
	DECODE_SHAPE_ANY,
	DECODE_SHAPE_BIO,	/* queue, merges, getrq: DF_BIO | DF_COMM */
	DECODE_SHAPE_RQ,	/* rq insert/issue, io start/done: + bytes, ioprio */
	DECODE_SHAPE_RQ_DONE,	/* rq complete/error: DF_BIO | error, ioprio */
	DECODE_SHAPE_BIO_DONE,	/* bio complete: DF_BIO | error */
	DECODE_SHAPE_REMAP,	/* bio remap: DF_BIO | old_dev, old_sector */
	DECODE_SHAPE_PLUG,	/* plug: comm */
	DECODE_SHAPE_UNPLUG,	/* unplug: nr_rq, comm */
	/* not a field set (last, out of DECODE_SHAPE_FIELDS): decoder_bare_kinds() */
	DECODE_SHAPE_BARE,
};

#define DECODE_SHAPE_FIELDS { \
	[DECODE_SHAPE_BIO] = DF_BIO | DF_COMM, \
	[DECODE_SHAPE_RQ] = DF_BIO | DF_BYTES | DF_IOPRIO | DF_COMM, \
	[DECODE_SHAPE_RQ_DONE] = DF_BIO | DF_ERROR | DF_IOPRIO, \
	[DECODE_SHAPE_BIO_DONE] = DF_BIO | DF_ERROR, \
	[DECODE_SHAPE_REMAP] = DF_BIO | DF_OLD_DEV | DF_AUX, \
	[DECODE_SHAPE_PLUG] = DF_COMM, \
	[DECODE_SHAPE_UNPLUG] = DF_COUNT | DF_COMM, \
}

/*
 * A field for decode_fields(): 0 when not in @has; as loaded when @has is a
 * shape's (its size is the one loaded: the mask is all ones); masked when
 * @has is ~0U (absent: at offset 0, masked to 0).
 */
#define DF_FIELD(has, bit, rd, p, off, mask) \
	((has) & (bit) ? ((has) == ~0U ? rd(p, off) & (mask) : rd(p, off)) : 0)

/*
 * decode_fast() for the fields in @has (a constant where it is inlined),
 * or with @has ~0U, every field by masked load.
 */
static inline __attribute__((always_inline)) void
decode_fields(struct decoder *d, const struct fast_layout *fl, const uint8_t *p,
	      struct blk_event *ev, const unsigned int has)
{
	uint32_t nr = DF_FIELD(has, DF_NR_SECTOR, decode_rd32, p, fl->nr_sector, fl->m_nr_sector);

	ev->pid = (int32_t)decode_rd32(p, d->pid.offset);
	ev->dev = DF_FIELD(has, DF_DEV, decode_rd32, p, fl->dev, fl->m_dev);
	ev->sector = DF_FIELD(has, DF_SECTOR, decode_rd64, p, fl->sector, fl->m_sector);
	ev->nr_sector = nr;
	if (has == ~0U)
		ev->bytes = (decode_rd32(p, fl->bytes) & fl->m_bytes) | ((nr << 9) & ~fl->m_bytes);
	else
		ev->bytes = has & DF_BYTES ? decode_rd32(p, fl->bytes) : nr << 9;
	ev->old_dev = DF_FIELD(has, DF_OLD_DEV, decode_rd32, p, fl->old_dev, fl->m_old_dev);
	ev->aux_sector = DF_FIELD(has, DF_AUX, decode_rd64, p, fl->aux, fl->m_aux);
	ev->error = (int32_t)DF_FIELD(has, DF_ERROR, decode_rd32, p, fl->error, fl->m_error);
	ev->count = DF_FIELD(has, DF_COUNT, decode_rd32, p, fl->count, fl->m_count);
	ev->ioprio = DF_FIELD(has, DF_IOPRIO, decode_rd16, p, fl->ioprio, fl->m_ioprio);
	if ((has & DF_RWBS) && (has != ~0U || fl->rwbs >= 0)) {
		rwbs_parse_memo(d, (const char *)p + fl->rwbs, fl->rwbs_size, &ev->op, &ev->flags);
	} else {
		ev->op = BLK_OP_OTHER;
		ev->flags = 0;
	}
	if ((has & DF_COMM) && (has != ~0U || fl->comm >= 0)) {
		memcpy(ev->comm, p + fl->comm, 16);
		ev->comm[15] = '\0';
	} else {
		ev->comm[0] = '\0';
	}
}

/* decoder_decode() of a block event whose layout is fast (see fast_layout) */
static inline __attribute__((always_inline)) void
decode_fast(struct decoder *d, const struct fast_layout *fl, const uint8_t *p,
	    struct blk_event *ev)
{
	switch (fl->shape) {
	case DECODE_SHAPE_BIO:
		decode_fields(d, fl, p, ev, DF_BIO | DF_COMM);
		break;
	case DECODE_SHAPE_RQ:
		decode_fields(d, fl, p, ev, DF_BIO | DF_BYTES | DF_IOPRIO | DF_COMM);
		break;
	case DECODE_SHAPE_RQ_DONE:
		decode_fields(d, fl, p, ev, DF_BIO | DF_ERROR | DF_IOPRIO);
		break;
	case DECODE_SHAPE_BIO_DONE:
		decode_fields(d, fl, p, ev, DF_BIO | DF_ERROR);
		break;
	case DECODE_SHAPE_REMAP:
		decode_fields(d, fl, p, ev, DF_BIO | DF_OLD_DEV | DF_AUX);
		break;
	case DECODE_SHAPE_PLUG:
		decode_fields(d, fl, p, ev, DF_COMM);
		break;
	case DECODE_SHAPE_UNPLUG:
		decode_fields(d, fl, p, ev, DF_COUNT | DF_COMM);
		break;
	case DECODE_SHAPE_BARE:
		break;
	default:
		decode_fields(d, fl, p, ev, ~0U);
		break;
	}
}

/**
 * decoder_decode - decode one raw record
 * @d: the decoder
 * @data: the record's payload (starting at common_type)
 * @size: bytes at @data
 * @ts: the record's timestamp
 * @cpu: the CPU whose buffer held it
 * @ev: filled on success
 *
 * Returns 1 when @ev holds a block event, a page-cache event (an enum
 * pc_kind, see pcevent.h) or a tick (tickevent.h), 0 when the record is of
 * another event type (skip it), -EINVAL when it is one of ours too short for its format (malformed;
 * count it and skip it).
 */
static inline __attribute__((always_inline)) int
decoder_decode(struct decoder *d, const void *data, unsigned int size, unsigned long long ts,
	       int cpu, struct blk_event *ev)
{
	const uint8_t *p = data;

	if (size >= d->fast_type_end) {
		unsigned int id = decode_rd16(p, d->type.offset) - (unsigned int)d->min_id;
		const struct decode_id *e;

		/* another event's record, or a kind not kept: nothing to decode */
		if (id >= (unsigned int)d->nr_ids || !d->ids[id].kind)
			return 0;
		e = &d->ids[id];
		if (size >= e->fast_size) {
			ev->ts = ts;
			ev->cpu = cpu;
			ev->kind = e->kind;
			decode_fast(d, e->fl, p, ev);
			return 1;
		}
	}
	return decoder_decode_slow(d, data, size, ts, cpu, ev);
}

#endif /* BLKSTACK_DECODE_H */
