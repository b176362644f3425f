#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fixed workload, run under `trace-cmd record`.  Sizes are fixed so that
# checks can compare bytes queued at the top layer with what was asked:
#   raw-write / raw-read   192 KiB O_DIRECT on $TOP at $RAW_OFF_KIB (beyond the
#                          file system; the offset crosses 32 KiB stripe chunks,
#                          64 KiB thin blocks and, for linear, the target boundary)
#   direct-write / -read   4 x 96 KiB O_DIRECT on a file
#   buffered-write         4 x 64 KiB then fsync
#   rm, fstrim, flush      discards (online, then fstrim) and an empty flush
# Each phase starts with a trace_marker line "bsk-phase NAME".
set -euo pipefail
: "${TOP:?}" "${MNT:?}" "${RAW_OFF_KIB:?}"

phase() { echo "bsk-phase $1" >/sys/kernel/tracing/trace_marker; }

phase raw-write
dd if=/dev/zero of="$TOP" bs=96k count=2 seek=$((RAW_OFF_KIB * 1024)) \
	oflag=direct,seek_bytes conv=notrunc
phase raw-read
dd if="$TOP" of=/dev/null bs=96k count=2 skip=$((RAW_OFF_KIB * 1024)) \
	iflag=direct,skip_bytes
phase direct-write
dd if=/dev/zero of="$MNT/direct" bs=96k count=4 oflag=direct
phase direct-read
dd if="$MNT/direct" of=/dev/null bs=96k count=4 iflag=direct
phase buffered-write
dd if=/dev/zero of="$MNT/buffered" bs=64k count=4 conv=fsync
phase rm
rm "$MNT/direct" "$MNT/buffered"
sync
phase fstrim
fstrim -v "$MNT"
phase flush
# fsync on the block device sends an empty REQ_PREFLUSH bio down the stack
dd if=/dev/null of="$TOP" count=0 conv=notrunc,fsync
phase end
