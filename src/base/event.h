/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * event.h - the one decoded form of a block-layer trace record.
 *
 * Every source (live ring buffers, trace.dat files, test fixtures) is decoded
 * into struct blk_event, and every consumer (text log, tracker, exports) reads
 * only this struct. It is fixed-size and holds no pointers so that it can be
 * copied into per-CPU queues and merged without allocation.
 */
#ifndef BLKSTACK_EVENT_H
#define BLKSTACK_EVENT_H

#include <stdbool.h>
#include <stdint.h>

/* Kernel dev_t as the tracepoints record it: 12 bits of major, 20 of minor. */
#define KDEV_MINORBITS	20
#define KDEV_MAJOR(d)	((unsigned int)((d) >> KDEV_MINORBITS))
#define KDEV_MINOR(d)	((unsigned int)((d) & ((1U << KDEV_MINORBITS) - 1)))
#define KDEV_MKDEV(ma, mi) (((uint32_t)(ma) << KDEV_MINORBITS) | (uint32_t)(mi))

/*
 * What happened, one value per tracepoint. The blkparse action letter of each
 * is given by blk_kind_action(); several tracepoints share a letter (both
 * completions are 'C', both remaps 'A') but the tracker needs them apart.
 */
enum blk_kind {
	BLK_EV_NONE = 0,
	BLK_EV_BIO_QUEUE,	/* block_bio_queue		Q */
	BLK_EV_BIO_BACKMERGE,	/* block_bio_backmerge		M */
	BLK_EV_BIO_FRONTMERGE,	/* block_bio_frontmerge		F */
	BLK_EV_BIO_BOUNCE,	/* block_bio_bounce (old kernels)	B */
	BLK_EV_GETRQ,		/* block_getrq			G */
	BLK_EV_SLEEPRQ,		/* block_sleeprq (old kernels)	S */
	BLK_EV_RQ_INSERT,	/* block_rq_insert		I */
	BLK_EV_RQ_ISSUE,	/* block_rq_issue		D */
	BLK_EV_RQ_MERGE,	/* block_rq_merge		M */
	BLK_EV_RQ_REQUEUE,	/* block_rq_requeue		R */
	BLK_EV_RQ_COMPLETE,	/* block_rq_complete		C */
	BLK_EV_BIO_COMPLETE,	/* block_bio_complete		C */
	BLK_EV_BIO_REMAP,	/* block_bio_remap		A */
	BLK_EV_RQ_REMAP,	/* block_rq_remap		A */
	BLK_EV_SPLIT,		/* block_split			X */
	BLK_EV_PLUG,		/* block_plug			P */
	BLK_EV_UNPLUG,		/* block_unplug			U */
	BLK_EV_RQ_ERROR,	/* block_rq_error (no blkparse letter) */
	BLK_EV_IO_START,	/* block_io_start (no blkparse letter) */
	BLK_EV_IO_DONE,		/* block_io_done (no blkparse letter) */
	BLK_EV_KIND_MAX
};

/* The operation, from the first letters of the kernel's rwbs string. */
enum blk_op {
	BLK_OP_READ = 0,
	BLK_OP_WRITE,
	BLK_OP_DISCARD,
	BLK_OP_SECURE_ERASE,
	BLK_OP_FLUSH,		/* REQ_OP_FLUSH: an empty flush request */
	BLK_OP_OTHER,		/* 'N': write-zeroes, zone ops, driver ops */
	BLK_OP_MAX
};

/* Modifier bits of rwbs. */
enum blk_flag {
	BLK_F_PREFLUSH	= 1 << 0,	/* leading F */
	BLK_F_FUA	= 1 << 1,	/* F after the op */
	BLK_F_RAHEAD	= 1 << 2,	/* A */
	BLK_F_SYNC	= 1 << 3,	/* S */
	BLK_F_META	= 1 << 4,	/* M */
	BLK_F_ZONE	= 1 << 5,	/* an op letter pair we only know as zoned */
};

/**
 * struct blk_event - one decoded block tracepoint record
 * @ts:		timestamp in ns of the trace clock
 * @sector:	first sector (512 bytes) the event names
 * @aux_sector:	A: the sector before the remap; X: the split's new_sector
 * @dev:	device (kernel dev_t); for A the target device
 * @old_dev:	A: the device the I/O came from
 * @nr_sector:	size in sectors (0 where the event has none)
 * @bytes:	bytes the event names (rq events), else nr_sector * 512
 * @pid:	task that was running when the event fired (common_pid)
 * @error:	C, R: the error the kernel reported (negative errno)
 * @count:	U: requests unplugged; rq remap: nr_bios
 * @cpu:	CPU whose ring buffer held the record
 * @kind:	enum blk_kind
 * @op:		enum blk_op
 * @flags:	enum blk_flag bits
 * @ioprio:	I/O priority where the event has it
 * @comm:	task name from the record where it has one, else empty
 */
