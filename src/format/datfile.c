// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * datfile.c - where the ring-buffer pages are in a trace.dat version 6 file.
 *
 * Every read is bounds-checked against the mapping: a truncated or corrupt
 * file gives -EINVAL, never a read past the end.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/datfile.h"

/* Option ids of trace-cmd.dat.v6(5) that change where data is. */
#define OPT_DONE	0
#define OPT_BUFFER	3
#define OPT_CPUCOUNT	8

struct cursor {
	const uint8_t *base;
	size_t len;
	size_t pos;
	bool swap;
	bool bad;
};

static const void *take(struct cursor *c, size_t n)
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

static uint64_t get_u64(struct cursor *c)
{
	const void *p = take(c, 8);
	uint64_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 8);
	return c->swap ? bswap_64(v) : v;
}

static uint32_t get_u32(struct cursor *c)
{
	const void *p = take(c, 4);
	uint32_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 4);
	return c->swap ? bswap_32(v) : v;
}

static uint16_t get_u16(struct cursor *c)
{
	const void *p = take(c, 2);
	uint16_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 2);
	return c->swap ? bswap_16(v) : v;
}

/* A NUL-terminated string inside the mapping. */
static const char *get_str(struct cursor *c)
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

static void skip(struct cursor *c, uint64_t n)
{
	if (n > c->len - c->pos)
		c->bad = true;
	else
		c->pos += n;
}

static bool expect(struct cursor *c, const char *tag, size_t n)
{
	const void *p = take(c, n);

	return p && memcmp(p, tag, n) == 0;
}

