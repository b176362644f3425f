// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pagecache.c - the page-cache glue the commands share.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pcevent.h"
#include "base/util.h"
#include "cmd/opt.h"
#include "cmd/pagecache.h"
#include "cmd/signals.h"
#include "files/filetree.h"

/* Tasks whose files are looked up in one pass at most. */
#define PASS_PIDS 256

static int add_sdev(struct pc_filter *f, const struct fsmap_fs *fs)
{
	uint32_t *v;
	char **b;

	for (size_t i = 0; i < f->nsdevs; i++)
		if (f->sdevs[i] == fs->sdev)
			return 0;
	v = realloc(f->sdevs, (f->nsdevs + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->sdevs = v;
	v[f->nsdevs++] = fs->sdev;
	if (!fs->bdi[0])
		return 0;
	for (size_t i = 0; i < f->nbdis; i++)
		if (!strcmp(f->bdis[i], fs->bdi))
			return 0;
	b = realloc(f->bdis, (f->nbdis + 1) * sizeof(*b));
	if (!b)
		return -ENOMEM;
	f->bdis = b;
	b[f->nbdis] = strdup(fs->bdi);
	if (!b[f->nbdis])
		return -ENOMEM;
	f->nbdis++;
	return 0;
}

int pc_filter_from(const struct fsmap *map, const struct topo_selection *sel,
		   struct pc_filter *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < map->nfs; i++) {
		const struct fsmap_fs *fs = &map->fs[i];

		for (size_t d = 0; d < fs->ndevs; d++) {
			if (!topo_selection_has(sel, fs->devs[d]))
				continue;
			if (add_sdev(f, fs)) {
				pc_filter_free(f);
				return -ENOMEM;
			}
			break;
		}
	}
	return 0;
}

void pc_filter_free(struct pc_filter *f)
{
	for (size_t i = 0; i < f->nbdis; i++)
		free(f->bdis[i]);
	free(f->bdis);
	free(f->sdevs);
	memset(f, 0, sizeof(*f));
}

void pc_session_notes(const struct session *s)
{
	static const struct {
		unsigned int kind;
		const char *lost;
	} needed[] = {
		{ PC_EV_ADD, "page-cache misses, and with them the reads of files" },
		{ PC_EV_DELETE, "evictions" },
		{ PC_EV_RA_SYNC, "synchronous readahead (shown as plain misses)" },
		{ PC_EV_RA_ASYNC, "asynchronous readahead (shown as plain misses)" },
		{ PC_EV_GET_PAGES, "lookups (the pages read() asks of the cache) and no hit share" },
		{ PC_EV_WB_START, "the writeback of each file by the flusher" },
		{ PC_EV_WB_MARK, "the writeback of each file by fsync" },
	};

	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++) {
		if (s->pc_missing[k - PC_EV_ADD])
			debug_msg("this kernel has no %s:%s event", pc_kind_system(k),
				  pc_kind_name(k));
		if (s->pc_unfiltered[k - PC_EV_ADD])
			debug_msg("%s:%s cannot be filtered by filesystem: every filesystem's are traced",
				  pc_kind_system(k), pc_kind_name(k));
	}
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (s->pc_missing[needed[i].kind - PC_EV_ADD])
			note_msg("this kernel has no %s:%s event: no %s", pc_kind_system(needed[i].kind),
				 pc_kind_name(needed[i].kind), needed[i].lost);
	/* iomap_iter stands in for iomap_dio_rw_begin (5.15 to 6.2) */
	if (s->pc_missing[PC_EV_DIO_BEGIN - PC_EV_ADD] && s->pc_missing[PC_EV_DIO_ITER - PC_EV_ADD])
		note_msg("this kernel has no iomap:iomap_dio_rw_begin or iomap:iomap_iter event: no direct I/O per file");
	else if (s->pc_missing[PC_EV_DIO_BEGIN - PC_EV_ADD])
		debug_msg("no iomap:iomap_dio_rw_begin event: direct I/O per file from iomap:iomap_iter");
}

void pc_run_dio_events(struct pc_run *r, bool has_begin, bool has_iter)
{
	pagecache_set_source(r->pc, r->live, has_begin || has_iter);
	if (has_begin)
		r->dio_note = NULL;
	else if (has_iter)
		r->dio_note = "no iomap:iomap_dio_rw_begin event (kernels before 6.3): direct I/O is given to its file from iomap:iomap_iter";
	else
		r->dio_note = "no iomap:iomap_dio_rw_begin or iomap:iomap_iter event: direct I/O cannot be given to its file and counts as direct (reads that filled no page, sync writes outside writeback)";
}

