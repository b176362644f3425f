#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Offline decoding speed: blkstack parse against blkparse and trace-cmd report.
#
# One fio workload (4k random read, direct, queue depth 1) is recorded at the
# same time by `trace-cmd record --file-version 6` (a trace.dat, in its own
# tracefs instance) and by the kernel's blk tracer (blktrace's engine, the
# top-level tracer, read from trace_pipe into bt.bin): two independent copies
# of the same I/O. A version 7 copy of the trace.dat is made with `trace-cmd
# convert` (zstd, as `trace-cmd record` writes by default). Then, best of
# RUNS runs each, all writing their text to /dev/null:
#
#   blkstack parse -i v6.dat -o /dev/null     (its own mmap + page walker)
#   blkstack parse -i v7.dat -o /dev/null     (libtracecmd)
#   trace-cmd report v6.dat > /dev/null
#   blkparse -i - -o /dev/null < bt.bin
#
# A benchmark, not a test: it prints events per second and ratios and
# asserts nothing. Usage: bench-parse.sh [-t SECS] [-r RUNS] [-D loop|zram]
# [-k DIR]; see README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

SECS=20
RUNS=3
DEVKIND=loop
KEEP=
while getopts "t:r:D:k:h" opt; do
	case $opt in
	t) SECS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	D) DEVKIND=$OPTARG ;;
	k) KEEP=$OPTARG ;;
	*)
		sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 2
		;;
	esac
done

bench_setup
case $DEVKIND in
loop) loop_make DEV 1024 ;;
zram) zram_make DEV 1024 ;;
*) die "-D takes loop or zram, not '$DEVKIND'" ;;
esac
MM=$(dev_mm "$DEV")
note "recording ${SECS}s of fio 4k random read on /dev/$DEV ($MM) with trace-cmd (v6) and the blk tracer"

# --- record once, two ways at the same time ----------------------------------

blk_start "$DEV"
cat "$TRACEFS/trace_pipe" >"$WORK/bt.bin" &
cat_pid=$!
_clean_pids+=("$cat_pid")

TC_INST=bench-tc-$$
_clean_instances+=("$TC_INST")
# --no-filter: trace every task, not only `sleep`; exits 1 under lockdown
# (its function-tracer files are refused) after writing a complete file.
trace-cmd record -B "$TC_INST" -d --no-filter --file-version 6 -e block \
	-o "$WORK/v6.dat" sleep $((SECS + 3)) >"$WORK/record.out" 2>&1 &
tc_pid=$!
tc_wait_ready "$TC_INST" "$tc_pid"

run_fio "$DEV" "$SECS" "$WORK/fio"
read -r iops ios _ <"$WORK/fio"
wait "$tc_pid" || true
remove_instance "$TC_INST"
blk_drain "$WORK/bt.bin"
stop_pid "$cat_pid"
blk_restore
[ -s "$WORK/v6.dat" ] || { cat "$WORK/record.out" >&2; die "trace-cmd record wrote nothing"; }
[ -s "$WORK/bt.bin" ] || die "the blk tracer produced nothing"

# --- the version 7 copy ----------------------------------------------------

v7_how="trace-cmd convert --file-version 7 --compression any"
if ! trace-cmd convert -i "$WORK/v6.dat" -o "$WORK/v7.dat" --file-version 7 \
	--compression any >"$WORK/convert.out" 2>&1; then
	# an older trace-cmd without convert: a second recording, default format
	v7_how="a second recording with trace-cmd record's default format"
	note "trace-cmd convert failed ($(tail -1 "$WORK/convert.out")); recording again for v7"
	trace-cmd record -B "$TC_INST" -d --no-filter -e block \
		-o "$WORK/v7.dat" sleep $((SECS + 3)) >"$WORK/record7.out" 2>&1 &
	tc_pid=$!
	tc_wait_ready "$TC_INST" "$tc_pid"
	run_fio "$DEV" "$SECS" "$WORK/fio7"
	wait "$tc_pid" || true
	remove_instance "$TC_INST"
fi

# --- event counts (not timed) ------------------------------------------------

