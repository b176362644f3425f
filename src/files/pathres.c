// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pathres.c - inode numbers to path names, from /proc and from a walk.
 *
 * /proc/PID/fd/N is a link whose text is the file's path as the process
 * sees it ("... (deleted)" once unlinked); fdinfo/N gives its inode
 * number and the id of its mount, and the process's mountinfo turns the
 * mount id into the superblock device, which is what page-cache events
 * carry (stat() would give a btrfs subvolume's own anonymous device
 * instead). /proc/PID/maps lines carry the device and inode themselves.
 * All of these are plain text and links, so a fixture tree can hold them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/event.h"
#include "files/pathres.h"

#define DELETED_SUFFIX " (deleted)"
/* Directory depth a walk goes to at most: deeper trees are left unnamed. */
#define WALK_MAX_DEPTH 64

/* snprintf into a path buffer; false when it did not fit */
static bool pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < len;
}

struct entry {
	uint32_t sdev;
	bool used;
	bool deleted;
	uint64_t ino;
	char *path;		/* NULL: a walk looked for it and found nothing */
};

struct pathres {
	char *root;
	struct entry *tab;	/* open addressing, power-of-two size */
	size_t cap;
	size_t n;
	bool (*cancel)(void *ctx);	/* asked by a walk between entries */
	void *cancel_ctx;
};

static size_t hash_key(uint32_t sdev, uint64_t ino)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)sdev * 0xc2b2ae3d27d4eb4fULL);

	return (size_t)(h ^ (h >> 29));
}

struct pathres *pathres_alloc(const char *root)
{
	struct pathres *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return NULL;
	pr->root = strdup(root && strcmp(root, "/") ? root : "");
	pr->cap = 256;
	pr->tab = calloc(pr->cap, sizeof(*pr->tab));
	if (!pr->root || !pr->tab) {
		pathres_free(pr);
		errno = ENOMEM;
		return NULL;
	}
	return pr;
}

void pathres_free(struct pathres *pr)
{
	if (!pr)
		return;
	for (size_t i = 0; pr->tab && i < pr->cap; i++)
		free(pr->tab[i].path);
	free(pr->tab);
	free(pr->root);
	free(pr);
}

static struct entry *slot(const struct pathres *pr, uint32_t sdev, uint64_t ino)
{
	size_t i = hash_key(sdev, ino) & (pr->cap - 1);

	while (pr->tab[i].used && (pr->tab[i].sdev != sdev || pr->tab[i].ino != ino))
		i = (i + 1) & (pr->cap - 1);
	return &pr->tab[i];
}

static int grow(struct pathres *pr)
{
	struct entry *old = pr->tab;
	size_t oldcap = pr->cap;

	pr->tab = calloc(oldcap * 2, sizeof(*pr->tab));
	if (!pr->tab) {
		pr->tab = old;
		return -ENOMEM;
	}
	pr->cap = oldcap * 2;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			*slot(pr, old[i].sdev, old[i].ino) = old[i];
	free(old);
	return 0;
}

/* Returns 1 when the name is new, 0 when the file had one, -ENOMEM. */
static int set_name(struct pathres *pr, uint32_t sdev, uint64_t ino, const char *path,
		    bool deleted)
{
	struct entry *e;

	if (pr->n * 2 >= pr->cap && grow(pr))
		return -ENOMEM;
	e = slot(pr, sdev, ino);
	if (e->used && e->path)
		return 0;
	e->path = strdup(path);
	if (!e->path)
		return -ENOMEM;
	if (!e->used)
		pr->n++;
	e->used = true;
	e->sdev = sdev;
	e->ino = ino;
	e->deleted = deleted;
	return 1;
}

/* Remember that a walk did not find a file, so that no walk looks again. */
static int set_absent(struct pathres *pr, uint32_t sdev, uint64_t ino)
{
	struct entry *e;

	if (pr->n * 2 >= pr->cap && grow(pr))
		return -ENOMEM;
	e = slot(pr, sdev, ino);
	if (e->used)
		return 0;
	e->used = true;
	e->sdev = sdev;
	e->ino = ino;
	e->path = NULL;
	pr->n++;
	return 0;
}

