// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topo.c - block devices and their stacks, from sysfs: the walk up and
 * down the holders and slaves, the tops of a set, every device.
 *
 * Everything in topo*.c reads files under a root directory given by the
 * caller: "" for this machine, or a fixture tree made by
 * tests/fixtures/sysfs/capture.sh. Such a tree has the shape of real sysfs
 * (device directories, relative symlinks from class/block and dev/block,
 * partitions as subdirectories of their disk), so one code path serves
 * both. The functions only read; they never print and return 0 or a
 * negative errno (see topo.h). topo-resolve.c turns what a user names
 * into devices, topo-info.c describes a device, topo-sysfs.c holds the
 * reads they share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/event.h"
#include "track/topo-sysfs.h"
#include "track/topo.h"

/* add_partitions - add the partitions of a disk: subdirectories with "partition" */
static int add_partitions(int dfd, struct walk *w)
{
	char path[NAME_MAX + 16];
	struct dirent *de;
	struct stat st;
	uint32_t dev;
	int fd, ret = 0;
	DIR *dir;

	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		/* skip the bdi and subsystem symlinks: partitions are real directories */
		if (de->d_type != DT_DIR) {
			if (de->d_type != DT_UNKNOWN ||
			    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISDIR(st.st_mode))
				continue;
		}
		snprintf(path, sizeof(path), "%s/partition", de->d_name);
		if (faccessat(dfd, path, F_OK, 0))
			continue;
		snprintf(path, sizeof(path), "%s/dev", de->d_name);
		if (sysfs_read_dev(dfd, path, &dev))
			continue;
		ret = walk_add(w, dev);
		if (ret)
			break;
	}
	closedir(dir);
	return ret;
}

/* add_up - what sends I/O to the device: its holders, and a disk's partitions */
static int add_up(const char *root, int dfd, struct walk *w)
{
	int ret;

	ret = sysfs_add_links(root, dfd, "holders", w);
	if (ret || sysfs_is_partition(dfd))
		return ret;
	return add_partitions(dfd, w);
}

/*
 * add_down - where the device's I/O goes: its slaves, and a partition's disk.
 * The disk is the directory above the partition's, as in real sysfs.
 */
static int add_down(const char *root, int dfd, struct walk *w)
{
	uint32_t dev;
	int ret;

	ret = sysfs_add_links(root, dfd, "slaves", w);
	if (ret || !sysfs_is_partition(dfd))
		return ret;
	ret = sysfs_read_dev(dfd, "../dev", &dev);
	if (ret)
		return ret == -ENOENT ? 0 : ret;
	return walk_add(w, dev);
}

/*
 * walk_close - expand every device of @w (including those it adds) with @step
 *
 * The first @nuser devices are the user's: a missing one is -ENOENT; one
 * found in sysfs that vanished since is skipped.
 */
