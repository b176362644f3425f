#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flight recorder of blkstack monitor on a workload with a deliberately
# slow phase: reads of a loop disk's partition by a task whose cgroup
# throttles the disk to 10 reads per second (cgroup v2 io.max, or v1
# blkio.throttle where the io controller is v1's), so that each waits about
# 100 ms between its remap into the disk and its queueing there. The fast
# phase before it triggers nothing; the slow phase triggers exactly one
# recording (--record-gap holds back the others), which `report -i` reads
# with the slow I/O and the stack in it, and the metric counts it. Then
# SIGUSR1 and an interval's p99 above the bound trigger one recording each.
# Last, the per-layer p99>TIME@DEV: the throttled partition's triggers,
# naming it, while another traced disk's, read fast at the same time, does
# not. The wait is the partition's (its bios, remapped, wait below it until
# the throttle lets them be queued at the disk), not the disk's, whose
# total, C - Q, starts at its queue event, as btt's Q2C does.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool curl python3

# metric NAME: its value on the endpoint ("" if absent)
metric()
{
	curl -sf "http://127.0.0.1:$MON_PORT/metrics" | awk -v n="$1" '$1 == n { print $2 }'
}

make_loop A 64
make_loop B 16
MM=$(cat "/sys/class/block/$A_NAME/dev")
PMM=$(cat "/sys/class/block/$A_PNAME/dev")

# A cgroup whose reads of the loop disk are throttled to 10 per second.
throttle_cgroup "$MM" 10

RECDIR=$TMPD/rec
mkdir "$RECDIR"
MON_PORT=$(free_port)
"$BLKSTACK" monitor -d "$A_PDEV" --listen "127.0.0.1:$MON_PORT" \
	--record-on 'latency>50ms' --record-dir "$RECDIR" --record-window 20s \
	--record-gap 1h --record-memory 16 >"$TMPD/monitor.out" 2>"$TMPD/monitor.err" &
MON_PID=$!
_clean_pids+=("$MON_PID")
_clean_instances+=("blkstack-$MON_PID")
wait_http "http://127.0.0.1:$MON_PORT/metrics" "blkstack monitor" "$MON_PID" "$TMPD/monitor.err"
[ "$(metric blkstack_recordings_total)" = 0 ] || fail "blkstack_recordings_total is not 0 at the start"

# Fast phase: 200 reads, none near 50 ms: no recording.
dd_quiet if="$A_PDEV" of=/dev/null bs=4k count=200 iflag=direct
sleep 1
[ "$(metric blkstack_recordings_total)" = 0 ] || fail "the fast phase triggered a recording"
[ -z "$(ls "$RECDIR")" ] || fail "the fast phase left files in $RECDIR: $(ls "$RECDIR")"

# Slow phase: 5 throttled reads of known sectors, from inside the cgroup.
sh -c "echo \$\$ >'$CGDIR/cgroup.procs' && exec dd if='$A_PDEV' of=/dev/null bs=4k skip=4096 count=5 iflag=direct status=none" ||
	fail "the throttled reads failed"
for i in $(seq 100); do
	[ "$(metric blkstack_recordings_total)" = 1 ] && break
	sleep 0.1
done
[ "$(metric blkstack_recordings_total)" = 1 ] ||
	{ cat "$TMPD/monitor.err" >&2; fail "the slow phase did not trigger exactly one recording"; }
mapfile -t recs < <(ls "$RECDIR")
[ ${#recs[@]} -eq 1 ] || fail "expected one recording in $RECDIR, found: ${recs[*]}"
case ${recs[0]} in
blkstack-flight-*.dat) ;;
*) fail "unexpected file '${recs[0]}' in $RECDIR" ;;
esac
grep -q "flight recording '.*' written (latency: a bio of" "$TMPD/monitor.err" ||
	fail "the monitor did not say why it recorded"
# the reads after the first slow one reach the monitor a pass or two later
for i in $(seq 50); do
	grep -q "no recording for latency" "$TMPD/monitor.err" && break
	sleep 0.1
done
grep -q "no recording for latency" "$TMPD/monitor.err" ||
	{ cat "$TMPD/monitor.err" >&2; fail "the later slow reads were not held back by --record-gap"; }

# The recording has the slow reads (50 ms and more end to end: the throttle
# holds a bio before it is queued at the disk, whose total, C - Q, starts
# at its queue event) and the stack.
"$BLKSTACK" report -i "$RECDIR/${recs[0]}" --json >"$TMPD/flight.json" 2>"$TMPD/flight.err" ||
	{ cat "$TMPD/flight.err" >&2; fail "report -i of the recording failed"; }
if ! python3 - "$TMPD/flight.json" "$A_NAME" "$A_PNAME" <<'EOF'; then
import json, sys
doc = json.load(open(sys.argv[1]))
names = {l.get("name") for l in doc["layers"]}
disk = [l for l in doc["layers"] if l.get("name") == sys.argv[2]]
read = disk[0]["ops"].get("read", {}) if disk else {}
slow = doc["end_to_end"].get("read", {}).get("total_ns", {}).get("max", 0)
print("recording: layers %s, %d reads at %s, slowest %.1f ms end to end"
      % (sorted(n for n in names if n), read.get("ios", 0), sys.argv[2], slow / 1e6))
sys.exit(0 if sys.argv[3] in names and slow >= 50e6 and read.get("ios", 0) >= 5 else 1)
EOF
	# what a failure is to be understood from: the monitor's messages, the
	# report's, and the stack's markers the recording carries
	cat "$TMPD/monitor.err" "$TMPD/flight.err" >&2
	trace-cmd report "$RECDIR/${recs[0]}" 2>&1 | grep -m20 'blkstack-' >&2 || true
	fail "the recording lacks the slow reads or the stack"
