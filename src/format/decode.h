/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode.h - raw tracepoint records to struct blk_event.
 *
 * At start-up every field the tool uses is looked up by name, per event type,
 * in the running kernel's (or the file's) format descriptions; the hot path
 * then reads fixed offsets. Field layouts move between kernel versions
 * (block_rq_* gained ioprio, block_rq_requeue lost error, block_io_start is
 * new in 6.5): resolving by name is what lets one binary read them all.
 */
#ifndef BLKSTACK_DECODE_H
#define BLKSTACK_DECODE_H

#include <event-parse.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/event.h"
#include "format/field.h"

struct decoder;

/**
 * decoder_alloc - resolve the block events of @tep into a decode table
 * @tep: a handle with the "block" system's formats parsed
 *
 * Events the handle lacks are simply absent (see decoder_has()); a present
 * event whose fields cannot be resolved is treated as absent too.
 *
 * Returns a decoder, or NULL with errno set (ENOMEM, or ENOENT when the
 * handle has no block event at all).
 */
struct decoder *decoder_alloc(struct tep_handle *tep);

/** decoder_free - release a decoder; NULL is accepted */
void decoder_free(struct decoder *d);

/**
 * decoder_has - whether the kernel/file had a usable event of this kind
 * @d: the decoder
 * @kind: an enum blk_kind value
 */
bool decoder_has(const struct decoder *d, enum blk_kind kind);

/**
 * decoder_event_id - the tep event id of @kind, or -1 when absent
 * @d: the decoder
 * @kind: an enum blk_kind value
 */
int decoder_event_id(const struct decoder *d, enum blk_kind kind);

/**
 * decoder_decode - decode one raw record
 * @d: the decoder
 * @data: the record's payload (starting at common_type)
 * @size: bytes at @data
 * @ts: the record's timestamp
 * @cpu: the CPU whose buffer held it
 * @ev: filled on success
 *
 * Returns 1 when @ev holds a block event or a page-cache event (an enum
 * pc_kind, see pcevent.h), 0 when the record is of another event type (skip
 * it), -EINVAL when it is one of ours too short for its format (malformed;
 * count it and skip it).
 */
int decoder_decode(struct decoder *d, const void *data, unsigned int size,
		   unsigned long long ts, int cpu, struct blk_event *ev);

#endif /* BLKSTACK_DECODE_H */
