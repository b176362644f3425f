/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datformats.h - the event formats of a mapped trace.dat (v6 or v7), read
 * only as far as blkstack needs them.
 *
 * libtracecmd parses every header of a file on open: every event format of
 * every system, the kernel's symbols, the printk formats and the command
 * lines, which on a recording of all events takes longer than reading a
 * million block events. blkstack decodes block, page-cache and marker
 * events by field name and needs nothing else: the header page and those
 * events' formats; the command lines only when an output names tasks by
 * them, so they are read apart, on demand. Reading them here also opens
 * the v7 files whose compression the installed libtracecmd lacks
 * (Debian's has no zlib).
 */
#ifndef BLKSTACK_DATFORMATS_H
#define BLKSTACK_DATFORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/datfile.h"

struct tep_handle;

/**
 * datformats_load - a libtraceevent handle with the formats blkstack decodes
 * @map: the whole file
 * @len: its size
 * @l: its layout, from datfile_layout_parse()
 * @whole: parse each format with its print fmt too (what libtracecmd
 *	parses: to judge a file's formats sound, see tracefile.c)
 * @err: on failure, -EINVAL (headers damaged or cut short) or -ENOMEM
 *
 * The handle has the file's byte order, long size, page size, CPU count
 * and header page, and the formats of the events the decoders look up:
 * the block kinds (base/event.h), the page-cache kinds (base/pcevent.h)
 * and ftrace's print. A format of the block or page-cache systems whose
 * first line is not a plain "name: NAME" is parsed too, for libtraceevent
 * to judge. Unless @whole, each is parsed with an empty print fmt: no
 * output prints with it (so no field has the marks __print_flags and
 * __print_symbolic set, which no decoder reads). A format that
 * libtraceevent refuses is left out, as libtracecmd leaves it out. The
 * handle has no task names: see datformats_cmdlines().
 * Returns the handle (free with tep_free()), or NULL.
 */
struct tep_handle *datformats_load(const uint8_t *map, size_t len,
				   const struct datfile_layout *l, bool whole, int *err);

/**
 * datformats_each_event - every event format a mapped trace.dat's headers
 * hold (ftrace's and every system's), without parsing them
 * @map: the whole file
 * @len: its size
 * @l: its layout, from datfile_layout_parse()
 * @fn: called with each format's ID, system and name (NUL-terminated)
 * @ctx: for @fn
 *
 * Returns 0, -EINVAL (headers damaged or cut short) or -ENOMEM.
 */
int datformats_each_event(const uint8_t *map, size_t len, const struct datfile_layout *l,
			  void (*fn)(unsigned int id, const char *sys, const char *name, void *ctx),
			  void *ctx);

/**
 * datformats_cmdlines - the text of a mapped trace.dat's saved_cmdlines
 * @map: the whole file
 * @len: its size
 * @l: its layout, from datfile_layout_parse()
 * @text: set to the text ("PID COMM" lines, see format/cmdlines.h)
 * @size: set to its length
 * @owned: set to what to free() afterwards, whatever the return (a
 *	compressed v7 section is decompressed into it; NULL otherwise)
 *
 * Returns 0, -ENOENT (the file has no such section), -EINVAL (damaged or
 * cut short) or -ENOMEM.
 */
int datformats_cmdlines(const uint8_t *map, size_t len, const struct datfile_layout *l,
			const char **text, size_t *size, void **owned);

#endif /* BLKSTACK_DATFORMATS_H */
