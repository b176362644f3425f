// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * datformats.c - the event formats of a mapped trace.dat, only those
 * blkstack decodes (see datformats.h for why not libtracecmd's open).
 *
 * Every count and size is read through the bounds-checked cursor: a
 * damaged header gives -EINVAL. A v7 section may be compressed: it is
 * decompressed whole, its stated size capped at UNZIP_MAX_BLOCK.
 *
 * libtraceevent's parse of a format costs some 300 k instructions, 40% of
 * them in its print fmt, which blkstack never prints with: only the
 * formats of the events the decoders look up by name are parsed, and
 * those with an empty print fmt (whole only where a file's formats are
 * judged, in tracefile.c's child). Opening a recording of block events
 * then costs a few million instructions, not tens.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

#include "base/event.h"
#include "base/pcevent.h"
#include "format/datcursor.h"
#include "format/datformats.h"
#include "format/unzip.h"

/* v7 section flags: compressed */
#define SEC_FL_COMPRESS	1

/* Whether @name (@len bytes, not NUL-terminated) is @want. */
static bool name_is(const char *want, const char *name, size_t len)
{
	return want && strlen(want) == len && !memcmp(want, name, len);
}

/*
 * The events the decoders look up (decode.c, pcdecode.c): block's kinds
 * and the page-cache kinds under their current and older names.
 */
static bool event_wanted(const char *sys, const char *name, size_t len)
{
	if (!strcmp(sys, "block")) {
		for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++)
			if (name_is(blk_kind_name(k), name, len))
				return true;
		return false;
	}
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++)
		if (!strcmp(sys, pc_kind_system(k)) &&
		    (name_is(pc_kind_name(k), name, len) ||
		     name_is(pc_kind_alt_name(k), name, len)))
			return true;
	return false;
}

/* The systems whose formats the decoders look up. */
static bool system_wanted(const char *sys)
{
	if (!strcmp(sys, "block"))
		return true;
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++)
		if (!strcmp(sys, pc_kind_system(k)))
			return true;
	return false;
}

/*
 * Of a wanted system, a format to parse: a wanted event's, or one whose
 * first line is not a plain "name: NAME", left to libtraceevent to judge
 * as before.
 */
