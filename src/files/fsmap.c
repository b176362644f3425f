// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fsmap.c - the mounted filesystems, their devices and backing devices.
 *
 * mountinfo (through libmount) gives each mount's superblock device, root,
 * target and source. The block devices come from the superblock device
 * itself when it is one (ext4, xfs), else from the source and, for btrfs,
 * from /sys/fs/btrfs/UUID/devices, which lists every member of a
 * multi-device filesystem. The bdi name is the whole disk's MAJ:MIN for a
 * filesystem on a block device, or what /sys/fs/btrfs/UUID/bdi points at.
 */
#include <dirent.h>
#include <errno.h>
#include <libmount.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/event.h"
#include "files/fsmap.h"
#include "track/topo.h"

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

static int join(char *buf, size_t len, const char *root, const char *path)
{
	int n = snprintf(buf, len, "%s%s", root, path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* @root/sys/class/block/NAME/dev as a kernel dev_t; 0 when unreadable */
static uint32_t class_dev(const char *root, const char *name)
{
	char path[PATH_MAX], rel[PATH_MAX];
	unsigned int ma, mi;
	FILE *fp;
	int n;

	snprintf(rel, sizeof(rel), "/sys/class/block/%s/dev", name);
	if (join(path, sizeof(path), root, rel))
		return 0;
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	n = fscanf(fp, "%u:%u", &ma, &mi);
	fclose(fp);
	return n == 2 ? KDEV_MKDEV(ma, mi) : 0;
}

static int add_dev(struct fsmap_fs *fs, uint32_t dev)
{
	uint32_t *devs;
	size_t i;

	for (i = 0; i < fs->ndevs; i++)
		if (fs->devs[i] == dev)
			return 0;
	devs = realloc(fs->devs, (fs->ndevs + 1) * sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	fs->devs = devs;
	/* keep them ascending */
	for (i = fs->ndevs; i > 0 && devs[i - 1] > dev; i--)
		devs[i] = devs[i - 1];
	devs[i] = dev;
	fs->ndevs++;
	return 0;
}

/*
 * A btrfs filesystem's members and bdi: the /sys/fs/btrfs/UUID whose
 * devices/ holds @dev's name. Returns 0 when found, -ENOENT otherwise.
 */
static int btrfs_members(const char *root, uint32_t dev, struct fsmap_fs *fs)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], link[PATH_MAX], name[64];
	struct dirent *de;
	int ret = -ENOENT;
	DIR *top;

	if (topo_dev_name(root, dev, name, sizeof(name)) || join(dir, sizeof(dir), root,
								 "/sys/fs/btrfs"))
		return -ENOENT;
	top = opendir(dir);
	if (!top)
		return -ENOENT;
	while (ret && (de = readdir(top))) {
		struct dirent *me;
		DIR *members;
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		if (!pathf(path, sizeof(path), "%s/%s/devices/%s", dir, de->d_name, name) ||
		    access(path, F_OK))
			continue;
		ret = 0;
		members = pathf(path, sizeof(path), "%s/%s/devices", dir, de->d_name) ?
			  opendir(path) : NULL;
		while (members && (me = readdir(members))) {
			uint32_t d;

			if (me->d_name[0] != '.' && (d = class_dev(root, me->d_name)) &&
			    add_dev(fs, d) < 0)
				ret = -ENOMEM;
		}
		if (members)
			closedir(members);
		n = pathf(path, sizeof(path), "%s/%s/bdi", dir, de->d_name) ?
		    readlink(path, link, sizeof(link) - 1) : -1;
		if (n > 0) {
			const char *base;

			link[n] = '\0';
			base = strrchr(link, '/');
			pathf(fs->bdi, sizeof(fs->bdi), "%s", base ? base + 1 : link);
		}
	}
	closedir(top);
	return ret;
}

/* The bdi of a filesystem on block device @dev: its whole disk's MAJ:MIN. */
static void disk_bdi(const char *root, uint32_t dev, struct fsmap_fs *fs)
{
	struct topo_dev_info info;
	uint32_t disk = dev;

	if (topo_dev_info(root, dev, &info) == 0) {
		if (info.kind == TOPO_PARTITION && info.parent)
			disk = info.parent;
		topo_dev_info_free(&info);
	}
	snprintf(fs->bdi, sizeof(fs->bdi), "%u:%u", KDEV_MAJOR(disk), KDEV_MINOR(disk));
}

/* Devices and bdi of a new filesystem. */
static int fs_devices(const char *root, struct fsmap_fs *fs)
{
	uint32_t dev;
	int ret;

	if (KDEV_MAJOR(fs->sdev)) {
		ret = add_dev(fs, fs->sdev);
		if (ret)
			return ret;
		disk_bdi(root, fs->sdev, fs);
		return 0;
	}
	/* an anonymous superblock device: the source, if it is a block device */
	if (!fs->source || fs->source[0] != '/' || topo_resolve(root, fs->source, &dev))
		return 0;
	ret = add_dev(fs, dev);
	if (ret)
		return ret;
	if (!strcmp(fs->fstype, "btrfs") && btrfs_members(root, dev, fs) == -ENOMEM)
		return -ENOMEM;
	if (!fs->bdi[0])
		disk_bdi(root, dev, fs);
	return 0;
}

static struct fsmap_fs *find_sdev(struct fsmap *m, uint32_t sdev)
{
	for (size_t i = 0; i < m->nfs; i++)
		if (m->fs[i].sdev == sdev)
			return &m->fs[i];
	return NULL;
}

static int add_mount(struct fsmap_fs *fs, const char *target, const char *root)
{
	struct fsmap_mount *mounts = realloc(fs->mounts, (fs->nmounts + 1) * sizeof(*mounts));

	if (!mounts)
		return -ENOMEM;
	fs->mounts = mounts;
	mounts[fs->nmounts].target = strdup(target);
	mounts[fs->nmounts].root = strdup(root ? root : "/");
	if (!mounts[fs->nmounts].target || !mounts[fs->nmounts].root) {
		free(mounts[fs->nmounts].target);
		free(mounts[fs->nmounts].root);
		return -ENOMEM;
	}
	fs->nmounts++;
	return 0;
}

/* One mountinfo line: a new filesystem, or one more mount of a known one. */
static int take_mount(const char *root, struct fsmap *m, struct libmnt_fs *mfs)
{
	dev_t devno = mnt_fs_get_devno(mfs);
	const char *target = mnt_fs_get_target(mfs);
	const char *type = mnt_fs_get_fstype(mfs);
	const char *src = mnt_fs_get_srcpath(mfs);
	struct fsmap_fs *fs, *all;
	uint32_t sdev;

	if (!target)
		return 0;
	/* libmount's dev_t is glibc's encoding: convert through MAJ:MIN */
	sdev = KDEV_MKDEV(major(devno), minor(devno));
	fs = find_sdev(m, sdev);
	if (!fs) {
		all = realloc(m->fs, (m->nfs + 1) * sizeof(*all));
		if (!all)
			return -ENOMEM;
		m->fs = all;
		fs = &all[m->nfs++];
		memset(fs, 0, sizeof(*fs));
		fs->sdev = sdev;
		fs->fstype = strdup(type ? type : "");
		fs->source = strdup(src ? src : (mnt_fs_get_source(mfs) ? mnt_fs_get_source(mfs)
									: ""));
		if (!fs->fstype || !fs->source)
			return -ENOMEM;
		if (fs_devices(root, fs) == -ENOMEM)
			return -ENOMEM;
	}
	return add_mount(fs, target, mnt_fs_get_root(mfs));
}

/* /proc/swaps: "Filename Type Size Used Priority", partitions only */
static int load_swaps(const char *root, struct fsmap *m)
{
	char path[PATH_MAX], line[PATH_MAX + 128], file[PATH_MAX], type[32];
	FILE *fp;

	if (join(path, sizeof(path), root, "/proc/swaps"))
		return 0;
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		uint32_t dev, *swaps;

		if (sscanf(line, "%4095s %31s", file, type) != 2 || strcmp(type, "partition") ||
		    topo_resolve(root, file, &dev))
			continue;
		swaps = realloc(m->swaps, (m->nswaps + 1) * sizeof(*swaps));
		if (!swaps) {
			fclose(fp);
			return -ENOMEM;
		}
		m->swaps = swaps;
		swaps[m->nswaps++] = dev;
	}
	fclose(fp);
	return 0;
}

