// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * datfile.c - where the ring-buffer pages are in a trace.dat file, version
 * 6 or 7.
 *
 * Every read is bounds-checked against the mapping: a truncated or corrupt
 * file gives -EINVAL, never a read past the end. A v7 file's options
 * sections are chained by offsets that a damaged file can turn into a
 * loop: their number is capped.
 */
#include <byteswap.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/datcursor.h"
#include "format/datfile.h"

/* Option ids of trace-cmd.dat.v6(5) and v7(5) that change where data is. */
#define OPT_DONE	0
#define OPT_BUFFER	3
#define OPT_CPUCOUNT	8
#define OPT_HEADER_INFO	16	/* then FTRACE_EVENTS 17, EVENT_FORMATS 18 */
#define OPT_BUFFER_TEXT	22
/* and those that say what the data's host and clock were */
#define OPT_DATE	1
#define OPT_TRACECLOCK	4
#define OPT_UNAME	5

/* v7: a section's flags */
#define SEC_FL_COMPRESS	1
/* v7: more options sections than any writer makes: a loop in a damaged file */
#define V7_MAX_SECTIONS	4096

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

/* The clock in use of a trace_clock text ("local [mono] x86-tsc"), or the text itself. */
static void clock_name(const char *text, size_t len, char *out)
{
	const char *open = memchr(text, '[', len), *close;
	size_t n;

	if (open && (close = memchr(open, ']', len - (open - text)))) {
		text = open + 1;
		len = close - text;
	}
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\0' || text[len - 1] == ' '))
		len--;
	n = len < DATFILE_CLOCK_MAX - 1 ? len : DATFILE_CLOCK_MAX - 1;
	memcpy(out, text, n);
	out[n] = '\0';
}

/* A number option's text ("0x6615ea5b289f1"), as trace-cmd reads it (strtoll base 0). */
static bool option_number(const struct cursor *d, uint32_t size, int64_t *v)
{
	char text[32], *end;

	if (!size || size >= sizeof(text) || d->pos + size > d->len)
		return false;
	memcpy(text, d->base + d->pos, size);
	text[size] = '\0';
	errno = 0;
	*v = strtoll(text, &end, 0);
	return end != text && !errno;
}

/*
 * An option that says what the host and its clock were (DATE, TRACECLOCK,
 * UNAME): into @l->host, the clock into @clock (the buffer's). Others are
 * left alone. Returns 0 or -ENOMEM.
 */
static int host_option(struct datfile_layout *l, uint16_t id, const struct cursor *d,
		       uint32_t size, char *clock)
{
	struct datfile_host *h = &l->host;
	const char *text = (const char *)d->base + d->pos;
	int64_t v;

	if (d->pos + size > d->len)
		return 0;
	switch (id) {
	case OPT_DATE:
		/* trace-cmd's own reading: microseconds, in hex with 0x */
		if (option_number(d, size, &v) && v > INT64_MIN / 1000 && v < INT64_MAX / 1000) {
			h->has_date = true;
			h->date_ns = v * 1000;
		}
		break;
	case OPT_TRACECLOCK:
		if (clock && size)
			clock_name(text, size, clock);
		break;
	case OPT_UNAME:
		if (!h->uname && size) {
			h->uname = strndup(text, size);
			if (!h->uname)
				return -ENOMEM;
		}
		break;
	}
	return 0;
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
			int *nrefs, char *clock)
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
		if (host_option(l, id, &opt, size, clock) < 0)
			return -ENOMEM;
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
		memset(s, 0, sizeof(*s));
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
	char clock[DATFILE_CLOCK_MAX] = "";
	int ret, nstreams = l->nstreams;

	if (!type)
		return -EINVAL;
	if (memcmp(type, "options  ", 10) == 0) {
		ret = read_options(c, l, refs, nrefs, clock);
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
	ret = read_cpu_table(c, l, buffer);
	/* the clock of the data: the first buffer that has some, else the top level's */
	if (!ret && clock[0] && (!l->host.clock[0] || (l->nstreams > nstreams && !nstreams)))
		memcpy(l->host.clock, clock, sizeof(clock));
	return ret;
}

