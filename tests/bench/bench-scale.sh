#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Many cores: how far each tracer keeps up with the kernel as the load
# grows (issue 29). The load is iogen (iogen.c, built here with cc): N
# threads of 4 KiB random O_DIRECT I/O, READ% reads, queue depth 1 each,
# for SECS seconds, on a zram device and on a loop device over a tmpfs
# file. N ramps through STEPS; at each step the load runs alone, then
# under each tracer in turn:
#
#   none              iogen alone
#   blkstack-record   blkstack record -d DEV -o FILE (pages spliced per CPU)
#   blkstack-report   blkstack report -d DEV --json (decode, merge, tracker)
#   blkstack-monitor  blkstack monitor -d DEV --listen 127.0.0.1:PORT,
#                     scraped once after the load
#   trace-cmd         trace-cmd record -e block -o FILE (a recorder per CPU)
#
# Per step and tracer: the load's IOPS and the cost against the untraced
# run of the step; the tracer's CPU (user + system, children included)
# over the load's time, in % of one core; its peak RSS (GNU time); the
# events it says it lost; and "miss": the load's I/Os less those the
# tracer's output holds (Q events of the device in the recording; the
# report's top-level I/Os; the monitor's end-to-end I/Os). At the end,
# per device and tracer, the highest rate at which it lost nothing and
# missed nothing. Needs no fio; runs as is on 2 cores and on 16.
#
# A benchmark, not a test: nothing is asserted. Usage: bench-scale.sh
# [-t SECS] [-s "1 2 4 8 16"] [-D "zram loop"] [-T TRACERS] [-w READ%];
# see README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

SECS=5
STEPS=
DEVKINDS="zram loop"
TRACERS="none blkstack-record blkstack-report blkstack-monitor trace-cmd"
READ_PERCENT=70
while getopts "t:s:D:T:w:h" opt; do
	case $opt in
	t) SECS=$OPTARG ;;
	s) STEPS=$OPTARG ;;
	D) DEVKINDS=$OPTARG ;;
	T) TRACERS=$OPTARG ;;
	w) READ_PERCENT=$OPTARG ;;
	*)
		sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 2
		;;
	esac
done
# powers of two up to twice the CPUs, and the CPU count itself
if [ -z "$STEPS" ]; then
	n=1
	while [ "$n" -le $(($(nproc) * 2)) ]; do
		STEPS="$STEPS $n"
		n=$((n * 2))
	done
	STEPS=$(printf '%s\n' $STEPS "$(nproc)" | sort -n -u | tr '\n' ' ')
fi

BENCH_TOOLS="trace-cmd cc curl python3" bench_setup
cc -O2 -pthread -o "$WORK/iogen" "$BENCH_DIR/iogen.c" || die "cannot build iogen.c"
declare -A DEVS
for kind in $DEVKINDS; do
	case $kind in
	zram) zram_make "DEVS[zram]" 1024 ;;
	loop) loop_make "DEVS[loop]" 1024 ;;
	*) die "-D takes zram and/or loop, not '$kind'" ;;
	esac
done
TRACE_SECS=$((SECS + 3))

# run_load DEV THREADS: the load; "iops ios ms" into $WORK/load
run_load()
{
	"$WORK/iogen" "/dev/$1" "$2" "$SECS" "$READ_PERCENT" >"$WORK/iogen.out" ||
		die "iogen failed on /dev/$1"
	awk '$1 == "ios" { printf "%.0f %d %d\n", $6, $2, $4 * 1000 }' "$WORK/iogen.out" >"$WORK/load"
}

# the tracer's user + system seconds and peak RSS (KiB) from GNU time
time_of()
{
	CPU=$(cpu_secs "$1")
	RSS=$(awk 'NF == 4 && $1 ~ /^[0-9.]+$/ { r = $4 } END { print r + 0 }' "$1")
}

# Each measurement sets CPU, RSS, LOST and SEEN (the load's I/Os the
# tracer's output holds), or "-".

m_none()
{
	run_load "$1" "$2"
	CPU=- RSS=- LOST=- SEEN=-
}

m_blkstack_record()
{
	local dev=$1 pid

	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time" \
		"$BLKSTACK" record -d "$dev" -w "$TRACE_SECS" -o "$WORK/rec.dat" 2>"$WORK/rec.err" &
	pid=$!
	_clean_pids+=("$pid")
	bs_wait_ready "$pid"
	run_load "$dev" "$2"
	wait "$pid" || { cat "$WORK/rec.err" >&2; die "blkstack record failed"; }
	time_of "$WORK/time"
	LOST=$(sed -n 's/.*; lost:\(.*\)$/\1/p' "$WORK/rec.err" |
		awk '{ for (i = 2; i <= NF; i += 2) n += $i } END { print n + 0 }')
	"$BLKSTACK" parse -i "$WORK/rec.dat" -d "${MM/,/:}" --no-summary -o "$WORK/rec.txt"
	SEEN=$(q_count "$WORK/rec.txt" "$MM")
	rm -f "$WORK/rec.dat" "$WORK/rec.txt"
}

m_blkstack_report()
{
	local dev=$1 pid

	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time" \
		"$BLKSTACK" report -d "$dev" -w "$TRACE_SECS" --json -o "$WORK/rep.json" \
		2>"$WORK/rep.err" &
	pid=$!
	_clean_pids+=("$pid")
	bs_wait_ready "$pid"
	run_load "$dev" "$2"
	wait "$pid" || { cat "$WORK/rep.err" >&2; die "blkstack report failed"; }
	time_of "$WORK/time"
	read -r LOST SEEN < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
t = d["tracking"]
print(d["events_lost"], t["top_level_ios"] + t.get("broken_by_lost_events_top_level", 0))
' "$WORK/rep.json")
	rm -f "$WORK/rep.json"
}