int fsmap_load(const char *root, struct fsmap *m)
{
	struct libmnt_table *tb = NULL;
	struct libmnt_iter *itr = NULL;
	struct libmnt_fs *mfs;
	char path[PATH_MAX];
	int ret;

	memset(m, 0, sizeof(*m));
	if (!root)
		root = "";
	if (!strcmp(root, "/"))
		root = "";
	ret = join(path, sizeof(path), root, "/proc/self/mountinfo");
	if (ret)
		return ret;
	if (access(path, R_OK))
		return -errno;
	tb = mnt_new_table();
	itr = mnt_new_iter(MNT_ITER_FORWARD);
	if (!tb || !itr) {
		ret = -ENOMEM;
		goto out;
	}
	ret = mnt_table_parse_file(tb, path);
	if (ret) {
		ret = ret < 0 ? ret : -EIO;
		goto out;
	}
	while (!ret && mnt_table_next_fs(tb, itr, &mfs) == 0)
		ret = take_mount(root, m, mfs);
	if (!ret)
		ret = load_swaps(root, m);
out:
	mnt_free_iter(itr);
	mnt_unref_table(tb);
	if (ret)
		fsmap_free(m);
	return ret;
}

void fsmap_free(struct fsmap *m)
{
	for (size_t i = 0; i < m->nfs; i++) {
		struct fsmap_fs *fs = &m->fs[i];

		for (size_t j = 0; j < fs->nmounts; j++) {
			free(fs->mounts[j].target);
			free(fs->mounts[j].root);
		}
		free(fs->mounts);
		free(fs->devs);
		free(fs->fstype);
		free(fs->source);
	}
	free(m->fs);
	free(m->swaps);
	memset(m, 0, sizeof(*m));
}

const struct fsmap_fs *fsmap_by_sdev(const struct fsmap *m, uint32_t sdev)
{
	for (size_t i = 0; i < m->nfs; i++)
		if (m->fs[i].sdev == sdev)
			return &m->fs[i];
	return NULL;
}

bool fsmap_fs_has_dev(const struct fsmap_fs *fs, uint32_t dev)
{
	for (size_t i = 0; i < fs->ndevs; i++)
		if (fs->devs[i] == dev)
			return true;
	return false;
}

const struct fsmap_fs *fsmap_by_dev(const struct fsmap *m, uint32_t dev)
{
	for (size_t i = 0; i < m->nfs; i++)
		if (fsmap_fs_has_dev(&m->fs[i], dev))
			return &m->fs[i];
	return NULL;
}

const struct fsmap_fs *fsmap_by_bdi(const struct fsmap *m, const char *bdi)
{
	for (size_t i = 0; i < m->nfs; i++)
		if (m->fs[i].bdi[0] && !strcmp(m->fs[i].bdi, bdi))
			return &m->fs[i];
	return NULL;
}

bool fsmap_is_swap(const struct fsmap *m, uint32_t dev)
{
	for (size_t i = 0; i < m->nswaps; i++)
		if (m->swaps[i] == dev)
			return true;
	return false;
}
