#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fixed workload, run inside the traced window (guest/init).  Sizes are
# fixed so that checks can compare bytes queued at the top layer with what was
# asked.  A stack picks its phases (STACK_PHASES, default the first eight):
#   raw-write / raw-read   2 x 96 KiB O_DIRECT on $TOP at $RAW_OFF_KIB (beyond
#                          the file system; the offset crosses 32 KiB stripe
#                          chunks, 64 KiB thin blocks and, for linear, the
#                          target boundary)
#   direct-write / -read   4 x 96 KiB O_DIRECT on a file
#   buffered-write         4 x 64 KiB then fsync
#   rm, fstrim, flush      discards (online, then fstrim) and an empty flush
#   small-direct-write     16 x 4 KiB O_DIRECT overwrites of the direct-write
#                          file, 24 KiB apart (md raid5: read-modify-write)
#   seq-write / chunk-read 1 MiB buffered then fsync; read back O_DIRECT in
#                          96 KiB pieces (across md chunks)
#   fsync-write            64 x (4 KiB write, fsync) into a new file, one
#                          process; fsync-overwrite: the same blocks again
#   overwrite              4 x 96 KiB O_DIRECT overwrites of $MNT/prefill,
#                          written before the window (dm-snapshot: copy on write)
#   snap-read              the raw-write range read O_DIRECT from $SNAP (the
#                          snapshot: copied chunks and origin chunks)
#   rmw-cold / rmw-level1  md raid5 ($MD_SYSFS): the stripe cache emptied, then
#                          8 x 4 KiB O_DIRECT overwrites of the seq-write file,
#                          128 KiB apart, with rmw_level 2 (read-modify-write)
#                          then 1 (reconstruct-write on a tie)
#   stripe-multi           4 x 4 KiB O_DIRECT writes into one stripe by 4
#                          processes at once, then the same 4 again, the
#                          stripe cached
#   path-fail              multipath ($MPATH, paths $MPATH_PATHS): O_DIRECT
#                          reads and writes while a path is failed and
#                          reinstated with dmsetup message
#   path-offline           the same while a path's SCSI device is offline
#   path-none              O_DIRECT reads while every path is failed for 1 s
#                          (queue_if_no_path: the requests wait)
#   reread                 the seq-write file read 3 times O_DIRECT (dm-cache:
#                          promotions), then overwritten in place (dirty
#                          blocks written back), then "dmsetup status" (a
#                          metadata commit)
# Each phase starts with a trace_marker line "bsk-phase NAME"; the last one
# is "bsk-phase end".  What each phase's program issued, and the top
# device's /proc/diskstats before and after it, go to $OUTDIR/app.txt.
#
#   bash workload.sh            run it (needs TOP, MNT, RAW_OFF_KIB, OUTDIR)
#   bash workload.sh --expect   print what the top layer must queue, from the
#                               parameters below (read by tests/vm/check-vm.sh)
set -euo pipefail

RAW_BS_KIB=96 RAW_COUNT=2
DIRECT_BS_KIB=96 DIRECT_COUNT=4
BUFFERED_BS_KIB=64 BUFFERED_COUNT=4
SMALL_BS_KIB=4 SMALL_COUNT=16 SMALL_STRIDE_KIB=24
SEQ_KIB=1024 CHUNK_READ_BS_KIB=96 CHUNK_READ_COUNT=10
FSYNC_BS_KIB=4 FSYNC_COUNT=64
OVERWRITE_BS_KIB=96 OVERWRITE_COUNT=4
RMW_COUNT=8 RMW_STRIDE_KIB=128 MULTI_WRITERS=4
PATH_READ_KIB=1024 PATH_WRITE_KIB=512 PATH_BS_KIB=16 NOPATH_READ_KIB=256
REREAD_COUNT=3
PHASES=${STACK_PHASES:-raw-write raw-read direct-write direct-read buffered-write rm fstrim flush}

