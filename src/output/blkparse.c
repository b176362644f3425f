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
#include <stdlib.h>
#include <string.h>

#include "output/blkparse.h"
#include "track/plugdev.h"

#define OUT_BUF_SIZE	(256 * 1024)
#define OUT_LINE_MAX	256

/* A (device, cpu) sequence counter or a per-device summary, hashed. */
struct seq_slot {
	uint64_t key;		/* dev << 32 | cpu, + 1 so that 0 is empty */
	uint32_t seq;
	uint32_t text_seq;	/* the number in text, 0: none */
	char text[8];		/* text_seq as "%8u", to be incremented in place */
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

	/* the last pid as "%5d" (16 bytes, len of them the field's) */
	int64_t pid_last;
	char pid_text[16];
	size_t pid_len;

	/* the last line's rwbs text, and what it depends on (rwbs_key()) */
	uint32_t rwbs_key;
	char rwbs_text[8];
	unsigned int rwbs_len;

	/* the formatted "maj,min cpu " of the last line */
	char prefix[48];
	size_t prefix_len;
	uint32_t prefix_dev;
	unsigned int prefix_cpu;

	/* the device of plugs and unplugs, U or UT: the rules of track/plugdev.c */
	struct plugdev *plugs;
};

static int emit_attributed(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx);

struct blkparse_out *blkparse_out_alloc(FILE *fp, const struct blkparse_filter *filter)
{
	struct blkparse_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fp = fp;
	o->prefix_dev = UINT32_MAX;
	o->pid_last = INT64_MIN;
	if (filter)
		o->filter = *filter;
	o->buf = malloc(OUT_BUF_SIZE);
	o->seq_cap = 256;
	o->seq = calloc(o->seq_cap, sizeof(*o->seq));
	o->plugs = plugdev_alloc(emit_attributed, o);
	if (!o->buf || !o->seq || !o->plugs) {
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
	plugdev_free(o->plugs);
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

static const uint64_t pow10_tab[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
	100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
	10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
	10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* The decimal digits of v: log10 from its bit length, then one compare. */
static inline int count_digits(uint64_t v)
{
	uint64_t w = v | 1;
	int t = ((64 - __builtin_clzll(w)) * 1233) >> 12;	/* 1233 / 4096 ~ log10(2) */

	return t + (w >= pow10_tab[t]);
}

/*
 * The n digits of v into p[0..n-1], two at a time (halves the divisions),
 * in 32 bits once the value fits: most do (sectors, sequences, pids).
 */
static inline void put_digits(char *p, uint64_t v, int n)
{
	char *q = p + n;
	uint32_t w;

	while (v > UINT32_MAX) {
		uint64_t t = v / 100;

		q -= 2;
		memcpy(q, two_digits + 2 * (unsigned int)(v - t * 100), 2);
		v = t;
	}
	w = v;
	while (w >= 100) {
		uint32_t t = w / 100;

		q -= 2;
		memcpy(q, two_digits + 2 * (w - t * 100), 2);
		w = t;
	}
	if (w >= 10)
		memcpy(q - 2, two_digits + 2 * w, 2);
	else
		q[-1] = '0' + w;
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
		uint32_t t = v / 100;

		memcpy(p + i, two_digits + 2 * (v - t * 100), 2);
		v = t;
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

/* A string of at most 16 bytes, such as a task name (NUL-terminated) */
static inline char *put_comm(char *p, const char comm[16])
{
	memcpy(p, comm, 16);
	return p + strnlen16(comm);
}

/* A literal: a constant-size copy */
#define put_lit(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)

/* ---- per-device and per-(device, cpu) state -------------------------- */

/* The (device, CPU) counter's slot, NULL when the table is full and could not grow. */
static struct seq_slot *seq_slot_of(struct blkparse_out *o, uint32_t dev, unsigned int cpu)
{
	uint64_t key = ((uint64_t)dev << 32 | cpu) + 1;
	size_t mask, i;

	/* runs of events on one device and CPU are the common case */
	if (o->seq_last < o->seq_cap && o->seq[o->seq_last].key == key)
		return &o->seq[o->seq_last];

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
			return NULL;	/* table full and could not grow */
		o->seq[i].key = key;
		o->seq_used++;
	}
	o->seq_last = i;
	return &o->seq[i];
}

/*
 * The line's sequence number, "%8u": the counter goes up by one per line of
 * its (device, CPU), so its text is kept and its last digit incremented
 * when that is not a 9. 0 when the table is full.
 */
static inline char *put_seq(struct blkparse_out *o, char *p, uint32_t dev, unsigned int cpu)
{
	struct seq_slot *s = seq_slot_of(o, dev, cpu);
	char *q;

	if (!s)
		return put_u_right(p, 0, 8);
	s->seq++;
	if (s->text_seq && s->text_seq + 1 == s->seq && s->text[7] != '9') {
		s->text[7]++;
		s->text_seq = s->seq;
		memcpy(p, s->text, 8);
		return p + 8;
	}
	q = put_u_right(p, s->seq, 8);
	s->text_seq = 0;
	if (q - p == 8) {
		memcpy(s->text, p, 8);
		s->text_seq = s->seq;
	}
	return q;
}

/*
 * Everything blk_rwbs_render() reads of an event: the operation, the flags,
 * whether it has sectors and bytes, and whether it is a split; + 1, so that
 * 0 is no key.
 */
static inline uint32_t rwbs_key(const struct blk_event *ev)
{
	return ((uint32_t)ev->op | (uint32_t)ev->flags << 8 | (uint32_t)!!ev->nr_sector << 24 |
		(uint32_t)!!ev->bytes << 25 | (uint32_t)(ev->kind == BLK_EV_SPLIT) << 26) + 1;
}

/* blk_rwbs_render() into @buf (8 bytes), the last line's text when the key is the same */
static inline unsigned int put_rwbs(struct blkparse_out *o, const struct blk_event *ev,
				    char *buf)
{
	uint32_t key = rwbs_key(ev);

	if (key != o->rwbs_key) {
		o->rwbs_len = blk_rwbs_render(ev, o->rwbs_text);
		o->rwbs_key = key;
	}
	memcpy(buf, o->rwbs_text, 8);
	return o->rwbs_len;
}

/* The task's pid, "%5d" of its unsigned value: the same one line after line, mostly. */
static inline char *put_pid(struct blkparse_out *o, char *p, int32_t pid)
{
	char *q;

	if (pid == o->pid_last) {
		memcpy(p, o->pid_text, 16);
		return p + o->pid_len;
	}
	q = put_u_right(p, (uint32_t)pid, 5);
	memcpy(o->pid_text, p, 16);
	o->pid_len = q - p;
	o->pid_last = pid;
	return q;
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
	/* the whole array, a constant-size copy: the line has room (OUT_LINE_MAX) */
	memcpy(p, o->prefix, sizeof(o->prefix));
	p += o->prefix_len;
	p = put_seq(o, p, dev, ev->cpu);
	*p++ = ' ';
	secs = rel / 1000000000ULL;
	p = put_u_right(p, secs, 5);
	*p++ = '.';
	p = put_u9(p, rel - secs * 1000000000ULL);
	*p++ = ' ';
	p = put_pid(o, p, ev->pid);
	*p++ = ' ';
	*p++ = timer ? 'U' : ' ';
	*p++ = timer ? 'T' : act;
	*p++ = ' ';
	/* "%3s" */
	n = put_rwbs(o, ev, rwbs);
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
