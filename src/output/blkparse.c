// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blkparse.c - the text log in blkparse's default format.
 *
 * Each line is what blkparse prints for the same event from blktrace's
 * engine, field for field, so that scripts written for blkparse keep
 * working. The formatting is done by hand into a large buffer: printf on
 * every field would cost more than everything else on the path together.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "output/blkparse.h"
#include "output/decimal.h"
#include "track/passthru.h"
#include "track/plugdev.h"

#define OUT_BUF_SIZE	(256 * 1024)
#define OUT_LINE_MAX	256

/*
 * A (device, CPU): the start of its lines, "%3d,%-3d %2d %8u ", with the
 * sequence number of its last line, which goes up by one a line and is
 * incremented in the text itself. Hashed by key.
 */
struct seq_slot {
	uint64_t key;		/* dev << 32 | cpu, + 1 so that 0 is empty */
	struct dev_summary *sum;	/* its device's, NULL: none could be allocated */
	uint32_t seq;
	bool shown;		/* the filter keeps the device */
	uint8_t seq_at;		/* where "%8u " starts in text */
	uint8_t len;		/* of text */
	char text[41];
};

/* The summary's counters, by action: a timer unplug (UT) apart, G, I, B, S together. */
enum sum_act { SUM_Q, SUM_D, SUM_R, SUM_C, SUM_M, SUM_A, SUM_X, SUM_U, SUM_T, SUM_P, SUM_OTHER,
	       SUM_ACTS };

static const uint8_t sum_act_of[BLK_EV_KIND_MAX] = {
	[BLK_EV_BIO_QUEUE] = SUM_Q,		[BLK_EV_BIO_BACKMERGE] = SUM_M,
	[BLK_EV_BIO_FRONTMERGE] = SUM_M,	[BLK_EV_BIO_BOUNCE] = SUM_OTHER,
	[BLK_EV_GETRQ] = SUM_OTHER,		[BLK_EV_SLEEPRQ] = SUM_OTHER,
	[BLK_EV_RQ_INSERT] = SUM_OTHER,		[BLK_EV_RQ_ISSUE] = SUM_D,
	[BLK_EV_RQ_MERGE] = SUM_M,		[BLK_EV_RQ_REQUEUE] = SUM_R,
	[BLK_EV_RQ_COMPLETE] = SUM_C,		[BLK_EV_BIO_COMPLETE] = SUM_C,
	[BLK_EV_BIO_REMAP] = SUM_A,		[BLK_EV_RQ_REMAP] = SUM_A,
	[BLK_EV_SPLIT] = SUM_X,			[BLK_EV_PLUG] = SUM_P,
	[BLK_EV_UNPLUG] = SUM_U,
};

enum { RW_READ, RW_WRITE };

/* The counter of an action and a direction */
#define SUM_CELL(act, rw)	((act) * 2 + (rw))

/* Lines and KiB by action and by blktrace's write bit (discards are writes). */
struct dev_summary {
	uint32_t dev;
	uint64_t n[SUM_ACTS * 2];
	uint64_t kb[SUM_ACTS * 2];	/* C: from the sectors, the others from the bytes */
	uint64_t first_ts, last_ts;
};

/* What a line says after the action and the rwbs, by the action's letter */
enum line_shape {
	SHAPE_NONE,		/* no letter, no line */
	SHAPE_DONE,		/* C, R: sector + size [error] */
	SHAPE_BIO,		/* D, I, Q, B, M, F, G, S: sector + size [comm] */
	SHAPE_PLUG,		/* P: [comm] */
	SHAPE_UNPLUG,		/* U: [comm] count */
	SHAPE_REMAP,		/* A: sector + size <- (maj,min) sector */
	SHAPE_SPLIT,		/* X: sector / new sector [comm] */
	SHAPE_PC,		/* a passthrough request's D, I: bytes [comm] */
	SHAPE_PC_DONE,		/* a passthrough request's C, R: [error] */
};

/*
 * What follows the pid on a line of one event kind, "%c%c %3s ": the action
 * (UT for a timer unplug) and the rwbs, with what they depend on, the
 * line's shape and the summary's counter it goes to.
 */