if [[ ${1:-} == --expect ]]; then
	# "expect PHASE COMMAND OP CMP KIB [DEVICE]": what COMMAND queued at the
	# top device (or at dm device DEVICE), data only (the metadata reads a
	# command's open causes are REQ_META); OP F counts empty flushes, not KiB.
	# "phases ...": the markers the trace must hold; "fstrim": its discards
	# must be what fstrim reported.
	echo "phases $PHASES end"
	for p in $PHASES; do
		case $p in
		raw-write) echo "expect $p dd W == $((RAW_BS_KIB * RAW_COUNT))" ;;
		raw-read) echo "expect $p dd R == $((RAW_BS_KIB * RAW_COUNT))" ;;
		direct-write) echo "expect $p dd W == $((DIRECT_BS_KIB * DIRECT_COUNT))" ;;
		direct-read) echo "expect $p dd R == $((DIRECT_BS_KIB * DIRECT_COUNT))" ;;
		buffered-write) echo "expect $p dd W == $((BUFFERED_BS_KIB * BUFFERED_COUNT))" ;;
		# every block the two files held is freed and discarded online (ext4 may
		# widen the discard to the free extent around it: at least this much)
		rm) echo "expect $p - D >= $((DIRECT_BS_KIB * DIRECT_COUNT + BUFFERED_BS_KIB * BUFFERED_COUNT))" ;;
		fstrim) echo "fstrim" ;;
		# one empty flush, nothing else
		flush) echo "expect $p dd F == 1" ;;
		small-direct-write) echo "expect $p xfs_io W == $((SMALL_BS_KIB * SMALL_COUNT))" ;;
		seq-write) echo "expect $p dd W == $SEQ_KIB" ;;
		chunk-read) echo "expect $p dd R == $((CHUNK_READ_BS_KIB * CHUNK_READ_COUNT))" ;;
		fsync-write | fsync-overwrite) echo "expect $p xfs_io W == $((FSYNC_BS_KIB * FSYNC_COUNT))" ;;
		overwrite) echo "expect $p dd W == $((OVERWRITE_BS_KIB * OVERWRITE_COUNT))" ;;
		snap-read) echo "expect $p dd R == $((RAW_BS_KIB * RAW_COUNT)) bsk-snap" ;;
		rmw-cold | rmw-level1) echo "expect $p xfs_io W == $((4 * RMW_COUNT))" ;;
		stripe-multi) echo "expect $p xfs_io W == $((4 * MULTI_WRITERS * 2))" ;;
		path-fail | path-offline)
			echo "expect $p dd R == $PATH_READ_KIB"
			echo "expect $p xfs_io W == $PATH_WRITE_KIB" ;;
		path-none) echo "expect $p dd R == $NOPATH_READ_KIB" ;;
		reread)
			echo "expect $p dd R == $((SEQ_KIB * REREAD_COUNT))"
			echo "expect $p xfs_io W == $SEQ_KIB" ;;
		*) echo "unknown phase $p" >&2; exit 1 ;;
		esac
	done
	exit 0
fi

: "${TOP:?}" "${MNT:?}" "${RAW_OFF_KIB:?}" "${OUTDIR:?}"
APP=$OUTDIR/app.txt
: >"$APP"

# MAJ:MIN of a block device node (dmsetup makes nodes, not links)
devno() { echo "$((0x$(stat -L -c %t "$1"))):$((0x$(stat -L -c %T "$1")))"; }
TOPDEV=$(devno "$TOP")

# "rd_ios rd_sectors wr_ios wr_sectors dc_ios dc_sectors fl_ios" of MAJ:MIN
stats() {
	awk -v d="$1" '$1 ":" $2 == d { print $4, $6, $8, $10, $15, $17, $19 + 0 }' /proc/diskstats
}

