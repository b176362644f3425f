// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kindscan.c - whether a mapped trace.dat holds a record of some kinds,
 * its pages shared among threads.
 *
 * The answer needs no time order, so no merge: each CPU stream is cut into
 * runs of pages that the threads take in turn, walk and decode (the kinds
 * asked for only), and the first record found stops them all. A thread per
 * stream would not do: the worker of a loop device puts most of a
 * recording on one CPU (92% of the pages of the report benchmark's), and
 * in a compressed file every page of it must be decompressed to be looked
 * at.
 *
 * The answer is the one a read in time order gives: a read ends a stream
 * at its first damaged chunk, so a record counts only when every run
 * before its own in its stream was walked whole without damage.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "format/datpages.h"
#include "format/decode.h"
#include "format/kindscan.h"
#include "format/pagewalk.h"

/*
 * Runs per thread: enough that the threads end together when one stream
 * holds most pages; each run costs a walk of the chunk headers before it
 * and one chunk decompressed twice.
 */
#define RUNS_PER_JOB 8

enum run_state {
	RUN_TODO,
	RUN_BUSY,
	RUN_CLEAN,	/* walked whole: none there */
	RUN_FOUND,	/* a record of the kinds, before any damage */
	RUN_DAMAGED,	/* the stream's data ends in damage here, or before */
};

struct run {
	int stream;
	uint64_t first;		/* page of the stream */
	uint64_t n;
	enum run_state state;
};

struct scan {
	const uint8_t *map;
	int fd;			/* datpages_init()'s */
	const struct datfile_layout *l;
	struct tep_handle *tep;
	uint64_t kinds;
	int long_size;
	struct run *runs;	/* a stream's runs together, in page order */
	size_t nruns;
	pthread_mutex_t lock;
	/* under the lock */
	size_t next;		/* the next run to take */
	int found;
	int err;
	bool stop;		/* also read without the lock by the walks: atomic */
};

/* The runs of @r's stream before it: whether one ended in damage. */
static bool damaged_before(const struct scan *s, const struct run *r)
{
	for (const struct run *q = r - 1; q >= s->runs && q->stream == r->stream; q--)
		if (q->state == RUN_DAMAGED)
			return true;
	return false;
}

/* Whether a stream's runs are clean up to one that found a record. */
static bool answer_found(const struct scan *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		if (s->runs[i].state == RUN_FOUND)
			return true;
		/* past a run not clean, the rest of its stream does not count yet */
		if (s->runs[i].state != RUN_CLEAN)
			while (i + 1 < s->nruns && s->runs[i + 1].stream == s->runs[i].stream)
				i++;
	}
	return false;
}

/* Walk the pages of @r with @dec; its state, or -ENOMEM. */
static int run_walk(struct scan *s, struct decoder *dec, const struct run *r)
{
	const struct datfile_stream *ds = &s->l->streams[r->stream];
	int state = RUN_CLEAN;
	struct datpages dp;
	struct pagewalk w;

	if (datpages_init(&dp, s->map, s->fd, s->l, ds) < 0) {
		datpages_destroy(&dp);
		return -ENOMEM;
	}
	if (datpages_seek(&dp, r->first) < 0) {
		datpages_destroy(&dp);
		return RUN_DAMAGED;
	}
	pagewalk_init(&w, s->long_size, s->l->big_endian);
	for (uint64_t i = 0; i < r->n; i++) {
		const uint8_t *page;
		struct blk_event ev;
		unsigned int size;
		const void *rec;
		uint64_t ts;

		/* stopped: the run was not walked whole, it tells nothing */
		if (__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
			state = RUN_TODO;
			break;
		}
		page = datpages_next(&dp);
		if (!page) {
			state = dp.corrupt ? RUN_DAMAGED : RUN_CLEAN;
			break;
		}
		datpages_release(&dp);
		if (pagewalk_load(&w, page, s->l->page_size) < 0)
			continue;
		while ((rec = pagewalk_next(&w, &ts, &size)))
			if (decoder_decode(dec, rec, size, ts, ds->cpu, &ev) > 0) {
				state = RUN_FOUND;
				goto out;
			}
	}
out:
	/* the runs end in the middle of their streams: a tail kept mapped by each adds up */
	datpages_release_walked(&dp);
	datpages_destroy(&dp);
	return state;
}

