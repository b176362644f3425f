// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pagewalk.c - the records of one ftrace ring-buffer sub-buffer (see
 * pagewalk.h for the layout).
 */
#include <byteswap.h>
#include <string.h>

#include "format/pagewalk.h"

void pagewalk_init(struct pagewalk *w, int long_size, bool big_endian)
{
	memset(w, 0, sizeof(*w));
	w->long8 = long_size == 8;
	w->big_endian = big_endian;
	w->swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
}

int pagewalk_load(struct pagewalk *w, const void *page, size_t page_size)
{
	const uint8_t *p = page;
	size_t hdr = 8 + (w->long8 ? 8 : 4);
	uint64_t flags;

	if (page_size < hdr)
		return -1;
	w->ts = pw_rd8(w, p);
	flags = pw_rd_long(w, p + 8);
	w->data = p + hdr;
	w->size = flags & PW_COMMIT_MASK;
	w->next = 0;
	w->malformed = false;
	if (w->size > page_size - hdr)
		return -1;
	w->retime = true;
	w->steady = w->size < (PW_STEADY_SPAN_NS >> PW_TS_SHIFT) * 4;
	w->missed = 0;
	if (flags & PW_MISSED_EVENTS) {
		/* the count, when stored, is a long right after the commit */
		if ((flags & PW_MISSED_STORED) && w->size + (w->long8 ? 8 : 4) <= page_size - hdr)
			w->missed = (long long)pw_rd_long(w, w->data + w->size);
		else
			w->missed = -1;
	}
	return 0;
}
