// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blkparse.c - the text log in blkparse's default format.
 *
 * Each line is what blkparse prints for the same event from blktrace's
 * engine, field for field, so that scripts written for blkparse keep
 * working. The formatting is done by hand into a large buffer: printf on
 * every field would cost more than everything else on the path together.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "output/blkparse.h"

#define OUT_BUF_SIZE	(256 * 1024)
#define OUT_LINE_MAX	256

/* A (device, cpu) sequence counter or a per-device summary, hashed. */
struct seq_slot {
	uint64_t key;		/* dev << 32 | cpu, + 1 so that 0 is empty */
	uint32_t seq;
};

enum { RW_READ, RW_WRITE };

struct dev_summary {
	uint32_t dev;
	uint64_t queued[2], queued_kb[2];
	uint64_t dispatched[2], dispatched_kb[2];
	uint64_t requeued[2];
	uint64_t completed[2], completed_kb[2];
	uint64_t merged[2], merged_kb[2];
	uint64_t remaps, splits, unplugs, timer_unplugs, plugs;
	uint64_t events;
	uint64_t first_ts, last_ts;
};

/* Tasks remembered for plug attribution; a collision only loses a plug. */
#define PLUG_SLOTS 4096

struct plug_owner {
	uint32_t dev;		/* device of the task's last queue-side event */
	uint32_t getrq_dev;	/* device of its last get-request */
	int32_t pid;
};

/* Events held back behind an unplug, at most; more are shown as they come. */
#define PENDING_HELD 32

struct pending {
	struct blk_event unplug;
	uint32_t fallback;	/* the task's last device when it unplugged */
	struct blk_event held[PENDING_HELD];
	unsigned int nheld;
	bool set;
	/* the plug flush the last resolved unplug belonged to */
	int32_t flush_pid;
	bool flush_open;
	bool flush_explicit;
};

struct blkparse_out {
	FILE *fp;
	struct blkparse_filter filter;
	char *buf;
	size_t len;
	int err;
	bool started;
	uint64_t genesis;
	uint64_t lines;
	uint64_t unattributed;	/* plug/unplug with no device known */

	struct seq_slot *seq;
	size_t seq_cap;		/* power of two */
	size_t seq_used;
	size_t seq_last;	/* slot of the last lookup */

	struct dev_summary *devs;
	size_t ndevs, devs_cap;
	size_t dev_last;

	/* the formatted "maj,min cpu " of the last line */
	char prefix[48];
	size_t prefix_len;
	uint32_t prefix_dev;
	unsigned int prefix_cpu;

	struct plug_owner plug[PLUG_SLOTS];	/* by pid: the last queue-side event */
	struct pending *pending;		/* per CPU: an unplug awaiting its queue */
	size_t pending_cap;
};

