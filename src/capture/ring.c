// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ring.c - reading the per-CPU raw ring buffers of a live session, a
 * thread per CPU or group of CPUs.
 *
 * Each thread polls its CPUs' trace_pipe_raw (the kernel wakes it when a
 * buffer passes buffer_percent) and its wake eventfd, then splices every
 * full sub-buffer of each CPU into its pipe, a pipe's worth at a time:
 * two system calls per 32 pages, where read() takes one per page.
 * Recording, the pipe is spliced on into the CPU's spill file; otherwise
 * the pages are read from the pipe, walked and decoded into the CPU's
 * current batch. A CPU has RING_BATCHES batches: one its thread fills,
 * the ones queued, and the one the caller's merge holds (merge_lend(): no
 * copy). A thread with no free batch for a CPU stops reading it until
 * the caller hands one back: the kernel's ring buffer is then the only
 * one that grows, up to its size, and the events it overwrites are
 * counted there and marked in the stream. A CPU that had no full
 * sub-buffer in a pass is read with read() (a partial page), and one
 * found empty tells the merge it has reached "now" less a slack.
 *
 * The lock (one mutex for the whole ring) guards the queues, the free
 * batches, the published accounting and the requests; it is taken a few
 * times per batch of 2048 events, never per event. The threads block
 * every signal: Ctrl-C interrupts the caller's wait, in poll().
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/lostevent.h"
#include "base/util.h"
#include "capture/ring.h"
#include "format/decode.h"
#include "format/pagewalk.h"

/* Events may still be in flight on a CPU for this long after "now". */
#define RING_SLACK_NS 2000000ULL
/* How long a thread sleeps at most: partial pages of a slow CPU come this late. */
#define RING_POLL_MS 250
/* How often the caller wakes the thread of a CPU that holds the merge back, at most. */
#define RING_POKE_NS 2000000ULL
/* Sub-buffers a thread's pipe holds (its splice size), and the tap's pages per batch. */
#define RING_PIPE_PAGES 32
#define RING_TAP_PAGES 32

struct ring_batch {
	struct ring_batch *next;	/* in its CPU's free list */
	unsigned int n;			/* events */
	bool ordered;			/* in time order (merge_lend()) */
	unsigned int npages;		/* pages kept for the tap */
	struct blk_event *ev;		/* RING_BATCH_EVENTS */
	uint8_t *pages;			/* RING_TAP_PAGES sub-buffers, once tapped */
};

struct ring_thread;

struct ring_cpu {
	int cpu;
	int fd;				/* trace_pipe_raw, -1 for a CPU with no buffer */
	int spill_fd;			/* recording: where its pages go, else -1 */
	struct ring_thread *th;
	/* its thread's */
	struct pagewalk walk;
	uint64_t last_ts;		/* the last record read: where a loss starts */
	struct source_cpu_stats st;
	struct ring_batch *cur;		/* being filled */
	uint8_t *held;			/* pages taken from the kernel, not yet decoded */
	size_t held_off, held_len;	/* (no batch was free for them) */
	bool read_out;			/* read to its end after ring_stop() */
	/* under ring.lock */
	struct ring_batch *q[RING_BATCHES];
	unsigned int head, len;
	struct ring_batch *free;
	unsigned int nbatches;		/* allocated, at most RING_BATCHES */
	uint64_t reached;		/* nothing earlier will come from it */
	bool ended;			/* read to its end, every batch queued */
	struct source_cpu_stats pub;	/* st as of its last publication */
	/* the caller's */
	struct ring_batch *lent;	/* in the merge */
	bool merge_ended;
};

struct ring_thread {
	struct ring *r;
	pthread_t tid;
	bool started;
	int wake_fd;			/* eventfd: room, a request, stop */
	int pipe[2];
	size_t pipe_bytes;		/* what one splice moves at most */
	uint8_t *buf;			/* pipe_bytes, the pipe's pages read out */
	struct decoder *dec;		/* its own: a decoder's memo is not shared */
	struct ring_cpu **cpus;
	int ncpus;
	struct pollfd *pfd;
	struct ring_cpu **pcpu;		/* the CPU of each pfd entry */
	uint64_t poked;			/* the caller's: when it last woke it for a pass */
	/* under ring.lock */
	bool want_wake;			/* waits for room: write wake_fd */
	unsigned int flush_done;	/* the last flush request it answered */
	bool exited;
};

struct ring {
	struct session *s;
	struct merge *m;
	int ncpu;
	int subbuf_size;
	int long_size;
	bool big_endian;
	unsigned int page_events;	/* events one sub-buffer can hold at most */
	struct ring_cpu *cpu;
	struct ring_thread *th;
	int nthreads;			/* asked before the start (0: default), then started */
	bool running;
	bool spilling;
	bool loss_marks;
	bool tapping;			/* read by the threads: keep the pages */
	ring_page_fn tap;
	void *tap_ctx;
	int data_fd;			/* eventfd: the caller's wakeup */
	pthread_mutex_t lock;
	/* under lock */
	bool draining;			/* ring_stop(): read to the end, then end */
	bool stop;			/* the threads leave now */
	unsigned int flush_gen;		/* ring_flush() requests */
	unsigned int pub_gen;		/* publications: batches, reached times, ends */
	bool want_data;			/* the caller waits: write data_fd */
	int err;			/* the first read error of a thread */
	int spill_err;			/* the first write error of a spill */
	/* the caller's */
	unsigned int seen_gen;
	struct source_stats st;
};