struct blk_event {
	uint64_t ts;
	uint64_t sector;
	uint64_t aux_sector;
	uint32_t dev;
	uint32_t old_dev;
	uint32_t nr_sector;
	uint32_t bytes;
	int32_t pid;
	int32_t error;
	uint32_t count;
	uint16_t cpu;
	uint8_t kind;
	uint8_t op;
	uint16_t flags;
	uint16_t ioprio;
	char comm[16];
};

/**
 * blk_event_writes - whether blktrace would set its write bit for @ev:
 * writes, discards, and an 'N' operation that carries sectors (on kernels
 * that name zone operations with Z, that is write-zeroes)
 */
static inline int blk_event_writes(const struct blk_event *ev)
{
	return ev->op == BLK_OP_WRITE || ev->op == BLK_OP_DISCARD ||
	       ev->op == BLK_OP_SECURE_ERASE ||
	       (ev->op == BLK_OP_OTHER && !(ev->flags & BLK_F_ZONE) && ev->nr_sector);
}

/**
 * blk_event_passthrough - @ev is an event of a passthrough request (a
 * driver's own command, a SCSI rescan's INQUIRY): operation 'N' with no
 * sectors when issued (at sector 0, its command's bytes in the bytes
 * field), at sector -1 when completed. blktrace records it as a PC
 * request, which btt leaves out.
 */
static inline bool blk_event_passthrough(const struct blk_event *ev)
{
	switch (ev->kind) {
	case BLK_EV_RQ_INSERT:
	case BLK_EV_RQ_ISSUE:
	case BLK_EV_RQ_REQUEUE:
	case BLK_EV_RQ_COMPLETE:
		return ev->op == BLK_OP_OTHER && (!ev->nr_sector || ev->sector == UINT64_MAX);
	default:
		return false;
	}
}

/* the letters of blk_kind_action(), by kind (event.c) */
extern const char blk_kind_actions[BLK_EV_KIND_MAX];

/**
 * blk_kind_action - the blkparse action letter of an event kind
 * @kind: an enum blk_kind value
 *
 * Returns the letter, or 0 for kinds blkparse has no letter for. Inline: once
 * or twice per line of blkparse text.
 */
static inline char blk_kind_action(enum blk_kind kind)
{
	if (kind <= BLK_EV_NONE || kind >= BLK_EV_KIND_MAX)
		return 0;
	return blk_kind_actions[kind];
}

/**
 * blk_kind_name - the tracepoint name of an event kind ("block_bio_queue")
 * @kind: an enum blk_kind value
 *
 * Returns a static string, or NULL for an out-of-range kind.
 */
const char *blk_kind_name(enum blk_kind kind);

/**
 * blk_rwbs_parse - split a kernel rwbs string into operation and flags
 * @rwbs: the string as the tracepoint recorded it (up to 10 chars, not
 *	  necessarily NUL-terminated)
 * @len: bytes available at @rwbs
 * @op: where to store the enum blk_op
 * @flags: where to store the enum blk_flag bits
 *
 * Returns 0, or -EINVAL when the string has no operation letter (the
 * operation is then BLK_OP_OTHER and the flags what could be read).
 */
int blk_rwbs_parse(const char *rwbs, unsigned int len, uint8_t *op, uint16_t *flags);

/**
 * blk_rwbs_blkparse - render operation and flags as blkparse prints them
 * @ev: the event
 * @buf: at least 8 bytes
 *
 * blkparse rebuilds rwbs from blktrace's category bits, not from the
 * kernel's string: a flush (preflush or flush op) is a leading F, discard
 * and secure erase are D, a read with no data is N, FUA is an F after the
 * operation. This reproduces that so that the text log matches blkparse.
 *
 * Returns @buf.
 */
char *blk_rwbs_blkparse(const struct blk_event *ev, char *buf);

/** blk_rwbs_render - blk_rwbs_blkparse() that returns the length instead */
unsigned int blk_rwbs_render(const struct blk_event *ev, char *buf);

#endif /* BLKSTACK_EVENT_H */
