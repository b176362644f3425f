// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrec.c - blktrace's binary record from a decoded block event.
 *
 * The header's fields are stored at their offsets one by one, so that the
 * layout does not depend on the compiler's padding of a struct:
 *
 *    0 magic | version   4 sequence   8 time (ns)   16 sector
 *   24 bytes   28 action   32 pid   36 device   40 cpu   44 error (u16)
 *   46 pdu_len (u16)     48 payload
 */
#include <endian.h>
#include <string.h>

#include "format/btrec.h"

#define ACT(cat)	((uint32_t)(cat) << BTREC_TC_SHIFT)

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The category bits blktrace derives from the operation and its flags. */
static uint32_t categories(const struct blk_event *ev)
{
	/* blktrace's write bit is the operation's direction: discards write;
	 * a passthrough command reads (REQ_OP_DRV_IN: the tracepoint does not
	 * say, and a rescan's commands read) */
	uint32_t c = blk_event_writes(ev) && !blk_event_passthrough(ev) ? BTREC_TC_WRITE : BTREC_TC_READ;

	if ((ev->flags & BLK_F_PREFLUSH) || ev->op == BLK_OP_FLUSH)
		c |= BTREC_TC_FLUSH;
	if (ev->op == BLK_OP_DISCARD || ev->op == BLK_OP_SECURE_ERASE)
		c |= BTREC_TC_DISCARD;
	if (ev->flags & BLK_F_FUA)
		c |= BTREC_TC_FUA;
	if (ev->flags & BLK_F_SYNC)
		c |= BTREC_TC_SYNC;
	if (ev->flags & BLK_F_RAHEAD)
		c |= BTREC_TC_AHEAD;
	if (ev->flags & BLK_F_META)
		c |= BTREC_TC_META;
	return ACT(c);
}

uint32_t btrec_action(const struct blk_event *ev, bool timer)
{
	/* request events carry the file-system category (a passthrough
	 * request's: PC), bio events none */
	const uint32_t queue = ACT(BTREC_TC_QUEUE);
	const uint32_t fs = ACT(blk_event_passthrough(ev) ? BTREC_TC_PC : BTREC_TC_FS);
	uint32_t a;

	switch (ev->kind) {
	case BLK_EV_BIO_QUEUE:
		a = BTREC_TA_QUEUE | queue;
		break;
	case BLK_EV_BIO_BACKMERGE:
		a = BTREC_TA_BACKMERGE | queue;
		break;
	case BLK_EV_BIO_FRONTMERGE:
		a = BTREC_TA_FRONTMERGE | queue;
		break;
	case BLK_EV_BIO_BOUNCE:
		a = BTREC_TA_BOUNCE;
		break;
	case BLK_EV_GETRQ:
		a = BTREC_TA_GETRQ | queue;
		break;
	case BLK_EV_SLEEPRQ:
		a = BTREC_TA_SLEEPRQ | queue;
		break;
	case BLK_EV_RQ_INSERT:
		a = BTREC_TA_INSERT | queue | fs;
		break;
	case BLK_EV_RQ_ISSUE:
		a = BTREC_TA_ISSUE | ACT(BTREC_TC_ISSUE) | fs;
		break;
	case BLK_EV_RQ_MERGE:
		/* the kernel logs a request merge as a back merge of the request */
		a = BTREC_TA_BACKMERGE | queue | fs;
		break;
	case BLK_EV_RQ_REQUEUE:
		a = BTREC_TA_REQUEUE | ACT(BTREC_TC_REQUEUE) | fs;
		break;
	case BLK_EV_RQ_COMPLETE:
		a = BTREC_TA_COMPLETE | ACT(BTREC_TC_COMPLETE) | fs;
		break;
	case BLK_EV_BIO_COMPLETE:
		a = BTREC_TA_COMPLETE | ACT(BTREC_TC_COMPLETE);
		break;
	case BLK_EV_BIO_REMAP:
	case BLK_EV_RQ_REMAP:
		a = BTREC_TA_REMAP | queue;
		break;
	case BLK_EV_SPLIT:
		a = BTREC_TA_SPLIT;
		break;
	case BLK_EV_PLUG:
		a = BTREC_TA_PLUG | queue;
		break;
	case BLK_EV_UNPLUG:
		a = (timer ? BTREC_TA_UNPLUG_TIMER : BTREC_TA_UNPLUG_IO) | queue;
		break;
	default:
		return 0;
	}
	return a | categories(ev);
}