static int walk_close(const char *root, struct walk *w, size_t nuser,
		      int (*step)(const char *, int, struct walk *))
{
	size_t i;
	int dfd, ret;

	for (i = 0; i < w->n; i++) {
		dfd = sysfs_open_devdir(root, w->devs[i]);
		if (dfd == -ENOENT && i >= nuser)
			continue;
		if (dfd < 0)
			return dfd == -ENOTDIR ? -ENOENT : dfd;
		ret = step(root, dfd, w);
		close(dfd);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * topo_stack_expand - up(D) for all D first, then down() of all of that:
 * down(up(D) ∪ {D}) is the union of the down sets of its members, so one
 * walk of each kind does for every device. See topo.h.
 *
 * A device of @devs that sysfs does not know is -ENOENT.
 */
int topo_stack_expand(const char *root, const uint32_t *devs, size_t n,
		      struct topo_selection *out)
{
	struct walk w = { 0 };
	size_t i, nuser;
	int ret;

	if (!out || (n && !devs))
		return -EINVAL;
	out->devs = NULL;
	out->n = 0;
	root = sysfs_root(root);

	for (i = 0; i < n; i++) {
		ret = walk_add(&w, devs[i]);
		if (ret)
			goto out_free_walk;
	}
	nuser = w.n;
	ret = walk_close(root, &w, nuser, add_up);
	if (ret)
		goto out_free_walk;
	ret = walk_close(root, &w, nuser, add_down);
	if (ret)
		goto out_free_walk;

	if (w.n)
		qsort(w.devs, w.n, sizeof(*w.devs), sysfs_cmp_dev);
	out->devs = w.devs;
	out->n = w.n;
	return 0;

out_free_walk:
	free(w.devs);
	return ret;
}

/* topo_selection_free - see topo.h */
void topo_selection_free(struct topo_selection *s)
{
	if (!s)
		return;
	free(s->devs);
	s->devs = NULL;
	s->n = 0;
}

/* topo_selection_has - see topo.h */
int topo_selection_has(const struct topo_selection *s, uint32_t dev)
{
	size_t lo = 0, hi;

	if (!s || !s->devs)
		return 0;
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->devs[mid] == dev)
			return 1;
		if (s->devs[mid] < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * topo_stack_tops - mark everything some member sends I/O to; the rest are
 * the tops. Only slaves/ and a partition's disk are read: no dm lookups.
 * See topo.h.
 */
int topo_stack_tops(const char *root, const uint32_t *devs, size_t n,
		    struct topo_selection *out)
{
	struct walk set = { 0 }, lower = { 0 };
	size_t i, j, k;
	uint32_t disk;
	int dfd, ret;

	if (!out || (n && !devs))
		return -EINVAL;
	out->devs = NULL;
	out->n = 0;
	root = sysfs_root(root);

	for (i = 0; i < n; i++) {
		ret = walk_add(&set, devs[i]);
		if (ret)
			goto out_free;
	}
	for (i = 0; i < set.n; i++) {
		dfd = sysfs_open_devdir(root, set.devs[i]);
		/* unknown to sysfs: no relations, so it can only be a top */
		if (dfd == -ENOENT || dfd == -ENOTDIR)
			continue;
		if (dfd < 0) {
			ret = dfd;
			goto out_free;
		}
		ret = sysfs_add_links(root, dfd, "slaves", &lower);
		if (!ret && sysfs_is_partition(dfd) && !sysfs_read_dev(dfd, "../dev", &disk))
			ret = walk_add(&lower, disk);
		close(dfd);
		if (ret)
			goto out_free;
	}

	/* keep, in place, the members that are nobody's lower device */
	for (i = 0, k = 0; i < set.n; i++) {
		for (j = 0; j < lower.n; j++)
			if (lower.devs[j] == set.devs[i])
				break;
		if (j == lower.n)
			set.devs[k++] = set.devs[i];
	}
	set.n = k;
	if (set.n)
		qsort(set.devs, set.n, sizeof(*set.devs), sysfs_cmp_dev);
	else {
		free(set.devs);
		set.devs = NULL;
	}
	free(lower.devs);
	out->devs = set.devs;
	out->n = set.n;
	return 0;

out_free:
	free(lower.devs);
	free(set.devs);
	return ret;
}

int topo_all_devices(const char *root, struct topo_selection *out)
{
	uint32_t *devs = NULL, dev;
	size_t n = 0, cap = 0;
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = sysfs_path(path, sizeof(path), root, "/sys/class/block");
	if (ret)
		return ret;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (!sysfs_valid_name(de->d_name) || topo_resolve(root, de->d_name, &dev))
			continue;
		if (n == cap) {
			uint32_t *m = realloc(devs, (cap = cap ? cap * 2 : 64) * sizeof(*devs));

			if (!m) {
				free(devs);
				closedir(dir);
				return -ENOMEM;
			}
			devs = m;
		}
		devs[n++] = dev;
	}
	closedir(dir);
	/* expanding the whole set adds nothing, but sorts and dedups it */
	ret = topo_stack_expand(root, devs, n, out);
	free(devs);
	return ret;
}
