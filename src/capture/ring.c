// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ring.c - reading the per-CPU raw ring buffers of a live session.
 *
 * One poll() over every CPU's trace_pipe_raw: the kernel wakes it when a
 * CPU's buffer passes buffer_percent. Full sub-buffers are then spliced in
 * batches (tracefs_cpu_buffered_read); a CPU that filled no sub-buffer in
 * this pass is read once with read(), which hands out a partial page, so
 * low rates show up promptly and a quiet CPU can be declared "reached" for
 * the merge. Each sub-buffer is walked with pagewalk and decoded in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "capture/ring.h"
#include "format/pagewalk.h"

/* Events may still be in flight on a CPU for this long after "now". */
#define RING_SLACK_NS 2000000ULL

struct ring_cpu {
	int fd;
	struct tracefs_cpu *tcpu;
	struct pagewalk walk;
};

struct ring {
	struct session *s;
	struct decoder *d;
	struct merge *m;
	int ncpu;
	int subbuf_size;
	void *page;
	struct ring_cpu *cpu;
	struct pollfd *pfd;
	struct source_stats st;
	/* recording: raw pages go to the sink, undecoded */
	ring_page_fn sink;
	void *sink_ctx;
	/* the flight recorder: a copy of every page, decoded all the same */
	ring_page_fn tap;
	void *tap_ctx;
};

struct ring *ring_open(struct session *s, struct decoder *d, struct merge *m)
{
	bool big_endian;
	int long_size;
	struct ring *r;
	int err = ENOMEM;

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->s = s;
	r->d = d;
	r->m = m;
	r->ncpu = s->ncpu;
	r->subbuf_size = tep_get_sub_buffer_size(s->tep);
	if (r->subbuf_size <= 0)
		r->subbuf_size = getpagesize();
	r->page = malloc(r->subbuf_size);
	r->cpu = calloc(r->ncpu, sizeof(*r->cpu));
	r->pfd = calloc(r->ncpu, sizeof(*r->pfd));
	r->st.ncpu = r->ncpu;
	r->st.live = true;
	r->st.cpu = calloc(r->ncpu, sizeof(*r->st.cpu));
	if (!r->page || !r->cpu || !r->pfd || !r->st.cpu)
		goto fail;
	big_endian = tep_is_local_bigendian(s->tep);
	long_size = tep_get_header_page_size(s->tep) == 8 ? 8 : 4;

	for (int c = 0; c < r->ncpu; c++)
		r->cpu[c].fd = -1;
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
			if (errno == ENOENT)
				continue;
			err = errno;
			goto fail;
		}
		rc->tcpu = tracefs_cpu_alloc_fd(rc->fd, r->subbuf_size, true);
		if (!rc->tcpu)
			goto fail;
		pagewalk_init(&rc->walk, long_size, big_endian);
		r->pfd[c].fd = rc->fd;
		r->pfd[c].events = POLLIN;
	}
	return r;
fail:
	ring_close(r);
	errno = err;
	return NULL;
}

void ring_close(struct ring *r)
{
	if (!r)
		return;
	if (r->cpu) {
		for (int c = 0; c < r->ncpu; c++) {
			if (r->cpu[c].tcpu)
				tracefs_cpu_free_fd(r->cpu[c].tcpu);
			if (r->cpu[c].fd >= 0)
				close(r->cpu[c].fd);
		}
	}
	free(r->cpu);
	free(r->pfd);
	free(r->page);
	free(r->st.cpu);
	free(r);
}