/* ---- opening and closing ------------------------------------------------ */

struct ring *ring_open(struct session *s, struct merge *m)
{
	struct ring *r;
	int err = ENOMEM;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->s = s;
	r->m = m;
	r->ncpu = s->ncpu;
	r->data_fd = -1;
	r->subbuf_size = tep_get_sub_buffer_size(s->tep);
	if (r->subbuf_size <= 0)
		r->subbuf_size = getpagesize();
	/* the smallest record: a 4-byte header and the 8 bytes of common fields */
	r->page_events = r->subbuf_size / 12 + 1;
	r->big_endian = tep_is_local_bigendian(s->tep);
	r->long_size = tep_get_header_page_size(s->tep) == 8 ? 8 : 4;
	pthread_mutex_init(&r->lock, NULL);
	r->cpu = calloc(r->ncpu, sizeof(*r->cpu));
	r->st.ncpu = r->ncpu;
	r->st.live = true;
	r->st.cpu = calloc(r->ncpu, sizeof(*r->st.cpu));
	if (!r->cpu || !r->st.cpu)
		goto fail;
	for (int c = 0; c < r->ncpu; c++) {
		r->cpu[c].cpu = c;
		r->cpu[c].fd = -1;
		r->cpu[c].spill_fd = -1;
	}
	r->data_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->data_fd < 0) {
		err = errno;
		goto fail;
	}
	for (int c = 0; c < r->ncpu; c++) {
		struct ring_cpu *rc = &r->cpu[c];
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c);
		/* not inherited by "-- COMMAND": an orphan of it would keep the
		 * buffer open and the instance could not be removed */
		rc->fd = tracefs_instance_file_open(s->instance, file,
						    O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (rc->fd < 0) {
			/* a possible-but-offline CPU has no buffer: nothing to read */
			if (errno == ENOENT) {
				rc->merge_ended = rc->ended = rc->read_out = true;
				continue;
			}
			err = errno;
			goto fail;
		}
		pagewalk_init(&rc->walk, r->long_size, r->big_endian);
	}
	return r;
fail:
	ring_close(r);
	errno = err;
	return NULL;
}

static void batch_free(struct ring_batch *b)
{
	if (!b)
		return;
	free(b->ev);
	free(b->pages);
	free(b);
}

static void threads_join(struct ring *r);

void ring_close(struct ring *r)
{
	if (!r)
		return;
	if (r->running) {
		pthread_mutex_lock(&r->lock);
		r->stop = true;
		pthread_mutex_unlock(&r->lock);
		threads_join(r);
	}
	for (int c = 0; r->cpu && c < r->ncpu; c++) {
		struct ring_cpu *rc = &r->cpu[c];

		if (rc->fd >= 0)
			close(rc->fd);
		free(rc->held);
		batch_free(rc->cur);
		batch_free(rc->lent);
		for (unsigned int i = 0; i < rc->len; i++)
			batch_free(rc->q[(rc->head + i) % RING_BATCHES]);
		while (rc->free) {
			struct ring_batch *b = rc->free;

			rc->free = b->next;
			batch_free(b);
		}
	}
	if (r->data_fd >= 0)
		close(r->data_fd);
	pthread_mutex_destroy(&r->lock);
	free(r->cpu);
	free(r->st.cpu);
	free(r);
}

void ring_set_threads(struct ring *r, int n)
{
	if (!r->running && n >= 0)
		r->nthreads = n;
}

/* The threads: as asked, else one per CPU with a buffer, at most one per online CPU. */
static int threads_wanted(const struct ring *r)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int cpus = 0, n;

	for (int c = 0; c < r->ncpu; c++)
		cpus += r->cpu[c].fd >= 0;
	n = r->nthreads ? r->nthreads : online > 0 && online < cpus ? (int)online : cpus;
	if (n > cpus)
		n = cpus;
	return n > 0 ? n : 1;
}

void ring_set_loss_marks(struct ring *r, bool on)
{
	r->loss_marks = on;
}

void ring_set_spill(struct ring *r, const int *fds)
{
	for (int c = 0; c < r->ncpu; c++)
		r->cpu[c].spill_fd = fds[c];
	r->spilling = true;
}

void ring_set_page_tap(struct ring *r, ring_page_fn fn, void *ctx)
{
	r->tap = fn;
	r->tap_ctx = ctx;
	__atomic_store_n(&r->tapping, fn != NULL, __ATOMIC_RELAXED);
}

int ring_subbuf_size(const struct ring *r)
{
	return r->subbuf_size;
}

