/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topo-sysfs.h - reading sysfs under a root directory ("" for this
 * machine, or a fixture tree), for the topology's files only: topo.c (the
 * stacks), topo-resolve.c (arguments to devices) and topo-info.c (what a
 * device is). They return 0 or a negative errno, and never print.
 */
#ifndef BLKSTACK_TOPO_SYSFS_H
#define BLKSTACK_TOPO_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/event.h"

/* The kernel's dev_t limits: 12 bits of major, 20 of minor. */
#define TOPO_MAJOR_MAX	((1U << (32 - KDEV_MINORBITS)) - 1)
#define TOPO_MINOR_MAX	((1U << KDEV_MINORBITS) - 1)

/** sysfs_root - the root as given, "" for "/" and NULL (this machine) */
const char *sysfs_root(const char *root);

/** sysfs_path - @root followed by a formatted path; -ENAMETOOLONG if it does not fit */
int sysfs_path(char *buf, size_t len, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** sysfs_valid_name - a single path component that can name a sysfs entry */
bool sysfs_valid_name(const char *name);

/** sysfs_parse_devnum - "MAJ:MIN" with nothing around it, within the kernel's limits */
int sysfs_parse_devnum(const char *s, uint32_t *dev);

/** sysfs_read_small - a small attribute into @buf, trailing newline and blanks removed */
int sysfs_read_small(int dirfd, const char *path, char *buf, size_t len);

/** sysfs_read_dev - the "dev" attribute (MAJ:MIN) found at @path from @dirfd */
int sysfs_read_dev(int dirfd, const char *path, uint32_t *dev);

/** sysfs_open_devdir - the sysfs directory of @dev (through /sys/dev/block), an fd */
int sysfs_open_devdir(const char *root, uint32_t dev);

/** sysfs_is_partition - whether the device directory @dfd is a partition's */
bool sysfs_is_partition(int dfd);

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

/** sysfs_name_dev - a kernel name (loop0p1, dm-0) to its dev_t, through class/block */
int sysfs_name_dev(const char *root, const char *name, uint32_t *dev);

/** walk_add - append @dev to @w unless already there */
int walk_add(struct walk *w, uint32_t dev);

/** sysfs_add_links - add to @w the devices listed in @dfd's holders/ or slaves/ (@sub) */
int sysfs_add_links(const char *root, int dfd, const char *sub, struct walk *w);

/** sysfs_cmp_dev - qsort order of dev_t values (uint32_t) */
int sysfs_cmp_dev(const void *a, const void *b);

/** sysfs_list_links - holders/ or slaves/ (@sub) of @dfd as a sorted array */
int sysfs_list_links(const char *root, int dfd, const char *sub, uint32_t **devs, size_t *n);

#endif /* BLKSTACK_TOPO_SYSFS_H */
