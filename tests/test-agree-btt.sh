#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack report's btt phases against btt itself, on the same I/O at the
# same time. The kernel's blk tracer (blktrace's engine, through tracefs:
# blktrace's debugfs interface is refused under lockdown) records the leaf
# device while `blkstack report -- WORKLOAD` runs; btt reads the blk
# tracer's binary after `blkparse -d`. Then every request phase of the leaf
# (Q2G, G2I, I2D, Q2M, D2C, Q2C) over as many I/Os as btt, and its average
# (btt's "ALL" line: all operations together, so blkstack's per-operation
# figures are weighted by their counts) must agree within 1% (or 2 us, the
# spread of two probes' time stamps on one event, for the shortest phases), and the
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

# btt_avg DUMP PHASE: btt's average of PHASE (Q2C, D2C...) for all devices, in
# ns, and its count: "AVG_NS:N"
btt_avg()
{
	# btt -o NAME writes its tables to NAME.avg
	# in $TMPD: btt writes its per-device *_iops_fp.dat files to the directory it runs in
	(cd "$TMPD" && btt -i "$1" -o "$TMPD/btt") >"$TMPD/btt.err" 2>&1 ||
		{ cat "$TMPD/btt.err" >&2; fail "btt failed on $1"; }
	cp "$TMPD/btt.avg" "$TMPD/btt.out"
	awk -v p="$2" '/^==================== All Devices ====================/ { all = 1 }
		all && $1 == p { printf "%.0f:%d\n", $3 * 1e9, $5; exit }' "$TMPD/btt.out"
}

# btt_phases DUMP: every request phase btt prints for all devices, as
# "PHASE:AVG_NS:N" arguments of compare; a phase btt does not print has N 0
btt_phases()
{
	local p v

	for p in Q2G G2I I2D Q2M D2C Q2C; do
		v=$(btt_avg "$1" "$p")
		echo "$p:${v:-0:0}"
	done
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
    phase, btt_ns, btt_n = arg.split(":")
    btt_ns, btt_n = float(btt_ns), int(btt_n)
    n = total = 0
    for op in layer["ops"].values():
        if phase == "layer-total":
            h = op["total_ns"]
        else:
            h = op.get("btt", {}).get(phase.lower() + "_ns", {"count": 0})
        n += h["count"]
        total += h.get("avg", 0) * h["count"]
    # every phase: the same number of I/Os as btt, and averages within 1%
    if n != btt_n:
        errs.append("%s over %d I/Os, btt over %d" % (phase, n, btt_n))
    if not n or not btt_n:
        print("  %s %s: blkstack over %d, btt over %d" % (name, phase, n, btt_n))
        continue
    avg = total / n
    off = abs(avg - btt_ns) / btt_ns * 100
    print("  %s %s: blkstack %.1f us over %d, btt %.1f us over %d: %.2f%%"
          % (name, phase, avg / 1000, n, btt_ns / 1000, btt_n, off))
    # the two tracers stamp each event in their own probes, one after the
    # other: an interval of a few microseconds (Q2G, Q2M) differs by a
    # fraction of a microsecond, and by tens when an interrupt comes between
    # the two probes of one event (an average of 12 Q2M moved by 1.2 us on a
    # busy machine), which is far more than 1% of it
    if off > 1.0 and abs(avg - btt_ns) > 2000:
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
# read back, 384 KiB written buffered with fsync and read back after the
# caches are dropped. Every bio stays at 384 KiB or less: the loop device
# splits a bio of more than 128 segments (at 512 KiB when its pages are
# scattered, as on a busy machine), and btt leaves a split request out of
# I2D (it cannot tie the pieces to their queue event) where blkstack
# counts it: the phases would be over different requests.
report_bg a "$A_PDEV" "
	dd status=none if=/dev/urandom of=$A_MNT/direct bs=256k count=16 oflag=direct &&
	dd status=none if=$A_MNT/direct of=/dev/null bs=128k count=32 iflag=direct &&
	dd status=none if=/dev/zero of=$A_MNT/buffered bs=4k count=96 conv=fsync &&
	echo 3 > /proc/sys/vm/drop_caches &&
	dd status=none if=$A_MNT/buffered of=/dev/null bs=1M &&
	sync"
blk_on "$A_NAME" "$TMPD/a.bin"
report_go a
blk_off "$TMPD/a.bin" "$TMPD/a.dump"

splits=$(blkparse -q -i - <"$TMPD/a.bin" 2>/dev/null | awk -v d="$A_MM" '$1 == d && $6 == "X"' | wc -l)
[ "$splits" -eq 0 ] ||
	fail "the workload's bios were split at $A_NAME ($splits X events): btt and blkstack count split requests apart"
mapfile -t phases < <(btt_phases "$TMPD/a.dump")
grep -q '^D2C ' "$TMPD/btt.out" && grep -q '^Q2C ' "$TMPD/btt.out" ||
	{ cat "$TMPD/btt.out" >&2; fail "btt printed no D2C or Q2C"; }
# what reached the disk: the report's own end-to-end bytes are checked
# against what the blk tracer saw queued on the disk (blkparse's summary)
bt_bytes=$(blkparse -i - <"$TMPD/a.bin" 2>/dev/null | awk -v d="$A_MM" '
	$1 == d && $6 == "Q" && $9 == "+" { s += $10 } END { print s * 512 }')
compare "ext4 on $A_PNAME" "$TMPD/a.json" "${A_MM/,/:}" "$bt_bytes" "${phases[@]}"
awk '/^[QGIDM]2[GIDMC] /' "$TMPD/btt.out" | head -6 | sed 's/^/  btt: /' >&2
note "ext4 on a loop partition: Q2G, G2I, I2D, Q2M, D2C and Q2C over as many I/Os as btt, within 1% (or 2 us): ok"

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
