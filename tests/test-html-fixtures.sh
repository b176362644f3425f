#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# report --slowest, --html and --by flag on every real dm-stack recording of
# tests/fixtures/vm (their .topo stacks name the layers). Needs no root.
#
#  - the HTML page is written, self-contained (no script, style, font or
#    image from elsewhere: its scripts are inline), under 2 MB, and names
#    every layer of the report in its stack tree, with that layer's I/O
#    count from report --json;
#  - the slowest top-level I/Os are the CSV rows of "convert --to csv" with
#    the largest latency (no top-level row is slower than the last one kept,
#    ties ordered by queue time), and per layer their times and spans are
#    the row's;
#  - --by flag counts, per layer and operation, as many I/Os as the report;
#  - the outputs the report had before (without these options) are unchanged;
#  - a page that cannot be written is an error before anything is read.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0

for dat in "$FIXTURES"/vm/*.dat; do
	name=$(basename "$dat" .dat)
	topo=${dat%.dat}.topo
	out=$tmp/$name
	n=$((n + 1))
	mkdir "$out"
	if ! "$BLKSTACK" report -i "$dat" --topology "$topo" --json --slowest 20 --access \
		--html "$out/r.html" -o "$out/r.json" 2>"$out/err"; then
		echo "FAIL $name: report --html failed: $(cat "$out/err")"
		failed=1
		continue
	fi
	"$BLKSTACK" report -i "$dat" --topology "$topo" --json -o "$out/plain.json"
	"$BLKSTACK" report -i "$dat" --topology "$topo" --by flag --json -o "$out/flag.json"
	"$BLKSTACK" convert -i "$dat" --topology "$topo" --to csv -o "$out/rows.csv" 2>/dev/null
	"$BLKSTACK" top -i "$dat" --access 0.05 -o "$out/top.txt"
	"$BLKSTACK" top -i "$dat" 0.05 -o "$out/top-plain.txt"
	if ! python3 - "$out" "$name" <<'PY'; then
import csv, json, os, re, sys
out, name = sys.argv[1], sys.argv[2]
rep = json.load(open(out + "/r.json"))
plain = json.load(open(out + "/plain.json"))
flag = json.load(open(out + "/flag.json"))
page = open(out + "/r.html").read()
bad = []

# the report without the new options is the same document, less "slowest"
extra = {k: rep.pop(k) for k in ("slowest", "slowest_of", "access", "access_last_ns",
                                  "access_out_of_order")}
if rep != plain:
    bad.append("report --json changed with --slowest/--html")

# self-contained and bounded
if os.path.getsize(out + "/r.html") > 2 * 1024 * 1024:
    bad.append("page over 2 MB")
# the markup refers to nothing outside the page (the inlined library's
# licence comment names its home, as text)
markup = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.S)
for pat in (r"<script[^>]*\ssrc=", r"<link", r"\ssrc=", r"\shref=\"(?!#)", r"url\(", r"@import",
            r"https?://(?!www\.w3\.org/2000/svg)"):
    if re.search(pat, markup if pat[0] != "<" else page):
        bad.append("page refers to something outside it: " + pat)

# every layer in the stack diagram, with its I/Os
boxes = {m.group(1): m for m in re.finditer(
    r'<tr class="layer" data-dev="([^"]+)" data-name="([^"]*)" data-ios="(\d+)" data-bytes="(\d+)"', page)}
for l in rep["layers"]:
    ios = sum(o["ios"] for o in l["ops"].values())
    by = sum(o["bytes"] for o in l["ops"].values())
    m = boxes.get(l["dev"])
    if not m:
        bad.append("layer %s not in the stack tree" % l["dev"])
    elif m.group(2) != l.get("name", l["dev"]) or int(m.group(3)) != ios or int(m.group(4)) != by:
        bad.append("layer %s: tree %s %s %s, JSON %s %d %d" % (l["dev"], m.group(2), m.group(3),
                   m.group(4), l.get("name"), ios, by))

# the slowest against the CSV rows
rows = [r for r in csv.DictReader(open(out + "/rows.csv"))
        if r["top"] == "1" and r["q_ns"] and r["c_ns"]]
slow = extra["slowest"]
if extra["slowest_of"] != len(rows):
    bad.append("slowest_of %d, CSV has %d top-level rows" % (extra["slowest_of"], len(rows)))
want = sorted(rows, key=lambda r: (-int(r["latency_ns"]), int(r["q_ns"]), int(r["io"])))[:20]
if [s["latency_ns"] for s in slow] != [int(r["latency_ns"]) for r in want]:
    bad.append("slowest latencies %s, CSV %s" % ([s["latency_ns"] for s in slow][:5],
               [int(r["latency_ns"]) for r in want][:5]))
byq = {}
for r in rows:
    byq.setdefault((r["dev"], r["q_ns"], r["sector"]), []).append(r)
def ns(v):
    return None if v == "" else int(v)
for s in slow:
    cands = byq.get((s["dev"], str(s["q_ns"]), str(s["sector"])), [])
    r = next((c for c in cands if int(c["latency_ns"]) == s["latency_ns"]), None)
    if not r:
        bad.append("slow I/O #%d (%s q %d) is no CSV row" % (s["rank"], s["dev"], s["q_ns"]))
        continue
    if r["pid"] != str(s["pid"]) or r["comm"] != s["comm"] or int(r["nlayers"]) != len(s["layers"]):
        bad.append("slow I/O #%d: process or layers differ from its row" % s["rank"])
    for i, l in enumerate(s["layers"][:8]):
        p = "l%d_" % i
        got = (l["dev"], l["q_ns"], l["c_ns"], l["submission_ns"], l["below_ns"],
               l["completion_ns"], l["total_ns"])
        exp = (r[p + "dev"], ns(r[p + "q_ns"]), ns(r[p + "c_ns"]), ns(r[p + "sub_ns"]),
               ns(r[p + "below_ns"]), ns(r[p + "comp_ns"]), ns(r[p + "total_ns"]))
        if got != exp:
            bad.append("slow I/O #%d layer %d: %s, CSV %s" % (s["rank"], i, got, exp))
# the page draws them, in order, with the same latencies
drawn = [int(x) for x in re.findall(r'class="slow-io static" data-rank="\d+" data-latency-ns="(\d+)"', page)]
if drawn != [s["latency_ns"] for s in slow]:
    bad.append("page's slowest %s, JSON %s" % (drawn[:5], [s["latency_ns"] for s in slow][:5]))

# --by flag: per layer and operation, every I/O with a total latency counted once
for l in rep["layers"]:
    for op, o in l["ops"].items():
        got = sum(f["total_ns"]["count"] for f in flag["by_flag"]
                  if f["dev"] == l["dev"] and f["op"] == op)
        if got != o["total_ns"]["count"]:
            bad.append("by flag %s %s: %d, report %d" % (l["dev"], op, got, o["total_ns"]["count"]))

# --access: per layer and direction, every read and write with both ends
# seen, once; the average in flight is their summed time over the span
acc = {a["dev"]: a for a in extra["access"]}
if extra["access_out_of_order"]:
    bad.append("%d access events out of order" % extra["access_out_of_order"])
for l in rep["layers"]:
    a = acc.get(l["dev"])
    if not a:
        bad.append("layer %s has no access pattern" % l["dev"])
        continue
    for op in ("read", "write"):
        want = l["ops"].get(op, {}).get("total_ns", {}).get("count", 0)
        got = a.get(op, {}).get("ios", 0)
        if got != want:
            bad.append("access %s %s: %d I/Os, report %d" % (l["dev"], op, got, want))
        if op in a and not 0 <= a[op]["sequential"] < max(a[op]["ios"], 1):
            bad.append("access %s %s: %d sequential of %d" % (l["dev"], op, a[op]["sequential"],
                       a[op]["ios"]))
    busy = sum(o["total_ns"]["avg"] * o["total_ns"]["count"] for o in l["ops"].values()
               if o["total_ns"]["count"])
    span = extra["access_last_ns"] - a["inflight"]["from_ns"]
    if span > 0 and abs(a["inflight"]["avg"] - busy / span) > 0.01 * busy / span + 1e-3:
        bad.append("in flight at %s: %.4f, summed latency over the span %.4f" % (l["dev"],
                   a["inflight"]["avg"], busy / span))
# top --access: INFLT is the interval's summed latency over its length
# (IO/s x TOT_AVG_us / 1e6, within their rounding), SEQ% a share; without
# --access, the same tables without the two columns
tables = 0
for line in open(out + "/top.txt"):
    f = line.split()
    if f and f[0] == "LAYER":
        tables += 1
        cols = f
        if cols[-2:] != ["INFLT", "SEQ%"]:
            bad.append("top --access header %s" % cols)
            break
        continue
    if tables and len(f) == len(cols) and f[1] in ("read", "write", "flush", "discard", "other"):
        row = dict(zip(cols, f))
        if row["TOT_AVG_us"] != "-":
            want = float(row["IO/s"]) * float(row["TOT_AVG_us"]) / 1e6
            if abs(float(row["INFLT"]) - want) > 0.006 + 0.03 * want:
                bad.append("top INFLT %s, IO/s x TOT_AVG %.3f: %s" % (row["INFLT"], want, line.strip()))
        if row["SEQ%"] != "-" and not 0 <= float(row["SEQ%"]) <= 100:
            bad.append("top SEQ%% %s" % row["SEQ%"])
plain = [l.split()[:15] for l in open(out + "/top-plain.txt")]
withacc = [l.split()[:15] for l in open(out + "/top.txt")]
if not tables or plain != withacc:
    bad.append("top --access changes the other columns (or printed no table)")
if "Access pattern per layer" not in page:
    bad.append("no access pattern table in the page")

for b in bad[:10]:
    print("FAIL %s: %s" % (name, b))
print("%s: %d layers, %d slowest of %d, page %d bytes" % (name, len(rep["layers"]), len(slow),
      len(rows), os.path.getsize(out + "/r.html")))
sys.exit(1 if bad else 0)
PY
		failed=1
	fi
done
# a page that cannot be written: said before the trace is read, exit status 1
dat=$(ls "$FIXTURES"/vm/*.dat | head -1)
rc=0
"$BLKSTACK" report -i "$dat" --html "$tmp/no/such/dir/r.html" >"$tmp/out" 2>"$tmp/err" || rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "cannot create '$tmp/no/such/dir/r.html.partial'" "$tmp/err" ||
	[ -s "$tmp/out" ]; then
	echo "FAIL: --html to a missing directory: exit $rc, $(cat "$tmp/err"), $(wc -c <"$tmp/out") bytes of report"
	failed=1
fi
[ "$n" -gt 0 ] || { echo "FAIL: no recordings in $FIXTURES/vm"; exit 1; }
exit "$failed"
