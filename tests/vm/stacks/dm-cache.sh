# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# dm-cache in writeback mode, its metadata and cache blocks on two small
# disks, ext4 on the cache:
#   ext4 -> bsk-cache (cache, smq, 64 KiB blocks) -> slow (origin)
#                                                   fast (cache blocks)
#                                                   meta (its metadata)
# The cache reads and writes its metadata and copies blocks (promotions,
# writebacks, by kcopyd) on its own: I/O no application queued.
STACK_BUS=virtio
STACK_SCHED=none
STACK_DISKS=("slow 80 0" "fast 24 0" "meta 8 0")
STACK_MODULES=(dm_cache dm_cache_smq)
FS_MIB=60
RAW_OFF_KIB=$((62 * 1024 + 40))
STACK_PHASES="raw-write raw-read direct-write direct-read buffered-write seq-write reread fsync-write rm fstrim flush"

stack_setup() {
	local slow
	slow=$(disk_dev slow)
	# block size 128 sectors, 1 feature (writeback), smq with no arguments
	dm_create bsk-cache "0 $(dev_sectors "$slow") cache $(disk_dev meta) $(disk_dev fast) $slow 128 1 writeback smq 0"
	# copy as much as smq asks at once: promotions during the workload
	dmsetup message bsk-cache 0 migration_threshold 65536
	CACHE_DM=bsk-cache
	export CACHE_DM
	TOP=/dev/mapper/bsk-cache
}