struct act_text {
	uint64_t key;		/* act_key(), 0: none yet */
	uint8_t len;
	uint8_t shape;		/* enum line_shape */
	uint8_t cell;		/* SUM_CELL() of the action and blk_event_writes() */
	bool kb_sectors;	/* the summary's KiB from the sectors, not the bytes */
	char text[16];
};

/* The act_text of a timer unplug, after those of every kind */
#define ACT_TIMER	(UINT8_MAX + 1)

struct blkparse_out {
	FILE *fp;
	struct blkparse_filter filter;
	char *buf;
	char *pos;		/* the end of the text in buf */
	int err;
	bool started;
	uint64_t genesis;
	uint64_t lines;
	uint64_t unattributed;	/* plug/unplug with no device known */

	/* the (device, CPU) of the last line, as dev << 32 | cpu, and its slot */
	struct seq_slot *cur;
	uint64_t cur_key;

	struct seq_slot *seq;
	size_t seq_cap;		/* power of two */
	size_t seq_used;
	struct seq_slot spare;	/* when the table is full: key 0, the sequence stays 0 */

	struct dev_summary **devs;
	size_t ndevs, devs_cap;

	/* the second the last line's time fell in: its start (a trace time), as "%5llu." */
	uint64_t sec_from;
	char sec_text[16];
	size_t sec_len;

	/* the last extent as "%llu + %u" (40 bytes, len of them the text's): an I/O's Q, G, D, C */
	uint64_t ext_sector;
	uint32_t ext_nr;	/* 0: none yet */
	size_t ext_len;
	char ext_text[40];

	/*
	 * the last two pids as "%5d " (16 bytes, len of them the field's):
	 * the submitting task's, and the completions' (an interrupt's, 0)
	 */
	struct pid_text {
		int64_t pid;
		size_t len;
		char text[16];
	} pid[2];

	/* the last task name and its length */
	uint64_t comm[2];
	size_t comm_len;

	/* by kind (any a record may name), then for the timer unplugs (UT) */
	struct act_text act[ACT_TIMER + 1];

	/* the device of plugs and unplugs, U or UT: the rules of track/plugdev.c */
	struct plugdev *plugs;

	/* passthrough requests in flight: R or N at their completion */
	struct passthru pcs;
};

static int emit_attributed(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx);

struct blkparse_out *blkparse_out_alloc(FILE *fp, const struct blkparse_filter *filter)
{
	struct blkparse_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fp = fp;
	o->pid[0].pid = o->pid[1].pid = INT64_MIN;
	if (filter)
		o->filter = *filter;
	/* the text of second 0, where the first line's time is */
	o->sec_len = dec_put_u_right(o->sec_text, 0, 5) - o->sec_text;
	o->sec_text[o->sec_len++] = '.';
	o->buf = o->pos = malloc(OUT_BUF_SIZE);
	o->seq_cap = 256;
	o->seq = calloc(o->seq_cap, sizeof(*o->seq));
	o->plugs = plugdev_alloc(emit_attributed, o);
	if (!o->buf || !o->seq || !o->plugs) {
		blkparse_out_free(o);
		errno = ENOMEM;
		return NULL;
	}
	plugdev_letters_only(o->plugs);
	return o;
}

void blkparse_out_free(struct blkparse_out *o)
{
	if (!o)
		return;
	free(o->buf);
	free(o->seq);
	passthru_free(&o->pcs);
	for (size_t i = 0; i < o->ndevs; i++)
		free(o->devs[i]);
	free(o->devs);
	plugdev_free(o->plugs);
	free(o);
}

int blkparse_out_flush(struct blkparse_out *o)
{
	size_t len = o->pos - o->buf;

	if (o->err)
		return o->err;
	if (len && fwrite(o->buf, 1, len, o->fp) != len)
		o->err = errno ? -errno : -EIO;
	o->pos = o->buf;
	if (!o->err && fflush(o->fp))
		o->err = errno ? -errno : -EIO;
	return o->err;
}

/* ---- text --------------------------------------------------------------- */

/*
 * The line is built in place in the output buffer, which always has
 * OUT_LINE_MAX bytes of room: fixed-size fills and copies (inlined as a few
 * stores) may run past the field and are overwritten by what follows.
 * Calls to memset/memcpy of a variable size per field cost more than the
 * digits themselves.
 */