/* Decode every record of one sub-buffer into the merge. */
static int ring_page(struct ring *r, int cpu, void *page, int size)
{
	struct ring_cpu *rc = &r->cpu[cpu];
	struct source_cpu_stats *cs = &r->st.cpu[cpu];
	const void *rec;
	unsigned int len;
	uint64_t ts;
	int n = 0;

	/* a partial read still fills the sub-buffer's header and records */
	if (pagewalk_load(&rc->walk, page, r->subbuf_size) < 0) {
		cs->malformed++;
		return 0;
	}
	cs->pages++;
	cs->bytes += size;
	if (rc->walk.missed > 0)
		cs->missed += rc->walk.missed;
	else if (rc->walk.missed < 0)
		cs->missed_unknown++;
	if (r->tap) {
		/* a partial read leaves the rest of the buffer as the last page had it */
		if (size < r->subbuf_size)
			memset((char *)page + size, 0, r->subbuf_size - size);
		if (r->tap(r->tap_ctx, cpu, page, r->subbuf_size) < 0)
			return -EIO;
	}
	if (r->sink) {
		/* recorded as is; the records are only counted, not decoded */
		while (pagewalk_next(&rc->walk, &ts, &len))
			n++;
		cs->events += n;
		if (rc->walk.malformed)
			cs->malformed++;
		/* a partial read leaves the rest of the buffer as the last page had it */
		if (size < r->subbuf_size)
			memset((char *)page + size, 0, r->subbuf_size - size);
		return r->sink(r->sink_ctx, cpu, page, r->subbuf_size) < 0 ? -EIO : n;
	}

	while ((rec = pagewalk_next(&rc->walk, &ts, &len))) {
		/* decoded in place, into the merge's own slot */
		struct blk_event *ev = merge_slot(r->m, cpu);
		int ret;

		if (!ev)
			return -ENOMEM;
		ret = decoder_decode(r->d, rec, len, ts, cpu, ev);
		if (ret == 0) {
			cs->other++;
			continue;
		}
		if (ret < 0) {
			cs->malformed++;
			continue;
		}
		cs->events++;
		merge_commit(r->m, cpu);
		n++;
	}
	if (rc->walk.malformed)
		cs->malformed++;
	return n;
}

/* Splice full sub-buffers of one CPU; returns events, or -errno. */
static int ring_cpu_full(struct ring *r, int cpu, int *pages)
{
	int n = 0;

	*pages = 0;
	for (;;) {
		int got = tracefs_cpu_buffered_read(r->cpu[cpu].tcpu, r->page, true);
		int ret;

		if (got <= 0)
			return (got < 0 && errno != EAGAIN && errno != EINTR) ? -errno : n;
		(*pages)++;
		ret = ring_page(r, cpu, r->page, got);
		if (ret < 0)
			return ret;
		n += ret;
	}
}

/* read() one page, partial or not; returns events, 0 when empty, or -errno. */
static int ring_cpu_partial(struct ring *r, int cpu, bool *empty)
{
	int got = tracefs_cpu_read(r->cpu[cpu].tcpu, r->page, true);

	*empty = got <= 0;
	if (got < 0)
		return (errno == EAGAIN || errno == EINTR) ? 0 : -errno;
	if (got == 0)
		return 0;
	return ring_page(r, cpu, r->page, got);
}

int ring_read(struct ring *r, int timeout_ms)
{
	int total = 0;
	int ret;

	ret = poll(r->pfd, r->ncpu, timeout_ms);
	if (ret < 0 && errno != EINTR)
		return -errno;

	for (int c = 0; c < r->ncpu; c++) {
		uint64_t before;
		bool empty;
		int pages;

		if (!r->cpu[c].tcpu)
			continue;
		before = mono_now_ns();
		ret = ring_cpu_full(r, c, &pages);
		if (ret < 0)
			return ret;
		total += ret;
		/* a recording takes whole sub-buffers only, until the end */
		if (pages || r->sink)
			continue;
		ret = ring_cpu_partial(r, c, &empty);
		if (ret < 0)
			return ret;
		total += ret;
		if (empty && before > RING_SLACK_NS)
			merge_reached(r->m, c, before - RING_SLACK_NS);
	}
	return total;
}

int ring_flush(struct ring *r)
{
	int total = 0;

	for (int c = 0; c < r->ncpu; c++) {
		int pages, ret;
		bool empty = false;

		if (!r->cpu[c].tcpu)
			continue;
		ret = ring_cpu_full(r, c, &pages);
		if (ret < 0)
			return ret;
		total += ret;
		while (!empty) {
			ret = ring_cpu_partial(r, c, &empty);
			if (ret < 0)
				return ret;
			total += ret;
		}
	}
	return total;
}

void ring_set_page_sink(struct ring *r, ring_page_fn fn, void *ctx)
{
	r->sink = fn;
	r->sink_ctx = ctx;
}

void ring_set_page_tap(struct ring *r, ring_page_fn fn, void *ctx)
{
	r->tap = fn;
	r->tap_ctx = ctx;
}

int ring_subbuf_size(const struct ring *r)
{
	return r->subbuf_size;
}

const struct source_stats *ring_stats(struct ring *r)
{
	for (int c = 0; c < r->ncpu; c++) {
		struct session_cpu_stats st;

		if (session_cpu_stats(r->s, c, &st) == 0) {
			r->st.cpu[c].overrun = st.overrun;
			r->st.cpu[c].dropped = st.dropped;
		}
	}
	return &r->st;
}
