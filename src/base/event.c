// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * event.c - names and letters of event kinds, and rwbs in both directions.
 */
#include <errno.h>
#include <string.h>

#include "base/event.h"

static const char *const kind_names[BLK_EV_KIND_MAX] = {
	[BLK_EV_BIO_QUEUE] = "block_bio_queue",
	[BLK_EV_BIO_BACKMERGE] = "block_bio_backmerge",
	[BLK_EV_BIO_FRONTMERGE] = "block_bio_frontmerge",
	[BLK_EV_BIO_BOUNCE] = "block_bio_bounce",
	[BLK_EV_GETRQ] = "block_getrq",
	[BLK_EV_SLEEPRQ] = "block_sleeprq",
	[BLK_EV_RQ_INSERT] = "block_rq_insert",
	[BLK_EV_RQ_ISSUE] = "block_rq_issue",
	[BLK_EV_RQ_MERGE] = "block_rq_merge",
	[BLK_EV_RQ_REQUEUE] = "block_rq_requeue",
	[BLK_EV_RQ_COMPLETE] = "block_rq_complete",
	[BLK_EV_BIO_COMPLETE] = "block_bio_complete",
	[BLK_EV_BIO_REMAP] = "block_bio_remap",
	[BLK_EV_RQ_REMAP] = "block_rq_remap",
	[BLK_EV_SPLIT] = "block_split",
	[BLK_EV_PLUG] = "block_plug",
	[BLK_EV_UNPLUG] = "block_unplug",
	[BLK_EV_RQ_ERROR] = "block_rq_error",
	[BLK_EV_IO_START] = "block_io_start",
	[BLK_EV_IO_DONE] = "block_io_done",
};

/* the blkparse action letters; 0: blkparse has none */
const char blk_kind_actions[BLK_EV_KIND_MAX] = {
	[BLK_EV_BIO_QUEUE] = 'Q',
	[BLK_EV_BIO_BACKMERGE] = 'M',
	[BLK_EV_BIO_FRONTMERGE] = 'F',
	[BLK_EV_BIO_BOUNCE] = 'B',
	[BLK_EV_GETRQ] = 'G',
	[BLK_EV_SLEEPRQ] = 'S',
	[BLK_EV_RQ_INSERT] = 'I',
	[BLK_EV_RQ_ISSUE] = 'D',
	/* blktrace logs a request merge as a back merge of the request */
	[BLK_EV_RQ_MERGE] = 'M',
	[BLK_EV_RQ_REQUEUE] = 'R',
	[BLK_EV_RQ_COMPLETE] = 'C',
	[BLK_EV_BIO_COMPLETE] = 'C',
	[BLK_EV_BIO_REMAP] = 'A',
	[BLK_EV_RQ_REMAP] = 'A',
	[BLK_EV_SPLIT] = 'X',
	[BLK_EV_PLUG] = 'P',
	[BLK_EV_UNPLUG] = 'U',
	[BLK_EV_RQ_ERROR] = 0,
	[BLK_EV_IO_START] = 0,
	[BLK_EV_IO_DONE] = 0,
};

const char *blk_kind_name(enum blk_kind kind)
{
	if (kind <= BLK_EV_NONE || kind >= BLK_EV_KIND_MAX)
		return NULL;
	return kind_names[kind];
}

/*
 * The kernel writes rwbs as: optional F (preflush), the operation (W, R, D,
 * DE, F for an empty flush, N for anything else), then F (FUA), A, S, M.
 * A leading F is the preflush when an operation letter follows it; "F"
 * alone, or "F" followed only by modifiers, is the flush operation.
 */
int blk_rwbs_parse(const char *rwbs, unsigned int len, uint8_t *op, uint16_t *flags)
{
	unsigned int i = 0;
	uint16_t f = 0;
	int ret = 0;

	*op = BLK_OP_OTHER;
	if (len > 0 && rwbs[0] == 'F' && len > 1 && strchr("WRDFNZ", rwbs[1]) && rwbs[1]) {
		f |= BLK_F_PREFLUSH;
		i = 1;
	}
	if (i >= len || !rwbs[i]) {
		*flags = f;
		return -EINVAL;
	}
	switch (rwbs[i++]) {
	case 'W':
		*op = BLK_OP_WRITE;
		break;
	case 'R':
		*op = BLK_OP_READ;
		break;
	case 'D':
		*op = BLK_OP_DISCARD;
		if (i < len && rwbs[i] == 'E') {
			*op = BLK_OP_SECURE_ERASE;
			i++;
		}
		break;
	case 'F':
		*op = BLK_OP_FLUSH;
		break;
	case 'N':
		*op = BLK_OP_OTHER;
		break;
	case 'Z':
		/* zone management: ZO, ZC, ZF, ZR, ZRA, ZAW */
		*op = BLK_OP_OTHER;
		f |= BLK_F_ZONE;
		if (i < len && rwbs[i] && strchr("OCFRA", rwbs[i])) {
			if (rwbs[i] == 'R' && i + 1 < len && rwbs[i + 1] == 'A')
				i++;
			else if (rwbs[i] == 'A' && i + 1 < len && rwbs[i + 1] == 'W')
				i++;
			i++;
		}
		break;
	default:
		ret = -EINVAL;
		i--;
		break;
	}
	for (; i < len && rwbs[i]; i++) {
		switch (rwbs[i]) {
		case 'F':
			f |= BLK_F_FUA;
			break;
		case 'A':
			f |= BLK_F_RAHEAD;
			break;
		case 'S':
			f |= BLK_F_SYNC;
			break;
		case 'M':
			f |= BLK_F_META;
			break;
		default:
			ret = -EINVAL;
			break;
		}
	}
	*flags = f;
	return ret;
}

unsigned int blk_rwbs_render(const struct blk_event *ev, char *buf)
{
	int i = 0;

	if ((ev->flags & BLK_F_PREFLUSH) || ev->op == BLK_OP_FLUSH)
		buf[i++] = 'F';
	switch (ev->op) {
	case BLK_OP_DISCARD:
	case BLK_OP_SECURE_ERASE:
		buf[i++] = 'D';
		break;
	case BLK_OP_WRITE:
		buf[i++] = 'W';
		break;
	case BLK_OP_OTHER:
		buf[i++] = blk_event_writes(ev) ? 'W' : 'N';
		break;
	default:
		/*
		 * blktrace has no read bit: a read is "has bytes, not a write".
		 * block_split names no size, but a split bio always has data
		 * (blktrace records its size, and the kernel's text says R).
		 */
		buf[i++] = (ev->op == BLK_OP_READ &&
			    (ev->bytes || ev->nr_sector || ev->kind == BLK_EV_SPLIT)) ? 'R' : 'N';
		break;
	}
	if (ev->flags & BLK_F_FUA)
		buf[i++] = 'F';
	if (ev->flags & BLK_F_RAHEAD)
		buf[i++] = 'A';
	if (ev->flags & BLK_F_SYNC)
		buf[i++] = 'S';
	if (ev->flags & BLK_F_META)
		buf[i++] = 'M';
	buf[i] = '\0';
	return i;
}

char *blk_rwbs_blkparse(const struct blk_event *ev, char *buf)
{
	blk_rwbs_render(ev, buf);
	return buf;
}
