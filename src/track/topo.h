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

#include <stdbool.h>
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

/**
 * topo_all_devices - every block device of /sys/class/block under @root,
 * as a selection (free with topo_selection_free())
 * Returns 0 or a negative errno.
 */
int topo_all_devices(const char *root, struct topo_selection *out);

/** topo_selection_free - release the set; a zeroed or NULL set is accepted */
void topo_selection_free(struct topo_selection *s);

/** topo_selection_has - whether @dev is in the set (binary search) */
int topo_selection_has(const struct topo_selection *s, uint32_t dev);

/**
 * topo_stack_tops - the devices of a set that nothing in the set sits on
 * @root: as for topo_resolve()
 * @devs: the set (any order; duplicates are ignored)
 * @n: how many
 * @out: the top devices, ascending (free with topo_selection_free())
 *
 * A device is a top when no member of @devs has it as a lower device (a
 * slave, or for a partition its disk): in the reference stack the crypt
 * device, or a partition with nothing on it. A device that sysfs does not
 * know (a trace from another machine) has no known relations and is a top.
 * When every device is below another (a cycle, which sysfs should never
 * show), there are no tops.
 *
 * Returns 0, -EINVAL for a NULL @out or @devs with @n > 0, or another
 * negative errno; on error *@out is left empty.
 */
int topo_stack_tops(const char *root, const uint32_t *devs, size_t n,
		    struct topo_selection *out);

/**
 * enum topo_kind - what a block device is
 * @TOPO_DISK: a whole device of no kind below: sd, vd, nvme, mmcblk, nbd...
 * @TOPO_PARTITION: a partition (it has a "partition" attribute), whatever
 *	its disk: sda1, loop0p1, nvme0n1p2, md0p1
 * @TOPO_DM: a device-mapper device (it has a dm/ directory)
 * @TOPO_LOOP: a loop device, attached or not (major 7 or a loop/ directory)
 * @TOPO_ZRAM: a zram device (named zram*: its major is dynamic)
 * @TOPO_MD: an md (software RAID) device (it has an md/ directory)
 *
 * There is no separate NVMe kind: an NVMe namespace is a disk to the block
 * layer, as lsblk shows it.
 */
enum topo_kind {
	TOPO_DISK = 0,
	TOPO_PARTITION,
	TOPO_DM,
	TOPO_LOOP,
	TOPO_ZRAM,
	TOPO_MD,
};

/**
 * topo_kind_name - a short lowercase name of a kind, as lsblk's TYPE says it
 * @kind: the kind
 *
 * Returns "disk", "part", "dm", "loop", "zram", "md", or "?" for a value
 * outside the enum.
 */
const char *topo_kind_name(enum topo_kind kind);

/**
 * struct topo_dev_info - what sysfs (and device-mapper) tell about a device
 * @dev: the device (kernel dev_t)
 * @name: kernel name: "sda1", "dm-2", "loop0p1"
 * @dm_name: dm/name, the name under /dev/mapper ("" unless dm)
 * @dm_uuid: dm/uuid ("CRYPT-LUKS2-...", "LVM-..."; "" when unset or not dm)
 * @target: the dm table's target type: "crypt", "thin", "thin-pool",
 *	"striped", "linear", "mirror", "raid", "multipath"...; "mixed" for a
 *	table whose targets are not all of one type; "" when not dm or
 *	unknown (see topo_dev_info() for where it comes from)
 * @backing: a loop device's backing file (loop/backing_file; "" if none)
 * @md_level: an md device's md/level ("raid1"; "" unless md)
 * @kind: what the device is
 * @part_start: a partition's first sector on its disk (512-byte units);
 *	this is what a remap from the partition to the disk adds; 0 otherwise
 * @parent: a partition's disk; 0 otherwise
 * @size_sectors: size in 512-byte sectors
 * @scheduler: the selected I/O scheduler ("mq-deadline", "none"); a
 *	partition reports its disk's; "" when the device has no
 *	queue/scheduler attribute (bio-based devices such as zram on recent
 *	kernels)
 * @rotational: queue/rotational is 1 (a partition reports its disk's)
 * @slaves: the devices this one sends I/O to (slaves/), ascending
 * @nslaves: how many
 * @holders: the devices sitting on this one (holders/), ascending; a
 *	disk's partitions are not among them
 * @nholders: how many
 * @slots: a dm device's lower devices in the order its table names them
 *	(a stripe's legs, a pool's metadata then data device: the place
 *	each fills, the same on another machine whatever its names), from
 *	device-mapper or a recorded table; NULL when not known
 * @nslots: how many
 *
 * Release with topo_dev_info_free().
 */