static bool format_wanted(const char *sys, const char *text, uint64_t size)
{
	static const char key[] = "name: ";
	const size_t klen = sizeof(key) - 1;
	const char *name = text + klen, *end;

	if (size <= klen || memcmp(text, key, klen))
		return true;
	end = memchr(name, '\n', size - klen);
	if (!end || end == name)
		return true;
	for (const char *p = name; p < end; p++)
		if (!(*p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z')))
			return true;
	return event_wanted(sys, name, (size_t)(end - name));
}

/*
 * The bytes of part @sec: for v6 from its offset to the end of the file
 * (the parsers stop at their own end), for v7 its section's contents,
 * decompressed into *@owned when compressed.
 */
static int section_open(const uint8_t *map, size_t len, const struct datfile_layout *l,
			enum datfile_sec sec, struct cursor *c, void **owned)
{
	uint64_t off = l->sections[sec];
	uint16_t id, flags;
	uint64_t size;

	*owned = NULL;
	*c = (struct cursor){ .base = map, .len = len,
			      .swap = l->big_endian != (__BYTE_ORDER == __BIG_ENDIAN) };
	if (!off || off >= len)
		return -EINVAL;
	c->pos = off;
	if (l->version == 6)
		return 0;
	id = get_u16(c);
	flags = get_u16(c);
	get_u32(c);				/* its description's string id */
	size = get_u64(c);
	if (c->bad || id != 16 + sec)
		return -EINVAL;
	if (flags & SEC_FL_COMPRESS) {
		uint32_t zsize = get_u32(c), usize = get_u32(c);
		const void *src = take(c, zsize);
		struct unzip *u;
		int ret;

		if (!src || l->algo == UNZIP_NONE || usize > UNZIP_MAX_BLOCK)
			return -EINVAL;
		*owned = malloc(usize ? usize : 1);
		u = unzip_alloc(l->algo);
		if (!*owned || !u) {
			unzip_free(u);
			return -ENOMEM;
		}
		ret = unzip_block(u, src, zsize, *owned, usize);
		unzip_free(u);
		if (ret < 0)
			return -EINVAL;
		*c = (struct cursor){ .base = *owned, .len = usize, .swap = c->swap };
		return 0;
	}
	if (size < c->len - c->pos)
		c->len = c->pos + size;
	return 0;
}

/* "header_page\0", its size and text: the page header's layout */
static int load_header(struct tep_handle *tep, struct cursor *c, const struct datfile_layout *l)
{
	const char *text;
	uint64_t size;

	if (!expect(c, "header_page", 12))
		return -EINVAL;
	size = get_u64(c);
	if (c->bad || size > c->len - c->pos)
		return -EINVAL;
	text = take(c, size);
	if (tep_parse_header_page(tep, (char *)text, size, l->long_size))
		return -EINVAL;
	return 0;
}

/*
 * Parse @text as libtraceevent would, its print fmt replaced by an empty
 * one unless @whole: the fields are all the decoders read. A text without
 * a print fmt goes as it is (libtraceevent flags it failed, as before).
 */
static int parse_format(struct tep_handle *tep, const char *text, uint64_t size, const char *sys,
			bool whole)
{
	static const char print[] = "\nprint fmt:", empty[] = "\nprint fmt: \"\"\n";
	const char *at = memmem(text, size, print, sizeof(print) - 1);
	size_t keep = at ? (size_t)(at - text) : 0;
	char *copy;

	if (!at || whole) {
		tep_parse_event(tep, text, size, sys);
		return 0;
	}
	copy = malloc(keep + sizeof(empty));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, keep);
	memcpy(copy + keep, empty, sizeof(empty));
	tep_parse_event(tep, copy, keep + sizeof(empty) - 1, sys);
	free(copy);
	return 0;
}

/*
 * @n formats of @sys, each a u64 size and its text: those @want accepts
 * parsed (their fields), the others skipped.
 */
static int load_formats(struct tep_handle *tep, struct cursor *c, const char *sys, uint32_t n,
			bool (*want)(const char *sys, const char *text, uint64_t size), bool whole)
{
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint64_t size = get_u64(c);
		const char *text;

		if (c->bad || size > c->len - c->pos)
			return -EINVAL;
		text = take(c, size);
		if (want(sys, text, size) && parse_format(tep, text, size, sys, whole))
			return -ENOMEM;
	}
	return c->bad ? -EINVAL : 0;
}

/* Of the ftrace formats, print: the events blkstack's markers are. */
static bool is_print(const char *sys, const char *text, uint64_t size)
{
	static const char print[] = "name: print\n";

	(void)sys;
	return memmem(text, size, print, sizeof(print) - 1) != NULL;
}

static int load_ftrace(struct tep_handle *tep, struct cursor *c, bool whole)
{
	return load_formats(tep, c, "ftrace", get_u32(c), is_print, whole);
}

/* Of a system no decoder reads, no format. */
static bool want_none(const char *sys, const char *text, uint64_t size)
{
	(void)sys;
	(void)text;
	(void)size;
	return false;
}

static int load_events(struct tep_handle *tep, struct cursor *c, bool whole)
{
	uint32_t nsys = get_u32(c);
	int ret = 0;

	for (uint32_t s = 0; s < nsys && !c->bad && !ret; s++) {
		const char *sys = get_str(c);
		uint32_t n = get_u32(c);

		ret = load_formats(tep, c, sys, n,
				   sys && system_wanted(sys) ? format_wanted : want_none, whole);
	}
	return ret ? ret : c->bad ? -EINVAL : 0;
}

