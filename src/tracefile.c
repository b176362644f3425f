// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefile.c - reading trace.dat files.
 *
 * The event formats always come from libtracecmd. The events themselves,
 * for the common version 6 file, are read by mapping each CPU's pages and
 * walking them with kbuffer, as the live path walks ring-buffer pages: an
 * allocated record per event (libtracecmd's way) costs more than the rest
 * of the work per event. Other versions (v7 sections, compression, latency
 * files) are read record by record through libtracecmd.
 *
 * A file made by "trace-cmd record -B NAME -e block" holds its events in a
 * buffer instance, not in the top-level buffer: every buffer is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <kbuffer.h>
#include <trace-cmd.h>

#include "datfile.h"
#include "merge.h"
#include "tracefile.h"
#include "util.h"

struct tracefile {
	struct tracecmd_input *handle;
	struct decoder *decoder;
	struct source_stats st;
	int cpu_cap;

	/* v6 path: the mapped file and where its pages are */
	bool mapped;
	const uint8_t *map;
	size_t map_len;
	struct datfile_layout layout;

	/* libtracecmd path: top level first, then instances */
	struct tracecmd_input **buffers;
	int nbuffers;
	blk_event_fn fn;
	void *ctx;
	int ret;
};

static int open_buffers(struct tracefile *f)
{
	int n = tracecmd_buffer_instances(f->handle);

	f->buffers = calloc(n + 1, sizeof(*f->buffers));
	if (!f->buffers)
		return -ENOMEM;
	f->buffers[f->nbuffers++] = f->handle;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(f->handle, i);

		if (b)
			f->buffers[f->nbuffers++] = b;
	}
	return 0;
}

/* Map the file and find its v6 pages; 0, -ENOTSUP (not v6), or -errno. */
static int map_file(struct tracefile *f, const char *path)
{
	struct stat sb;
	void *map;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size == 0) {
		/* a pipe or an empty file: let libtracecmd try and say no */
		close(fd);
		return sb.st_size == 0 && S_ISREG(sb.st_mode) ? -EINVAL : -ENOTSUP;
	}
	map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	f->map = map;
	f->map_len = sb.st_size;
	madvise(map, sb.st_size, MADV_SEQUENTIAL);
	ret = datfile_layout_parse(f->map, f->map_len, &f->layout);
	if (ret == 0)
		f->mapped = true;
	return ret;
}

/* Whether the file starts like a trace.dat, whatever follows. */
static bool has_magic(const char *path)
{
	static const char magic[] = "\x17\x08\x44tracing";
	char buf[sizeof(magic) - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) &&
	     memcmp(buf, magic, sizeof(buf)) == 0;
	close(fd);
	return ok;
}

struct tracefile *tracefile_open(const char *path, int *err)
{
	struct tracefile *f;
	int ret;

	f = calloc(1, sizeof(*f));
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	if (!util_debug)
		tracecmd_set_loglevel(TEP_LOG_NONE);
	ret = map_file(f, path);
	if (ret < 0 && ret != -ENOTSUP) {
		*err = ret;
		goto fail;
	}
	errno = 0;
	/* the v6 path needs only the headers: the data is read from the map */
	f->handle = f->mapped ? tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS)
			      : tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!f->handle) {
		if (errno == EACCES || errno == ENOMEM)
			*err = -errno;
		else
			*err = has_magic(path) ? -EBADMSG : -EINVAL;
		goto fail;
	}
	f->decoder = decoder_alloc(tracecmd_get_tep(f->handle));
	if (!f->decoder) {
		*err = errno == ENOMEM ? -ENOMEM : -ENODATA;
		goto fail;
	}
	if (!f->mapped && open_buffers(f) < 0) {
		*err = -ENOMEM;
		goto fail;
	}
	return f;
fail:
	tracefile_close(f);
	return NULL;
}

struct tep_handle *tracefile_tep(struct tracefile *f)
{
	return tracecmd_get_tep(f->handle);
}

