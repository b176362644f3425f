// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fanwatch.c - file names while tracing, from fanotify (see fanwatch.h).
 *
 * Why fanotify: /proc names a file only while some process holds it open,
 * and "cat FILE" has exited before a pass looks; a walk of the filesystem
 * costs a read of every directory. A filesystem mark reports every open on
 * it, in the kernel, as it happens; with FAN_REPORT_DFID_NAME the event
 * carries the parent directory's file handle and the entry's name, and
 * with FAN_REPORT_FID the file's own handle, whose inode number ext4, xfs
 * and btrfs encode in it (decoded here; other filesystems are asked with
 * open_by_handle_at and fstat). No file descriptor of the opened file is
 * ever made, so a watched open costs the opener almost nothing.
 *
 * The reader is a thread, so that a burst of opens between two passes of
 * the trace reader does not overflow the kernel's queue (16384 events);
 * its names wait in a bounded queue of ours, and what does not fit is
 * counted, never silently lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "files/fanwatch.h"

/* Names waiting to be taken at most: past it, new ones are counted as dropped. */
#define QUEUE_MAX	65536
/* Directories whose path is remembered (most opens are in a few). */
#define DIR_CACHE	64
/* Files already named, remembered so that each is resolved once; cleared when full. */
#define SEEN_MAX	(1U << 18)
#define READ_BUF	(64 * 1024)

/* File handle types (include/linux/exportfs.h, fs/xfs, fs/btrfs) */
#define FILEID_INO32_GEN		1
#define FILEID_INO32_GEN_PARENT		2
#define FILEID_INO64_GEN		0x81	/* also xfs's 64-bit inodes */
#define FILEID_INO64_GEN_PARENT		0x82
#define FILEID_BTRFS_WITHOUT_PARENT	0x4d
#define FILEID_BTRFS_WITH_PARENT	0x4e
#define FILEID_BTRFS_WITH_PARENT_ROOT	0x4f

/*
 * One filesystem watched. Its mount point is opened only to resolve a
 * handle, and closed at once: a descriptor held open would make the
 * filesystem busy, and an umount while tracing fail.
 */
struct mark {
	uint32_t sdev;
	int32_t fsid[2];
	char *target;
};

struct dir_entry {
	unsigned int len;
	int type;
	unsigned char handle[MAX_HANDLE_SZ];
	char *path;
};

struct seen {
	uint32_t sdev;		/* 0 with ino 0: empty */
	uint64_t ino;
};

struct fanwatch {
	int fd;
	int stop_fd;
	struct mark *marks;
	size_t nmarks;
	pthread_t thread;
	bool running;

	/* the thread's own */
	struct dir_entry dirs[DIR_CACHE];
	unsigned int dir_next;
	struct seen *seen;
	size_t nseen;

	pthread_mutex_t lock;	/* guards what follows */
	struct fanwatch_name *q;
	size_t qhead, qlen;
	struct fanwatch_stats st;
};

/* ---- decoding ------------------------------------------------------------ */

