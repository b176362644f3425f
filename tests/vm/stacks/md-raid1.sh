# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# md raid1 on two partitions, dm-linear on the array, xfs (discard) on top:
#   xfs -> dm-linear -> md0 (raid1) -> d0p1 + d1p1
# The workload is fsync-heavy: 64 small writes each followed by fsync, then
# the same blocks overwritten; each fsync is a data write and a log write with
# PREFLUSH + FUA, which dm splits into an empty flush and the data.
# xfsprogs refuses file systems under 300 MiB: the disks are sparse images.
STACK_BUS=virtio
STACK_SCHED=none
STACK_DISKS=("d0 340 2048" "d1 341 4096")
STACK_MODULES=(raid1 xfs)
STACK_FS=xfs
FS_MIB=304
# beyond the file system: 310 MiB + 40 KiB
RAW_OFF_KIB=$((310 * 1024 + 40))
STACK_PHASES="raw-write raw-read direct-write direct-read fsync-write fsync-overwrite flush"

stack_setup() {
	local p0 p1 len=$((320 * 2048))
	p0=$(part_dev d0)
	p1=$(part_dev d1)
	md_create md0 1 - "$p0" "$p1"
	dm_create bsk-linear "0 $len linear /dev/md0 0"
	TOP=/dev/mapper/bsk-linear
}