/* strnlen(s, 16), a word at a time: the lowest flagged byte is the first NUL */
static inline size_t strnlen16(const char *s)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t a, b, z;

	memcpy(&a, s, 8);
	memcpy(&b, s + 8, 8);
	a = le64toh(a);
	b = le64toh(b);
	z = (a - ones) & ~a & highs;
	if (z)
		return __builtin_ctzll(z) >> 3;
	z = (b - ones) & ~b & highs;
	if (z)
		return 8 + (__builtin_ctzll(z) >> 3);
	return 16;
}

/* A task name (16 bytes, NUL-terminated when shorter): the last one's length, mostly */
static inline char *put_comm(struct blkparse_out *o, char *p, const char comm[16])
{
	uint64_t a, b;

	memcpy(&a, comm, 8);
	memcpy(&b, comm + 8, 8);
	if (a != o->comm[0] || b != o->comm[1]) {
		o->comm[0] = a;
		o->comm[1] = b;
		o->comm_len = strnlen16(comm);
	}
	memcpy(p, comm, 16);
	return p + o->comm_len;
}

static inline char *put_d(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return dec_put_u(p, -(uint64_t)v);
	}
	return dec_put_u(p, v);
}

/* "%5d " of the pid's unsigned value: one of the last two, mostly */
static inline char *put_pid(struct blkparse_out *o, char *p, int32_t pid)
{
	struct pid_text *t = &o->pid[0];

	if (t->pid != pid) {
		if (o->pid[1].pid == pid) {
			struct pid_text tmp = o->pid[1];

			o->pid[1] = *t;
			*t = tmp;
		} else {
			char *q = dec_put_u_right(p, (uint32_t)pid, 5);

			*q++ = ' ';
			o->pid[1] = *t;
			t->pid = pid;
			t->len = q - p;
			memcpy(t->text, p, sizeof(t->text));
		}
	}
	memcpy(p, t->text, sizeof(t->text));
	return p + t->len;
}

/* A literal: a constant-size copy */
#define put_lit(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* "%llu + %u" of a sector and a size (not 0): the last one's text, mostly */
static inline __attribute__((always_inline)) char *
put_extent(struct blkparse_out *o, char *p, uint64_t sector, uint32_t nr)
{
	if (sector != o->ext_sector || nr != o->ext_nr) {
		char *q = dec_put_u(p, sector);

		q = put_lit(q, " + ");
		q = dec_put_u(q, nr);
		o->ext_len = q - p;
		memcpy(o->ext_text, p, sizeof(o->ext_text));
		o->ext_sector = sector;
		o->ext_nr = nr;
	}
	memcpy(p, o->ext_text, sizeof(o->ext_text));
	return p + o->ext_len;
}

/* ---- per-device and per-(device, cpu) state -------------------------- */

/* The slot's sequence number as "%8u " after its prefix. */
static __attribute__((noinline)) void seq_slot_render_seq(struct seq_slot *s)
{
	char *q = dec_put_u_right(s->text + s->seq_at, s->seq, 8);

	*q++ = ' ';
	s->len = q - s->text;
}

/* The slot's text from scratch: "%3d,%-3d %2d " of its device and CPU, then its sequence. */
static void seq_slot_render(struct seq_slot *s, uint32_t dev, unsigned int cpu)
{
	char *q = s->text, *m;

	q = dec_put_u_right(q, KDEV_MAJOR(dev), 3);
	*q++ = ',';
	m = q;
	q = dec_put_u(q, KDEV_MINOR(dev));
	if (q - m < 3) {
		memset(q, ' ', 8);
		q = m + 3;
	}
	*q++ = ' ';
	q = dec_put_u_right(q, cpu, 2);
	*q++ = ' ';
	s->seq_at = q - s->text;
	seq_slot_render_seq(s);
}

/*
 * The next sequence number of @s in its text: the last digit goes up, and
 * when it is a 9 (one line in ten) the number is written again.
 */
static inline void seq_slot_next(struct seq_slot *s)
{
	char *last = s->text + s->len - 2;

	s->seq++;
	if (*last != '9')
		(*last)++;
	else
		seq_slot_render_seq(s);
}

/* The summary of @dev, made at its first line, of time @ts; NULL when out of memory. */
static struct dev_summary *dev_summary(struct blkparse_out *o, uint32_t dev, uint64_t ts)
{
	struct dev_summary *s;

