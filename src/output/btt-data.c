// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btt-data.c - btt's plotting files (blktrace 1.2's latency.c, aqd.c,
 * seek.c, bno_dump.c and rstats.c): the same names and printf formats,
 * times in seconds from the trace's first event. A file is made when its
 * first row comes, so a device with no reads has no _r file, as with btt;
 * btt writes the iops and mbps files of every device it saw, and of the
 * system, whatever they hold.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/array.h"
#include "output/btt-data.h"
#include "output/outfile.h"
#include "track/btt-rate.h"

/*
 * btt opens its -m file twice, once for the D2D seeks and once for the Q2Q
 * seeks of the device, both truncating, and closes the D2D one first: the
 * two streams write over each other from offset 0, a stdio buffer at a
 * time, and the file is removed as empty at the first close when the D2D
 * stream wrote nothing and the Q2Q one has not filled a buffer yet. Doing
 * the same (@twin, the Q2Q stream, closed after @fp) gives the same file:
 * the C library sizes a stream's buffer by the filesystem it writes to
 * (glibc: its block size, at most BUFSIZ), so in one directory as btt's.
 */
struct data_file {
	char *path;		/* the final name; written as path.partial */
	FILE *fp;
	FILE *twin;
	bool gone;		/* removed as empty, as btt does */
};

/* one device's seconds of completions and its two streams of seeks */
struct rate_dev {
	uint32_t dev;
	struct btt_persec persec;
	struct btt_sps sps[2];	/* Q2Q, D2D */
};

struct btt_data {
	char *dir;
	struct data_file *f;
	size_t n, cap;
	struct rate_dev *rd;
	size_t nrd, rdcap;
	struct btt_persec sys;
	int err;
	const char *failed;
	const struct btt *b;
	struct btt_sink sink;
};

struct btt_data *btt_data_alloc(const char *dir)
{
	struct btt_data *w;

	/* its files are only the user's, as every output (outfile.h) */
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
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
	btt_persec_init(&w->sys);
	return w;
}

/*
 * The file @name in the directory, opened at its first row, with a second
 * stream when @pair (see struct data_file); the second is the one given
 * when @twin.
 */
static FILE *open_file(struct btt_data *w, const char *name, bool pair, bool twin)
{
	char path[512], *partial;
	struct data_file *f;

	snprintf(path, sizeof(path), "%s/%s", w->dir, name);
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->f[i].path, path))
			return twin ? w->f[i].twin : w->f[i].fp;
	if (w->err)
		return NULL;
	if (ARRAY_ROOM(w->f, w->n, w->cap, 16) < 0) {
		w->err = -ENOMEM;
		return NULL;
	}
	f = &w->f[w->n];
	*f = (struct data_file){ .path = strdup(path) };
	if (!f->path || asprintf(&partial, "%s.partial", path) < 0) {
		free(f->path);
		w->err = -ENOMEM;
		return NULL;
	}
	w->n++;
	f->fp = outfile_create(partial, OUTFILE_MODE);
	if (f->fp && pair)
		f->twin = outfile_create(partial, OUTFILE_MODE);
	free(partial);
	if (!f->fp || (pair && !f->twin)) {
		w->err = -errno;
		w->failed = f->path;
		return NULL;
	}
	return twin ? f->twin : f->fp;
}

/* The file PREFIX_MAJ,MIN_SUFFIX.dat of @dev. */
static FILE *file_of(struct btt_data *w, uint32_t dev, const char *prefix, const char *suffix)
{
	char name[256];

	snprintf(name, sizeof(name), "%s_%u,%u%s.dat", prefix, KDEV_MAJOR(dev), KDEV_MINOR(dev),
		 suffix);
	return open_file(w, name, false, false);
}

/* btt's TO_SEC, of its latencies: ns / 1e9 */
static inline double secs(const struct btt_data *w, uint64_t ts)
{
	uint64_t g = btt_genesis(w->b);

	return ts > g ? (double)(ts - g) / 1e9 : 0.0;
}