static int add_buffer(struct datfile_layout *l, const char *name)
{
	char **n = realloc(l->buffer_names, (l->nbuffers + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	l->buffer_names = n;
	n[l->nbuffers] = strdup(name);
	if (!n[l->nbuffers])
		return -ENOMEM;
	return l->nbuffers++;
}

/*
 * Options, if any, then the "flyrecord" CPU table of one buffer. Buffer
 * options of the top level are collected in @offsets/@names for the caller.
 */
struct buffer_ref {
	uint64_t offset;
	const char *name;
};

static int read_options(struct cursor *c, struct datfile_layout *l, struct buffer_ref **refs,
			int *nrefs)
{
	for (;;) {
		uint16_t id = get_u16(c);
		uint32_t size;
		struct cursor opt;

		if (c->bad)
			return -EINVAL;
		if (id == OPT_DONE)
			return 0;
		size = get_u32(c);
		opt = *c;
		opt.len = c->pos + size <= c->len ? c->pos + size : c->len;
		skip(c, size);
		if (c->bad)
			return -EINVAL;
		if (id == OPT_CPUCOUNT && size >= 4) {
			l->ncpu = get_u32(&opt);
		} else if (id == OPT_BUFFER && refs) {
			struct buffer_ref *n;
			uint64_t off = get_u64(&opt);
			const char *name = get_str(&opt);

			if (opt.bad)
				return -EINVAL;
			n = realloc(*refs, (*nrefs + 1) * sizeof(*n));
			if (!n)
				return -ENOMEM;
			*refs = n;
			n[*nrefs].offset = off;
			n[(*nrefs)++].name = name;
		}
	}
}

static int read_cpu_table(struct cursor *c, struct datfile_layout *l, int buffer)
{
	struct datfile_stream *n;

	if (l->ncpu <= 0 || l->ncpu > 65536)
		return -EINVAL;
	n = realloc(l->streams, (l->nstreams + l->ncpu) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->streams = n;
	for (int cpu = 0; cpu < l->ncpu; cpu++) {
		uint64_t off = get_u64(c), size = get_u64(c);
		struct datfile_stream *s;

		if (c->bad)
			return -EINVAL;
		if (!size)
			continue;
		s = &l->streams[l->nstreams++];
		s->offset = off;
		s->size = size;
		s->cpu = cpu;
		s->buffer = buffer;
		/* the data may be cut short: keep whole pages of what is there */
		if (off >= c->len)
			s->avail = 0;
		else
			s->avail = size < c->len - off ? size : c->len - off;
		s->avail -= s->avail % l->page_size;
	}
	return 0;
}

/* "options  \0" (options) then "flyrecord\0" (CPU table) of one buffer. */
static int read_buffer(struct cursor *c, struct datfile_layout *l, int buffer,
		       struct buffer_ref **refs, int *nrefs)
{
	const char *type = take(c, 10);
	int ret;

	if (!type)
		return -EINVAL;
	if (memcmp(type, "options  ", 10) == 0) {
		ret = read_options(c, l, refs, nrefs);
		if (ret)
			return ret;
		type = take(c, 10);
		if (!type)
			return -EINVAL;
	}
	if (memcmp(type, "latency  ", 10) == 0)
		return -ENOTSUP;
	if (memcmp(type, "flyrecord", 10) != 0)
		return -EINVAL;
	return read_cpu_table(c, l, buffer);
}

int datfile_layout_parse(const void *map, size_t len, struct datfile_layout *out)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct cursor c = { .base = map, .len = len };
	struct buffer_ref *refs = NULL;
	const uint8_t *hdr;
	const char *version;
	int nrefs = 0;
	uint32_t n;
	int ret = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!expect(&c, (const char *)magic, sizeof(magic)))
		return -EINVAL;
	version = get_str(&c);
	if (!version)
		return -EINVAL;
	if (strcmp(version, "6") != 0)
		return -ENOTSUP;
	hdr = take(&c, 2);
	if (!hdr || hdr[0] > 1 || (hdr[1] != 4 && hdr[1] != 8))
		return -EINVAL;
	out->big_endian = hdr[0];
	out->long_size = hdr[1];
	c.swap = out->big_endian != (__BYTE_ORDER == __BIG_ENDIAN);
	out->page_size = get_u32(&c);
	if (c.bad || out->page_size < 64 || out->page_size > (64U << 20))
		return -EINVAL;

	/* the header sections: only their sizes matter here */
	if (!expect(&c, "header_page", 12))
		return -EINVAL;
	skip(&c, get_u64(&c));
	if (!expect(&c, "header_event", 13))
		return -EINVAL;
	skip(&c, get_u64(&c));
	n = get_u32(&c);			/* ftrace formats */
	for (uint32_t i = 0; i < n && !c.bad; i++, out->nformats++)
		skip(&c, get_u64(&c));
	n = get_u32(&c);			/* event systems */
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		uint32_t events;

		get_str(&c);
		events = get_u32(&c);
		for (uint32_t j = 0; j < events && !c.bad; j++, out->nformats++)
			skip(&c, get_u64(&c));
	}
	skip(&c, get_u32(&c));			/* kallsyms */
	skip(&c, get_u32(&c));			/* printk formats */
	skip(&c, get_u64(&c));			/* saved cmdlines */
	out->ncpu = get_u32(&c);
	if (c.bad)
		goto fail;

	if (add_buffer(out, "") < 0) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = read_buffer(&c, out, 0, &refs, &nrefs);
	if (ret)
		goto fail;
	for (int i = 0; i < nrefs; i++) {
		struct cursor bc = c;
		int b;

		if (refs[i].offset >= len) {
			ret = -EINVAL;
			goto fail;
		}
		bc.pos = refs[i].offset;
		b = add_buffer(out, refs[i].name);
		if (b < 0) {
			ret = b;
			goto fail;
		}
		ret = read_buffer(&bc, out, b, NULL, NULL);
		if (ret)
			goto fail;
	}
	free(refs);
	return 0;
fail:
	free(refs);
	datfile_layout_free(out);
	return ret;
}

void datfile_layout_free(struct datfile_layout *l)
{
	for (int i = 0; i < l->nbuffers; i++)
		free(l->buffer_names[i]);
	free(l->buffer_names);
	free(l->streams);
	memset(l, 0, sizeof(*l));
}
