#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Soak of blkstack monitor: MINUTES of fio 4k random read, direct, queue
# depth 1, on a zram device at full rate, with blkstack monitor on it
# (--by cgroup and the flight recorder on, as a service would run it),
# scraped every SAMPLE seconds as Prometheus would. Every sample prints the
# monitor's RSS, its CPU over the sample (% of one core), the I/O per second
# it counted, the events it lost and the match ratio, so that a drift in
# memory or CPU over time shows; the last line says how they moved from the
# first full sample to the last.
#
# A benchmark, not a test: nothing is asserted. Usage:
# bench-soak-monitor.sh [-m MINUTES] [-s SAMPLE_SECS]; defaults 30 and 60.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

MINUTES=30
SAMPLE=60
while getopts "m:s:h" opt; do
	case $opt in
	m) MINUTES=$OPTARG ;;
	s) SAMPLE=$OPTARG ;;
	*)
		sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 2
		;;
	esac
done

bench_setup
need_tools curl python3
zram_make DEV 1024
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir "$WORK/rec"
"$BLKSTACK" monitor -d "$DEV" --listen "127.0.0.1:$PORT" --by cgroup \
	--record-on signal --record-dir "$WORK/rec" 2>"$WORK/mon.err" &
MON=$!
_clean_pids+=("$MON")
bs_wait_ready "$MON"
fio --name=soak --filename="/dev/$DEV" --rw=randread --bs=4k --direct=1 --ioengine=psync \
	--iodepth=1 --time_based --runtime=$((MINUTES * 60)) --output-format=terse \
	--terse-version=3 >"$WORK/fio.terse" &
FIO=$!
_clean_pids+=("$FIO")

# ticks of the monitor (user + system) from /proc/PID/stat
ticks()
{
	awk '{ print $14 + $15 }' "/proc/$MON/stat"
}

# sum of a metric's samples on the endpoint
metric_sum()
{
	awk -v n="$1" 'index($1, n) == 1 { s += $2 } END { printf "%.0f", s }' "$WORK/scrape"
}

HZ=$(getconf CLK_TCK)
bench_header
echo "soak: fio 4k randread psync qd1 on $DEV for $MINUTES min; blkstack monitor --by cgroup" \
	"--record-on signal, scraped every ${SAMPLE}s"
printf '%6s %8s %6s %9s %6s %6s\n' "t_s" "RSS_KiB" "CPU%" "IO/s" "lost" "match"
t0=$(ticks)
ios0=0
first_rss= last_rss= first_cpu= last_cpu=
for i in $(seq $((MINUTES * 60 / SAMPLE))); do
	sleep "$SAMPLE"
	kill -0 "$MON" 2>/dev/null || { cat "$WORK/mon.err" >&2; die "blkstack monitor exited"; }
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$WORK/scrape" || die "scrape failed"
	t1=$(ticks)
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$MON/status")
	cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$HZ" -v s="$SAMPLE" 'BEGIN { printf "%.1f", 100 * (b - a) / hz / s }')
	ios=$(metric_sum 'blkstack_end_to_end_ios_total{')
	lost=$(metric_sum 'blkstack_events_lost_total{')
	match=$(awk '$1 == "blkstack_match_ratio" { print $2 }' "$WORK/scrape")
	printf '%6s %8s %6s %9s %6s %6s\n' "$((i * SAMPLE))" "$rss" "$cpu" \
		"$(((ios - ios0) / SAMPLE))" "$lost" "$match"
	t0=$t1
	ios0=$ios
	[ -n "$first_rss" ] || { first_rss=$rss; first_cpu=$cpu; }
	last_rss=$rss
	last_cpu=$cpu
done
wait "$FIO" || true
echo "RSS $first_rss -> $last_rss KiB, CPU $first_cpu% -> $last_cpu% of a core, lost $lost events in all"
