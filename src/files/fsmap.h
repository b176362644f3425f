/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fsmap.h - the mounted filesystems: which superblock device (the s_dev
 * of page-cache events), which block devices and which backing device
 * (bdi, the name writeback events carry) each one has, and where it is
 * mounted.
 *
 * ext4 and xfs have a block device as s_dev; btrfs (and any filesystem
 * whose s_dev is an anonymous 0:N) is mapped to its devices through
 * mountinfo's source and /sys/fs/btrfs/UUID/devices. Everything is read
 * under a settable root, so that tests run on fixture trees.
 */
#ifndef BLKSTACK_FSMAP_H
#define BLKSTACK_FSMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct fsmap_mount - one place a filesystem is mounted
 * @target: the mount point ("/mnt/data")
 * @root: the directory of the filesystem mounted there ("/" for all of it,
 *	  "/@home" for a btrfs subvolume, "/dir" for a bind mount)
 */
struct fsmap_mount {
	char *target;
	char *root;
};

/**
 * struct fsmap_fs - one mounted filesystem (one superblock)
 * @sdev: its superblock device (kernel dev_t), as page-cache events carry it
 * @fstype: "ext4", "xfs", "btrfs"...
 * @source: what it was mounted from ("/dev/loop0p1"; "none" for tmpfs)
 * @mounts: where it is mounted, @nmounts of them (bind mounts included)
 * @devs: the block devices it lives on, kernel dev_t, ascending (empty for
 *	  tmpfs, proc...)
 * @ndevs: how many
 * @bdi: the name of its backing device ("7:0", "254:0", "btrfs-1"; "" when
 *	 unknown): a partition's is its disk's
 */
struct fsmap_fs {
	uint32_t sdev;
	char *fstype;
	char *source;
	struct fsmap_mount *mounts;
	size_t nmounts;
	uint32_t *devs;
	size_t ndevs;
	char bdi[32];
};

/**
 * struct fsmap - the filesystems of a machine, and its swap devices
 * @fs: one per superblock, @nfs of them
 * @swaps: block devices in use as swap (/proc/swaps), @nswaps of them
 */
struct fsmap {
	struct fsmap_fs *fs;
	size_t nfs;
	uint32_t *swaps;
	size_t nswaps;
};

/**
 * fsmap_load - read the filesystems mounted under @root
 * @root: root of the /proc and /sys trees ("" for this machine)
 * @m: filled in; release with fsmap_free()
 *
 * Reads @root/proc/self/mountinfo (libmount), @root/proc/swaps, and for
 * the devices and bdi @root/sys/class/block and @root/sys/fs/btrfs. A
 * device that cannot be resolved leaves that filesystem without devices.
 *
 * Returns 0, -ENOENT when there is no mountinfo, -ENOMEM, or another
 * negative errno; on error *@m holds nothing to free.
 */
int fsmap_load(const char *root, struct fsmap *m);

/** fsmap_free - release; a zeroed map is accepted */
void fsmap_free(struct fsmap *m);

/** fsmap_by_sdev - the filesystem of superblock device @sdev, or NULL */
const struct fsmap_fs *fsmap_by_sdev(const struct fsmap *m, uint32_t sdev);

/** fsmap_by_dev - the filesystem living on block device @dev, or NULL */
const struct fsmap_fs *fsmap_by_dev(const struct fsmap *m, uint32_t dev);

/** fsmap_by_bdi - the first filesystem whose backing device is named @bdi, or NULL */
const struct fsmap_fs *fsmap_by_bdi(const struct fsmap *m, const char *bdi);

/** fsmap_is_swap - whether block device @dev is in use as swap */
bool fsmap_is_swap(const struct fsmap *m, uint32_t dev);

/** fsmap_fs_has_dev - whether @fs lives on block device @dev */
bool fsmap_fs_has_dev(const struct fsmap_fs *fs, uint32_t dev);

#endif /* BLKSTACK_FSMAP_H */