struct scan_thread {
	struct scan *s;
	struct decoder *dec;	/* its own: a decoder's memo is not shared */
};

static void *scan_thread(void *arg)
{
	struct scan_thread *t = arg;
	struct scan *s = t->s;

	pthread_mutex_lock(&s->lock);
	while (!s->stop && s->next < s->nruns) {
		struct run *r = &s->runs[s->next++];
		int state;

		if (damaged_before(s, r)) {
			r->state = RUN_DAMAGED;
			continue;
		}
		r->state = RUN_BUSY;
		pthread_mutex_unlock(&s->lock);
		state = run_walk(s, t->dec, r);
		pthread_mutex_lock(&s->lock);
		if (state < 0) {
			s->err = state;
			__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
			break;
		}
		r->state = state;
		if (answer_found(s)) {
			s->found = 1;
			__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Cut every stream into runs of about @total / (@jobs * RUNS_PER_JOB) pages. */
static int runs_make(struct scan *s, int jobs)
{
	const struct datfile_layout *l = s->l;
	uint64_t *pages = calloc(l->nstreams + 1, sizeof(*pages));
	uint64_t total = 0, per;
	size_t cap = 0;

	if (!pages)
		return -ENOMEM;
	for (int i = 0; i < l->nstreams; i++) {
		struct datpages dp;

		if (datpages_init(&dp, s->map, s->fd, l, &l->streams[i]) < 0) {
			datpages_destroy(&dp);
			free(pages);
			return -ENOMEM;
		}
		pages[i] = datpages_count(&dp);
		datpages_destroy(&dp);
		total += pages[i];
	}
	/* one thread: a run per stream, each chunk decompressed once */
	per = jobs > 1 ? total / ((uint64_t)jobs * RUNS_PER_JOB) : total;
	if (per == 0)
		per = 1;
	for (int i = 0; i < l->nstreams; i++)
		cap += (pages[i] + per - 1) / per;
	s->runs = calloc(cap ? cap : 1, sizeof(*s->runs));
	if (!s->runs) {
		free(pages);
		return -ENOMEM;
	}
	for (int i = 0; i < l->nstreams; i++)
		for (uint64_t p = 0; p < pages[i]; p += per)
			s->runs[s->nruns++] = (struct run){ .stream = i, .first = p,
							    .n = pages[i] - p < per ? pages[i] - p : per };
	free(pages);
	return 0;
}

int kindscan_any(const uint8_t *map, int fd, const struct datfile_layout *l,
		 struct tep_handle *tep, uint64_t kinds, int jobs)
{
	struct scan s = { .map = map, .fd = fd, .l = l, .tep = tep, .kinds = kinds,
			  .long_size = tep_get_header_page_size(tep) == 4 ? 4 : 8 };
	struct scan_thread *threads = NULL;
	pthread_t *tids = NULL;
	int started = 0, ret;

	ret = runs_make(&s, jobs);
	if (ret < 0)
		return ret;
	if (jobs > (int)s.nruns)
		jobs = s.nruns;
	if (jobs < 1)
		jobs = 1;
	threads = calloc(jobs, sizeof(*threads));
	tids = calloc(jobs, sizeof(*tids));
	if (!threads || !tids) {
		ret = -ENOMEM;
		goto out;
	}
	/* here, not in the threads: libtraceevent's look-ups write to @tep */
	for (int t = 0; t < jobs; t++) {
		threads[t] = (struct scan_thread){ .s = &s, .dec = decoder_alloc(tep) };
		if (!threads[t].dec) {
			ret = -ENOMEM;
			goto out;
		}
		decoder_keep_kinds(threads[t].dec, kinds);
	}
	pthread_mutex_init(&s.lock, NULL);
	/* the caller's thread is the first; fewer threads if some cannot start */
	while (started < jobs - 1 &&
	       !pthread_create(&tids[started], NULL, scan_thread, &threads[started + 1]))
		started++;
	scan_thread(&threads[0]);
	for (int t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
	pthread_mutex_destroy(&s.lock);
	ret = s.found ? 1 : s.err;
out:
	for (int t = 0; threads && t < jobs; t++)
		decoder_free(threads[t].dec);
	free(threads);
	free(tids);
	free(s.runs);
	return ret;
}
