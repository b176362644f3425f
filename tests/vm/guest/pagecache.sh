#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The page-cache part of the guest's run (guest/init, after the traced
# window): files of known sizes on the stack's ext4, read cold with read(2),
# mmap and O_DIRECT, one written with fsync, 16 MiB (or what fits) written
# with O_DIRECT, under
# "blkstack report --by dir --json"; then a traced drop of caches under
# "blkstack report --by file --json". Results in $OUTDIR/pc-*; what this
# kernel's tracefs has of the page-cache events in pc-events.txt, so that
# check-vm.sh can hold blkstack's notes about missing events against it.
set -euo pipefail
: "${MNT:?}" "${TOP:?}" "${OUTDIR:?}"

D=$MNT/pc
mkdir -p "$D/d1" "$D/d2/sub"
# sizes as tests/test-pagecache.sh uses them (check-vm.sh knows them too)
head -c 300000 /dev/urandom >"$D/d1/r1"
head -c 1060864 /dev/urandom >"$D/d1/r2"
head -c 2000000 /dev/urandom >"$D/d2/m1"
head -c 1048576 /dev/urandom >"$D/d2/sub/o1"
sync
echo 3 >/proc/sys/vm/drop_caches

for s in filemap readahead writeback iomap; do
	for e in /sys/kernel/tracing/events/$s/*/; do
		[[ -d $e ]] && echo "$s/$(basename "$e")"
	done
done >"$OUTDIR/pc-events.txt"
# the readahead window of the filesystem's backing device (TOP, mounted on
# MNT), and the page size of this x86_64 guest
# (a device node made by dmsetup, not a link: its numbers from stat, in hex)
bdi=$((0x$(stat -c %t "$TOP"))):$((0x$(stat -c %T "$TOP")))
echo "$(cat "/sys/class/bdi/$bdi/read_ahead_kb") 4096" >"$OUTDIR/pc-ra.txt"

blkstack report -d "$MNT" --by dir --json --resolve-paths=walk -o "$OUTDIR/pc.json" -- bash -c "
	cat '$D/d1/r1' >/dev/null
	cat '$D/d1/r2' >/dev/null
	/vm/mmapread '$D/d2/m1'
	dd if='$D/d2/sub/o1' of=/dev/null bs=64k iflag=direct 2>/dev/null
	dd if=/dev/zero of='$D/d2/sub/dw' bs=1M count=16 oflag=direct 2>/dev/null
	dd if=/dev/urandom of='$D/d2/w1' bs=200000 count=1 conv=fsync 2>/dev/null" \
	2>"$OUTDIR/pc.err"
blkstack report -d "$MNT" --by file --json --resolve-paths=walk -o "$OUTDIR/pc-drop.json" -- \
	sh -c 'sync; echo 3 >/proc/sys/vm/drop_caches' 2>"$OUTDIR/pc-drop.err"
echo "$D" >"$OUTDIR/pc-dir.txt"
# what the O_DIRECT write wrote: the whole 16 MiB, or up to a full file
# system on a small stack (md-raid5's is 16 MiB)
stat -c %s "$D/d2/sub/dw" >"$OUTDIR/pc-dw.txt"