int pathres_set(struct pathres *pr, uint32_t sdev, uint64_t ino, const char *path,
		bool deleted)
{
	int ret = set_name(pr, sdev, ino, path, deleted);

	return ret < 0 ? ret : 0;
}

void pathres_set_deleted(struct pathres *pr, uint32_t sdev, uint64_t ino)
{
	struct entry *e;

	if (!pr->cap)
		return;
	e = slot(pr, sdev, ino);
	if (e->used && e->path)
		e->deleted = true;
}

const char *pathres_lookup(const struct pathres *pr, uint32_t sdev, uint64_t ino,
			   bool *deleted)
{
	const struct entry *e = slot(pr, sdev, ino);

	if (!e->used || !e->path)
		return NULL;
	if (deleted)
		*deleted = e->deleted;
	return e->path;
}

size_t pathres_count(const struct pathres *pr)
{
	size_t n = 0;

	for (size_t i = 0; i < pr->cap; i++)
		n += pr->tab[i].used && pr->tab[i].path;
	return n;
}

/* Named, or looked for by a walk in vain. */
static bool known(const struct pathres *pr, uint32_t sdev, uint64_t ino)
{
	return slot(pr, sdev, ino)->used;
}

/* Cut a trailing " (deleted)"; tell whether there was one. */
static bool strip_deleted(char *path)
{
	size_t len = strlen(path), sl = strlen(DELETED_SUFFIX);

	if (len > sl && !strcmp(path + len - sl, DELETED_SUFFIX)) {
		path[len - sl] = '\0';
		return true;
	}
	return false;
}

/* mount id -> superblock device, from one process's mountinfo */
struct mnt_ids {
	struct {
		int id;
		uint32_t sdev;
	} *v;
	size_t n;
};

static void read_mount_ids(const char *file, struct mnt_ids *ids)
{
	char line[8192];
	FILE *fp = fopen(file, "r");

	ids->v = NULL;
	ids->n = 0;
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		unsigned int ma, mi;
		int id, parent;
		void *v;

		if (sscanf(line, "%d %d %u:%u", &id, &parent, &ma, &mi) != 4)
			continue;
		v = realloc(ids->v, (ids->n + 1) * sizeof(*ids->v));
		if (!v)
			break;
		ids->v = v;
		ids->v[ids->n].id = id;
		ids->v[ids->n].sdev = KDEV_MKDEV(ma, mi);
		ids->n++;
	}
	fclose(fp);
}

static bool mount_sdev(const struct mnt_ids *ids, int id, uint32_t *sdev)
{
	for (size_t i = 0; i < ids->n; i++) {
		if (ids->v[i].id == id) {
			*sdev = ids->v[i].sdev;
			return true;
		}
	}
	return false;
}

/* fdinfo's "mnt_id:" and "ino:" lines; false when either is missing */
static bool read_fdinfo(const char *file, int *mnt_id, uint64_t *ino)
{
	bool has_mnt = false, has_ino = false;
	char line[256];
	FILE *fp = fopen(file, "r");

	if (!fp)
		return false;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long v;

		if (sscanf(line, "mnt_id: %d", mnt_id) == 1)
			has_mnt = true;
		else if (sscanf(line, "ino: %llu", &v) == 1) {
			*ino = v;
			has_ino = true;
		}
	}
	fclose(fp);
	return has_mnt && has_ino;
}

/*
 * One open file. Kernels before 5.14 have no "ino:" in fdinfo: on this
 * machine (no fixture root) stat() of the fd link then gives the inode,
 * and the mount id still gives the device.
 */
