# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# Request-based dm-multipath over two paths to one disk, a dm-linear
# "partition" on it, ext4 on top:
#   ext4 -> bsk-part (linear) -> bsk-mpath (multipath, round-robin) -> sda, sdb
# The disk is one image behind two virtio-scsi HBAs (vm.sh's bus "mpath").
# queue_if_no_path: with every path failed the requests wait at bsk-mpath.
# The workload fails a path under load (dmsetup message), sets a path's SCSI
# device offline, and fails both paths for a second.
STACK_BUS=mpath
STACK_SCHED=mq-deadline
STACK_DISKS=("d0 96 0")
STACK_MODULES=(virtio_scsi dm_multipath dm_round_robin)
FS_MIB=60
RAW_OFF_KIB=$((62 * 1024 + 40))
STACK_PHASES="raw-write raw-read direct-write direct-read buffered-write path-fail path-offline path-none fsync-write rm fstrim flush"

stack_setup() {
	local p0 p1 len
	read -r p0 p1 <<<"$(mpath_paths d0)"
	len=$(dev_sectors "/dev/$p0")
	# 1 feature (queue_if_no_path), no hardware handler, 1 path group:
	# round-robin, 2 paths, 1 I/O per path before the next
	dm_create bsk-mpath "0 $len multipath 1 queue_if_no_path 0 1 1 round-robin 0 2 1 /dev/$p0 1 /dev/$p1 1"
	[[ $(dmsetup table bsk-mpath) == *multipath* ]] || die "bsk-mpath: no multipath table"
	dm_create bsk-part "0 $((len - 2048)) linear /dev/mapper/bsk-mpath 2048"
	MPATH=bsk-mpath
	MPATH_PATHS="$p0 $p1"
	export MPATH MPATH_PATHS
	TOP=/dev/mapper/bsk-part
}
