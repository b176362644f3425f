// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topo-resolve.c - the devices a user names (a path, a kernel name, a
 * device-mapper name, MAJ:MIN, a mounted directory), from sysfs under a
 * root (see topo.c). What a fixture tree cannot hold are device nodes: a
 * /dev path that does not exist under the root is looked up by its last
 * component instead.
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
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libmount.h>

#include "base/event.h"
#include "track/topo-sysfs.h"
#include "track/topo.h"

/*
 * devnum_known - whether sysfs has a block device with this number
 *
 * /sys/dev/block holds a link per block device (disks and partitions
 * alike) named MAJ:MIN, so this one access() answers it without a scan.
 */
static int devnum_known(const char *root, uint32_t dev)
{
	char path[PATH_MAX];
	int ret;

	ret = sysfs_path(path, sizeof(path), root, "/sys/dev/block/%u:%u",
		     KDEV_MAJOR(dev), KDEV_MINOR(dev));
	if (ret)
		return ret;
	return access(path, F_OK) ? -errno : 0;
}

/*
 * dm_name_dev - a device-mapper name (what /dev/mapper shows) to its dev_t
 *
 * Users know dm devices by these names (vg-root, luks-...), and a fixture
 * has no /dev/mapper links to follow. The kernel keeps dm names unique, so
 * the first match is the only one.
 */
