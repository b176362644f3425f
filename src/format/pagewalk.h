/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pagewalk.h - the records of one ftrace ring-buffer sub-buffer.
 *
 * What kbuffer does, inlined for the per-event path: kbuffer's calls cost
 * more per record than decoding the record. Same results as kbuffer on the
 * same page (tests/check_pagewalk.c compares them on captured pages), but
 * never reads past the page: a record that claims to run past the page's
 * commit ends the walk and is counted as malformed.
 *
 * A sub-buffer: a u64 timestamp, a "long" (4 or 8 bytes, the kernel's)
 * holding the committed length with the missed-events flags in bits 31 and
 * 30, then records. A record: a 32-bit header (type_len in 5 bits and a
 * 27-bit time delta), then type_len * 4 bytes of data (1..28), or a 32-bit
 * length then data (0), or a padding (29), a time extend (30) or an
 * absolute time stamp (31).
 */
#ifndef BLKSTACK_PAGEWALK_H
#define BLKSTACK_PAGEWALK_H

#include <stdbool.h>
#include <stddef.h>
#include <byteswap.h>
#include <stdint.h>
#include <string.h>

struct pagewalk {
	const uint8_t *data;	/* first record */
	uint32_t size;		/* committed bytes from data */
	uint64_t next;		/* offset of the next record header */
	uint64_t ts;		/* time of the last record read */
	long long missed;	/* events lost before this page: -1 unknown */
	bool swap;		/* the page's byte order is not the host's */
	bool big_endian;	/* the page's byte order (bit layout of headers) */
	bool long8;		/* the kernel's long is 8 bytes */
	bool malformed;		/* the walk ended on a record past the commit */
	/*
	 * Set on a page's start and at a time extend or stamp: the next
	 * record's time may be behind the last one's, or far ahead of it.
	 * pagewalk_time_seen() clears it where the page allows (see
	 * PW_STEADY_SPAN_NS), so readers check the time at these points only.
	 */
	bool retime;
	bool steady;		/* the page's deltas cannot add up to PW_STEADY_SPAN_NS */
};

/*
 * While retime is clear, each record's time is at or after the last one's
 * and less than this after it: a record's delta is under 2^27 ns and takes
 * at least 4 bytes of the page, so a page under 104 KiB cannot hold an hour
 * of deltas (larger pages keep retime set: every record is checked).
 */
#define PW_STEADY_SPAN_NS (3600ULL * 1000000000ULL)

/**
 * pagewalk_init - set the page format: @long_size 4 or 8, @big_endian the
 * byte order of the pages
 */
void pagewalk_init(struct pagewalk *w, int long_size, bool big_endian);

/**
 * pagewalk_load - start on a sub-buffer of @page_size bytes
 * Returns 0, or -1 when its header is not that of a sub-buffer (a commit
 * larger than the page).
 */
int pagewalk_load(struct pagewalk *w, const void *page, size_t page_size);

#define PW_TYPE_PADDING	29
#define PW_TYPE_TIME_EXTEND 30
#define PW_TYPE_TIME_STAMP	31
#define PW_TS_SHIFT	27
#define PW_MISSED_EVENTS	(1ULL << 31)
#define PW_MISSED_STORED	(1ULL << 30)
#define PW_COMMIT_MASK	((1U << 27) - 1)

static inline uint32_t pw_rd4_host(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint32_t pw_rd4(const struct pagewalk *w, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return w->swap ? bswap_32(v) : v;
}

static inline uint64_t pw_rd8(const struct pagewalk *w, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return w->swap ? bswap_64(v) : v;
}

static inline uint64_t pw_rd_long(const struct pagewalk *w, const uint8_t *p)
{
	return w->long8 ? pw_rd8(w, p) : pw_rd4(w, p);
}

/**
 * pagewalk_time_seen - the reader has checked the last record's time: clear
 * retime unless the page is not steady or a delta could wrap the time
 */
static inline void pagewalk_time_seen(struct pagewalk *w)
{
	w->retime = !w->steady || w->ts > UINT64_MAX - PW_STEADY_SPAN_NS;
}

/**
 * pagewalk_le - whether the page is little-endian and so is the host (the
 * usual case), which pagewalk_next_as() can be told
 */
static inline bool pagewalk_le(const struct pagewalk *w)
{
	return !w->swap && !w->big_endian;
}

/**
 * pagewalk_next_as - pagewalk_next(), told whether pagewalk_le() holds
 * @le: a constant where it is inlined: true drops the tests of the byte
 *	order from the loop (only when pagewalk_le() is true)
 */
static inline __attribute__((always_inline)) const void *
pagewalk_next_as(struct pagewalk *w, uint64_t *ts, unsigned int *size, const bool le)
{
	while (w->next + 4 <= w->size) {
		const uint8_t *rec = w->data + w->next;
		uint32_t hdr = le ? pw_rd4_host(rec) : pw_rd4(w, rec);
		unsigned int type_len;
		uint32_t delta, len;

		if (!le && w->big_endian) {
			type_len = hdr >> PW_TS_SHIFT;
			delta = hdr & ((1U << PW_TS_SHIFT) - 1);
		} else {
			type_len = hdr & 0x1f;
			delta = hdr >> 5;
		}
		rec += 4;
		/* the common record first: its length in the header (1..28 words) */
		if (__builtin_expect(type_len - 1 < 28, 1)) {
			len = type_len * 4;
			if (w->next + 4 + len > w->size)
				goto malformed;
			w->next += 4 + len;
			w->ts += delta;
			*ts = w->ts;
			*size = len;
			return rec;
		}
		if (w->next + 8 > w->size) {
			if (type_len == PW_TYPE_PADDING)
				return NULL;	/* padding to the end of the commit */
			goto malformed;
		}
		len = le ? pw_rd4_host(rec) : pw_rd4(w, rec);
		switch (type_len) {
		case PW_TYPE_PADDING:
			/* a discarded record: the length of what follows the header */
			w->ts += delta;
			w->next += 4 + (uint64_t)len;
			continue;
		case PW_TYPE_TIME_EXTEND:
			w->ts += ((uint64_t)len << PW_TS_SHIFT) + delta;
			w->next += 8;
			w->retime = true;
			continue;
		case PW_TYPE_TIME_STAMP:
			w->ts = ((uint64_t)len << PW_TS_SHIFT) + delta;
			w->next += 8;
			w->retime = true;
			continue;
		}
		/* type_len 0: the length counts itself; data is 4-byte aligned */
		if (len < 4)
			goto malformed;
		len = (len - 4 + 3) & ~3U;
		rec += 4;
		if (w->next + 8 + (uint64_t)len > w->size)
			goto malformed;
		w->next += 8 + len;
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

/**
 * pagewalk_next - the next data record of the page
 * @ts: its time stamp
 * @size: its data length
 * Returns the data, or NULL at the end of the page. Inline: it is the
 * readers' per-record loop.
 */
static inline __attribute__((always_inline)) const void *
pagewalk_next(struct pagewalk *w, uint64_t *ts, unsigned int *size)
{
	return pagewalk_next_as(w, ts, size, false);
}

#endif /* BLKSTACK_PAGEWALK_H */