size_t ring_memory(const struct ring *r)
{
	size_t batch = RING_BATCH_EVENTS * sizeof(struct blk_event) + sizeof(struct ring_batch);
	int cpus = 0;

	for (int c = 0; c < r->ncpu; c++)
		cpus += r->cpu[c].fd >= 0;
	if (r->tap)
		batch += (size_t)RING_TAP_PAGES * r->subbuf_size;
	/* recording, the pages go through the pipes alone */
	if (r->spilling)
		batch = 0;
	return (size_t)cpus * RING_BATCHES * batch +
	       (size_t)threads_wanted(r) * RING_PIPE_PAGES * r->subbuf_size;
}

/* ---- waking -------------------------------------------------------------- */

static void fd_signal(int fd)
{
	uint64_t one = 1;

	/* it fails only when the counter is full: a wakeup is pending already */
	(void)!write(fd, &one, sizeof(one));
}

/* Wait up to @timeout_ms for @fd to be signalled, and clear it; false on a signal. */
static bool fd_wait(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t v;

	if (poll(&pfd, 1, timeout_ms) < 0)
		return false;
	if (pfd.revents & POLLIN)
		(void)!read(fd, &v, sizeof(v));
	return true;
}

/* Under the lock: something was published; wake the caller if it waits. */
static void published(struct ring *r)
{
	r->pub_gen++;
	if (r->want_data) {
		r->want_data = false;
		fd_signal(r->data_fd);
	}
}

/* Under the lock: a batch of @rc came back; wake its thread if it waits for one. */
static void batch_back(struct ring_cpu *rc, struct ring_batch *b)
{
	b->next = rc->free;
	rc->free = b;
	if (rc->th && rc->th->want_wake) {
		rc->th->want_wake = false;
		fd_signal(rc->th->wake_fd);
	}
}

/* ---- a thread's work ------------------------------------------------------ */

static struct ring_batch *batch_alloc(void)
{
	struct ring_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->ev = malloc(RING_BATCH_EVENTS * sizeof(*b->ev));
	if (!b->ev) {
		free(b);
		return NULL;
	}
	return b;
}

/*
 * A batch for @rc to fill: a free one, else a new one while fewer than
 * RING_BATCHES exist; NULL when neither (or out of memory, r->err set).
 * Never waits: a thread that waited for one CPU's batch would stop
 * reading its other CPUs, which the merge may be waiting for.
 */
static struct ring_batch *batch_get(struct ring *r, struct ring_cpu *rc)
{
	struct ring_batch *b = NULL;

	pthread_mutex_lock(&r->lock);
	if (rc->free) {
		b = rc->free;
		rc->free = b->next;
	} else if (rc->nbatches < RING_BATCHES) {
		rc->nbatches++;
		pthread_mutex_unlock(&r->lock);
		b = batch_alloc();
		pthread_mutex_lock(&r->lock);
		if (!b) {
			rc->nbatches--;
			if (!r->err)
				r->err = -ENOMEM;
			published(r);
		}
	}
	pthread_mutex_unlock(&r->lock);
	if (b) {
		b->n = 0;
		b->npages = 0;
		b->ordered = true;
		b->next = NULL;
	}
	return b;
}

/* Under the lock: whether @rc can take a page now (its thread's view). */
static bool has_room_locked(const struct ring *r, const struct ring_cpu *rc)
{
	if (r->spilling)
		return true;
	if (rc->held_len)
		return false;
	return rc->cur || rc->free || rc->nbatches < RING_BATCHES;
}

/* Queue @rc's current batch for the caller, with the accounting as it stands. */
static void batch_publish(struct ring *r, struct ring_cpu *rc)
{
	pthread_mutex_lock(&r->lock);
	if (rc->cur) {
		rc->q[(rc->head + rc->len) % RING_BATCHES] = rc->cur;
		rc->len++;
		rc->cur = NULL;
	}
	rc->pub = rc->st;
	published(r);
	pthread_mutex_unlock(&r->lock);
}

/* Decode one sub-buffer of @rc (@size bytes read) into its current batch. */
static void page_decode(struct ring_thread *th, struct ring_cpu *rc, uint8_t *page, size_t size)
{
	struct ring *r = th->r;
	struct ring_batch *b = rc->cur;
	struct pagewalk w;
	unsigned int len;
	const void *rec;
	uint64_t ts, last = rc->last_ts;

	/* a partial read leaves the rest of the buffer as the last page had it */
	if (size < (size_t)r->subbuf_size)
		memset(page + size, 0, r->subbuf_size - size);
	if (pagewalk_load(&rc->walk, page, r->subbuf_size) < 0) {
		rc->st.malformed++;
		return;
	}
	rc->st.pages++;
	rc->st.bytes += size;
	if (rc->walk.missed) {
		if (rc->walk.missed > 0)
			rc->st.missed += rc->walk.missed;
		else
			rc->st.missed_unknown++;
		/* lost after the last event read, or after the CPU was last found empty */
		if (r->loss_marks)
			lost_mark_fill(&b->ev[b->n++], rc->cpu,
				       last > rc->reached ? last : rc->reached, rc->walk.ts,
				       rc->walk.missed > 0 ? rc->walk.missed : 0);
	}
	if (__atomic_load_n(&r->tapping, __ATOMIC_RELAXED)) {
		if (!b->pages)
			b->pages = malloc((size_t)RING_TAP_PAGES * r->subbuf_size);
		if (b->pages)
			memcpy(b->pages + (size_t)b->npages++ * r->subbuf_size, page,
			       r->subbuf_size);
	}
	/* on a copy of the walker: a local no event store can alias */
	w = rc->walk;
	while ((rec = pagewalk_next(&w, &ts, &len))) {
		int ret = decoder_decode(th->dec, rec, len, ts, rc->cpu, &b->ev[b->n]);

		if (ts < last)
			b->ordered = false;
		last = ts;
		if (ret > 0) {
			b->n++;
			rc->st.events++;
		} else if (ret == 0) {
			rc->st.other++;
		} else {
			rc->st.malformed++;
		}
	}
	if (w.malformed)
		rc->st.malformed++;
	rc->walk = w;
	rc->last_ts = last;
}

