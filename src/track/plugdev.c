// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plugdev.c - the device of plug and unplug events, and U against UT.
 *
 * A plug follows the get-request of the first request its task adds, and
 * an unplug flushes what the task plugged, possibly from another CPU after
 * a migration: the task's last queue (Q, G or bio merge) names the device. An
 * unplug's own queue shows in what follows it on its CPU: the requests it
 * flushes are inserted (I) or merged by the scheduler (M) by the same
 * task, then issued (D) at once when the flush was explicit, or left to
 * kblockd when the task is going to sleep (UT). So an unplug, and the
 * inserts, scheduler merges and interrupt completions right after it, wait
 * for the next other event of that CPU.
 *
 * A bio-based device may hang a callback on the plug (md raid5 releases
 * its stripes from one) and trace its own unplug for it, before the
 * queues' flush: such an unplug inserts and issues nothing, and the task
 * may have queued at the array's members since (an array's flush goes to
 * every member in the task's context). Its device is the bio-based device
 * the task last queued at. A device is request-based once it has shown a
 * request (G, I, D, M, C of a request).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "track/plugdev.h"

/* Tasks remembered; a collision only costs the attribution of a plug. */
#define TASK_SLOTS 4096

/* Events held behind one unplug at most; more are handed on as they come. */
#define HELD_MAX 32

/* Request-based devices remembered; past that, none is taken for bio-based. */
#define RQ_DEVS 256

struct task_dev {
	int32_t pid;
	uint32_t dev;		/* device of its last queue, merge or get-request */
	uint32_t getrq_dev;	/* device of its last get-request */
	uint32_t bio_dev;	/* its last queue at a device not seen request-based */
};

struct cpu_wait {
	struct blk_event unplug;
	uint32_t fallback;	/* the task's device when it unplugged */
	uint32_t bio_fallback;	/* its last bio-based device then (0: none) */
	bool waiting;
	unsigned int nheld;
	struct blk_event held[HELD_MAX];
	/* the plug flush the last resolved unplug belonged to */
	bool flush_open;
	bool flush_explicit;
	int32_t flush_pid;
};

struct plugdev {
	plugdev_fn fn;
	void *ctx;
	struct task_dev task[TASK_SLOTS];
	struct cpu_wait *cpu;
	size_t ncpu;
	uint32_t rq_dev[RQ_DEVS];
	unsigned int nrq_dev;
	unsigned int last_rq;	/* the one request_based() found last */
	bool rq_dev_full;
	unsigned int nwaiting;	/* CPUs with an unplug waiting */
	/* by kind: not handed on (plugdev_letters_only()) */
	bool skip[UINT8_MAX + 1];
	/* plugdev_held_from's answer, asked after every event: kept, not scanned */
	uint64_t held_from;
};

struct plugdev *plugdev_alloc(plugdev_fn fn, void *ctx)
{
	struct plugdev *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->fn = fn;
	p->ctx = ctx;
	p->held_from = UINT64_MAX;
	return p;
}

void plugdev_letters_only(struct plugdev *p)
{
	for (unsigned int k = 0; k <= UINT8_MAX; k++)
		p->skip[k] = !blk_kind_action(k);
}

void plugdev_free(struct plugdev *p)
{
	if (!p)
		return;
	free(p->cpu);
	free(p);
}

static bool request_based(struct plugdev *p, uint32_t dev)
{
	/* asked at nearly every event, mostly of the device found last */
	if (p->nrq_dev && p->rq_dev[p->last_rq] == dev)
		return true;
	for (unsigned int i = 0; i < p->nrq_dev; i++)
		if (p->rq_dev[i] == dev) {
			p->last_rq = i;
			return true;
		}
	return p->rq_dev_full;
}

/* Remember the devices that showed a request. */
static void see_device(struct plugdev *p, const struct blk_event *ev)
{
	switch (ev->kind) {
	case BLK_EV_GETRQ:
	case BLK_EV_RQ_INSERT:
	case BLK_EV_RQ_ISSUE:
	case BLK_EV_RQ_MERGE:
	case BLK_EV_RQ_COMPLETE:
		break;
	default:
		return;
	}
	if (!ev->dev || request_based(p, ev->dev))
		return;
	if (p->nrq_dev < RQ_DEVS)
		p->rq_dev[p->nrq_dev++] = ev->dev;
	else
		p->rq_dev_full = true;
}

/* Follow the task's queue-side events; returns the device of @ev. */
static inline uint32_t task_device(struct plugdev *p, const struct blk_event *ev)
{
	struct task_dev *t = &p->task[(uint32_t)ev->pid & (TASK_SLOTS - 1)];
	bool plug = ev->kind == BLK_EV_PLUG || ev->kind == BLK_EV_UNPLUG;

	if (t->pid != ev->pid) {
		/* a task not seen queueing: its plug's device is unknown */
		if (plug)
			return 0;
		t->pid = ev->pid;
		t->dev = t->getrq_dev = t->bio_dev = 0;
	}
	switch (ev->kind) {
	case BLK_EV_PLUG:
		/* a full plug may be flushed between the G and its P: G names it */
		return t->getrq_dev ? t->getrq_dev : t->dev;
	case BLK_EV_UNPLUG:
		return t->dev;
	case BLK_EV_GETRQ:
		t->getrq_dev = t->dev = ev->dev;
		break;
	case BLK_EV_BIO_QUEUE:
		if (!request_based(p, ev->dev))
			t->bio_dev = ev->dev;
		t->dev = ev->dev;
		break;
	case BLK_EV_BIO_BACKMERGE:
	case BLK_EV_BIO_FRONTMERGE:
		t->dev = ev->dev;
		break;
	/*
	 * An insert names no plug: kblockd inserts requests other tasks
	 * queued, and its own plug, flushed for another device, would go
	 * to the last queue it dispatched.
	 */
	default:
		break;
	}
	return ev->dev;
}

