// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btt-data.c - btt's plotting files (blktrace 1.2's latency.c, aqd.c,
 * seek.c and bno_dump.c): the same names and printf formats, times in
 * seconds from the trace's first event. A file is made when its first row
 * comes, so a device with no reads has no _r file, as with btt.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/btt-data.h"

struct data_file {
	uint32_t dev;
	char *path;		/* the final name; written as path.partial */
	FILE *fp;
};

struct btt_data {
	char *dir;
	struct data_file *f;
	size_t n, cap;
	int err;
	const char *failed;
	const struct btt *b;
	struct btt_sink sink;
};

struct btt_data *btt_data_alloc(const char *dir)
{
	struct btt_data *w;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->dir = strdup(dir);
	if (!w->dir) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	return w;
}

/* The file PREFIX_MAJ,MIN_SUFFIX.dat of @dev, opened at its first row. */
static FILE *file_of(struct btt_data *w, uint32_t dev, const char *prefix, const char *suffix)
{
	char name[256], *partial;
	struct data_file *f;

	snprintf(name, sizeof(name), "%s/%s_%u,%u%s.dat", w->dir, prefix, KDEV_MAJOR(dev),
		 KDEV_MINOR(dev), suffix);
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->f[i].path, name))
			return w->f[i].fp;
	if (w->err)
		return NULL;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		struct data_file *nf = realloc(w->f, cap * sizeof(*nf));

		if (!nf) {
			w->err = -ENOMEM;
			return NULL;
		}
		w->f = nf;
		w->cap = cap;
	}
	f = &w->f[w->n];
	f->dev = dev;
	f->path = strdup(name);
	if (!f->path || asprintf(&partial, "%s.partial", name) < 0) {
		free(f->path);
		w->err = -ENOMEM;
		return NULL;
	}
	f->fp = fopen(partial, "w");
	free(partial);
	if (!f->fp) {
		w->err = -errno;
		w->failed = f->path;
		w->n++;
		return NULL;
	}
	w->n++;
	return f->fp;
}

static inline double secs(const struct btt_data *w, uint64_t ts)
{
	uint64_t g = btt_genesis(w->b);

	return ts > g ? (double)(ts - g) / 1e9 : 0.0;
}

static void on_latency(void *ctx, uint32_t dev, enum btt_lat kind, uint64_t ts, uint64_t lat)
{
	static const char *const names[] = { "d2c", "q2c", "q2d" };
	struct btt_data *w = ctx;
	char suffix[8];
	FILE *fp;

	snprintf(suffix, sizeof(suffix), "_%s", names[kind]);
	fp = file_of(w, dev, names[kind], suffix);
	if (fp)
		fprintf(fp, "%lf %lf\n", secs(w, ts), (double)lat / 1e9);
}

static void on_aqd(void *ctx, uint32_t dev, uint64_t ts, unsigned int from, unsigned int to)
{
	struct btt_data *w = ctx;
	FILE *fp = file_of(w, dev, "aqd", "_aqd");

	if (fp)
		fprintf(fp, "%lf %u\n%lf %u\n", secs(w, ts), from, secs(w, ts), to);
}

static void on_seek(void *ctx, uint32_t dev, bool d2d, uint64_t ts, int64_t dist, bool read)
{
	struct btt_data *w = ctx;
	char rw = read ? 'r' : 'w';
	char suffix[16];
	FILE *fp;

	snprintf(suffix, sizeof(suffix), "_%s_%c", d2d ? "d2d" : "q2q", rw);
	fp = file_of(w, dev, "seek", suffix);
	if (fp)
		fprintf(fp, "%15.9lf %13" PRId64 " %c\n", secs(w, ts), dist, rw);
	snprintf(suffix, sizeof(suffix), "_%s_c", d2d ? "d2d" : "q2q");
	fp = file_of(w, dev, "seek", suffix);
	if (fp)
		fprintf(fp, "%15.9lf %13" PRId64 " %c\n", secs(w, ts), dist, rw);
}

static void on_bno(void *ctx, uint32_t dev, uint64_t ts, uint64_t start, uint64_t end, bool read)
{
	struct btt_data *w = ctx;
	FILE *fp = file_of(w, dev, "bno", read ? "_r" : "_w");

	if (fp)
		fprintf(fp, "%15.9lf %" PRIu64 " %" PRIu64 "\n", secs(w, ts), start, end);
	fp = file_of(w, dev, "bno", "_c");
	if (fp)
		fprintf(fp, "%15.9lf %" PRIu64 " %" PRIu64 "\n", secs(w, ts), start, end);
}

const struct btt_sink *btt_data_sink(struct btt_data *w, const struct btt *b)
{
	w->b = b;
	w->sink = (struct btt_sink){ .latency = on_latency, .aqd = on_aqd, .seek = on_seek,
				     .bno = on_bno, .ctx = w };
	return &w->sink;
}

int btt_data_commit(struct btt_data *w)
{
	int ret = w->err;

	for (size_t i = 0; i < w->n; i++) {
		struct data_file *f = &w->f[i];
		char *partial;

		if (!f->fp)
			continue;
		if ((ferror(f->fp) | fclose(f->fp)) && !ret) {
			ret = -EIO;
			w->failed = f->path;
		}
		f->fp = NULL;
		if (ret || asprintf(&partial, "%s.partial", f->path) < 0)
			continue;
		if (rename(partial, f->path) < 0 && !ret) {
			ret = -errno;
			w->failed = f->path;
		}
		free(partial);
	}
	w->err = ret;
	return ret < 0 ? ret : (int)w->n;
}

const char *btt_data_failed(const struct btt_data *w)
{
	return w->failed;
}

void btt_data_free(struct btt_data *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++) {
		if (w->f[i].fp) {
			char *partial;

			fclose(w->f[i].fp);
			if (asprintf(&partial, "%s.partial", w->f[i].path) >= 0) {
				unlink(partial);
				free(partial);
			}
		}
		free(w->f[i].path);
	}
	free(w->f);
	free(w->dir);
	free(w);
}