/* Read @len bytes out of the thread's pipe into its buffer; 0 or -errno. */
static int pipe_read(struct ring_thread *th, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(th->pipe[0], th->buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += n;
	}
	return 0;
}

/*
 * Move *@len bytes from the thread's pipe into @rc's spill; 0 or -errno,
 * with *@len the bytes left in the pipe.
 */
static int pipe_spill(struct ring_thread *th, struct ring_cpu *rc, size_t *len)
{
	while (*len) {
		ssize_t n = splice(th->pipe[0], NULL, rc->spill_fd, NULL, *len, SPLICE_F_MOVE);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		*len -= n;
		rc->st.bytes += n;
	}
	return 0;
}

/* Write one partial page of @rc, padded to a sub-buffer, to its spill; 0 or -errno. */
static int page_spill(struct ring *r, struct ring_cpu *rc, uint8_t *page, size_t size)
{
	size_t done = 0;

	memset(page + size, 0, r->subbuf_size - size);
	while (done < (size_t)r->subbuf_size) {
		ssize_t n = write(rc->spill_fd, page + done, r->subbuf_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	rc->st.bytes += r->subbuf_size;
	rc->st.pages++;
	return 0;
}

/*
 * A spill failed: the recording keeps the whole sub-buffers it has (a
 * short write may have left part of one), its CPU stops spilling.
 */
static void spill_failed(struct ring *r, struct ring_cpu *rc, int err)
{
	rc->st.bytes -= rc->st.bytes % r->subbuf_size;
	pthread_mutex_lock(&r->lock);
	if (!r->spill_err)
		r->spill_err = err;
	pthread_mutex_unlock(&r->lock);
	rc->spill_fd = -1;
}

/*
 * Room in @rc's batch for one more page: its events and its loss mark
 * (a full batch is published and another taken). False when no batch is
 * free: the caller keeps the page for later.
 */
static bool page_room(struct ring *r, struct ring_cpu *rc)
{
	struct ring_batch *b = rc->cur;

	if (b && b->n + r->page_events + 1 <= RING_BATCH_EVENTS && b->npages < RING_TAP_PAGES)
		return true;
	if (b)
		batch_publish(r, rc);
	rc->cur = batch_get(r, rc);
	return rc->cur != NULL;
}

/*
 * Decode the pages the thread read into its buffer (@len bytes, whole
 * sub-buffers) into @rc's batches; those no batch had room for are held
 * by @rc for its next pass. Returns 0, or -ENOMEM.
 */
static int pages_decode(struct ring_thread *th, struct ring_cpu *rc, size_t len)
{
	struct ring *r = th->r;
	size_t off;

	for (off = 0; off < len; off += r->subbuf_size) {
		if (!page_room(r, rc))
			break;
		page_decode(th, rc, th->buf + off, r->subbuf_size);
	}
	if (off >= len)
		return 0;
	if (!rc->held && !(rc->held = malloc(th->pipe_bytes)))
		return -ENOMEM;
	memcpy(rc->held, th->buf + off, len - off);
	rc->held_off = 0;
	rc->held_len = len - off;
	return 0;
}

/* Decode the pages @rc holds, as far as its batches have room. */
static void held_decode(struct ring_thread *th, struct ring_cpu *rc)
{
	struct ring *r = th->r;

	while (rc->held_len && page_room(r, rc)) {
		page_decode(th, rc, rc->held + rc->held_off, r->subbuf_size);
		rc->held_off += r->subbuf_size;
		rc->held_len -= r->subbuf_size;
	}
}

enum pass {
	PASS_EMPTY,	/* nothing to read */
	PASS_READ,	/* pages were read */
	PASS_FULL,	/* no batch to decode into: the rest waits (in the kernel's buffer) */
};

/*
 * The pages @rc held back, then its full sub-buffers (splice); then, when
 * none came and @partial, read() one page, full or not (@all: every page,
 * to the buffer's end). @to_now (a flush): the partial page too after full
 * ones, so that what was written before the flush (a marker) is read.
 * Returns enum pass, or a negative errno of a read.
 */
static int cpu_pass(struct ring_thread *th, struct ring_cpu *rc, bool partial, bool all,
		    bool to_now)
{
	struct ring *r = th->r;
	bool spill = r->spilling;
	size_t pages = 0;
	int ret;

	if (rc->held_len) {
		held_decode(th, rc);
		if (rc->held_len)
			return r->err ? r->err : PASS_FULL;
		pages++;
	}
	for (;;) {
		ssize_t got;

		if (!spill && !page_room(r, rc))
			return r->err ? r->err : PASS_FULL;
		got = splice(rc->fd, NULL, th->pipe[1], NULL, th->pipe_bytes,
			     SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0 && errno != EAGAIN)
				return -errno;
			break;
		}
		pages += got / r->subbuf_size;
		if (spill) {
			size_t left = got;

			rc->st.pages += got / r->subbuf_size;
			ret = rc->spill_fd >= 0 ? pipe_spill(th, rc, &left) : -EBADF;
			if (ret < 0) {
				/* what is left in the pipe is taken out: it is lost */
				if (rc->spill_fd >= 0)
					spill_failed(r, rc, ret);
				ret = pipe_read(th, left);
				if (ret < 0)
					return ret;
			}
			continue;
		}
		ret = pipe_read(th, got);
		if (!ret)
			ret = pages_decode(th, rc, got);
		if (ret < 0)
			return ret;
		if (rc->held_len)
			return PASS_FULL;
	}
	if (!partial || (pages && !to_now))
		return pages ? PASS_READ : PASS_EMPTY;
	do {
		ssize_t got;

		if (!spill && !page_room(r, rc))
			return r->err ? r->err : PASS_FULL;
		got = read(rc->fd, th->buf, r->subbuf_size);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0 && errno != EAGAIN)
				return -errno;
			break;
		}
		pages++;
		if (spill) {
			if (rc->spill_fd >= 0 && (ret = page_spill(r, rc, th->buf, got)) < 0)
				spill_failed(r, rc, ret);
			continue;
		}
		page_decode(th, rc, th->buf, got);
	} while (all);
	return pages ? PASS_READ : PASS_EMPTY;
}