# run COMMAND... as the phase's program: its pid and what it issues go to
# app.txt as "app PHASE DEVICE COMM PID OP COUNT BYTES"
CUR=
app() { # DEVICE OP COUNT BYTES COMMAND...
	local dev=$1 op=$2 count=$3 bytes=$4 pid rc=0
	shift 4
	"$@" &
	pid=$!
	wait "$pid" || rc=$?
	echo "app $CUR $dev ${1##*/} $pid $op $count $bytes" >>"$APP"
	return "$rc"
}

# Programs of a phase that run at once: started from this shell (a program
# started from a subshell of it was once named "bash" by blktrace, not by
# its own name), waited for together, each with its app.txt line
BG=()
app_start() { # DEVICE OP COUNT BYTES COMMAND...
	local dev=$1 op=$2 count=$3 bytes=$4
	shift 4
	"$@" &
	BG+=("$! $dev ${1##*/} $op $count $bytes")
}
app_wait() {
	local b pid dev comm op count bytes rc=0
	for b in "${BG[@]}"; do
		read -r pid dev comm op count bytes <<<"$b"
		wait "$pid" || rc=$?
		echo "app $CUR $dev $comm $pid $op $count $bytes" >>"$APP"
	done
	BG=()
	return "$rc"
}

BEFORE=
phase() {
	local now
	if [[ -n $CUR ]]; then
		now=$(stats "$TOPDEV")
		echo "diskstats $CUR $TOPDEV $BEFORE $now" >>"$APP"
	fi
	CUR=$1
	BEFORE=$(stats "$TOPDEV")
	echo "bsk-phase $1" >/sys/kernel/tracing/trace_marker
}

# "pwrite -q -b SIZE OFF SIZE" (and fsync) commands for xfs_io
pwrites() { # COUNT SIZE_KIB STRIDE_KIB FSYNC(0/1)
	local i
	for ((i = 0; i < $1; i++)); do
		printf -- '-c\npwrite -q -b %dk %dk %dk\n' "$2" $((i * $3)) "$2"
		(($4 == 0)) || printf -- '-c\nfsync\n'
	done
}

discarded() { awk -v d="$1" '$1 ":" $2 == d { print $17 }' /proc/diskstats; }

# md raid5: empty the stripe cache (shrinking it frees the cached stripes)
stripes_cold() {
	local n
	n=$(<"$MD_SYSFS/stripe_cache_size")
	echo 17 >"$MD_SYSFS/stripe_cache_size"
	echo "$n" >"$MD_SYSFS/stripe_cache_size"
}

# O_DIRECT reads of the top device and O_DIRECT writes into a file, at once,
# in the background: the I/O a path change happens under
path_load() {
	mapfile -t cmds <<<"$(pwrites $((PATH_WRITE_KIB / PATH_BS_KIB)) $PATH_BS_KIB $PATH_BS_KIB 0)"
	app_start "$TOPDEV" R $((PATH_READ_KIB / PATH_BS_KIB)) $((PATH_READ_KIB * 1024)) \
		dd if="$TOP" of=/dev/null bs=${PATH_BS_KIB}k count=$((PATH_READ_KIB / PATH_BS_KIB)) iflag=direct
	app_start "$TOPDEV" W $((PATH_WRITE_KIB / PATH_BS_KIB)) $((PATH_WRITE_KIB * 1024)) \
		xfs_io -d -f "${cmds[@]}" "$MNT/path"
}

mpath_msg() { dmsetup message "${MPATH:?}" 0 "$@"; }

