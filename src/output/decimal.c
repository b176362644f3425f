// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decimal.c - the long values of decimal.h, out of the inline path.
 */
#include "output/decimal.h"

char *dec_put_u_long(char *p, uint64_t v)
{
	uint64_t hi = v / 100000000ULL;

	if (hi < 100000000ULL) {
		p = dec_put_u8(p, hi);
	} else {
		/* 17 to 20 digits: the first four at most */
		uint64_t top = hi / 100000000ULL;

		p = dec_put_u8(p, top);
		dec_store8(p, dec_digits8(hi - top * 100000000ULL) + DEC_ZEROS);
		p += 8;
	}
	dec_store8(p, dec_digits8(v - hi * 100000000ULL) + DEC_ZEROS);
	return p + 8;
}
