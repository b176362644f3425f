#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack report --btt against btt -A itself, table by table, on the same
# I/O at the same time. `blkstack record` records every device (with -d,
# plugs and unplugs, which name no device, are told from the traced
# device's events alone: a task that plugs for another device too can be
# counted at it) while the kernel's blk tracer (see lib-btt.sh) records the
# leaf; btt reads the blk tracer's dump, `report -i --btt` the recording.
# Both print btt's layout, so one parser reads both, and at the leaf device:
#
# - every N, count and size is equal: the phases' N (Per Device), #Q, #D
#   and the block sizes (Merge), NSEEKS, MEDIAN and MODE (Q2Q and D2D
#   seeks), plugs and timer unplugs, I/O active periods;
# - every other figure is within 1%: the phases' MIN, AVG and MAX, the
#   seek MEAN, the requests per unplug, the share of time plugged, the
#   active requests at Q, the active periods; the Q2D histogram's shares
#   within 1 point. Average times within 1% or 1 us (MIN and MAX, single
#   events, 1% or 50 us: an interrupt between the two tracers' probes at
#   one event moves one time stamp, by 15 us seen on a loaded machine),
#   the Device Overhead shares
#   within 1% or 1 us per event of the phase, the share of time plugged within 1% or 0.01
#   points: at each event one tracer's probe runs before the other's, and
#   their time stamps differ by a fraction of a microsecond (more on a busy
#   machine), more than 1% of a 1 us Q2M or of a plug that lasts 1 us. The average time between
#   active periods and their share are not compared: btt measures them
#   from the first event it read, and the two tracers start apart.
#
# 1. ext4 on a partition of a loop device: direct and buffered I/O, with
#    merges (request-based leaf under a remap-only partition);
# 2. zram (bio-based: btt's Q2Qdm and Q2Cdm, its major being 253 here or
#    a plain Q2Q and Q2C).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
# shellcheck source-path=SCRIPTDIR source=lib-btt.sh
. "$(dirname "$0")/lib-btt.sh"
btt_setup

# tables NAME DUMP DAT DEV: btt -A on DUMP against report -i DAT --btt at DEV
tables()
{
	(cd "$TMPD" && btt -A -i "$2" -o "$TMPD/$1.btt") >"$TMPD/$1.btt.err" 2>&1 ||
		{ cat "$TMPD/$1.btt.err" >&2; fail "btt failed on $2"; }
	"$BLKSTACK" report -i "$3" --btt -o "$TMPD/$1.ours" 2>"$TMPD/$1.ours.err" ||
		{ cat "$TMPD/$1.ours.err" >&2; fail "blkstack report -i $3 --btt failed"; }
	python3 - "$1" "$TMPD/$1.btt.avg" "$TMPD/$1.ours" "$4" <<'PY' ||
import re, sys
name, theirs, ours, dev = sys.argv[1:]
ma, mi = dev.split(",")
label = "(%3s,%3s)" % (ma, mi)

def parse(path):
    """(section, table, row) -> fields of every row of device DEV"""
    rows, section, table = {}, None, None
    for line in open(path):
        m = re.match(r"^=+ (.*?) =+$", line)
        if m:
            section, table = m.group(1), None
            continue
        f = line.split()
        if not f:
            continue
        if len(f) >= 5 and f[1:5] == ["MIN", "AVG", "MAX", "N"]:
            table = f[0]
            continue
        if f[0] == "DEV":
            table = " ".join(f[2:])
            continue
        if line.strip().startswith(label):
            rest = line.strip()[len(label):].replace("|", " ").replace("(", " ").replace(")", " ").replace("%", " ")
            rows[(section, table)] = rest.split()
    return rows

a, b = parse(theirs), parse(ours)
errs, n = [], 0
for key in sorted(set(a) | set(b), key=str):
    if key not in a or key not in b:
        errs.append("%s / %s: only in %s" % (key[0], key[1], "btt" if key in a else "blkstack"))
        continue
    x, y = a[key], b[key]
    if len(x) != len(y):
        errs.append("%s / %s: btt %s, blkstack %s" % (key[0], key[1], x, y))
        continue
    for i, (u, v) in enumerate(zip(x, y)):
        if key[0] == "I/O Active Period Information" and i >= 2:
            continue
        n += 1
        what = "%s / %s field %d" % (key[0], key[1], i + 1)
        if re.fullmatch(r"-?\d+", u) and re.fullmatch(r"-?\d+", v):
            if int(u) != int(v):
                errs.append("%s: btt %s, blkstack %s" % (what, u, v))
            continue
        try:
            fu, fv = float(u), float(v)
        except ValueError:
            if u != v:
                errs.append("%s: btt %s, blkstack %s" % (what, u, v))
            continue
        off = abs(fu - fv)
        if key[0] == "Q2D Histogram":
            ok = off <= 1.0
        elif key[0] == "Per Device":
            # MIN and MAX are single events: 50 us; AVG 1 us
            ok = off <= max(abs(fu) * 0.01, 1e-6 if i == 1 else 50e-6)
        elif key[0] == "Device Overhead":
            # 1 us per event of the phase, as a share of all of Q2C
            ph = ("Q2G", "G2I", "Q2M", "I2D", "D2C")[i]
            q2c = a.get(("Per Device", "Q2C"))
            nph = a.get(("Per Device", ph))
            slack = 100 * int(nph[3]) * 1e-6 / (float(q2c[1]) * int(q2c[3])) if q2c and nph else 0
            ok = off <= max(abs(fu) * 0.01, slack)
        elif key[0] == "Plug Information" and i == 2:
            ok = off <= max(abs(fu) * 0.01, 0.01)
        elif key[0].startswith("I/O Active Period") and i in (1, 2):
            # average times, in seconds: 1% or 1 us, as the phases' averages
            ok = off <= max(abs(fu) * 0.01, 1e-6)
        else:
            ok = off <= abs(fu) * 0.01 or off < 5e-10
        if not ok:
            errs.append("%s: btt %s, blkstack %s" % (what, u, v))
print("  %s: %d figures of %d rows compared at %s" % (name, n, len(a), dev))
for e in errs:
    print("  %s: %s" % (name, e))
sys.exit(1 if errs or not n else 0)
PY
		fail "$1: report --btt and btt -A disagree at $4 (tables in $TMPD)"
}

