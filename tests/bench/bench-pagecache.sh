#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench-pagecache.sh - what the page-cache events cost: a buffered read of a
# large file set (cat of every file, caches dropped before) on ext4 over a
# loop device, run alone, under "blkstack report" (block events only) and
# under "blkstack report --by file" (block and page-cache events). Prints,
# per round and best of the rounds: the workload's wall time and its
# slowdown, blkstack's CPU time, the events it read, events per second of
# its CPU, events lost. Then the same trace recorded by trace-cmd and read
# offline, with and without the attribution to files.
#
# Usage: bench-pagecache.sh [-n FILES] [-s KIB] [-r ROUNDS]
set -euo pipefail
. "$(dirname "$0")/bench-lib.sh"

FILES=4000
KIB=256
ROUNDS=3
while getopts "n:s:r:h" opt; do
	case $opt in
	n) FILES=$OPTARG ;;
	s) KIB=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	*) echo "usage: $0 [-n FILES] [-s KIB] [-r ROUNDS]" >&2; exit 2 ;;
	esac
done

bench_setup
need_tools mkfs.ext4 python3
bench_header
echo "workload: cat of $FILES files of $KIB KiB (ext4 on a loop device over tmpfs), caches dropped before"

loop_make LOOP $((FILES * KIB / 1024 * 2 + 256))
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$LOOP" || die "mkfs.ext4 failed"
MNT=$WORK/mnt
mkdir -p "$MNT"
mount "/dev/$LOOP" "$MNT" || die "mount failed"
# unmounted before bench_cleanup detaches the loop device; the exit code is kept
# for it (errexit also holds inside the trap: a failed umount must not end it)
trap 'rc=$?; umount "$MNT" 2>/dev/null || :; (exit $rc); bench_cleanup' EXIT
for ((d = 0; d < 20; d++)); do
	mkdir -p "$MNT/d$d"
done
python3 - "$MNT" "$FILES" "$KIB" <<'PY'
import os, sys
mnt, n, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
block = os.urandom(kib * 1024)
for i in range(n):
    with open("%s/d%d/f%d" % (mnt, i % 20, i), "wb") as f:
        f.write(block)
PY
sync

# The workload writes "WALL_US CPU_US" (its user + system time: the
# tracepoints' cost lands in its system time) to its argument.
cat >"$WORK/work.sh" <<EOF
#!/bin/sh
t0=\$(date +%s%N)
$GNU_TIME -f "%U %S" -o "\$1.cpu" find "$MNT" -type f -exec cat {} + >/dev/null
t1=\$(date +%s%N)
echo \$(( (t1 - t0) / 1000 )) \$(awk '{ printf "%d", (\$1 + \$2) * 1000000 }' "\$1.cpu") >"\$1"
EOF
chmod +x "$WORK/work.sh"

# traced TRACER OUT [CMD...]: blkstack report (block events, or with
# blkstack-pc --by file) in the background; once it traces, CMD runs; then
# Ctrl-C. Its own CPU time (not the workload's) lands in $WORK/time.
traced()
{
	local tracer=$1 out=$2 tpid pid i extra=()

	shift 2
	[ "$tracer" = blkstack-pc ] && extra=(--by file --resolve-paths=none)
	"$GNU_TIME" -f "%U %S" -o "$WORK/time" "$BLKSTACK" report -d "$MNT" --json \
		"${extra[@]}" -o "$out" 2>"$WORK/err" &
	tpid=$!
	for i in $(seq 100); do
		pid=$(pgrep -P "$tpid" || true)
		[ -n "$pid" ] && [ "$(cat "$TRACEFS/instances/blkstack-$pid/tracing_on" 2>/dev/null)" = 1 ] &&
			[ "$(cat "$TRACEFS/instances/blkstack-$pid/events/block/block_bio_queue/enable" 2>/dev/null)" = 1 ] &&
			break
		sleep 0.05
	done
	[ -n "$pid" ] || die "blkstack did not start: $(cat "$WORK/err")"
	"$@"
	sleep 0.3
	kill -INT "$pid"
	wait "$tpid" || die "blkstack report ($tracer) failed: $(cat "$WORK/err")"
}

# run_one TRACER: prints "tracer wall_us work_cpu_us cpu_s events lost"
run_one()
{
	local tracer=$1 out=$WORK/$1.json wall cpu events lost

	sync
	echo 3 >/proc/sys/vm/drop_caches
	case $tracer in
	none)
		"$WORK/work.sh" "$WORK/wall"
		cpu=0 events=0 lost=0
		;;
	blkstack|blkstack-pc)
		traced "$tracer" "$out" "$WORK/work.sh" "$WORK/wall"
		cpu=$(awk '{ print $1 + $2 }' "$WORK/time")
		read -r events lost < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
if "files" in d:
    print(d["events"], d["events_lost"])
else:
    print(sum(c["events"] for c in d["tracking"]["cpus"]), d["events_lost"])' "$out")
		;;
	esac
	read -r wall wcpu <"$WORK/wall"
	echo "$tracer $wall $wcpu $cpu $events $lost"
}