int fanwatch_parse(const void *buf, size_t len, size_t *off, struct fanwatch_event *ev)
{
	const unsigned char *p = (const unsigned char *)buf + *off;
	struct fanotify_event_metadata md;
	size_t left = len - *off, pos;

	if (*off >= len)
		return 0;
	if (left < sizeof(md))
		goto bad;
	memcpy(&md, p, sizeof(md));
	if (md.vers != FANOTIFY_METADATA_VERSION || md.event_len < sizeof(md) ||
	    md.event_len > left || md.metadata_len < sizeof(md) || md.metadata_len > md.event_len)
		goto bad;
	memset(ev, 0, sizeof(*ev));
	ev->mask = md.mask;
	ev->pid = md.pid;
	/* the info records follow the metadata, each with its own length */
	for (pos = md.metadata_len; pos + sizeof(struct fanotify_event_info_header) <= md.event_len;) {
		struct fanotify_event_info_header hdr;
		struct fanotify_event_info_fid fid;
		struct file_handle fh;
		const unsigned char *h;
		size_t hlen;

		memcpy(&hdr, p + pos, sizeof(hdr));
		if (hdr.len < sizeof(hdr) || hdr.len > md.event_len - pos)
			goto bad;
		if (hdr.info_type != FAN_EVENT_INFO_TYPE_FID &&
		    hdr.info_type != FAN_EVENT_INFO_TYPE_DFID_NAME &&
		    hdr.info_type != FAN_EVENT_INFO_TYPE_DFID) {
			pos += hdr.len;
			continue;
		}
		if (hdr.len < sizeof(fid) + sizeof(fh))
			goto bad;
		memcpy(&fid, p + pos, sizeof(fid));
		memcpy(&fh, p + pos + sizeof(fid), sizeof(fh));
		h = p + pos + sizeof(fid) + sizeof(fh);
		hlen = hdr.len - sizeof(fid) - sizeof(fh);
		if (fh.handle_bytes > hlen || fh.handle_bytes > MAX_HANDLE_SZ)
			goto bad;
		memcpy(ev->fsid, &fid.fsid, sizeof(ev->fsid));
		if (hdr.info_type == FAN_EVENT_INFO_TYPE_FID) {
			ev->obj_handle = h;
			ev->obj_handle_len = fh.handle_bytes;
			ev->obj_type = fh.handle_type;
		} else {
			ev->dir_handle = h;
			ev->dir_handle_len = fh.handle_bytes;
			ev->dir_type = fh.handle_type;
			if (hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME) {
				const char *name = (const char *)h + fh.handle_bytes;
				size_t room = hlen - fh.handle_bytes;

				/* the name ends within the record, or it is no name */
				if (!room || !memchr(name, '\0', room))
					goto bad;
				ev->name = name;
			}
		}
		pos += hdr.len;
	}
	*off += md.event_len;
	return 1;
bad:
	*off = len;
	return -EINVAL;
}

static uint64_t load_u32(const unsigned char *h)
{
	uint32_t v;

	memcpy(&v, h, sizeof(v));
	return v;
}

static uint64_t load_u64(const unsigned char *h)
{
	uint64_t v;

	memcpy(&v, h, sizeof(v));
	return v;
}