	for (size_t i = 0; i < o->ndevs; i++)
		if (o->devs[i]->dev == dev)
			return o->devs[i];
	if (ARRAY_ROOM(o->devs, o->ndevs, o->devs_cap, 16) < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s) {
		s->dev = dev;
		s->first_ts = ts;
		o->devs[o->ndevs++] = s;
	}
	return s;
}

/*
 * The (device, CPU)'s slot, made on its first line; the spare one when the
 * table is full. Out of line, as the other changes of what a line reuses:
 * inlined, they cost the common line registers.
 */
static __attribute__((noinline)) struct seq_slot *
seq_slot_of(struct blkparse_out *o, uint32_t dev, unsigned int cpu, uint64_t ts)
{
	uint64_t key = ((uint64_t)dev << 32 | cpu) + 1;
	struct seq_slot *s;
	size_t mask, i;

	if (o->seq_used * 2 >= o->seq_cap) {
		size_t cap = o->seq_cap * 2;
		struct seq_slot *n = calloc(cap, sizeof(*n));

		if (n) {
			for (size_t j = 0; j < o->seq_cap; j++) {
				if (!o->seq[j].key)
					continue;
				i = (o->seq[j].key * 0x9E3779B97F4A7C15ULL >> 32) & (cap - 1);
				while (n[i].key)
					i = (i + 1) & (cap - 1);
				n[i] = o->seq[j];
			}
			free(o->seq);
			o->seq = n;
			o->seq_cap = cap;
		}
	}
	mask = o->seq_cap - 1;
	i = (key * 0x9E3779B97F4A7C15ULL >> 32) & mask;
	while (o->seq[i].key && o->seq[i].key != key)
		i = (i + 1) & mask;
	s = &o->seq[i];
	if (!s->key) {
		if (o->seq_used + 1 >= o->seq_cap) {
			/* table full and could not grow: the line's sequence number is 0 */
			s = &o->spare;
			memset(s, 0, sizeof(*s));
		} else {
			s->key = key;
			o->seq_used++;
		}
		/* the filter's answer for a device does not change (blkparse.h) */
		s->shown = !o->filter.has || o->filter.has(o->filter.ctx, dev);
		s->sum = s->shown ? dev_summary(o, dev, ts) : NULL;
		seq_slot_render(s, dev, cpu);
	}
	return s;
}

/* kind, op and flags are read as one word by act_key() */
_Static_assert(offsetof(struct blk_event, op) == offsetof(struct blk_event, kind) + 1 &&
	       offsetof(struct blk_event, flags) == offsetof(struct blk_event, kind) + 2 &&
	       sizeof(((struct blk_event *)0)->flags) == 2, "kind, op, flags not in one word");

/*
 * Everything blk_rwbs_render(), blk_event_writes() and
 * blk_event_passthrough() read of an event: its kind, operation, flags,
 * whether it has sectors and bytes, and whether its sector is -1. Never 0:
 * an event with a line has a kind.
 */
static inline uint64_t act_key(const struct blk_event *ev)
{
	uint32_t w;

	memcpy(&w, (const char *)ev + offsetof(struct blk_event, kind), 4);
	return w | (uint64_t)!!ev->nr_sector << 32 | (uint64_t)!!ev->bytes << 33 |
	       (uint64_t)(ev->sector == UINT64_MAX) << 34;
}

static __attribute__((noinline)) void
act_text_render(struct act_text *a, const struct blk_event *ev, bool timer, uint64_t key)
{
	char act = blk_kind_action(ev->kind), rwbs[8];
	unsigned int n, i = 0;

	a->key = key;
	switch (act) {
	case 0:
		a->shape = SHAPE_NONE;
		return;
	case 'C':
	case 'R':
		a->shape = SHAPE_DONE;
		break;
	case 'P':
		a->shape = SHAPE_PLUG;
		break;
	case 'U':
		a->shape = SHAPE_UNPLUG;
		break;
	case 'A':
		a->shape = SHAPE_REMAP;
		break;
	case 'X':
		a->shape = SHAPE_SPLIT;
		break;
	default:
		a->shape = SHAPE_BIO;
		break;
	}
	n = blk_rwbs_render(ev, rwbs);
	if (blk_event_passthrough(ev)) {
		/* blktrace's PC request: blkparse shows its bytes, and as
		 * the rwbs R (a passthrough command reads), N with no bytes */
		a->shape = a->shape == SHAPE_DONE ? SHAPE_PC_DONE : SHAPE_PC;
		n = 1;
		rwbs[0] = ev->bytes ? 'R' : 'N';
	}
	a->text[i++] = timer ? 'U' : ' ';
	a->text[i++] = timer ? 'T' : act;
	a->text[i++] = ' ';
	while (n + i < 6)	/* "%3s" */
		a->text[i++] = ' ';
	memcpy(a->text + i, rwbs, n);
	i += n;
	a->text[i++] = ' ';
	a->len = i;
	a->cell = SUM_CELL(timer ? SUM_T : sum_act_of[ev->kind],
			   blk_event_writes(ev) ? RW_WRITE : RW_READ);
	a->kb_sectors = act == 'C';
}

