#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live tracing cost: what tracing does to the traced workload, what the tracer
# costs, and what it loses, for blkstack trace and record, trace-cmd record and the
# kernel's blk tracer (blktrace's engine), side by side in one run.
#
# The workload is fio 4k random read, direct, queue depth 1, for SECS seconds,
# on a zram device and on a loop device over a tmpfs file, both filled first.
# Each round runs, per device, one after the other:
#
#   none      fio alone
#   blkstack  blkstack trace -d DEV -o FILE               (FILE on tmpfs)
#   blkstack-record  blkstack record -d DEV -o FILE.dat   (raw pages, undecoded)
#   blkstack-monitor blkstack monitor -d DEV --listen 127.0.0.1:PORT (decode,
#             tracker and statistics, scraped once after fio; its I/O count and
#             lost events are read from /metrics)
#   trace-cmd trace-cmd record -B NAME -d --no-filter -e block -o FILE sleep N
#   blk       cat trace_pipe | blkparse -i - -o FILE      (the blk tracer on DEV)
#
# and the rounds repeat, so slow drifts of the machine show as spread rather
# than as a tracer's cost. Reported per run and as medians over the rounds:
# fio IOPS; the IOPS cost against the untraced run of the same round and
# device; the tracer's CPU time (user + system, children included, from GNU
# time) over fio's runtime, in % of one core; the events the tracer says it
# lost; and Q events missing from its output against fio's I/O count.
#
# A benchmark, not a test: nothing is asserted. Usage: bench-live.sh
# [-t SECS] [-r ROUNDS] [-D "zram loop"]; see README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

SECS=10
ROUNDS=3
DEVKINDS="zram loop"
TRACERS="none blkstack blkstack-record blkstack-monitor trace-cmd blk"
while getopts "t:r:D:T:h" opt; do
	case $opt in
	t) SECS=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	D) DEVKINDS=$OPTARG ;;
	T) TRACERS=$OPTARG ;;
	*)
		sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 2
		;;
	esac
done

bench_setup
declare -A DEVS
for kind in $DEVKINDS; do
	case $kind in
	zram) zram_make "DEVS[zram]" 1024 ;;
	loop) loop_make "DEVS[loop]" 1024 ;;
	*) die "-D takes zram and/or loop, not '$kind'" ;;
	esac
done
# slack after fio for the tracers that run for a fixed time
TRACE_SECS=$((SECS + 3))

# Every measurement sets: CPU (seconds), LOST (the tracer's own count),
# UNREAD (events left in the ring buffer at the end, where known), Q (Q events
# of the device in its output) and INFO (a note).

m_none()
{
	run_fio "$1" "$SECS" "$WORK/fio"
	CPU=- LOST=- UNREAD=- Q=- INFO=
}

m_blkstack()
{
	local dev=$1 pid sel=(-d "$1")

	[ "${2:-}" != all ] || sel=()

	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time" \
		"$BLKSTACK" trace "${sel[@]}" -w "$TRACE_SECS" -o "$WORK/bs.txt" 2>"$WORK/bs.err" &
	pid=$!
	_clean_pids+=("$pid")
	bs_wait_ready "$pid"
	INFO="buffer $(cat "$TRACEFS/instances/blkstack-$(pgrep -P "$pid" -x blkstack)/buffer_size_kb") KiB/CPU"
	run_fio "$dev" "$SECS" "$WORK/fio"
	wait "$pid" || { cat "$WORK/bs.err" >&2; die "blkstack trace failed"; }
	CPU=$(cpu_secs "$WORK/time")
	# "blkstack: N events written to 'FILE', M lost"
	LOST=$(sed -n 's/.* events written to .*, \([0-9]*\) lost$/\1/p' "$WORK/bs.err" | tail -1)
	[ -n "$LOST" ] || { cat "$WORK/bs.err" >&2; die "no summary line from blkstack trace"; }
	UNREAD=-
	Q=$(qc_count "$WORK/bs.txt" "$MM")
	rm -f "$WORK/bs.txt"
}

# blkstack record: the same instance and filters as trace, pages kept
# undecoded in a trace.dat (the "lost: cpu0 N cpu1 M" of its summary)
m_blkstack_record()
{
	local dev=$1 pid

	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time" \
		"$BLKSTACK" record -d "$dev" -w "$TRACE_SECS" -o "$WORK/rec.dat" 2>"$WORK/rec.err" &
	pid=$!
	_clean_pids+=("$pid")
	bs_wait_ready "$pid"
	INFO="buffer $(cat "$TRACEFS/instances/blkstack-$(pgrep -P "$pid" -x blkstack)/buffer_size_kb") KiB/CPU"
	run_fio "$dev" "$SECS" "$WORK/fio"
	wait "$pid" || { cat "$WORK/rec.err" >&2; die "blkstack record failed"; }
	CPU=$(cpu_secs "$WORK/time")
	LOST=$(sed -n 's/.*; lost:\(.*\)$/\1/p' "$WORK/rec.err" | awk '{ for (i = 2; i <= NF; i += 2) n += $i } END { print n + 0 }')
	grep -q '; lost:' "$WORK/rec.err" || { cat "$WORK/rec.err" >&2; die "no summary line from blkstack record"; }
	UNREAD=-
	Q=$("$BLKSTACK" parse -i "$WORK/rec.dat" -d "${MM/,/:}" -o "$WORK/rec.txt" && qc_count "$WORK/rec.txt" "$MM")
	rm -f "$WORK/rec.dat" "$WORK/rec.txt"
}

