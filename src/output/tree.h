/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tree.h - the device stack as a tree, as `lsblk -s` draws it: each
 * top device first, the devices its I/O goes to as its children, with the
 * device-mapper target types lsblk does not show.
 */
#ifndef BLKSTACK_OUT_TREE_H
#define BLKSTACK_OUT_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * enum out_tree_flags - how out_tree_print() prints
 * @OUT_TREE_JSON: one JSON object {"devices": [...]}, each device with its
 *	lower devices in "children" (the other flags but BYTES are ignored)
 * @OUT_TREE_RAW: a list, as lsblk -r: no tree lines (each device before
 *	its lower devices), columns separated by one space, an empty column
 *	left empty, blanks and odd characters escaped (\x20)
 * @OUT_TREE_NOHEADINGS: no header line
 * @OUT_TREE_BYTES: SIZE in bytes (a number in JSON) instead of "10G"
 * @OUT_TREE_ASCII: draw the tree with ASCII characters even in a UTF-8
 *	locale (golden tests)
 */
enum out_tree_flags {
	OUT_TREE_JSON		= 1 << 0,
	OUT_TREE_RAW		= 1 << 1,
	OUT_TREE_NOHEADINGS	= 1 << 2,
	OUT_TREE_BYTES		= 1 << 3,
	OUT_TREE_ASCII		= 1 << 4,
};

/**
 * out_tree_print - print the stack of a set of devices as trees
 * @fp: where to print
 * @root: root of the sysfs tree ("" for this machine), as for topo.h
 * @devs: the set, usually topo_stack_expand()'s result (any order,
 *	duplicates ignored)
 * @n: how many
 * @flags: enum out_tree_flags
 *
 * One tree per top device of the set (topo_stack_tops(): no member sits
 * on it), in dev_t order. A device's children are its lower devices that
 * are in the set, in dev_t order: its slaves, and for a partition its
 * disk. A device reached along two paths is shown under both, as lsblk -s
 * does. Columns:
 *
 *   NAME     kernel name (dm-2, sda1)
 *   MAJ:MIN  device number
 *   KIND     disk, part, loop, zram, the md level (raid1; "md" if unknown),
 *            or the dm target type (crypt, thin, thin-pool, striped,
 *            linear...; "dm" if unknown)
 *   SIZE     size, in powers of 1024 as lsblk prints it (or in bytes)
 *   SCHED    I/O scheduler (a partition shows its disk's; empty when the
 *            device has none, as zram)
 *   DETAIL   dm name (as in /dev/mapper), or a loop device's backing file
 *
 * As lsblk's, text lines are padded to the column widths even when the
 * last columns are empty.
 *
 * A device that sysfs does not know (a trace from another machine) is
 * shown as a top named "?" with only its MAJ:MIN.
 *
 * Returns 0, -EINVAL for bad arguments, -ENOMEM, -EIO when writing
 * failed, or another negative errno from reading sysfs.
 */
int out_tree_print(FILE *fp, const char *root, const uint32_t *devs, size_t n, int flags);

struct topo_record;

/**
 * out_tree_print_recorded - out_tree_print() of a recorded stack (a trace
 * from another machine, or a stack that is gone): the descriptions come
 * from @rec (topo-record.h), not from sysfs
 */
int out_tree_print_recorded(FILE *fp, const struct topo_record *rec, const uint32_t *devs,
			    size_t n, int flags);

#endif /* BLKSTACK_OUT_TREE_H */