/* @ts in ns from the trace's first event */
static inline uint64_t since(const struct btt_data *w, uint64_t ts)
{
	uint64_t g = btt_genesis(w->b);

	return ts > g ? ts - g : 0;
}

/*
 * btt's BIT_TIME, of its -Q, -s and -B rows: seconds and nanoseconds apart,
 * which rounds to six places otherwise than TO_SEC at times
 */
static inline double bit_time(const struct btt_data *w, uint64_t ts)
{
	return btt_secs(since(w, ts));
}

static struct rate_dev *rate_of(struct btt_data *w, uint32_t dev)
{
	struct rate_dev *r;

	for (size_t i = 0; i < w->nrd; i++)
		if (w->rd[i].dev == dev)
			return &w->rd[i];
	if (ARRAY_ROOM(w->rd, w->nrd, w->rdcap, 8) < 0) {
		w->err = -ENOMEM;
		return NULL;
	}
	r = &w->rd[w->nrd++];
	*r = (struct rate_dev){ .dev = dev };
	btt_persec_init(&r->persec);
	return r;
}

/* One row of NAME_iops_fp.dat and NAME_mbps_fp.dat (NAME "sys" or MAJ,MIN). */
static void persec_row(struct btt_data *w, const char *who, const struct btt_persec *row)
{
	char name[128];
	FILE *fp;

	snprintf(name, sizeof(name), "%s_iops_fp.dat", who);
	fp = open_file(w, name, false, false);
	if (fp)
		fprintf(fp, "%" PRId64 " %" PRIu64 "\n", row->sec, row->ios);
	snprintf(name, sizeof(name), "%s_mbps_fp.dat", who);
	fp = open_file(w, name, false, false);
	if (fp)
		fprintf(fp, "%" PRId64 " %lf\n", row->sec, btt_persec_mib(row));
}