static inline void count(struct dev_summary *s, const struct blk_event *ev,
			 const struct act_text *a)
{
	s->last_ts = ev->ts;
	s->n[a->cell]++;
	s->kb[a->cell] += a->kb_sectors ? ev->nr_sector >> 1 : ev->bytes >> 10;
}

/* The sector a line prints: a flush request's position is -1, blktrace records 0 */
static inline uint64_t line_sector(const struct blk_event *ev)
{
	return ev->sector == UINT64_MAX ? 0 : ev->sector;
}

/* ---- the line ---------------------------------------------------------- */

/* Format one event as the line of device @dev; @timer: an unplug is "UT". */
static int emit(struct blkparse_out *o, const struct blk_event *ev, uint32_t dev, bool timer)
{
	struct act_text *a = &o->act[timer ? ACT_TIMER : ev->kind];
	uint64_t key, slot = (uint64_t)dev << 32 | ev->cpu, ns;
	struct seq_slot *s = o->cur;
	struct blk_event pc;
	char *p;

	if (__builtin_expect(blk_event_passthrough(ev), 0))
		ev = passthru_bytes(&o->pcs, ev, dev, &pc);
	key = act_key(ev);
	if (a->key != key)
		act_text_render(a, ev, timer, key);
	if (!a->shape)
		return 0;
	if (!dev) {
		o->unattributed++;
		return 0;
	}
	/* device and CPU change seldom from one line to the next */
	if (slot != o->cur_key) {
		s = seq_slot_of(o, dev, ev->cpu, ev->ts);
		o->cur = s;
		o->cur_key = slot;
		/*
		 * the first line shown is one of these: a line of the (device,
		 * CPU) before was shown too, or not reached for an error
		 */
		if (s->shown && !o->err && !o->started) {
			o->started = true;
			o->genesis = o->sec_from = ev->ts;
		}
	}
	if (!s->shown)
		return 0;
	if (o->err)
		return o->err;
	if (s->sum)
		count(s->sum, ev, a);

	if (o->pos > o->buf + OUT_BUF_SIZE - OUT_LINE_MAX) {
		int ret = blkparse_out_flush(o);

		if (ret)
			return ret;
	}
	p = o->pos;

	/* "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s " */
	if (s->key)
		seq_slot_next(s);
	/* whole arrays, constant-size copies: the line has room (OUT_LINE_MAX) */
	memcpy(p, s->text, 32);
	p += s->len;
	/* times are relative to the first line's */
	ns = ev->ts - o->sec_from;
	if (ns >= 1000000000ULL) {
		/* a new second, or a time before the last one's (before the first: 0) */
		uint64_t rel = ev->ts >= o->genesis ? ev->ts - o->genesis : 0;
		uint64_t secs = rel / 1000000000ULL;
		char *q;

		o->sec_from = o->genesis + secs * 1000000000ULL;
		ns = rel - secs * 1000000000ULL;
		q = dec_put_u_right(p, secs, 5);
		*q++ = '.';
		o->sec_len = q - p;
		memcpy(o->sec_text, p, sizeof(o->sec_text));
	}
	memcpy(p, o->sec_text, sizeof(o->sec_text));
	p = dec_put_u9(p + o->sec_len, ns);
	*p++ = ' ';
	p = put_pid(o, p, ev->pid);
	memcpy(p, a->text, sizeof(a->text));
	p += a->len;

	switch (a->shape) {
	case SHAPE_DONE:
		if (ev->nr_sector)
			p = put_extent(o, p, line_sector(ev), ev->nr_sector);
		else
			p = dec_put_u(p, line_sector(ev));
		p = put_lit(p, " [");
		p = put_d(p, ev->error);
		*p++ = ']';
		break;
	case SHAPE_BIO:
		if (ev->nr_sector) {
			p = put_extent(o, p, line_sector(ev), ev->nr_sector);
			*p++ = ' ';
		}
		*p++ = '[';
		p = put_comm(o, p, ev->comm);
		*p++ = ']';
		break;
	case SHAPE_PLUG:
		*p++ = '[';
		p = put_comm(o, p, ev->comm);
		*p++ = ']';
		break;
	case SHAPE_PC:
		p = dec_put_u(p, ev->bytes);
		p = put_lit(p, " [");
		p = put_comm(o, p, ev->comm);
		*p++ = ']';
		break;
	case SHAPE_PC_DONE:
		/* blkparse prints blktrace's 16-bit error field as it is */
		*p++ = '[';
		p = dec_put_u(p, (uint16_t)ev->error);
		*p++ = ']';
		break;
	case SHAPE_UNPLUG:
		*p++ = '[';
		p = put_comm(o, p, ev->comm);
		p = put_lit(p, "] ");
		p = dec_put_u(p, ev->count);
		break;
	case SHAPE_REMAP:
		p = dec_put_u(p, line_sector(ev));
		p = put_lit(p, " + ");
		p = dec_put_u(p, ev->nr_sector);
		p = put_lit(p, " <- (");
		p = dec_put_u(p, KDEV_MAJOR(ev->old_dev));
		*p++ = ',';
		p = dec_put_u(p, KDEV_MINOR(ev->old_dev));
		p = put_lit(p, ") ");
		p = dec_put_u(p, ev->aux_sector);
		break;
	case SHAPE_SPLIT:
		/* blkparse prints the new sector through a 32-bit unsigned */
		p = dec_put_u(p, line_sector(ev));
		p = put_lit(p, " / ");
		p = dec_put_u(p, (uint32_t)ev->aux_sector);
		p = put_lit(p, " [");
		p = put_comm(o, p, ev->comm);
		*p++ = ']';
		break;
	}
	*p++ = '\n';
	o->pos = p;
	o->lines++;
	return 0;
}