m_blkstack_monitor()
{
	local dev=$1 pid child port i

	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time" \
		"$BLKSTACK" monitor -d "$dev" --listen "127.0.0.1:$port" 2>"$WORK/mon.err" &
	pid=$!
	_clean_pids+=("$pid")
	bs_wait_ready "$pid"
	child=$(pgrep -P "$pid" -x blkstack)
	run_load "$dev" "$2"
	# the last completions reach the statistics within a read pass
	sleep 1
	for i in $(seq 20); do
		curl -sf "http://127.0.0.1:$port/metrics" >"$WORK/mon.prom" && break
		sleep 0.2
	done
	kill -TERM "$child"
	wait "$pid" || { cat "$WORK/mon.err" >&2; die "blkstack monitor failed"; }
	time_of "$WORK/time"
	LOST=$(awk '$1 ~ /^blkstack_events_lost_total[{]/ { n += $2 } END { print n + 0 }' "$WORK/mon.prom")
	SEEN=$(awk '$1 ~ /^blkstack_end_to_end_ios_total[{]/ { n += $2 } END { printf "%d", n }' "$WORK/mon.prom")
	rm -f "$WORK/mon.prom"
}

m_trace_cmd()
{
	local dev=$1 pid inst=bench-tc-$$

	_clean_instances+=("$inst")
	# exits 1 under lockdown (its function-tracer files are refused) after
	# writing a complete file, and leaves its instance behind
	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time" trace-cmd record -B "$inst" -d \
		--no-filter -e block -o "$WORK/tc.dat" sleep "$TRACE_SECS" >"$WORK/tc.out" 2>&1 &
	pid=$!
	_clean_pids+=("$pid")
	tc_wait_ready "$inst" "$pid"
	run_load "$dev" "$2"
	wait "$pid" || true
	remove_instance "$inst"
	[ -s "$WORK/tc.dat" ] || { cat "$WORK/tc.out" >&2; die "trace-cmd record wrote nothing"; }
	time_of "$WORK/time"
	trace-cmd report --stat "$WORK/tc.dat" >"$WORK/tc.stat" 2>/dev/null || true
	LOST=$(awk '/^overrun:/ || /^dropped events:/ { n += $NF } END { print n + 0 }' "$WORK/tc.stat")
	"$BLKSTACK" parse -i "$WORK/tc.dat" -d "${MM/,/:}" --no-summary -o "$WORK/tc.txt"
	SEEN=$(q_count "$WORK/tc.txt" "$MM")
	rm -f "$WORK/tc.dat" "$WORK/tc.txt"
}

bench_header >"$WORK/header"
note "steps ($STEPS) x ($DEVKINDS) x ($TRACERS), ${SECS}s each"
for kind in $DEVKINDS; do
	dev=${DEVS[$kind]}
	MM=$(dev_mm "$dev")
	for n in $STEPS; do
		for tracer in $TRACERS; do
			"m_${tracer//-/_}" "$dev" "$n"
			read -r iops ios ms <"$WORK/load"
			line="$kind $n $tracer $iops $ios $ms $CPU $RSS $LOST $SEEN"
			note "$line"
			echo "$line" >>"$WORK/runs"
		done
	done
done

cat "$WORK/header"
echo "load: iogen, 4 KiB random O_DIRECT, ${READ_PERCENT}% reads, queue depth 1 per thread," \
	"${SECS}s per run; devices:$(for k in $DEVKINDS; do printf ' %s=%s' "$k" "${DEVS[$k]}"; done)"
echo "cost = IOPS lost vs the untraced run of the step; CPU = tracer user+sys over the load's"
echo "time (100% = one core); RSS = its peak; lost = its own count; miss = the load's I/Os"
echo "less those in its output"
echo
awk '
	$3 == "none" { base[$1 " " $2] = $4 }
	{
		cost = $3 == "none" ? "-" : sprintf("%.1f%%", 100 * (1 - $4 / base[$1 " " $2]))
		cpu = $7 == "-" ? "-" : sprintf("%.1f%%", 100 * $7 / ($6 / 1000))
		rss = $8 == "-" ? "-" : sprintf("%.1f", $8 / 1024)
		miss = $10 == "-" ? "-" : $5 - $10
		printf "%s|%s|%s|%d|%s|%s|%s|%s|%s\n", $1, $2, $3, $4, cost, cpu, rss, $9, miss
	}
' "$WORK/runs" | {
	echo "device|threads|tracer|IOPS|cost|CPU|RSS MiB|lost|miss"
	cat
} | column -t -s '|' -o '  '
echo
echo "Highest rate with nothing lost and nothing missed:"
awk '
	{
		k = $1 " " $3
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
		ok = $3 == "none" || ($9 == 0 && $5 - $10 == 0)
		if (ok && $4 > best[k]) { best[k] = $4; at[k] = $2 }
		if (!ok && !(k in first_loss)) first_loss[k] = $2
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, p, " ")
			printf "%s|%s|%s|%s|%s\n", p[1], p[2], k in best ? best[k] : "none",
				k in at ? at[k] " threads" : "-",
				k in first_loss ? "lost from " first_loss[k] " threads" : "lost at no step"
		}
	}
' "$WORK/runs" | {
	echo "device|tracer|IOPS|at|"
	cat
} | column -t -s '|' -o '  '