int fanwatch_handle_ino(int type, const unsigned char *h, unsigned int len, uint64_t *ino)
{
	switch (type) {
	case FILEID_INO32_GEN:
	case FILEID_INO32_GEN_PARENT:
		/* u32 ino, u32 generation[, parent's] (exportfs, ext4, xfs) */
		if (len < 8)
			return -EINVAL;
		*ino = load_u32(h);
		return 0;
	case FILEID_INO64_GEN:
	case FILEID_INO64_GEN_PARENT:
		/* u64 ino, u32 generation (xfs_fid64, and exportfs from 6.7) */
	case FILEID_BTRFS_WITHOUT_PARENT:
	case FILEID_BTRFS_WITH_PARENT:
	case FILEID_BTRFS_WITH_PARENT_ROOT:
		/* struct btrfs_fid: u64 objectid (the inode number), u64 root, ... */
		if (len < 12)
			return -EINVAL;
		*ino = load_u64(h);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* ---- the thread's side --------------------------------------------------- */

static const struct mark *mark_of(const struct fanwatch *fw, const int32_t fsid[2])
{
	for (size_t i = 0; i < fw->nmarks; i++)
		if (fw->marks[i].fsid[0] == fsid[0] && fw->marks[i].fsid[1] == fsid[1])
			return &fw->marks[i];
	/* one filesystem watched: its events are its, whatever fsid they carry */
	return fw->nmarks == 1 ? &fw->marks[0] : NULL;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Whether (sdev, ino) was named already; remember it when not. */
static bool seen_add(struct fanwatch *fw, uint32_t sdev, uint64_t ino)
{
	size_t j;

	if (!fw->seen)
		return false;
	if (fw->nseen * 2 >= SEEN_MAX) {
		memset(fw->seen, 0, SEEN_MAX * sizeof(*fw->seen));
		fw->nseen = 0;
	}
	for (j = mix(ino ^ ((uint64_t)sdev << 40)) & (SEEN_MAX - 1);
	     fw->seen[j].sdev || fw->seen[j].ino; j = (j + 1) & (SEEN_MAX - 1))
		if (fw->seen[j].sdev == sdev && fw->seen[j].ino == ino)
			return true;
	fw->seen[j] = (struct seen){ sdev, ino };
	fw->nseen++;
	return false;
}

static void seen_del(struct fanwatch *fw, uint32_t sdev, uint64_t ino)
{
	/* cheaper than deletion in open addressing: forget everything */
	(void)sdev;
	(void)ino;
	if (fw->seen && fw->nseen) {
		memset(fw->seen, 0, SEEN_MAX * sizeof(*fw->seen));
		fw->nseen = 0;
	}
}

static void push(struct fanwatch *fw, uint32_t sdev, uint64_t ino, char *path, bool deleted)
{
	pthread_mutex_lock(&fw->lock);
	if (fw->qlen == QUEUE_MAX) {
		fw->st.dropped++;
		pthread_mutex_unlock(&fw->lock);
		free(path);
		return;
	}
	fw->q[(fw->qhead + fw->qlen) % QUEUE_MAX] = (struct fanwatch_name){
		.sdev = sdev, .ino = ino, .path = path, .deleted = deleted,
	};
	fw->qlen++;
	if (path)
		fw->st.named++;
	pthread_mutex_unlock(&fw->lock);
}

static void count(struct fanwatch *fw, uint64_t *what)
{
	pthread_mutex_lock(&fw->lock);
	(*what)++;
	pthread_mutex_unlock(&fw->lock);
}

/* open_by_handle_at on the mark's filesystem. Returns the descriptor or a negative errno. */
static int by_handle(const struct mark *m, struct file_handle *fh, int flags)
{
	/* not O_PATH: open_by_handle_at takes no O_PATH descriptor (EBADF) */
	int mfd = open(m->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, err;

	if (mfd < 0)
		return -errno;
	fd = open_by_handle_at(mfd, fh, flags);
	err = errno;
	close(mfd);
	return fd < 0 ? -err : fd;
}

/* The path of a directory handle: remembered, else opened and read back from /proc. */
static const char *dir_path(struct fanwatch *fw, const struct mark *m,
			    const struct fanwatch_event *ev, int *dirfd)
{
	union {
		struct file_handle fh;
		unsigned char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	struct dir_entry *d;
	char link[64], path[PATH_MAX];
	ssize_t n;
	int fd;

	*dirfd = -1;
	for (unsigned int i = 0; i < DIR_CACHE; i++) {
		d = &fw->dirs[i];
		if (d->path && d->len == ev->dir_handle_len && d->type == ev->dir_type &&
		    !memcmp(d->handle, ev->dir_handle, d->len))
			return d->path;
	}
	u.fh.handle_bytes = ev->dir_handle_len;
	u.fh.handle_type = ev->dir_type;
	memcpy(u.fh.f_handle, ev->dir_handle, ev->dir_handle_len);
	fd = by_handle(m, &u.fh, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0) {
		close(fd);
		return NULL;
	}
	path[n] = '\0';
	d = &fw->dirs[fw->dir_next];
	fw->dir_next = (fw->dir_next + 1) % DIR_CACHE;
	free(d->path);
	d->path = strdup(path);
	if (!d->path) {
		close(fd);
		return NULL;
	}
	d->len = ev->dir_handle_len;
	d->type = ev->dir_type;
	memcpy(d->handle, ev->dir_handle, d->len);
	*dirfd = fd;
	return d->path;
}

/* The inode number of the object: from its handle, else by opening it. */
static int obj_ino(const struct mark *m, const struct fanwatch_event *ev, uint64_t *ino)
{
	union {
		struct file_handle fh;
		unsigned char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} u;
	struct stat st;
	int fd, ret;

	if (!ev->obj_handle)
		return -ENOENT;
	if (!fanwatch_handle_ino(ev->obj_type, ev->obj_handle, ev->obj_handle_len, ino))
		return 0;
	u.fh.handle_bytes = ev->obj_handle_len;
	u.fh.handle_type = ev->obj_type;
	memcpy(u.fh.f_handle, ev->obj_handle, ev->obj_handle_len);
	fd = by_handle(m, &u.fh, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return fd;
	ret = fstat(fd, &st) < 0 ? -errno : 0;
	close(fd);
	*ino = st.st_ino;
	return ret;
}

static void on_event(struct fanwatch *fw, const struct fanwatch_event *ev)
{
	const struct mark *m;
	const char *dir;
	struct stat st;
	uint64_t ino = 0;
	char *path;
	bool deleted;
	int dirfd;

	if (ev->mask & FAN_Q_OVERFLOW) {
		count(fw, &fw->st.overflow);
		return;
	}
	m = mark_of(fw, ev->fsid);
	if (!m || (ev->mask & FAN_ONDIR))
		return;
	if (obj_ino(m, ev, &ino) < 0) {
		count(fw, &fw->st.unresolved);
		return;
	}
	if (ev->mask & FAN_DELETE_SELF) {
		seen_del(fw, m->sdev, ino);
		push(fw, m->sdev, ino, NULL, true);
		return;
	}
	if (!(ev->mask & FAN_OPEN) || !ev->dir_handle || !ev->name || seen_add(fw, m->sdev, ino))
		return;
	dir = dir_path(fw, m, ev, &dirfd);
	if (!dir) {
		count(fw, &fw->st.unresolved);
		return;
	}
	if (asprintf(&path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", ev->name) < 0) {
		if (dirfd >= 0)
			close(dirfd);
		count(fw, &fw->st.unresolved);
		return;
	}
	/*
	 * removed (or replaced) between the open and now: the name is still
	 * the one it was opened by, and the file is deleted
	 */
	deleted = (dirfd >= 0 ? fstatat(dirfd, ev->name, &st, AT_SYMLINK_NOFOLLOW)
			      : lstat(path, &st)) < 0 || st.st_ino != ino;
	if (dirfd >= 0)
		close(dirfd);
	push(fw, m->sdev, ino, path, deleted);
}

/* Read and handle what the group holds now. Returns -EAGAIN once empty. */
static int drain(struct fanwatch *fw, unsigned char *buf)
{
	struct fanwatch_event ev;
	ssize_t n;
	size_t off;

	for (;;) {
		n = read(fw->fd, buf, READ_BUF);
		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		if (n == 0)
			return -EAGAIN;
		off = 0;
		while (fanwatch_parse(buf, n, &off, &ev) > 0) {
			pthread_mutex_lock(&fw->lock);
			fw->st.events++;
			pthread_mutex_unlock(&fw->lock);
			on_event(fw, &ev);
		}
	}
}

static void *reader(void *arg)
{
	struct fanwatch *fw = arg;
	unsigned char *buf = malloc(READ_BUF);
	struct pollfd pfd[2] = {
		{ .fd = fw->fd, .events = POLLIN },
		{ .fd = fw->stop_fd, .events = POLLIN },
	};

	if (!buf)
		return NULL;
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN)
			drain(fw, buf);
		if (pfd[1].revents & POLLIN) {
			/* stopping: what the kernel queued before the stop is still ours */
			drain(fw, buf);
			break;
		}
	}
	free(buf);
	return NULL;
}

/* ---- the caller's side --------------------------------------------------- */

/* Mark one filesystem; -EXDEV/-EOPNOTSUPP/-ENODEV: it has no usable file handles. */
static int mark_fs(struct fanwatch *fw, const struct fsmap_fs *fs)
{
	struct mark *m = &fw->marks[fw->nmarks];
	const char *target = NULL;
	struct statfs sf;

	/* the whole filesystem is marked, through a mount of its root if there is one */
	for (size_t i = 0; i < fs->nmounts && !target; i++)
		if (!strcmp(fs->mounts[i].root, "/"))
			target = fs->mounts[i].target;
	if (!target && fs->nmounts)
		target = fs->mounts[0].target;
	if (!target)
		return -ENOENT;
	if (fanotify_mark(fw->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN | FAN_DELETE_SELF,
			  AT_FDCWD, target) < 0)
		return -errno;
	if (statfs(target, &sf) < 0)
		return -errno;
	m->target = strdup(target);
	if (!m->target)
		return -ENOMEM;
	memcpy(m->fsid, &sf.f_fsid, sizeof(m->fsid));
	m->sdev = fs->sdev;
	fw->nmarks++;
	return 0;
}

int fanwatch_open(const struct fsmap *map, const uint32_t *sdevs, size_t n,
		  struct fanwatch **out)
{
	sigset_t all, old;
	struct fanwatch *fw;
	int ret = 0;

	*out = NULL;
	fw = calloc(1, sizeof(*fw));
	if (!fw)
		return -ENOMEM;
	fw->fd = fw->stop_fd = -1;
	pthread_mutex_init(&fw->lock, NULL);
	fw->marks = calloc(n ? n : 1, sizeof(*fw->marks));
	fw->q = malloc(QUEUE_MAX * sizeof(*fw->q));
	fw->seen = calloc(SEEN_MAX, sizeof(*fw->seen));
	if (!fw->marks || !fw->q || !fw->seen) {
		ret = -ENOMEM;
		goto out_free;
	}
	fw->fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_FID |
			       FAN_REPORT_DFID_NAME, O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fw->fd < 0) {
		ret = -errno;
		goto out_free;
	}
	for (size_t i = 0; i < n; i++) {
		const struct fsmap_fs *fs = fsmap_by_sdev(map, sdevs[i]);
		int r;

		if (!fs)
			continue;
		r = mark_fs(fw, fs);
		if (r == -EPERM || r == -ENOMEM) {
			ret = r;
			goto out_free;
		}
		if (r < 0)
			fw->st.unmarked++;
	}
	fw->st.marked = fw->nmarks;
	if (!fw->nmarks) {
		ret = -EOPNOTSUPP;
		goto out_free;
	}
	fw->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fw->stop_fd < 0) {
		ret = -errno;
		goto out_free;
	}
	/* signals are the main thread's: it alone stops the tracing */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&fw->thread, NULL, reader, fw);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto out_free;
	fw->running = true;
	*out = fw;
	return 0;
out_free:
	fanwatch_close(fw);
	return ret;
}

void fanwatch_stop(struct fanwatch *fw)
{
	uint64_t one = 1;

	if (!fw || !fw->running)
		return;
	if (write(fw->stop_fd, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(fw->thread);
	pthread_join(fw->thread, NULL);
	fw->running = false;
}

size_t fanwatch_take(struct fanwatch *fw, struct fanwatch_name *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&fw->lock);
	for (n = 0; n < max && fw->qlen; n++) {
		out[n] = fw->q[fw->qhead];
		fw->qhead = (fw->qhead + 1) % QUEUE_MAX;
		fw->qlen--;
	}
	pthread_mutex_unlock(&fw->lock);
	return n;
}

void fanwatch_get_stats(struct fanwatch *fw, struct fanwatch_stats *st)
{
	pthread_mutex_lock(&fw->lock);
	*st = fw->st;
	pthread_mutex_unlock(&fw->lock);
}

void fanwatch_close(struct fanwatch *fw)
{
	if (!fw)
		return;
	fanwatch_stop(fw);
	for (size_t i = 0; i < fw->nmarks; i++)
		free(fw->marks[i].target);
	/* closing the group removes its marks */
	if (fw->fd >= 0)
		close(fw->fd);
	if (fw->stop_fd >= 0)
		close(fw->stop_fd);
	for (size_t i = 0; fw->q && i < fw->qlen; i++)
		free(fw->q[(fw->qhead + i) % QUEUE_MAX].path);
	for (unsigned int i = 0; i < DIR_CACHE; i++)
		free(fw->dirs[i].path);
	pthread_mutex_destroy(&fw->lock);
	free(fw->seen);
	free(fw->q);
	free(fw->marks);
	free(fw);
}
