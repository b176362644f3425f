/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datcursor.h - bounds-checked reads of a trace.dat's numbers and strings,
 * in the file's byte order: a read past the end sets @bad and returns 0 or
 * NULL, so that a parser checks once, after a run of reads.
 */
#ifndef BLKSTACK_DATCURSOR_H
#define BLKSTACK_DATCURSOR_H

#include <byteswap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* @base[@pos..@len) is what is left to read; @swap: the file is not in host order */
struct cursor {
	const uint8_t *base;
	size_t len;
	size_t pos;
	bool swap;
	bool bad;
};

static inline const void *take(struct cursor *c, size_t n)
{
	const void *p;

	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return NULL;
	}
	p = c->base + c->pos;
	c->pos += n;
	return p;
}

static inline uint64_t get_u64(struct cursor *c)
{
	const void *p = take(c, 8);
	uint64_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 8);
	return c->swap ? bswap_64(v) : v;
}

static inline uint32_t get_u32(struct cursor *c)
{
	const void *p = take(c, 4);
	uint32_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 4);
	return c->swap ? bswap_32(v) : v;
}

static inline uint16_t get_u16(struct cursor *c)
{
	const void *p = take(c, 2);
	uint16_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 2);
	return c->swap ? bswap_16(v) : v;
}

/* A NUL-terminated string inside the mapping. */
static inline const char *get_str(struct cursor *c)
{
	const char *s = (const char *)c->base + c->pos;
	const void *nul;

	if (c->bad || c->pos >= c->len) {
		c->bad = true;
		return NULL;
	}
	nul = memchr(s, '\0', c->len - c->pos);
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	c->pos += (const char *)nul - s + 1;
	return s;
}

static inline void skip(struct cursor *c, uint64_t n)
{
	if (n > c->len - c->pos)
		c->bad = true;
	else
		c->pos += n;
}

static inline bool expect(struct cursor *c, const char *tag, size_t n)
{
	const void *p = take(c, n);

	return p && memcmp(p, tag, n) == 0;
}

#endif /* BLKSTACK_DATCURSOR_H */