/* ---- version 7: sections, found through the chain of options sections ---- */

/* One CPU of a v7 BUFFER option. */
struct v7_cpu {
	uint32_t cpu;
	uint64_t offset;
	uint64_t size;
};

/* A v7 BUFFER option, copied out of its (maybe decompressed) section. */
struct v7_buffer {
	uint64_t offset;	/* its section header */
	char *name;
	char clock[DATFILE_CLOCK_MAX];
	uint32_t page_size;
	uint32_t ncpu;
	struct v7_cpu *cpus;
};

struct v7_state {
	struct v7_buffer *bufs;
	int nbufs;
	bool latency;
	uint64_t tail;		/* the end of the last options section */
	char clock[DATFILE_CLOCK_MAX];	/* the TRACECLOCK option's */
};

static void v7_state_free(struct v7_state *st)
{
	for (int i = 0; i < st->nbufs; i++) {
		free(st->bufs[i].name);
		free(st->bufs[i].cpus);
	}
	free(st->bufs);
}

static int v7_buffer_option(struct cursor *o, struct v7_state *st)
{
	struct v7_buffer *b, *n;
	const char *name, *clock;

	n = realloc(st->bufs, (st->nbufs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	st->bufs = n;
	b = &n[st->nbufs];
	memset(b, 0, sizeof(*b));
	b->offset = get_u64(o);
	name = get_str(o);
	clock = get_str(o);
	if (clock)
		clock_name(clock, strlen(clock), b->clock);
	b->page_size = get_u32(o);
	b->ncpu = get_u32(o);
	/* each CPU takes 20 bytes: a count the option cannot hold is corrupt */
	if (o->bad || b->ncpu > (o->len - o->pos) / 20)
		return -EINVAL;
	b->name = strdup(name);
	b->cpus = calloc(b->ncpu ? b->ncpu : 1, sizeof(*b->cpus));
	st->nbufs++;
	if (!b->name || !b->cpus)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->ncpu; i++) {
		b->cpus[i].cpu = get_u32(o);
		b->cpus[i].offset = get_u64(o);
		b->cpus[i].size = get_u64(o);
	}
	return o->bad ? -EINVAL : 0;
}

/*
 * The options section whose header is at @off: the buffers and the CPU
 * count it holds, and in *@next the offset of the next one (0: the last).
 */
static int v7_options_section(const struct cursor *file, uint64_t off, struct datfile_layout *l,
			      struct v7_state *st, uint64_t *next)
{
	struct cursor c = *file, o;
	void *plain = NULL;
	uint16_t id, flags;
	uint64_t size;
	int ret = -EINVAL;

	if (off >= c.len)
		return -EINVAL;
	c.pos = off;
	id = get_u16(&c);
	flags = get_u16(&c);
	get_u32(&c);				/* its description's string id */
	size = get_u64(&c);
	if (c.bad || id != OPT_DONE || size > c.len - c.pos)
		return -EINVAL;
	if (c.pos + size > st->tail)
		st->tail = c.pos + size;
	if (flags & SEC_FL_COMPRESS) {
		uint32_t zsize = get_u32(&c), usize = get_u32(&c);
		const void *src = take(&c, zsize);
		struct unzip *u;

		if (!src || l->algo == UNZIP_NONE || usize > UNZIP_MAX_BLOCK)
			return -EINVAL;
		plain = malloc(usize ? usize : 1);
		u = unzip_alloc(l->algo);
		if (!plain || !u) {
			unzip_free(u);
			free(plain);
			return -ENOMEM;
		}
		ret = unzip_block(u, src, zsize, plain, usize);
		unzip_free(u);
		if (ret < 0) {
			free(plain);
			return -EINVAL;
		}
		o = (struct cursor){ .base = plain, .len = usize, .swap = c.swap };
	} else {
		o = c;
		if (size < o.len - o.pos)
			o.len = o.pos + size;
	}
	for (;;) {
		uint16_t oid = get_u16(&o);
		uint32_t osize = get_u32(&o);
		struct cursor d = o;

		skip(&o, osize);
		if (o.bad) {
			ret = -EINVAL;
			break;
		}
		d.len = d.pos + osize;
		if (oid == OPT_DONE) {
			*next = get_u64(&d);
			ret = d.bad ? -EINVAL : 0;
			break;
		}
		if (oid == OPT_CPUCOUNT && osize >= 4) {
			l->ncpu = get_u32(&d);
		} else if (oid >= OPT_HEADER_INFO && oid < OPT_HEADER_INFO + DATFILE_SEC_MAX &&
			   osize >= 8) {
			l->sections[oid - OPT_HEADER_INFO] = get_u64(&d);
		} else if (oid == OPT_BUFFER) {
			ret = v7_buffer_option(&d, st);
			if (ret)
				break;
		} else if (oid == OPT_BUFFER_TEXT) {
			st->latency = true;
		} else if (host_option(l, oid, &d, osize, st->clock) < 0) {
			ret = -ENOMEM;
			break;
		}
	}
	free(plain);
	return ret;
}

/* The CPUs of one buffer, as streams; the section header tells whether compressed. */
static int v7_buffer_streams(const struct cursor *file, struct datfile_layout *l,
			     const struct v7_buffer *b, int buffer)
{
	struct cursor c = *file;
	struct datfile_stream *n;
	uint16_t id, flags;

	if (b->page_size != l->page_size)
		return -ENOTSUP;	/* a buffer with its own page size: libtracecmd's */
	if (b->offset >= c.len)
		return -EINVAL;
	c.pos = b->offset;
	id = get_u16(&c);
	flags = get_u16(&c);
	if (c.bad || id != OPT_BUFFER)
		return -EINVAL;
	if ((flags & SEC_FL_COMPRESS) && l->algo == UNZIP_NONE)
		return -EINVAL;
	n = realloc(l->streams, (l->nstreams + b->ncpu + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->streams = n;
	for (uint32_t i = 0; i < b->ncpu; i++) {
		const struct v7_cpu *vc = &b->cpus[i];
		struct datfile_stream *s;

		if (!vc->size)
			continue;
		if (vc->cpu >= 65536)
			return -EINVAL;
		s = &l->streams[l->nstreams++];
		memset(s, 0, sizeof(*s));
		s->cpu = vc->cpu;
		s->buffer = buffer;
		s->size = vc->size;
		s->offset = vc->offset;
		if (flags & SEC_FL_COMPRESS) {
			/* a chunk count, then the chunks, which the size counts */
			struct cursor cc = *file;

			s->compressed = true;
			s->offset += 4;
			if (vc->offset < cc.len) {
				cc.pos = vc->offset;
				s->nchunks = get_u32(&cc);
			}
			if (cc.bad || vc->offset >= cc.len) {
				s->nchunks = 0;
				s->avail = 0;
				continue;
			}
		}
		if (s->offset >= c.len)
			s->avail = 0;
		else
			s->avail = s->size < c.len - s->offset ? s->size : c.len - s->offset;
		if (!s->compressed)
			s->avail -= s->avail % l->page_size;
		if (vc->cpu >= (uint32_t)l->ncpu)
			l->ncpu = vc->cpu + 1;
		/* the clock of the data: the first buffer's that has some */
		if (!l->host.clock[0])
			memcpy(l->host.clock, b->clock, sizeof(b->clock));
	}
	return 0;
}

/*
 * What follows the last options section (trace-cmd writes its strings
 * there, found by walking section headers) must be whole sections: blkstack
 * reads none of them, but a file cut there is cut short all the same, and
 * says so as libtracecmd does.
 */
static int v7_tail_whole(const struct cursor *file, uint64_t pos)
{
	struct cursor c = *file;

	for (int n = 0; pos < c.len; n++) {
		uint64_t size;
		uint16_t id;

		if (n == V7_MAX_SECTIONS)
			return -EINVAL;
		c.pos = pos;
		id = get_u16(&c);
		skip(&c, 6);
		size = get_u64(&c);
		/* a cut in a buffer's data is the streams' to tell (datfile_stream.avail) */
		if (!c.bad && id == OPT_BUFFER)
			return 0;
		if (c.bad || size > c.len - c.pos)
			return -EINVAL;
		pos = c.pos + size;
	}
	return 0;
}

/* After the page size: the compression header, then the chain of options sections. */
static int v7_parse(struct cursor *c, struct datfile_layout *l)
{
	struct v7_state st = { 0 };
	const char *algo;
	uint64_t off;
	int ret, sections = 0;

	algo = get_str(c);
	get_str(c);				/* the algorithm's version */
	off = get_u64(c);
	if (c->bad)
		return -EINVAL;
	ret = unzip_algo_parse(algo, &l->algo);
	if (ret)
		return ret;
	while (off) {
		if (++sections > V7_MAX_SECTIONS) {
			ret = -EINVAL;
			goto out;
		}
		ret = v7_options_section(c, off, l, &st, &off);
		if (ret)
			goto out;
	}
	if (st.latency) {
		ret = -ENOTSUP;
		goto out;
	}
	ret = v7_tail_whole(c, st.tail);
	if (ret)
		goto out;
	if (!l->host.clock[0])
		memcpy(l->host.clock, st.clock, sizeof(st.clock));
	/* the top level first, then the instances, as in a v6 file */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < st.nbufs; i++) {
			int b;

			if ((st.bufs[i].name[0] == '\0') != (pass == 0))
				continue;
			if (pass == 0 && l->nbuffers) {
				ret = -EINVAL;	/* two top-level buffers */
				goto out;
			}
			if (pass == 1 && !l->nbuffers && add_buffer(l, "") < 0) {
				ret = -ENOMEM;
				goto out;
			}
			b = add_buffer(l, st.bufs[i].name);
			if (b < 0) {
				ret = b;
				goto out;
			}
			ret = v7_buffer_streams(c, l, &st.bufs[i], b);
			if (ret)
				goto out;
		}
	}
	ret = 0;
out:
	v7_state_free(&st);
	return ret;
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
	if (strcmp(version, "6") != 0 && strcmp(version, "7") != 0)
		return -ENOTSUP;
	out->version = version[0] - '0';
	hdr = take(&c, 2);
	if (!hdr || hdr[0] > 1 || (hdr[1] != 4 && hdr[1] != 8))
		return -EINVAL;
	out->big_endian = hdr[0];
	out->long_size = hdr[1];
	c.swap = out->big_endian != (__BYTE_ORDER == __BIG_ENDIAN);
	out->page_size = get_u32(&c);
	if (c.bad || out->page_size < 64 || out->page_size > (64U << 20))
		return -EINVAL;
	if (out->version == 7) {
		ret = v7_parse(&c, out);
		if (ret)
			datfile_layout_free(out);
		return ret;
	}

	/* the header sections: only their sizes matter here */
	out->sections[DATFILE_SEC_HEADER] = c.pos;
	if (!expect(&c, "header_page", 12))
		return -EINVAL;
	skip(&c, get_u64(&c));
	if (!expect(&c, "header_event", 13))
		return -EINVAL;
	skip(&c, get_u64(&c));
	out->sections[DATFILE_SEC_FTRACE] = c.pos;
	n = get_u32(&c);			/* ftrace formats */
	for (uint32_t i = 0; i < n && !c.bad; i++, out->nformats++)
		skip(&c, get_u64(&c));
	out->sections[DATFILE_SEC_EVENTS] = c.pos;
	n = get_u32(&c);			/* event systems */
	for (uint32_t i = 0; i < n && !c.bad; i++) {
		uint32_t events;

		get_str(&c);
		events = get_u32(&c);
		for (uint32_t j = 0; j < events && !c.bad; j++, out->nformats++)
			skip(&c, get_u64(&c));
	}
	out->sections[DATFILE_SEC_KALLSYMS] = c.pos;
	skip(&c, get_u32(&c));			/* kallsyms */
	out->sections[DATFILE_SEC_PRINTK] = c.pos;
	skip(&c, get_u32(&c));			/* printk formats */
	out->sections[DATFILE_SEC_CMDLINES] = c.pos;
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
	free(l->host.uname);
	memset(l, 0, sizeof(*l));
}
