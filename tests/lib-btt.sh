# SPDX-License-Identifier: GPL-2.0-or-later
#
# lib-btt.sh - what the tests that compare blkstack with btt share: the
# kernel's blk tracer (blktrace's engine, through tracefs: blktrace's
# debugfs interface is refused under lockdown) on one device while blkstack
# traces the same I/O, and btt's input made from it. Sourced after lib.sh
# and setup.

# restore_top: the top-level tracer as btt_take_tracer found it
restore_top()
{
	echo 0 >"$TRACEFS/tracing_on"
	echo "$saved_clock" >"$TRACEFS/trace_clock"
	echo "$saved_tracer" >"$TRACEFS/current_tracer"
	echo "$saved_bin" >"$TRACEFS/options/bin"
	echo "$saved_ctx" >"$TRACEFS/options/context-info"
	echo "$saved_on" >"$TRACEFS/tracing_on"
}

# btt_setup: the tools and the kernel's blk tracer these tests need, held
# for this test and given back as it was on every exit path
btt_setup()
{
	need_tool blkparse btt python3 flock
	grep -qw blk "$TRACEFS/available_tracers" ||
		skip "the kernel has no blk tracer (CONFIG_BLK_DEV_IO_TRACE)"
	btt_take_tracer
}

# btt_take_tracer: hold the top-level tracer for this test, and give it
# back as it was on every exit path
btt_take_tracer()
{
	# The blk tracer is the top-level tracer: one user at a time among the
	# tests that run beside this one.
	exec 9>"${TMPDIR:-/tmp}/blkstack-top-tracer.lock"
	flock -w 300 9 || fail "the top-level tracer stayed locked for 300 s"

	saved_tracer=$(cat "$TRACEFS/current_tracer")
	saved_bin=$(cat "$TRACEFS/options/bin")
	saved_ctx=$(cat "$TRACEFS/options/context-info")
	saved_on=$(cat "$TRACEFS/tracing_on")
	saved_clock=$(sed 's/.*\[\(.*\)\].*/\1/' "$TRACEFS/trace_clock")
	at_cleanup restore_top
}

# blk_on NAME OUT: the blk tracer on device NAME alone, read into OUT
blk_on()
{
	blk_enable=/sys/block/$1/trace/enable
	[ -w "$blk_enable" ] || skip "no $blk_enable (CONFIG_BLK_DEV_IO_TRACE)"
	echo 1 >"$blk_enable"
	at_cleanup "echo 0 > $blk_enable"
	echo blk >"$TRACEFS/current_tracer"
	# blktrace stamps events with ktime_get() (CLOCK_MONOTONIC), as blkstack
	# does; the top-level default, "local", is a per-CPU clock that drifts
	# between the CPU that issues a request and the one that completes it
	echo mono >"$TRACEFS/trace_clock"
	echo 1 >"$TRACEFS/options/bin"
	echo 0 >"$TRACEFS/options/context-info"
	echo 1 >"$TRACEFS/tracing_on"
	cat "$TRACEFS/trace_pipe" >"$2" &
	blk_reader=$!
	# the reader holds the tracer: it must go before the tracer is restored
	at_cleanup "kill $blk_reader 2>/dev/null; wait $blk_reader 2>/dev/null"
}

# blk_off OUT DUMP: stop, drain the reader, and let blkparse write btt's input
blk_off()
{
	local size=-1

	echo 0 >"$blk_enable"
	while [ "$(stat -c %s "$1")" != "$size" ]; do
		size=$(stat -c %s "$1")
		sleep 0.5
	done
	kill "$blk_reader"
	wait "$blk_reader" 2>/dev/null || true
	echo nop >"$TRACEFS/current_tracer"
	[ "$size" -gt 0 ] || fail "the blk tracer produced nothing"
	blkparse -q -i - -d "$2" -o /dev/null <"$1" >"$TMPD/bp.err" 2>&1 ||
		{ cat "$TMPD/bp.err" >&2; fail "blkparse -d could not read the blk tracer's output"; }
}

# wait_quiet DEV: until DEV's I/O counters stay unchanged for a second (a
# remount or a sync leaves work behind, such as a superblock write), so
# that both tracers start on the same I/O
wait_quiet()
{
	local stat=/sys/block/$1/stat last now same=0

	last=$(cat "$stat")
	for _ in $(seq 40); do
		sleep 0.5
		now=$(cat "$stat")
		if [ "$now" = "$last" ]; then
			same=$((same + 1))
			[ "$same" -lt 2 ] || return 0
		else
			same=0
			last=$now
		fi
	done
	fail "$1 did not go quiet within 20 s"
}

# btt_ext4: ext4 on a partition of a 128 MiB loop device (make_loop A),
# its caches dropped, with no periodic journal commit and quiet: nothing
# else writes while both tracers trace
btt_ext4()
{
	make_loop A 128 ext4
	sync
	echo 3 >/proc/sys/vm/drop_caches
	mount -o remount,commit=600 "$A_MNT"
	sync
	wait_quiet "$A_NAME"
}

# btt_zram SIZE: a zram device of SIZE (a bio-based leaf), removed at exit;
# sets zid (its number) and zmm (MAJ:MIN)
btt_zram()
{
	modprobe zram 2>/dev/null || true
	[ -e /sys/class/zram-control/hot_add ] ||
		skip "no zram (modprobe zram), needed for a bio-based leaf"
	zid=$(cat /sys/class/zram-control/hot_add)
	at_cleanup "echo 1 > /sys/block/zram$zid/reset 2>/dev/null; echo $zid > /sys/class/zram-control/hot_remove"
	echo "$1" >"/sys/block/zram$zid/disksize"
	zmm=$(cat "/sys/block/zram$zid/dev")
}

# blkstack_bg NAME WORKLOAD ARGS...: blkstack ARGS -- WORKLOAD in the
# background, the workload held until blkstack_go; returns once it traces
blkstack_bg()
{
	local name=$1 work=$2

	shift 2
	"$BLKSTACK" "$@" -- sh -c "
		touch $TMPD/$name.armed
		while [ ! -e $TMPD/$name.go ]; do sleep 0.05; done
		$work" 2>"$TMPD/$name.err" &
	blkstack_pid=$!
	at_cleanup "kill $blkstack_pid 2>/dev/null; wait $blkstack_pid 2>/dev/null"
	for _ in $(seq 200); do
		[ -e "$TMPD/$name.armed" ] && return 0
		kill -0 "$blkstack_pid" 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMPD/$name.err" >&2
	fail "blkstack $1 ($name) did not start tracing"
}

# blkstack_go NAME: let the workload run, wait for blkstack
blkstack_go()
{
	local rc=0

	touch "$TMPD/$1.go"
	wait "$blkstack_pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$TMPD/$1.err" >&2; fail "blkstack ($1) exited $rc"; }
}
