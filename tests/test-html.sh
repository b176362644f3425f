#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# When and which I/O was slow, live, on ext4 on a partition of a loop
# device: a sequential reader alone (fast), then a burst of fsyncs of one
# file while another reader runs (slow: each fsync makes the loop device
# flush its backing file to this machine's disk). Then
#  - report --slowest finds I/Os of the slow phase: most of the slowest
#    start inside it (their Q, on the trace clock, which is CLOCK_MONOTONIC);
#  - --html of the same run opens in headless Chromium: the screenshot is
#    a picture in the report's colours, not blank; the DOM Chromium built
#    holds every layer's name, and the numbers of the stack diagram and of
#    the slowest I/Os are those of report --json of the same run; the
#    marker the workload wrote to $BLKSTACK_TRACE_MARKER is on the page,
#    at the time it was written;
#  - --by flag shows the fsync's sync writes with their flags;
#  - --access tells a sequential reader (every read where the last ended,
#    entropy 0) from reads at random places, one in flight at a time;
#  - with --page-cache, the slowest I/Os name their file.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool python3 mkfs.ext4
need_chromium

make_loop A 160 ext4
M=$A_MNT
head -c $((24 << 20)) /dev/urandom >"$M/seq.dat"
head -c $((8 << 20)) /dev/urandom >"$M/other.dat"
sync
umount "$M" && mount -t ext4 -o no_prefetch_block_bitmaps "$A_PDEV" "$M" || fail "mounting $A_PDEV again failed"

# the workload: trace-clock times of each phase (mono is CLOCK_MONOTONIC)
cat >"$TMPD/work.sh" <<EOS
#!/bin/bash
set -e
now() { python3 -c 'import time; print(time.monotonic_ns())'; }
now >"$TMPD/t0"
dd status=none if="$M/seq.dat" of=/dev/null bs=128k iflag=direct
now >"$TMPD/t1"
sleep 0.3
echo "bsk-phase slow" >"\$BLKSTACK_TRACE_MARKER"
now >"$TMPD/t2"
dd status=none if="$M/other.dat" of=/dev/null bs=128k iflag=direct &
for i in \$(seq 12); do
	dd status=none if=/dev/urandom of="$M/sync.dat" bs=2M count=1 oflag=append \
		conv=notrunc,fsync
done
wait
now >"$TMPD/t3"
EOS
chmod +x "$TMPD/work.sh"

"$BLKSTACK" report -d "$M" --json --slowest 8 --html "$TMPD/r.html" -o "$TMPD/r.json" \
	-- "$TMPD/work.sh" || fail "report --slowest --html -- work.sh failed"
[ -s "$TMPD/r.html" ] || fail "no HTML page written"

python3 - "$TMPD" "$A_PNAME" "$A_NAME" <<'PY' || fail "--slowest did not find the slow phase (see above)"
import json, sys
d, pname, name = sys.argv[1], sys.argv[2], sys.argv[3]
t = [int(open("%s/t%d" % (d, i)).read()) for i in range(4)]
doc = json.load(open(d + "/r.json"))
slow = doc["slowest"]
errs = []
names = {l.get("name") for l in doc["layers"]}
if not {pname, name} <= names:
    errs.append("layers %s, want %s and %s" % (sorted(n or "?" for n in names), pname, name))
if len(slow) != 8:
    errs.append("%d slowest, want 8" % len(slow))
lat = [s["latency_ns"] for s in slow]
if lat != sorted(lat, reverse=True):
    errs.append("not sorted: %s" % lat)
# most of them queued in the fsync phase (a loaded machine may stall a read
# of the first phase now and then, by 7.5 ms once: even the slowest, but
# not the majority)
inside = [t[2] <= s["q_ns"] <= t[3] for s in slow]
if sum(inside) < 5:
    errs.append("slowest queued at %s s, the slow phase is [%.3f, %.3f] s" % (
                ["%.3f" % ((s["q_ns"] - t[0]) / 1e9) for s in slow], (t[2] - t[0]) / 1e9,
                (t[3] - t[0]) / 1e9))
if not any(s["op"] in ("write", "flush") for s, i in zip(slow, inside) if i):
    errs.append("no write or flush of the fsync phase among the slowest: %s" %
                [s["op"] for s in slow])
reads_a = len(slow) - sum(inside)
for s in slow:
    if s["layers"][0]["name"] != pname or s["layers"][-1]["name"] != name:
        errs.append("slow I/O #%d does not go %s -> %s" % (s["rank"], pname, name))
    top = s["layers"][0]
    if top["total_ns"] != s["latency_ns"]:
        errs.append("slow I/O #%d: top layer total %s, latency %d" % (s["rank"], top["total_ns"],
                    s["latency_ns"]))
