#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Offline stack tracking speed: blkstack report against btt.
#
# One fio workload (4k random read/write, direct, queue depth 4) on a loop
# device (request-based: Q, G, I, D, C and merges) is recorded at the same
# time by `trace-cmd record --file-version 6` (a trace.dat) and by the
# kernel's blk tracer (blktrace's engine, read from trace_pipe into bt.bin),
# twice: for SECS and for SECS/4 seconds, so that peak memory can be
# compared across trace lengths. Then, best of RUNS runs each:
#
#   blkstack report -i v6.dat -o /dev/null          (decode + merge + tracker + statistics;
#                                                    -j: the default, a thread per core)
#   blkstack report -j 1 -i v6.dat -o /dev/null     (the same on one core)
#   blkstack report -i v6.dat --json -o /dev/null
#   blkstack report -i v6.dat --btt -o /dev/null    (btt's tables instead of the tracker)
#   blkstack report -i v6.dat --iostat -o /dev/null (iostat -x's table instead)
#   blkstack report -i v7.dat -o /dev/null          (the long trace converted by
#                                                    trace-cmd convert --file-version 7, zstd)
#   btt -i bt.dump                                  (after `blkparse -i - -d bt.dump`, not timed)
#   btt -A -i bt.dump                               (every table, as report --btt prints)
#
# The pairs whose ratios are goals (the default against -j 1, v7 against
# v6 at either -j) run in turn, A B A B ..., so that a change in the
# machine's pace falls on both, and their ratio is the median of the
# rounds' ratios. Wall times are to the millisecond.
#
# BENCH_PICK=median takes the median run instead of the best (the machine
# is shared: the median says more than the luckiest run).
#
# A benchmark, not a test: it prints events per second, peak RSS and
# ratios, and asserts nothing. Usage: bench-report.sh [-t SECS] [-r RUNS];
# see README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

SECS=20
RUNS=3
bench_secs_runs "$@"
need_tools btt blkparse

bench_setup
loop_make DEV 1024
MM=$(dev_mm "$DEV")

# run_mixed DEV SECS OUT: 4k random 70/30 read/write, direct, queue depth 4;
# writes "iops ios" to OUT.
run_mixed()
{
	fio --name=bench --filename="/dev/$1" --rw=randrw --rwmixread=70 --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=4 --time_based --runtime="$2" \
		--output-format=terse --terse-version=3 >"$3.terse" || die "fio failed on /dev/$1"
	# terse v3: read iops 8, read ios (KiB / 4) 6; write iops 49, write KiB 47
	awk -F';' '$1 == 3 { printf "%.0f %d\n", $8 + $49, ($6 + $47) / 4 }' "$3.terse" >"$3"
	[ -s "$3" ] || die "no terse v3 line from fio"
}

# record NAME SECS: NAME.dat (trace-cmd v6) and NAME.bin (blk tracer) of one run
record()
{
	local name=$1 secs=$2 cat_pid tc_pid inst=bench-tc-$$

	note "recording ${secs}s of fio 4k randrw qd4 on /dev/$DEV ($MM) with trace-cmd (v6) and the blk tracer"
	blk_start "$DEV"
	cat "$TRACEFS/trace_pipe" >"$WORK/$name.bin" &
	cat_pid=$!
	_clean_pids+=("$cat_pid")
	_clean_instances+=("$inst")
	trace-cmd record -B "$inst" -d --no-filter --file-version 6 -e block \
		-o "$WORK/$name.dat" sleep $((secs + 3)) >"$WORK/$name.record.out" 2>&1 &
	tc_pid=$!
	tc_wait_ready "$inst" "$tc_pid"
	run_mixed "$DEV" "$secs" "$WORK/$name.fio"
	wait "$tc_pid" || true
	remove_instance "$inst"
	blk_drain "$WORK/$name.bin"
	stop_pid "$cat_pid"
	blk_restore
	[ -s "$WORK/$name.dat" ] || { cat "$WORK/$name.record.out" >&2; die "trace-cmd record wrote nothing"; }
	[ -s "$WORK/$name.bin" ] || die "the blk tracer produced nothing"
	blkparse -q -i - -d "$WORK/$name.dump" -o /dev/null <"$WORK/$name.bin" ||
		die "blkparse -d failed on $name.bin"
}

