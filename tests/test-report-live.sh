#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack report, live, on this kernel: a loop device with a partition (a
# request-based disk under a remap-only layer) and zram (a bio-based leaf).
# The report of a command's O_DIRECT I/O must give exactly the bytes the
# command moved, every top-level I/O followed through every layer, the
# layers the stack has, and the command as the process; the text report
# and the sysfs tree must be there; Ctrl-C ends a run with a report and no
# instance left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool python3

make_loop A 64

check_json()	# FILE OP BYTES LAYERS...
{
	python3 - "$@" <<'PY' || fail "report of $2 does not match the workload (see above)"
import json, sys
doc = json.load(open(sys.argv[1]))
op, want = sys.argv[2], int(sys.argv[3])
layers = sys.argv[4:]
e2e = doc["end_to_end"].get(op)
errs = []
if not e2e:
    errs.append("no end-to-end %s" % op)
else:
    if e2e["bytes"] != want:
        errs.append("end-to-end %s bytes %d, want %d" % (op, e2e["bytes"], want))
    if e2e["matched"] != e2e["ios"]:
        errs.append("%d of %d matched" % (e2e["matched"], e2e["ios"]))
seen = {l["dev"]: l for l in doc["layers"]}
for dev in layers:
    l = seen.get(dev)
    if not l or op not in l["ops"]:
        errs.append("no %s at layer %s" % (op, dev))
    elif l["ops"][op]["bytes"] != want:
        errs.append("layer %s: %d bytes, want %d" % (dev, l["ops"][op]["bytes"], want))
if not any(p["comm"] == "dd" and p["bytes"] == want for p in doc["processes"]):
    errs.append("dd is not the process with %d bytes" % want)
if doc["events_lost"]:
    errs.append("%d events lost" % doc["events_lost"])
for e in errs:
    print("  " + e)
sys.exit(1 if errs else 0)
PY
}

# 1 MiB written and 128 KiB read with O_DIRECT on the partition
pmm=${A_PMM/,/:}
mm=${A_MM/,/:}
"$BLKSTACK" report -d "$A_PDEV" --json -o "$TMPD/w.json" -- \
	dd status=none if=/dev/zero of="$A_PDEV" bs=64k count=16 oflag=direct ||
	fail "report -- dd (write) failed"
check_json "$TMPD/w.json" write $((16 * 65536)) "$pmm" "$mm"
"$BLKSTACK" report -d "$A_PDEV" --json -o "$TMPD/r.json" -- \
	dd status=none if="$A_PDEV" of=/dev/null bs=4k count=32 iflag=direct ||
	fail "report -- dd (read) failed"
check_json "$TMPD/r.json" read $((32 * 4096)) "$pmm" "$mm"
note "loop with a partition: bytes, layers, match and process: ok"

# the text report, with the stack from sysfs
"$BLKSTACK" report -d "$A_PDEV" -o "$TMPD/w.txt" -- \
	dd status=none if=/dev/zero of="$A_PDEV" bs=64k count=4 oflag=direct ||
	fail "report (text) failed"
for section in "Devices (from sysfs)" "Layers" "Per layer latency" "Per layer" "Request-based layers" "End to end" \
	"Where write time goes" "Processes" "Tracking"; do
	grep -q "^$section" "$TMPD/w.txt" || fail "text report has no '$section' section"
done
grep -Eq "^[^a-z]*$A_NAME +$mm +loop " "$TMPD/w.txt" || fail "the stack does not show $A_NAME as a loop device"
note "text report: every section: ok"

# Ctrl-C: a report of what was traced, and nothing left behind
"$BLKSTACK" report -d "$A_PDEV" -o "$TMPD/int.txt" >"$TMPD/int.out" 2>&1 &
pid=$!
for _ in $(seq 50); do
	[ -d "$TRACEFS/instances/blkstack-$pid" ] && break
	sleep 0.1
done
sleep 0.5
dd_quiet if=/dev/zero of="$A_PDEV" bs=4k count=8 oflag=direct
sleep 0.5
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMPD/int.out" >&2; fail "report after SIGINT exited $rc"; }
grep -q '^End to end' "$TMPD/int.txt" || fail "no report after SIGINT"
[ ! -d "$TRACEFS/instances/blkstack-$pid" ] || fail "instance blkstack-$pid left after SIGINT"
note "SIGINT: report written, instance removed: ok"
# what it traces and how to stop it is said whatever stderr is (here a file)
grep -q "^blkstack: tracing the stacks -d named (.*$A_PNAME.*) until Ctrl-C or SIGTERM, then report\$" "$TMPD/int.out" ||
	fail "report -d without -w does not say what it traces and how to stop: $(cat "$TMPD/int.out")"

# a bare report: every device, said so, until SIGTERM, then the report
"$BLKSTACK" report -o "$TMPD/bare.txt" >"$TMPD/bare.out" 2>&1 &
pid=$!
for _ in $(seq 50); do
	[ -d "$TRACEFS/instances/blkstack-$pid" ] && break
	sleep 0.1
done
sleep 0.5
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMPD/bare.out" >&2; fail "a bare report after SIGTERM exited $rc"; }
grep -q "^blkstack: tracing every block device (-d DEV for one stack, -w TIME for a time) until Ctrl-C or SIGTERM, then report\$" "$TMPD/bare.out" ||
	fail "a bare report does not say what it traces and how to stop: $(cat "$TMPD/bare.out")"
grep -q '^Tracking' "$TMPD/bare.txt" || fail "no report after SIGTERM of a bare report"
# with -w, it stops by itself: nothing to say
"$BLKSTACK" report -d "$A_PDEV" -w 200ms -o "$TMPD/w2.txt" >"$TMPD/w2.out" 2>&1 ||
	fail "report -w 200ms failed: $(cat "$TMPD/w2.out")"
! grep -q "until Ctrl-C" "$TMPD/w2.out" || fail "report -w says it traces until Ctrl-C"
note "what is traced and how to stop it: said without -w, whatever stderr is: ok"

# zram: a bio-based leaf, queued and completed as bios. A zram device of our
# own (hot_add), so that a zram0 in use elsewhere is left alone.
modprobe zram 2>/dev/null || true
[ -e /sys/class/zram-control/hot_add ] || skip "no zram (modprobe zram), needed for a bio-based leaf"
zid=$(cat /sys/class/zram-control/hot_add)
at_cleanup "echo 1 > /sys/block/zram$zid/reset 2>/dev/null; echo $zid > /sys/class/zram-control/hot_remove"
echo 64M >"/sys/block/zram$zid/disksize"
zmm=$(cat "/sys/block/zram$zid/dev")
"$BLKSTACK" report -d "zram$zid" --json -o "$TMPD/z.json" -- \
	dd status=none if=/dev/zero of="/dev/zram$zid" bs=4k count=64 oflag=direct ||
	fail "report on zram$zid failed"
check_json "$TMPD/z.json" write $((64 * 4096)) "$zmm"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
l = [x for x in d["layers"] if x["dev"] == sys.argv[2]][0]
sys.exit(0 if l["kind"] == "bio" else 1)' "$TMPD/z.json" "$zmm" ||
	fail "zram$zid is not a bio-based layer in the report"
note "zram$zid (bio-based): bytes, match and process: ok"