static void put_header(uint8_t *buf, uint32_t seq, uint64_t ts, uint64_t sector, uint32_t bytes,
		       uint32_t action, int32_t pid, uint32_t dev, unsigned int cpu,
		       int32_t error, uint16_t pdu_len)
{
	put32(buf + 0, BTREC_MAGIC | BTREC_VERSION);
	put32(buf + 4, seq);
	put64(buf + 8, ts);
	put64(buf + 16, sector);
	put32(buf + 24, bytes);
	put32(buf + 28, action);
	put32(buf + 32, (uint32_t)pid);
	put32(buf + 36, dev);
	put32(buf + 40, cpu);
	/* the kernel stores the negative errno in 16 bits */
	put16(buf + 44, (uint16_t)error);
	put16(buf + 46, pdu_len);
}

size_t btrec_encode_event(const struct blk_event *ev, uint32_t dev, bool timer, uint32_t seq,
			  uint8_t *buf)
{
	uint32_t action = btrec_action(ev, timer);
	uint8_t *pdu = buf + BTREC_HDR_SIZE;
	uint64_t sector = ev->sector;
	uint16_t pdu_len = 0;
	uint32_t bytes;

	if (!action)
		return 0;
	/* a flush request's position is -1 in the tracepoint, 0 in blktrace */
	if (sector == UINT64_MAX)
		sector = 0;
	/*
	 * blkparse shows bytes >> 9 as the size; without sectors, keep the
	 * bytes. A bio's size is 32 bits in the kernel as in the record.
	 */
	if (ev->nr_sector)
		bytes = (uint64_t)ev->nr_sector << 9 > UINT32_MAX ? UINT32_MAX
								 : ev->nr_sector << 9;
	else
		bytes = ev->bytes;
	switch (ev->kind) {
	case BLK_EV_BIO_REMAP:
	case BLK_EV_RQ_REMAP:
		put32(pdu, htobe32(ev->old_dev));
		put32(pdu + 4, htobe32(dev));
		put64(pdu + 8, htobe64(ev->aux_sector));
		pdu_len = 16;
		break;
	case BLK_EV_SPLIT:
		put64(pdu, htobe64(ev->aux_sector));
		pdu_len = 8;
		/*
		 * blktrace records the split bio's size, and blkparse prints a
		 * read as R only when the size is not 0. block_split has no
		 * size: the block layer's piece runs up to the new sector; dm's
		 * remainder (new sector == sector) has a size the event does not
		 * tell, so one sector stands for "has data" (blkparse prints no
		 * size on X lines).
		 */
		bytes = ev->aux_sector > ev->sector && ev->aux_sector - ev->sector <= UINT32_MAX >> 9
				? (uint32_t)(ev->aux_sector - ev->sector) << 9 : 512;
		break;
	case BLK_EV_UNPLUG:
		put64(pdu, htobe64(ev->count));
		pdu_len = 8;
		/* fall through */
	case BLK_EV_PLUG:
		/* a plug or an unplug has no position and no size */
		sector = 0;
		bytes = 0;
		break;
	default:
		break;
	}
	put_header(buf, seq, ev->ts, sector, bytes, action, ev->pid, dev, ev->cpu,
		   ev->kind == BLK_EV_RQ_COMPLETE || ev->kind == BLK_EV_BIO_COMPLETE ||
		   ev->kind == BLK_EV_RQ_REQUEUE ? ev->error : 0, pdu_len);
	return BTREC_HDR_SIZE + pdu_len;
}

size_t btrec_encode_process(int32_t pid, const char *comm, uint32_t dev, unsigned int cpu,
			    uint64_t ts, uint8_t *buf)
{
	size_t n = strnlen(comm, 16);

	/* a note has no sequence number: blkparse takes it aside, unsorted */
	put_header(buf, 0, ts, 0, 0, BTREC_TN_PROCESS | ACT(BTREC_TC_NOTIFY), pid, dev, cpu, 0, 16);
	memset(buf + BTREC_HDR_SIZE, 0, 16);
	memcpy(buf + BTREC_HDR_SIZE, comm, n);
	return BTREC_HDR_SIZE + 16;
}