# blkstack's fixed cost (instance, formats, a last pass, teardown) with
# nothing to trace: subtracted before events per CPU second are computed
declare -A startup
for tracer in blkstack blkstack-pc; do
	startup[$tracer]=
	for ((r = 1; r <= ROUNDS; r++)); do
		traced "$tracer" "$WORK/idle.json" true
		cpu=$(awk '{ print $1 + $2 }' "$WORK/time")
		if [ -z "${startup[$tracer]}" ] || awk -v a="$cpu" -v b="${startup[$tracer]}" 'BEGIN { exit !(a < b) }'; then
			startup[$tracer]=$cpu
		fi
	done
done
echo "blkstack's CPU time with nothing to trace (best of $ROUNDS): ${startup[blkstack]} s, with --by file ${startup[blkstack-pc]} s"

printf "\n%-12s %5s %9s %9s %9s %8s %8s %10s %12s %5s\n" tracer round wall_ms wall_x \
	work_cpu_ms cpu_x bkst_cpu events events/cpu_s lost
declare -A best_cpu best_wall best_bk best_ev best_lost
for ((r = 1; r <= ROUNDS; r++)); do
	for tracer in none blkstack blkstack-pc; do
		read -r t wall wcpu cpu events lost < <(run_one "$tracer")
		if [ "$tracer" = none ]; then
			base=$wall
			bcpu=$wcpu
		fi
		rate=-
		if [ "$tracer" != none ] && awk -v c="$cpu" -v s="${startup[$tracer]}" 'BEGIN { exit !(c > s) }'; then
			rate=$(awk -v e="$events" -v c="$cpu" -v s="${startup[$tracer]}" 'BEGIN { printf "%.0f", e / (c - s) }')
		fi
		printf "%-12s %5d %9.1f %8.2fx %11.1f %7.2fx %8.2f %10d %12s %5d\n" "$t" "$r" \
			"$(awk -v w="$wall" 'BEGIN { print w / 1000 }')" \
			"$(awk -v w="$wall" -v b="$base" 'BEGIN { print w / b }')" \
			"$(awk -v w="$wcpu" 'BEGIN { print w / 1000 }')" \
			"$(awk -v w="$wcpu" -v b="$bcpu" 'BEGIN { print w / b }')" \
			"$cpu" "$events" "$rate" "$lost"
		# best round: the least workload CPU time (the least disturbed by others)
		if [ -z "${best_cpu[$t]:-}" ] || [ "$wcpu" -lt "${best_cpu[$t]}" ]; then
			best_cpu[$t]=$wcpu
			best_wall[$t]=$wall
			best_bk[$t]=$cpu
			best_ev[$t]=$events
			best_lost[$t]=$lost
		fi
	done
done
echo
echo "best of $ROUNDS rounds (the round with the least workload CPU time):"
for t in none blkstack blkstack-pc; do
	printf "  %-12s workload cpu %8.1f ms (%5.2fx), wall %8.1f ms  blkstack cpu %5.2f s  events %8d  lost %d\n" "$t" \
		"$(awk -v w="${best_cpu[$t]}" 'BEGIN { print w / 1000 }')" \
		"$(awk -v w="${best_cpu[$t]}" -v b="${best_cpu[none]}" 'BEGIN { print w / b }')" \
		"$(awk -v w="${best_wall[$t]}" 'BEGIN { print w / 1000 }')" \
		"${best_bk[$t]}" "${best_ev[$t]}" "${best_lost[$t]}"
done

# Offline: the same workload recorded by trace-cmd, read with and without
# the attribution (instructions where perf can count them, else CPU time).
inst=blkstack-bench-pc-$$
_clean_instances+=("$inst")
sync
echo 3 >/proc/sys/vm/drop_caches
trace-cmd record -q -B "$inst" -d --no-filter -b 65536 -o "$WORK/rec.dat" \
	-e block -e filemap -e readahead -e writeback -e iomap \
	"$WORK/work.sh" "$WORK/wall" >/dev/null 2>&1 || true
remove_instance "$inst"
[ -s "$WORK/rec.dat" ] || die "trace-cmd recorded nothing"
echo
echo "offline, $(du -h "$WORK/rec.dat" | cut -f1) recorded by trace-cmd (every device and filesystem):"
for mode in layers files; do
	extra=()
	[ "$mode" = files ] && extra=(--by file --json --resolve-paths=none)
	best=
	for ((r = 1; r <= ROUNDS; r++)); do
		"$GNU_TIME" -f "%U %S" -o "$WORK/time" "$BLKSTACK" report -i "$WORK/rec.dat" \
			"${extra[@]}" -o "$WORK/off.out" || die "report -i ($mode) failed"
		cpu=$(awk '{ print $1 + $2 }' "$WORK/time")
		if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$cpu
		fi
	done
	if [ "$mode" = files ]; then
		events=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$WORK/off.out")
	else
		"$BLKSTACK" report -i "$WORK/rec.dat" --json -o "$WORK/off.json" >/dev/null
		events=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(c["events"] for c in d["tracking"]["cpus"]))' "$WORK/off.json")
	fi
	printf "  report -i %-7s events %9d  cpu %6.2f s  %s events/s\n" "$mode" "$events" "$best" \
		"$(awk -v e="$events" -v c="$best" 'BEGIN { if (c > 0) printf "%.0f", e / c; else print "-" }')"
done
umount "$MNT"