void pc_run_watch(struct pc_run *r, const struct pc_filter *f)
{
	const uint32_t *sdevs = f->sdevs;
	uint32_t *all = NULL;
	size_t n = f->nsdevs;
	int ret;

	if (!r->live || r->resolve == CLI_RESOLVE_NONE || r->fw)
		return;
	/* no device given: every filesystem on a block device is traced */
	if (!n) {
		all = malloc((r->map.nfs + 1) * sizeof(*all));
		if (!all)
			return;
		for (size_t i = 0; i < r->map.nfs; i++)
			if (r->map.fs[i].ndevs)
				all[n++] = r->map.fs[i].sdev;
		sdevs = all;
	}
	ret = n ? fanwatch_open(&r->map, sdevs, n, &r->fw) : 0;
	free(all);
	if (!n)
		return;
	switch (ret) {
	case 0:
		fanwatch_get_stats(r->fw, &r->fw_st);
		if (r->fw_st.unmarked)
			note_msg("%zu of the traced filesystems have no file handles for fanotify: their files are named from /proc only",
				 r->fw_st.unmarked);
		debug_msg("fanotify watches %zu filesystems for file names", r->fw_st.marked);
		break;
	case -EPERM:
		note_msg("fanotify needs CAP_SYS_ADMIN: files of processes that exit before /proc is read keep MAJ:MIN:ino (--resolve-paths=walk names them)");
		break;
	case -EOPNOTSUPP:
		note_msg("the traced filesystems have no file handles for fanotify: files are named from /proc only (--resolve-paths=walk names the rest)");
		break;
	case -ENOSYS:
	case -EINVAL:
		note_msg("this kernel has no fanotify with FAN_REPORT_DFID_NAME (5.9+): files are named from /proc only (--resolve-paths=walk names the rest)");
		break;
	default:
		note_msg("cannot watch the traced filesystems with fanotify: %s; files are named from /proc only",
			 strerror(-ret));
		break;
	}
}

/* The names fanotify found: before /proc is asked, they are the ones opened by. */
static int take_watched(struct pc_run *r)
{
	struct fanwatch_name names[64];
	size_t n;
	int ret = 0;

	if (!r->fw)
		return 0;
	while ((n = fanwatch_take(r->fw, names, 64))) {
		for (size_t i = 0; i < n; i++) {
			if (names[i].path && !ret)
				ret = pathres_set(r->pr, names[i].sdev, names[i].ino, names[i].path,
						  names[i].deleted);
			else if (!names[i].path)
				pathres_set_deleted(r->pr, names[i].sdev, names[i].ino);
			free(names[i].path);
		}
	}
	return ret;
}

/* Stop fanotify, take its last names, and say what it lost. */
static int stop_watch(struct pc_run *r)
{
	int ret;

	if (!r->fw)
		return 0;
	fanwatch_stop(r->fw);
	ret = take_watched(r);
	fanwatch_get_stats(r->fw, &r->fw_st);
	debug_msg("fanotify: %llu events, %llu names, %llu unresolved, %llu overflows, %llu dropped",
		  (unsigned long long)r->fw_st.events, (unsigned long long)r->fw_st.named,
		  (unsigned long long)r->fw_st.unresolved, (unsigned long long)r->fw_st.overflow,
		  (unsigned long long)r->fw_st.dropped);
	if (r->fw_st.overflow || r->fw_st.dropped)
		snprintf(r->fw_note, sizeof(r->fw_note),
			 "fanotify lost file names (its queue overflowed %llu times, %llu names did not fit ours): those files show as MAJ:MIN:ino",
			 (unsigned long long)r->fw_st.overflow, (unsigned long long)r->fw_st.dropped);
	fanwatch_close(r->fw);
	r->fw = NULL;
	return ret;
}

static void run_io(const struct tk_io *io, void *ctx)
{
	struct pc_run *r = ctx;

	int32_t owner;

	if (r->st)
		stats_io(io, r->st);
	owner = pagecache_io(r->pc, io);
	if (r->io_fn)
		r->io_fn(io, owner, r->io_ctx);
}

/* A signal came since the walk began (the first one may have ended the tracing). */
static bool signalled(void *ctx)
{
	const struct pc_run *r = ctx;

	return live_nsignals != r->walk_signals;
}

