// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pagecache.c - attribution of disk I/O to files (see pagecache.h).
 *
 * Per task, the context: the file whose pages it inserted last (read), or
 * whose writeback it runs (write), or whose direct I/O it does. A top-level
 * queue event of that task on that file's filesystem goes to the file;
 * other queue events go to a category. The latency of an attributed I/O
 * arrives later, with the tracker's completed tree, matched on the device
 * and time of its first event.
 *
 * Top-level I/O: a queue event on a device that received a remap from a
 * device with queue events of its own (dm-0 -> sda) is the same I/O one
 * layer down. A partition has no queue event: the disk's queue event that
 * follows a remap from the partition, in the same task at the same sector,
 * is the partition's, and the partition is the filesystem's device.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/pcevent.h"
#include "files/pagecache.h"

/* Pending latency entries older than this are dropped (the tracker's default timeout). */
#define PENDING_TIMEOUT_NS	TK_DEFAULT_TIMEOUT_NS
/* Pending latency entries at most: past it, new I/O gets no latency. */
#define PENDING_MAX		(1U << 20)

enum ctx_kind { CTX_NONE = 0, CTX_READ, CTX_WRITE, CTX_DIO };

struct task {
	int32_t pid;
	uint8_t ctx;		/* enum ctx_kind */
	uint8_t ra;		/* 0, PC_EV_RA_SYNC or PC_EV_RA_ASYNC */
	bool ctx_bdev;		/* the context is a block device's own page cache */
	bool log_open;
	bool rm_valid;		/* the last block event was a remap */
	uint32_t ctx_sdev;
	uint32_t ctx_file;	/* index + 1 in files, 0 none */
	uint64_t ctx_ino;
	uint64_t ctx_bdev_left;	/* sectors of the block device's pages inserted, not yet read */
	uint32_t ra_sdev;
	uint64_t ra_ino;
	uint32_t rm_old, rm_dev;
	uint64_t rm_sector, rm_ts;
	uint32_t lk_sdev;	/* the last pages this task asked of the cache */
	uint64_t lk_ino, lk_first, lk_last;
	uint32_t proc;		/* index + 1 in procs, 0 none yet */
	/*
	 * The direct I/O under way, apart from the context: a direct write
	 * may read metadata through the page cache (ext4's bitmaps, the block
	 * device's own pages) before it queues its data, and that insert must
	 * not take the data away from the file.
	 */
	bool dio;
	bool dio_bdev;		/* on a block device opened O_DIRECT */
	uint32_t dio_sdev;
	uint32_t dio_file;	/* index + 1 in files, 0 none */
	uint64_t dio_ino;
	uint32_t dio_ins;	/* pages of other inodes inserted within it, not yet read */
	struct pc_log_range log;
};

struct pending {
	uint64_t ts;		/* 0: empty slot */
	uint32_t dev;
	int32_t owner;		/* >= 0: a file index; < 0: -(category + 1) */
};

/* A small set of devices: few devices are ever seen. */
struct devset {
	uint32_t *v;
	size_t n, cap;
};

/* Split bios remembered for their other pieces: a ring, bounded. */
#define SPLIT_OWNERS	256

struct pagecache {
	const struct fsmap *map;
	bool map_traced;	/* pagecache_set_source() */
	bool dio_events;
	bool any_pc;

	struct pc_file *files;
	size_t nfiles, files_cap;
	uint32_t *fhash;	/* index + 1, open addressing */
	size_t fhash_cap;

	struct task *tasks;
	size_t ntasks, tasks_cap;
	size_t last_task;	/* index of the task of the last event: most come in runs */
	uint32_t *thash;
	size_t thash_cap;

	struct pc_proc *procs;
	size_t nprocs, procs_cap;

	struct pc_counts cats[PC_NCATS];
	struct pc_counts cats_iv[PC_NCATS];

	struct pending *pend;
	size_t npend, pend_cap;
	uint64_t pend_swept;	/* when expired entries were last dropped */
	uint64_t now;
	/*
	 * The owners of the latest bios split at their device: the pieces are
	 * trees of their own with the queue time of the bio, and complete in
	 * any order; the first takes the pending entry, the others find it here
	 */
	struct split_owner {
		uint32_t dev;
		uint64_t q;
		int32_t owner;
	} split_owners[SPLIT_OWNERS];
	unsigned int split_next;

	struct devset queued;	/* devices with queue events */
	struct devset lower;	/* devices that receive remaps from those */

	struct pc_new *news;
	size_t nnews, news_cap, news_taken;

	pc_log_fn log_fn;
	void *log_ctx;
};

