// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topo-sysfs.c - reading sysfs under a root directory: the helpers that
 * the topology's name resolution, stack walk and device descriptions share
 * (see topo-sysfs.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/event.h"
#include "track/topo-sysfs.h"

/*
 * A stack is a handful of devices, so the walk below keeps them in a plain
 * array searched linearly; this bound only keeps a corrupt tree (or a
 * fixture gone wrong) from eating memory and time.
 */
#define TOPO_MAX_DEVS	8192

/* sysfs_root - "/" and NULL mean this machine, as "" does */
const char *sysfs_root(const char *root)
{
	if (!root || !strcmp(root, "/"))
		return "";
	return root;
}

/* sysfs_path - root followed by a formatted path; -ENAMETOOLONG if it does not fit */
int sysfs_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s", root);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - n)
		return -ENAMETOOLONG;
	return 0;
}

/* sysfs_valid_name - a single path component that can name a sysfs entry */
bool sysfs_valid_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* sysfs_parse_devnum - "MAJ:MIN" with nothing around it, within the kernel's limits */
int sysfs_parse_devnum(const char *s, uint32_t *dev)
{
	unsigned long ma, mi;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	ma = strtoul(s, &end, 10);
	if (*end != ':' || !isdigit((unsigned char)end[1]))
		return -EINVAL;
	mi = strtoul(end + 1, &end, 10);
	if (*end || errno)
		return -EINVAL;
	if (ma > TOPO_MAJOR_MAX || mi > TOPO_MINOR_MAX)
		return -ERANGE;
	*dev = KDEV_MKDEV(ma, mi);
	return 0;
}

/*
 * sysfs_read_small - a small sysfs attribute into @buf, trailing newline removed
 *
 * sysfs hands out an attribute in one read() of at most a page, so one
 * read is enough; a fixture file written by capture.sh is the same text.
 */
int sysfs_read_small(int dirfd, const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* sysfs_read_dev - the "dev" attribute (MAJ:MIN) found at @path from @dirfd */
int sysfs_read_dev(int dirfd, const char *path, uint32_t *dev)
{
	char buf[32];
	int ret;

	ret = sysfs_read_small(dirfd, path, buf, sizeof(buf));
	if (ret)
		return ret;
	return sysfs_parse_devnum(buf, dev) ? -EIO : 0;
}

/* sysfs_open_devdir - the sysfs directory of @dev, through /sys/dev/block */
int sysfs_open_devdir(const char *root, uint32_t dev)
{
	char path[PATH_MAX];
	int fd, ret;

	ret = sysfs_path(path, sizeof(path), root, "/sys/dev/block/%u:%u",
		     KDEV_MAJOR(dev), KDEV_MINOR(dev));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * sysfs_is_partition - whether the device directory has a "partition" attribute
 *
 * Only partitions have it (its value is the partition number), whatever
 * the major: 8:1 for sda1, but 259:N (blkext) for loop and nvme partitions
 * and for any beyond a driver's minors, so the number tells nothing.
 */
bool sysfs_is_partition(int dfd)
{
	return !faccessat(dfd, "partition", F_OK, 0);
}

/*
 * name_dev - a kernel name (loop0p1, dm-0) to its dev_t via class/block
 *
 * class/block lists partitions too, unlike /sys/block, so no walk into
 * disk directories is needed. The name is one path component: "..",
 * "../../etc" and the like never leave class/block.
 */
int sysfs_name_dev(const char *root, const char *name, uint32_t *dev)
{
	char path[PATH_MAX];
	int ret;

	if (!sysfs_valid_name(name))
		return -ENOENT;
	ret = sysfs_path(path, sizeof(path), root, "/sys/class/block/%s/dev", name);
	if (ret)
		return ret;
	ret = sysfs_read_dev(AT_FDCWD, path, dev);
	return ret == -ENOTDIR ? -ENOENT : ret;
}

/* walk_add - append @dev unless already there */
int walk_add(struct walk *w, uint32_t dev)
{
	uint32_t *p;
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->devs[i] == dev)
			return 0;
	if (w->n == w->cap) {
		if (w->cap >= TOPO_MAX_DEVS)
			return -E2BIG;
		w->cap = w->cap ? 2 * w->cap : 16;
		p = realloc(w->devs, w->cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		w->devs = p;
	}
	w->devs[w->n++] = dev;
	return 0;
}

/*
 * add_links - add the devices listed in holders/ or slaves/
 *
 * The entries are taken by name only, so symlinks (real sysfs) and plain
 * files both work. An entry whose device has gone away is skipped.
 */
int sysfs_add_links(const char *root, int dfd, const char *sub, struct walk *w)
{
	struct dirent *de;
	uint32_t dev;
	int fd, ret = 0;
	DIR *dir;

	fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	dir = fdopendir(fd);
	if (!dir) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		ret = sysfs_name_dev(root, de->d_name, &dev);
		if (ret == -ENOENT) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		ret = walk_add(w, dev);
		if (ret)
			break;
	}
	closedir(dir);
	return ret;
}

/* sysfs_cmp_dev - qsort order of dev_t values */
int sysfs_cmp_dev(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* list_links - holders/ or slaves/ as a sorted array */
int sysfs_list_links(const char *root, int dfd, const char *sub, uint32_t **devs, size_t *n)
{
	struct walk w = { 0 };
	int ret;

	ret = sysfs_add_links(root, dfd, sub, &w);
	if (ret) {
		free(w.devs);
		return ret;
	}
	if (w.n)
		qsort(w.devs, w.n, sizeof(*w.devs), sysfs_cmp_dev);
	*devs = w.devs;
	*n = w.n;
	return 0;
}
