/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * field.h - one field of a raw tracepoint record, at the offset and size
 * its format gives, in the recording's byte order. The block decoder
 * (decode.c) and the page-cache decoder (pcdecode.c) both load fields this
 * way; it lives apart so that neither decoder includes the other.
 */
#ifndef BLKSTACK_FIELD_H
#define BLKSTACK_FIELD_H

#include <byteswap.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/**
 * decode_load - an unsigned field of 1, 2, 4 or 8 bytes at @offset of a
 * record, in the recording's byte order (@swap: not the host's); 0 for
 * another size. Shared by the block and page-cache decoders.
 */
static inline uint64_t decode_load(const uint8_t *p, int offset, unsigned int size, bool swap)
{
	switch (size) {
	case 1:
		return p[offset];
	case 2: {
		uint16_t v;

		memcpy(&v, p + offset, 2);
		return swap ? bswap_16(v) : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p + offset, 4);
		return swap ? bswap_32(v) : v;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, p + offset, 8);
		return swap ? bswap_64(v) : v;
	}
	}
	return 0;
}

#endif /* BLKSTACK_FIELD_H */