static int dm_name_dev(const char *root, const char *dmname, uint32_t *dev)
{
	char path[PATH_MAX], buf[NAME_MAX + 2];
	struct dirent *de;
	DIR *dir;
	int ret;

	if (!sysfs_valid_name(dmname))
		return -ENOENT;
	ret = sysfs_path(path, sizeof(path), root, "/sys/class/block");
	if (ret)
		return ret;
	dir = opendir(path);
	if (!dir)
		return -errno;
	ret = -ENOENT;
	while ((de = readdir(dir))) {
		if (!sysfs_valid_name(de->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/dm/name", de->d_name) >= (int)sizeof(path))
			continue;
		if (sysfs_read_small(dirfd(dir), path, buf, sizeof(buf)) || strcmp(buf, dmname))
			continue;
		snprintf(path, sizeof(path), "%s/dev", de->d_name);
		ret = sysfs_read_dev(dirfd(dir), path, dev);
		break;
	}
	closedir(dir);
	return ret;
}

/* resolve_name - a kernel name first, then a device-mapper name */
static int resolve_name(const char *root, const char *name, uint32_t *dev)
{
	int ret;

	ret = sysfs_name_dev(root, name, dev);
	if (ret == -ENOENT)
		ret = dm_name_dev(root, name, dev);
	return ret;
}

/*
 * dev_fallback - a /dev path that is not there, looked up by name
 *
 * A fixture tree has no device nodes, and a trace may name a device that
 * this machine's udev never made a node for. A dangling symlink
 * (/dev/mapper/x -> ../dm-0) gives its target's name first.
 */
static int dev_fallback(const char *root, const char *full, const char *arg, uint32_t *dev)
{
	char link[PATH_MAX];
	const char *base;
	ssize_t n;

	if (strncmp(arg, "/dev/", 5))
		return -ENOENT;
	n = readlink(full, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		if (!resolve_name(root, base ? base + 1 : link, dev))
			return 0;
	}
	base = strrchr(arg, '/') + 1;
	return resolve_name(root, base, dev);
}

/*
 * find_mount - the mount whose target is @path or its nearest ancestor
 *
 * This is mnt_table_find_mountpoint() without its stat(): that one checks
 * the path on the running system, which is wrong under a fixture root.
 * Searching backwards finds the last, i.e. visible, of stacked mounts.
 */
static struct libmnt_fs *find_mount(struct libmnt_table *tb, char *path)
{
	struct libmnt_fs *fs;
	char *slash;

	for (;;) {
		fs = mnt_table_find_target(tb, path, MNT_ITER_BACKWARD);
		if (fs)
			return fs;
		slash = strrchr(path, '/');
		if (!slash || !strcmp(path, "/"))
			return NULL;
		if (slash == path)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

static int resolve_path(const char *root, const char *arg, uint32_t *dev, bool mounts);

/*
 * resolve_mount - the block device a directory's filesystem lives on
 * @root: normalized root
 * @full: the directory, with @root in front
 * @dev: result
 *
 * The mount's st_dev is the device for ext4 and xfs. For btrfs (an
 * anonymous 0:N) and for the like, the mount source may still be a block
 * device; for tmpfs, proc and overlay it is not: -ENOTBLK.
 */
static int resolve_mount(const char *root, const char *full, uint32_t *dev)
{
	char canon[PATH_MAX], rroot[PATH_MAX], mi[PATH_MAX];
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	const char *src;
	size_t rlen = 0;
	char *inner;
	dev_t devno;
	uint32_t d;
	int ret;

	if (!realpath(full, canon))
		return -errno;
	if (*root) {
		if (!realpath(root, rroot))
			return -errno;
		rlen = strlen(rroot);
		/* an absolute symlink out of a fixture tree leads nowhere in it */
		if (strncmp(canon, rroot, rlen) || (canon[rlen] && canon[rlen] != '/'))
			return -ENOENT;
	}
	inner = canon + rlen;
	if (!*inner)
		inner = strcpy(canon, "/");

	ret = sysfs_path(mi, sizeof(mi), root, "/proc/self/mountinfo");
	if (ret)
		return ret;
	tb = mnt_new_table();
	if (!tb)
		return -ENOMEM;
	ret = mnt_table_parse_file(tb, mi);
	if (ret) {
		ret = ret < 0 ? ret : -EIO;
		goto out_free_table;
	}
	fs = find_mount(tb, inner);
	if (!fs) {
		ret = -ENOENT;
		goto out_free_table;
	}

	/*
	 * libmount gives a userspace dev_t (glibc's 64-bit encoding); the
	 * tracepoints use the kernel's 12:20 one. Convert through MAJ:MIN,
	 * never by value.
	 */
	devno = mnt_fs_get_devno(fs);
	d = KDEV_MKDEV(major(devno), minor(devno));
	if (major(devno) && major(devno) <= TOPO_MAJOR_MAX && minor(devno) <= TOPO_MINOR_MAX &&
	    !devnum_known(root, d)) {
		*dev = d;
		ret = 0;
		goto out_free_table;
	}
	ret = -ENOTBLK;
	src = mnt_fs_get_srcpath(fs);
	if (src && src[0] == '/' && !resolve_path(root, src, &d, false)) {
		*dev = d;
		ret = 0;
	}
out_free_table:
	mnt_unref_table(tb);
	return ret;
}

/*
 * resolve_path - a path: a device node, or with @mounts a directory
 *
 * A relative @arg under a fixture root is taken from the root.
 */
static int resolve_path(const char *root, const char *arg, uint32_t *dev, bool mounts)
{
	char full[PATH_MAX];
	struct stat st;
	uint32_t d;
	int ret;

	ret = sysfs_path(full, sizeof(full), root, "%s%s", *root && *arg != '/' ? "/" : "", arg);
	if (ret)
		return ret;
	if (stat(full, &st)) {
		ret = -errno;
		if (ret == -ENOENT || ret == -ENOTDIR)
			return dev_fallback(root, full, arg, dev);
		return ret;
	}
	if (S_ISBLK(st.st_mode)) {
		/* st_rdev is userspace-encoded, as in resolve_mount() */
		if (major(st.st_rdev) > TOPO_MAJOR_MAX || minor(st.st_rdev) > TOPO_MINOR_MAX)
			return -ENOENT;
		d = KDEV_MKDEV(major(st.st_rdev), minor(st.st_rdev));
		/* a stale node for a device that is gone */
		ret = devnum_known(root, d);
		if (ret)
			return ret;
		*dev = d;
		return 0;
	}
	if (S_ISDIR(st.st_mode) && mounts)
		return resolve_mount(root, full, dev);
	return -ENOTBLK;
}

/*
 * topo_resolve - MAJ:MIN, then paths (anything with a slash), then names.
 * See topo.h. A name may also be a device-mapper name ("vg-root").
 */
int topo_resolve(const char *root, const char *arg, uint32_t *dev)
{
	uint32_t d;
	int ret;

	if (!arg || !*arg || !dev)
		return -EINVAL;
	root = sysfs_root(root);

	/*
	 * The order matters only for odd names: "8:1" is always a number
	 * (no kernel name has a colon), anything with a slash is a path
	 * (no kernel name has one either: cciss/c0d0 is cciss!c0d0 in
	 * sysfs), and what is left can only be a name.
	 */
	ret = sysfs_parse_devnum(arg, &d);
	if (ret != -EINVAL) {
		if (!ret)
			ret = devnum_known(root, d);
		if (ret)
			return ret == -ERANGE || ret == -ENOTDIR ? -ENOENT : ret;
		*dev = d;
		return 0;
	}
	if (strchr(arg, '/'))
		ret = resolve_path(root, arg, &d, true);
	else
		ret = resolve_name(root, arg, &d);
	if (!ret)
		*dev = d;
	return ret;
}

/* topo_dev_name - the last component of /sys/dev/block/MAJ:MIN's link. See topo.h. */
int topo_dev_name(const char *root, uint32_t dev, char *buf, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;
	int ret;

	if (!buf || !len)
		return -EINVAL;
	ret = sysfs_path(path, sizeof(path), sysfs_root(root), "/sys/dev/block/%u:%u",
		     KDEV_MAJOR(dev), KDEV_MINOR(dev));
	if (ret)
		return ret;
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (!sysfs_valid_name(base))
		return -EIO;
	if (strlen(base) >= len)
		return -ERANGE;
	strcpy(buf, base);
	return 0;
}
