# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Shared helpers of the benchmarks in tests/bench/ (sourced, never run).
# Benchmarks, not tests: they print numbers and ratios and never assert a
# timing. Everything they set up is registered here and undone by one EXIT
# trap, on every path: tracefs instances, the top-level blk tracer, zram
# devices, loop devices, background processes, temporary directories.

TRACEFS=/sys/kernel/tracing
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BLKSTACK=${BLKSTACK:-$BENCH_DIR/../../src/blkstack}
BENCH_NAME=$(basename "$0" .sh)
# The top-level tracer has one user at a time; the integration tests take
# the same lock (tests/test-agree-blktrace.sh).
TOP_LOCK=${TMPDIR:-/tmp}/blkstack-top-tracer.lock
GNU_TIME=/usr/bin/time

_clean_pids=()
_clean_instances=()
_clean_loops=()
_clean_zram=()
_clean_dirs=()
_top_saved=

die()
{
	echo "$BENCH_NAME: error: $*" >&2
	exit 1
}

note()
{
	echo "$BENCH_NAME: $*" >&2
}

need_tools()
{
	local t

	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || die "missing tool '$t'"
	done
}

bench_setup()
{
	[ "$(id -u)" -eq 0 ] || die "needs root (tracefs, zram, loop devices)"
	[ -x "$BLKSTACK" ] || die "no blkstack binary at '$BLKSTACK' (build first, or set BLKSTACK)"
	[ -x "$GNU_TIME" ] || die "needs GNU time at $GNU_TIME (apt-get install time)"
	# BENCH_TOOLS: a benchmark that needs fewer (bench-scale.sh: no fio) says so
	# shellcheck disable=SC2086
	need_tools ${BENCH_TOOLS:-fio trace-cmd blkparse} losetup flock pgrep awk
	[ -d "$TRACEFS/instances" ] || mount -t tracefs nodev "$TRACEFS" ||
		die "tracefs is not mounted at $TRACEFS"
	# tmpfs, so that writing the traces costs no disk I/O
	WORK=$(mktemp -d "${BENCH_TMP:-/dev/shm}/blkstack-$BENCH_NAME.XXXXXX")
	_clean_dirs+=("$WORK")
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	# a private copy: a rebuild in the tree during the run changes nothing
	local i
	for i in $(seq 10); do
		cp "$BLKSTACK" "$WORK/blkstack" 2>/dev/null && [ -x "$WORK/blkstack" ] && break
		sleep 1
	done
	[ -x "$WORK/blkstack" ] || die "cannot copy $BLKSTACK"
	BLKSTACK_SRC=$BLKSTACK
	BLKSTACK=$WORK/blkstack
	LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
}

# bench_header: what ran, where, with what.
bench_header()
{
	local rev

	rev=$(git -C "$(dirname "$BLKSTACK_SRC")" describe --always --dirty 2>/dev/null || echo unknown)
	echo "$BENCH_NAME: $(date -u +%Y-%m-%dT%H:%MZ), kernel $(uname -r), $(nproc) CPUs," \
		"load average at start $LOAD_START"
	echo "blkstack $("$BLKSTACK" --version 2>/dev/null | awk '{ print $NF }') (tree $rev)," \
		"$(trace-cmd --version 2>/dev/null | awk '/version/ { print "trace-cmd", $3; exit }')," \
		"$(fio --version)"
}

# Remove a tracefs instance (trace-cmd leaves its own behind under lockdown).
remove_instance()
{
	local dir=$TRACEFS/instances/$1 i

	[ -d "$dir" ] || return 0
	trace-cmd reset -B "$1" >/dev/null 2>&1 || true
	echo 0 >"$dir/tracing_on" 2>/dev/null || true
	echo 0 >"$dir/events/enable" 2>/dev/null || true
	for i in $(seq 20); do
		rmdir "$dir" 2>/dev/null && return 0
		sleep 0.2
	done
	note "warning: cannot remove tracefs instance '$1'"
	return 1
}

stop_pid()
{
	local pid=$1 i

	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 20); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

bench_cleanup()
{
	local rc=$? i

	set +e
	trap - INT TERM HUP
	for i in "${_clean_pids[@]}"; do
		stop_pid "$i"
	done
	blk_restore
	for i in "${_clean_instances[@]}"; do
		remove_instance "$i"
	done
	for i in "${_clean_loops[@]}"; do
		losetup -d "$i" 2>/dev/null
	done
	for i in "${_clean_zram[@]}"; do
		zram_remove "$i"
	done
	for i in "${_clean_dirs[@]}"; do
		rm -rf -- "$i"
	done
	exit "$rc"
}