static const char *const cat_names[PC_NCATS] = {
	[PC_CAT_JOURNAL] = "journal",
	[PC_CAT_METADATA] = "metadata",
	[PC_CAT_SWAP] = "swap",
	[PC_CAT_RAW] = "raw",
	[PC_CAT_DIRECT] = "direct",
	[PC_CAT_UNATTRIBUTED] = "unattributed",
};

const char *pc_cat_name(enum pc_cat cat)
{
	return cat < PC_NCATS ? cat_names[cat] : "?";
}

void pc_counts_add(struct pc_counts *to, const struct pc_counts *from)
{
	to->read_bytes += from->read_bytes;
	to->write_bytes += from->write_bytes;
	to->read_ios += from->read_ios;
	to->write_ios += from->write_ios;
	to->direct_bytes += from->direct_bytes;
	to->misses += from->misses;
	to->ra_sync += from->ra_sync;
	to->ra_async += from->ra_async;
	to->evicted += from->evicted;
	to->lookups += from->lookups;
	to->dirtied += from->dirtied;
	to->lat_n += from->lat_n;
	to->lat_sum += from->lat_sum;
	if (from->lat_max > to->lat_max)
		to->lat_max = from->lat_max;
}

/* ---- tables ------------------------------------------------------------- */

static size_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x;
}

static size_t file_hash(uint32_t sdev, uint64_t ino)
{
	return mix(ino ^ ((uint64_t)sdev << 40) ^ sdev);
}

