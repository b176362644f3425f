/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcdecode.h - raw page-cache tracepoint records to struct blk_event.
 *
 * The page-cache half of the decoder (decode.c owns it and hands it the
 * records whose id is a page-cache event). As for block events, every field
 * is found by name once; a kernel without an event, or with a field
 * renamed, leaves that kind absent or that value zero, never a crash.
 */
#ifndef BLKSTACK_PCDECODE_H
#define BLKSTACK_PCDECODE_H

#include <event-parse.h>
#include <stdbool.h>

#include "base/pcevent.h"

struct pcdecoder;

/**
 * pcdecoder_alloc - resolve the page-cache events that @tep knows
 * @tep: a handle with (some of) the filemap, readahead, writeback and
 *	 iomap formats parsed
 * @swap: the records are of the other endianness
 *
 * Returns the decoder (possibly with no event present: see pcdecoder_has()),
 * or NULL with errno ENOMEM.
 */
struct pcdecoder *pcdecoder_alloc(struct tep_handle *tep, bool swap);

/** pcdecoder_free - release; NULL is accepted */
void pcdecoder_free(struct pcdecoder *pd);

/** pcdecoder_has - whether the handle had a usable event of this kind */
bool pcdecoder_has(const struct pcdecoder *pd, unsigned int kind);

/** pcdecoder_event_id - the tep event id of @kind, or -1 when absent */
int pcdecoder_event_id(const struct pcdecoder *pd, unsigned int kind);

/**
 * pcdecoder_decode - fill the page-cache fields of @ev from one record
 * @pd: the decoder
 * @kind: the record's kind (a present enum pc_kind)
 * @data: the record's payload
 * @size: bytes at @data
 * @ev: its common fields (ts, cpu, pid, kind) already set by the caller
 *
 * Returns 1, or -EINVAL when the record is too short for its format.
 */
int pcdecoder_decode(const struct pcdecoder *pd, unsigned int kind, const void *data,
		     unsigned int size, struct blk_event *ev);

/**
 * pc_bdi_dev - the device a bdi name stands for ("254:0" -> 254:0)
 * @name: the name as the writeback events carry it (NUL-terminated)
 *
 * Returns the kernel dev_t, or 0 for a name that is not MAJ:MIN
 * ("btrfs-1": btrfs registers a bdi of its own).
 */
uint32_t pc_bdi_dev(const char *name);

#endif /* BLKSTACK_PCDECODE_H */
