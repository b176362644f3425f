#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# report --btt, report --iostat and top -x on the real dm-stack recordings
# of tests/fixtures/vm, against blkstack parse's log of the same file:
#
# - --btt prints btt -A's sections in btt's order, and at every device its
#   #D is the number of D events with data in the log (btt counts each);
# - --iostat counts at every request-based device as many completed
#   requests, and as many kB, as the log has C events and sectors there;
# - top -x's intervals add up to --iostat's whole: the sum over intervals
#   of each device's r/s and w/s times the interval is its requests;
# - --amplification's served and issued bytes at each layer add up to the
#   per-layer report's bytes there, and the top-level bytes to the end to
#   end bytes;
# - diff of a recording with itself changes nothing, and its I/Os are the
#   report's; diff with the next recording gives each side's I/Os;
# - --btt is btt -A on the same events, figure for figure: convert -F
#   blktrace, blkparse -d and btt -A give btt's tables, and every row of
#   every section must be ours exactly (Per Process too: the converter
#   notes a task whose first event is a completion by the recording's
#   saved_cmdlines, as the kernel notes it, where btt would name it
#   "pidNNN");
# - convert --to btt-data writes btt's -l -q -z -Q -s -B files and its
#   iops and mbps files: the same files, the same rows (sorted: btt writes
#   them in its hash's order); the sps_*.dat of -m, which reproduce a
#   stdio quirk of btt's, are compared by test-convert-fixtures.sh.
#
# Needs no root; the comparisons with btt need blkparse and btt (blktrace).
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }

have_btt=1
command -v blkparse >/dev/null && command -v btt >/dev/null ||
	{ have_btt=0; echo "note: blkparse or btt missing (apt-get install blktrace): the comparisons with btt are skipped"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# same_as_btt DAT NAME: report --btt and convert --to btt-data on DAT against
# btt on DAT's events converted to blktrace files
same_as_btt()
{
	rm -rf "$tmp/bt" "$tmp/ob"
	mkdir -p "$tmp/bt/bd" "$tmp/ob"
	"$BLKSTACK" convert -i "$1" -F blktrace -o "$tmp/bt/c" 2>"$tmp/err" &&
		(cd "$tmp/bt" && blkparse -q -i c -d d -o /dev/null && btt -A -i d -o bt &&
			cd bd && btt -i ../d -l d2c -q q2c -z q2d -Q aqd -s seek -B bno -o x) \
			>>"$tmp/err" 2>&1 &&
		"$BLKSTACK" convert -i "$1" --to btt-data -o "$tmp/ob" 2>>"$tmp/err" ||
		{ echo "FAIL $2: btt's or blkstack's tables: $(cat "$tmp/err")"; return 1; }
	python3 - "$tmp" "$2" <<'PY'
import collections, os, re, sys
tmp, name = sys.argv[1], sys.argv[2]
errors = []

def rows(path):
    """every row of btt's tables, under its section and table"""
    out, section, table = [], None, None
    for line in open(path):
        m = re.match(r"^=+ (.*?) =+$", line)
        if m:
            section, table = m.group(1), None
            continue
        m = re.match(r"^\s*(\S+)\s+MIN\s+AVG\s+MAX\s+N\s*$", line)
        if m:
            table = m.group(1)
        if line.strip():
            out.append(("%s / %s" % (section, table) if table else section, line.rstrip("\n")))
    return out

theirs, ours = rows(tmp + "/bt/bt.avg"), rows(tmp + "/btt.txt")
if theirs != ours:
    a, b = collections.Counter(theirs), collections.Counter(ours)
    for s, l in sorted((a - b).elements()):
        errors.append("btt's row not ours: [%s] %s" % (s, l))
    for s, l in sorted((b - a).elements()):
        errors.append("our row not btt's: [%s] %s" % (s, l))
    if not errors:
        errors.append("the rows are btt's in another order")

# btt's data files; its -o x writes its tables (x.avg, x.dat, x_*hist.dat) there too
data = lambda d, keep: sorted(f for f in os.listdir(d) if keep(f))
a = data(tmp + "/bt/bd", lambda f: f.endswith(".dat") and not f.startswith("x"))
b = data(tmp + "/ob", lambda f: f.endswith(".dat") and not f.startswith("sps_"))
if a != b:
    errors.append("btt data files: btt %s, blkstack %s" % (sorted(set(a) - set(b)), sorted(set(b) - set(a))))
for f in sorted(set(a) & set(b)):
    x = sorted(open(os.path.join(tmp, "bt/bd", f)))
    y = sorted(open(os.path.join(tmp, "ob", f)))
    if x != y:
        cx, cy = collections.Counter(x), collections.Counter(y)
        errors.append("%s: %d rows btt's only, %d ours only, the first %r" %
                      (f, sum((cx - cy).values()), sum((cy - cx).values()),
                       sorted(((cx - cy) + (cy - cx)).elements())[0]))
for e in errors[:20]:
    print("FAIL %s: %s" % (name, e))
print("%s: btt's tables and data files: %s" % (name, "the same" if not errors else "%d differences" % len(errors)))
sys.exit(1 if errors else 0)
PY
}
# each recording is also compared with the one before it (the last with the first)
prev=$(ls "$FIXTURES"/vm/*.dat | tail -n 1)
for dat in "$FIXTURES"/vm/*.dat; do
	name=$(basename "$dat")
	"$BLKSTACK" report -i "$dat" --btt -o "$tmp/btt.txt" 2>"$tmp/err" &&
		"$BLKSTACK" report -i "$dat" --btt --json -o "$tmp/btt.json" 2>>"$tmp/err" &&
		"$BLKSTACK" report -i "$dat" --iostat --json -o "$tmp/ios.json" 2>>"$tmp/err" &&
		"$BLKSTACK" top -x -i "$dat" 0.05 -o "$tmp/top.txt" 2>>"$tmp/err" &&
		"$BLKSTACK" report -i "$dat" --amplification --json -o "$tmp/amp.json" 2>>"$tmp/err" &&
		"$BLKSTACK" diff --json -o "$tmp/self.json" "$dat" "$dat" 2>>"$tmp/err" &&
		"$BLKSTACK" diff --json -o "$tmp/other.json" "$dat" "$prev" 2>>"$tmp/err" &&
		"$BLKSTACK" report -i "$prev" --json -o "$tmp/prev.json" 2>>"$tmp/err" &&
		"$BLKSTACK" parse -i "$dat" --no-summary -o "$tmp/p.txt" 2>>"$tmp/err" ||
		{ echo "FAIL $name: $(cat "$tmp/err")"; failed=1; continue; }
	if ! python3 - "$tmp" "$name" <<'PY'; then
import json, re, sys
from collections import defaultdict
tmp, name = sys.argv[1], sys.argv[2]
errors = []

sections = [m.group(1) for m in (re.match(r"^=+ (.*) =+$", l) for l in open(tmp + "/btt.txt")) if m]
want = ["Per Process", "Per Device", "All Devices", "Device Overhead",
        "Device Merge Information", "Device Q2Q Seek Information",
        "Device D2D Seek Information", "Plug Information",
        "Active Requests At Q Information", "I/O Active Period Information",
        "Q2D Histogram"]
if sections != want:
    errors.append("btt sections %s" % sections)

issues, comps, sectors = defaultdict(int), defaultdict(int), defaultdict(int)
for line in open(tmp + "/p.txt"):
    f = line.split()
    if len(f) < 10 or not f[0][0].isdigit() or f[8] != "+":
        continue
    dev = f[0].replace(",", ":")
    n = int(f[9])
    if f[5] == "D" and n:
        issues[dev] += 1
    if f[5] == "C" and n:
        comps[dev] += 1
        sectors[dev] += n
for d in json.load(open(tmp + "/btt.json"))["devices"]:
    if d["merge"]["d"] != issues[d["dev"]]:
        errors.append("btt #D at %s: %d, the log has %d" % (d["dev"], d["merge"]["d"], issues[d["dev"]]))

ios = json.load(open(tmp + "/ios.json"))
secs = ios["interval_ns"] / 1e9
total = {}
for d in ios["devices"]:
    reqs = (d["r/s"] + d["w/s"] + d["d/s"]) * secs
    total[d["name"]] = (d["r/s"] * secs, d["w/s"] * secs)
    if not d["request_based"]:
        continue
    if abs(reqs - comps[d["dev"]]) > 0.5:
        errors.append("iostat at %s: %.1f requests, the log %d C" % (d["dev"], reqs, comps[d["dev"]]))
    kb = (d["rkB/s"] + d["wkB/s"] + d["dkB/s"]) * secs
    if abs(kb - sectors[d["dev"]] / 2) > 0.5:
        errors.append("iostat at %s: %.1f kB, the log %d sectors" % (d["dev"], kb, sectors[d["dev"]]))

# top -x: "+T.TTTs" then a header and rows: rate x the interval, summed
summed = defaultdict(lambda: [0.0, 0.0])
last = 0.0
for line in open(tmp + "/top.txt"):
    m = re.match(r"^\+(\d+\.\d+)s$", line)
    if m:
        t = float(m.group(1))
        # the last interval ends with the trace, less than a millisecond
        # after the label before it may: its length is what the trace has left
        length, last = (t - last if t > last else secs - last), t
        continue
    f = line.split()
    if len(f) == 23 and f[0] in total:
        summed[f[0]][0] += float(f[1]) * length
        summed[f[0]][1] += float(f[7]) * length
for dev, (r, w) in total.items():
    sr, sw = summed[dev]
    # two decimals per interval of 50 ms: 0.005/s x 0.05 s per interval
    if abs(sr - r) > 1 or abs(sw - w) > 1:
        errors.append("top -x at %s: %.1f reads, %.1f writes; --iostat %.1f, %.1f" % (dev, sr, sw, r, w))
rep = json.load(open(tmp + "/amp.json"))
amp = rep["amplification"]
layer_bytes = {l["dev"]: sum(o["bytes"] for o in l["ops"].values()) for l in rep["layers"]}
for l in amp["layers"]:
    if l["served_bytes"] + l["issued_bytes"] != layer_bytes.get(l["dev"], -1):
        errors.append("amplification at %s: %d + %d bytes, the report %d" % (l["dev"],
                      l["served_bytes"], l["issued_bytes"], layer_bytes.get(l["dev"], -1)))
e2e = sum(e["bytes"] for e in rep["end_to_end"].values())
if amp["top_level_bytes"] != e2e:
    errors.append("amplification: %d top-level bytes, end to end %d" % (amp["top_level_bytes"], e2e))
def ios_of(doc):
    return {(l["dev"], op): o["ios"] for l in doc["layers"] for op, o in l["ops"].items() if o["ios"]}
mine, theirs = ios_of(rep), ios_of(json.load(open(tmp + "/prev.json")))
for path, other in (("/self.json", mine), ("/other.json", theirs)):
    d = json.load(open(tmp + path))
    got_a, got_b = {}, {}
    for l in d["layers"]:
        for op, figs in l["ops"].items():
            if figs["ios"]["a"] is not None:
                got_a[(l["dev"], op)] = round(figs["ios"]["a"])
            if figs["ios"]["b"] is not None:
                got_b[(l["dev_b"], op)] = round(figs["ios"]["b"])
            if path == "/self.json":
                for m, v in figs.items():
                    if v["change_pct"] not in (None, 0) and abs(v["change_pct"]) > 1e-9:
                        errors.append("diff with itself: %s %s %s changed %s" % (l["dev"], op, m, v["change_pct"]))
    if got_a != mine or got_b != other:
        errors.append("diff %s: I/Os differ from the reports'" % path)
for e in errors:
    print("FAIL %s: %s" % (name, e))
print("%s: %s" % (name, "ok" if not errors else "%d errors" % len(errors)))
sys.exit(1 if errors else 0)
PY
		failed=1
	fi
	if [ "$have_btt" = 1 ] && ! same_as_btt "$dat" "$name"; then
		failed=1
	fi
	prev=$dat
done
exit "$failed"