/* plugdev's consumer: each event with its device, unplugs as U or UT */
static int emit_attributed(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	return emit(ctx, ev, dev, timer);
}

int blkparse_out_event(const struct blk_event *ev, void *ctx)
{
	struct blkparse_out *o = ctx;

	if (o->err)
		return o->err;
	return plugdev_event(ev, o->plugs);
}

int blkparse_out_finish(struct blkparse_out *o)
{
	int ret = plugdev_finish(o->plugs);

	return ret ? ret : blkparse_out_flush(o);
}

uint64_t blkparse_out_lines(const struct blkparse_out *o)
{
	return o->lines;
}

/* ---- the summary ------------------------------------------------------- */

/* blkparse's size_cnv(): scale by 1024 while above 1 Mi, with a suffix. */
static const char *size_cnv(char *dst, uint64_t num, bool in_kb)
{
	static const char suff[] = { '\0', 'K', 'M', 'G', 'P' };
	unsigned int i = in_kb ? 1 : 0;

	while (num > 1024 * 1024 && i < sizeof(suff) - 1) {
		i++;
		num /= 1024;
	}
	if (suff[i])
		sprintf(dst, "%8llu%c", (unsigned long long)num, suff[i]);
	else
		sprintf(dst, "%8llu", (unsigned long long)num);
	return dst;
}

/* blkparse's per-device lines of a read and a write count, in its order and spacing */
static const struct {
	const char *read, *write;
	unsigned int act;
	bool kib;	/* the count is followed by its size */
} rw_lines[] = {
	{ " Reads Queued:    ", " Writes Queued:    ", SUM_Q, true },
	{ " Read Dispatches: ", " Write Dispatches: ", SUM_D, true },
	{ " Reads Requeued:  ", " Writes Requeued:  ", SUM_R, false },
	{ " Reads Completed: ", " Writes Completed: ", SUM_C, true },
	{ " Read Merges:     ", " Write Merges:     ", SUM_M, true },
};

