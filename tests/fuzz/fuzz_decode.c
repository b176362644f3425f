// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_decode.c - the block and page-cache decoders (format/decode.c,
 * pcdecode.c) given any event formats and any record bytes.
 *
 * The formats are written here from the input as well-formed format text
 * (libtraceevent's own parser is not the subject: it runs in tracefile's
 * child for a file's formats): each field the decoders look for, present or
 * not, at any offset, of any size, scalar or array. Then each record is
 * decoded from a heap copy of exactly its length, so that AddressSanitizer
 * sees any field read past the record.
 *
 * Input: a settings byte (bit 0: big-endian file; bits 1-7: where and how
 * wide common_type is), a count of events, per event its kind and 3 bytes
 * per field name, then records as [length byte][bytes].
 */
#include <event-parse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pcevent.h"
#include "format/decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* every name decode.c and pcdecode.c resolve */
static const char *const names[] = {
	"dev", "sector", "nr_sector", "bytes", "old_dev", "old_sector", "new_sector", "error",
	"nr_rq", "nr_bios", "ioprio", "rwbs", "comm", "s_dev", "i_ino", "ino", "index", "pos",
	"order", "last_index", "req_count", "size", "count", "name",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

struct in {
	const uint8_t *p;
	size_t len;
};

static unsigned int byte(struct in *in)
{
	if (!in->len)
		return 0;
	in->len--;
	return *in->p++;
}

static void kind_name(unsigned int k, const char **sys, const char **name)
{
	k %= PC_EV_KIND_MAX - 1;
	k += BLK_EV_NONE + 1;
	if (pc_kind_is(k)) {
		*sys = pc_kind_system(k);
		*name = pc_kind_name(k);
	} else {
		*sys = "block";
		*name = blk_kind_name(k);
	}
}

/* One event's format text from the input; its length, 0 when it did not fit. */
static size_t format_text(struct in *in, char *buf, size_t cap, const char *name, int id,
			  unsigned int type_off, unsigned int type_size)
{
	size_t n = 0;

#define ADD(...)                                                                    \
	do {                                                                        \
		int w = snprintf(buf + n, cap - n, __VA_ARGS__);                    \
		if (w < 0 || (size_t)w >= cap - n)                                  \
			return 0;                                                   \
		n += w;                                                             \
	} while (0)
	ADD("name: %s\nID: %d\nformat:\n", name, id);
	ADD("\tfield:unsigned int common_type;\toffset:%u;\tsize:%u;\tsigned:0;\n", type_off,
	    type_size);
	ADD("\tfield:int common_pid;\toffset:%u;\tsize:4;\tsigned:1;\n", (type_off + 4) & 15);
	ADD("\n");
	for (size_t i = 0; i < NNAMES; i++) {
		unsigned int how = byte(in), off = byte(in) | byte(in) << 8;
		unsigned int size = (how >> 2) & 15;

		if (!(how & 1))
			continue;
		if (how & 2)	/* an array: char NAME[N] */
			ADD("\tfield:char %s[%u];\toffset:%u;\tsize:%u;\tsigned:0;\n", names[i],
			    size * 3 + 1, off, size == 15 ? 4096 : size * 3 + 1);
		else
			ADD("\tfield:unsigned long %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			    names[i], off, size, !!(how & 64));
	}
	ADD("\nprint fmt: \"x\"\n");
#undef ADD
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static const unsigned int sizes[4] = { 1, 2, 4, 8 };
	struct in in = { data, len };
	struct tep_handle *tep;
	struct decoder *d;
	unsigned int settings, nevents, type_off, type_size;
	char text[8192];

	if (len < 2)
		return 0;
	settings = byte(&in);
	nevents = byte(&in) % 8 + 1;
	type_off = (settings >> 1) & 7;
	type_size = sizes[(settings >> 4) & 3];
	tep = tep_alloc();
	if (!tep)
		return 0;
	tep_set_file_bigendian(tep, settings & 1 ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (unsigned int e = 0; e < nevents; e++) {
		const char *sys, *name;
		size_t n;

		kind_name(byte(&in), &sys, &name);
		n = format_text(&in, text, sizeof(text), name, 10 + e * (1 + (settings >> 6)),
				type_off, type_size);
		if (n)
			tep_parse_event(tep, text, n, sys);
	}
	d = decoder_alloc(tep);
	while (d && in.len) {
		unsigned int n = byte(&in);
		struct blk_event ev;
		uint8_t *rec;

		if (n > in.len)
			n = in.len;
		rec = malloc(n ? n : 1);
		if (!rec)
			break;
		memcpy(rec, in.p, n);
		in.p += n;
		in.len -= n;
		/* a record of a known id decodes, or is said malformed; never read past */
		if (decoder_decode(d, rec, n, 1, 0, &ev) > 0 && ev.kind == BLK_EV_NONE)
			abort();
		free(rec);
	}
	decoder_free(d);
	tep_free(tep);
	return 0;
}
