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
 * errno (see topo.h).
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
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <libmount.h>

#include "event.h"
#include "topo.h"

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
