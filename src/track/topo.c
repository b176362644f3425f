// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topo.c - block devices by name and their stacks, from sysfs.
 *
 * Everything here reads files under a root directory given by the caller:
 * "" for this machine, or a fixture tree made by
 * tests/fixtures/sysfs/capture.sh. Such a tree has the shape of real sysfs
 * (device directories, relative symlinks from class/block and dev/block,
 * partitions as subdirectories of their disk), so one code path serves
 * both. What a fixture cannot hold are device nodes: a /dev path that does
 * not exist under the root is looked up by its last component instead.
 *
 * The functions only read; they never print and return 0 or a negative
 * errno (see topo.h). The one thing sysfs does not tell, the target type
 * of a device-mapper table, comes from libdevmapper on this machine, or
 * from a lookup that tests set (topo_dm_ops_set()).
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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libdevmapper.h>
#include <libmount.h>

#include "base/event.h"
#include "track/topo.h"

/*
 * A stack is a handful of devices, so the walk below keeps them in a plain
 * array searched linearly; this bound only keeps a corrupt tree (or a
 * fixture gone wrong) from eating memory and time.
 */
#define TOPO_MAX_DEVS	8192

/* The kernel's dev_t limits: 12 bits of major, 20 of minor. */
#define TOPO_MAJOR_MAX	((1U << (32 - KDEV_MINORBITS)) - 1)
#define TOPO_MINOR_MAX	((1U << KDEV_MINORBITS) - 1)

/* root_norm - "/" and NULL mean this machine, as "" does */
static const char *root_norm(const char *root)
{
	if (!root || !strcmp(root, "/"))
		return "";
	return root;
}

/* mkpath - root followed by a formatted path; -ENAMETOOLONG if it does not fit */
static int __attribute__((format(printf, 4, 5)))
mkpath(char *buf, size_t len, const char *root, const char *fmt, ...)
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

/* valid_name - a single path component that can name a sysfs entry */
static bool valid_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* parse_devnum - "MAJ:MIN" with nothing around it, within the kernel's limits */
static int parse_devnum(const char *s, uint32_t *dev)
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
 * read_small - a small sysfs attribute into @buf, trailing newline removed
 *
 * sysfs hands out an attribute in one read() of at most a page, so one
 * read is enough; a fixture file written by capture.sh is the same text.
 */
static int read_small(int dirfd, const char *path, char *buf, size_t len)
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

/* read_dev - the "dev" attribute (MAJ:MIN) found at @path from @dirfd */
static int read_dev(int dirfd, const char *path, uint32_t *dev)
{
	char buf[32];
	int ret;

	ret = read_small(dirfd, path, buf, sizeof(buf));
	if (ret)
		return ret;
	return parse_devnum(buf, dev) ? -EIO : 0;
}

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

	ret = mkpath(path, sizeof(path), root, "/sys/dev/block/%u:%u",
		     KDEV_MAJOR(dev), KDEV_MINOR(dev));
	if (ret)
		return ret;
	return access(path, F_OK) ? -errno : 0;
}

/*
 * name_dev - a kernel name (loop0p1, dm-0) to its dev_t via class/block
 *
 * class/block lists partitions too, unlike /sys/block, so no walk into
 * disk directories is needed. The name is one path component: "..",
 * "../../etc" and the like never leave class/block.
 */