const struct decoder *tracefile_decoder(struct tracefile *f)
{
	return f->decoder;
}

static struct source_cpu_stats *cpu_stats(struct tracefile *f, int cpu)
{
	if (cpu < 0)
		return NULL;
	if (cpu >= f->cpu_cap) {
		int cap = cpu + 16;
		struct source_cpu_stats *n = realloc(f->st.cpu, cap * sizeof(*n));

		if (!n)
			return NULL;
		for (int i = f->cpu_cap; i < cap; i++)
			n[i] = (struct source_cpu_stats){ 0 };
		f->st.cpu = n;
		f->cpu_cap = cap;
	}
	if (cpu >= f->st.ncpu)
		f->st.ncpu = cpu + 1;
	return &f->st.cpu[cpu];
}

/* ---- version 6: mapped pages, kbuffer, merge ---------------------------- */

struct page_stream {
	const struct datfile_stream *ds;
	struct kbuffer *kbuf;
	uint64_t next;		/* offset of the next page within the stream */
	uint64_t dropped;	/* pages before this offset are released */
	bool done;
};

/* Release mapped pages already decoded, so memory stays flat on long files. */
#define DROP_CHUNK (8ULL << 20)

static void stream_release(struct tracefile *f, struct page_stream *ps)
{
	uint64_t sys_page = (uint64_t)getpagesize();
	uint64_t start = ps->ds->offset + ps->dropped;
	uint64_t end = ps->ds->offset + ps->next;

	start = (start + sys_page - 1) & ~(sys_page - 1);
	end &= ~(sys_page - 1);
	if (end > start && end - start >= DROP_CHUNK) {
		madvise((void *)(f->map + start), end - start, MADV_DONTNEED);
		ps->dropped = end - ps->ds->offset;
	}
}

/* Decode the next page of @ps that holds block events; false at its end. */
static int stream_fill(struct tracefile *f, struct merge *m, unsigned int idx,
		       struct page_stream *ps)
{
	const struct datfile_stream *ds = ps->ds;
	struct source_cpu_stats *cs = cpu_stats(f, ds->cpu);
	uint32_t page = f->layout.page_size;

	if (!cs)
		return -ENOMEM;
	while (!ps->done && !merge_stream_len(m, idx)) {
		unsigned long long ts;
		void *rec;
		int missed;

		if (ps->next + page > ds->avail) {
			ps->done = true;
			merge_reached(m, idx, UINT64_MAX);
			break;
		}
		if (kbuffer_load_subbuffer(ps->kbuf, (void *)(f->map + ds->offset + ps->next)) < 0) {
			cs->malformed++;
			ps->next += page;
			continue;
		}
		ps->next += page;
		cs->pages++;
		cs->bytes += page;
		stream_release(f, ps);
		missed = kbuffer_missed_events(ps->kbuf);
		if (missed > 0)
			cs->missed += missed;
		else if (missed < 0)
			cs->missed_unknown++;
		for (rec = kbuffer_read_event(ps->kbuf, &ts); rec;
		     rec = kbuffer_next_event(ps->kbuf, &ts)) {
			struct blk_event ev;
			int ret = decoder_decode(f->decoder, rec, kbuffer_event_size(ps->kbuf), ts,
						 ds->cpu, &ev);

			if (ret == 0) {
				cs->other++;
			} else if (ret < 0) {
				cs->malformed++;
			} else {
				cs->events++;
				ret = merge_push(m, idx, &ev);
				if (ret < 0)
					return ret;
			}
		}
	}
	return 0;
}

