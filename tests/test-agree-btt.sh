#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack report's btt phases against btt itself, on the same I/O at the
# same time. The kernel's blk tracer (blktrace's engine, through tracefs:
# blktrace's debugfs interface is refused under lockdown) records the leaf
# device while `blkstack report -- WORKLOAD` runs; btt reads the blk
# tracer's binary after `blkparse -d`. Then the leaf's D2C and Q2C averages
# (btt's "ALL" line: all operations together, so blkstack's per-operation
# figures are weighted by their counts) must agree within 1%, and the
# report's bytes must equal the workload's:
#
# 1. ext4 on a partition of a loop device (request-based leaf under a
#    remap-only partition): direct and buffered reads and writes;
# 2. zram (a bio-based leaf: Q and C only, so Q2C alone -- btt's "Q2Cdm" --
#    which is the layer's total time in blkstack's terms).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
# shellcheck source-path=SCRIPTDIR source=lib-btt.sh
. "$(dirname "$0")/lib-btt.sh"
btt_setup

# report_bg NAME DEV WORKLOAD: blkstack report -d DEV -- WORKLOAD, held
# until report_go
report_bg()
{
	blkstack_bg "$1" "$3" report -d "$2" --json -o "$TMPD/$1.json"
}

report_go()
{
	blkstack_go "$1"
}

# btt_avg DUMP PHASE: btt's average of PHASE (Q2C, D2C...) for all devices, in ns
btt_avg()
{
	# btt -o NAME writes its tables to NAME.avg
	# in $TMPD: btt writes its per-device *_iops_fp.dat files to the directory it runs in
	(cd "$TMPD" && btt -i "$1" -o "$TMPD/btt") >"$TMPD/btt.err" 2>&1 ||
		{ cat "$TMPD/btt.err" >&2; fail "btt failed on $1"; }
	cp "$TMPD/btt.avg" "$TMPD/btt.out"
	awk -v p="$2" '/^==================== All Devices ====================/ { all = 1 }
		all && $1 == p { printf "%.0f\n", $3 * 1e9; exit }' "$TMPD/btt.out"
}

# compare NAME JSON MM OP_BYTES PHASE:BTT_NS...: the checks on one report
compare()
{
	python3 - "$@" <<'PY' || fail "$1: blkstack and btt disagree (see above)"
import json, sys
name, path, dev, want_bytes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
doc = json.load(open(path))
errs = []
layer = [l for l in doc["layers"] if l["dev"] == dev]
if not layer:
    sys.exit("  %s: no layer %s in the report" % (name, dev))
layer = layer[0]
got = sum(e["bytes"] for e in doc["end_to_end"].values())
if got != want_bytes:
    errs.append("end-to-end bytes %d, the workload moved %d" % (got, want_bytes))
for arg in sys.argv[5:]:
    phase, btt_ns = arg.split(":")
    btt_ns = float(btt_ns)
    n = total = 0
    for op in layer["ops"].values():
        if phase == "layer-total":
            h = op["total_ns"]
        else:
            h = op.get("btt", {}).get(phase.lower() + "_ns", {"count": 0})
        n += h["count"]
        total += h.get("avg", 0) * h["count"]
    if not n:
        errs.append("no %s at %s" % (phase, dev))
        continue
    avg = total / n
    off = abs(avg - btt_ns) / btt_ns * 100
    print("  %s %s: blkstack %.1f us over %d, btt %.1f us: %.2f%%"
          % (name, phase, avg / 1000, n, btt_ns / 1000, off))
    if off > 1.0:
        errs.append("%s average %.0f ns, btt %.0f ns: %.2f%% apart" % (phase, avg, btt_ns, off))
for e in errs:
    print("  " + name + ": " + e)
sys.exit(1 if errs else 0)
PY
}

# --- 1. ext4 on a partition of a loop device --------------------------------

btt_ext4

# blkstack first, the blk tracer second: each tracepoint calls its probes in
# the order they were registered, and the blk tracer's probe is slow enough
# (microseconds) to delay the time stamp of a probe called after it. The
# workload waits for the blk tracer: a 4 MiB direct write and its direct
# read back, 1 MiB written buffered with fsync and read back after the
# caches are dropped.
report_bg a "$A_PDEV" "
	dd status=none if=/dev/urandom of=$A_MNT/direct bs=256k count=16 oflag=direct &&
	dd status=none if=$A_MNT/direct of=/dev/null bs=128k count=32 iflag=direct &&
	dd status=none if=/dev/zero of=$A_MNT/buffered bs=4k count=256 conv=fsync &&
	echo 3 > /proc/sys/vm/drop_caches &&
	dd status=none if=$A_MNT/buffered of=/dev/null bs=1M &&
	sync"
blk_on "$A_NAME" "$TMPD/a.bin"
report_go a
blk_off "$TMPD/a.bin" "$TMPD/a.dump"

d2c=$(btt_avg "$TMPD/a.dump" D2C)
q2c=$(btt_avg "$TMPD/a.dump" Q2C)
[ -n "$d2c" ] && [ -n "$q2c" ] || { cat "$TMPD/btt.out" >&2; fail "btt printed no D2C or Q2C"; }
# what reached the disk: the report's own end-to-end bytes are checked
# against what the blk tracer saw queued on the disk (blkparse's summary)
bt_bytes=$(blkparse -i - <"$TMPD/a.bin" 2>/dev/null | awk -v d="$A_MM" '
	$1 == d && $6 == "Q" && $9 == "+" { s += $10 } END { print s * 512 }')
compare "ext4 on $A_PNAME" "$TMPD/a.json" "${A_MM/,/:}" "$bt_bytes" "D2C:$d2c" "Q2C:$q2c"
awk '$1 == "D2C" || $1 == "Q2C"' "$TMPD/btt.out" | head -2 | sed 's/^/  btt: /' >&2
note "ext4 on a loop partition: D2C and Q2C within 1% of btt: ok"

# --- 2. zram: a bio-based leaf ---------------------------------------------

btt_zram 64M

# 256 KiB I/Os: about a hundred microseconds each, so that the probes' own cost
# (tens of nanoseconds, in one tracer's time stamps and not the other's)
# stays far below 1%
report_bg z "zram$zid" "
	dd status=none if=/dev/urandom of=/dev/zram$zid bs=256k count=64 oflag=direct &&
	dd status=none if=/dev/zram$zid of=/dev/null bs=256k count=64 iflag=direct"
blk_on "zram$zid" "$TMPD/z.bin"
report_go z
blk_off "$TMPD/z.bin" "$TMPD/z.dump"
# btt calls a bio-based device's Q2C "Q2Cdm" (no requests: no G, no D)
q2c=$(btt_avg "$TMPD/z.dump" Q2Cdm)
[ -n "$q2c" ] || { cat "$TMPD/btt.out" >&2; fail "btt printed no Q2Cdm for zram$zid"; }
compare "zram$zid" "$TMPD/z.json" "$zmm" $((2 * 64 * 262144)) "layer-total:$q2c"
note "zram$zid (bio-based): Q2C within 1% of btt: ok"