/* One direction's cell of a line of rw_lines, ended by @end. */
static void rw_cell(FILE *fp, const struct dev_summary *s, const char *label, unsigned int cell,
		    bool kib, const char *end)
{
	char x[32], y[32];

	if (kib)
		fprintf(fp, "%s%s, %siB%s", label, size_cnv(x, s->n[cell], false),
			size_cnv(y, s->kb[cell], true), end);
	else
		fprintf(fp, "%s%s%s", label, size_cnv(x, s->n[cell], false), end);
}

/* Reads and writes of action @act together. */
static unsigned long long both(const struct dev_summary *s, unsigned int act)
{
	return s->n[SUM_CELL(act, RW_READ)] + s->n[SUM_CELL(act, RW_WRITE)];
}

static void summary_dev(FILE *fp, const struct dev_summary *s)
{
	double secs = (s->last_ts - s->first_ts) / 1e9;
	uint64_t events = 0;

	fprintf(fp, "Total (%u,%u):\n", KDEV_MAJOR(s->dev), KDEV_MINOR(s->dev));
	for (size_t i = 0; i < sizeof(rw_lines) / sizeof(rw_lines[0]); i++) {
		rw_cell(fp, s, rw_lines[i].read, SUM_CELL(rw_lines[i].act, RW_READ), rw_lines[i].kib,
			rw_lines[i].kib ? "\t" : "\t\t");
		rw_cell(fp, s, rw_lines[i].write, SUM_CELL(rw_lines[i].act, RW_WRITE),
			rw_lines[i].kib, "\n");
	}
	fprintf(fp, " Remaps:          %8llu \t\t Splits:           %8llu\n", both(s, SUM_A),
		both(s, SUM_X));
	fprintf(fp, " IO unplugs:      %8llu \t\t Timer unplugs:    %8llu\n", both(s, SUM_U),
		both(s, SUM_T));
	fprintf(fp, " IO plugs:        %8llu\n", both(s, SUM_P));
	if (secs > 0)
		fprintf(fp, "Throughput (R/W): %.0fKiB/s / %.0fKiB/s\n",
			s->kb[SUM_CELL(SUM_C, RW_READ)] / secs, s->kb[SUM_CELL(SUM_C, RW_WRITE)] / secs);
	for (unsigned int i = 0; i < SUM_ACTS * 2; i++)
		events += s->n[i];
	fprintf(fp, "Events (%u,%u): %llu entries\n\n", KDEV_MAJOR(s->dev), KDEV_MINOR(s->dev),
		(unsigned long long)events);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct dev_summary *x = *(struct dev_summary *const *)a;
	const struct dev_summary *y = *(struct dev_summary *const *)b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

void blkparse_out_summary(struct blkparse_out *o, FILE *fp, const struct source_stats *st)
{
	uint64_t lost = 0;

	if (o->ndevs > 1)	/* none: no array at all, which qsort may not be given */
		qsort(o->devs, o->ndevs, sizeof(o->devs[0]), cmp_dev);
	for (size_t i = 0; i < o->ndevs; i++)
		summary_dev(fp, o->devs[i]);
	if (!o->ndevs)
		fprintf(fp, "No block events traced.\n\n");
	if (!st)
		return;
	fprintf(fp, "Events lost per CPU (ring buffer):\n");
	for (int c = 0; c < st->ncpu; c++) {
		const struct source_cpu_stats *cs = &st->cpu[c];

		/* a recording carries no overrun/dropped counters: live only */
		if (st->live)
			fprintf(fp, " CPU%-3d %10llu lost (%llu missed, %llu overrun, %llu dropped)%s\n",
				c, (unsigned long long)source_cpu_lost(cs),
				(unsigned long long)cs->missed, (unsigned long long)cs->overrun,
				(unsigned long long)cs->dropped,
				cs->missed_unknown ? ", and pages with an unknown count" : "");
		else
			fprintf(fp, " CPU%-3d %10llu lost%s\n", c, (unsigned long long)cs->missed,
				cs->missed_unknown ? ", and pages with an unknown count" : "");
		lost += source_cpu_lost(cs);
	}
	fprintf(fp, "Total events lost: %llu%s\n", (unsigned long long)lost,
		lost ? " (the log above is incomplete)" : "");
}