n_v6=$("$BLKSTACK" parse -i "$WORK/v6.dat" --no-summary | count_events)
n_v7=$("$BLKSTACK" parse -i "$WORK/v7.dat" --no-summary | count_events)
n_bt=$(blkparse -i - <"$WORK/bt.bin" 2>/dev/null | count_events)
n_tcr=$(trace-cmd report "$WORK/v6.dat" 2>/dev/null | grep -c ' block_' || true)
q_tc=$("$BLKSTACK" parse -i "$WORK/v6.dat" -d "${MM/,/:}" | q_count /dev/stdin "$MM")
q_bt=$(blkparse -i - <"$WORK/bt.bin" 2>/dev/null | q_count /dev/stdin "$MM")

# --- timing ----------------------------------------------------------------

# blkparse has to read its standard input (-i -): wrap the redirection
blkparse_stdin()
{
	blkparse -i - -o /dev/null <"$1"
}
export -f blkparse_stdin

r_v6=$(bench "blkstack parse v6" "$BLKSTACK" parse -i "$WORK/v6.dat" -o /dev/null)
r_v7=$(bench "blkstack parse v7" "$BLKSTACK" parse -i "$WORK/v7.dat" -o /dev/null)
r_tc=$(bench "trace-cmd report v6" trace-cmd report "$WORK/v6.dat")
# shellcheck disable=SC2016 # expanded by the inner bash
r_bp=$(bench "blkparse" bash -c 'blkparse_stdin "$1"' blkparse_stdin "$WORK/bt.bin")

size_mb()
{
	awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f", b / 1048576 }'
}

bench_header
echo "workload: fio 4k randread direct ${FIO_ENGINE:-psync} qd1 on /dev/$DEV ($MM), ${SECS}s, $iops IOPS, $ios I/Os while recorded by both"
echo "Q events of $MM: trace.dat $q_tc, blk tracer $q_bt (fio: $ios I/Os)"
echo "v7.dat: $v7_how; best of $RUNS runs; text output to /dev/null; files on tmpfs"
echo
{
	printf '%s|%s|%s|%s|%s|%s|%s\n' "tool" "input (MiB)" "events" "wall s" "cpu s" "max RSS MiB" "M events/s"
	row()
	{
		local tool=$1 input=$2 n=$3 r=$4
		read -r wall cpu rss <<<"$r"
		awk -v t="$tool" -v i="$input" -v n="$n" -v w="$wall" -v c="$cpu" -v r="$rss" \
			'BEGIN { printf "%s|%s|%d|%.2f|%.2f|%.1f|%.2f\n", t, i, n, w, c, r / 1024, n / w / 1e6 }'
	}
	row "blkstack parse" "v6.dat ($(size_mb "$WORK/v6.dat"))" "$n_v6" "$r_v6"
	row "blkstack parse" "v7.dat ($(size_mb "$WORK/v7.dat"), zstd)" "$n_v7" "$r_v7"
	row "trace-cmd report" "v6.dat ($(size_mb "$WORK/v6.dat"))" "$n_tcr" "$r_tc"
	row "blkparse -i -" "bt.bin ($(size_mb "$WORK/bt.bin"))" "$n_bt" "$r_bp"
} | column -t -s '|' -o '  '
echo
rate()
{
	read -r wall _ <<<"$2"
	awk -v n="$1" -v w="$wall" 'BEGIN { printf "%.6f", n / w }'
}
awk -v v6="$(rate "$n_v6" "$r_v6")" -v v7="$(rate "$n_v7" "$r_v7")" \
	-v tc="$(rate "$n_tcr" "$r_tc")" -v bp="$(rate "$n_bt" "$r_bp")" 'BEGIN {
	printf "blkstack v6 / blkparse:         %.1fx  (goal: >= 20x, issue 16)\n", v6 / bp
	printf "blkstack v6 / trace-cmd report: %.1fx\n", v6 / tc
	printf "blkstack v7 / blkparse:         %.1fx\n", v7 / bp
	printf "blkstack v6 / blkstack v7:      %.1fx\n", v6 / v7
}'

if [ -n "$KEEP" ]; then
	mkdir -p "$KEEP"
	cp "$WORK/v6.dat" "$WORK/v7.dat" "$WORK/bt.bin" "$KEEP/"
	note "kept v6.dat, v7.dat, bt.bin in $KEEP"
fi