struct tep_handle *datformats_load(const uint8_t *map, size_t len,
				   const struct datfile_layout *l, bool whole, int *err)
{
	struct tep_handle *tep = tep_alloc();
	int ret = 0;

	if (!tep) {
		*err = -ENOMEM;
		return NULL;
	}
	tep_set_file_bigendian(tep, l->big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER == __BIG_ENDIAN ? TEP_BIG_ENDIAN :
								    TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, l->long_size);
	tep_set_page_size(tep, l->page_size);
	tep_set_cpus(tep, l->ncpu);
	for (int sec = 0; sec <= DATFILE_SEC_EVENTS && !ret; sec++) {
		struct cursor c;
		void *owned;

		/* a file without ftrace formats has no markers: not an error */
		ret = section_open(map, len, l, sec, &c, &owned);
		if (ret == -EINVAL && sec == DATFILE_SEC_FTRACE && !l->sections[sec])
			ret = 0;
		else if (!ret && sec == DATFILE_SEC_HEADER)
			ret = load_header(tep, &c, l);
		else if (!ret && sec == DATFILE_SEC_FTRACE)
			ret = load_ftrace(tep, &c, whole);
		else if (!ret)
			ret = load_events(tep, &c, whole);
		free(owned);
	}
	if (ret) {
		tep_free(tep);
		*err = ret;
		return NULL;
	}
	return tep;
}

/* "KEY VALUE\n" of a format's text: VALUE into @buf; false when the line is not there */
static bool format_line(const char *text, uint64_t size, const char *key, char *buf, size_t len)
{
	const char *p = memmem(text, size, key, strlen(key)), *end;
	size_t n;

	if (!p)
		return false;
	p += strlen(key);
	end = memchr(p, '\n', text + size - p);
	n = (end ? end : text + size) - p;
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

/* @n formats of @sys, each a u64 size and its text: their "name:" and "ID:" to @fn */
static int each_format(struct cursor *c, const char *sys, uint32_t n,
		       void (*fn)(unsigned int, const char *, const char *, void *), void *ctx)
{
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint64_t size = get_u64(c);
		const char *text;
		char name[128], id[32];
		char *end;
		unsigned long v;

		if (c->bad || size > c->len - c->pos)
			return -EINVAL;
		text = take(c, size);
		if (!format_line(text, size, "name: ", name, sizeof(name)) ||
		    !format_line(text, size, "\nID: ", id, sizeof(id)))
			continue;
		v = strtoul(id, &end, 10);
		if (end != id && v <= UINT16_MAX)
			fn((unsigned int)v, sys, name, ctx);
	}
	return c->bad ? -EINVAL : 0;
}

int datformats_each_event(const uint8_t *map, size_t len, const struct datfile_layout *l,
			  void (*fn)(unsigned int id, const char *sys, const char *name, void *ctx),
			  void *ctx)
{
	int ret = 0;

	for (int sec = DATFILE_SEC_FTRACE; sec <= DATFILE_SEC_EVENTS && !ret; sec++) {
		struct cursor c;
		void *owned;

		ret = section_open(map, len, l, sec, &c, &owned);
		if (ret == -EINVAL && !l->sections[sec]) {
			ret = 0;	/* no formats of that part */
		} else if (!ret && sec == DATFILE_SEC_FTRACE) {
			ret = each_format(&c, "ftrace", get_u32(&c), fn, ctx);
		} else if (!ret) {
			uint32_t nsys = get_u32(&c);

			for (uint32_t s = 0; s < nsys && !c.bad && !ret; s++) {
				const char *sys = get_str(&c);
				uint32_t n = get_u32(&c);

				ret = sys ? each_format(&c, sys, n, fn, ctx) : -EINVAL;
			}
			if (!ret && c.bad)
				ret = -EINVAL;
		}
		free(owned);
	}
	return ret;
}

int datformats_cmdlines(const uint8_t *map, size_t len, const struct datfile_layout *l,
			const char **text, size_t *size, void **owned)
{
	struct cursor c;
	uint64_t n;
	int ret;

	*text = NULL;
	*size = 0;
	*owned = NULL;
	if (!l->sections[DATFILE_SEC_CMDLINES])
		return -ENOENT;
	ret = section_open(map, len, l, DATFILE_SEC_CMDLINES, &c, owned);
	if (ret)
		return ret;
	n = get_u64(&c);
	if (c.bad || n > c.len - c.pos)
		return -EINVAL;
	*text = take(&c, n);
	*size = n;
	return 0;
}