for p in $PHASES; do
	phase "$p"
	case $p in
	raw-write)
		app "$TOPDEV" W $RAW_COUNT $((RAW_BS_KIB * RAW_COUNT * 1024)) \
			dd if=/dev/zero of="$TOP" bs=${RAW_BS_KIB}k count=$RAW_COUNT seek=$((RAW_OFF_KIB * 1024)) \
			oflag=direct,seek_bytes conv=notrunc ;;
	raw-read)
		app "$TOPDEV" R $RAW_COUNT $((RAW_BS_KIB * RAW_COUNT * 1024)) \
			dd if="$TOP" of=/dev/null bs=${RAW_BS_KIB}k count=$RAW_COUNT skip=$((RAW_OFF_KIB * 1024)) \
			iflag=direct,skip_bytes ;;
	snap-read)
		app "$(devno "${SNAP:?}")" R $RAW_COUNT $((RAW_BS_KIB * RAW_COUNT * 1024)) \
			dd if="$SNAP" of=/dev/null bs=${RAW_BS_KIB}k count=$RAW_COUNT skip=$((RAW_OFF_KIB * 1024)) \
			iflag=direct,skip_bytes ;;
	direct-write)
		app "$TOPDEV" W $DIRECT_COUNT $((DIRECT_BS_KIB * DIRECT_COUNT * 1024)) \
			dd if=/dev/zero of="$MNT/direct" bs=${DIRECT_BS_KIB}k count=$DIRECT_COUNT oflag=direct ;;
	direct-read)
		app "$TOPDEV" R $DIRECT_COUNT $((DIRECT_BS_KIB * DIRECT_COUNT * 1024)) \
			dd if="$MNT/direct" of=/dev/null bs=${DIRECT_BS_KIB}k count=$DIRECT_COUNT iflag=direct ;;
	buffered-write)
		app "$TOPDEV" W $BUFFERED_COUNT $((BUFFERED_BS_KIB * BUFFERED_COUNT * 1024)) \
			dd if=/dev/zero of="$MNT/buffered" bs=${BUFFERED_BS_KIB}k count=$BUFFERED_COUNT conv=fsync ;;
	small-direct-write)
		mapfile -t cmds <<<"$(pwrites $SMALL_COUNT $SMALL_BS_KIB $SMALL_STRIDE_KIB 0)"
		app "$TOPDEV" W $SMALL_COUNT $((SMALL_BS_KIB * SMALL_COUNT * 1024)) \
			xfs_io -d "${cmds[@]}" "$MNT/direct" ;;
	seq-write)
		app "$TOPDEV" W 1 $((SEQ_KIB * 1024)) \
			dd if=/dev/zero of="$MNT/seq" bs=${SEQ_KIB}k count=1 conv=fsync ;;
	chunk-read)
		app "$TOPDEV" R $CHUNK_READ_COUNT $((CHUNK_READ_BS_KIB * CHUNK_READ_COUNT * 1024)) \
			dd if="$MNT/seq" of=/dev/null bs=${CHUNK_READ_BS_KIB}k count=$CHUNK_READ_COUNT iflag=direct ;;
	fsync-write | fsync-overwrite)
		mapfile -t cmds <<<"$(pwrites $FSYNC_COUNT $FSYNC_BS_KIB $FSYNC_BS_KIB 1)"
		app "$TOPDEV" W $FSYNC_COUNT $((FSYNC_BS_KIB * FSYNC_COUNT * 1024)) \
			xfs_io -f "${cmds[@]}" "$MNT/fsync" ;;
	overwrite)
		app "$TOPDEV" W $OVERWRITE_COUNT $((OVERWRITE_BS_KIB * OVERWRITE_COUNT * 1024)) \
			dd if=/dev/zero of="$MNT/prefill" bs=${OVERWRITE_BS_KIB}k count=$OVERWRITE_COUNT \
			oflag=direct conv=notrunc ;;
	rm)
		# ext4 (6.1) sends the online discards from a worker once the commit is
		# done: sync returns before they are queued, and under a busy host they
		# came after the next marker (seen once: all 52 MiB of them in "fstrim").
		# Wait, at most 10 s, until the top device's discarded sectors
		# (/proc/diskstats, column 17, counted when dm takes the bio, after its
		# queue event) have grown by the blocks freed.
		want=$(($(discarded "$TOPDEV") + (DIRECT_BS_KIB * DIRECT_COUNT + BUFFERED_BS_KIB * BUFFERED_COUNT) * 2))
		# and what fsync-write and path-fail wrote, where they ran: the
		# page-cache run after the window needs the room (md-raid5's file
		# system is 16 MiB)
		rm -f "$MNT/direct" "$MNT/buffered" "$MNT/fsync" "$MNT/path"
		sync
		for _ in $(seq 100); do
			(($(discarded "$TOPDEV") >= want)) && break
			sleep 0.1
		done ;;
	fstrim)
		# "MNT: N bytes trimmed": check-vm.sh compares N with the discards queued
		fstrim -v "$MNT" ;;
	flush)
		# fsync on the block device sends an empty REQ_PREFLUSH bio down the stack
		app "$TOPDEV" F 1 0 dd if=/dev/null of="$TOP" count=0 conv=notrunc,fsync ;;
	rmw-cold | rmw-level1)
		[[ $p == rmw-cold ]] || echo 1 >"$MD_SYSFS/rmw_level"
		stripes_cold
		off=0
		[[ $p == rmw-cold ]] || off=64
		cmds=()
		for ((i = 0; i < RMW_COUNT; i++)); do
			cmds+=(-c "pwrite -q -b 4k $((off + i * RMW_STRIDE_KIB))k 4k")
		done
		app "$TOPDEV" W $RMW_COUNT $((4096 * RMW_COUNT)) xfs_io -d "${cmds[@]}" "$MNT/seq"
		echo 2 >"$MD_SYSFS/rmw_level" ;;
	stripe-multi)
		stripes_cold
		for pass in 1 2; do
			for ((i = 0; i < MULTI_WRITERS; i++)); do
				app_start "$TOPDEV" W 1 4096 xfs_io -d -c "pwrite -q -b 4k $((8 + i * 12))k 4k" "$MNT/seq"
			done
			app_wait
		done ;;
	path-fail)
		path_load
		read -r p0 p1 <<<"${MPATH_PATHS:?}"
		sleep 0.1
		mpath_msg fail_path "/dev/$p1"
		sleep 0.5
		mpath_msg reinstate_path "/dev/$p1"
		app_wait ;;
	path-offline)
		read -r p0 p1 <<<"${MPATH_PATHS:?}"
		# the first requests sent to it are rejected, and go to the other path
		echo offline >"/sys/block/$p0/device/state"
		path_load
		sleep 0.3
		echo running >"/sys/block/$p0/device/state"
		app_wait
		# multipath failed the path on its error: back in use
		mpath_msg reinstate_path "/dev/$p0" ;;
	path-none)
		read -r p0 p1 <<<"${MPATH_PATHS:?}"
		mpath_msg fail_path "/dev/$p0"
		mpath_msg fail_path "/dev/$p1"
		app_start "$TOPDEV" R $((NOPATH_READ_KIB / 64)) $((NOPATH_READ_KIB * 1024)) \
			dd if="$TOP" of=/dev/null bs=64k count=$((NOPATH_READ_KIB / 64)) iflag=direct
		sleep 1
		mpath_msg reinstate_path "/dev/$p0"
		mpath_msg reinstate_path "/dev/$p1"
		app_wait ;;
	reread)
		for ((i = 0; i < REREAD_COUNT; i++)); do
			app "$TOPDEV" R $((SEQ_KIB / 64)) $((SEQ_KIB * 1024)) \
				dd if="$MNT/seq" of=/dev/null bs=64k count=$((SEQ_KIB / 64)) iflag=direct
		done
		mapfile -t cmds <<<"$(pwrites $((SEQ_KIB / 64)) 64 64 0)"
		app "$TOPDEV" W $((SEQ_KIB / 64)) $((SEQ_KIB * 1024)) xfs_io -d "${cmds[@]}" "$MNT/seq"
		dmsetup status "${CACHE_DM:?}" ;;
	*) echo "unknown phase $p" >&2; exit 1 ;;
	esac
done
phase end
