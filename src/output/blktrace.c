// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * blktrace.c - blktrace's binary files from the event stream.
 *
 * blktrace writes what the kernel's relay channel of each CPU holds, one
 * file per CPU, each in that CPU's order; blkparse merges them by time and
 * checks that the sequence numbers of each device and CPU follow each other
 * from 1. Before the first record of a process (and when its name changes)
 * a process note gives its name, which blkparse prints in brackets: the
 * kernel writes one per task per trace. Plugs and unplugs are given their
 * device by plugdev, with the text log's rules.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "format/btrec.h"
#include "output/blktrace.h"
#include "output/outfile.h"
#include "track/passthru.h"
#include "track/plugdev.h"

#define FILE_BUF_SIZE	(64 * 1024)

struct dev_seq {
	uint32_t dev;
	uint32_t seq;
};

struct bt_cpu {
	struct outfile of;
	bool open;
	struct dev_seq *seqs;	/* few devices per CPU: searched linearly */
	size_t nseqs, seqs_cap, last;
};

/* A pid's name as last noted: open addressing on pid + 1 (0: empty). */
struct proc_slot {
	int64_t key;
	char comm[16];
};

struct dev_seen {
	uint32_t dev;
	int depth;
};

struct remap_edge {
	uint32_t from, to;
};

struct bt_out {
	char *prefix;		/* NULL: a stream on standard output */
	struct outfile stream;
	struct bt_cpu *cpu;
	int ncpu;
	char *failed_path;
	int err;
	struct plugdev *plugs;
	struct bt_out_stats st;

	struct proc_slot *procs;
	size_t procs_cap, nprocs;	/* cap a power of two */

	struct dev_seen *devs;
	size_t ndevs, devs_cap;
	struct remap_edge *edges;
	size_t nedges, edges_cap;
	uint32_t last_dev;

	/* passthrough requests in flight: their completion's bytes */
	struct passthru pcs;

	/* the name of a task whose event carries none (NULL: unknown) */
	const char *(*name_of)(void *ctx, int32_t pid);
	void *name_ctx;
};

static int emit(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx);

/* Remember the file an error concerns, for the message. */
static void set_failed(struct bt_out *o, const char *path)
{
	free(o->failed_path);
	o->failed_path = path ? strdup(path) : NULL;
}

static char *cpu_path(const char *prefix, int cpu)
{
	char *p;

	return asprintf(&p, "%s.blktrace.%d", prefix, cpu) < 0 ? NULL : p;
}