# datafiles NAME DUMP DAT DEV: btt's -l -q -z -Q -s -B files of DUMP and
# convert --to btt-data of DAT: at DEV the same files, each with as many
# rows; latencies (sorted) within 1% or 50 us (one event each, see MIN and
# MAX above), the other columns but time equal (the times count from each
# tracer's first event, which are apart)
datafiles()
{
	mkdir "$TMPD/$1.bd" "$TMPD/$1.ours.bd"
	(cd "$TMPD/$1.bd" && btt -i "$2" -l d2c -q q2c -z q2d -Q aqd -s seek -B bno -o x) \
		>"$TMPD/$1.bd.err" 2>&1 || { cat "$TMPD/$1.bd.err" >&2; fail "btt -l ... failed on $2"; }
	"$BLKSTACK" convert -i "$3" --to btt-data -o "$TMPD/$1.ours.bd" 2>"$TMPD/$1.conv.err" ||
		{ cat "$TMPD/$1.conv.err" >&2; fail "convert --to btt-data failed on $3"; }
	python3 - "$1" "$TMPD/$1.bd" "$TMPD/$1.ours.bd" "$4" <<'PY' ||
import os, sys
name, theirs, ours, dev = sys.argv[1:]
pick = lambda d: sorted(f for f in os.listdir(d) if "_%s_" % dev in f and not f.endswith("fp.dat"))
a, b = pick(theirs), pick(ours)
errs = []
if a != b:
    errs.append("files: btt %s, blkstack %s" % (a, b))
for f in sorted(set(a) & set(b)):
    x = [l.split() for l in open(os.path.join(theirs, f))]
    y = [l.split() for l in open(os.path.join(ours, f))]
    if len(x) != len(y):
        errs.append("%s: btt %d rows, blkstack %d" % (f, len(x), len(y)))
        continue
    if f.split("_")[0] in ("d2c", "q2c", "q2d"):
        u, v = sorted(float(r[1]) for r in x), sorted(float(r[1]) for r in y)
        bad = [(p, q) for p, q in zip(u, v) if abs(p - q) > max(p * 0.01, 50e-6)]
        if bad:
            errs.append("%s: %d of %d latencies apart, first %s" % (f, len(bad), len(u), bad[0]))
    elif sorted(r[1:] for r in x) != sorted(r[1:] for r in y):
        errs.append("%s: rows differ" % f)
print("  %s: %d btt data files compared at %s" % (name, len(a), dev))
for e in errs:
    print("  %s: %s" % (name, e))
sys.exit(1 if errs or not a else 0)
PY
		fail "$1: convert --to btt-data and btt's files disagree at $4 (files in $TMPD)"
}

# --- 1. ext4 on a partition of a loop device --------------------------------

btt_ext4

# blkstack first, the blk tracer second (see test-agree-btt.sh); 4 KiB
# buffered writes and a read back: the writeback merges them. Every bio
# stays at 384 KiB or less: the loop device splits 1 MiB bios (at 512 KiB
# here), and btt follows a bio split at the leaf in ways its output does
# not tell apart (it lets some go and keeps others, whose later G it then
# counts): the comparison would be of different bios.
blkstack_bg a "
	dd status=none if=/dev/urandom of=$A_MNT/direct bs=256k count=16 oflag=direct &&
	dd status=none if=$A_MNT/direct of=/dev/null bs=128k count=32 iflag=direct &&
	dd status=none if=/dev/zero of=$A_MNT/buffered bs=4k count=96 conv=fsync &&
	echo 3 > /proc/sys/vm/drop_caches &&
	dd status=none if=$A_MNT/buffered of=/dev/null bs=128k &&
	sync" record -o "$TMPD/a.dat"
blk_on "$A_NAME" "$TMPD/a.bin"
blkstack_go a
blk_off "$TMPD/a.bin" "$TMPD/a.dump"
tables ext4 "$TMPD/a.dump" "$TMPD/a.dat" "$A_MM"
datafiles ext4 "$TMPD/a.dump" "$TMPD/a.dat" "$A_MM"
note "ext4 on a loop partition: btt's tables and data files at $A_NAME agree: ok"

# --- 2. zram: a bio-based leaf ---------------------------------------------

btt_zram 64M

blkstack_bg z "
	dd status=none if=/dev/urandom of=/dev/zram$zid bs=256k count=64 oflag=direct &&
	dd status=none if=/dev/zram$zid of=/dev/null bs=256k count=64 iflag=direct" \
	record -o "$TMPD/z.dat"
blk_on "zram$zid" "$TMPD/z.bin"
blkstack_go z
blk_off "$TMPD/z.bin" "$TMPD/z.dump"
tables zram "$TMPD/z.dump" "$TMPD/z.dat" "${zmm/:/,}"
datafiles zram "$TMPD/z.dump" "$TMPD/z.dat" "${zmm/:/,}"
note "zram$zid (bio-based): btt's tables and data files agree: ok"
