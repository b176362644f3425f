/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topo.h - block devices by name and their stacks, from sysfs.
 *
 * Every function takes the root under which /sys, /proc and /dev are looked
 * up ("" or "/" for this machine), so that tests run on fixture trees.
 * Devices are kernel dev_t values (KDEV_MKDEV), as the tracepoints record.
 */
#ifndef BLKSTACK_TOPO_H
#define BLKSTACK_TOPO_H

#include <stddef.h>
#include <stdint.h>

/**
 * struct topo_selection - a sorted set of devices without duplicates
 * @devs: kernel dev_t values, ascending
 * @n: how many
 */
struct topo_selection {
	uint32_t *devs;
	size_t n;
};

/**
 * topo_resolve - what a user names as a device, to its dev_t
 * @root: root of the sysfs/proc/dev tree ("" for this machine)
 * @arg: a path to a block device node (/dev/loop0p1, /dev/mapper/x), a
 *	 device name (loop0p1, dm-0), MAJ:MIN, or a mounted directory (the
 *	 device its filesystem is mounted from, found in mountinfo), or a
 *	 device-mapper name (vg-root). A /dev path missing under @root is
 *	 looked up by its last component.
 * @dev: where to store the device
 *
 * Returns 0; -ENOENT when no such block device exists; -ENOTBLK when @arg
 * is a directory whose filesystem is not on a block device; other negative
 * errno values for I/O errors.
 */
int topo_resolve(const char *root, const char *arg, uint32_t *dev);

/**
 * topo_dev_name - the kernel name of a device ("loop0p1", "dm-2")
 * @root: as for topo_resolve()
 * @dev: the device
 * @buf: where to write the name
 * @len: size of @buf
 * Returns 0, -ENOENT when sysfs does not know the device, -ERANGE when
 * @buf is too small, -EINVAL for a NULL or empty @buf.
 */
int topo_dev_name(const char *root, uint32_t dev, char *buf, size_t len);

/**
 * topo_stack_expand - the whole stack of each device of @devs
 * @root: as for topo_resolve()
 * @devs: the devices the user named
 * @n: how many
 * @out: the expanded selection (free with topo_selection_free())
 *
 * The stack of a device D is everything that can send I/O to D (its
 * holders and, for a disk, its partitions, recursively: "up") and
 * everything that I/O from D or from anything above D can reach (slaves
 * and, for a partition, its disk, recursively: "down").
 *
 * Returns 0, -ENOENT when sysfs does not know one of @devs, or another
 * negative errno; on error *@out is left empty.
 */
int topo_stack_expand(const char *root, const uint32_t *devs, size_t n,
		      struct topo_selection *out);

/** topo_selection_free - release the set; a zeroed or NULL set is accepted */
void topo_selection_free(struct topo_selection *s);

/** topo_selection_has - whether @dev is in the set (binary search) */
int topo_selection_has(const struct topo_selection *s, uint32_t dev);

#endif /* BLKSTACK_TOPO_H */
