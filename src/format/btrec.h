/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * btrec.h - blktrace's binary record (struct blk_io_trace, version 7) from
 * a decoded block event.
 *
 * The record is 48 bytes in the byte order of the machine that writes it
 * (blkparse tells the order from the magic), followed by pdu_len bytes of
 * payload, which blktrace writes big-endian: the remap's devices and
 * sector, the split's new sector, the unplug's request count. A process
 * note (BLK_TN_PROCESS) gives a pid's command name. Nothing here does I/O.
 */
#ifndef BLKSTACK_BTREC_H
#define BLKSTACK_BTREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/event.h"

#define BTREC_MAGIC		0x65617400u
#define BTREC_VERSION		0x07u
#define BTREC_HDR_SIZE		48
/* the longest payload written: a remap (4 + 4 + 8 bytes), a comm (16) */
#define BTREC_MAX_SIZE		(BTREC_HDR_SIZE + 16)

/* Categories: the upper 16 bits of the action. */
enum btrec_category {
	BTREC_TC_READ		= 1 << 0,
	BTREC_TC_WRITE		= 1 << 1,
	BTREC_TC_FLUSH		= 1 << 2,
	BTREC_TC_SYNC		= 1 << 3,
	BTREC_TC_QUEUE		= 1 << 4,
	BTREC_TC_REQUEUE	= 1 << 5,
	BTREC_TC_ISSUE		= 1 << 6,
	BTREC_TC_COMPLETE	= 1 << 7,
	BTREC_TC_FS		= 1 << 8,
	BTREC_TC_PC		= 1 << 9,
	BTREC_TC_NOTIFY		= 1 << 10,
	BTREC_TC_AHEAD		= 1 << 11,
	BTREC_TC_META		= 1 << 12,
	BTREC_TC_DISCARD	= 1 << 13,
	BTREC_TC_DRV_DATA	= 1 << 14,
	BTREC_TC_FUA		= 1 << 15,
};

#define BTREC_TC_SHIFT	16

/* Actions: the lower 16 bits. */
enum btrec_action {
	BTREC_TA_QUEUE = 1,
	BTREC_TA_BACKMERGE,
	BTREC_TA_FRONTMERGE,
	BTREC_TA_GETRQ,
	BTREC_TA_SLEEPRQ,
	BTREC_TA_REQUEUE,
	BTREC_TA_ISSUE,
	BTREC_TA_COMPLETE,
	BTREC_TA_PLUG,
	BTREC_TA_UNPLUG_IO,
	BTREC_TA_UNPLUG_TIMER,
	BTREC_TA_INSERT,
	BTREC_TA_SPLIT,
	BTREC_TA_BOUNCE,
	BTREC_TA_REMAP,
};

/* Notes (with BTREC_TC_NOTIFY): a pid's command name. */
#define BTREC_TN_PROCESS	0

/**
 * btrec_action - blktrace's action word for an event
 * @ev: the event
 * @timer: an unplug that flushed because its task went to sleep
 * Returns the action (category bits << 16 | action), or 0 for an event
 * blktrace has no action for (block_rq_error, block_io_start/done).
 */
uint32_t btrec_action(const struct blk_event *ev, bool timer);

/**
 * btrec_encode_event - the record of one event
 * @ev: the event
 * @dev: the device to record it under (for plugs and unplugs the one
 *	 plugdev inferred; otherwise @ev->dev)
 * @timer: see btrec_action()
 * @seq: its sequence number (per device and CPU, from 1)
 * @buf: at least BTREC_MAX_SIZE bytes
 * Returns the record's size, or 0 when blktrace has no action for @ev.
 */
size_t btrec_encode_event(const struct blk_event *ev, uint32_t dev, bool timer, uint32_t seq,
			  uint8_t *buf);

/**
 * btrec_encode_process - a process note: @pid runs @comm
 * @dev, @cpu, @ts: those of the event it precedes
 * @comm: the name, up to 16 bytes (NUL-padded in the record)
 * @buf: at least BTREC_MAX_SIZE bytes
 * Returns the record's size.
 */
size_t btrec_encode_process(int32_t pid, const char *comm, uint32_t dev, unsigned int cpu,
			    uint64_t ts, uint8_t *buf);

#endif /* BLKSTACK_BTREC_H */
