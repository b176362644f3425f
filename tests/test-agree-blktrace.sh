#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack trace against blktrace's own engine, both running over the same
# workload at the same time. blktrace's debugfs interface is refused under
# lockdown, but the kernel's blk tracer still runs through tracefs and emits
# blktrace binary that blkparse reads: that is the reference. Per device and
# action the counts must be equal, and the lines equal field for field once
# the sequence number, the time and the [comm] are set aside (the blk tracer
# read from trace_pipe has no process notes: blkparse prints [(null)] and
# sequence 0).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool blkparse flock
grep -qw blk "$TRACEFS/available_tracers" ||
	skip "the kernel has no blk tracer (CONFIG_BLK_DEV_IO_TRACE)"

make_loop A 64
enable=/sys/block/$A_NAME/trace/enable
[ -w "$enable" ] || skip "no $enable (CONFIG_BLK_DEV_IO_TRACE)"

# The blk tracer is the top-level tracer: one user at a time among the
# tests that run beside this one.
exec 9>"${TMPDIR:-/tmp}/blkstack-top-tracer.lock"
flock -w 300 9 || fail "the top-level tracer stayed locked for 300 s"

saved_tracer=$(cat "$TRACEFS/current_tracer")
saved_bin=$(cat "$TRACEFS/options/bin")
saved_ctx=$(cat "$TRACEFS/options/context-info")
saved_on=$(cat "$TRACEFS/tracing_on")
saved_enable=$(cat "$enable")
restore_top()
{
	echo "$saved_enable" >"$enable"
	echo 0 >"$TRACEFS/tracing_on"
	echo "$saved_tracer" >"$TRACEFS/current_tracer"
	echo "$saved_bin" >"$TRACEFS/options/bin"
	echo "$saved_ctx" >"$TRACEFS/options/context-info"
	echo "$saved_on" >"$TRACEFS/tracing_on"
}
at_cleanup restore_top

echo 1 >"$enable"
echo blk >"$TRACEFS/current_tracer"
echo 1 >"$TRACEFS/options/bin"
echo 0 >"$TRACEFS/options/context-info"
echo 1 >"$TRACEFS/tracing_on"
cat "$TRACEFS/trace_pipe" >"$TMPD/bt.bin" &
cat_pid=$!
# the reader holds the tracer: it must go before the tracer is restored
at_cleanup "kill $cat_pid 2>/dev/null; wait $cat_pid 2>/dev/null"

# --plugs: the blk tracer knows each plug's queue; ours must name the same
start_trace "$TMPD/bs.stdout" "$TMPD/bs.err" -d "$A_PDEV" --plugs -w 10 --no-summary -o "$TMPD/bs.txt"

# and trace-cmd, all three at once: none may disturb the others
tc_inst=bstest-ab-$$
_clean_instances+=("$tc_inst")
# 16 MiB a CPU (-b): trace-cmd records every device's block events, and a
# reader starved of CPU beside other tests' I/O was seen to lose most of ours
trace-cmd record -B "$tc_inst" -b 16384 -d --no-filter -e block -o "$TMPD/tc.dat" \
	>"$TMPD/tc.log" 2>&1 &