# blkstack monitor: the whole pipeline of report, served on 127.0.0.1; its
# counts come from one scrape after fio, its CPU time from start to SIGTERM.
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
	INFO="buffer $(cat "$TRACEFS/instances/blkstack-$child/buffer_size_kb") KiB/CPU"
	run_fio "$dev" "$SECS" "$WORK/fio"
	# the last completions reach the statistics within a read pass
	sleep 1
	for i in $(seq 20); do
		curl -sf "http://127.0.0.1:$port/metrics" >"$WORK/mon.prom" && break
		sleep 0.2
	done
	kill -TERM "$child"
	wait "$pid" || { cat "$WORK/mon.err" >&2; die "blkstack monitor failed"; }
	CPU=$(cpu_secs "$WORK/time")
	LOST=$(awk '$1 ~ /^blkstack_events_lost_total[{]/ { n += $2 } END { print n + 0 }' "$WORK/mon.prom")
	UNREAD=-
	# bios completed at the device: what the monitor saw of fio's reads
	Q=$(awk -v d="device=\"${MM/,/:}\"" '$1 ~ /^blkstack_layer_ios_total[{]/ && index($1, d) && $1 ~ /op="read"/ { n += $2 } END { printf "%d", n }' "$WORK/mon.prom")
	Q="$Q/$Q"
	rm -f "$WORK/mon.prom"
}

# Diagnostic variants, not run by default (-T): blkstack without -d (no
# in-kernel filter, every device), trace-cmd with blkstack's buffer size.
m_blkstack_all()
{
	m_blkstack "$1" all
}

m_trace_cmd_8m()
{
	m_trace_cmd "$1" -b 8192
}

m_trace_cmd()
{
	local dev=$1 pid inst=bench-tc-$$ extra=("${@:2}")

	_clean_instances+=("$inst")
	# exits 1 under lockdown (its function-tracer files are refused) after
	# writing a complete file, and leaves its instance behind
	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time" trace-cmd record -B "$inst" -d \
		--no-filter "${extra[@]}" -e block -o "$WORK/tc.dat" sleep "$TRACE_SECS" >"$WORK/tc.out" 2>&1 &
	pid=$!
	_clean_pids+=("$pid")
	tc_wait_ready "$inst" "$pid"
	INFO="buffer $(cat "$TRACEFS/instances/$inst/buffer_size_kb") KiB/CPU"
	run_fio "$dev" "$SECS" "$WORK/fio"
	wait "$pid" || true
	remove_instance "$inst"
	[ -s "$WORK/tc.dat" ] || { cat "$WORK/tc.out" >&2; die "trace-cmd record wrote nothing"; }
	CPU=$(cpu_secs "$WORK/time")
	# the kernel's per-CPU stats saved in the file: overrun and dropped are
	# lost; "entries" were left in the ring buffer, never read
	trace-cmd report --stat "$WORK/tc.dat" >"$WORK/tc.stat" 2>/dev/null || true
	LOST=$(awk '/^overrun:/ || /^dropped events:/ { n += $NF } END { print n + 0 }' "$WORK/tc.stat")
	UNREAD=$(awk '/^entries:/ { n += $2 } END { print n + 0 }' "$WORK/tc.stat")
	Q=$("$BLKSTACK" parse -i "$WORK/tc.dat" -d "${MM/,/:}" -o "$WORK/tc.txt" && qc_count "$WORK/tc.txt" "$MM")
	rm -f "$WORK/tc.dat" "$WORK/tc.txt"
}

# sum of one field of the top-level buffer's per-CPU stats
top_stat()
{
	cat "$TRACEFS"/per_cpu/cpu*/stats | awk -v f="$1" '$1 == f { n += $NF } END { print n + 0 }'
}

m_blk()
{
	local dev=$1 cat_time bp_time i

	blk_start "$dev"
	INFO="buffer $(cat "$TRACEFS/buffer_size_kb") KiB/CPU"
	mkfifo "$WORK/pipe"
	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time.cat" cat "$TRACEFS/trace_pipe" >"$WORK/pipe" &
	cat_time=$!
	_clean_pids+=("$cat_time")
	"$GNU_TIME" -f '%e %U %S %M' -o "$WORK/time.bp" \
		blkparse -i - -o "$WORK/bp.txt" <"$WORK/pipe" >/dev/null 2>&1 &
	bp_time=$!
	_clean_pids+=("$bp_time")
	sleep 0.5
	run_fio "$dev" "$SECS" "$WORK/fio"
	echo 0 >"$BLK_ENABLE"
	# drain: until the reader has taken everything from the ring buffer
	for i in $(seq 100); do
		[ "$(top_stat entries:)" = 0 ] && break
		sleep 0.1
	done
	sleep 0.5
	# switching to the blk tracer reset the buffer and its counters
	LOST=$(($(top_stat overrun:) + $(top_stat dropped)))
	UNREAD=$(top_stat entries:)
	kill -TERM "$(pgrep -P "$cat_time" -x cat)" 2>/dev/null || true
	wait "$cat_time" || true
	wait "$bp_time" || true
	blk_restore
	rm -f "$WORK/pipe"
	CPU=$(awk '{ printf "%.2f", $1 + $2 }' <<<"$(cpu_secs "$WORK/time.cat") $(cpu_secs "$WORK/time.bp")")
	Q=$(qc_count "$WORK/bp.txt" "$MM")
	rm -f "$WORK/bp.txt"
}

