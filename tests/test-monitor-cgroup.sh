#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack monitor --by cgroup: reads from tasks of two cgroup v2 groups,
# with --max-cgroups 1: the first group's series count its reads exactly,
# the second's go to "other", every layer and end-to-end series has the
# label, and none is left without it (sums over cgroups stay right). Then
# blkstack report --by cgroup of the same two readers counts each apart.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool curl python3

# cgroup v2: the whole hierarchy, or the "unified" one of a hybrid host
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CG2=/sys/fs/cgroup
elif [ -f /sys/fs/cgroup/unified/cgroup.controllers ]; then
	CG2=/sys/fs/cgroup/unified
else
	skip "no cgroup v2 hierarchy (/sys/fs/cgroup or /sys/fs/cgroup/unified)"
fi
A=blkstack-test-cg-a-$$
B=blkstack-test-cg-b-$$
mkdir "$CG2/$A" "$CG2/$B" || skip "cannot create cgroups under $CG2"
at_cleanup "rmdir '$CG2/$A' '$CG2/$B' 2>/dev/null"

make_loop D 32
PORT=$(free_port)
"$BLKSTACK" monitor -d "$D_DEV" --listen "127.0.0.1:$PORT" --by cgroup --max-cgroups 1 \
	>"$TMPD/monitor.out" 2>"$TMPD/monitor.err" &
MON_PID=$!
_clean_pids+=("$MON_PID")
_clean_instances+=("blkstack-$MON_PID")
wait_http "http://127.0.0.1:$PORT/metrics" "blkstack monitor" "$MON_PID" "$TMPD/monitor.err"

# in_cgroup CG FUNCTION ARGS...: run a function of this script in cgroup CG
in_cgroup()
{
	local cg=$1

	shift
	(echo "$BASHPID" >"$CG2/$cg/cgroup.procs" && "$@")
}
# reader FIRST COUNT: direct 4 KiB reads, then the task stays 1.5 s: the
# monitor reads a task's cgroup when it takes its queue event, a pass (up
# to a few hundred ms) after the I/O; a task gone by then is "unknown"
reader()
{
	python3 -c 'import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
first, count = int(sys.argv[2]), int(sys.argv[3])
for i in range(first, first + count):
    assert os.preadv(fd, [buf], i * 4096) == 4096
time.sleep(1.5)' "$D_DEV" "$1" "$2"
}
in_cgroup "$A" reader 0 100 || fail "reads in $A failed"
in_cgroup "$B" reader 200 30 || fail "reads in $B failed"

# value SERIES: the value of one exact series on the endpoint
value()
{
	curl -sf "http://127.0.0.1:$PORT/metrics" | awk -v s="$1" '$1 == s { print $2 }'
}
grep -q "^blkstack_layer_inflight{device=\"${D_MM/,/:}\",name=\"$D_NAME\",kind=\"loop\",target=\"\",dir=\"read\"} 0$" \
	<(curl -sf "http://127.0.0.1:$PORT/metrics") || fail "no blkstack_layer_inflight of $D_NAME (0 reads in flight once idle)"
E2E_A="blkstack_end_to_end_ios_total{cgroup=\"/$A\",op=\"read\"}"
E2E_O='blkstack_end_to_end_ios_total{cgroup="other",op="read"}'
LAYER_A="blkstack_layer_ios_total{cgroup=\"/$A\",device=\"${D_MM/,/:}\",name=\"$D_NAME\",kind=\"loop\",target=\"\",op=\"read\"}"
for i in $(seq 50); do
	[ "$(value "$E2E_A")" = 100 ] && [ "$(value "$E2E_O")" = 30 ] && break
	sleep 0.1
done
[ "$(value "$E2E_A")" = 100 ] || fail "cgroup /$A: $(value "$E2E_A") reads end to end, not 100"
[ "$(value "$E2E_O")" = 30 ] || fail "cgroup other: $(value "$E2E_O") reads end to end, not 30 (/$B past the cap)"
[ "$(value "$LAYER_A")" = 100 ] || fail "cgroup /$A: $(value "$LAYER_A") reads at $D_NAME, not 100"
curl -sf "http://127.0.0.1:$PORT/metrics" >"$TMPD/metrics.txt"
grep -q "cgroup=\"/$B\"" "$TMPD/metrics.txt" && fail "/$B has series of its own past --max-cgroups 1"
# (blkstack_layer_inflight is the kernel's count of the device: no cgroup)
if grep -E '^blkstack_(layer|end_to_end)_' "$TMPD/metrics.txt" | grep -v '^blkstack_layer_inflight' |
	grep -v 'cgroup="'; then
	fail "layer or end-to-end series without a cgroup label"
fi
kill -TERM "$MON_PID"
wait "$MON_PID" || fail "blkstack monitor exited $? after SIGTERM"
instance_gone "blkstack-$MON_PID" || fail "tracefs instance blkstack-$MON_PID left behind"

# report --by cgroup: the same readers under report -- COMMAND
{
	declare -f reader in_cgroup
	echo "CG2='$CG2' D_DEV='$D_DEV'"
	echo "in_cgroup '$A' reader 0 40 && in_cgroup '$B' reader 100 25"
} >"$TMPD/work.sh"
"$BLKSTACK" report -d "$D_DEV" --by cgroup --json -- bash "$TMPD/work.sh" \
	>"$TMPD/report.json" 2>"$TMPD/report.err" ||
	{ cat "$TMPD/report.err" >&2; fail "report --by cgroup failed"; }
python3 - "$TMPD/report.json" "/$A" "/$B" <<'PY' || fail "report --by cgroup does not count 40 reads in /$A and 25 in /$B"
import json, sys
doc = json.load(open(sys.argv[1]))
ios = {g["cgroup"]: g["ops"].get("read", {}).get("ios", 0) for g in doc["cgroups"]}
print("report --by cgroup:", ios)
sys.exit(0 if ios.get(sys.argv[2]) == 40 and ios.get(sys.argv[3]) == 25 else 1)
PY
"$BLKSTACK" report -d "$D_DEV" --by cgroup -w 1 >"$TMPD/report.txt" 2>&1 ||
	fail "report --by cgroup as text failed"
grep -q '^CGROUP ' "$TMPD/report.txt" || fail "no CGROUP table in the text report"
note "PASS"
