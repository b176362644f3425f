# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# dm-linear concatenating two partitions, as LVM does: 64 MiB of d0p1 then
# 8 MiB of d1p1.  ext4 (discard) on top; the raw I/O crosses the boundary.
STACK_BUS=virtio
STACK_SCHED=none
STACK_DISKS=("d0 66 2048" "d1 16 4096")
FS_MIB=60
# starts 40 KiB before the end of the first target
RAW_OFF_KIB=$((64 * 1024 - 40))

stack_setup() {
	local p0 p1 l0=$((64 * 2048)) l1=$((8 * 2048))
	p0=$(part_dev d0)
	p1=$(part_dev d1)
	dm_create bsk-linear "0 $l0 linear $p0 0
$l0 $l1 linear $p1 0"
	TOP=/dev/mapper/bsk-linear
}