static int grow_vec(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

static int fhash_rebuild(struct pagecache *pc)
{
	size_t cap = pc->fhash_cap ? pc->fhash_cap * 2 : 256;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < pc->nfiles; i++) {
		size_t j = file_hash(pc->files[i].sdev, pc->files[i].ino) & (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(pc->fhash);
	pc->fhash = h;
	pc->fhash_cap = cap;
	return 0;
}

/* The file (sdev, ino), created when new; NULL only when out of memory. */
static struct pc_file *get_file(struct pagecache *pc, uint32_t sdev, uint64_t ino, int32_t pid)
{
	struct pc_file *f;
	size_t j;

	if (pc->fhash_cap) {
		j = file_hash(sdev, ino) & (pc->fhash_cap - 1);
		while (pc->fhash[j]) {
			f = &pc->files[pc->fhash[j] - 1];
			if (f->sdev == sdev && f->ino == ino)
				return f;
			j = (j + 1) & (pc->fhash_cap - 1);
		}
	}
	if (grow_vec((void **)&pc->files, &pc->files_cap, pc->nfiles, sizeof(*pc->files)) ||
	    grow_vec((void **)&pc->news, &pc->news_cap, pc->nnews, sizeof(*pc->news)))
		return NULL;
	f = &pc->files[pc->nfiles++];
	memset(f, 0, sizeof(*f));
	f->sdev = sdev;
	f->ino = ino;
	f->first_pid = pid;
	pc->news[pc->nnews++] = (struct pc_new){ .sdev = sdev, .ino = ino, .pid = pid };
	if ((pc->nfiles + 1) * 2 > pc->fhash_cap) {
		if (fhash_rebuild(pc)) {
			pc->nfiles--;
			pc->nnews--;
			return NULL;
		}
	} else {
		j = file_hash(sdev, ino) & (pc->fhash_cap - 1);
		while (pc->fhash[j])
			j = (j + 1) & (pc->fhash_cap - 1);
		pc->fhash[j] = pc->nfiles;
	}
	return f;
}

static int thash_rebuild(struct pagecache *pc)
{
	size_t cap = pc->thash_cap ? pc->thash_cap * 2 : 128;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < pc->ntasks; i++) {
		size_t j = mix((uint32_t)pc->tasks[i].pid) & (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(pc->thash);
	pc->thash = h;
	pc->thash_cap = cap;
	return 0;
}

static struct task *get_task(struct pagecache *pc, int32_t pid)
{
	struct task *t;
	size_t j;

	if (pc->last_task < pc->ntasks && pc->tasks[pc->last_task].pid == pid)
		return &pc->tasks[pc->last_task];
	if (pc->thash_cap) {
		j = mix((uint32_t)pid) & (pc->thash_cap - 1);
		while (pc->thash[j]) {
			t = &pc->tasks[pc->thash[j] - 1];
			if (t->pid == pid) {
				pc->last_task = pc->thash[j] - 1;
				return t;
			}
			j = (j + 1) & (pc->thash_cap - 1);
		}
	}
	if (grow_vec((void **)&pc->tasks, &pc->tasks_cap, pc->ntasks, sizeof(*pc->tasks)))
		return NULL;
	t = &pc->tasks[pc->ntasks++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if ((pc->ntasks + 1) * 2 > pc->thash_cap) {
		if (thash_rebuild(pc)) {
			pc->ntasks--;
			return NULL;
		}
	} else {
		j = mix((uint32_t)pid) & (pc->thash_cap - 1);
		while (pc->thash[j])
			j = (j + 1) & (pc->thash_cap - 1);
		pc->thash[j] = pc->ntasks;
	}
	return t;
}

static struct pc_proc *get_proc(struct pagecache *pc, struct task *t)
{
	struct pc_proc *p;

	if (t->proc)
		return &pc->procs[t->proc - 1];
	if (grow_vec((void **)&pc->procs, &pc->procs_cap, pc->nprocs, sizeof(*pc->procs)))
		return NULL;
	p = &pc->procs[pc->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = t->pid;
	t->proc = pc->nprocs;
	return p;
}

static bool devset_has(const struct devset *s, uint32_t dev)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == dev)
			return true;
	return false;
}

static int devset_add(struct devset *s, uint32_t dev)
{
	if (devset_has(s, dev))
		return 0;
	if (grow_vec((void **)&s->v, &s->cap, s->n, sizeof(*s->v)))
		return -ENOMEM;
	s->v[s->n++] = dev;
	return 0;
}

/* ---- pending latency ------------------------------------------------------ */

static size_t pend_slot(const struct pending *tab, size_t cap, uint32_t dev, uint64_t ts)
{
	size_t j = mix(ts ^ ((uint64_t)dev << 32)) & (cap - 1);

	while (tab[j].ts && (tab[j].ts != ts || tab[j].dev != dev))
		j = (j + 1) & (cap - 1);
	return j;
}

/* Rebuild at @cap, dropping entries older than the timeout. */
static int pend_rebuild(struct pagecache *pc, size_t cap)
{
	struct pending *tab = calloc(cap, sizeof(*tab));
	size_t n = 0;

	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < pc->pend_cap; i++) {
		const struct pending *p = &pc->pend[i];

		if (!p->ts || p->ts + PENDING_TIMEOUT_NS < pc->now)
			continue;
		tab[pend_slot(tab, cap, p->dev, p->ts)] = *p;
		n++;
	}
	free(pc->pend);
	pc->pend = tab;
	pc->pend_cap = cap;
	pc->npend = n;
	return 0;
}

static void pend_add(struct pagecache *pc, uint32_t dev, uint64_t ts, int32_t owner)
{
	size_t j;

	if (!ts)
		return;
	if ((pc->npend + 1) * 2 > pc->pend_cap) {
		/* first drop what expired (not at every insert: that is a full pass) */
		if (pc->pend_cap && pc->now >= pc->pend_swept + PENDING_TIMEOUT_NS / 4) {
			if (pend_rebuild(pc, pc->pend_cap))
				return;
			pc->pend_swept = pc->now;
		}
		if ((pc->npend + 1) * 2 > pc->pend_cap &&
		    (pc->pend_cap >= PENDING_MAX ||
		     pend_rebuild(pc, pc->pend_cap ? pc->pend_cap * 2 : 1024)))
			return;
	}
	j = pend_slot(pc->pend, pc->pend_cap, dev, ts);
	if (!pc->pend[j].ts)
		pc->npend++;
	pc->pend[j] = (struct pending){ .ts = ts, .dev = dev, .owner = owner };
}

/* Remove and return the owner of (dev, ts); false when not pending. */
static bool pend_take(struct pagecache *pc, uint32_t dev, uint64_t ts, int32_t *owner)
{
	size_t j, k, cap = pc->pend_cap;

	if (!cap || !ts)
		return false;
	j = pend_slot(pc->pend, cap, dev, ts);
	if (!pc->pend[j].ts)
		return false;
	*owner = pc->pend[j].owner;
	/* backward-shift deletion keeps every probe chain whole */
	pc->pend[j].ts = 0;
	pc->npend--;
	k = j;
	for (;;) {
		size_t home;

		k = (k + 1) & (cap - 1);
		if (!pc->pend[k].ts)
			break;
		home = mix(pc->pend[k].ts ^ ((uint64_t)pc->pend[k].dev << 32)) & (cap - 1);
		if ((k > j && (home <= j || home > k)) || (k < j && home <= j && home > k)) {
			pc->pend[j] = pc->pend[k];
			pc->pend[k].ts = 0;
			j = k;
		}
	}
	return true;
}

/* ---- the rules ----------------------------------------------------------- */

struct pagecache *pagecache_alloc(const struct fsmap *map)
{
	static const struct fsmap empty;
	struct pagecache *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	pc->map = map ? map : &empty;
	pc->map_traced = pc->dio_events = true;
	return pc;
}

void pagecache_set_source(struct pagecache *pc, bool map_traced, bool dio_events)
{
	pc->map_traced = map_traced;
	pc->dio_events = dio_events;
}

void pagecache_free(struct pagecache *pc)
{
	if (!pc)
		return;
	free(pc->files);
	free(pc->fhash);
	free(pc->tasks);
	free(pc->thash);
	free(pc->procs);
	free(pc->pend);
	free(pc->queued.v);
	free(pc->lower.v);
	free(pc->news);
	free(pc);
}

void pagecache_set_log(struct pagecache *pc, pc_log_fn fn, void *ctx)
{
	pc->log_fn = fn;
	pc->log_ctx = ctx;
}

void pagecache_set_lower(struct pagecache *pc, uint32_t dev)
{
	devset_add(&pc->lower, dev);
}

static void log_flush(struct pagecache *pc, struct task *t)
{
	if (!t->log_open)
		return;
	t->log_open = false;
	if (pc->log_fn)
		pc->log_fn(&t->log, pc->log_ctx);
}

void pagecache_flush_log(struct pagecache *pc)
{
	for (size_t i = 0; i < pc->ntasks; i++)
		log_flush(pc, &pc->tasks[i]);
}

/* A run of inserted pages grows while the same task inserts the next ones. */
static void log_add(struct pagecache *pc, struct task *t, const struct blk_event *ev,
		    unsigned int ra)
{
	uint64_t first = pc_ev_index(ev), last = first + pc_ev_pages(ev) - 1;

	if (!pc->log_fn)
		return;
	if (t->log_open && t->log.sdev == ev->dev && t->log.ino == pc_ev_ino(ev) &&
	    t->log.ra == ra && first == t->log.last + 1) {
		t->log.last = last;
		return;
	}
	log_flush(pc, t);
	t->log = (struct pc_log_range){
		.ts = ev->ts, .pid = ev->pid, .sdev = ev->dev, .ino = pc_ev_ino(ev),
		.first = first, .last = last, .ra = ra,
	};
	t->log_open = true;
}

/* The superblock a writeback event's bdi belongs to. */
static uint32_t bdi_sdev(const struct pagecache *pc, const struct blk_event *ev)
{
	const struct fsmap_fs *fs = fsmap_by_bdi(pc->map, pc_ev_bdi(ev));

	/* unknown: a filesystem on a whole disk has the disk as s_dev and bdi */
	return fs ? fs->sdev : ev->dev;
}

/*
 * Whether (sdev, ino) is a block device's own inode, whose page cache holds
 * raw reads and writes of the device and a filesystem's buffers (ext4's
 * journal and bitmaps): its inode number is the device's dev_t, and its
 * superblock is the bdev pseudo-filesystem, mounted nowhere.
 */
static bool bdev_inode(const struct pagecache *pc, uint32_t sdev, uint64_t ino)
{
	if (ino > UINT32_MAX || !KDEV_MAJOR(ino) || fsmap_by_sdev(pc->map, sdev))
		return false;
	return fsmap_by_dev(pc->map, ino) || fsmap_is_swap(pc->map, ino) ||
	       !pc->map->nfs || !KDEV_MAJOR(sdev);
}

/* The same for a writeback event, which names the bdi instead of the superblock. */
static bool bdev_inode_wb(const struct pagecache *pc, const struct blk_event *ev)
{
	const struct fsmap_fs *fs = fsmap_by_bdi(pc->map, pc_ev_bdi(ev));
	uint64_t ino = pc_ev_ino(ev);

	if (ino > UINT32_MAX || !KDEV_MAJOR(ino))
		return false;
	return ino == ev->dev || (fs && fsmap_fs_has_dev(fs, ino));
}

static void set_ctx(struct task *t, enum ctx_kind kind, uint32_t sdev, uint64_t ino,
		    struct pagecache *pc, int32_t pid, bool bdev)
{
	struct pc_file *f = bdev ? NULL : get_file(pc, sdev, ino, pid);

	t->ctx = kind;
	t->ctx_sdev = sdev;
	t->ctx_ino = ino;
	t->ctx_bdev = bdev;
	t->ctx_file = f ? (uint32_t)(f - pc->files) + 1 : 0;
}

/* Pages of another inode inserted within a direct I/O: reads of them come before its own. */
static void dio_insert(struct task *t, const struct blk_event *ev, uint32_t pages)
{
	if (!t->dio || (t->dio_sdev == ev->dev && t->dio_ino == pc_ev_ino(ev)))
		return;
	t->dio_ins = pages > UINT32_MAX - t->dio_ins ? UINT32_MAX : t->dio_ins + pages;
}

/*
 * The task's next buffered work on any file (a lookup, readahead,
 * writeback) ends its direct I/O: known from iomap_iter alone, a direct
 * I/O has no end event, and a direct read at or past the end of the file
 * has a begin event but no iomap_dio_complete
 */
static void dio_end_by_buffered(struct task *t)
{
	if (!t->dio)
		return;
	t->dio = false;
	if (t->ctx == CTX_DIO)
		t->ctx = CTX_NONE;
}

static int on_pagecache(struct pagecache *pc, const struct blk_event *ev)
{
	struct task *t = get_task(pc, ev->pid);
	uint32_t pages = pc_ev_pages(ev);
	struct pc_file *f;
	struct pc_proc *p;

	if (!t)
		return -ENOMEM;
	pc->any_pc = true;
	switch (ev->kind) {
	case PC_EV_ADD: {
		unsigned int ra = (t->ra && t->ra_sdev == ev->dev && t->ra_ino == pc_ev_ino(ev)) ?
				  t->ra : 0;

		/* most insertions continue the task's file: no lookup then */
		if (t->ctx_file && !t->ctx_bdev && t->ctx_sdev == ev->dev &&
		    t->ctx_ino == pc_ev_ino(ev)) {
			f = &pc->files[t->ctx_file - 1];
		} else if (bdev_inode(pc, ev->dev, pc_ev_ino(ev))) {
			/*
			 * not a file: its reads are raw access or filesystem
			 * metadata, as many as it inserted (see on_queue)
			 */
			if (t->ctx != CTX_READ || !t->ctx_bdev || t->ctx_sdev != ev->dev ||
			    t->ctx_ino != pc_ev_ino(ev))
				t->ctx_bdev_left = 0;
			set_ctx(t, CTX_READ, ev->dev, pc_ev_ino(ev), pc, ev->pid, true);
			t->ctx_bdev_left += (uint64_t)pages * 8;
			dio_insert(t, ev, pages);
			break;
		} else {
			f = get_file(pc, ev->dev, pc_ev_ino(ev), ev->pid);
		}
		p = get_proc(pc, t);
		if (!f || !p)
			return -ENOMEM;
		f->tot.misses += pages;
		f->iv.misses += pages;
		p->tot.misses += pages;
		if (ra == PC_EV_RA_SYNC) {
			f->tot.ra_sync += pages;
			f->iv.ra_sync += pages;
			p->tot.ra_sync += pages;
		} else if (ra == PC_EV_RA_ASYNC) {
			f->tot.ra_async += pages;
			f->iv.ra_async += pages;
			p->tot.ra_async += pages;
		}
		/* the reads this task queues next fetch these pages */
		if (t->ctx != CTX_DIO || t->ctx_sdev != ev->dev || t->ctx_ino != pc_ev_ino(ev))
			t->ctx = CTX_READ;
		dio_insert(t, ev, pages);
		t->ctx_sdev = ev->dev;
		t->ctx_ino = pc_ev_ino(ev);
		t->ctx_bdev = false;
		t->ctx_file = (uint32_t)(f - pc->files) + 1;
		log_add(pc, t, ev, ra);
		break;
	}
	case PC_EV_DELETE:
		if (bdev_inode(pc, ev->dev, pc_ev_ino(ev)))
			break;
		f = get_file(pc, ev->dev, pc_ev_ino(ev), ev->pid);
		if (!f)
			return -ENOMEM;
		f->tot.evicted += pages;
		f->iv.evicted += pages;
		break;
	case PC_EV_FAULT:
	case PC_EV_GET_PAGES:
	case PC_EV_MAP_PAGES: {
		uint64_t first = pc_ev_index(ev), last = first + pages - 1;

		dio_end_by_buffered(t);

		if (bdev_inode(pc, ev->dev, pc_ev_ino(ev)))
			break;
		f = get_file(pc, ev->dev, pc_ev_ino(ev), ev->pid);
		p = get_proc(pc, t);
		if (!f || !p)
			return -ENOMEM;
		/*
		 * read() asks again for the page it stopped in (the range of the
		 * next batch starts inside the last one): count pages once
		 */
		if (t->lk_sdev == ev->dev && t->lk_ino == pc_ev_ino(ev) && first >= t->lk_first &&
		    first <= t->lk_last)
			pages = last > t->lk_last ? last - t->lk_last : 0;
		t->lk_sdev = ev->dev;
		t->lk_ino = pc_ev_ino(ev);
		t->lk_first = first;
		t->lk_last = last;
		f->tot.lookups += pages;
		f->iv.lookups += pages;
		p->tot.lookups += pages;
		/* readahead inserts before the lookup is traced: its run is over */
		t->ra = 0;
		log_flush(pc, t);
		break;
	}
	case PC_EV_RA_SYNC:
	case PC_EV_RA_ASYNC:
		dio_end_by_buffered(t);
		t->ra = ev->kind;
		t->ra_sdev = ev->dev;
		t->ra_ino = pc_ev_ino(ev);
		log_flush(pc, t);
		break;
	case PC_EV_WB_DIRTY:
		if (bdev_inode_wb(pc, ev))
			break;
		f = get_file(pc, bdi_sdev(pc, ev), pc_ev_ino(ev), ev->pid);
		p = get_proc(pc, t);
		if (!f || !p)
			return -ENOMEM;
		f->tot.dirtied += pages;
		f->iv.dirtied += pages;
		p->tot.dirtied += pages;
		f->dirtier = ev->pid;
		break;
	case PC_EV_WB_START:
		dio_end_by_buffered(t);
		set_ctx(t, CTX_WRITE, bdi_sdev(pc, ev), pc_ev_ino(ev), pc, ev->pid,
			bdev_inode_wb(pc, ev));
		break;
	case PC_EV_WB_END:
		if (t->ctx == CTX_WRITE && t->ctx_ino == pc_ev_ino(ev))
			t->ctx = CTX_NONE;
		break;
	case PC_EV_WB_MARK:
		dio_end_by_buffered(t);
		set_ctx(t, CTX_WRITE, ev->dev, pc_ev_ino(ev), pc, ev->pid,
			bdev_inode(pc, ev->dev, pc_ev_ino(ev)));
		break;
	case PC_EV_DIO_ITER:
		/* buffered I/O through iomap (xfs) is no direct I/O */
		if (!(ev->count & PC_IOMAP_DIRECT)) {
			dio_end_by_buffered(t);
			break;
		}
		/* one per extent of the same direct I/O: the window goes on */
		if (t->dio && t->dio_sdev == ev->dev && t->dio_ino == pc_ev_ino(ev))
			break;
		/* fall through */
	case PC_EV_DIO_BEGIN:
		set_ctx(t, CTX_DIO, ev->dev, pc_ev_ino(ev), pc, ev->pid,
			bdev_inode(pc, ev->dev, pc_ev_ino(ev)));
		t->dio = true;
		t->dio_bdev = t->ctx_bdev;
		t->dio_sdev = ev->dev;
		t->dio_ino = pc_ev_ino(ev);
		t->dio_file = t->ctx_file;
		t->dio_ins = 0;
		break;
	case PC_EV_DIO_END:
		if (t->ctx == CTX_DIO && t->ctx_sdev == ev->dev && t->ctx_ino == pc_ev_ino(ev))
			t->ctx = CTX_NONE;
		if (t->dio && t->dio_sdev == ev->dev && t->dio_ino == pc_ev_ino(ev))
			t->dio = false;
		break;
	default:
		break;
	}
	return 0;
}

/* Whether a file of superblock @sdev lives on device @dev. */
static bool fs_on_dev(const struct pagecache *pc, uint32_t sdev, uint32_t dev)
{
	const struct fsmap_fs *fs = fsmap_by_sdev(pc->map, sdev);

	if (fs && fs->ndevs)
		return fsmap_fs_has_dev(fs, dev);
	if (KDEV_MAJOR(sdev))
		return sdev == dev;
	/* an anonymous superblock we cannot map: trust the task */
	return true;
}

/* Where a top-level I/O on @dev of task @t goes: a file index, or -(cat + 1). */
static int32_t owner_of(const struct pagecache *pc, const struct task *t,
			const struct blk_event *ev, uint32_t dev)
{
	bool writes = ev->op == BLK_OP_WRITE;

	bool in_ctx = t->ctx == CTX_DIO || t->ctx == (writes ? CTX_WRITE : CTX_READ);

	if (fsmap_is_swap(pc->map, dev))
		return -(PC_CAT_SWAP + 1);
	if (!strncmp(ev->comm, "jbd2/", 5))
		return -(PC_CAT_JOURNAL + 1);
	if (ev->flags & BLK_F_META)
		return -(PC_CAT_METADATA + 1);
	/*
	 * within a direct I/O, everything the task queues is its data but
	 * the reads of the pages it inserted meanwhile (metadata, mostly)
	 */
	if (t->dio && (writes || !t->dio_ins)) {
		if (t->dio_bdev)
			return fsmap_by_dev(pc->map, dev) ? -(PC_CAT_METADATA + 1)
							  : -(PC_CAT_RAW + 1);
		if (t->dio_file && fs_on_dev(pc, t->dio_sdev, dev))
			return (int32_t)t->dio_file - 1;
	}
	/* the block device's own page cache: a filesystem's buffers, or raw access */
	if (in_ctx && t->ctx_bdev)
		return fsmap_by_dev(pc->map, dev) ? -(PC_CAT_METADATA + 1) : -(PC_CAT_RAW + 1);
	if (in_ctx && t->ctx_file && fs_on_dev(pc, t->ctx_sdev, dev))
		return (int32_t)t->ctx_file - 1;
	/* no filesystem on it, where the map is the traced machine's: the device itself */
	if (pc->map_traced && pc->map->nfs && !fsmap_by_dev(pc->map, dev))
		return -(PC_CAT_RAW + 1);
	/*
	 * no context: a read fills the page cache first, writeback writes in
	 * its context; without iomap's events, what is neither is direct I/O
	 */
	if (!pc->dio_events && (ev->op == BLK_OP_READ || (writes && (ev->flags & BLK_F_SYNC))))
		return -(PC_CAT_DIRECT + 1);
	return -(PC_CAT_UNATTRIBUTED + 1);
}

static void account(struct pc_counts *c, const struct blk_event *ev, uint64_t bytes, bool direct)
{
	if (ev->op == BLK_OP_WRITE) {
		c->write_bytes += bytes;
		c->write_ios++;
	} else {
		c->read_bytes += bytes;
		c->read_ios++;
	}
	if (direct)
		c->direct_bytes += bytes;
}

static int on_queue(struct pagecache *pc, const struct blk_event *ev)
{
	uint64_t bytes = (uint64_t)ev->nr_sector << 9;
	uint32_t dev = ev->dev;
	uint64_t entry_ts = ev->ts;
	struct task *t;
	struct pc_proc *p;
	int32_t owner;
	bool direct;

	if (devset_add(&pc->queued, ev->dev))
		return -ENOMEM;
	t = get_task(pc, ev->pid);
	if (!t)
		return -ENOMEM;
	log_flush(pc, t);
	if (devset_has(&pc->lower, ev->dev)) {
		t->rm_valid = false;
		return 0;
	}
	/* a partition's I/O: remapped to its disk just before, by this task */
	if (t->rm_valid && t->rm_dev == ev->dev && t->rm_sector == ev->sector &&
	    !devset_has(&pc->queued, t->rm_old)) {
		dev = t->rm_old;
		entry_ts = t->rm_ts;
	}
	t->rm_valid = false;
	if ((ev->op != BLK_OP_READ && ev->op != BLK_OP_WRITE) || !bytes)
		return 0;

	owner = owner_of(pc, t, ev, dev);
	direct = (owner >= 0 && t->dio && (uint32_t)owner + 1 == t->dio_file &&
		  (ev->op == BLK_OP_WRITE || !t->dio_ins)) || owner == -(PC_CAT_DIRECT + 1);
	/*
	 * the reads of a block device's pages end its context once they have
	 * read them all: a direct read that follows (ext4 reads the file's
	 * extents through them first) is no metadata (4 KiB pages: where
	 * pages are larger, the context ends sooner)
	 */
	if (ev->op == BLK_OP_READ && t->ctx == CTX_READ && t->ctx_bdev) {
		uint64_t sectors = bytes >> 9;

		t->ctx_bdev_left = sectors >= t->ctx_bdev_left ? 0 : t->ctx_bdev_left - sectors;
		if (!t->ctx_bdev_left)
			t->ctx = CTX_NONE;
	}
	/*
	 * a read of pages inserted within a direct I/O uses up that many
	 * (4 KiB pages: where pages are larger, a read uses up its page sooner)
	 */
	if (t->dio && ev->op == BLK_OP_READ && t->dio_ins) {
		uint64_t used = (bytes + 4095) / 4096;

		t->dio_ins = used >= t->dio_ins ? 0 : t->dio_ins - (uint32_t)used;
	}
	p = get_proc(pc, t);
	if (!p)
		return -ENOMEM;
	if (ev->comm[0])
		memcpy(p->comm, ev->comm, sizeof(p->comm));
	if (owner >= 0) {
		struct pc_file *f = &pc->files[owner];

		account(&f->tot, ev, bytes, direct);
		account(&f->iv, ev, bytes, direct);
		/* writeback is the work of whoever dirtied the pages */
		if (t->ctx == CTX_WRITE && f->dirtier && f->dirtier != t->pid) {
			struct task *d = get_task(pc, f->dirtier);

			if (!d)
				return -ENOMEM;
			p = get_proc(pc, d);
			if (!p)
				return -ENOMEM;
		}
		account(&p->tot, ev, bytes, direct);
	} else {
		account(&pc->cats[-owner - 1], ev, bytes, direct);
		account(&pc->cats_iv[-owner - 1], ev, bytes, direct);
		account(&p->tot, ev, bytes, direct);
	}
	pend_add(pc, dev, entry_ts, owner);
	if (dev != ev->dev)
		pend_add(pc, ev->dev, ev->ts, owner);
	return 0;
}

static int on_remap(struct pagecache *pc, const struct blk_event *ev)
{
	struct task *t = get_task(pc, ev->pid);

	if (!t)
		return -ENOMEM;
	if (devset_has(&pc->queued, ev->old_dev) && devset_add(&pc->lower, ev->dev))
		return -ENOMEM;
	t->rm_valid = true;
	t->rm_old = ev->old_dev;
	t->rm_dev = ev->dev;
	t->rm_sector = ev->sector;
	t->rm_ts = ev->ts;
	return 0;
}

int pagecache_event(const struct blk_event *ev, void *ctx)
{
	struct pagecache *pc = ctx;

	if (ev->ts > pc->now)
		pc->now = ev->ts;
	if (pc_kind_is(ev->kind))
		return on_pagecache(pc, ev);
	switch (ev->kind) {
	case BLK_EV_BIO_QUEUE:
		return on_queue(pc, ev);
	case BLK_EV_BIO_REMAP:
		return on_remap(pc, ev);
	default:
		return 0;
	}
}

/* The owner of another piece of the bio split into @r's, if remembered. */
static bool split_owner_find(const struct pagecache *pc, const struct tk_rec *r, int32_t *owner)
{
	if (!r->splits && !r->split_rest)
		return false;
	for (unsigned int i = 0; i < SPLIT_OWNERS; i++) {
		const struct split_owner *so = &pc->split_owners[i];

		if (so->q && so->q == r->q && so->dev == r->dev) {
			*owner = so->owner;
			return true;
		}
	}
	return false;
}

int32_t pagecache_io(struct pagecache *pc, const struct tk_io *io)
{
	const struct tk_rec *r = io->root;
	struct pc_counts *c[2];
	uint64_t lat;
	int32_t owner;

	if (!r || !r->c || r->c < r->q)
		return PC_OWNER_NONE;
	if (!pend_take(pc, r->dev, r->q, &owner) && !split_owner_find(pc, r, &owner))
		return PC_OWNER_NONE;
	if (r->splits || r->split_rest) {
		pc->split_owners[pc->split_next] = (struct split_owner){ r->dev, r->q, owner };
		pc->split_next = (pc->split_next + 1) % SPLIT_OWNERS;
	}
	lat = r->c - r->q;
	if (owner >= 0) {
		c[0] = &pc->files[owner].tot;
		c[1] = &pc->files[owner].iv;
	} else {
		c[0] = &pc->cats[-owner - 1];
		c[1] = &pc->cats_iv[-owner - 1];
	}
	for (int i = 0; i < 2; i++) {
		c[i]->lat_n++;
		c[i]->lat_sum += lat;
		if (lat > c[i]->lat_max)
			c[i]->lat_max = lat;
	}
	return owner;
}

void pagecache_interval_reset(struct pagecache *pc)
{
	for (size_t i = 0; i < pc->nfiles; i++)
		memset(&pc->files[i].iv, 0, sizeof(pc->files[i].iv));
	memset(pc->cats_iv, 0, sizeof(pc->cats_iv));
}

const struct pc_file *pagecache_files(const struct pagecache *pc, size_t *n)
{
	*n = pc->nfiles;
	return pc->files;
}

const struct pc_counts *pagecache_cat(const struct pagecache *pc, enum pc_cat cat)
{
	return &pc->cats[cat];
}

const struct pc_counts *pagecache_cat_iv(const struct pagecache *pc, enum pc_cat cat)
{
	return &pc->cats_iv[cat];
}

const struct pc_proc *pagecache_procs(const struct pagecache *pc, size_t *n)
{
	*n = pc->nprocs;
	return pc->procs;
}

void pagecache_set_comm(struct pagecache *pc, int32_t pid, const char *comm)
{
	struct pc_proc *p;
	size_t j;

	if (!pc->thash_cap)
		return;
	for (j = mix((uint32_t)pid) & (pc->thash_cap - 1); pc->thash[j];
	     j = (j + 1) & (pc->thash_cap - 1)) {
		const struct task *t = &pc->tasks[pc->thash[j] - 1];

		if (t->pid != pid)
			continue;
		if (!t->proc)
			return;
		p = &pc->procs[t->proc - 1];
		if (!p->comm[0])
			strncpy(p->comm, comm, sizeof(p->comm) - 1);
		return;
	}
}

size_t pagecache_take_new(struct pagecache *pc, struct pc_new *out, size_t max)
{
	size_t n = pc->nnews - pc->news_taken;

	if (n > max)
		n = max;
	memcpy(out, pc->news + pc->news_taken, n * sizeof(*out));
	pc->news_taken += n;
	if (pc->news_taken == pc->nnews)
		pc->nnews = pc->news_taken = 0;
	return n;
}

bool pagecache_has_events(const struct pagecache *pc)
{
	return pc->any_pc;
}