record long "$SECS"
record short $(((SECS + 3) / 4))
# trace-cmd record writes version 7 (zstd) by default: the same trace so
trace-cmd convert -i "$WORK/long.dat" -o "$WORK/long7.dat" --file-version 7 --compression any \
	>/dev/null 2>&1 || die "trace-cmd convert --file-version 7 failed"
read -r iops ios <"$WORK/long.fio"

# --- event counts (not timed) ------------------------------------------------

for name in long short; do
	printf -v "n_tc_$name" %s "$("$BLKSTACK" parse -i "$WORK/$name.dat" --no-summary | count_events)"
	printf -v "n_bt_$name" %s "$(blkparse -i - <"$WORK/$name.bin" 2>/dev/null | count_events)"
done

# --- timing ----------------------------------------------------------------

for name in long short; do
	# the default and one core in turn: their ratio is a goal
	{ read -r "r_text_$name"; read -r "r_j1_$name"; read -r "q_j_$name"; } < <(bench_pair "report $name" "report -j 1 $name" \
		"$BLKSTACK" report -i "$WORK/$name.dat" -o /dev/null -- \
		"$BLKSTACK" report -j 1 -i "$WORK/$name.dat" -o /dev/null)
	printf -v "r_json_$name" %s "$(bench "report --json $name" "$BLKSTACK" report --json -i "$WORK/$name.dat" -o /dev/null)"
	# in $WORK: btt writes its per-device *_iops_fp.dat files to the directory it runs in
	printf -v "r_btt_$name" %s "$(cd "$WORK" && bench "btt $name" btt -i "$WORK/$name.dump" -o "$WORK/btt-$name")"
	printf -v "r_rbtt_$name" %s "$(bench "report --btt $name" "$BLKSTACK" report --btt -i "$WORK/$name.dat" -o /dev/null)"
	printf -v "r_rios_$name" %s "$(bench "report --iostat $name" "$BLKSTACK" report --iostat -i "$WORK/$name.dat" -o /dev/null)"
	printf -v "r_bttA_$name" %s "$(cd "$WORK" && bench "btt -A $name" btt -A -i "$WORK/$name.dump" -o "$WORK/bttA-$name")"
done
# v7 in turn with v6, at either -j: their ratios are goals
{ read -r r_v7; read -r r_v6_v7; read -r q_v7; } < <(bench_pair "report v7 long" "report v6 long (beside v7)" \
	"$BLKSTACK" report -i "$WORK/long7.dat" -o /dev/null -- \
	"$BLKSTACK" report -i "$WORK/long.dat" -o /dev/null)
{ read -r r_v7_j1; read -r r_v6_v7_j1; read -r q_v7_j1; } < <(bench_pair "report -j 1 v7 long" "report -j 1 v6 long (beside v7)" \
	"$BLKSTACK" report -j 1 -i "$WORK/long7.dat" -o /dev/null -- \
	"$BLKSTACK" report -j 1 -i "$WORK/long.dat" -o /dev/null)

