# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# An NVMe disk (qemu nvme, one I/O queue per vCPU) under dm-linear, made the
# origin of a dm-snapshot whose copy-on-write store is a second NVMe disk,
# ext4 on the origin:
#   ext4 -> bsk-origin (snapshot-origin) -> bsk-base (linear) -> nvme d0
#           bsk-snap (snapshot, 4 KiB chunks) -> bsk-base + cow
# The snapshot is taken once the file system holds $MNT/prefill and the raw
# range has data (stack_prepare): the workload's overwrites then copy chunks
# before writing, and snap-read reads copied chunks back from the store.
STACK_BUS=nvme
STACK_SCHED=none
STACK_DISKS=("d0 80 0" "cow 32 0")
STACK_MODULES=(nvme dm_snapshot)
FS_MIB=60
RAW_OFF_KIB=$((62 * 1024 + 40))
STACK_PHASES="raw-write raw-read snap-read overwrite fsync-write flush"

stack_setup() {
	local d0
	d0=$(disk_dev d0)
	LEN=$(dev_sectors "$d0")
	dm_create bsk-base "0 $LEN linear $d0 0"
	dm_create bsk-origin "0 $LEN snapshot-origin /dev/mapper/bsk-base"
	TOP=/dev/mapper/bsk-origin
}

stack_prepare() {
	dd if=/dev/urandom of="$MNT/prefill" bs=96k count=4 conv=fsync 2>/dev/null
	dd if=/dev/urandom of="$TOP" bs=4k count=96 seek=$((RAW_OFF_KIB / 4 - 16)) \
		oflag=direct conv=notrunc 2>/dev/null
	sync
	# as LVM takes a snapshot: the origin suspended (its file system frozen)
	dmsetup --noudevsync suspend bsk-origin
	dm_create bsk-snap "0 $LEN snapshot /dev/mapper/bsk-base $(disk_dev cow) P 8"
	dmsetup --noudevsync resume bsk-origin
	SNAP=/dev/mapper/bsk-snap
	export SNAP
}
