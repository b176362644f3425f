// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * chunkring.c - the chunks of one compressed stream, decompressed ahead of
 * its walk by any thread (see chunkring.h).
 *
 * Chunk n of the stream goes to slot n % slots. Claiming a chunk reads its
 * header (datpages_chunk_next(): every size checked) and reserves its slot,
 * under the lock; decompressing it is done outside, into the slot's buffer,
 * which then belongs to the claimer alone. The walker holds the last chunk
 * it took until it takes the next, so a chunk is claimed only when it is
 * fewer than @slots ahead of that one.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "format/chunkring.h"
#include "format/datpages.h"

enum slot_state {
	SLOT_FREE,
	SLOT_BUSY,	/* claimed, being decompressed */
	SLOT_READY,
	SLOT_BAD,	/* its data did not decompress, or no memory for it */
};

struct slot {
	uint8_t *buf;
	size_t cap;
	size_t len;
	enum slot_state state;
};

struct chunkring {
	pthread_mutex_t lock;
	pthread_cond_t done;		/* a slot left SLOT_BUSY */
	struct datpages cur;		/* the headers: where the next claim starts */
	uint64_t claimed;		/* chunks claimed */
	uint64_t taken;			/* chunks the walker took (it holds the last) */
	bool ended;			/* no chunk left to claim: @cur says why */
	unsigned int nslots;
	struct slot slot[];
};

struct chunkring *chunkring_alloc(const uint8_t *map, const struct datfile_layout *layout,
				  const struct datfile_stream *ds, unsigned int slots)
{
	struct chunkring *r;

	if (slots < 2 || !ds->compressed) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r) + slots * sizeof(r->slot[0]));
	if (!r)
		return NULL;
	/* a cursor only: it reads headers, never decompresses */
	r->cur = (struct datpages){ .map = map, .fd = -1, .layout = layout, .ds = ds };
	r->nslots = slots;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->done, NULL);
	return r;
}

/*
 * Under the lock: reserve the next chunk's slot and find its bytes; NULL
 * when there is none to claim (the ring full, or the headers ended).
 */
static struct slot *claim(struct chunkring *r, const uint8_t **src, uint32_t *zsize,
			  uint32_t *usize)
{
	struct slot *s;

	/* the walker's chunk, taken - 1, keeps its slot */
	if (r->ended || r->claimed + 1 >= r->taken + r->nslots + (r->taken == 0))
		return NULL;
	if (datpages_chunk_next(&r->cur, src, zsize, usize) <= 0) {
		r->ended = true;
		return NULL;
	}
	/* the compressed bytes before this chunk's are being or have been read */
	datpages_release(&r->cur);
	s = &r->slot[r->claimed++ % r->nslots];
	s->state = SLOT_BUSY;
	return s;
}

/* Outside the lock: decompress into @s, then mark it and wake the walker. */
static void decompress(struct chunkring *r, struct slot *s, struct unzip *u, const uint8_t *src,
		       uint32_t zsize, uint32_t usize)
{
	enum slot_state state = SLOT_READY;

	if (usize > s->cap) {
		uint8_t *n = realloc(s->buf, usize);

		if (n) {
			s->buf = n;
			s->cap = usize;
		}
	}
	/* no memory: fatal for the stream, as for a walk on its own (datpages.c) */
	if (usize > s->cap || unzip_block(u, src, zsize, s->buf, usize) < 0)
		state = SLOT_BAD;
	s->len = usize;
	pthread_mutex_lock(&r->lock);
	s->state = state;
	pthread_cond_broadcast(&r->done);
	pthread_mutex_unlock(&r->lock);
}

int chunkring_fill(struct chunkring *r, struct unzip *u)
{
	uint32_t zsize, usize;
	const uint8_t *src;
	struct slot *s;

	pthread_mutex_lock(&r->lock);
	s = claim(r, &src, &zsize, &usize);
	pthread_mutex_unlock(&r->lock);
	if (!s)
		return 0;
	decompress(r, s, u, src, zsize, usize);
	return 1;
}

int chunkring_take(struct chunkring *r, struct unzip *u, const uint8_t **chunk, size_t *len)
{
	uint32_t zsize, usize;
	const uint8_t *src;
	struct slot *s;
	int ret;

	pthread_mutex_lock(&r->lock);
	if (r->taken == r->claimed) {
		s = claim(r, &src, &zsize, &usize);
		if (!s) {
			/* only the end of the headers stops a claim here: the ring is empty */
			ret = r->cur.corrupt ? -1 : 0;
			pthread_mutex_unlock(&r->lock);
			return ret;
		}
		pthread_mutex_unlock(&r->lock);
		decompress(r, s, u, src, zsize, usize);
		pthread_mutex_lock(&r->lock);
	}
	s = &r->slot[r->taken % r->nslots];
	while (s->state == SLOT_BUSY)
		pthread_cond_wait(&r->done, &r->lock);
	ret = s->state == SLOT_READY ? 1 : -1;
	if (ret > 0) {
		/* the one held before is free from here */
		if (r->taken)
			r->slot[(r->taken - 1) % r->nslots].state = SLOT_FREE;
		r->taken++;
		*chunk = s->buf;
		*len = s->len;
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int chunkring_take_from(void *from, struct unzip *u, const uint8_t **chunk, size_t *len)
{
	return chunkring_take(from, u, chunk, len);
}

void chunkring_free(struct chunkring *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->nslots; i++)
		free(r->slot[i].buf);
	pthread_cond_destroy(&r->done);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