int pc_run_init(struct pc_run *r, bool live, int resolve, const struct tk_params *tk,
		struct stats *st)
{
	/* once: a report whose read starts again makes its run again (cmd/roles.h) */
	static bool mountinfo_said;
	int ret;

	memset(r, 0, sizeof(*r));
	r->live = live;
	r->resolve = resolve != CLI_RESOLVE_DEFAULT ? resolve
		     : live ? CLI_RESOLVE_PROC : CLI_RESOLVE_NONE;
	r->st = st;
	ret = fsmap_load("", &r->map);
	if (ret < 0 && !mountinfo_said) {
		/* without it every queue event still counts, as unattributed */
		mountinfo_said = true;
		warn_msg("cannot read the mounted filesystems from /proc/self/mountinfo: %s",
			 strerror(-ret));
	}
	r->pc = pagecache_alloc(&r->map);
	/* a recording's devices are not those this machine's mounts describe */
	if (r->pc)
		pagecache_set_source(r->pc, live, true);
	r->pr = pathres_alloc("");
	if (r->pr && live)
		pathres_set_cancel(r->pr, signalled, r);
	if (tk)
		r->t = tracker_alloc(tk, run_io, r);
	if (!r->pc || !r->pr || (tk && !r->t)) {
		err_msg("out of memory");
		return -1;
	}
	return 0;
}

int pc_run_event(const struct blk_event *ev, void *ctx)
{
	struct pc_run *r = ctx;
	int ret;

	/* the tracker stops a read that must learn the roles first (cmd/roles.h) */
	if (r->t && !pc_kind_is(ev->kind) && (ret = tracker_event(ev, r->t)) < 0)
		return ret;
	ret = pagecache_event(ev, r->pc);
	return ret == -ENOMEM ? ret : 0;
}

/* /proc/PID/comm of a task still alive, for the tasks no block event named. */
static void name_tasks(struct pc_run *r)
{
	const struct pc_proc *p;
	size_t n;

	p = pagecache_procs(r->pc, &n);
	for (size_t i = 0; i < n; i++) {
		char path[64], comm[32];
		FILE *fp;

		if (p[i].comm[0])
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)p[i].pid);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		if (fgets(comm, sizeof(comm), fp)) {
			comm[strcspn(comm, "\n")] = '\0';
			pagecache_set_comm(r->pc, p[i].pid, comm);
		}
		fclose(fp);
		p = pagecache_procs(r->pc, &n);
	}
}

/* Files waiting for a name at most: past it, the oldest are given up. */
#define WAITING_MAX 65536

static void wait_for_name(struct pc_run *r, const struct pc_new *nw)
{
	if (r->nwaiting == r->waiting_cap) {
		size_t cap = r->waiting_cap ? r->waiting_cap * 2 : 256;
		struct pc_new *v;

		if (cap > WAITING_MAX) {
			memmove(r->waiting, r->waiting + 1, (r->nwaiting - 1) * sizeof(*v));
			r->nwaiting--;
		} else {
			v = realloc(r->waiting, cap * sizeof(*v));
			if (!v)
				return;
			r->waiting = v;
			r->waiting_cap = cap;
		}
	}
	r->waiting[r->nwaiting++] = *nw;
}

void pc_run_pass(struct pc_run *r)
{
	struct pc_new news[64];
	int32_t pids[PASS_PIDS];
	size_t npids = 0, n, kept = 0;

	if (take_watched(r) == -ENOMEM)
		return;

	while ((n = pagecache_take_new(r->pc, news, 64)))
		for (size_t i = 0; r->live && r->resolve != CLI_RESOLVE_NONE && i < n; i++)
			wait_for_name(r, &news[i]);
	for (size_t i = 0; i < r->nwaiting; i++) {
		const struct pc_new *w = &r->waiting[i];
		size_t k;

		if (pathres_lookup(r->pr, w->sdev, w->ino, NULL))
			continue;
		for (k = 0; k < npids && pids[k] != w->pid; k++)
			;
		if (k == npids && npids < PASS_PIDS) {
			pids[npids++] = w->pid;
			if (pathres_scan_pid(r->pr, w->pid) == -ENOMEM)
				break;
		}
		/* still nameless: try again next pass, while the task lives */
		if (!pathres_lookup(r->pr, w->sdev, w->ino, NULL) &&
		    !(kill(w->pid, 0) < 0 && errno == ESRCH))
			r->waiting[kept++] = *w;
	}
	r->nwaiting = kept;
	if (r->live)
		name_tasks(r);
}

