# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# dm-crypt alone on a whole virtio disk (no partition table), ext4 (discard).
STACK_BUS=virtio
STACK_SCHED=none
STACK_DISKS=("d0 64 0")
FS_MIB=60
RAW_OFF_KIB=$((62 * 1024 + 40))
CRYPT_KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f

stack_setup() {
	local d0
	d0=$(disk_dev d0)
	dm_create bsk-crypt "0 $(dev_sectors "$d0") crypt aes-xts-plain64 $CRYPT_KEY 0 $d0 0 1 allow_discards"
	TOP=/dev/mapper/bsk-crypt
}
