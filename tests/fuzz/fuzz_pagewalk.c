// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_pagewalk.c - the ring-buffer page walker (format/pagewalk.c) on one
 * sub-buffer of any bytes.
 *
 * Input: one byte of settings (bit 0: 4-byte long, bit 1: big-endian,
 * bits 2-7 with a second byte: the claimed page size, from 0 to 16383),
 * then the page. The walk must stay inside the committed bytes, whatever
 * the commit, the missed-events flags and the record headers claim.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/pagewalk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct pagewalk w;
	const uint8_t *rec;
	unsigned int size, n = 0;
	size_t claimed;
	uint64_t ts, sum = 0;
	uint8_t *page;

	if (len < 2)
		return 0;
	pagewalk_init(&w, data[0] & 1 ? 4 : 8, data[0] & 2);
	claimed = ((size_t)(data[0] >> 2) << 8 | data[1]);
	data += 2;
	len -= 2;
	/* a page exactly as long as claimed, so that ASan sees any read past it */
	if (claimed > len)
		claimed = len;
	page = malloc(claimed ? claimed : 1);
	if (!page)
		return 0;
	memcpy(page, data, claimed);
	if (pagewalk_load(&w, page, claimed) == 0) {
		while ((rec = pagewalk_next(&w, &ts, &size))) {
			/* every byte handed out is read: a record past the page faults here */
			for (unsigned int i = 0; i < size; i++)
				sum += rec[i];
			if (rec < page || rec + size > page + claimed)
				abort();
			/* each record advances at least 4 bytes: the walk ends */
			if (++n > claimed / 4)
				abort();
		}
	}
	free(page);
	return sum == 1 ? 0 : 0;
}