static int scan_fd(struct pathres *pr, const char *procdir, const char *fd,
		   const struct mnt_ids *ids)
{
	char path[PATH_MAX + 64], target[PATH_MAX];
	uint64_t ino = 0;
	uint32_t sdev;
	bool deleted;
	int mnt_id = -1;
	ssize_t n;

	if (!pathf(path, sizeof(path), "%s/fd/%s", procdir, fd))
		return 0;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	if (target[0] != '/')
		return 0;	/* pipe:[..], socket:[..], anon_inode:... */
	deleted = strip_deleted(target);
	if (!pathf(path, sizeof(path), "%s/fdinfo/%s", procdir, fd))
		return 0;
	if (!read_fdinfo(path, &mnt_id, &ino)) {
		struct stat st;

		pathf(path, sizeof(path), "%s/fd/%s", procdir, fd);
		if (pr->root[0] || mnt_id < 0 || stat(path, &st) || !S_ISREG(st.st_mode))
			return 0;
		ino = st.st_ino;
	}
	if (!mount_sdev(ids, mnt_id, &sdev))
		return 0;
	return set_name(pr, sdev, ino, target, deleted);
}

/* /proc/PID/maps: "start-end perms offset MAJ:MIN inode path" (hex MAJ:MIN) */
static int scan_maps(struct pathres *pr, const char *procdir)
{
	char file[PATH_MAX], line[PATH_MAX + 128];
	int found = 0;
	FILE *fp;

	fp = pathf(file, sizeof(file), "%s/maps", procdir) ? fopen(file, "r") : NULL;
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		unsigned long long ino;
		unsigned int ma, mi;
		char *path, *nl;
		bool deleted;
		int ret, pos = 0;

		if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &ma, &mi, &ino, &pos) != 3 || !pos ||
		    !ino)
			continue;
		path = line + pos;
		nl = strchr(path, '\n');
		if (nl)
			*nl = '\0';
		if (path[0] != '/')
			continue;
		deleted = strip_deleted(path);
		ret = set_name(pr, KDEV_MKDEV(ma, mi), ino, path, deleted);
		if (ret < 0) {
			fclose(fp);
			return ret;
		}
		found += ret;
	}
	fclose(fp);
	return found;
}

int pathres_scan_pid(struct pathres *pr, pid_t pid)
{
	char procdir[PATH_MAX], file[PATH_MAX + 32];
	struct mnt_ids ids;
	struct dirent *de;
	int found = 0, ret;
	DIR *dir;

	snprintf(procdir, sizeof(procdir), "%s/proc/%d", pr->root, (int)pid);
	snprintf(file, sizeof(file), "%s/mountinfo", procdir);
	read_mount_ids(file, &ids);
	snprintf(file, sizeof(file), "%s/fd", procdir);
	dir = opendir(file);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		ret = scan_fd(pr, procdir, de->d_name, &ids);
		if (ret < 0) {
			found = ret;
			break;
		}
		found += ret;
	}
	if (dir)
		closedir(dir);
	free(ids.v);
	if (found < 0)
		return found;
	ret = scan_maps(pr, procdir);
	return ret < 0 ? ret : found + ret;
}

int pathres_scan_all(struct pathres *pr)
{
	char dir[PATH_MAX];
	struct dirent *de;
	int found = 0;
	DIR *proc;

	snprintf(dir, sizeof(dir), "%s/proc", pr->root);
	proc = opendir(dir);
	if (!proc)
		return 0;
	while ((de = readdir(proc))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		int ret;

		if (*end || pid <= 0)
			continue;
		ret = pathres_scan_pid(pr, pid);
		if (ret < 0) {
			closedir(proc);
			return ret;
		}
		found += ret;
	}
	closedir(proc);
	return found;
}

/* ---- the walk ------------------------------------------------------------ */

struct walk {
	struct pathres *pr;
	uint32_t sdev;		/* the superblock whose files are named */
	dev_t st_dev;		/* the walked mount's st_dev: others are not crossed */
	uint64_t *inos;		/* the wanted inodes of this superblock, ascending */
	size_t n;
	size_t left;		/* wanted files of this superblock still unnamed */
	int found;
	int err;		/* or -ECANCELED: pathres_set_cancel's callback said stop */
	size_t rootlen;		/* strlen of the fixture root, cut from the names */
};

