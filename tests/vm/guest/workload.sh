#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fixed workload, run inside the traced window (guest/init).  Sizes are
# fixed so that checks can compare bytes queued at the top layer with what was
# asked:
#   raw-write / raw-read   2 x 96 KiB O_DIRECT on $TOP at $RAW_OFF_KIB (beyond
#                          the file system; the offset crosses 32 KiB stripe
#                          chunks, 64 KiB thin blocks and, for linear, the
#                          target boundary)
#   direct-write / -read   4 x 96 KiB O_DIRECT on a file
#   buffered-write         4 x 64 KiB then fsync
#   rm, fstrim, flush      discards (online, then fstrim) and an empty flush
# Each phase starts with a trace_marker line "bsk-phase NAME".
#
#   bash workload.sh            run it (needs TOP, MNT, RAW_OFF_KIB)
#   bash workload.sh --expect   print what the top layer must queue, from the
#                               parameters below (read by tests/vm/check-vm.sh)
set -euo pipefail

RAW_BS_KIB=96 RAW_COUNT=2
DIRECT_BS_KIB=96 DIRECT_COUNT=4
BUFFERED_BS_KIB=64 BUFFERED_COUNT=4

if [[ ${1:-} == --expect ]]; then
	# phase  command  op  KiB queued at the top device by that command
	# (data only: the metadata reads dd's open causes are REQ_META)
	echo "raw-write dd W $((RAW_BS_KIB * RAW_COUNT))"
	echo "raw-read dd R $((RAW_BS_KIB * RAW_COUNT))"
	echo "direct-write dd W $((DIRECT_BS_KIB * DIRECT_COUNT))"
	echo "direct-read dd R $((DIRECT_BS_KIB * DIRECT_COUNT))"
	echo "buffered-write dd W $((BUFFERED_BS_KIB * BUFFERED_COUNT))"
	# every block the two files held is freed and discarded online (ext4 may
	# widen the discard to the free extent around it: at least this much)
	echo "rm-min - D $((DIRECT_BS_KIB * DIRECT_COUNT + BUFFERED_BS_KIB * BUFFERED_COUNT))"
	# one empty flush, nothing else
	echo "flush dd F 0"
	exit 0
fi

: "${TOP:?}" "${MNT:?}" "${RAW_OFF_KIB:?}"

phase() { echo "bsk-phase $1" >/sys/kernel/tracing/trace_marker; }

phase raw-write
dd if=/dev/zero of="$TOP" bs=${RAW_BS_KIB}k count=$RAW_COUNT seek=$((RAW_OFF_KIB * 1024)) \
	oflag=direct,seek_bytes conv=notrunc
phase raw-read
dd if="$TOP" of=/dev/null bs=${RAW_BS_KIB}k count=$RAW_COUNT skip=$((RAW_OFF_KIB * 1024)) \
	iflag=direct,skip_bytes
phase direct-write
dd if=/dev/zero of="$MNT/direct" bs=${DIRECT_BS_KIB}k count=$DIRECT_COUNT oflag=direct
phase direct-read
dd if="$MNT/direct" of=/dev/null bs=${DIRECT_BS_KIB}k count=$DIRECT_COUNT iflag=direct
phase buffered-write
dd if=/dev/zero of="$MNT/buffered" bs=${BUFFERED_BS_KIB}k count=$BUFFERED_COUNT conv=fsync
phase rm
# ext4 (6.1) sends the online discards from a worker once the commit is
# done: sync returns before they are queued, and under a busy host they
# came after the next marker (seen once: all 52 MiB of them in "fstrim").
# Wait, at most 10 s, until the top device's discarded sectors
# (/proc/diskstats, column 17, counted when dm takes the bio, after its
# queue event) have grown by the blocks freed.
discarded() { awk -v M="$1" -v m="$2" '$1 == M && $2 == m { print $17 }' /proc/diskstats; }
read -r maj min <<<"$(stat -L -c '%t %T' "$TOP")"
maj=$((16#$maj)) min=$((16#$min))
want=$(($(discarded "$maj" "$min") + (DIRECT_BS_KIB * DIRECT_COUNT + BUFFERED_BS_KIB * BUFFERED_COUNT) * 2))
rm "$MNT/direct" "$MNT/buffered"
sync
for _ in $(seq 100); do
	(($(discarded "$maj" "$min") >= want)) && break
	sleep 0.1
done
phase fstrim
# "MNT: N bytes trimmed": check-vm.sh compares N with the discards queued
fstrim -v "$MNT"
phase flush
# fsync on the block device sends an empty REQ_PREFLUSH bio down the stack
dd if=/dev/null of="$TOP" count=0 conv=notrunc,fsync
phase end