fi
if command -v trace-cmd >/dev/null; then
	trace-cmd report "$RECDIR/${recs[0]}" 2>/dev/null | grep -q 'blkstack-topology: ' ||
		fail "trace-cmd report does not show the stack's markers in the recording"
fi

kill -TERM "$MON_PID"
wait "$MON_PID" || fail "blkstack monitor exited $? after SIGTERM"
instance_gone "blkstack-$MON_PID" || fail "tracefs instance blkstack-$MON_PID left behind"
note "latency>50ms: one recording of the slow phase, the rest held back: ok"

# The other triggers: SIGUSR1, and an interval whose end-to-end p99 is
# above 50 ms (the same throttled reads), with no gap between recordings.
RECDIR2=$TMPD/rec2
mkdir "$RECDIR2"
"$BLKSTACK" monitor -d "$A_PDEV" --listen "127.0.0.1:$MON_PORT" --interval 1s \
	--record-on 'p99>50ms' --record-on signal --record-dir "$RECDIR2" --record-gap 0 \
	--record-memory 16 >"$TMPD/monitor2.out" 2>"$TMPD/monitor2.err" &
MON_PID=$!
_clean_pids+=("$MON_PID")
_clean_instances+=("blkstack-$MON_PID")
wait_http "http://127.0.0.1:$MON_PORT/metrics" "blkstack monitor" "$MON_PID" "$TMPD/monitor2.err"
kill -USR1 "$MON_PID"
for i in $(seq 50); do
	[ "$(metric blkstack_recordings_total)" = 1 ] && break
	sleep 0.1
done
grep -q "written (signal: SIGUSR1)" "$TMPD/monitor2.err" ||
	{ cat "$TMPD/monitor2.err" >&2; fail "SIGUSR1 did not trigger a recording"; }
sh -c "echo \$\$ >'$CGDIR/cgroup.procs' && exec dd if='$A_PDEV' of=/dev/null bs=4k skip=8192 count=5 iflag=direct status=none" ||
	fail "the throttled reads failed"
for i in $(seq 50); do
	grep -q "written (p99: end-to-end p99 of" "$TMPD/monitor2.err" && break
	sleep 0.1
done
grep -q "written (p99: end-to-end p99 of" "$TMPD/monitor2.err" ||
	{ cat "$TMPD/monitor2.err" >&2; fail "an interval with a p99 above 50 ms did not trigger a recording"; }
[ "$(ls "$RECDIR2" | grep -c '^blkstack-flight-.*\.dat$')" = 2 ] ||
	fail "expected 2 recordings in $RECDIR2, found: $(ls "$RECDIR2")"
kill -TERM "$MON_PID"
wait "$MON_PID" || fail "blkstack monitor exited $? after SIGTERM"
instance_gone "blkstack-$MON_PID" || fail "tracefs instance blkstack-$MON_PID left behind"
note "signal and p99>50ms: a recording each: ok"

# p99>TIME@DEV: A's disk by MAJ:MIN, B's by name; B's condition comes
# first, so a wrong layer would be the one named.
RECDIR3=$TMPD/rec3
mkdir "$RECDIR3"
"$BLKSTACK" monitor -d "$A_PDEV" -d "$B_DEV" --listen "127.0.0.1:$MON_PORT" --interval 1s \
	--record-on "p99>50ms@$B_NAME" --record-on "p99>50ms@$PMM" --record-dir "$RECDIR3" \
	--record-gap 0 --record-memory 16 >"$TMPD/monitor3.out" 2>"$TMPD/monitor3.err" &
MON_PID=$!
_clean_pids+=("$MON_PID")
_clean_instances+=("blkstack-$MON_PID")
wait_http "http://127.0.0.1:$MON_PORT/metrics" "blkstack monitor" "$MON_PID" "$TMPD/monitor3.err"
dd_quiet if="$B_DEV" of=/dev/null bs=4k count=500 iflag=direct &
FAST_PID=$!
sh -c "echo \$\$ >'$CGDIR/cgroup.procs' && exec dd if='$A_PDEV' of=/dev/null bs=4k skip=12288 count=5 iflag=direct status=none" ||
	fail "the throttled reads failed"
wait "$FAST_PID" || fail "the fast reads of $B_DEV failed"
for i in $(seq 50); do
	grep -q "written (p99: p99 of .* ms at $A_PNAME ($PMM))" "$TMPD/monitor3.err" && break
	sleep 0.1
done
grep -q "written (p99: p99 of .* ms at $A_PNAME ($PMM))" "$TMPD/monitor3.err" ||
	{ cat "$TMPD/monitor3.err" >&2; fail "p99>50ms@$PMM did not trigger on the throttled partition"; }
# one more interval for a wrong trigger to show
sleep 1.2
! grep -q "at $B_NAME (" "$TMPD/monitor3.err" ||
	{ cat "$TMPD/monitor3.err" >&2; fail "p99>50ms@$B_NAME triggered on a disk read fast"; }
! grep -q "end-to-end" "$TMPD/monitor3.err" ||
	fail "the layer form triggered as the end-to-end p99"
kill -TERM "$MON_PID"
wait "$MON_PID" || fail "blkstack monitor exited $? after SIGTERM"
instance_gone "blkstack-$MON_PID" || fail "tracefs instance blkstack-$MON_PID left behind"
note "p99>50ms@$A_PNAME: recorded on the throttled partition, not on $B_NAME: ok"
note "PASS"
