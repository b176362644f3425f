#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack report --btt against btt -A itself, table by table, on the same
# I/O at the same time. `blkstack record` records every device (with -d,
# plugs and unplugs, which name no device, are told from the traced
# device's events alone: a task that plugs for another device too can be
# counted at it) while the kernel's blk tracer (see lib-btt.sh) records the
# leaf. Two tracers on one event stamp it apart: their probes run one after
# the other, and an interrupt, or the hypervisor taking the vCPU, can come
# between them (by milliseconds on a loaded VM). So the comparison is in
# three steps, each exact where it can be:
#
# 1. the events: the blk tracer's and the recording's (`convert --to
#    blktrace`) at the leaf are the same, each action, sector, size and
#    process as often in both (an unplug and a timer unplug as one: the
#    event does not record which, see events); their times apart by the
#    probes' gap alone (99% of them within 50 us of the usual offset
#    between the dumps);
# 2. the engine: `report -i --btt` prints exactly what btt -A prints on
#    the recording converted for it, every figure of every table at the
#    leaf (to the last digit printed, or one unit of it: btt sums some
#    figures in floating point), and `convert --to btt-data` writes btt's -l -q -z -Q -s -m -B
#    files and its iops and mbps files with the same rows (the system's
#    too, of every device);
# 3. the counts against btt on the blk tracer's own dump: the phases' N,
#    #Q, #D, NSEEKS, MEDIAN and MODE, plugs and timer unplugs together,
#    I/O active periods, and as many rows in each data file (but for the
#    rows per second: see datafiles).
#
# On two leaves:
#
# - ext4 on a partition of a loop device: direct and buffered I/O, with
#   merges (request-based leaf under a remap-only partition);
# - zram (bio-based: btt's Q2Qdm and Q2Cdm, its major being 253 here, or
#   a plain Q2Q and Q2C).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
# shellcheck source-path=SCRIPTDIR source=lib-btt.sh
. "$(dirname "$0")/lib-btt.sh"
btt_setup

# converted NAME DAT: the recording as btt's input, NAME.cdump
converted()
{
	mkdir "$TMPD/$1.conv"
	"$BLKSTACK" convert -i "$2" --to blktrace -o "$TMPD/$1.conv/c" 2>"$TMPD/$1.conv.err" ||
		{ cat "$TMPD/$1.conv.err" >&2; fail "convert --to blktrace failed on $2"; }
	(cd "$TMPD/$1.conv" && blkparse -q -i c -d "$TMPD/$1.cdump" -o /dev/null) \
		>"$TMPD/$1.cbp.err" 2>&1 ||
		{ cat "$TMPD/$1.cbp.err" >&2; fail "blkparse could not read convert's output of $2"; }
}

