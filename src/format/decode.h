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

/* decoder_decode() of a block event whose layout is fast (see fast_layout) */
static inline __attribute__((always_inline)) void
decode_fast(struct decoder *d, const struct fast_layout *fl, const uint8_t *p,
			       struct blk_event *ev)
{
	uint32_t nr = decode_rd32(p, fl->nr_sector) & fl->m_nr_sector;

	ev->pid = (int32_t)decode_rd32(p, d->pid.offset);
	ev->dev = decode_rd32(p, fl->dev) & fl->m_dev;
	ev->sector = decode_rd64(p, fl->sector) & fl->m_sector;
	ev->nr_sector = nr;
	ev->bytes = (decode_rd32(p, fl->bytes) & fl->m_bytes) | ((nr << 9) & ~fl->m_bytes);
	ev->old_dev = decode_rd32(p, fl->old_dev) & fl->m_old_dev;
	ev->aux_sector = decode_rd64(p, fl->aux) & fl->m_aux;
	ev->error = (int32_t)(decode_rd32(p, fl->error) & fl->m_error);
	ev->count = decode_rd32(p, fl->count) & fl->m_count;
	ev->ioprio = decode_rd16(p, fl->ioprio) & fl->m_ioprio;
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