static struct cpu_wait *cpu_wait_of(struct plugdev *p, unsigned int cpu)
{
	if (cpu >= p->ncpu) {
		size_t n = cpu + 16;
		struct cpu_wait *w = realloc(p->cpu, n * sizeof(*w));

		if (!w)
			return NULL;
		memset(w + p->ncpu, 0, (n - p->ncpu) * sizeof(*w));
		p->cpu = w;
		p->ncpu = n;
	}
	return &p->cpu[cpu];
}

/* The oldest waiting unplug's time, after the one of @w stopped waiting. */
static void held_update(struct plugdev *p, const struct cpu_wait *w)
{
	uint64_t from = UINT64_MAX;

	/* mostly none waits any more, or an unplug after the oldest went */
	if (p->nwaiting && w->unplug.ts > p->held_from)
		return;
	/* what waits behind an unplug came after it on its CPU */
	for (size_t c = 0; c < p->ncpu && p->nwaiting; c++)
		if (p->cpu[c].waiting && p->cpu[c].unplug.ts < from)
			from = p->cpu[c].unplug.ts;
	p->held_from = from;
}

/* Resolve the waiting unplug of @w, given the event after it (NULL: none). */
static int resolve(struct plugdev *p, struct cpu_wait *w, const struct blk_event *next)
{
	bool issued = next && next->kind == BLK_EV_RQ_ISSUE && next->pid == w->unplug.pid;
	unsigned int inserts = 0;
	uint32_t dev = 0;
	bool timer;
	int ret;

	w->waiting = false;
	p->nwaiting--;
	held_update(p, w);
	for (unsigned int i = 0; i < w->nheld; i++) {
		if (w->held[i].kind != BLK_EV_RQ_INSERT && w->held[i].kind != BLK_EV_RQ_MERGE)
			continue;
		if (!inserts++)
			dev = w->held[i].dev;
	}
	if (!inserts)
		dev = issued ? next->dev : w->bio_fallback ? w->bio_fallback : w->fallback;
	/*
	 * One flush unplugs each queue of the plug in turn, and with a
	 * scheduler a queue may keep what an explicit flush inserted: the
	 * unplugs of one flush share what the first of them showed.
	 */
	if (w->flush_open && w->flush_pid == w->unplug.pid) {
		timer = !w->flush_explicit;
	} else {
		timer = inserts && !issued;
		w->flush_open = true;
		w->flush_pid = w->unplug.pid;
		w->flush_explicit = !timer;
	}
	ret = p->fn(&w->unplug, dev, timer, p->ctx);
	for (unsigned int i = 0; i < w->nheld && !ret; i++)
		if (!p->skip[w->held[i].kind])
			ret = p->fn(&w->held[i], w->held[i].dev, false, p->ctx);
	w->nheld = 0;
	return ret;
}

int plugdev_event(const struct blk_event *ev, void *ctx)
{
	struct plugdev *p = ctx;
	struct cpu_wait *w = cpu_wait_of(p, ev->cpu);
	uint32_t dev;
	int ret;

	see_device(p, ev);
	if (w && w->waiting) {
		/*
		 * what the flush inserts, completions from interrupts, and
		 * events blktrace has no letter for (6.12's block_io_start
		 * between the unplug and its issue) wait too
		 */
		bool hold = ((ev->kind == BLK_EV_RQ_INSERT || ev->kind == BLK_EV_RQ_MERGE) &&
			     ev->pid == w->unplug.pid) ||
			    ev->kind == BLK_EV_RQ_COMPLETE || ev->kind == BLK_EV_BIO_COMPLETE ||
			    !blk_kind_action(ev->kind);

		if (hold && w->nheld < HELD_MAX) {
			task_device(p, ev);
			w->held[w->nheld++] = *ev;
			return 0;
		}
		ret = resolve(p, w, ev);
		if (ret)
			return ret;
	}
	/* a new submission by the task ends its plug flush */
	if (w && w->flush_open && ev->pid == w->flush_pid &&
	    (ev->kind == BLK_EV_BIO_QUEUE || ev->kind == BLK_EV_GETRQ || ev->kind == BLK_EV_PLUG ||
	     ev->kind == BLK_EV_BIO_BACKMERGE || ev->kind == BLK_EV_BIO_FRONTMERGE))
		w->flush_open = false;
	if (ev->kind == BLK_EV_UNPLUG && w) {
		w->unplug = *ev;
		/* the task's device now: by resolution it may have moved on */
		w->fallback = task_device(p, ev);
		w->bio_fallback = w->fallback ? p->task[(uint32_t)ev->pid & (TASK_SLOTS - 1)].bio_dev : 0;
		/* a device queued at before its first request showed */
		if (w->bio_fallback && request_based(p, w->bio_fallback))
			w->bio_fallback = 0;
		w->waiting = true;
		p->nwaiting++;
		if (ev->ts < p->held_from)
			p->held_from = ev->ts;
		return 0;
	}
	dev = task_device(p, ev);
	return p->skip[ev->kind] ? 0 : p->fn(ev, dev, false, p->ctx);
}

uint64_t plugdev_held_from(const struct plugdev *p)
{
	return p->held_from;
}

int plugdev_finish(struct plugdev *p)
{
	for (size_t c = 0; c < p->ncpu; c++) {
		if (p->cpu[c].waiting) {
			int ret = resolve(p, &p->cpu[c], NULL);

			if (ret)
				return ret;
		}
	}
	return 0;
}