/* Open the files of CPUs up to @cpu; returns 0 or a negative errno. */
static int open_cpus(struct bt_out *o, int cpu)
{
	struct bt_cpu *n;
	int ret;

	if (cpu < o->ncpu)
		return 0;
	n = realloc(o->cpu, (cpu + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	memset(n + o->ncpu, 0, (cpu + 1 - o->ncpu) * sizeof(*n));
	o->cpu = n;
	for (; o->ncpu <= cpu; o->ncpu++) {
		struct bt_cpu *c = &o->cpu[o->ncpu];
		char *path;

		if (!o->prefix)
			continue;	/* a stream: every CPU goes to standard output */
		path = cpu_path(o->prefix, o->ncpu);
		if (!path)
			return -ENOMEM;
		ret = outfile_open(&c->of, path);
		if (ret < 0) {
			free(o->failed_path);
			if (asprintf(&o->failed_path, "%s.partial", path) < 0)
				o->failed_path = NULL;
			free(path);
			return ret;
		}
		free(path);
		c->open = true;
		setvbuf(c->of.fp, NULL, _IOFBF, FILE_BUF_SIZE);
		o->st.ncpu = o->ncpu + 1;
	}
	return 0;
}

struct bt_out *bt_out_alloc(const char *prefix)
{
	struct bt_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->procs_cap = 1024;
	o->procs = calloc(o->procs_cap, sizeof(*o->procs));
	o->plugs = plugdev_alloc(emit, o);
	if (prefix && strcmp(prefix, "-") != 0)
		o->prefix = strdup(prefix);
	if (!o->procs || !o->plugs || (prefix && strcmp(prefix, "-") != 0 && !o->prefix)) {
		bt_out_free(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}

int bt_out_open(struct bt_out *o, int ncpu)
{
	if (!o->prefix && !o->stream.fp) {
		o->err = outfile_open(&o->stream, NULL);
		if (o->err)
			return o->err;
	}
	o->err = open_cpus(o, ncpu > 0 ? ncpu - 1 : 0);
	return o->err;
}

const char *bt_out_failed_path(const struct bt_out *o)
{
	return o->failed_path;
}

void bt_out_free(struct bt_out *o)
{
	if (!o)
		return;
	for (int c = 0; c < o->ncpu; c++) {
		if (o->cpu[c].open)
			outfile_abort(&o->cpu[c].of);
		free(o->cpu[c].seqs);
	}
	if (o->stream.fp)
		outfile_abort(&o->stream);
	plugdev_free(o->plugs);
	free(o->cpu);
	free(o->procs);
	free(o->devs);
	free(o->edges);
	passthru_free(&o->pcs);
	free(o->prefix);
	free(o->failed_path);
	free(o);
}

const struct bt_out_stats *bt_out_stats(const struct bt_out *o)
{
	return &o->st;
}

/* The next sequence number of @dev on @c, from 1. */
static uint32_t next_seq(struct bt_cpu *c, uint32_t dev)
{
	if (c->last < c->nseqs && c->seqs[c->last].dev == dev)
		return ++c->seqs[c->last].seq;
	for (size_t i = 0; i < c->nseqs; i++) {
		if (c->seqs[i].dev == dev) {
			c->last = i;
			return ++c->seqs[i].seq;
		}
	}
	if (ARRAY_ROOM(c->seqs, c->nseqs, c->seqs_cap, 8) < 0)
		return 0;
	c->seqs[c->nseqs] = (struct dev_seq){ .dev = dev, .seq = 1 };
	c->last = c->nseqs++;
	return 1;
}

static int proc_grow(struct bt_out *o)
{
	size_t cap = o->procs_cap * 2;
	struct proc_slot *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < o->procs_cap; i++) {
		size_t j;

		if (!o->procs[i].key)
			continue;
		j = ((uint64_t)o->procs[i].key * 0x9E3779B97F4A7C15ULL >> 32) & (cap - 1);
		while (n[j].key)
			j = (j + 1) & (cap - 1);
		n[j] = o->procs[i];
	}
	free(o->procs);
	o->procs = n;
	o->procs_cap = cap;
	return 0;
}

/*
 * Whether @pid needs a note before this event: first seen, or renamed
 * (not when @first_only: a name from elsewhere than the event).
 */
static bool note_needed(struct bt_out *o, int32_t pid, const char *comm, bool first_only)
{
	int64_t key = (int64_t)(uint32_t)pid + 1;
	size_t i;

	if (o->nprocs * 2 >= o->procs_cap && proc_grow(o) < 0)
		return false;	/* no memory: the name is left out, not the event */
	i = ((uint64_t)key * 0x9E3779B97F4A7C15ULL >> 32) & (o->procs_cap - 1);
	while (o->procs[i].key && o->procs[i].key != key)
		i = (i + 1) & (o->procs_cap - 1);
	if (o->procs[i].key && (first_only || strncmp(o->procs[i].comm, comm, 16) == 0))
		return false;
	if (!o->procs[i].key) {
		o->procs[i].key = key;
		o->nprocs++;
	}
	strncpy(o->procs[i].comm, comm, 16);
	return true;
}

static void dev_seen(struct bt_out *o, uint32_t dev)
{
	if (dev == o->last_dev && o->ndevs)
		return;
	o->last_dev = dev;
	for (size_t i = 0; i < o->ndevs; i++)
		if (o->devs[i].dev == dev)
			return;
	if (ARRAY_ROOM(o->devs, o->ndevs, o->devs_cap, 16) < 0)
		return;
	o->devs[o->ndevs++] = (struct dev_seen){ .dev = dev };
}

static void edge_seen(struct bt_out *o, uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < o->nedges; i++)
		if (o->edges[i].from == from && o->edges[i].to == to)
			return;
	if (ARRAY_ROOM(o->edges, o->nedges, o->edges_cap, 16) < 0)
		return;
	o->edges[o->nedges++] = (struct remap_edge){ .from = from, .to = to };
	dev_seen(o, from);
}

static int put(struct bt_out *o, struct bt_cpu *c, const uint8_t *buf, size_t len)
{
	FILE *fp = o->prefix ? c->of.fp : o->stream.fp;

	if (fwrite(buf, 1, len, fp) != len) {
		o->err = errno ? -errno : -EIO;
		set_failed(o, o->prefix ? c->of.tmp : NULL);
	}
	return o->err;
}

/* The plugdev consumer: one attributed event to its CPU's file. */
static int emit(const struct blk_event *ev, uint32_t dev, bool timer, void *ctx)
{
	struct bt_out *o = ctx;
	struct blk_event pc;
	uint8_t buf[BTREC_MAX_SIZE];
	const char *comm;
	struct bt_cpu *c;
	size_t len;
	int ret;

	if (o->err)
		return o->err;
	if (!btrec_action(ev, timer)) {
		o->st.no_action++;
		return 0;
	}
	if (!dev) {
		o->st.unattributed++;
		return 0;
	}
	ret = open_cpus(o, ev->cpu);
	if (ret < 0) {
		o->err = ret;
		return ret;
	}
	c = &o->cpu[ev->cpu];
	if (blk_event_passthrough(ev))
		ev = passthru_bytes(&o->pcs, ev, dev, &pc);
	/*
	 * The kernel notes a task's name before its first event, whatever the
	 * event; a completion names no task in tracefs: its name is the
	 * recording's, if it has one (else it is noted at its first named event)
	 */
	comm = ev->comm[0] ? ev->comm : o->name_of ? o->name_of(o->name_ctx, ev->pid) : NULL;
	if (comm && note_needed(o, ev->pid, comm, !ev->comm[0])) {
		len = btrec_encode_process(ev->pid, comm, dev, ev->cpu, ev->ts, buf);
		if (put(o, c, buf, len))
			return o->err;
		o->st.notes++;
	}
	len = btrec_encode_event(ev, dev, timer, next_seq(c, dev), buf);
	if (put(o, c, buf, len))
		return o->err;
	o->st.records++;
	dev_seen(o, dev);
	if (ev->kind == BLK_EV_BIO_REMAP || ev->kind == BLK_EV_RQ_REMAP)
		edge_seen(o, ev->old_dev, dev);
	return 0;
}

int bt_out_event(const struct blk_event *ev, void *ctx)
{
	struct bt_out *o = ctx;

	return plugdev_event(ev, o->plugs);
}

int bt_out_finish(struct bt_out *o)
{
	int ret = plugdev_finish(o->plugs);

	if (ret)
		return ret;
	if (!o->prefix) {
		if (fflush(o->stream.fp))
			o->err = errno ? -errno : -EIO;
		return o->err;
	}
	for (int c = 0; c < o->ncpu && !o->err; c++) {
		if (fflush(o->cpu[c].of.fp)) {
			o->err = errno ? -errno : -EIO;
			set_failed(o, o->cpu[c].of.tmp);
		}
	}
	return o->err;
}

void bt_out_set_names(struct bt_out *o, const char *(*name_of)(void *ctx, int32_t pid),
		      void *ctx)
{
	o->name_of = name_of;
	o->name_ctx = ctx;
}

int bt_out_commit(struct bt_out *o)
{
	int ret;

	if (o->err)
		return o->err;
	if (!o->prefix)
		return outfile_commit(&o->stream);
	/* every file on disk before any is renamed: all complete, or none */
	for (int c = 0; c < o->ncpu; c++) {
		struct outfile *of = &o->cpu[c].of;

		if (fflush(of->fp) || (of->path && fsync(fileno(of->fp)) && errno != EINVAL)) {
			ret = errno ? -errno : -EIO;
			set_failed(o, of->tmp);
			o->err = ret;
			return ret;
		}
	}
	for (int c = 0; c < o->ncpu; c++) {
		set_failed(o, o->cpu[c].of.tmp);
		ret = outfile_commit(&o->cpu[c].of);
		o->cpu[c].open = false;
		if (ret < 0) {
			o->err = ret;
			return ret;
		}
	}
	/* an earlier conversion's files of more CPUs would be read as ours */
	for (int c = o->ncpu;; c++) {
		char *path = cpu_path(o->prefix, c);

		if (!path)
			return -ENOMEM;
		ret = unlink(path);
		free(path);
		if (ret)
			break;
	}
	return 0;
}

/*
 * btt (1.2's btt/devmap.c) reads its map with
 * fscanf("%255[a-zA-Z0-9 :.,/_-]\n") then sscanf("%s %s") into 32-byte
 * arrays, and stops at the first line it cannot take, or that holds
 * "Device" (the header of the older format): a name is cut to 31 bytes,
 * any other character becomes '_', and a name btt would stop at is not
 * used. Returns false when there is no name to use.
 */
#define BTT_NAME_LEN 32

static bool btt_name(const char *in, char out[BTT_NAME_LEN])
{
	size_t n = 0;

	if (!in || !*in)
		return false;
	for (; in[n] && n < BTT_NAME_LEN - 1; n++) {
		char c = in[n];

		out[n] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || strchr(":.,/_-", c) ? c : '_';
	}
	out[n] = '\0';
	return !strstr(out, "Device");
}

/* Upper layers first: a device's depth is one more than its remaps' sources. */
static int cmp_depth(const void *a, const void *b)
{
	const struct dev_seen *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

int bt_out_devmap(const struct bt_out *o, FILE *fp,
		  const char *(*name)(uint32_t dev, char *buf, size_t len, void *ctx),
		  void *ctx)
{
	struct dev_seen *devs;
	bool changed = true;
	size_t n = o->ndevs;

	devs = malloc((n ? n : 1) * sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	memcpy(devs, o->devs, n * sizeof(*devs));
	for (size_t i = 0; i < n; i++)
		devs[i].depth = 0;
	/* relax at most n times: a cycle of remaps cannot loop for ever */
	for (size_t round = 0; changed && round < n; round++) {
		changed = false;
		for (size_t e = 0; e < o->nedges; e++) {
			struct dev_seen *from = NULL, *to = NULL;

			for (size_t i = 0; i < n; i++) {
				if (devs[i].dev == o->edges[e].from)
					from = &devs[i];
				if (devs[i].dev == o->edges[e].to)
					to = &devs[i];
			}
			if (from && to && from != to && to->depth < from->depth + 1) {
				to->depth = from->depth + 1;
				changed = true;
			}
		}
	}
	qsort(devs, n, sizeof(*devs), cmp_depth);
	for (size_t i = 0; i < n; i++) {
		char buf[64], nm[BTT_NAME_LEN];

		if (!btt_name(name ? name(devs[i].dev, buf, sizeof(buf), ctx) : NULL, nm))
			snprintf(nm, sizeof(nm), "%u:%u", KDEV_MAJOR(devs[i].dev),
				 KDEV_MINOR(devs[i].dev));
		fprintf(fp, "%s %u,%u\n", nm, KDEV_MAJOR(devs[i].dev), KDEV_MINOR(devs[i].dev));
	}
	free(devs);
	return ferror(fp) ? -EIO : 0;
}
