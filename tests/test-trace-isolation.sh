#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# -d selects in the kernel: tracing loop device A while loop device B is busy
# shows nothing of B, and B's events are never committed to our ring buffer
# (a user-space filter alone would pass the first check, not the second).
# block_plug and block_unplug have no dev field, so no filter can hold them
# back: with -d they are off unless --plugs, and with --plugs every device's
# P and U are committed (at most two per request) but only A's are printed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup

make_loop A 64
make_loop B 64

# B stays busy from before each trace starts until after it is read
busy()
{
	while [ ! -e "$TMPD/stop" ]; do
		dd status=none if=/dev/zero of="$B_PDEV" bs=64k count=64 oflag=direct
		dd status=none if="$B_DEV" of=/dev/null bs=64k count=64 iflag=direct
	done
}
at_cleanup "touch '$TMPD/stop'"

# requests completed by every disk (reads, writes, discards, flushes):
# each plug and unplug pair flushes at least one of them
all_ios()
{
	cat /sys/block/*/stat | awk '{ s += $1 + $5 + $12 + $16 } END { print s + 0 }'
}

# isolate NAME [--plugs]
isolate()
{
	local name=$1 out=$TMPD/$1.log inst filter committed n b_ios0 b_ios all0 all
	local busy_pid counts lines extra allowed ev

	shift
	rm -f "$TMPD/stop"
	busy &
	busy_pid=$!
	_clean_pids+=("$busy_pid")
	b_ios0=$(awk '{ print $1 + $5 }' "/sys/block/$B_NAME/stat")
	all0=$(all_ios)

	start_trace "$TMPD/$name.stdout" "$TMPD/$name.err" -d "$A_PDEV" -w 8 -o "$out" "$@"
	inst=$TRACEFS/instances/blkstack-$TRACE_PID

	# the filter the kernel applies names A's stack and not B
	filter=$(cat "$inst/events/block/block_bio_queue/filter")
	case $filter in
	*"dev == $A_KDEV"*) ;;
	*) fail "$name: block_bio_queue filter '$filter' lacks dev == $A_KDEV ($A_MM)" ;;
	esac
	case $filter in
	*"dev == $B_KDEV"* | *"dev == $B_PKDEV"*) fail "$name: filter '$filter' selects B ($B_MM)" ;;
	esac
	# every enabled event that has a dev field is filtered
	for ev in "$inst"/events/block/*/; do
		[ "$(cat "$ev/enable")" = 1 ] || continue
		grep -q "field:dev_t dev;" "$ev/format" || continue
		[ "$(cat "$ev/filter")" != none ] || fail "$name: $(basename "$ev") is enabled with no filter"
	done
	if [ $# -eq 0 ]; then
		[ "$(cat "$inst/events/block/block_plug/enable")" = 0 ] ||
			fail "$name: block_plug is enabled without --plugs: every device's plugs reach the ring"
	fi

	dd_quiet if=/dev/zero of="$A_PDEV" bs=64k count=4 oflag=direct
	dd_quiet if="$A_PDEV" of=/dev/null bs=4k count=2 iflag=direct
	sleep 1.5
	# committed = unread + overwritten + consumed, per CPU, while B is busy
	committed=0
	for f in "$inst"/per_cpu/cpu*/stats; do
		n=$(awk '/^entries:/ { e = $2 } /^overrun:/ { o = $2 } /^read events:/ { r = $3 }
			 END { print e + o + r }' "$f")
		committed=$((committed + n))
	done
	all=$(($(all_ios) - all0))
	still_tracing "the workload"
	touch "$TMPD/stop"
	wait "$busy_pid" || true
	b_ios=$(($(awk '{ print $1 + $5 }' "/sys/block/$B_NAME/stat") - b_ios0))
	[ "$b_ios" -ge 100 ] || fail "$name: B did only $b_ios I/Os: it was not busy, the test proves nothing"

	wait_trace
	[ "$TRACE_RC" -eq 0 ] || { cat "$TMPD/$name.err" >&2; fail "$name: trace exited $TRACE_RC"; }
	counts=$(count_actions "$out")
	lines=$(echo "$counts" | awk '{ s += $3 } END { print s + 0 }')

	if grep -Eq "^ *($B_MM|$B_PMM) " "$out" || grep -qF "($B_PMM)" "$out"; then
		grep -E "^ *($B_MM|$B_PMM) |\\($B_PMM\\)" "$out" | head -5 >&2
		fail "$name: lines of device B ($B_MM, $B_PMM) in the trace of A"
	fi
	echo "$counts" | grep -q "^$A_MM Q " || fail "$name: no Q line of device A ($A_MM): $counts"
	echo "$counts" | grep -q "^$A_MM C " || fail "$name: no C line of device A ($A_MM): $counts"
	[ "$(sum_sectors "$out" "$A_MM" Q W)" -eq 512 ] || fail "$name: A's Q writes are not 512 sectors"

	# B's requests are A, Q, G, D, C events each: committed, they would
	# outnumber A's log many times over
	extra=$((committed - lines))
	if [ $# -eq 0 ]; then
		[ "$extra" -le 0 ] ||
			fail "$name: the ring committed $committed events, the log has $lines: B's events ($b_ios I/Os) reach the ring buffer"
		note "$name: B did $b_ios I/Os; the ring committed $committed events, all in A's log of $lines: ok"
	else
		echo "$counts" | grep -q "^$A_MM P " || fail "$name: --plugs, but no P line of A: $counts"
		echo "$counts" | grep -q "^$A_MM U " || fail "$name: --plugs, but no U line of A: $counts"
		allowed=$((2 * all + 64))
		[ "$extra" -le "$allowed" ] ||
			fail "$name: the ring committed $committed events, the log has $lines: $extra more, over the $allowed plugs and unplugs of $all requests; B's events reach the ring buffer"
		note "$name: B did $b_ios I/Os; $extra unprinted events in the ring, within the $allowed plugs/unplugs of all disks: ok"
	fi
}

isolate default
isolate plugs --plugs