/*
 * One pass over the thread's CPUs. @partial: read partial pages of the
 * CPUs that had no full one; @flush: of every CPU, up to now;
 * @draining: read each to its end and end it.
 * Returns how many of its CPUs are left to read, or a negative errno;
 * *@stalled when none of them could be read for want of a batch, *@full_some
 * when some could not.
 */
static int thread_pass(struct ring_thread *th, bool partial, bool flush, bool draining,
		       bool *stalled, bool *full_some)
{
	struct ring *r = th->r;
	int left = 0, full = 0;

	for (int i = 0; i < th->ncpus; i++) {
		struct ring_cpu *rc = th->cpus[i];
		uint64_t before = mono_now_ns();
		int ret;

		if (rc->read_out)
			continue;
		ret = cpu_pass(th, rc, partial || draining || flush, draining, flush);
		if (ret < 0)
			return ret;
		left++;
		if (ret == PASS_FULL) {
			full++;
			continue;
		}
		if (rc->cur && !rc->cur->n && !rc->cur->npages) {
			/* nothing decoded into it: back to the free ones */
			pthread_mutex_lock(&r->lock);
			batch_back(rc, rc->cur);
			pthread_mutex_unlock(&r->lock);
			rc->cur = NULL;
		}
		if (rc->cur) {
			batch_publish(r, rc);
			continue;
		}
		pthread_mutex_lock(&r->lock);
		rc->pub = rc->st;
		if (draining && ret == PASS_EMPTY) {
			/* read to its end: nothing more will come from it */
			rc->read_out = true;
			rc->ended = true;
			left--;
			published(r);
		} else if (ret == PASS_EMPTY && before > RING_SLACK_NS &&
			   before - RING_SLACK_NS > rc->reached) {
			/* drained: it will produce nothing before now, less the slack */
			rc->reached = before - RING_SLACK_NS;
			published(r);
		}
		pthread_mutex_unlock(&r->lock);
	}
	*stalled = left && full == left;
	*full_some = full > 0;
	return left;
}

/* Wait for data on the CPUs that have room, or for the wake eventfd. */
static void thread_wait(struct ring_thread *th, bool stalled)
{
	struct ring *r = th->r;
	int n = 0;

	pthread_mutex_lock(&r->lock);
	for (int i = 0; i < th->ncpus; i++) {
		struct ring_cpu *rc = th->cpus[i];

		if (rc->read_out)
			continue;
		if (!has_room_locked(r, rc)) {
			/* room is announced through the wake eventfd */
			th->want_wake = true;
			continue;
		}
		if (!stalled) {
			th->pfd[n] = (struct pollfd){ .fd = rc->fd, .events = POLLIN };
			th->pcpu[n++] = rc;
		}
	}
	pthread_mutex_unlock(&r->lock);
	th->pfd[n] = (struct pollfd){ .fd = th->wake_fd, .events = POLLIN };
	if (poll(th->pfd, n + 1, RING_POLL_MS) > 0 && (th->pfd[n].revents & POLLIN)) {
		uint64_t v;

		(void)!read(th->wake_fd, &v, sizeof(v));
	}
}

