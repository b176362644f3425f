# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# The reference stack, shared by ref-virtio and ref-sata:
#   ext4 (discard) -> dm-crypt -> dm-thin -> thin-pool -> dm-stripe -> d0p1 + d1p1
# with the pool metadata on a third disk.  Partitions start at different
# sectors (2048, 4096) so that a wrong partition offset cannot go unnoticed.

# name size_MiB partition_start (0: whole disk, no partition table)
STACK_DISKS=("d0 50 2048" "d1 51 4096" "meta 8 0")
FS_MIB=60
# 62 MiB + 40 KiB: not aligned to a chunk nor to a thin block
RAW_OFF_KIB=$((62 * 1024 + 40))
# fixed test key, two distinct 256-bit halves (xts refuses equal halves)
CRYPT_KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f

stack_setup() {
	local p0 p1 meta leg=$((48 * 2048)) thin=$((64 * 2048))
	p0=$(part_dev d0)
	p1=$(part_dev d1)
	meta=$(disk_dev meta)
	# 2 legs, chunk 64 sectors (32 KiB)
	dm_create bsk-stripe "0 $((2 * leg)) striped 2 64 $p0 0 $p1 0"
	# thin block 128 sectors (64 KiB, two chunks), low water mark 32 blocks
	dm_create bsk-pool "0 $((2 * leg)) thin-pool $meta /dev/mapper/bsk-stripe 128 32"
	dmsetup message bsk-pool 0 "create_thin 0"
	dm_create bsk-thin "0 $thin thin /dev/mapper/bsk-pool 0"
	dm_create bsk-crypt "0 $thin crypt aes-xts-plain64 $CRYPT_KEY 0 /dev/mapper/bsk-thin 0 1 allow_discards"
	TOP=/dev/mapper/bsk-crypt
}