static int read_mapped(struct tracefile *f, blk_event_fn fn, void *ctx)
{
	const struct datfile_layout *l = &f->layout;
	enum kbuffer_long_size lsize;
	struct page_stream *ps;
	struct merge *m = NULL;
	int ret = 0, live;

	lsize = tep_get_header_page_size(tracecmd_get_tep(f->handle)) == 4 ? KBUFFER_LSIZE_4
									     : KBUFFER_LSIZE_8;
	for (int i = 0; i < l->nstreams; i++) {
		struct source_cpu_stats *cs = cpu_stats(f, l->streams[i].cpu);

		if (!cs)
			return -ENOMEM;
		cs->truncated += l->streams[i].size - l->streams[i].avail;
	}
	if (!l->nstreams)
		return 0;
	ps = calloc(l->nstreams, sizeof(*ps));
	m = merge_alloc(l->nstreams);
	if (!ps || !m) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < l->nstreams; i++) {
		ps[i].ds = &l->streams[i];
		ps[i].kbuf = kbuffer_alloc(lsize, l->big_endian ? KBUFFER_ENDIAN_BIG
							       : KBUFFER_ENDIAN_LITTLE);
		if (!ps[i].kbuf) {
			ret = -ENOMEM;
			goto out;
		}
	}
	/* refill every stream that ran dry, release what is ordered, repeat */
	do {
		live = 0;
		for (int i = 0; i < l->nstreams; i++) {
			ret = stream_fill(f, m, i, &ps[i]);
			if (ret < 0)
				goto out;
			live += !ps[i].done;
		}
		ret = merge_drain(m, live == 0, fn, ctx);
		if (ret < 0)
			goto out;
	} while (live);
out:
	if (ps)
		for (int i = 0; i < l->nstreams; i++)
			kbuffer_free(ps[i].kbuf);
	free(ps);
	merge_free(m);
	return ret;
}

/* ---- other versions: libtracecmd's records ------------------------------ */

/* @idx counts CPUs across buffers in libtracecmd's multi-buffer walk: use rec->cpu */
static int on_record(struct tracecmd_input *h __attribute__((unused)), struct tep_record *rec,
		     int idx __attribute__((unused)), void *data)
{
	struct tracefile *f = data;
	struct source_cpu_stats *cs = cpu_stats(f, rec->cpu);
	struct blk_event ev;
	int ret;

	if (!cs) {
		f->ret = -ENOMEM;
		return -1;
	}
	if (rec->missed_events > 0)
		cs->missed += rec->missed_events;
	else if (rec->missed_events < 0)
		cs->missed_unknown++;
	ret = decoder_decode(f->decoder, rec->data, rec->size, rec->ts, rec->cpu, &ev);
	if (ret == 0) {
		cs->other++;
		return 0;
	}
	if (ret < 0) {
		cs->malformed++;
		return 0;
	}
	cs->events++;
	ret = f->fn(&ev, f->ctx);
	if (ret < 0) {
		f->ret = ret;
		return -1;
	}
	return 0;
}

static int read_records(struct tracefile *f, blk_event_fn fn, void *ctx)
{
	f->fn = fn;
	f->ctx = ctx;
	f->ret = 0;
	tracecmd_iterate_events_multi(f->buffers, f->nbuffers, on_record, f);
	return f->ret;
}

int tracefile_read(struct tracefile *f, blk_event_fn fn, void *ctx)
{
	int ncpu = f->mapped ? f->layout.ncpu : tep_get_cpus(tracecmd_get_tep(f->handle));

	/* a file whose CPU count is known has a stats line for every CPU */
	if (ncpu > 0 && !cpu_stats(f, ncpu - 1))
		return -ENOMEM;
	return f->mapped ? read_mapped(f, fn, ctx) : read_records(f, fn, ctx);
}

const struct source_stats *tracefile_stats(struct tracefile *f)
{
	return &f->st;
}

void tracefile_close(struct tracefile *f)
{
	if (!f)
		return;
	decoder_free(f->decoder);
	/* an instance handle holds a reference on the top-level one */
	for (int i = 1; i < f->nbuffers; i++)
		tracecmd_close(f->buffers[i]);
	if (f->handle)
		tracecmd_close(f->handle);
	free(f->buffers);
	datfile_layout_free(&f->layout);
	if (f->map)
		munmap((void *)f->map, f->map_len);
	free(f->st.cpu);
	free(f);
}
