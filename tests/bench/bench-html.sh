#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What the time dimension costs offline: "report --html" (and --slowest,
# --by flag) against plain "report -i" on one large recording.
#
# fio on a loop device over tmpfs, recorded by "blkstack record" for SECS:
# two jobs, 4k random read/write at queue depth 4 and a sequential 64k
# reader, so that the offset charts hold both a stream and a scatter. Then,
# best of RUNS runs each:
#
#   blkstack report -i t.dat -o /dev/null
#   blkstack report -i t.dat -o /dev/null --slowest 20
#   blkstack report -i t.dat -o /dev/null --by flag
#   blkstack report -i t.dat -o /dev/null --access
#   blkstack report -i t.dat -o /dev/null --html page.html
#
# It prints wall time, peak RSS, the ratio to plain report (goal of issue
# 13: --html at most 1.30), what the page adds to the report (the time of
# --html less plain report's: the series, the slowest set, amplification,
# the markers' read and the page's writing; goal of issue 30: under 1 s for
# 10 M events, -t 75 here) and the page's size (goal: under 2 MB whatever
# the trace length). A benchmark, not a test: it asserts nothing.
# Usage: bench-html.sh [-t SECS] [-r RUNS]; see README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

SECS=15
RUNS=3
bench_secs_runs "$@"

bench_setup
loop_make DEV 1024
MM=$(dev_mm "$DEV")

note "recording ${SECS}s of fio (4k randrw qd4 + 64k sequential read) on /dev/$DEV ($MM)"
"$BLKSTACK" record -d "$DEV" -o "$WORK/t.dat" -- \
	fio --output-format=terse --terse-version=3 --filename="/dev/$DEV" --direct=1 \
	--ioengine=libaio --time_based --runtime="$SECS" \
	--name=rand --rw=randrw --rwmixread=70 --bs=4k --iodepth=4 \
	--name=seq --rw=read --bs=64k --iodepth=1 >"$WORK/fio.terse" 2>"$WORK/record.err" ||
	{ cat "$WORK/record.err" >&2; die "blkstack record -- fio failed"; }
events=$("$BLKSTACK" parse -i "$WORK/t.dat" --no-summary | count_events)

r_plain=$(bench "report" "$BLKSTACK" report -i "$WORK/t.dat" -o /dev/null)
r_slow=$(bench "report --slowest 20" "$BLKSTACK" report -i "$WORK/t.dat" -o /dev/null --slowest 20)
r_flag=$(bench "report --by flag" "$BLKSTACK" report -i "$WORK/t.dat" -o /dev/null --by flag)
r_acc=$(bench "report --access" "$BLKSTACK" report -i "$WORK/t.dat" -o /dev/null --access)
r_html=$(bench "report --html" "$BLKSTACK" report -i "$WORK/t.dat" -o /dev/null \
	--html "$WORK/page.html")
page=$(stat -c %s "$WORK/page.html")

bench_header
echo "workload: fio 4k randrw 70/30 qd4 + 64k sequential read, direct libaio, on /dev/$DEV" \
	"($MM), loop over tmpfs, ${SECS}s, recorded by blkstack record: $events events," \
	"$(stat -c %s "$WORK/t.dat") bytes"
echo "best of $RUNS runs"
echo
{
	printf '%s|%s|%s|%s|%s|%s|%s\n' "command" "wall s" "CPU s" "max RSS MiB" "M events/s" \
		"wall / report" "CPU / report"
	read -r base bcpu _ <<<"$r_plain"
	for v in "report:$r_plain" "report --slowest 20:$r_slow" "report --by flag:$r_flag" \
		"report --access:$r_acc" "report --html:$r_html"; do
		read -r wall cpu rss <<<"${v#*:}"
		awk -v c="${v%%:*}" -v w="$wall" -v u="$cpu" -v r="$rss" -v n="$events" -v b="$base" \
			-v bc="$bcpu" 'BEGIN { printf "%s|%.2f|%.2f|%.1f|%.2f|%.2f|%.2f\n", c, w, u,
			r / 1024, n / (w > 0 ? w : 0.01) / 1e6, w / (b > 0 ? b : 0.01),
			u / (bc > 0 ? bc : 0.01) }'
	done
} | column -t -s '|' -o '  '
echo
read -r wp _ <<<"$r_plain"
read -r wh _ <<<"$r_html"
awk -v p="$page" -v a="$wp" -v b="$wh" -v n="$events" 'BEGIN {
	printf "HTML page: %.2f MB (goal: under 2 MB)\n", p / 1e6
	printf "the page adds %.2f s to the report of %.1f M events (goal: under 1 s for 10 M)\n",
		b - a, n / 1e6 }'