static void *thread_main(void *arg)
{
	struct ring_thread *th = arg;
	struct ring *r = th->r;

	for (;;) {
		bool draining, flush, stalled, full;
		unsigned int gen;
		int left;

		pthread_mutex_lock(&r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			break;
		}
		draining = r->draining;
		gen = r->flush_gen;
		pthread_mutex_unlock(&r->lock);
		flush = gen != th->flush_done;
		/* a recording takes whole sub-buffers only, until a flush or the end */
		left = thread_pass(th, !r->spilling, flush, draining, &stalled, &full);
		if (left < 0) {
			pthread_mutex_lock(&r->lock);
			if (!r->err)
				r->err = left;
			published(r);
			pthread_mutex_unlock(&r->lock);
			break;
		}
		/* a CPU left unread for want of a batch: the flush is not answered */
		if (flush && !full) {
			pthread_mutex_lock(&r->lock);
			th->flush_done = gen;
			published(r);
			pthread_mutex_unlock(&r->lock);
		}
		if (!left)
			break;
		/* draining, the buffers are read without a wait while there is room */
		if (!draining || stalled)
			thread_wait(th, draining);
	}
	pthread_mutex_lock(&r->lock);
	th->exited = true;
	published(r);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ---- starting and stopping the threads ------------------------------------ */

static void thread_destroy(struct ring_thread *th)
{
	for (int i = 0; i < th->ncpus; i++)
		th->cpus[i]->th = NULL;
	if (th->wake_fd >= 0)
		close(th->wake_fd);
	if (th->pipe[0] >= 0)
		close(th->pipe[0]);
	if (th->pipe[1] >= 0)
		close(th->pipe[1]);
	free(th->buf);
	free(th->cpus);
	free(th->pfd);
	free(th->pcpu);
	decoder_free(th->dec);
}

static void threads_join(struct ring *r)
{
	for (int t = 0; t < r->nthreads; t++) {
		struct ring_thread *th = &r->th[t];

		if (th->started) {
			fd_signal(th->wake_fd);
			pthread_join(th->tid, NULL);
		}
		thread_destroy(th);
	}
	free(r->th);
	r->th = NULL;
	r->running = false;
}

/* Set one thread up: its CPUs, eventfd, pipe, buffer and decoder; 0 or -errno. */
static int thread_init(struct ring *r, struct ring_thread *th, int index, int n)
{
	int pipe_size = RING_PIPE_PAGES * r->subbuf_size;

	th->r = r;
	th->wake_fd = -1;
	th->pipe[0] = th->pipe[1] = -1;
	th->flush_done = r->flush_gen;
	th->cpus = calloc(r->ncpu, sizeof(*th->cpus));
	th->pfd = calloc(r->ncpu + 1, sizeof(*th->pfd));
	th->pcpu = calloc(r->ncpu, sizeof(*th->pcpu));
	if (!th->cpus || !th->pfd || !th->pcpu)
		return -ENOMEM;
	for (int c = 0, k = 0; c < r->ncpu; c++) {
		if (r->cpu[c].fd < 0)
			continue;
		if (k++ % n == index) {
			th->cpus[th->ncpus++] = &r->cpu[c];
			r->cpu[c].th = th;
		}
	}
	th->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (th->wake_fd < 0 || pipe2(th->pipe, O_CLOEXEC) < 0)
		return -errno;
	/* a larger pipe moves more sub-buffers per splice; the default will do */
	if (fcntl(th->pipe[0], F_SETPIPE_SZ, pipe_size) >= pipe_size)
		th->pipe_bytes = pipe_size;
	else
		th->pipe_bytes = fcntl(th->pipe[0], F_GETPIPE_SZ) > 0 ?
				 (size_t)fcntl(th->pipe[0], F_GETPIPE_SZ) : (size_t)r->subbuf_size;
	th->pipe_bytes -= th->pipe_bytes % r->subbuf_size;
	if (!th->pipe_bytes)
		th->pipe_bytes = r->subbuf_size;
	th->buf = malloc(th->pipe_bytes > (size_t)r->subbuf_size ? th->pipe_bytes
								 : (size_t)r->subbuf_size);
	if (!th->buf)
		return -ENOMEM;
	if (!r->spilling) {
		th->dec = decoder_alloc(r->s->tep);
		if (!th->dec)
			return -errno ? -errno : -ENOMEM;
	}
	return 0;
}

/* Start the threads (again, after they ended); 0 or -errno. */
static int threads_start(struct ring *r)
{
	sigset_t all, old;
	int n = threads_wanted(r), ret = 0;

	if (r->running)
		return 0;
	for (int c = 0; c < r->ncpu; c++) {
		struct ring_cpu *rc = &r->cpu[c];

		if (rc->fd < 0)
			continue;
		rc->read_out = rc->ended = false;
		rc->merge_ended = false;
	}
	r->stop = false;
	r->th = calloc(n, sizeof(*r->th));
	if (!r->th)
		return -ENOMEM;
	r->nthreads = n;
	r->running = true;
	for (int t = 0; t < n && !ret; t++)
		ret = thread_init(r, &r->th[t], t, n);
	if (ret) {
		threads_join(r);
		return ret;
	}
	/* signals go to the caller's thread, whose wait they interrupt */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int t = 0; t < n && !ret; t++) {
		ret = -pthread_create(&r->th[t].tid, NULL, thread_main, &r->th[t]);
		r->th[t].started = !ret;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ret)
		debug_msg("%d threads read the buffers of %d CPUs, in at most %zu KiB", n, r->ncpu,
			  ring_memory(r) >> 10);
	if (ret) {
		pthread_mutex_lock(&r->lock);
		r->stop = true;
		pthread_mutex_unlock(&r->lock);
		threads_join(r);
	}
	return ret;
}

