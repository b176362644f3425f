# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# dm-crypt with 4 KiB crypto sectors over a dm-linear concatenation of two
# whole disks (64 MiB of d0, then 16 MiB of d1), ext4 (discard) on top:
#   ext4 -> dm-crypt (sector_size:4096) -> dm-linear -> d0 + d1
# The raw I/O starts 40 KiB before the linear boundary.
STACK_BUS=virtio
STACK_SCHED=none
STACK_DISKS=("d0 64 0" "d1 16 0")
FS_MIB=60
RAW_OFF_KIB=$((64 * 1024 - 40))
CRYPT_KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f

stack_setup() {
	local d0 d1 l0=$((64 * 2048)) l1=$((16 * 2048))
	d0=$(disk_dev d0)
	d1=$(disk_dev d1)
	dm_create bsk-linear "0 $l0 linear $d0 0
$l0 $l1 linear $d1 0"
	dm_create bsk-crypt "0 $((l0 + l1)) crypt aes-xts-plain64 $CRYPT_KEY 0 /dev/mapper/bsk-linear 0 2 allow_discards sector_size:4096"
	TOP=/dev/mapper/bsk-crypt
}