/* Whether the interval counts of a file show any activity. */
static bool active(const struct pc_counts *c)
{
	return c->misses || c->evicted || c->lookups || c->dirtied || c->read_bytes ||
	       c->write_bytes;
}

int pc_run_walk(struct pc_run *r, const struct pathres_key *want, size_t n)
{
	int ret;

	r->walk_signals = live_nsignals;
	ret = n ? pathres_walk(r->pr, &r->map, want, n) : 0;
	if (ret == -ECANCELED) {
		note_msg("the walk for file names was stopped: the files it did not reach show as MAJ:MIN:ino");
		return 0;
	}
	if (ret >= 0)
		debug_msg("walk: %d of %zu files named", ret, n);
	return ret < 0 ? ret : 0;
}

int pc_run_walk_unnamed(struct pc_run *r, bool interval)
{
	struct pathres_key *want;
	const struct pc_file *f;
	size_t n, m = 0;
	int ret;

	f = pagecache_files(r->pc, &n);
	want = malloc((n + 1) * sizeof(*want));
	if (!want)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if ((!interval || active(&f[i].iv)) &&
		    !pathres_lookup(r->pr, f[i].sdev, f[i].ino, NULL))
			want[m++] = (struct pathres_key){ .sdev = f[i].sdev, .ino = f[i].ino };
	ret = pc_run_walk(r, want, m);
	free(want);
	return ret;
}

static void saved_comm(int pid, const char *comm, void *ctx)
{
	pagecache_set_comm(ctx, pid, comm);
}

int pc_run_finish(struct pc_run *r)
{
	pagecache_flush_log(r->pc);
	if (r->t)
		tracker_finish(r->t);
	if (stop_watch(r) == -ENOMEM) {
		err_msg("out of memory resolving file names");
		return -1;
	}
	pc_run_pass(r);
	/* tasks gone before /proc could name them: the kernel kept their names */
	if (r->live && session_saved_comms(saved_comm, r->pc) < 0)
		debug_msg("cannot read saved_cmdlines: task names may be missing");
	if (r->resolve == CLI_RESOLVE_NONE)
		return 0;
	if (pathres_scan_all(r->pr) == -ENOMEM ||
	    (r->resolve == CLI_RESOLVE_WALK && pc_run_walk_unnamed(r, false) == -ENOMEM)) {
		err_msg("out of memory resolving file names");
		return -1;
	}
	return 0;
}

int pc_run_recorded_names(struct pc_run *r, const struct tracefile *f)
{
	const struct tracefile_name *names;
	size_t n;

	names = tracefile_file_names(f, &n);
	for (size_t i = 0; i < n; i++)
		if (pathres_set(r->pr, names[i].sdev, names[i].ino, names[i].path,
				names[i].deleted) < 0)
			return -ENOMEM;
	r->recorded = n;
	return 0;
}

const char *pc_run_owner_name(const struct pc_run *r, int32_t owner, char *buf, size_t len)
{
	const struct pc_file *files;
	size_t n;

	if (owner == PC_OWNER_NONE)
		return NULL;
	if (PC_OWNER_IS_CAT(owner))
		return pc_cat_name(PC_OWNER_TO_CAT(owner));
	files = pagecache_files(r->pc, &n);
	if (owner < 0 || (size_t)owner >= n)
		return NULL;
	filetree_file_name(r->pr, files[owner].sdev, files[owner].ino, buf, len);
	return buf;
}

const char *pc_run_names(const struct pc_run *r)
{
	switch (r->resolve) {
	case CLI_RESOLVE_WALK:
		if (r->fw_st.marked)
			return "opens seen by fanotify, then open files and maps of processes, then a walk of the filesystems";
		return r->recorded ? "the recording, then open files and maps of processes, "
				     "then a walk of the filesystems"
				   : "open files and maps of processes, then a walk of the filesystems";
	case CLI_RESOLVE_PROC:
		if (r->fw_st.marked)
			return "opens seen by fanotify, then open files and maps of processes";
		return r->recorded ? "the recording, then open files and maps of processes"
				   : "open files and maps of processes";
	default:
		return r->recorded ? "the recording (blkstack record --page-cache)"
				   : "nothing (--resolve-paths=none): files are MAJ:MIN:ino";
	}
}

void pc_run_destroy(struct pc_run *r)
{
	fanwatch_close(r->fw);
	free(r->waiting);
	tracker_free(r->t);
	pathres_free(r->pr);
	pagecache_free(r->pc);
	fsmap_free(&r->map);
	memset(r, 0, sizeof(*r));
}
