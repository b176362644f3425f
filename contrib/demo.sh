#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# demo.sh - blkstack on a small stack it builds for itself.
#
# An image file on a loop device, a partition on it (added with addpart, so
# no partition-table parser is needed), ext4 on the partition, mounted on a
# temporary directory. "blkstack trace -d MOUNTDIR -w 5" traces that stack
# while a small workload runs, then "blkstack report -d MOUNTDIR -- WORKLOAD"
# reports the same workload per layer: O_DIRECT writes and reads, then a buffered
# write and a sync. The log's first lines and the summary are shown. Last,
# "blkstack report --by file" ties the disk I/O of cold reads and of a write
# with fsync to the files it was for.
# Everything is torn down on every way out, Ctrl-C included.
#
# Usage: sudo contrib/demo.sh     (BLKSTACK=/path/to/blkstack to choose the binary)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BLKSTACK=${BLKSTACK:-$here/../src/blkstack}
TRACEFS=/sys/kernel/tracing
DURATION=5

tmp=
loop=
mnt=
tracer=

die()
{
	echo "demo: $*" >&2
	exit 1
}

cleanup()
{
	local rc=$?

	set +e
	trap - EXIT INT TERM
	if [ -n "$tracer" ] && kill -0 "$tracer" 2>/dev/null; then
		# SIGINT is blkstack's Ctrl-C: it removes its tracefs instance
		kill -INT "$tracer" 2>/dev/null
		wait "$tracer" 2>/dev/null
	fi
	if [ -n "$mnt" ] && mountpoint -q "$mnt"; then
		umount "$mnt" || umount -l "$mnt"
	fi
	if [ -n "$loop" ]; then
		delpart "$loop" 1 2>/dev/null
		losetup -d "$loop" || echo "demo: could not detach $loop" >&2
	fi
	[ -n "$tmp" ] && rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[ "$(id -u)" -eq 0 ] || die "needs root (tracefs and loop devices): run 'sudo $0'"
[ -x "$BLKSTACK" ] || die "no blkstack binary at '$BLKSTACK': build it first (make), or set BLKSTACK"
for tool in losetup addpart delpart mkfs.ext4 mount umount mountpoint dd; do
	command -v "$tool" >/dev/null || die "'$tool' is missing (Debian: util-linux, mount, e2fsprogs, coreutils)"
done

tmp=$(mktemp -d /tmp/blkstack-demo.XXXXXX)
mnt=$tmp/mnt
mkdir "$mnt"

echo "== setting up: image -> loop device -> partition 1 -> ext4 on $mnt"
truncate -s 128M "$tmp/disk.img"
loop=$(losetup -P -f --show "$tmp/disk.img")
# partition 1: from sector 2048, 126 MiB long
addpart "$loop" 1 2048 258048
part=${loop}p1
for _ in $(seq 50); do
	[ -b "$part" ] && break
	sleep 0.1
done
[ -b "$part" ] || die "$part did not appear after addpart"
# initialize inode tables and journal now, not in ext4lazyinit during the trace
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$part"
mount "$part" "$mnt"
echo "   $loop ($(cat "/sys/class/block/${loop#/dev/}/dev")), $part ($(cat "/sys/class/block/${part#/dev/}/dev")), mounted on $mnt"

echo "== blkstack trace -d $mnt -w $DURATION"
log=$tmp/trace.log
"$BLKSTACK" trace -d "$mnt" -w "$DURATION" -o "$log" &
tracer=$!

# Wait until the instance is tracing, so the workload is seen from its start.
# A new instance has tracing_on set; blkstack turns it off, enables the
# events, and turns it on again once its readers are open: both must be 1.
inst=$TRACEFS/instances/blkstack-$tracer
for _ in $(seq 100); do
	if [ "$(cat "$inst/events/block/block_bio_queue/enable" 2>/dev/null)" = 1 ] &&
	   [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ]; then
		break
	fi
	kill -0 "$tracer" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$tracer" 2>/dev/null || { wait "$tracer" || true; tracer=; die "blkstack trace exited early"; }

echo "== workload: O_DIRECT write 1 MiB and read it back, buffered write 4 MiB + sync"
dd if=/dev/zero of="$mnt/direct" bs=64k count=16 oflag=direct status=none
dd if="$mnt/direct" of=/dev/null bs=4k count=16 iflag=direct status=none
dd if=/dev/zero of="$mnt/buffered" bs=1M count=4 status=none
sync -f "$mnt"

rc=0
wait "$tracer" || rc=$?
tracer=
[ "$rc" -eq 0 ] || die "blkstack trace exited with status $rc"

echo
echo "== the first lines of the log (blkparse's format: dev cpu seq time pid action rwbs ...)"
awk '/^Total \(/ || NR > 25 { exit } { print }' "$log"
echo "   ... $(grep -c '^ *[0-9]*,[0-9]' "$log") lines in all"
echo
echo "== the summary"
sed -n '/^Total (/,$p' "$log"
echo
echo "== the main job: blkstack report -d $mnt -- (the same workload)"
echo "   every I/O followed from the filesystem's partition down to the loop disk"
cat >"$tmp/workload.sh" <<WL
dd if=/dev/zero of="$mnt/direct2" bs=64k count=16 oflag=direct status=none
dd if="$mnt/direct2" of=/dev/null bs=4k count=16 iflag=direct status=none
dd if=/dev/zero of="$mnt/buffered2" bs=1M count=4 status=none
sync -f "$mnt"
WL
"$BLKSTACK" report -d "$mnt" -- sh "$tmp/workload.sh" || die "blkstack report failed"

echo
echo "== and per file: blkstack report -d $mnt --by file -- (cold reads, a write with fsync)"
echo "   the same disk I/O tied to the files it was for, from the page-cache events"
# cold: remounted, so that only this filesystem's cache is emptied
umount "$mnt" && mount "$part" "$mnt" || die "cannot mount $part again on $mnt"
cat >"$tmp/files.sh" <<WL
cat "$mnt/buffered2" "$mnt/direct2" >/dev/null
dd if=/dev/zero of="$mnt/written" bs=64k count=8 conv=fsync status=none
WL
"$BLKSTACK" report -d "$mnt" --by file --resolve-paths=walk -- sh "$tmp/files.sh" ||
	die "blkstack report --by file failed"