static bool cancelled(struct walk *w)
{
	if (!w->err && w->pr->cancel && w->pr->cancel(w->pr->cancel_ctx))
		w->err = -ECANCELED;
	return w->err == -ECANCELED;
}

static int cmp_ino(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool wanted(const struct walk *w, uint64_t ino)
{
	return bsearch(&ino, w->inos, w->n, sizeof(*w->inos), cmp_ino) != NULL;
}

static void walk_dir(struct walk *w, char *path, size_t len, int depth)
{
	struct dirent *de;
	DIR *dir;

	if (depth > WALK_MAX_DEPTH || !w->left || w->err)
		return;
	dir = opendir(len ? path : "/");
	if (!dir)
		return;
	while (w->left && !w->err && !cancelled(w) && (de = readdir(dir))) {
		size_t nl = strlen(de->d_name);
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len + 1 + nl >= PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, nl + 1);
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_dev == w->st_dev) {
			if (!S_ISDIR(st.st_mode) && wanted(w, st.st_ino) &&
			    !pathres_lookup(w->pr, w->sdev, st.st_ino, NULL)) {
				int ret = set_name(w->pr, w->sdev, st.st_ino,
						   path + w->rootlen, false);

				if (ret < 0)
					w->err = ret;
				else if (ret) {
					w->found++;
					w->left--;
				}
			} else if (S_ISDIR(st.st_mode)) {
				walk_dir(w, path, len + 1 + nl, depth + 1);
			}
		}
		path[len] = '\0';
	}
	closedir(dir);
}

void pathres_set_cancel(struct pathres *pr, bool (*cancel)(void *ctx), void *ctx)
{
	pr->cancel = cancel;
	pr->cancel_ctx = ctx;
}

int pathres_walk(struct pathres *pr, const struct fsmap *map, const struct pathres_key *want,
		 size_t n)
{
	char path[PATH_MAX];
	int found = 0;

	for (size_t f = 0; f < map->nfs; f++) {
		const struct fsmap_fs *fs = &map->fs[f];
		struct walk w = { .pr = pr, .sdev = fs->sdev, .rootlen = strlen(pr->root) };
		const struct fsmap_mount *mnt = NULL;
		struct stat st;

		for (size_t i = 0; i < n; i++)
			if (want[i].sdev == fs->sdev && !known(pr, fs->sdev, want[i].ino))
				w.left++;
		if (!w.left)
			continue;
		w.inos = malloc(w.left * sizeof(*w.inos));
		if (!w.inos)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			if (want[i].sdev == fs->sdev && !known(pr, fs->sdev, want[i].ino))
				w.inos[w.n++] = want[i].ino;
		qsort(w.inos, w.n, sizeof(*w.inos), cmp_ino);
		/* a mount of the filesystem's root names every file */
		for (size_t i = 0; i < fs->nmounts && !mnt; i++)
			if (!strcmp(fs->mounts[i].root, "/"))
				mnt = &fs->mounts[i];
		if (!mnt && fs->nmounts)
			mnt = &fs->mounts[0];
		snprintf(path, sizeof(path), "%s%s", pr->root,
			 mnt && strcmp(mnt->target, "/") ? mnt->target : "");
		if (mnt && stat(path[0] ? path : "/", &st) == 0) {
			w.st_dev = st.st_dev;
			walk_dir(&w, path, strlen(path), 0);
		}
		/* what the walk did not find, no walk will: say so once (not
		 * when it was stopped: what it did not reach stays unknown) */
		for (size_t i = 0; i < w.n && !w.err; i++)
			if (!known(pr, fs->sdev, w.inos[i]))
				w.err = set_absent(pr, fs->sdev, w.inos[i]);
		free(w.inos);
		if (w.err)
			return w.err;
		found += w.found;
	}
	return found;
}