/* Wake every thread (a request, or the stop). */
static void threads_wake(struct ring *r)
{
	for (int t = 0; t < r->nthreads && r->th; t++)
		fd_signal(r->th[t].wake_fd);
}

void ring_stop(struct ring *r)
{
	pthread_mutex_lock(&r->lock);
	r->draining = true;
	pthread_mutex_unlock(&r->lock);
	if (!r->running && threads_start(r) < 0) {
		/* no thread to read: the rest stays unread, the end is now */
		for (int c = 0; c < r->ncpu; c++)
			r->cpu[c].ended = r->cpu[c].read_out = true;
		return;
	}
	threads_wake(r);
}

/* ---- the caller's side ----------------------------------------------------- */

/* Hand the pages of @b to the tap; 0 or -EIO. */
static int tap_pages(struct ring *r, int cpu, const struct ring_batch *b)
{
	for (unsigned int i = 0; r->tap && i < b->npages; i++)
		if (r->tap(r->tap_ctx, cpu, b->pages + (size_t)i * r->subbuf_size,
			   r->subbuf_size) < 0)
			return -EIO;
	return 0;
}

/* Copy @b's events into @rc's merge stream (its lent batch copied along, and freed). */
static int batch_copy(struct ring *r, struct ring_cpu *rc, const struct ring_batch *b)
{
	unsigned int done = 0;

	while (done < b->n) {
		unsigned int room, k;
		struct blk_event *slot = merge_reserve(r->m, rc->cpu, &room);

		if (!slot)
			return -ENOMEM;
		k = b->n - done < room ? b->n - done : room;
		memcpy(slot, b->ev + done, k * sizeof(*slot));
		merge_commit_n(r->m, rc->cpu, k, false);
		done += k;
	}
	return 0;
}

/*
 * Take what the threads published: under the lock, hand back the batches
 * the merge is done with and take the next ones, tell the merge how far
 * idle CPUs have reached and which ended; then, unlocked, tap and queue.
 * @copy: take every queued batch, copying where a stream is busy
 * (ring_flush()); else lend one per CPU whose stream is empty.
 * Returns the events queued, or a negative errno.
 */
static int take(struct ring *r, bool copy)
{
	struct ring_batch *got[RING_BATCHES];
	int total = 0;

	for (int c = 0; c < r->ncpu; c++) {
		struct ring_cpu *rc = &r->cpu[c];
		unsigned int ngot = 0;
		bool idle;
		int ret = 0;

		if (rc->merge_ended && !rc->len && !rc->lent)
			continue;
		idle = !merge_stream_len(r->m, c);
		pthread_mutex_lock(&r->lock);
		if (rc->lent && idle) {
			batch_back(rc, rc->lent);
			rc->lent = NULL;
		}
		while (rc->len && (copy || (idle && !rc->lent && !ngot))) {
			got[ngot++] = rc->q[rc->head];
			rc->head = (rc->head + 1) % RING_BATCHES;
			rc->len--;
		}
		if (!ngot && !rc->len && idle && !rc->lent) {
			if (rc->ended && !rc->merge_ended) {
				merge_end(r->m, c);
				rc->merge_ended = true;
			} else if (!rc->ended) {
				merge_reached(r->m, c, rc->reached);
			}
		}
		pthread_mutex_unlock(&r->lock);
		for (unsigned int i = 0; i < ngot && !ret; i++) {
			struct ring_batch *b = got[i];

			ret = tap_pages(r, c, b);
			if (ret)
				break;
			total += b->n;
			if (!copy && !rc->lent && !merge_stream_len(r->m, c)) {
				ret = merge_lend(r->m, c, b->ev, b->n, b->ordered);
				rc->lent = b;
				got[i] = NULL;
			} else {
				ret = batch_copy(r, rc, b);
				/* the merge copied a lent batch's events into its own ring */
				if (!ret && rc->lent) {
					pthread_mutex_lock(&r->lock);
					batch_back(rc, rc->lent);
					pthread_mutex_unlock(&r->lock);
					rc->lent = NULL;
				}
			}
		}
		pthread_mutex_lock(&r->lock);
		for (unsigned int i = 0; i < ngot; i++)
			if (got[i])
				batch_back(rc, got[i]);
		pthread_mutex_unlock(&r->lock);
		if (ret < 0)
			return ret;
	}
	return total;
}

