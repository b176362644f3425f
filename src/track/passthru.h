/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * passthru.h - the bytes of passthrough requests in flight (a driver's own
 * commands: a SCSI rescan's INQUIRY, READ CAPACITY...). Their issue event
 * gives their bytes; their completion does not, while blktrace's record of
 * it has them (and blkparse shows R or N by them). They run one by one at
 * a device: a completion takes the oldest noted there.
 */
#ifndef BLKSTACK_PASSTHRU_H
#define BLKSTACK_PASSTHRU_H

#include <stddef.h>
#include <stdint.h>

#include "base/event.h"

struct passthru {
	struct passthru_rq {
		uint32_t dev;
		uint32_t bytes;
	} *rqs;
	size_t n, cap;
};

/**
 * passthru_bytes - for an event of a passthrough request
 * (blk_event_passthrough()) at @dev: an issue is noted; a completion
 * returns @ev in @copy with the bytes of its issue (@ev itself when none
 * is noted); any other event is returned as it is
 */
const struct blk_event *passthru_bytes(struct passthru *p, const struct blk_event *ev,
				       uint32_t dev, struct blk_event *copy);

/** passthru_free - release what @p holds */
void passthru_free(struct passthru *p);

#endif /* BLKSTACK_PASSTHRU_H */
