# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# md raid5 on four whole disks, 64 KiB chunk, ext4 (discard) on the array:
#   ext4 -> md0 (raid5, 3 data + parity) -> d0 d1 d2 d3
# rmw_level 2 (prefer read-modify-write): a small write reads the old data
# and parity and writes both, even where reconstruct-write costs the same.
# raid456's devices_handle_discard_safely=Y lets the array take discards.
STACK_BUS=virtio
STACK_SCHED=none
STACK_DISKS=("d0 32 0" "d1 32 0" "d2 32 0" "d3 32 0")
STACK_MODULES=(raid456)
STACK_MODPARAMS=("raid456 devices_handle_discard_safely=Y")
# raid5 takes a discard a stripe at a time (4 KiB per disk, merged again in
# the disks' queues): fstrim of 50 MiB was 55,000 events and 3.4 MB of
# trace; 16 MiB of file system keeps the fixture near 1 MB
FS_MIB=16
# beyond the file system, not chunk aligned: 18 MiB + 40 KiB
RAW_OFF_KIB=$((18 * 1024 + 40))
STACK_PHASES="raw-write raw-read direct-write direct-read small-direct-write buffered-write seq-write chunk-read rmw-cold rmw-level1 stripe-multi fsync-write rm fstrim flush"

stack_setup() {
	md_create md0 5 64 "$(disk_dev d0)" "$(disk_dev d1)" "$(disk_dev d2)" "$(disk_dev d3)"
	echo 2 >/sys/block/md0/md/rmw_level
	[[ $(</sys/block/md0/md/rmw_level) == 2 ]] || die "md0: rmw_level is not 2"
	[[ $(</sys/block/md0/queue/discard_max_bytes) != 0 ]] ||
		die "md0 takes no discards (raid456 devices_handle_discard_safely)"
	MD_SYSFS=/sys/block/md0/md
	export MD_SYSFS
	TOP=/dev/md0
}