/*
 * Before the caller waits: a CPU with nothing queued bounds the merge at
 * the last time its thread found it empty, and that thread sleeps until
 * its buffer passes buffer_percent or RING_POLL_MS pass, while the other
 * CPUs' threads stop for want of batches. Wake the threads of such CPUs
 * for a pass (a partial page, or "reached now"), at most every
 * RING_POKE_NS each.
 */
static void poke_idle(struct ring *r)
{
	uint64_t now = mono_now_ns();

	for (int c = 0; c < r->ncpu; c++) {
		struct ring_cpu *rc = &r->cpu[c];
		struct ring_thread *th = rc->th;

		if (!th || rc->len || rc->ended || merge_stream_len(r->m, c) ||
		    now - th->poked < RING_POKE_NS)
			continue;
		th->poked = now;
		fd_signal(th->wake_fd);
	}
}

/* Under the lock: whether a batch is queued for a stream the merge has emptied. */
static bool takeable(const struct ring *r)
{
	for (int c = 0; c < r->ncpu; c++)
		if (r->cpu[c].len && !merge_stream_len(r->m, c))
			return true;
	return false;
}

/* Join the threads once every one has left (they leave at their CPUs' end). */
static void reap(struct ring *r)
{
	bool all = r->running;

	pthread_mutex_lock(&r->lock);
	for (int t = 0; all && t < r->nthreads; t++)
		all = r->th[t].exited;
	pthread_mutex_unlock(&r->lock);
	if (all)
		threads_join(r);
}

int ring_read(struct ring *r, int timeout_ms)
{
	int ret;

	if (!r->running && !r->draining) {
		ret = threads_start(r);
		if (ret < 0)
			return ret;
	}
	pthread_mutex_lock(&r->lock);
	if (r->seen_gen == r->pub_gen && timeout_ms > 0 && !r->err && !takeable(r)) {
		poke_idle(r);
		r->want_data = true;
		pthread_mutex_unlock(&r->lock);
		fd_wait(r->data_fd, timeout_ms);
		pthread_mutex_lock(&r->lock);
		r->want_data = false;
	}
	r->seen_gen = r->pub_gen;
	ret = r->err;
	pthread_mutex_unlock(&r->lock);
	if (ret < 0)
		return ret;
	if (r->spilling) {
		/* nothing to merge: the threads wrote the pages */
		if (r->draining && r->running)
			reap(r);
		return 0;
	}
	ret = take(r, false);
	if (r->draining && r->running)
		reap(r);
	return ret;
}

int ring_flush(struct ring *r)
{
	unsigned int gen;
	int total = 0, ret;

	if (!r->running && !r->draining) {
		ret = threads_start(r);
		if (ret < 0)
			return ret;
	}
	pthread_mutex_lock(&r->lock);
	gen = ++r->flush_gen;
	pthread_mutex_unlock(&r->lock);
	threads_wake(r);
	for (;;) {
		bool all = true;

		pthread_mutex_lock(&r->lock);
		for (int t = 0; t < r->nthreads && r->th; t++)
			all &= r->th[t].flush_done == gen || r->th[t].exited;
		ret = r->err;
		if (!all)
			r->want_data = true;
		pthread_mutex_unlock(&r->lock);
		if (ret < 0)
			return ret;
		/* what was queued before the answers is all of it */
		if (!r->spilling) {
			ret = take(r, true);
			if (ret < 0)
				return ret;
			total += ret;
		}
		if (all)
			return total;
		if (!fd_wait(r->data_fd, RING_POLL_MS))
			return total;	/* a signal: the caller looks at its flags */
	}
}

bool ring_done(struct ring *r)
{
	bool done = !r->running;

	pthread_mutex_lock(&r->lock);
	for (int c = 0; c < r->ncpu && done; c++)
		done = r->spilling ? r->cpu[c].ended : r->cpu[c].merge_ended;
	pthread_mutex_unlock(&r->lock);
	return done;
}

int ring_spill_error(struct ring *r)
{
	int err;

	pthread_mutex_lock(&r->lock);
	err = r->spill_err;
	pthread_mutex_unlock(&r->lock);
	return err;
}

const struct source_stats *ring_stats(struct ring *r)
{
	pthread_mutex_lock(&r->lock);
	for (int c = 0; c < r->ncpu; c++) {
		struct source_cpu_stats *cs = &r->st.cpu[c];
		uint64_t overrun = cs->overrun, dropped = cs->dropped;

		*cs = r->cpu[c].pub;
		cs->overrun = overrun;
		cs->dropped = dropped;
	}
	pthread_mutex_unlock(&r->lock);
	for (int c = 0; c < r->ncpu; c++) {
		struct session_cpu_stats st;

		if (session_cpu_stats(r->s, c, &st) == 0) {
			r->st.cpu[c].overrun = st.overrun;
			r->st.cpu[c].dropped = st.dropped;
			/* spliced pages are not walked: the kernel counts what was read */
			if (r->spilling)
				r->st.cpu[c].events = st.read_events;
		}
	}
	return &r->st;
}