bench_header >"$WORK/header"
note "$ROUNDS rounds x ($DEVKINDS) x ($TRACERS), ${SECS}s each"
for round in $(seq "$ROUNDS"); do
	for kind in $DEVKINDS; do
		dev=${DEVS[$kind]}
		MM=$(dev_mm "$dev")
		for tracer in $TRACERS; do
			"m_${tracer//-/_}" "$dev"
			read -r iops ios ms <"$WORK/fio"
			line="$round $kind $dev $tracer $iops $ios $ms $CPU $LOST $Q $UNREAD"
			note "$line $INFO"
			echo "$line" >>"$WORK/runs"
			[ -z "$INFO" ] || printf '  %s %s: %s\n' "$kind" "$tracer" "$INFO" >>"$WORK/infos"
		done
	done
done

cat "$WORK/header"
echo "workload: fio 4k randread direct ${FIO_ENGINE:-psync} qd1, ${SECS}s per run, $ROUNDS rounds;" \
	"devices:$(for k in $DEVKINDS; do printf ' %s=%s' "$k" "${DEVS[$k]}"; done)"
echo "cost = IOPS lost vs the untraced run of the same round; CPU = tracer user+sys over fio's runtime"
echo "(100% = one core); lost = the tracer's own count (ring-buffer overrun + dropped); unread = left in"
echo "the ring buffer when it stopped; Q/C miss = fio I/Os - Q (and - C) events of the device in the"
echo "tracer's output"
echo
echo "Per run:"
awk '
	$4 == "none" { base[$1 " " $2] = $5 }
	{
		cost = $4 == "none" ? "-" : sprintf("%.1f%%", 100 * (1 - $5 / base[$1 " " $2]))
		cpu = $8 == "-" ? "-" : sprintf("%.1f%%", 100 * $8 / ($7 / 1000))
		miss = "-"
		if ($10 != "-") { split($10, qc, "/"); miss = ($6 - qc[1]) "/" ($6 - qc[2]) }
		printf "%s|%s|%s|%s|%d|%s|%s|%s|%s|%s\n", $1, $2, $4, $5, $6, cost, cpu, $9, $11, miss
	}
' "$WORK/runs" | {
	echo "round|device|tracer|IOPS|fio I/Os|cost|CPU|lost|unread|Q/C miss"
	cat
} | column -t -s '|' -o '  '
echo
echo "Medians over $ROUNDS rounds:"
awk '
	$4 == "none" { base[$1 " " $2] = $5 }
	{
		k = $2 " " $4
		if (!(k in seen)) { seen[k] = 1; order[++nk] = k }
		n[k]++
		iops[k, n[k]] = $5
		if ($4 != "none") {
			cost[k, n[k]] = 100 * (1 - $5 / base[$1 " " $2])
			cpu[k, n[k]] = 100 * $8 / ($7 / 1000)
			lost[k, n[k]] = $9
			split($10, qc, "/")
			miss[k, n[k]] = $6 - qc[1]
			cmiss[k, n[k]] = $6 - qc[2]
		}
	}
	function med(a, k, m,    i, j, t, v) {
		for (i = 1; i <= m; i++) v[i] = a[k, i]
		for (i = 2; i <= m; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
	}
	function span(a, k, m,    i, lo, hi) {
		lo = hi = a[k, 1]
		for (i = 2; i <= m; i++) { if (a[k, i] < lo) lo = a[k, i]; if (a[k, i] > hi) hi = a[k, i] }
		return lo == hi ? lo : lo ".." hi
	}
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; m = n[k]; split(k, p, " ")
			if (p[2] == "none")
				printf "%s|%s|%.0f|-|-|-|-\n", p[1], p[2], med(iops, k, m)
			else
				printf "%s|%s|%.0f|%.1f%%|%.1f%%|%s|%s\n", p[1], p[2], med(iops, k, m),
					med(cost, k, m), med(cpu, k, m), span(lost, k, m),
					span(miss, k, m) " / " span(cmiss, k, m)
		}
	}
' "$WORK/runs" | {
	echo "device|tracer|IOPS|cost|CPU|lost (min..max)|Q / C miss (min..max)"
	cat
} | column -t -s '|' -o '  '
echo
echo "Ring buffers:"
sort -u "$WORK/infos"
