// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pagewalk.c - the records of one ftrace ring-buffer sub-buffer (see
 * pagewalk.h for the layout).
 */
#include <byteswap.h>
#include <string.h>

#include "format/pagewalk.h"

#define TYPE_PADDING	29
#define TYPE_TIME_EXTEND 30
#define TYPE_TIME_STAMP	31
#define TS_SHIFT	27
#define MISSED_EVENTS	(1ULL << 31)
#define MISSED_STORED	(1ULL << 30)
#define COMMIT_MASK	((1U << 27) - 1)

void pagewalk_init(struct pagewalk *w, int long_size, bool big_endian)
{
	memset(w, 0, sizeof(*w));
	w->long8 = long_size == 8;
	w->big_endian = big_endian;
	w->swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

static inline uint32_t rd4(const struct pagewalk *w, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return w->swap ? bswap_32(v) : v;
}

static inline uint64_t rd8(const struct pagewalk *w, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return w->swap ? bswap_64(v) : v;
}

static inline uint64_t rd_long(const struct pagewalk *w, const uint8_t *p)
{
	return w->long8 ? rd8(w, p) : rd4(w, p);
}

int pagewalk_load(struct pagewalk *w, const void *page, size_t page_size)
{
	const uint8_t *p = page;
	size_t hdr = 8 + (w->long8 ? 8 : 4);
	uint64_t flags;

	if (page_size < hdr)
		return -1;
	w->ts = rd8(w, p);
	flags = rd_long(w, p + 8);
	w->data = p + hdr;
	w->size = flags & COMMIT_MASK;
	w->next = 0;
	w->malformed = false;
	if (w->size > page_size - hdr)
		return -1;
	w->missed = 0;
	if (flags & MISSED_EVENTS) {
		/* the count, when stored, is a long right after the commit */
		if ((flags & MISSED_STORED) && w->size + (w->long8 ? 8 : 4) <= page_size - hdr)
			w->missed = (long long)rd_long(w, w->data + w->size);
		else
			w->missed = -1;
	}
	return 0;
}

const void *pagewalk_next(struct pagewalk *w, uint64_t *ts, unsigned int *size)
{
	while (w->next + 4 <= w->size) {
		const uint8_t *rec = w->data + w->next;
		uint32_t hdr = rd4(w, rec);
		unsigned int type_len;
		uint32_t delta, len;

		if (w->big_endian) {
			type_len = hdr >> TS_SHIFT;
			delta = hdr & ((1U << TS_SHIFT) - 1);
		} else {
			type_len = hdr & 0x1f;
			delta = hdr >> 5;
		}
		rec += 4;
		switch (type_len) {
		case TYPE_PADDING:
			if (w->next + 8 > w->size)
				return NULL;	/* padding to the end of the commit */
			len = rd4(w, rec);
			break;
		case TYPE_TIME_EXTEND:
		case TYPE_TIME_STAMP:
		case 0:
			if (w->next + 8 > w->size)
				goto malformed;
			len = rd4(w, rec);
			break;
		default:
			len = 0;
			break;
		}
		switch (type_len) {
		case TYPE_PADDING:
			/* a discarded record: the length of what follows the header */
			w->ts += delta;
			w->next += 4 + (uint64_t)len;
			continue;
		case TYPE_TIME_EXTEND:
			w->ts += ((uint64_t)len << TS_SHIFT) + delta;
			w->next += 8;
			continue;
		case TYPE_TIME_STAMP:
			w->ts = ((uint64_t)len << TS_SHIFT) + delta;
			w->next += 8;
			continue;
		case 0:
			/* the length counts itself; data is 4-byte aligned */
			if (len < 4)
				goto malformed;
			len = (len - 4 + 3) & ~3U;
			rec += 4;
			if (w->next + 8 + (uint64_t)len > w->size)
				goto malformed;
			w->next += 8 + len;
			break;
		default:
			len = type_len * 4;
			if (w->next + 4 + len > w->size)
				goto malformed;
			w->next += 4 + len;
			break;
		}
		w->ts += delta;
		*ts = w->ts;
		*size = len;
		return rec;
	}
	return NULL;
malformed:
	w->malformed = true;
	w->next = w->size;
	return NULL;
}
