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
#include <stdint.h>

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
};

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

/**
 * pagewalk_next - the next data record of the page
 * @ts: its time stamp
 * @size: its data length
 * Returns the data, or NULL at the end of the page.
 */
const void *pagewalk_next(struct pagewalk *w, uint64_t *ts, unsigned int *size);

#endif /* BLKSTACK_PAGEWALK_H */