# events NAME DUMP CDUMP DEV: the same events at DEV in both of btt's
# inputs (blktrace's binary records), their times apart by the probes' gap
events()
{
	python3 - "$@" <<'PY' || fail "$1: the blk tracer and the recording saw different events at $4"
import collections, struct, sys
name, theirs, ours, dev = sys.argv[1:]
ma, mi = map(int, dev.split(","))
NOTIFY = 1 << (10 + 16)         # BLK_TC_NOTIFY: process names, not I/O

UNPLUG_IO, UNPLUG_TIMER = 10, 11
# An unplug's kind (U, explicit; UT, from the scheduler as the task went
# to sleep) is an argument of the block_unplug tracepoint that its event
# does not record: the blk tracer has it, blkstack tells it from what
# follows (the requests issued at once, or left to kblockd). The two are
# one action here; how often the kinds differ is said, not failed.
kinds = collections.Counter()

def events(path):
    """(action, sector, bytes, pid) -> its time stamps, at DEV"""
    data, o, ev = open(path, "rb").read(), 0, collections.defaultdict(list)
    while o + 48 <= len(data):
        _, _, t, sector, nbytes, action, pid, device, _, _, pdu = \
            struct.unpack_from("<IIQQIIIIIHH", data, o)
        o += 48 + pdu
        if device == (ma << 20 | mi) and not action & NOTIFY:
            if action & 0xffff == UNPLUG_TIMER:
                action = (action & ~0xffff) | UNPLUG_IO
                kinds[path] += 1
            ev[(action, sector, nbytes, pid)].append(t)
    return ev

a, b = events(theirs), events(ours)
if kinds[theirs] != kinds[ours]:
    print("  %s: timer unplugs (UT) among the unplugs: %d to the blk tracer, %d told by blkstack"
          % (name, kinds[theirs], kinds[ours]))
errs = ["action %#x sector %d bytes %d pid %d: %d in btt's input, %d in the recording"
        % (k + (len(a[k]), len(b[k]))) for k in sorted(set(a) | set(b)) if len(a[k]) != len(b[k])]
# blkparse -d counts time from each input's first event: the two dumps
# are apart by one offset, the same for every event but the probes' gap
off = sorted(y - x for k in a for x, y in zip(sorted(a[k]), sorted(b[k])))
n = sum(map(len, a.values()))
if not off:
    errs.append("no event at %s" % dev)
else:
    usual = off[len(off) // 2]
    gap = sorted(abs(d - usual) for d in off)
    late = sum(g > 50000 for g in gap)
    print("  %s: %d events at %s in both; apart by %d ns at the median, %d ns at most"
          % (name, n, dev, gap[len(gap) // 2], gap[-1]))
    if late > len(gap) // 100:
        errs.append("%d of %d events more than 50 us apart" % (late, len(gap)))
for e in errs[:20]:
    print("  %s: %s" % (name, e))
sys.exit(1 if errs else 0)
PY
}

# tables NAME DUMP OURS DEV HOW: btt -A on DUMP against OURS (report
# --btt) at DEV; HOW is "exact" (every figure) or "counts" (the integers)
tables()
{
	(cd "$TMPD" && btt -A -i "$2" -o "$TMPD/$1.btt") >"$TMPD/$1.btt.err" 2>&1 ||
		{ cat "$TMPD/$1.btt.err" >&2; fail "btt failed on $2"; }
	python3 - "$1" "$TMPD/$1.btt.avg" "$3" "$4" "$5" <<'PY' ||
import re, sys
name, theirs, ours, dev, how = sys.argv[1:]
ma, mi = dev.split(",")
label = "(%3s,%3s)" % (ma, mi)

def parse(path):
    """(section, table) -> fields of the row of device DEV"""
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
    # btt counts an unplug of a plugged queue in # Plugs when explicit (U),
    # in # Timer Us when not (UT): blkstack's kind of an unplug is told, not
    # recorded (see events), so the plugs are compared as their sum
    if how == "counts" and key[0] == "Plug Information" and \
            all(re.fullmatch(r"\d+", f) for f in x[:2] + y[:2]):
        x = [str(int(x[0]) + int(x[1]))] + x[1:]
        y = [str(int(y[0]) + int(y[1]))] + y[1:]
    for i, (u, v) in enumerate(zip(x, y)):
        counted = re.fullmatch(r"-?\d+", u) and re.fullmatch(r"-?\d+", v)
        if how == "counts" and not counted:
            continue
        # the active periods' averages count from each tracer's first event
        if how == "counts" and key[0] == "I/O Active Period Information" and i >= 2:
            continue
        # timer unplugs: in the sum above
        if how == "counts" and key[0] == "Plug Information" and i == 1:
            continue
        n += 1
        # one unit apart in the last digit printed is rounding: btt sums
        # some figures in floating point, blkstack in integer nanoseconds
        m, w = re.fullmatch(r"-?\d+\.(\d+)", u), re.fullmatch(r"-?\d+\.(\d+)", v)
        if u != v and not (m and w and len(m.group(1)) == len(w.group(1)) and
                           abs(float(u) - float(v)) <= 1.01 * 10 ** -len(m.group(1))):
            errs.append("%s / %s field %d: btt %s, blkstack %s" % (key[0], key[1], i + 1, u, v))
print("  %s: %d figures of %d rows compared at %s (%s)" % (name, n, len(a), dev, how))
for e in errs:
    print("  %s: %s" % (name, e))
sys.exit(1 if errs or not n else 0)
PY
		fail "$1: report --btt and btt -A disagree at $4 (tables in $TMPD)"
}

# datafiles NAME DUMP OURS DEV HOW: btt's -l -q -z -Q -s -m -B files of
# DUMP, and the iops and mbps files it writes always, and those in OURS
# (convert --to btt-data) at DEV: the same files, each with as many rows;
# with HOW "exact" the same rows too (in any order: btt writes them as its
# hash gives them back), and the system's files (all devices) as well
datafiles()
{
	mkdir "$TMPD/$1.bd"
	(cd "$TMPD/$1.bd" && btt -i "$2" -l d2c -q q2c -z q2d -Q aqd -s seek -m sps -B bno -o x) \
		>"$TMPD/$1.bd.err" 2>&1 || { cat "$TMPD/$1.bd.err" >&2; fail "btt -l ... failed on $2"; }
	python3 - "$1" "$TMPD/$1.bd" "$3" "$4" "$5" <<'PY' ||
import collections, os, sys
name, theirs, ours, dev, how = sys.argv[1:]

def at_dev(f):
    """a file of DEV: d2c_DEV_d2c.dat, sps_DEV.dat, DEV_iops_fp.dat..."""
    if f.endswith("fp.dat"):
        # the system's (sys_*): btt on the blk tracer's dump saw the leaf
        # alone, the recording every device
        return f.startswith(dev + "_") or (how == "exact" and f.startswith("sys_"))
    return "_%s_" % dev in f or f == "sps_%s.dat" % dev

pick = lambda d: sorted(f for f in os.listdir(d) if at_dev(f))
rows = lambda d, f: sorted(open(os.path.join(d, f)))
a, b = pick(theirs), pick(ours)
errs = []
if a != b:
    errs.append("files: btt %s, blkstack %s" % (a, b))
for f in sorted(set(a) & set(b)):
    x, y = rows(theirs, f), rows(ours, f)
    if how == "exact":
        cx, cy = collections.Counter(x), collections.Counter(y)
        apart = sorted(((cx - cy) + (cy - cx)).elements())
        if apart:
            errs.append("%s: btt %d rows, blkstack %d, %d in one only, the first %r"
                        % (f, len(x), len(y), len(apart), apart[0]))
    elif f.endswith("fp.dat"):
        # A row per whole second since each tracer's first event, which is
        # not the same event: the blk tracer starts after blkstack, so the
        # seconds' edges fall elsewhere in the I/O, and a busy stretch can
        # touch one second more or fewer (as 59 minutes fall in one hour
        # of the clock or in two). The workloads here leave no idle second
        # (the seconds touched are one run): as many rows, or one more or
        # fewer. What the rows count does not move: the same completions
        # and MiB in all.
        tx = sum(float(r.split()[1]) for r in x)
        ty = sum(float(r.split()[1]) for r in y)
        if abs(len(x) - len(y)) > 1:
            errs.append("%s: btt %d rows, blkstack %d (one apart at most)" % (f, len(x), len(y)))
        if abs(tx - ty) > 1e-6 * (len(x) + len(y)):
            errs.append("%s: btt %s in all, blkstack %s" % (f, tx, ty))
    elif len(x) != len(y):
        errs.append("%s: btt %d rows, blkstack %d" % (f, len(x), len(y)))
print("  %s: %d btt data files compared at %s (%s)" % (name, len(a), dev, how))
for e in errs:
    print("  %s: %s" % (name, e))
sys.exit(1 if errs or not a else 0)
PY
		fail "$1: convert --to btt-data and btt's files disagree at $4 (files in $TMPD)"
}

# agree NAME DUMP DAT DEV: the three steps of the header for one leaf
agree()
{
	converted "$1" "$3"
	events "$1" "$2" "$TMPD/$1.cdump" "$4"
	"$BLKSTACK" report -i "$3" --btt -o "$TMPD/$1.ours" 2>"$TMPD/$1.ours.err" ||
		{ cat "$TMPD/$1.ours.err" >&2; fail "blkstack report -i $3 --btt failed"; }
	tables "$1.engine" "$TMPD/$1.cdump" "$TMPD/$1.ours" "$4" exact
	tables "$1.kernel" "$2" "$TMPD/$1.ours" "$4" counts
	mkdir "$TMPD/$1.ours.bd"
	"$BLKSTACK" convert -i "$3" --to btt-data -o "$TMPD/$1.ours.bd" 2>"$TMPD/$1.bd.err" ||
		{ cat "$TMPD/$1.bd.err" >&2; fail "convert --to btt-data failed on $3"; }
	datafiles "$1.engine" "$TMPD/$1.cdump" "$TMPD/$1.ours.bd" "$4" exact
	datafiles "$1.kernel" "$2" "$TMPD/$1.ours.bd" "$4" rows
}

# --- 1. ext4 on a partition of a loop device --------------------------------

btt_ext4

# blkstack first, the blk tracer second (see test-agree-btt.sh); 4 KiB
# buffered writes and a read back: the writeback merges them. Every bio
# stays at 384 KiB or less: the loop device splits 1 MiB bios (at 512 KiB
# here), and btt follows a bio split at the leaf in ways its output does
# not tell apart (it lets some go and keeps others, whose later G it then
# counts): the comparison would be of different bios. The pauses spread
# the I/O over a few seconds, with no idle second, for the rows per second
# (see datafiles).
blkstack_bg a "
	dd status=none if=/dev/urandom of=$A_MNT/direct bs=256k count=16 oflag=direct &&
	sleep 0.6 &&
	dd status=none if=$A_MNT/direct of=/dev/null bs=128k count=32 iflag=direct &&
	sleep 0.6 &&
	dd status=none if=/dev/zero of=$A_MNT/buffered bs=4k count=96 conv=fsync &&
	sleep 0.6 &&
	echo 3 > /proc/sys/vm/drop_caches &&
	dd status=none if=$A_MNT/buffered of=/dev/null bs=128k &&
	sync" record -o "$TMPD/a.dat"
blk_on "$A_NAME" "$TMPD/a.bin"
blkstack_go a
blk_off "$TMPD/a.bin" "$TMPD/a.dump"
agree ext4 "$TMPD/a.dump" "$TMPD/a.dat" "$A_MM"
note "ext4 on a loop partition: btt's tables and data files at $A_NAME agree: ok"

# --- 2. zram: a bio-based leaf ---------------------------------------------

btt_zram 64M

blkstack_bg z "
	dd status=none if=/dev/urandom of=/dev/zram$zid bs=256k count=32 oflag=direct &&
	sleep 0.6 &&
	dd status=none if=/dev/urandom of=/dev/zram$zid bs=256k count=32 seek=32 oflag=direct &&
	sleep 0.6 &&
	dd status=none if=/dev/zram$zid of=/dev/null bs=256k count=64 iflag=direct" \
	record -o "$TMPD/z.dat"
blk_on "zram$zid" "$TMPD/z.bin"
blkstack_go z
blk_off "$TMPD/z.bin" "$TMPD/z.dump"
agree zram "$TMPD/z.dump" "$TMPD/z.dat" "${zmm/:/,}"
note "zram$zid (bio-based): btt's tables and data files agree: ok"