bench_header
echo "workload: fio 4k randrw 70/30 direct libaio qd4 on /dev/$DEV ($MM), loop over tmpfs, ${SECS}s, $iops IOPS, $ios I/Os"
echo "the same run recorded by trace-cmd (v6) and by the blk tracer; btt reads the blk tracer's binary after blkparse -d"
echo "$(bench_pick); long = ${SECS}s, short = $(((SECS + 3) / 4))s of the same workload; v7: long, converted (zstd, $(($(stat -c %s "$WORK/long7.dat") >> 20)) MiB)"
echo
{
	printf '%s|%s|%s|%s|%s|%s|%s\n' "tool" "trace" "events" "wall s" "cpu s" "max RSS MiB" "M events/s"
	row()
	{
		local tool=$1 trace=$2 n=$3 r=$4
		read -r wall cpu rss <<<"$r"
		awk -v t="$tool" -v i="$trace" -v n="$n" -v w="$wall" -v c="$cpu" -v r="$rss" \
			'BEGIN { printf "%s|%s|%d|%.3f|%.2f|%.1f|%.2f\n", t, i, n, w, c, r / 1024, n / (w > 0 ? w : 0.01) / 1e6 }'
	}
	for name in long short; do
		n_tc=n_tc_$name n_bt=n_bt_$name rt=r_text_$name rj=r_json_$name rb=r_btt_$name
		r1=r_j1_$name
		row "blkstack report" "$name" "${!n_tc}" "${!rt}"
		row "blkstack report -j 1" "$name" "${!n_tc}" "${!r1}"
		row "blkstack report --json" "$name" "${!n_tc}" "${!rj}"
		row "btt" "$name" "${!n_bt}" "${!rb}"
		rbt=r_rbtt_$name rio=r_rios_$name rba=r_bttA_$name
		row "blkstack report --btt" "$name" "${!n_tc}" "${!rbt}"
		row "blkstack report --iostat" "$name" "${!n_tc}" "${!rio}"
		row "btt -A" "$name" "${!n_bt}" "${!rba}"
	done
	row "blkstack report" "long v7" "$n_tc_long" "$r_v7"
	row "blkstack report" "long (beside v7)" "$n_tc_long" "$r_v6_v7"
	row "blkstack report -j 1" "long v7" "$n_tc_long" "$r_v7_j1"
	row "blkstack report -j 1" "long (beside v7)" "$n_tc_long" "$r_v6_v7_j1"
} | column -t -s '|' -o '  '
echo
rate()
{
	read -r wall _ <<<"$2"
	awk -v n="$1" -v w="$wall" 'BEGIN { printf "%.6f", n / (w > 0 ? w : 0.01) }'
}
rss()
{
	read -r _ _ kb <<<"$1"
	echo "$kb"
}
awk -v bs="$(rate "$n_tc_long" "$r_text_long")" -v bt="$(rate "$n_bt_long" "$r_btt_long")" \
	-v rl="$(rss "$r_text_long")" -v rs="$(rss "$r_text_short")" \
	-v bl="$(rss "$r_btt_long")" -v bsh="$(rss "$r_btt_short")" 'BEGIN {
	printf "blkstack report / btt (long):   %.1fx  (goal: >= 20 M events/s: %.1f M)\n", bs / bt, bs / 1e6
	printf "peak RSS long / short: blkstack %.2f, btt %.2f\n", rl / rs, bl / bsh
}'
walls()
{
	read -r wall _ <<<"$1"
	echo "$wall"
}
awk -v r="$(walls "$r_text_long")" -v b="$(walls "$r_rbtt_long")" -v i="$(walls "$r_rios_long")" \
	-v a="$(walls "$r_bttA_long")" 'BEGIN {
	printf "report --btt / report (long):    %.2fx time  (goal: <= 1.20x)\n", b / r
	printf "report --iostat / report (long): %.2fx time  (goal: <= 1.20x)\n", i / r
	printf "btt -A / report --btt (long):    %.1fx time\n", a / (b > 0 ? b : 0.01)
}'
awk -v bs="$(rate "$n_tc_long" "$r_text_long")" -v b1="$(rate "$n_tc_long" "$r_j1_long")" \
	-v v7="$(rate "$n_tc_long" "$r_v7")" -v v71="$(rate "$n_tc_long" "$r_v7_j1")" \
	-v v6="$(rate "$n_tc_long" "$r_v6_v7")" -v v61="$(rate "$n_tc_long" "$r_v6_v7_j1")" \
	-v qj="$q_j_long" -v q7="$q_v7" -v q71="$q_v7_j1" -v n="$(nproc)" 'BEGIN {
	printf "blkstack report -j %d / -j 1 (long): %.2fx  (goal on 2 cores: >= 1.6x; best runs: %.2fx)\n", n, 1 / qj, bs / b1
	printf "blkstack report v7 / v6 (long):  %.0f%% with -j %d, %.0f%% with -j 1  (goal: >= 70%%; best runs: %.0f%%, %.0f%%)\n", 100 / q7, n, 100 / q71, 100 * v7 / v6, 100 * v71 / v61
}'
