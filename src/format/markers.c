// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * markers.c - the print events of ring-buffer pages, and the workload's
 * markers among them (see markers.h).
 */
#include <byteswap.h>
#include <errno.h>
#include <event-parse.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "format/markers.h"

int markscan_init(struct markscan *ms, struct tep_handle *tep, int long_size, bool big_endian,
		  uint32_t page_size)
{
	struct tep_event *print = tep_find_event_by_name(tep, "ftrace", "print");
	struct tep_format_field *buf = print ? tep_find_field(print, "buf") : NULL;

	memset(ms, 0, sizeof(*ms));
	if (!buf)
		return -ENOENT;
	ms->id = print->id;
	ms->buf = buf->offset;
	ms->page_size = page_size;
	ms->swap = big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	pagewalk_init(&ms->w, long_size, big_endian);
	return 0;
}

void markscan_page(struct markscan *ms, const void *page, markscan_fn fn, void *ctx)
{
	const uint8_t *rec;
	unsigned int size;
	uint64_t ts;
	uint16_t type;

	if (pagewalk_load(&ms->w, page, ms->page_size) < 0)
		return;
	while ((rec = pagewalk_next(&ms->w, &ts, &size))) {
		const char *text;
		size_t n;

		/* common_type first, as every event's record starts */
		if (size < 2 || size <= ms->buf)
			continue;
		memcpy(&type, rec, 2);
		if ((ms->swap ? bswap_16(type) : type) != ms->id)
			continue;
		text = (const char *)rec + ms->buf;
		n = strnlen(text, size - ms->buf);
		while (n && (text[n - 1] == '\n' || text[n - 1] == '\0'))
			n--;
		fn(ctx, ts, text, n);
	}
}

void marker_set_add(void *set, uint64_t ts, const char *text, size_t len)
{
	struct marker_set *s = set;
	struct tracefile_marker *mk;

	if (len >= 9 && !memcmp(text, "blkstack-", 9))
		return;
	if (s->n == MARKERS_MAX) {
		s->dropped++;
		return;
	}
	if (ARRAY_ROOM(s->marks, s->n, s->cap, 32)) {
		s->err = -ENOMEM;
		return;
	}
	mk = &s->marks[s->n];
	mk->ts = ts;
	mk->text = strndup(text, len < MARKERS_TEXT ? len : MARKERS_TEXT);
	if (!mk->text) {
		s->err = -ENOMEM;
		return;
	}
	s->n++;
}

static int marker_cmp(const void *a, const void *b)
{
	const struct tracefile_marker *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

void marker_set_sort(struct marker_set *s)
{
	if (s->n)
		qsort(s->marks, s->n, sizeof(*s->marks), marker_cmp);
}

void marker_set_free(struct marker_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->marks[i].text);
	free(s->marks);
	memset(s, 0, sizeof(*s));
}
