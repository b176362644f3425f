// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * datwrite.c - a trace-cmd trace.dat version 6 from spilled raw pages (see
 * datwrite.h; datfile.c reads the same layout).
 *
 * Numbers are written in the host's byte order, as the file header says;
 * the pages are the kernel's, untouched.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/datwrite.h"

#define OPT_DONE	0
#define OPT_TRACECLOCK	4
#define OPT_UNAME	5

struct writer {
	FILE *fp;
	int err;
};

static void put(struct writer *w, const void *p, size_t n)
{
	if (!w->err && n && fwrite(p, 1, n, w->fp) != n)
		w->err = errno ? -errno : -EIO;
}

static void put_u16(struct writer *w, uint16_t v)
{
	put(w, &v, 2);
}

static void put_u32(struct writer *w, uint32_t v)
{
	put(w, &v, 4);
}

static void put_u64(struct writer *w, uint64_t v)
{
	put(w, &v, 8);
}

static void put_str(struct writer *w, const char *s)
{
	put(w, s, strlen(s) + 1);
}

static void put_text64(struct writer *w, const struct dat_text *t)
{
	put_u64(w, t->len);
	put(w, t->data, t->len);
}

/* zeros up to the next multiple of @align; returns the offset reached */
static uint64_t pad_to(struct writer *w, uint64_t align)
{
	static const char zeros[4096];
	long pos = ftell(w->fp);
	uint64_t target;

	if (pos < 0) {
		if (!w->err)
			w->err = -errno;
		return 0;
	}
	target = ((uint64_t)pos + align - 1) / align * align;
	for (uint64_t left = target - pos; left && !w->err;) {
		size_t n = left < sizeof(zeros) ? left : sizeof(zeros);

		put(w, zeros, n);
		left -= n;
	}
	return target;
}

static void copy_spill(struct writer *w, FILE *spill, uint64_t bytes)
{
	char buf[1 << 16];

	if (w->err)
		return;
	if (fflush(spill) || fseek(spill, 0, SEEK_SET)) {
		w->err = -errno;
		return;
	}
	while (bytes && !w->err) {
		size_t n = bytes < sizeof(buf) ? bytes : sizeof(buf);

		if (fread(buf, 1, n, spill) != n) {
			w->err = ferror(spill) ? -EIO : -ENODATA;
			return;
		}
		put(w, buf, n);
		bytes -= n;
	}
}

int datwrite_v6(FILE *out, const struct dat_source *src)
{
	static const uint8_t magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct writer w = { .fp = out };
	uint64_t *offsets;
	long table;

	offsets = calloc(src->ncpu ? src->ncpu : 1, sizeof(*offsets));
	if (!offsets)
		return -ENOMEM;
	put(&w, magic, sizeof(magic));
	put_str(&w, "6");
	put(&w, (uint8_t[]){ __BYTE_ORDER == __BIG_ENDIAN, sizeof(long) }, 2);
	put_u32(&w, src->page_size);

	put(&w, "header_page", 12);
	put_text64(&w, &src->header_page);
	put(&w, "header_event", 13);
	put_text64(&w, &src->header_event);
	put_u32(&w, src->nftrace_formats);
	for (size_t i = 0; i < src->nftrace_formats; i++)
		put_text64(&w, &src->ftrace_formats[i]);
	put_u32(&w, src->nsystems);
	for (size_t s = 0; s < src->nsystems; s++) {
		put_str(&w, src->systems[s].name);
		put_u32(&w, src->systems[s].n);
		for (size_t i = 0; i < src->systems[s].n; i++)
			put_text64(&w, &src->systems[s].formats[i]);
	}
	put_u32(&w, 0);				/* kallsyms: block events need none */
	put_u32(&w, 0);				/* printk formats */
	put_text64(&w, &src->cmdlines);
	put_u32(&w, src->ncpu);

	put(&w, "options  ", 10);
	/*
	 * The clock text follows the CPU table, and is the option's body too,
	 * NUL-terminated, as trace-cmd writes it: libtracecmd parses the body
	 * as a string, and an empty one made it read past its buffer.
	 */
	put_u16(&w, OPT_TRACECLOCK);
	put_u32(&w, (uint32_t)src->clock.len + 1);
	put(&w, src->clock.data, src->clock.len);
	put(&w, "", 1);
	/* the traced kernel, as trace-cmd writes it: trace-cmd report --uname shows it */
	if (src->uname) {
		put_u16(&w, OPT_UNAME);
		put_u32(&w, (uint32_t)strlen(src->uname) + 1);
		put_str(&w, src->uname);
	}
	put_u16(&w, OPT_DONE);

	put(&w, "flyrecord", 10);
	table = w.err ? -1 : ftell(out);
	if (table < 0 && !w.err)
		w.err = -errno;
	for (int c = 0; c < src->ncpu; c++) {	/* placeholders, filled in below */
		put_u64(&w, 0);
		put_u64(&w, 0);
	}
	put_text64(&w, &src->clock);

	for (int c = 0; c < src->ncpu && !w.err; c++) {
		if (!src->spill[c] || !src->spill_bytes[c])
			continue;
		offsets[c] = pad_to(&w, src->page_size);
		copy_spill(&w, src->spill[c], src->spill_bytes[c]);
	}
	if (!w.err && fseek(out, table, SEEK_SET))
		w.err = -errno;
	for (int c = 0; c < src->ncpu && !w.err; c++) {
		put_u64(&w, offsets[c]);
		put_u64(&w, offsets[c] ? src->spill_bytes[c] : 0);
	}
	if (!w.err && fseek(out, 0, SEEK_END))
		w.err = -errno;
	if (!w.err && fflush(out))
		w.err = errno ? -errno : -EIO;
	free(offsets);
	return w.err;
}