print("  slowest: %s us (%s); of the first phase: %d" % ([x // 1000 for x in lat],
      " ".join(s["op"] for s in slow), reads_a))
for e in errs:
    print("  " + e)
sys.exit(1 if errs else 0)
PY
note "--slowest finds the fsync phase: ok"

chrome --window-size=1100,1400 --virtual-time-budget=3000 --screenshot="$TMPD/shot.png" "file://$TMPD/r.html" >/dev/null ||
	{ cat "$TMPD/chromium.err" >&2; fail "chromium could not take a screenshot"; }
python3 "$(dirname "$0")/png-stats.py" "$TMPD/shot.png" >"$TMPD/shot.json" ||
	fail "cannot read the screenshot $TMPD/shot.png"
python3 - "$TMPD/shot.json" <<'PY' || fail "the screenshot is not a picture of the report"
import json, sys
st = json.load(open(sys.argv[1]))
print("  screenshot %dx%d: %d inked pixels, %d blue, %d orange, %d colours" % (st["width"],
      st["height"], st["ink"], st["blue"], st["orange"], st["colours"]))
# text, boxes and lines: far from blank; the reads in blue, the writes in orange
assert st["ink"] > st["width"] * 40, "almost blank"
assert st["blue"] > 200, "no read series in blue"
assert st["orange"] > 200, "no write series in orange"
assert st["colours"] > 50, "too few colours"
PY
note "screenshot: ok"

chrome --window-size=1100,1400 --virtual-time-budget=3000 --dump-dom "file://$TMPD/r.html" >"$TMPD/dom.html" ||
	{ cat "$TMPD/chromium.err" >&2; fail "chromium could not load the page"; }
python3 - "$TMPD/dom.html" "$TMPD/r.json" "$TMPD/r.html" <<'PY' || fail "the page's DOM does not match report --json (see above)"
import html.parser, json, re, sys, time

class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.layers, self.slow, self.texts, self.scripts, self.data = {}, [], [], 0, False
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and a.get("class") == "layer":
            self.layers[a["data-dev"]] = a
        elif tag == "svg" and "slow-io" in a.get("class", "").split():
            self.slow.append(a)
        elif tag in ("link", "img", "iframe") or (tag == "script" and "src" in a):
            self.scripts += 1
        elif tag == "script" and a.get("id") == "bs-data":
            self.data = True
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
    def handle_data(self, data):
        self.texts.append(data)

dom = Dom()
dom.feed(open(sys.argv[1]).read())
doc = json.load(open(sys.argv[2]))
text = " ".join(dom.texts)
errs = []
if dom.scripts:
    errs.append("%d script src, link, img or iframe elements: the page must be self-contained" % dom.scripts)
# a live run knows the wall clock of its trace clock: the page's data has it
wall = re.search(r'<script type="application/json" id="bs-data">\{"wall":([-0-9.e]+|null)',
                 open(sys.argv[3]).read())
if not wall or wall.group(1) == "null":
    errs.append("the live page does not know the wall clock")
elif abs(float(wall.group(1)) + time.clock_gettime(time.CLOCK_MONOTONIC) - time.time()) > 60:
    errs.append("wall clock offset %s s is not realtime - monotonic" % wall.group(1))
# the workload's marker, written between t1 and t2 (trace time is CLOCK_MONOTONIC)
data = json.loads(re.search(r'<script type="application/json" id="bs-data">(.*?)</script>',
                            open(sys.argv[3]).read(), re.S).group(1))
t = [int(open("%s/t%d" % (sys.argv[3].rsplit("/", 1)[0], i)).read()) for i in (1, 2)]
mark = [m for m in data["markers"] if m[1] == "bsk-phase slow"]
if not mark or not t[0] / 1e9 <= mark[0][0] <= t[1] / 1e9:
    errs.append("the workload's marker %s, written in [%.6f, %.6f] s" % (mark, t[0] / 1e9,
                t[1] / 1e9))
elif "bsk-phase slow" not in text:
    errs.append("the workload's marker is not in the page's text")
for l in doc["layers"]:
    g = dom.layers.get(l["dev"])
    if not g:
        errs.append("layer %s (%s) is not in the stack diagram" % (l["dev"], l.get("name")))
        continue
    if g["data-name"] != l["name"] or l["name"] not in text:
        errs.append("layer %s: name %s in the page, %s in JSON" % (l["dev"], g["data-name"], l["name"]))
    for op, o in l["ops"].items():
        want = "%d %d %d %d" % (o["ios"], o["bytes"], o["total_ns"].get("p50", 0),
                                o["total_ns"].get("p99", 0))
        if g.get("data-op-" + op) != want:
            errs.append("layer %s %s: page %s, JSON %s" % (l["name"], op, g.get("data-op-" + op), want))
    if int(g["data-ios"]) != sum(o["ios"] for o in l["ops"].values()):
        errs.append("layer %s: %s I/Os in the page" % (l["name"], g["data-ios"]))
got = [(int(s["data-latency-ns"]), int(s["data-q-ns"])) for s in dom.slow]
want = [(s["latency_ns"], s["q_ns"]) for s in doc["slowest"]]
if got != want:
    errs.append("slowest in the page %s, JSON %s" % (got, want))
for e in errs:
    print("  " + e)
print("  DOM: %d layers, %d slow I/Os, data %s" % (len(dom.layers), len(dom.slow), dom.data))
sys.exit(1 if errs else 0)
PY
note "DOM: every layer's name, numbers of report --json: ok"

# --by flag: the fsync's writes are sync, its journal commits flushes
"$BLKSTACK" report -d "$M" --by flag --json -o "$TMPD/f.json" -- sh -c \
	"for i in 1 2 3; do dd status=none if=/dev/zero of='$M/f.dat' bs=4k count=1 conv=notrunc,fsync; done" ||
	fail "report --by flag failed"
python3 - "$TMPD/f.json" "$A_PNAME" <<'PY' || fail "--by flag has no sync write rows (see above)"
import json, sys
rows = json.load(open(sys.argv[1]))["by_flag"]
mine = [r for r in rows if r.get("name") == sys.argv[2]]
for r in mine:
    print("  %s %s %s: %d" % (r["name"], r["op"], r["flags"], r["total_ns"]["count"]))
assert any(r["op"] == "write" and "sync" in r["flags"].split(",") for r in mine), "no sync write"
assert any("preflush" in r["flags"] or "fua" in r["flags"] or r["op"] == "flush" for r in mine), \
    "no flush, preflush or FUA"
PY
note "--by flag: ok"

# --access: a sequential reader, then reads at random places of the partition
"$BLKSTACK" report -d "$A_PDEV" --access --json -o "$TMPD/seq.json" -- \
	dd status=none if="$A_PDEV" of=/dev/null bs=64k count=256 iflag=direct ||
	fail "report --access (sequential) failed"
# 150 places drawn once with a fixed seed: the same scatter every run
python3 -c 'import random; random.seed(13); print(*random.sample(range(38000), 150))' \
	>"$TMPD/places"
"$BLKSTACK" report -d "$A_PDEV" --access --json -o "$TMPD/rand.json" -- sh -c \
	"for s in \$(cat '$TMPD/places'); do
		dd status=none if='$A_PDEV' of=/dev/null bs=4k count=1 skip=\$s iflag=direct
	done" || fail "report --access (random) failed"
python3 - "$TMPD/seq.json" "$TMPD/rand.json" "$A_PNAME" <<'PY' || fail "--access does not tell sequential from random (see above)"
import json, sys
def pattern(path):
    doc = json.load(open(path))
    a = [x for x in doc["access"] if x.get("name") == sys.argv[3]][0]
    r = a["read"]
    print("  %s: %d reads, %d sequential, entropy %.2f bits, in flight avg %.2f max %d" % (
          path.rsplit("/", 1)[1], r["ios"], r["sequential"], r["entropy_bits"],
          a["inflight"]["avg"], a["inflight"]["max"]))
    return r, a["inflight"]
seq, fs = pattern(sys.argv[1])
rnd, fr = pattern(sys.argv[2])
assert seq["ios"] == 256 and seq["sequential"] == 255, "the sequential reads are not sequential"
assert seq["entropy_bits"] == 0, "a sequential stream has entropy 0"
assert rnd["ios"] == 150 and rnd["sequential"] < 5, "the random reads look sequential"
assert rnd["entropy_bits"] > 3, "random reads with little entropy"
# the reads were in flight (the filesystem's own writeback may add to them)
assert fs["max"] >= 1 and fr["max"] >= 1 and fs["avg"] > 0 and fr["avg"] > 0, "nothing in flight"
PY
note "--access: sequential and random reads: ok"

# --page-cache: the slowest I/Os name their file
"$BLKSTACK" report -d "$M" --page-cache --resolve-paths walk --slowest 4 -o "$TMPD/pc.txt" -- \
	dd status=none if="$M/other.dat" of=/dev/null bs=1M count=4 iflag=direct ||
	fail "report --page-cache --slowest failed"
grep -q "^#1 .*, file $M/other.dat" "$TMPD/pc.txt" ||
	{ sed -n '/^Slowest/,/^Tracking/p' "$TMPD/pc.txt"; fail "the slowest I/O does not name $M/other.dat"; }
note "--page-cache: the slowest I/O names its file: ok"