static void dev_persec_row(struct btt_data *w, uint32_t dev, const struct btt_persec *row)
{
	char who[32];

	snprintf(who, sizeof(who), "%u,%u", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	persec_row(w, who, row);
}

/* One row of the Q2Q (@d2d false) or D2D stream of sps_MAJ,MIN.dat (btt -m sps). */
static void sps_row(struct btt_data *w, uint32_t dev, bool d2d, const struct btt_sps_row *row)
{
	char name[64];
	FILE *fp;

	snprintf(name, sizeof(name), "sps_%u,%u.dat", KDEV_MAJOR(dev), KDEV_MINOR(dev));
	fp = open_file(w, name, true, !d2d);
	if (fp)
		fprintf(fp, "%15.9lf %.2lf\n", row->t, row->rate);
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
		fprintf(fp, "%lf %u\n%lf %u\n", bit_time(w, ts), from, bit_time(w, ts), to);
}

static void on_seek(void *ctx, uint32_t dev, bool d2d, uint64_t ts, int64_t dist, bool read)
{
	struct btt_data *w = ctx;
	struct rate_dev *r = rate_of(w, dev);
	char rw = read ? 'r' : 'w';
	struct btt_sps_row row;
	char suffix[16];
	FILE *fp;

	snprintf(suffix, sizeof(suffix), "_%s_%c", d2d ? "d2d" : "q2q", rw);
	fp = file_of(w, dev, "seek", suffix);
	if (fp)
		fprintf(fp, "%15.9lf %13" PRId64 " %c\n", bit_time(w, ts), dist, rw);
	snprintf(suffix, sizeof(suffix), "_%s_c", d2d ? "d2d" : "q2q");
	fp = file_of(w, dev, "seek", suffix);
	if (fp)
		fprintf(fp, "%15.9lf %13" PRId64 " %c\n", bit_time(w, ts), dist, rw);
	if (r && btt_sps_add(&r->sps[d2d], btt_secs(since(w, ts)), &row))
		sps_row(w, dev, d2d, &row);
}

static void on_bno(void *ctx, uint32_t dev, uint64_t ts, uint64_t start, uint64_t end, bool read)
{
	struct btt_data *w = ctx;
	FILE *fp = file_of(w, dev, "bno", read ? "_r" : "_w");

	if (fp)
		fprintf(fp, "%15.9lf %" PRIu64 " %" PRIu64 "\n", bit_time(w, ts), start, end);
	fp = file_of(w, dev, "bno", "_c");
	if (fp)
		fprintf(fp, "%15.9lf %" PRIu64 " %" PRIu64 "\n", bit_time(w, ts), start, end);
}

/* btt counts a completion in its device's second and the system's */
static void on_complete(void *ctx, uint32_t dev, uint64_t ts, uint32_t nsec)
{
	struct btt_data *w = ctx;
	struct rate_dev *r = rate_of(w, dev);
	struct btt_persec row;

	if (r && btt_persec_add(&r->persec, since(w, ts), nsec, &row))
		dev_persec_row(w, dev, &row);
	if (btt_persec_add(&w->sys, since(w, ts), nsec, &row))
		persec_row(w, "sys", &row);
}

const struct btt_sink *btt_data_sink(struct btt_data *w, const struct btt *b)
{
	w->b = b;
	w->sink = (struct btt_sink){ .latency = on_latency, .aqd = on_aqd, .seek = on_seek,
				     .bno = on_bno, .complete = on_complete, .ctx = w };
	return &w->sink;
}

/* The trace ended: the last rows, as btt writes them on its way out. */
static void last_rows(struct btt_data *w)
{
	struct btt_sps_row row;
	size_t n;
	const struct btt_dev *d = btt_devs(w->b, &n);

	/* every device btt saw, culled or not, "-1 0" when nothing completed */
	for (size_t i = 0; i < n; i++) {
		struct rate_dev *r = rate_of(w, d[i].dev);

		if (r)
			dev_persec_row(w, r->dev, &r->persec);
	}
	persec_row(w, "sys", &w->sys);
	/* D2D before Q2Q: the order btt frees them in */
	for (size_t i = 0; i < w->nrd; i++)
		for (int d2d = 1; d2d >= 0; d2d--)
			if (btt_sps_end(&w->rd[i].sps[d2d], &row))
				sps_row(w, w->rd[i].dev, d2d, &row);
}

/* Close @fp, a stream of @f; a file then empty is removed, as btt does. */
static void close_stream(struct btt_data *w, struct data_file *f, FILE *fp, const char *partial,
			 int *ret)
{
	struct stat st;

	if ((ferror(fp) | fclose(fp)) && !*ret) {
		*ret = -EIO;
		w->failed = f->path;
	}
	if (*ret || f->gone || stat(partial, &st) < 0 || st.st_size)
		return;
	unlink(partial);
	f->gone = true;
}

int btt_data_commit(struct btt_data *w)
{
	int ret = w->err;
	int files = 0;

	if (!ret)
		last_rows(w);
	ret = w->err;
	for (size_t i = 0; i < w->n; i++) {
		struct data_file *f = &w->f[i];
		char *partial;

		if (!f->fp)
			continue;
		if (asprintf(&partial, "%s.partial", f->path) < 0) {
			ret = ret ? ret : -ENOMEM;
			continue;
		}
		close_stream(w, f, f->fp, partial, &ret);
		f->fp = NULL;
		if (f->twin)
			close_stream(w, f, f->twin, partial, &ret);
		f->twin = NULL;
		if (!ret && !f->gone && rename(partial, f->path) < 0) {
			ret = -errno;
			w->failed = f->path;
		}
		if (ret)
			unlink(partial);	/* files appear only whole */
		else if (!f->gone)
			files++;
		free(partial);
	}
	w->err = ret;
	return ret < 0 ? ret : files;
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
		if (w->f[i].twin)
			fclose(w->f[i].twin);
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
	free(w->rd);
	free(w->dir);
	free(w);
}