struct blkparse_out *blkparse_out_alloc(FILE *fp, const struct blkparse_filter *filter)
{
	struct blkparse_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fp = fp;
	o->prefix_dev = UINT32_MAX;
	if (filter)
		o->filter = *filter;
	o->buf = malloc(OUT_BUF_SIZE);
	o->seq_cap = 256;
	o->seq = calloc(o->seq_cap, sizeof(*o->seq));
	if (!o->buf || !o->seq) {
		blkparse_out_free(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}

void blkparse_out_free(struct blkparse_out *o)
{
	if (!o)
		return;
	free(o->buf);
	free(o->seq);
	free(o->devs);
	free(o->pending);
	free(o);
}

int blkparse_out_flush(struct blkparse_out *o)
{
	if (o->err)
		return o->err;
	if (o->len && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->err = errno ? -errno : -EIO;
	o->len = 0;
	if (!o->err && fflush(o->fp))
		o->err = errno ? -errno : -EIO;
	return o->err;
}

/* ---- number formatting ---------------------------------------------- */

/*
 * The line is built in place in the output buffer, which always has
 * OUT_LINE_MAX bytes of room: fixed-size fills and copies (inlined as a few
 * stores) may run past the field and are overwritten by what follows.
 * Calls to memset/memcpy of a variable size per field cost more than the
 * digits themselves.
 */

static const char two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline int count_digits(uint64_t v)
{
	int n = 1;

	while (v >= 100) {
		v /= 100;
		n += 2;
	}
	return n + (v >= 10);
}

/* The n digits of v into p[0..n-1], two at a time (halves the divisions). */
static inline void put_digits(char *p, uint64_t v, int n)
{
	char *q = p + n;

	while (v >= 100) {
		unsigned int r = v % 100;

		v /= 100;
		q -= 2;
		memcpy(q, two_digits + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(q - 2, two_digits + 2 * v, 2);
	else
		q[-1] = '0' + v;
}

/* printf("%llu") */
static inline char *put_u(char *p, uint64_t v)
{
	int n = count_digits(v);

	put_digits(p, v, n);
	return p + n;
}

/* printf("%*llu") with a width of at most 16 */
static inline char *put_u_right(char *p, uint64_t v, int width)
{
	int n = count_digits(v);

	if (n < width) {
		memset(p, ' ', 16);
		p += width - n;
	}
	put_digits(p, v, n);
	return p + n;
}

/* printf("%-*llu") with a width of at most 16 */
static inline char *put_u_left(char *p, uint64_t v, int width)
{
	int n = count_digits(v);

	put_digits(p, v, n);
	if (n < width) {
		memset(p + n, ' ', 16);
		return p + width;
	}
	return p + n;
}

/* printf("%09llu") of a value below 10^9: the nanoseconds of a time */
static inline char *put_u9(char *p, uint32_t v)
{
	for (int i = 7; i >= 1; i -= 2) {
		memcpy(p + i, two_digits + 2 * (v % 100), 2);
		v /= 100;
	}
	p[0] = '0' + v;
	return p + 9;
}

static inline char *put_d(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u(p, -(uint64_t)v);
	}
	return put_u(p, v);
}

/* A string of at most 16 bytes, such as a task name (NUL-terminated) */
static inline char *put_comm(char *p, const char comm[16])
{
	memcpy(p, comm, 16);
	return p + strnlen(comm, 16);
}

/* A literal: a constant-size copy */
#define put_lit(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* ---- per-device and per-(device, cpu) state -------------------------- */

static uint32_t next_seq(struct blkparse_out *o, uint32_t dev, unsigned int cpu)
{
	uint64_t key = ((uint64_t)dev << 32 | cpu) + 1;
	size_t mask, i;

	/* runs of events on one device and CPU are the common case */
	if (o->seq_last < o->seq_cap && o->seq[o->seq_last].key == key)
		return ++o->seq[o->seq_last].seq;

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
	if (!o->seq[i].key) {
		if (o->seq_used + 1 >= o->seq_cap)
			return 0;	/* table full and could not grow */
		o->seq[i].key = key;
		o->seq_used++;
	}
	o->seq_last = i;
	return ++o->seq[i].seq;
}

static struct dev_summary *dev_summary(struct blkparse_out *o, uint32_t dev)
{
	/* few devices: the last hit, then a linear scan */
	if (o->dev_last < o->ndevs && o->devs[o->dev_last].dev == dev)
		return &o->devs[o->dev_last];
	for (size_t i = 0; i < o->ndevs; i++) {
		if (o->devs[i].dev == dev) {
			o->dev_last = i;
			return &o->devs[i];
		}
	}
	if (o->ndevs == o->devs_cap) {
		size_t cap = o->devs_cap ? o->devs_cap * 2 : 16;
		struct dev_summary *n = realloc(o->devs, cap * sizeof(*n));

		if (!n)
			return NULL;
		o->devs = n;
		o->devs_cap = cap;
	}
	memset(&o->devs[o->ndevs], 0, sizeof(o->devs[0]));
	o->devs[o->ndevs].dev = dev;
	return &o->devs[o->ndevs++];
}

static void count(struct blk_event const *ev, struct dev_summary *s, char act)
{
	/* blkparse counts by blktrace's write bit: discards are writes */
	int rw = blk_event_writes(ev) ? RW_WRITE : RW_READ;
	uint64_t kb = ev->bytes >> 10;

	if (!s->events)
		s->first_ts = ev->ts;
	s->last_ts = ev->ts;
	s->events++;
	switch (act) {
	case 'Q':
		s->queued[rw]++;
		s->queued_kb[rw] += kb;
		break;
	case 'D':
		s->dispatched[rw]++;
		s->dispatched_kb[rw] += kb;
		break;
	case 'R':
		s->requeued[rw]++;
		break;
	case 'C':
		s->completed[rw]++;
		s->completed_kb[rw] += (uint64_t)ev->nr_sector >> 1;
		break;
	case 'M':
	case 'F':
		s->merged[rw]++;
		s->merged_kb[rw] += kb;
		break;
	case 'A':
		s->remaps++;
		break;
	case 'X':
		s->splits++;
		break;
	case 'U':
		s->unplugs++;
		break;
	case 'T':
		s->timer_unplugs++;
		break;
	case 'P':
		s->plugs++;
		break;
	}
}

/*
 * Plug and unplug events name no device: they belong to the queue whose
 * requests the task holds on its plug (a plug follows the get-request of
 * its first request, an unplug flushes what was plugged, possibly from
 * another CPU after a migration). blktrace knows the queue; we take the
 * device of the task's last queue-side event. With a device filter in the
 * kernel, other devices' queue events never reach us, so a plug by a task
 * that only did I/O elsewhere stays unattributed (0) rather than being
 * given to the wrong device.
 */
static uint32_t plug_device(struct blkparse_out *o, const struct blk_event *ev)
{
	struct plug_owner *last = &o->plug[(uint32_t)ev->pid & (PLUG_SLOTS - 1)];

	if (last->pid != ev->pid &&
	    (ev->kind == BLK_EV_PLUG || ev->kind == BLK_EV_UNPLUG))
		return 0;
	if (last->pid != ev->pid) {
		last->pid = ev->pid;
		last->dev = last->getrq_dev = 0;
	}
	switch (ev->kind) {
	case BLK_EV_PLUG:
		/*
		 * The kernel plugs right after the get-request of the request
		 * it adds; a full plug may be flushed in between (U, I, D of
		 * another disk), so the get-request names the device.
		 */
		return last->getrq_dev ? last->getrq_dev : last->dev;
	case BLK_EV_UNPLUG:
		return last->dev;
	case BLK_EV_GETRQ:
		last->getrq_dev = ev->dev;
		last->dev = ev->dev;
		break;
	case BLK_EV_BIO_QUEUE:
	case BLK_EV_BIO_BACKMERGE:
	case BLK_EV_BIO_FRONTMERGE:
	case BLK_EV_RQ_INSERT:
		last->dev = ev->dev;
		break;
	default:
		break;
	}
	return ev->dev;
}

/* ---- the line ---------------------------------------------------------- */

/* Format one event as the line of device @dev; @timer: an unplug is "UT". */
static int emit(struct blkparse_out *o, const struct blk_event *ev, uint32_t dev, bool timer)
{
	char act = blk_kind_action(ev->kind);
	struct dev_summary *s;
	uint64_t rel, secs, sector;
	char rwbs[8];
	unsigned int n;
	char *p;

	if (!act)
		return 0;
	if (!dev) {
		o->unattributed++;
		return 0;
	}
	if (o->filter.has && !o->filter.has(o->filter.ctx, dev))
		return 0;
	if (o->err)
		return o->err;
	if (!o->started) {
		o->started = true;
		o->genesis = ev->ts;
	}
	s = dev_summary(o, dev);
	if (s)
		count(ev, s, timer ? 'T' : act);

	if (o->len + OUT_LINE_MAX > OUT_BUF_SIZE) {
		int ret = blkparse_out_flush(o);

		if (ret)
			return ret;
	}
	rel = ev->ts >= o->genesis ? ev->ts - o->genesis : 0;
	/* a flush request's position is -1; blktrace records it as 0 */
	sector = ev->sector == UINT64_MAX ? 0 : ev->sector;
	p = o->buf + o->len;

	/* "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s " */
	if (dev != o->prefix_dev || ev->cpu != o->prefix_cpu) {
		/* device and CPU change seldom from one line to the next */
		char *q = o->prefix;

		q = put_u_right(q, KDEV_MAJOR(dev), 3);
		*q++ = ',';
		q = put_u_left(q, KDEV_MINOR(dev), 3);
		*q++ = ' ';
		q = put_u_right(q, ev->cpu, 2);
		*q++ = ' ';
		o->prefix_len = q - o->prefix;
		o->prefix_dev = dev;
		o->prefix_cpu = ev->cpu;
	}
	memcpy(p, o->prefix, o->prefix_len);
	p += o->prefix_len;
	p = put_u_right(p, next_seq(o, dev, ev->cpu), 8);
	*p++ = ' ';
	secs = rel / 1000000000ULL;
	p = put_u_right(p, secs, 5);
	*p++ = '.';
	p = put_u9(p, rel - secs * 1000000000ULL);
	*p++ = ' ';
	p = put_u_right(p, (uint32_t)ev->pid, 5);
	*p++ = ' ';
	*p++ = timer ? 'U' : ' ';
	*p++ = timer ? 'T' : act;
	*p++ = ' ';
	/* "%3s" */
	n = blk_rwbs_render(ev, rwbs);
	if (n < 3) {
		memset(p, ' ', 4);
		p += 3 - n;
	}
	memcpy(p, rwbs, sizeof(rwbs));
	p += n;
	*p++ = ' ';

	switch (act) {
	case 'C':
	case 'R':
		p = put_u(p, sector);
		if (ev->nr_sector) {
			p = put_lit(p, " + ");
			p = put_u(p, ev->nr_sector);
		}
		p = put_lit(p, " [");
		p = put_d(p, ev->error);
		*p++ = ']';
		break;
	case 'D':
	case 'I':
	case 'Q':
	case 'B':
	case 'M':
	case 'F':
	case 'G':
	case 'S':
		if (ev->nr_sector) {
			p = put_u(p, sector);
			p = put_lit(p, " + ");
			p = put_u(p, ev->nr_sector);
			*p++ = ' ';
		}
		*p++ = '[';
		p = put_comm(p, ev->comm);
		*p++ = ']';
		break;
	case 'P':
		*p++ = '[';
		p = put_comm(p, ev->comm);
		*p++ = ']';
		break;
	case 'U':
		*p++ = '[';
		p = put_comm(p, ev->comm);
		p = put_lit(p, "] ");
		p = put_u(p, ev->count);
		break;
	case 'A':
		p = put_u(p, sector);
		p = put_lit(p, " + ");
		p = put_u(p, ev->nr_sector);
		p = put_lit(p, " <- (");
		p = put_u(p, KDEV_MAJOR(ev->old_dev));
		*p++ = ',';
		p = put_u(p, KDEV_MINOR(ev->old_dev));
		p = put_lit(p, ") ");
		p = put_u(p, ev->aux_sector);
		break;
	case 'X':
		/* blkparse prints the new sector through a 32-bit unsigned */
		p = put_u(p, sector);
		p = put_lit(p, " / ");
		p = put_u(p, (uint32_t)ev->aux_sector);
		p = put_lit(p, " [");
		p = put_comm(p, ev->comm);
		*p++ = ']';
		break;
	}
	*p++ = '\n';
	o->len = p - o->buf;
	o->lines++;
	return 0;
}

/*
 * Unplugs. The tracepoint names no queue and does not say whether the plug
 * was flushed explicitly (blkparse's U) or because the task went to sleep
 * (blkparse's UT); blktrace knows both. What follows the unplug in the same
 * task on the same CPU tells: the requests of its queue are inserted (I)
 * and/or issued (D) right away, so the first of them names the queue; and
 * an explicit flush runs the queue at once (a D follows), while a flush on
 * the way to sleep leaves the dispatch to kblockd (no D from this task).
 * So an unplug, and the inserts (and scheduler merges, and completions
 * from interrupts) that follow it, wait for the next other event of that
 * CPU.
 */
static struct pending *pending_of(struct blkparse_out *o, unsigned int cpu)
{
	if (cpu >= o->pending_cap) {
		size_t cap = cpu + 16;
		struct pending *n = realloc(o->pending, cap * sizeof(*n));

		if (!n)
			return NULL;
		memset(n + o->pending_cap, 0, (cap - o->pending_cap) * sizeof(*n));
		o->pending = n;
		o->pending_cap = cap;
	}
	return &o->pending[cpu];
}

/* Resolve a waiting unplug given the event after it (NULL: none came). */
static int emit_pending(struct blkparse_out *o, struct pending *pu, const struct blk_event *next)
{
	bool issued = next && next->kind == BLK_EV_RQ_ISSUE && next->pid == pu->unplug.pid;
	uint32_t dev = 0;
	bool timer;
	int ret;
	unsigned int inserts = 0;

	pu->set = false;
	for (unsigned int i = 0; i < pu->nheld; i++) {
		if (pu->held[i].kind != BLK_EV_RQ_INSERT && pu->held[i].kind != BLK_EV_RQ_MERGE)
			continue;
		if (!inserts++)
			dev = pu->held[i].dev;
	}
	if (!inserts)
		dev = issued ? next->dev : pu->fallback;
	/*
	 * Inserted and not issued by the task: a flush on the way to sleep.
	 * But one flush unplugs each queue of the plug in turn, and with an
	 * I/O scheduler a queue may hold what an explicit flush inserted:
	 * the unplugs of one flush share what the first of them showed.
	 */
	if (pu->flush_open && pu->flush_pid == pu->unplug.pid) {
		timer = !pu->flush_explicit;
	} else {
		timer = inserts && !issued;
		pu->flush_open = true;
		pu->flush_pid = pu->unplug.pid;
		pu->flush_explicit = !timer;
	}
	ret = emit(o, &pu->unplug, dev, timer);
	for (unsigned int i = 0; i < pu->nheld && !ret; i++)
		ret = emit(o, &pu->held[i], pu->held[i].dev, false);
	pu->nheld = 0;
	return ret;
}

int blkparse_out_event(const struct blk_event *ev, void *ctx)
{
	struct blkparse_out *o = ctx;
	struct pending *pu = pending_of(o, ev->cpu);
	int ret;

	if (o->err)
		return o->err;
	if (pu && pu->set) {
		/*
		 * The scheduler may merge what is inserted before it dispatches;
		 * a completion from an interrupt may land in between, in one
		 * instance's buffer and not in another's: both wait too.
		 */
		bool held = ((ev->kind == BLK_EV_RQ_INSERT || ev->kind == BLK_EV_RQ_MERGE) &&
			     ev->pid == pu->unplug.pid) ||
			    ev->kind == BLK_EV_RQ_COMPLETE || ev->kind == BLK_EV_BIO_COMPLETE;

		if (held && pu->nheld < PENDING_HELD) {
			plug_device(o, ev);
			pu->held[pu->nheld++] = *ev;
			return 0;
		}
		ret = emit_pending(o, pu, ev);
		if (ret)
			return ret;
	}
	/* a new submission by the task ends its plug flush */
	if (pu && pu->flush_open && ev->pid == pu->flush_pid &&
	    (ev->kind == BLK_EV_BIO_QUEUE || ev->kind == BLK_EV_GETRQ || ev->kind == BLK_EV_PLUG ||
	     ev->kind == BLK_EV_BIO_BACKMERGE || ev->kind == BLK_EV_BIO_FRONTMERGE))
		pu->flush_open = false;
	if (ev->kind == BLK_EV_UNPLUG && pu) {
		pu->unplug = *ev;
		/* the task's device now: by resolution time it may have moved on */
		pu->fallback = plug_device(o, ev);
		pu->set = true;
		return 0;
	}
	return emit(o, ev, plug_device(o, ev), false);
}

int blkparse_out_finish(struct blkparse_out *o)
{
	for (size_t c = 0; c < o->pending_cap; c++) {
		if (o->pending[c].set) {
			int ret = emit_pending(o, &o->pending[c], NULL);

			if (ret)
				return ret;
		}
	}
	return blkparse_out_flush(o);
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

static void summary_dev(FILE *fp, const struct dev_summary *s)
{
	char x[32], y[32];
	double secs = (s->last_ts - s->first_ts) / 1e9;

	fprintf(fp, "Total (%u,%u):\n", KDEV_MAJOR(s->dev), KDEV_MINOR(s->dev));
	fprintf(fp, " Reads Queued:    %s, %siB\t", size_cnv(x, s->queued[0], false),
		size_cnv(y, s->queued_kb[0], true));
	fprintf(fp, " Writes Queued:    %s, %siB\n", size_cnv(x, s->queued[1], false),
		size_cnv(y, s->queued_kb[1], true));
	fprintf(fp, " Read Dispatches: %s, %siB\t", size_cnv(x, s->dispatched[0], false),
		size_cnv(y, s->dispatched_kb[0], true));
	fprintf(fp, " Write Dispatches: %s, %siB\n", size_cnv(x, s->dispatched[1], false),
		size_cnv(y, s->dispatched_kb[1], true));
	fprintf(fp, " Reads Requeued:  %s\t\t", size_cnv(x, s->requeued[0], false));
	fprintf(fp, " Writes Requeued:  %s\n", size_cnv(x, s->requeued[1], false));
	fprintf(fp, " Reads Completed: %s, %siB\t", size_cnv(x, s->completed[0], false),
		size_cnv(y, s->completed_kb[0], true));
	fprintf(fp, " Writes Completed: %s, %siB\n", size_cnv(x, s->completed[1], false),
		size_cnv(y, s->completed_kb[1], true));
	fprintf(fp, " Read Merges:     %s, %siB\t", size_cnv(x, s->merged[0], false),
		size_cnv(y, s->merged_kb[0], true));
	fprintf(fp, " Write Merges:     %s, %siB\n", size_cnv(x, s->merged[1], false),
		size_cnv(y, s->merged_kb[1], true));
	fprintf(fp, " Remaps:          %8llu \t\t Splits:           %8llu\n",
		(unsigned long long)s->remaps, (unsigned long long)s->splits);
	fprintf(fp, " IO unplugs:      %8llu \t\t Timer unplugs:    %8llu\n",
		(unsigned long long)s->unplugs, (unsigned long long)s->timer_unplugs);
	fprintf(fp, " IO plugs:        %8llu\n", (unsigned long long)s->plugs);
	if (secs > 0)
		fprintf(fp, "Throughput (R/W): %.0fKiB/s / %.0fKiB/s\n",
			s->completed_kb[0] / secs, s->completed_kb[1] / secs);
	fprintf(fp, "Events (%u,%u): %llu entries\n\n", KDEV_MAJOR(s->dev), KDEV_MINOR(s->dev),
		(unsigned long long)s->events);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct dev_summary *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

void blkparse_out_summary(struct blkparse_out *o, FILE *fp, const struct source_stats *st)
{
	uint64_t lost = 0;

	if (o->ndevs > 1)	/* none: no array at all, which qsort may not be given */
		qsort(o->devs, o->ndevs, sizeof(o->devs[0]), cmp_dev);
	for (size_t i = 0; i < o->ndevs; i++)
		summary_dev(fp, &o->devs[i]);
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
				c, (unsigned long long)(cs->missed + cs->overrun + cs->dropped),
				(unsigned long long)cs->missed, (unsigned long long)cs->overrun,
				(unsigned long long)cs->dropped,
				cs->missed_unknown ? ", and pages with an unknown count" : "");
		else
			fprintf(fp, " CPU%-3d %10llu lost%s\n", c, (unsigned long long)cs->missed,
				cs->missed_unknown ? ", and pages with an unknown count" : "");
		lost += cs->missed + cs->overrun + cs->dropped;
	}
	fprintf(fp, "Total events lost: %llu%s\n", (unsigned long long)lost,
		lost ? " (the log above is incomplete)" : "");
}
