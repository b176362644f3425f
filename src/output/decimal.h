/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decimal.h - unsigned integers to decimal text, eight digits at a time.
 *
 * The text log prints four to six numbers a line, millions of lines a
 * second: printf, or even two digits per division, costs more than all the
 * rest of the line. Here the eight digits of a value below 10^8 are made in
 * one 64-bit word by a few multiplications (each 32-bit half holds four
 * digits, each 16-bit quarter two, each byte one: "SWAR"), and the leading
 * zeros are found by counting zero bits; the nine digits of the
 * nanoseconds, on every line, come from a table of three. Each routine
 * stores whole words: it may write up to 7 bytes past the end of its text,
 * which the caller's buffer must have room for and overwrites with what
 * follows.
 */
#ifndef BLKSTACK_OUT_DECIMAL_H
#define BLKSTACK_OUT_DECIMAL_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#define DEC_ZEROS	0x3030303030303030ULL	/* eight '0' */
#define DEC_SPACES	0x1010101010101010ULL	/* '0' - ' ', eight times */

/**
 * dec_digits8 - the eight decimal digits of @v, zeros in front
 * @v: below 10^8
 *
 * Returns the digits as byte values 0 to 9, the first (most significant)
 * in the lowest byte: in memory order on a little-endian host once stored.
 */
static inline uint64_t dec_digits8(uint32_t v)
{
	uint64_t hi = v / 10000, x, q;

	/* two halves of four digits; the first in the low half */
	x = hi | (uint64_t)(v - hi * 10000) << 32;
	/* n / 100 for n < 10^4, per half: n * 10486 >> 20 */
	q = (x * 10486 >> 20) & 0x0000007F0000007FULL;
	x = q | (x - q * 100) << 16;
	/* n / 10 for n < 100, per quarter: n * 103 >> 10 */
	q = (x * 103 >> 10) & 0x000F000F000F000FULL;
	return q | (x - q * 10) << 8;
}

/* Store the 8 bytes of @w in memory order (lowest byte first). */
static inline void dec_store8(char *p, uint64_t w)
{
	w = htole64(w);
	memcpy(p, &w, 8);
}

/* The leading zeros of dec_digits8()'s @d, at most 7: zero itself has one digit. */
static inline unsigned int dec_lead8(uint64_t d)
{
	return __builtin_ctzll(d | 1ULL << 56) >> 3;
}

/* printf("%u") of @v below 10^8 */
static inline char *dec_put_u8(char *p, uint32_t v)
{
	uint64_t d = dec_digits8(v);
	unsigned int z = dec_lead8(d);

	dec_store8(p, (d + DEC_ZEROS) >> 8 * z);
	return p + 8 - z;
}

/**
 * dec_put_u_long - printf("%llu") of a value of 9 to 20 digits
 * @p: where to write (8 bytes of room past the text)
 * @v: at least 10^8
 *
 * Returns the end of the text.
 */
char *dec_put_u_long(char *p, uint64_t v);

/**
 * dec_put_u - printf("%llu")
 * @p: where to write (8 bytes of room past the text)
 * @v: the value
 *
 * Returns the end of the text.
 */
static inline char *dec_put_u(char *p, uint64_t v)
{
	/* an error 0, a count: one digit */
	if (v < 10) {
		*p = '0' + v;
		return p + 1;
	}
	/* sectors of disks below 48 GiB, sizes: the rest out of line */
	if (__builtin_expect(v < 100000000ULL, 1))
		return dec_put_u8(p, v);
	return dec_put_u_long(p, v);
}

/**
 * dec_put_u_right - printf("%*llu")
 * @p: where to write (8 bytes of room past the text)
 * @v: the value
 * @width: the field's width, at most 8
 *
 * Returns the end of the text.
 */
static inline char *dec_put_u_right(char *p, uint64_t v, unsigned int width)
{
	uint64_t d, w;
	unsigned int z, n;

	if (v >= 100000000ULL)
		return dec_put_u(p, v);
	d = dec_digits8(v);
	z = dec_lead8(d);
	/* the leading zeros become spaces: 8 * 7 is the largest shift */
	w = d + DEC_ZEROS - (((1ULL << 8 * z) - 1) & DEC_SPACES);
	n = 8 - z > width ? 8 - z : width;
	dec_store8(p, w >> 8 * (8 - n));
	return p + n;
}

/* "000" to "999", each in 4 bytes (decimal.c) */
extern const char dec_triplets[1000][4];

/**
 * dec_put_u9 - printf("%09u") of the nanoseconds of a time
 * @p: where to write (1 byte of room past the text)
 * @v: below 10^9
 *
 * Three groups of three digits from a table of 4 KiB: on every line, this
 * is cheaper than the eight digits' multiplications and a ninth digit.
 *
 * Returns @p + 9.
 */
static inline char *dec_put_u9(char *p, uint32_t v)
{
	uint32_t hi = v / 1000000, mid = (v - hi * 1000000) / 1000;

	memcpy(p, dec_triplets[hi], 4);
	memcpy(p + 3, dec_triplets[mid], 4);
	memcpy(p + 6, dec_triplets[v - hi * 1000000 - mid * 1000], 4);
	return p + 9;
}

#endif /* BLKSTACK_OUT_DECIMAL_H */