static int name_dev(const char *root, const char *name, uint32_t *dev)
{
	char path[PATH_MAX];
	int ret;

	if (!valid_name(name))
		return -ENOENT;
	ret = mkpath(path, sizeof(path), root, "/sys/class/block/%s/dev", name);
	if (ret)
		return ret;
	ret = read_dev(AT_FDCWD, path, dev);
	return ret == -ENOTDIR ? -ENOENT : ret;
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

	if (!valid_name(dmname))
		return -ENOENT;
	ret = mkpath(path, sizeof(path), root, "/sys/class/block");
	if (ret)
		return ret;
	dir = opendir(path);
	if (!dir)
		return -errno;
	ret = -ENOENT;
	while ((de = readdir(dir))) {
		if (!valid_name(de->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/dm/name", de->d_name) >= (int)sizeof(path))
			continue;
		if (read_small(dirfd(dir), path, buf, sizeof(buf)) || strcmp(buf, dmname))
			continue;
		snprintf(path, sizeof(path), "%s/dev", de->d_name);
		ret = read_dev(dirfd(dir), path, dev);
		break;
	}
	closedir(dir);
	return ret;
}

/* resolve_name - a kernel name first, then a device-mapper name */
static int resolve_name(const char *root, const char *name, uint32_t *dev)
{
	int ret;

	ret = name_dev(root, name, dev);
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

	ret = mkpath(mi, sizeof(mi), root, "/proc/self/mountinfo");
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

	ret = mkpath(full, sizeof(full), root, "%s%s", *root && *arg != '/' ? "/" : "", arg);
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
	root = root_norm(root);

	/*
	 * The order matters only for odd names: "8:1" is always a number
	 * (no kernel name has a colon), anything with a slash is a path
	 * (no kernel name has one either: cciss/c0d0 is cciss!c0d0 in
	 * sysfs), and what is left can only be a name.
	 */
	ret = parse_devnum(arg, &d);
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
	ret = mkpath(path, sizeof(path), root_norm(root), "/sys/dev/block/%u:%u",
		     KDEV_MAJOR(dev), KDEV_MINOR(dev));
	if (ret)
		return ret;
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	link[n] = '\0';
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (!valid_name(base))
		return -EIO;
	if (strlen(base) >= len)
		return -ERANGE;
	strcpy(buf, base);
	return 0;
}

/*
 * struct walk - devices reached so far, in the order found
 *
 * It is both the visited set and the work queue of a breadth-first walk:
 * no recursion, and a device is expanded once however many paths lead to
 * it, so cycles (which sysfs should not have, but a fixture or a race can)
 * end the walk instead of hanging it.
 */
struct walk {
	uint32_t *devs;
	size_t n;
	size_t cap;
};

/* walk_add - append @dev unless already there */
static int walk_add(struct walk *w, uint32_t dev)
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

/* open_devdir - the sysfs directory of @dev, through /sys/dev/block */
static int open_devdir(const char *root, uint32_t dev)
{
	char path[PATH_MAX];
	int fd, ret;

	ret = mkpath(path, sizeof(path), root, "/sys/dev/block/%u:%u",
		     KDEV_MAJOR(dev), KDEV_MINOR(dev));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * is_partition - whether the device directory has a "partition" attribute
 *
 * Only partitions have it (its value is the partition number), whatever
 * the major: 8:1 for sda1, but 259:N (blkext) for loop and nvme partitions
 * and for any beyond a driver's minors, so the number tells nothing.
 */
static bool is_partition(int dfd)
{
	return !faccessat(dfd, "partition", F_OK, 0);
}

/*
 * add_links - add the devices listed in holders/ or slaves/
 *
 * The entries are taken by name only, so symlinks (real sysfs) and plain
 * files both work. An entry whose device has gone away is skipped.
 */
static int add_links(const char *root, int dfd, const char *sub, struct walk *w)
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
		ret = name_dev(root, de->d_name, &dev);
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
		if (read_dev(dfd, path, &dev))
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

	ret = add_links(root, dfd, "holders", w);
	if (ret || is_partition(dfd))
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

	ret = add_links(root, dfd, "slaves", w);
	if (ret || !is_partition(dfd))
		return ret;
	ret = read_dev(dfd, "../dev", &dev);
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
		dfd = open_devdir(root, w->devs[i]);
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

/* cmp_u32 - qsort order of dev_t values */
static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
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
	root = root_norm(root);

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
		qsort(w.devs, w.n, sizeof(*w.devs), cmp_u32);
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
	root = root_norm(root);

	for (i = 0; i < n; i++) {
		ret = walk_add(&set, devs[i]);
		if (ret)
			goto out_free;
	}
	for (i = 0; i < set.n; i++) {
		dfd = open_devdir(root, set.devs[i]);
		/* unknown to sysfs: no relations, so it can only be a top */
		if (dfd == -ENOENT || dfd == -ENOTDIR)
			continue;
		if (dfd < 0) {
			ret = dfd;
			goto out_free;
		}
		ret = add_links(root, dfd, "slaves", &lower);
		if (!ret && is_partition(dfd) && !read_dev(dfd, "../dev", &disk))
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
		qsort(set.devs, set.n, sizeof(*set.devs), cmp_u32);
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

/* ---- device information ---- */

static const char *const kind_names[] = {
	[TOPO_DISK]		= "disk",
	[TOPO_PARTITION]	= "part",
	[TOPO_DM]		= "dm",
	[TOPO_LOOP]		= "loop",
	[TOPO_ZRAM]		= "zram",
	[TOPO_MD]		= "md",
};

/* topo_kind_name - see topo.h */
const char *topo_kind_name(enum topo_kind kind)
{
	if ((unsigned int)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "?";
	return kind_names[kind];
}

/*
 * read_opt - an optional attribute into a fixed field: "" when the device
 * does not have it or it cannot be read, cut when too long. Nothing shown
 * in a tree is worth failing the whole description for.
 */
static void read_opt(int dfd, const char *path, char *buf, size_t len)
{
	if (read_small(dfd, path, buf, len))
		*buf = '\0';
}

/* read_u64 - a decimal attribute; 0 when absent or not a number */
static uint64_t read_u64(int dfd, const char *path)
{
	unsigned long long v;
	char buf[32], *end;

	if (read_small(dfd, path, buf, sizeof(buf)) || !isdigit((unsigned char)*buf))
		return 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	return *end || errno ? 0 : v;
}

/*
 * read_sched - the selected scheduler of queue/scheduler at @path
 *
 * The kernel lists them all and brackets the one in use
 * ("none [mq-deadline] kyber bfq"); a queue with no choice prints "none"
 * alone, unbracketed.
 */
static void read_sched(int dfd, const char *path, char *buf, size_t len)
{
	char line[256], *open, *close_;

	*buf = '\0';
	if (read_small(dfd, path, line, sizeof(line)))
		return;
	open = strchr(line, '[');
	close_ = open ? strchr(open, ']') : NULL;
	if (!close_) {
		snprintf(buf, len, "none");
		return;
	}
	*close_ = '\0';
	snprintf(buf, len, "%s", open + 1);
}

/* list_links - holders/ or slaves/ as a sorted array */
static int list_links(const char *root, int dfd, const char *sub, uint32_t **devs, size_t *n)
{
	struct walk w = { 0 };
	int ret;

	ret = add_links(root, dfd, sub, &w);
	if (ret) {
		free(w.devs);
		return ret;
	}
	if (w.n)
		qsort(w.devs, w.n, sizeof(*w.devs), cmp_u32);
	*devs = w.devs;
	*n = w.n;
	return 0;
}

/* dev_kind - what the device directory says the device is (see enum topo_kind) */
static enum topo_kind dev_kind(int dfd, uint32_t dev, const char *name)
{
	if (is_partition(dfd))
		return TOPO_PARTITION;
	if (!faccessat(dfd, "dm", F_OK, 0))
		return TOPO_DM;
	if (!faccessat(dfd, "md", F_OK, 0))
		return TOPO_MD;
	/* an unattached loop device has no loop/ directory, but still its major */
	if (KDEV_MAJOR(dev) == 7 || !faccessat(dfd, "loop", F_OK, 0))
		return TOPO_LOOP;
	if (!strncmp(name, "zram", 4))
		return TOPO_ZRAM;
	return TOPO_DISK;
}

/* has_suffix - whether @s ends with @suffix */
static bool has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/*
 * dm_target_guess - the target type from the dm uuid alone (see the table
 * in topo.h). Only prefixes the creating tool always sets are trusted; an
 * LVM volume's uuid says nothing of its segment type, so none is guessed
 * but the pool's.
 */
static void dm_target_guess(const char *uuid, char *buf, size_t len)
{
	const char *guess = "";
	const char *p;

	if (!strncmp(uuid, "CRYPT-VERITY-", 13))
		guess = "verity";
	else if (!strncmp(uuid, "CRYPT-INTEGRITY-", 16))
		guess = "integrity";
	else if (!strncmp(uuid, "CRYPT-SUBDEV-", 13))
		guess = "";
	else if (!strncmp(uuid, "CRYPT-", 6))
		guess = "crypt";
	else if (!strncmp(uuid, "mpath-", 6))
		guess = "multipath";
	else if (!strncmp(uuid, "LVM-", 4) && has_suffix(uuid, "-tpool"))
		guess = "thin-pool";
	else if (!strncmp(uuid, "part", 4) && isdigit((unsigned char)uuid[4])) {
		for (p = uuid + 4; isdigit((unsigned char)*p); p++)
			;
		if (*p == '-')
			guess = "linear";
	}
	snprintf(buf, len, "%s", guess);
}

static const struct topo_dm_ops default_dm_ops = { .target = topo_dm_target };
static const struct topo_dm_ops *dm_ops = &default_dm_ops;

/* topo_dm_ops_set - see topo.h */
void topo_dm_ops_set(const struct topo_dm_ops *ops)
{
	dm_ops = ops ? ops : &default_dm_ops;
}

/*
 * dm_target_fill - @info->target: the lookup, then the uuid guess
 *
 * libdevmapper speaks for this machine only: asked about a fixture tree's
 * 253:2 it would describe whatever this machine's 253:2 is.
 */
static void dm_target_fill(const char *root, struct topo_dev_info *info)
{
	const struct topo_dm_ops *ops = dm_ops;

	info->target[0] = '\0';
	if (ops->target && (ops != &default_dm_ops || !*root)) {
		if (ops->target(info->dev, info->target, sizeof(info->target)))
			info->target[0] = '\0';
	}
	if (!info->target[0])
		dm_target_guess(info->dm_uuid, info->target, sizeof(info->target));
}

/*
 * topo_dev_info - everything from the device's own sysfs directory, a
 * partition's queue attributes from its disk's. See topo.h.
 */
int topo_dev_info(const char *root, uint32_t dev, struct topo_dev_info *out)
{
	int dfd, ret;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	root = root_norm(root);

	ret = topo_dev_name(root, dev, out->name, sizeof(out->name));
	if (ret)
		return ret == -ENOTDIR ? -ENOENT : ret;
	dfd = open_devdir(root, dev);
	if (dfd < 0)
		return dfd == -ENOTDIR ? -ENOENT : dfd;

	out->dev = dev;
	out->kind = dev_kind(dfd, dev, out->name);
	out->size_sectors = read_u64(dfd, "size");
	switch (out->kind) {
	case TOPO_PARTITION:
		out->part_start = read_u64(dfd, "start");
		if (read_dev(dfd, "../dev", &out->parent))
			out->parent = 0;
		break;
	case TOPO_DM:
		read_opt(dfd, "dm/name", out->dm_name, sizeof(out->dm_name));
		read_opt(dfd, "dm/uuid", out->dm_uuid, sizeof(out->dm_uuid));
		dm_target_fill(root, out);
		break;
	case TOPO_LOOP:
		read_opt(dfd, "loop/backing_file", out->backing, sizeof(out->backing));
		break;
	case TOPO_MD:
		read_opt(dfd, "md/level", out->md_level, sizeof(out->md_level));
		break;
	default:
		break;
	}

	/* a partition has no queue/ of its own: I/O to it is queued on the disk */
	if (out->kind == TOPO_PARTITION) {
		read_sched(dfd, "../queue/scheduler", out->scheduler, sizeof(out->scheduler));
		out->rotational = read_u64(dfd, "../queue/rotational") == 1;
	} else {
		read_sched(dfd, "queue/scheduler", out->scheduler, sizeof(out->scheduler));
		out->rotational = read_u64(dfd, "queue/rotational") == 1;
	}

	ret = list_links(root, dfd, "slaves", &out->slaves, &out->nslaves);
	if (!ret)
		ret = list_links(root, dfd, "holders", &out->holders, &out->nholders);
	close(dfd);
	if (ret) {
		topo_dev_info_free(out);
		memset(out, 0, sizeof(*out));
	}
	return ret;
}

/* topo_dev_info_free - see topo.h */
void topo_dev_info_free(struct topo_dev_info *info)
{
	if (!info)
		return;
	free(info->slaves);
	free(info->holders);
	info->slaves = info->holders = NULL;
	info->nslaves = info->nholders = 0;
}

/* ---- device-mapper target types, through libdevmapper ---- */

#define DM_CONTROL	"/dev/mapper/control"

/* dm_log_quiet - libdevmapper's log function: its messages are not ours to print */
static void __attribute__((format(printf, 5, 6)))
dm_log_quiet(int level, const char *file, int line, int dm_errno_or_class, const char *f, ...)
{
	(void)level;
	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	(void)f;
}

/*
 * topo_dm_target - one DM_DEVICE_TABLE ioctl. See topo.h.
 *
 * The table, not the status: a thin-pool's status commits its metadata
 * unless told not to, which would add I/O to the stack being traced. A
 * crypt table carries the key, so the task is marked secure: the kernel
 * and libdevmapper wipe their copies of it.
 */
int topo_dm_target(uint32_t dev, char *buf, size_t len)
{
	static bool log_quiet;
	char first[64] = "", *type, *params;
	uint64_t start, length;
	struct dm_task *dmt;
	struct dm_info info;
	bool mixed = false;
	void *next = NULL;
	int ret = 0;

	if (!buf || !len)
		return -EINVAL;
	*buf = '\0';
	/*
	 * Checked first: libdevmapper would otherwise try to create the node
	 * (as root) or log its failure to open it.
	 */
	if (faccessat(AT_FDCWD, DM_CONTROL, R_OK | W_OK, AT_EACCESS))
		return errno == ENOENT || errno == ENOTDIR ? -ENODEV : -errno;
	if (!log_quiet) {
		dm_log_with_errno_init(dm_log_quiet);
		log_quiet = true;
	}

	dmt = dm_task_create(DM_DEVICE_TABLE);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_major_minor(dmt, KDEV_MAJOR(dev), KDEV_MINOR(dev), 0) ||
	    !dm_task_secure_data(dmt) || !dm_task_no_open_count(dmt)) {
		ret = -ENOMEM;
		goto out_destroy;
	}
	if (!dm_task_run(dmt)) {
		ret = -EIO;
		goto out_destroy;
	}
	if (!dm_task_get_info(dmt, &info) || !info.exists) {
		ret = -ENOENT;
		goto out_destroy;
	}
	do {
		next = dm_get_next_target(dmt, next, &start, &length, &type, &params);
		if (!type)
			break;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", type);
		else if (strcmp(first, type))
			mixed = true;
	} while (next);

	if (mixed)
		strcpy(first, "mixed");
	if (strlen(first) >= len)
		ret = -ERANGE;
	else
		strcpy(buf, first);
out_destroy:
	dm_task_destroy(dmt);
	/* close the control node: nothing keeps it open between lookups */
	dm_lib_release();
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
	ret = mkpath(path, sizeof(path), root, "/sys/class/block");
	if (ret)
		return ret;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (!valid_name(de->d_name) || topo_resolve(root, de->d_name, &dev))
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