tc_pid=$!
at_cleanup "kill -INT $tc_pid 2>/dev/null; wait $tc_pid 2>/dev/null"
for _ in $(seq 100); do
	on=$TRACEFS/instances/$tc_inst/tracing_on
	en=$TRACEFS/instances/$tc_inst/events/block/block_bio_queue/enable
	[ "$(cat "$on" 2>/dev/null)" = 1 ] && [ "$(cat "$en" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
[ "$(cat "$TRACEFS/instances/$tc_inst/tracing_on" 2>/dev/null)" = 1 ] ||
	{ cat "$TMPD/tc.log" >&2; fail "trace-cmd record did not start"; }

# direct I/O of several sizes, then buffered writes that writeback merges
dd_quiet if=/dev/zero of="$A_PDEV" bs=64k count=8 oflag=direct
dd_quiet if=/dev/zero of="$A_PDEV" bs=4k count=16 seek=1024 oflag=direct
dd_quiet if="$A_PDEV" of=/dev/null bs=16k count=8 iflag=direct
dd_quiet if="$A_PDEV" of=/dev/null bs=4k count=4 skip=2048 iflag=direct
dd_quiet if=/dev/zero of="$A_PDEV" bs=4k count=512 seek=4096 conv=fsync
still_tracing "the workload"
sleep 1
kill -INT "$tc_pid"
wait "$tc_pid" || true # lockdown makes its reset fail after the file is written
remove_instance "$tc_inst" || fail "cannot remove trace-cmd's instance $tc_inst"
wait_trace
[ "$TRACE_RC" -eq 0 ] || { cat "$TMPD/bs.err" >&2; fail "blkstack trace exited $TRACE_RC"; }

# blk tracer: stop, then let the reader drain until the file stops growing
echo 0 >"$enable"
size=-1
while [ "$(stat -c %s "$TMPD/bt.bin")" != "$size" ]; do
	size=$(stat -c %s "$TMPD/bt.bin")
	sleep 1
done
kill "$cat_pid"
wait "$cat_pid" 2>/dev/null || true
[ "$size" -gt 0 ] || fail "the blk tracer produced nothing"
blkparse -i - -q -o "$TMPD/bp.txt" <"$TMPD/bt.bin" >"$TMPD/bp.err" 2>&1 ||
	{ cat "$TMPD/bp.err" >&2; fail "blkparse could not read the blk tracer's output"; }

# An unplug's kind (U, explicit; UT, from the scheduler as the task went
# to sleep) is an argument of the block_unplug tracepoint that its event
# does not record: the blk tracer has it, blkstack tells it from what
# follows. The two are one action in the comparisons; how often the kinds
# differ is said, not failed.
one_unplug()
{
	awk '$6 == "UT" { $6 = "U" } { print }' "$1" >"$1.u"
}
ut_bp=$(awk '$6 == "UT"' "$TMPD/bp.txt" | wc -l)
ut_bs=$(awk '$6 == "UT"' "$TMPD/bs.txt" | wc -l)
[ "$ut_bp" -eq "$ut_bs" ] ||
	note "timer unplugs (UT): $ut_bp to the blk tracer, $ut_bs told by blkstack"
one_unplug "$TMPD/bp.txt"
one_unplug "$TMPD/bs.txt"

# only our disk: the blk tracer was enabled on it alone, but be exact
count_actions "$TMPD/bp.txt.u" | awk -v d="$A_MM" '$1 == d' >"$TMPD/bp.counts"
count_actions "$TMPD/bs.txt.u" >"$TMPD/bs.counts"
[ -s "$TMPD/bp.counts" ] || fail "blkparse printed no event of $A_MM"
grep -q "^$A_MM M " "$TMPD/bp.counts" || note "warning: no merge (M) in this run"
diff -u "$TMPD/bp.counts" "$TMPD/bs.counts" >&2 ||
	fail "per (device, action) counts differ: blkparse (-) vs blkstack (+)"

# dev pid action rwbs tail, comm blanked (not in C lines: [error] there)
fields()
{
	awk -v d="$A_MM" '$1 == d && $6 ~ /^[A-Z]$/ {
		t = ""
		for (i = 7; i <= NF; i++)
			t = t " " $i
		if ($6 != "C")
			gsub(/\[[^]]*\]/, "[]", t)
		print $1, $2, $5, $6 t
	}' "$1" | LC_ALL=C sort
}
fields "$TMPD/bp.txt.u" >"$TMPD/bp.fields"
fields "$TMPD/bs.txt.u" >"$TMPD/bs.fields"
diff -u "$TMPD/bp.fields" "$TMPD/bs.fields" >&2 ||
	fail "lines differ (dev cpu pid action rwbs tail): blkparse (-) vs blkstack (+)"
[ -s "$TMPD/tc.dat" ] || { cat "$TMPD/tc.log" >&2; fail "trace-cmd wrote no recording"; }
"$BLKSTACK" parse -i "$TMPD/tc.dat" -d "${A_MM/,/:}" -d "${A_PMM/,/:}" --no-summary \
	-o "$TMPD/tc.txt" 2>"$TMPD/tc.err" || { cat "$TMPD/tc.err" >&2; fail "parse of trace-cmd's recording failed"; }
one_unplug "$TMPD/tc.txt"
count_actions "$TMPD/tc.txt.u" | awk -v d="$A_MM" '$1 == d' >"$TMPD/tc.counts"
diff -u "$TMPD/bp.counts" "$TMPD/tc.counts" >&2 ||
	{ cat "$TMPD/tc.err" >&2; fail "per (device, action) counts differ: blkparse (-) vs trace-cmd's recording (+)"; }
note "$(wc -l <"$TMPD/bs.fields") events agree with the blk tracer and with trace-cmd, all three at once: $(awk '{ printf "%s=%s ", $2, $3 }' "$TMPD/bs.counts")"