struct topo_dev_info {
	uint32_t dev;
	char name[64];
	char dm_name[128];
	char dm_uuid[128];
	char target[32];
	char backing[256];
	char md_level[16];
	enum topo_kind kind;
	uint64_t part_start;
	uint32_t parent;
	uint64_t size_sectors;
	char scheduler[32];
	bool rotational;
	uint32_t *slaves;
	size_t nslaves;
	uint32_t *holders;
	size_t nholders;
	uint32_t *slots;
	size_t nslots;
};

/**
 * topo_dev_info - describe one device
 * @root: as for topo_resolve()
 * @dev: the device
 * @out: filled in; release with topo_dev_info_free()
 *
 * Attributes that a device lacks are left empty or zero; strings too long
 * for their field are cut. Holders or slaves that have gone away since
 * they were listed are skipped.
 *
 * The dm target type comes from the lookup set by topo_dm_ops_set() when
 * one is set, whatever @root. Otherwise it comes from libdevmapper
 * (topo_dm_target()), but only for this machine (@root "" or "/"): a
 * fixture tree's devices are not this machine's. When that lookup fails or
 * gives nothing, it is guessed from dm/uuid, which the tools that made the
 * device set (a few sure prefixes and suffixes, nothing more):
 *
 *   CRYPT-VERITY-...      verity      (veritysetup)
 *   CRYPT-INTEGRITY-...   integrity   (integritysetup)
 *   CRYPT-SUBDEV-...      (nothing: LUKS2 integrity helper, type unknown)
 *   CRYPT-...             crypt       (cryptsetup: LUKS1/2, plain, TCRYPT...)
 *   mpath-...             multipath   (multipathd)
 *   partN-...             linear      (kpartx: a partition of a dm device)
 *   LVM-...-tpool         thin-pool   (lvm2: the pool itself)
 *
 * Any other device-mapper device (an LVM volume: linear, striped, thin,
 * raid, cache... alike) is left "".
 *
 * Returns 0; -ENOENT when sysfs does not know @dev; -EINVAL for a NULL
 * @out; -ENOMEM; other negative errno values for I/O errors. On error
 * *@out holds nothing to free.
 */
int topo_dev_info(const char *root, uint32_t dev, struct topo_dev_info *out);

/** topo_dev_info_free - release the lists of @info; NULL and zeroed are accepted */
void topo_dev_info_free(struct topo_dev_info *info);

/**
 * struct topo_dm_ops - how topo_dev_info() learns a dm table's target type
 * @target: write the target type of device-mapper device @dev into @buf
 *	(@len bytes, NUL-terminated): "crypt", "thin", ..., "mixed" when the
 *	table's targets differ, "" when it has none. Return 0, or a negative
 *	errno when it cannot tell (the sysfs guess is used then).
 * @devices: the devices dm device @dev's table names, in its order, at
 *	most @max into @devs, *@n set to how many; 0 or a negative errno
 *	(then the slots are left unknown). NULL: not known.
 *
 * Tests set a fake one to give fixture trees their target types.
 */
struct topo_dm_ops {
	int (*target)(uint32_t dev, char *buf, size_t len);
	int (*devices)(uint32_t dev, uint32_t *devs, size_t max, size_t *n);
};

/**
 * topo_dm_ops_set - replace the dm target lookup
 * @ops: the lookup to use for every root, or NULL to go back to the
 *	default (libdevmapper, for this machine only); kept by reference,
 *	so it must outlive its use
 */
void topo_dm_ops_set(const struct topo_dm_ops *ops);

/**
 * topo_dm_target - the target type of a dm device, from libdevmapper
 * @dev: the device (kernel dev_t)
 * @buf: where to write the type (as struct topo_dm_ops' @target)
 * @len: size of @buf
 *
 * This is the default lookup. It asks the kernel for the device's table
 * (DM_DEVICE_TABLE by major:minor) on this machine and reports the first
 * target's type, or "mixed". libdevmapper's own messages are silenced.
 *
 * Returns 0; -ENODEV when /dev/mapper/control is missing (no
 * device-mapper, or no /dev) and -EACCES when it cannot be opened for
 * reading and writing (not root), both without calling libdevmapper;
 * -ENOENT when there is no such dm device; -EIO when the ioctl fails;
 * -ERANGE when @buf is too small; -EINVAL for a NULL or empty @buf.
 */
int topo_dm_target(uint32_t dev, char *buf, size_t len);

/**
 * topo_dm_devices - the devices a dm device's table names, in its order,
 * from libdevmapper (the default @devices of struct topo_dm_ops): as
 * topo_dm_target(), each target's parameters through topo_table_devices()
 * Returns 0 or as topo_dm_target().
 */
int topo_dm_devices(uint32_t dev, uint32_t *devs, size_t max, size_t *n);

/**
 * topo_table_devices - append to @devs (*@n of them, @max at most) each
 * "MAJ:MIN" word of a dm target's parameters, in order, once each
 */
void topo_table_devices(const char *params, uint32_t *devs, size_t max, size_t *n);

#endif /* BLKSTACK_TOPO_H */