# --- devices ---------------------------------------------------------------

# zram_make VAR SIZE_MB: a zram device of our own. With ZRAM_DEV set (zram0),
# that device, which must be unconfigured; otherwise a new one from
# /sys/class/zram-control/hot_add, so that someone else's zram0 is left alone.
# Filled with half-compressible data, so reads decompress real pages (reads
# of never-written pages are a memset and run at twice the rate).
zram_make()
{
	local var=$1 size=$2 name

	[ -e /sys/class/zram-control/hot_add ] || modprobe zram 2>/dev/null || true
	if [ -n "${ZRAM_DEV:-}" ]; then
		name=${ZRAM_DEV#/dev/}
		[ -e "/sys/block/$name/disksize" ] || die "no zram device $name"
		[ "$(cat "/sys/block/$name/disksize")" = 0 ] ||
			die "$name is in use (disksize $(cat "/sys/block/$name/disksize")): reset it or pick another"
		_clean_zram+=("keep:$name")
	else
		[ -e /sys/class/zram-control/hot_add ] ||
			die "no zram (modprobe zram), or set ZRAM_DEV=zram0"
		name=zram$(cat /sys/class/zram-control/hot_add)
		_clean_zram+=("$name")
	fi
	echo "${size}M" >"/sys/block/$name/disksize"
	fill "/dev/$name" "$size"
	printf -v "$var" %s "$name"
}

# fill FILE SIZE_MB: half-compressible data, with fio where it is installed
# (a machine without it gets pages half random, half zero, by dd)
fill()
{
	local file=$1 size=$2 i direct=0

	# a device is written past its page cache; a file on tmpfs cannot be
	[ -b "$file" ] && direct=1
	if command -v fio >/dev/null 2>&1; then
		fio --name=fill --filename="$file" --rw=write --bs=1M --size="${size}M" \
			--direct=$direct --buffer_compress_percentage=50 --refill_buffers \
			--output-format=terse >/dev/null || die "fio could not fill $file"
		return
	fi
	head -c 2048 /dev/urandom >"$WORK/half"
	head -c 2048 /dev/zero >>"$WORK/half"
	for i in $(seq 256); do cat "$WORK/half"; done >"$WORK/mib"
	for i in $(seq "$size"); do cat "$WORK/mib"; done |
		dd of="$file" bs=1M iflag=fullblock status=none conv=notrunc \
			$([ $direct = 1 ] && echo oflag=direct) ||
		die "dd could not fill $file"
	rm -f "$WORK/half" "$WORK/mib"
}

# zram_remove NAME: reset, and hot_remove it if we created it.
zram_remove()
{
	local name=${1#keep:}

	echo 1 >"/sys/block/$name/reset" 2>/dev/null
	[ "$name" = "$1" ] || return 0
	echo "${name#zram}" >/sys/class/zram-control/hot_remove 2>/dev/null ||
		note "warning: cannot hot_remove $name"
}

# loop_make VAR SIZE_MB: a loop device over a file on tmpfs, filled.
loop_make()
{
	local var=$1 size=$2 img dev

	img=$WORK/loop.img
	truncate -s "${size}M" "$img"
	fill "$img" "$size"
	dev=$(losetup -f --show "$img") || die "losetup -f --show $img failed"
	_clean_loops+=("$dev")
	printf -v "$var" %s "${dev#/dev/}"
}

# dev_mm NAME: blkparse's "maj,min"
dev_mm()
{
	local mm

	mm=$(cat "/sys/class/block/$1/dev")
	echo "${mm/:/,}"
}

# --- workload --------------------------------------------------------------

# run_fio DEV SECS OUT: 4k random read, direct, queue depth 1 (FIO_ENGINE:
# psync or libaio). Writes "iops ios runtime_ms" to OUT (terse v3 fields).
run_fio()
{
	local dev=$1 secs=$2 out=$3

	fio --name=bench --filename="/dev/$dev" --rw=randread --bs=4k --direct=1 \
		--ioengine="${FIO_ENGINE:-psync}" --iodepth=1 --time_based \
		--runtime="$secs" --output-format=terse --terse-version=3 >"$out.terse" ||
		die "fio failed on /dev/$dev"
	awk -F';' '$1 == 3 { printf "%.0f %d %d\n", $8, $6 / 4, $9 }' "$out.terse" >"$out"
	[ -s "$out" ] || die "no terse v3 line from fio"
}

# --- the blk tracer (blktrace's engine through tracefs) ----------------------

# blk_start DEV: take the lock, save the top-level settings, and turn the blk
# tracer on for DEV alone, in binary form without context. The caller reads
# $TRACEFS/trace_pipe (blkparse -i - reads that from its stdin).
blk_start()
{
	local dev=$1
	exec 9>"$TOP_LOCK"
	flock -w 600 9 || die "the top-level tracer stayed locked for 600 s ($TOP_LOCK)"
	grep -qw blk "$TRACEFS/available_tracers" || die "the kernel has no blk tracer"
	BLK_ENABLE=/sys/block/$dev/trace/enable
	[ -w "$BLK_ENABLE" ] || die "no $BLK_ENABLE (CONFIG_BLK_DEV_IO_TRACE)"
	saved_tracer=$(cat "$TRACEFS/current_tracer")
	saved_bin=$(cat "$TRACEFS/options/bin")
	saved_ctx=$(cat "$TRACEFS/options/context-info")
	saved_on=$(cat "$TRACEFS/tracing_on")
	saved_enable=$(cat "$BLK_ENABLE")
	_top_saved=1
	echo 1 >"$BLK_ENABLE"
	echo blk >"$TRACEFS/current_tracer"
	echo 1 >"$TRACEFS/options/bin"
	echo 0 >"$TRACEFS/options/context-info"
	echo 1 >"$TRACEFS/tracing_on"
}

# blk_drain OUT: stop emitting, let the reader drain until OUT stops growing.
blk_drain()
{
	local out=$1 size=-1

	echo 0 >"$BLK_ENABLE"
	while [ "$(stat -c %s "$out")" != "$size" ]; do
		size=$(stat -c %s "$out")
		sleep 0.5
	done
}

blk_restore()
{
	[ -n "$_top_saved" ] || return 0
	echo "$saved_enable" >"$BLK_ENABLE"
	echo 0 >"$TRACEFS/tracing_on"
	echo "$saved_tracer" >"$TRACEFS/current_tracer"
	echo "$saved_bin" >"$TRACEFS/options/bin"
	echo "$saved_ctx" >"$TRACEFS/options/context-info"
	echo "$saved_on" >"$TRACEFS/tracing_on"
	_top_saved=
	flock -u 9
}

# --- trace-cmd record ------------------------------------------------------

# tc_wait_ready NAME PID: until trace-cmd's instance NAME traces block events.
tc_wait_ready()
{
	local inst=$TRACEFS/instances/$1 i

	for i in $(seq 200); do
		if [ "$(cat "$inst/events/block/block_bio_queue/enable" 2>/dev/null)" = 1 ] &&
			[ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ]; then
			sleep 0.5 # its recorder processes open the per-CPU pipes
			return 0
		fi
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	die "trace-cmd record did not start tracing (instance $1)"
}

# bs_wait_ready PID: until blkstack trace (PID, or the GNU time wrapping it)
# traces. A new instance starts with tracing_on = 1 and blkstack turns it off
# before it enables the events: events enabled and tracing_on = 1 is started.
bs_wait_ready()
{
	local pid=$1 child inst i

	for i in $(seq 200); do
		child=$(pgrep -P "$pid" -x blkstack || true)
		inst=$TRACEFS/instances/blkstack-${child:-$pid}
		if [ "$(cat "$inst/events/block/block_bio_queue/enable" 2>/dev/null)" = 1 ] &&
			[ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ]; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	die "blkstack trace did not start tracing"
}

# cpu_secs TIMEFILE: user + system seconds from GNU time -f '%e %U %S %M'
# (the last line: a killed command adds a "Command terminated" line first).
cpu_secs()
{
	awk 'NF == 4 && $1 ~ /^[0-9.]+$/ { c = $2 + $3 } END { printf "%.2f\n", c }' "$1"
}

# q_count LOG MM: Q events of device MM ("253,1") in a blkparse-format log
# (counted line by line: blkparse prints no "Total" block for one CPU).
q_count()
{
	awk -v d="$2" '$1 == d && $6 == "Q" { n++ } END { print n + 0 }' "$1"
}

# qc_count LOG MM: "Q/C", the Q and C events of device MM in the log.
qc_count()
{
	awk -v d="$2" '$1 == d && $6 == "Q" { q++ } $1 == d && $6 == "C" { c++ }
		END { printf "%d/%d\n", q, c }' "$1"
}

# --- timing ----------------------------------------------------------------

# count_events: event lines of a blkparse-format text on stdin
# ("maj,min cpu seq time pid ACTION ...")
count_events()
{
	awk '$1 ~ /^[0-9]+,[0-9]+$/ && $6 ~ /^[A-Z]+$/ { n++ } END { print n + 0 }'
}

# bench_once LABEL CMD...: one run; prints "wall user sys rss_kb", the wall
# time to the millisecond (GNU time's %e has ten: a tenth of a 0.1 s run)
bench_once()
{
	local label=$1 t0 t1

	shift
	t0=$(date +%s%N)
	"$GNU_TIME" -f '%U %S %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" ||
		{ cat "$WORK/err" >&2; die "$label failed"; }
	t1=$(date +%s%N)
	awk -v ns=$((t1 - t0)) 'NF == 3 { printf "%.3f %s %s %s\n", ns / 1e9, $1, $2, $3 }' "$WORK/time"
}

# bench_choose: of the "wall user sys rss" lines on stdin, the best (lowest
# wall), or with BENCH_PICK=median the median one; prints "wall cpu rss_kb"
bench_choose()
{
	local pick=1

	[ "${BENCH_PICK:-best}" != median ] || pick=$(((RUNS + 1) / 2))
	awk 'NF == 4' | sort -n -k1,1 | sed -n "${pick}p" |
		awk '{ printf "%.3f %.2f %d\n", $1, $2 + $3, $4 }'
}

# bench LABEL CMD...: best (lowest wall) of RUNS; prints "wall cpu rss_kb".
bench()
{
	local label=$1 i r all=

	shift
	for i in $(seq "$RUNS"); do
		r=$(bench_once "$label" "$@")
		note "$label run $i: $r"
		all=$(printf '%s\n%s' "$all" "$r")
	done
	bench_choose <<<"$all"
}

# bench_pair LABEL_A LABEL_B CMD_A... -- CMD_B...: A and B in turn, RUNS
# times each, so that a change in the machine's pace (this VM's moves by
# up to 1.7x from one minute to the next) falls on both alike; prints A's
# "wall cpu rss_kb" line, B's, then the median over the rounds of A's wall
# time over B's: the ratio to quote, where the best of each may come from
# different minutes. For the ratios that are goals.
bench_pair()
{
	local la=$1 lb=$2 i r ra all_a= all_b= ratios= a=() b=()

	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		a+=("$1")
		shift
	done
	shift
	b=("$@")
	for i in $(seq "$RUNS"); do
		ra=$(bench_once "$la" "${a[@]}")
		note "$la run $i: $ra"
		all_a=$(printf '%s\n%s' "$all_a" "$ra")
		r=$(bench_once "$lb" "${b[@]}")
		note "$lb run $i: $r"
		all_b=$(printf '%s\n%s' "$all_b" "$r")
		ratios=$(printf '%s\n%s' "$ratios" "$(awk -v a="${ra%% *}" -v b="${r%% *}" \
			'BEGIN { printf "%.6f", a / (b > 0 ? b : 0.001) }')")
	done
	bench_choose <<<"$all_a"
	bench_choose <<<"$all_b"
	awk 'NF' <<<"$ratios" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_pick: how bench() chose among the runs, for the header
bench_pick()
{
	[ "${BENCH_PICK:-best}" = median ] && echo "median of $RUNS runs" || echo "best of $RUNS runs"
}

# bench_secs_runs "$@": the options "-t SECS -r RUNS" of the benchmarks that
# take no others, into SECS and RUNS (their defaults set before); -h or a
# bad option prints the script's opening comment and exits 2.
bench_secs_runs()
{
	local opt OPTIND=1

	while getopts "t:r:h" opt; do
		case $opt in
		t) SECS=$OPTARG ;;
		r) RUNS=$OPTARG ;;
		*)
			sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
			exit 2
			;;
		esac
	done
}
