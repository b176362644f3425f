#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack top: replayed by intervals of trace time, the I/Os of every
# interval add up, per layer and operation, to the report of the whole
# recording; live, it prints COUNT intervals of a partitioned loop device,
# exits 0 and leaves no tracefs instance.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

: "${FIXTURES:?}"
command -v python3 >/dev/null || skip "python3 is not installed (apt-get install python3)"

# replay (no root needed for this part)
for dat in "$FIXTURES"/vm/*-crypt.dat "$FIXTURES"/vm/*-ref-virtio.dat; do
	tmp=$(mktemp -d)
	"$BLKSTACK" top -i "$dat" 0.1 >"$tmp/top.txt" || fail "top -i $dat failed"
	"$BLKSTACK" report -i "$dat" --json -o "$tmp/r.json" || fail "report -i $dat failed"
	python3 - "$tmp/top.txt" "$tmp/r.json" "$(basename "$dat")" <<'PY' || fail "top and report disagree on $(basename "$dat")"
import json, re, sys
from collections import defaultdict
got, dur, intervals = defaultdict(float), None, 0
for line in open(sys.argv[1]):
    m = re.match(r"^\+[0-9.]+s\s+\(([0-9.]+) s\)", line)
    if m:
        dur = float(m.group(1)); intervals += 1; continue
    f = line.split()
    if dur and len(f) > 3 and re.match(r"^\d+:\d+$", f[0]):
        got[(f[0], f[1])] += float(f[2]) * dur
want = {(l["dev"], op): v["ios"] for l in json.load(open(sys.argv[2]))["layers"]
        for op, v in l["ops"].items()}
bad = [(k, round(got.get(k, 0)), n) for k, n in want.items() if abs(got.get(k, 0) - n) > 0.5]
for k, g, n in bad:
    print("  %s %s: top adds up to %d, report %d" % (k[0], k[1], g, n))
print("test-top: %s: %d intervals, %d layer/op rows add up" % (sys.argv[3], intervals, len(want) - len(bad)))
sys.exit(1 if bad or intervals < 2 else 0)
PY
	rm -rf "$tmp"
done

# live
setup
make_loop A 64
"$BLKSTACK" top -d "$A_PDEV" -o "$TMPD/live.txt" 0.5 3 >"$TMPD/live.out" 2>&1 &
pid=$!
_clean_pids+=("$pid")
_clean_instances+=("blkstack-$pid")
inst=$TRACEFS/instances/blkstack-$pid
# started: events enabled, then tracing_on set (see start_trace in lib.sh)
for _ in $(seq 100); do
	[ "$(cat "$inst/events/block/block_bio_queue/enable" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && break
	sleep 0.05
done
dd_quiet if=/dev/zero of="$A_PDEV" bs=4k count=256 oflag=direct
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMPD/live.out" >&2; fail "top exited $rc"; }
n=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]' "$TMPD/live.txt" || true)
[ "$n" -eq 3 ] || { cat "$TMPD/live.txt" >&2; fail "top printed $n intervals, want 3"; }
grep -q "^$A_NAME *write" "$TMPD/live.txt" || { cat "$TMPD/live.txt" >&2; fail "no write row for $A_NAME"; }
[ ! -d "$TRACEFS/instances/blkstack-$pid" ] || fail "instance blkstack-$pid left behind"
note "live: 3 intervals with $A_NAME's writes, exit 0, instance removed: ok"
