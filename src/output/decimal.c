// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decimal.c - the long values of decimal.h, out of the inline path, and
 * its table of three digits.
 */
#include "output/decimal.h"

#define DEC_T1(n)	{ '0' + (n) / 100, '0' + (n) / 10 % 10, '0' + (n) % 10, 0 }
#define DEC_T10(n)	DEC_T1(n), DEC_T1(n + 1), DEC_T1(n + 2), DEC_T1(n + 3), DEC_T1(n + 4), \
			DEC_T1(n + 5), DEC_T1(n + 6), DEC_T1(n + 7), DEC_T1(n + 8), DEC_T1(n + 9)
#define DEC_T100(n)	DEC_T10(n), DEC_T10(n + 10), DEC_T10(n + 20), DEC_T10(n + 30), \
			DEC_T10(n + 40), DEC_T10(n + 50), DEC_T10(n + 60), DEC_T10(n + 70), \
			DEC_T10(n + 80), DEC_T10(n + 90)

const char dec_triplets[1000][4] = {
	DEC_T100(0), DEC_T100(100), DEC_T100(200), DEC_T100(300), DEC_T100(400),
	DEC_T100(500), DEC_T100(600), DEC_T100(700), DEC_T100(800), DEC_T100(900),
};

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
