#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every output says the same of every recording of tests/fixtures (with
# its .topo stack where it has one): per layer, its I/Os and bytes, and
# how they split by class (serving a top-level I/O, caused by one, a
# layer's own, unexplained); per operation, the top-level I/Os, how many
# reached a disk, and where the rest stopped. Compared:
#
#  - report --json: the classes add up to each layer's I/Os and bytes, the
#    reaches to each operation's top-level I/Os, and amplification's
#    served bytes are the layer's bytes serving top-level I/O;
#  - the text report: its per-layer, per-class and match-rate tables, the
#    layers where I/O stopped, and its Tracking counts, as the JSON has them;
#  - convert --to jsonl and csv: per layer and class, the bios and bytes of
#    the rows are the report's; per operation, the top-level rows by reach
#    and where they ended; every cause is a row's number;
#  - convert --to perfetto: the slices' bios and bytes per layer and class,
#    their I/Os' classes and reaches, the same;
#  - report --html: each layer's row of the stack carries the JSON's I/Os,
#    bytes and classes, its table of every layer and operation the JSON's
#    I/Os by class, its match rates are the JSON's, and its text report's
#    tables are the text report's;
#  - report --iostat --json and top -x: each byte column, times the
#    interval, is the report's bytes of that layer and operation;
#  - report --slowest: each slow I/O is a top-level row, and the I/Os given
#    as issued on its behalf are the rows whose chain of causes leads to it.
#
# Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0
for dat in "$FIXTURES"/*/*.dat; do
	name=$(basename "$dat" .dat)
	stack=()
	[ -f "${dat%.dat}.topo" ] && stack=(--topology "${dat%.dat}.topo")
	out=$tmp/$name
	mkdir "$out"
	n=$((n + 1))
	if ! { "$BLKSTACK" report -i "$dat" "${stack[@]}" --json --amplification --slowest 20 \
		-o "$out/r.json" &&
		"$BLKSTACK" report -i "$dat" "${stack[@]}" -o "$out/r.txt" &&
		"$BLKSTACK" report -i "$dat" "${stack[@]}" --html "$out/r.html" -o /dev/null &&
		"$BLKSTACK" report -i "$dat" "${stack[@]}" --iostat --json -o "$out/ios.json" &&
		"$BLKSTACK" top -x -i "$dat" 1000 -o "$out/top.txt" &&
		"$BLKSTACK" convert -i "$dat" "${stack[@]}" --to jsonl -o "$out/rows.jsonl" &&
		"$BLKSTACK" convert -i "$dat" "${stack[@]}" --to csv -o "$out/rows.csv" &&
		"$BLKSTACK" convert -i "$dat" "${stack[@]}" --to perfetto -o "$out/rows.json"
	} 2>"$out/err"; then
		echo "FAIL $name: $(cat "$out/err")"
		failed=1
		continue
	fi
	if ! python3 - "$out" "$name" <<'PY'; then
import csv, html, json, re, sys
from collections import Counter, defaultdict

out, name = sys.argv[1], sys.argv[2]
errors = []
CLASSES = ("top", "caused", "own", "unexplained")
REACH = {"disk": "matched", "self": "completed_by_layer", "ended": "ended",
         "partial": "partly_followed"}
AT = {"self": "completed_by", "ended": "ended_at", "partial": "lost_at"}

rep = json.load(open(out + "/r.json"))
t = rep["tracking"]

# ---- the JSON with itself: classes and reaches add up -------------------
per_layer = defaultdict(Counter)     # dev -> (class, "ios"|"bytes") -> n, every op
for l in rep["layers"]:
    for op, o in l["ops"].items():
        for what in ("ios", "bytes"):
            got = sum(o["classes"][c][what] for c in CLASSES)
            if got != o[what]:
                errors.append("json %s %s: classes add up to %d %s, the layer has %d"
                              % (l["dev"], op, got, what, o[what]))
            for c in CLASSES:
                per_layer[l["dev"]][(c, what)] += o["classes"][c][what]
        per_layer[l["dev"]][("all", "ios")] += o["ios"]
        per_layer[l["dev"]][("all", "bytes")] += o["bytes"]
e2e = rep["end_to_end"]
for op, e in e2e.items():
    if sum(e[k] for k in REACH.values()) != e["ios"]:
        errors.append("json %s: reaches add up to %d of %d" % (op, sum(e[k] for k in REACH.values()), e["ios"]))
    for r, key in AT.items():
        if sum(a["ios"] for a in e[key]) != e[REACH[r]]:
            errors.append("json %s: %s lists %d of %d" % (op, key, sum(a["ios"] for a in e[key]), e[REACH[r]]))
for k, r in (("top_level_matched", "matched"), ("top_level_completed_by_layer", "completed_by_layer"),
             ("top_level_ended", "ended"), ("top_level_partly_followed", "partly_followed")):
    if t[k] != sum(e[r] for e in e2e.values()):
        errors.append("json tracking %s %d, end to end %d" % (k, t[k], sum(e[r] for e in e2e.values())))
for a in rep["amplification"]["layers"]:
    if a["served_bytes"] != per_layer[a["dev"]][("top", "bytes")]:
        errors.append("amplification at %s serves %d bytes, class top %d"
                      % (a["dev"], a["served_bytes"], per_layer[a["dev"]][("top", "bytes")]))

# ---- the text report ---------------------------------------------------
text = open(out + "/r.txt").read()


def table(title):
    """The rows of the table under the line starting with @title, as dicts."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith(title):
            head = lines[i + 1].split()
            rows = []
            for row in lines[i + 2:]:
                f = row.split()
                if len(f) != len(head):
                    break
                rows.append(dict(zip(head, f)))
            return rows
    errors.append("text: no table '%s'" % title)
    return []


# the text names a layer as its stack does ("bsk-crypt(crypt)"), in the
# stack's order, as the JSON lists them: the labels, in their order, are
# the JSON's layers with I/O
per_layer_rows = table("Per layer (MiB/s")
labels = []
for row in per_layer_rows:
    if row["LAYER"] not in labels:
        labels.append(row["LAYER"])
with_io = [l["dev"] for l in rep["layers"] if l["ops"]]
if len(labels) != len(with_io):
    errors.append("text: %d layers, json %d with I/O" % (len(labels), len(with_io)))
dev_of = dict(zip(labels, with_io))
mib = lambda b: "%.2f" % (b / 1048576.0)
for row in per_layer_rows:
    o = rep["layers"][[l["dev"] for l in rep["layers"]].index(dev_of[row["LAYER"]])]["ops"][row["OP"]]
    if (int(row["IOS"]), row["MiB"]) != (o["ios"], mib(o["bytes"])):
        errors.append("text per layer %s %s: %s I/Os %s MiB, json %d %s"
                      % (row["LAYER"], row["OP"], row["IOS"], row["MiB"], o["ios"], mib(o["bytes"])))
seen = 0
for row in table("Per layer, by class of I/O"):
    seen += 1
    o = next(l for l in rep["layers"] if l["dev"] == dev_of[row["LAYER"]])["ops"][row["OP"]]
    for c, col in zip(CLASSES, ("TOP", "CAUSED", "OWN", "UNEXPL")):
        if int(row[col]) != o["classes"][c]["ios"] or row[col + "_MiB"] != mib(o["classes"][c]["bytes"]):
            errors.append("text class %s %s %s: %s I/Os %s MiB, json %d %s"
                          % (row["LAYER"], row["OP"], c, row[col], row[col + "_MiB"],
                             o["classes"][c]["ios"], mib(o["classes"][c]["bytes"])))
if seen != sum(len(l["ops"]) for l in rep["layers"]):
    errors.append("text: %d rows by class, json %d layers and ops" % (seen, sum(len(l["ops"]) for l in rep["layers"])))
rows = table("Match rate per operation")
if [r["OP"] for r in rows] != list(e2e):
    errors.append("text match rates for %s, json %s" % ([r["OP"] for r in rows], list(e2e)))
for row in rows:
    e = e2e[row["OP"]]
    got = (int(row["IOS"]), int(row["DISK"]), int(row["SELF"]), int(row["ENDED"]), int(row["PARTIAL"]), row["RATE"])
    want = (e["ios"], e["matched"], e["completed_by_layer"], e["ended"], e["partly_followed"],
            "%.1f%%" % (100.0 * e["matched"] / e["ios"]))
    if got != want:
        errors.append("text match rate %s: %s, json %s" % (row["OP"], got, want))
# "  ended at: dm-0 3 read, 1 write; sda 1 flush" as the JSON's lists
for r, key in AT.items():
    head = {"self": "  completed by the layer itself:", "ended": "  ended at:",
            "partial": "  partly followed, lost at:"}[r]
    got = Counter()
    for line in text.split("\n"):
        if line.startswith(head):
            for part in line[len(head):].split(";"):
                words = part.replace(",", " ").split()
                for i in range(1, len(words), 2):
                    got[(dev_of[words[0]], words[i + 1])] += int(words[i])
    want = Counter({(a["dev"], op): a["ios"] for op, e in e2e.items() for a in e[key]})
    if got != want:
        errors.append("text %s %s, json %s" % (head.strip(), dict(got), dict(want)))
m = re.search(r"^Tracking: \d+ block events taken; match rate [\d.]+% \((\d+) of (\d+) top-level I/Os reached a disk", text, re.M)
if not m or (int(m.group(1)), int(m.group(2))) != (t["top_level_matched"], t["top_level_ios"]):
    errors.append("text Tracking line, json %d of %d" % (t["top_level_matched"], t["top_level_ios"]))
m = re.search(r"completed by a layer itself (\d+), ended at a layer (\d+), partly followed (\d+); "
              r"I/Os issued by a layer: (\d+) for a top-level I/O in flight, (\d+) on its own; "
              r"unexplained (\d+);", text)
want = (t["top_level_completed_by_layer"], t["top_level_ended"], t["top_level_partly_followed"],
        t["layer_caused_ios"], t["layer_issued_ios"], t["unexplained_ios"])
if not m or tuple(int(x) for x in m.groups()) != want:
    errors.append("text Tracking counts %s, json %s" % (m and m.groups(), want))

# ---- convert: jsonl, csv ------------------------------------------------
jrows = [json.loads(line) for line in open(out + "/rows.jsonl")]
ids = {r["io"] for r in jrows}
# a JSON line's cause names its I/O by number and by that row's dev and
# q_ns (issue 27's oracle matches by these): both name the same row; the
# number alone is compared from here on, as CSV and Perfetto give it
by_io = {r["io"]: r for r in jrows}
for r in jrows:
    c = r["cause"]
    if c is not None:
        named = by_io.get(c["io"])
        if named and (named["dev"], named["q_ns"]) != (c["dev"], c["q_ns"]):
            errors.append("jsonl: io %d's cause io %d is %s at %d, not %s at %d" % (
                r["io"], c["io"], named["dev"], named["q_ns"], c["dev"], c["q_ns"]))
        r["cause"] = c["io"]
if len(ids) != len(jrows):
    errors.append("jsonl: an I/O number twice")


def by_layer(rows, layers_of):
    got = defaultdict(Counter)
    for r in rows:
        for dev, bios, nbytes in layers_of(r):
            got[dev][(r["class"], "ios")] += bios
            got[dev][(r["class"], "bytes")] += nbytes
    return got


def compare_layers(what, got):
    for dev in set(got) | set(per_layer):
        for c in CLASSES:
            for k in ("ios", "bytes"):
                if got[dev][(c, k)] != per_layer[dev][(c, k)]:
                    errors.append("%s %s %s %s: %d, report %d" % (what, dev, c, k, got[dev][(c, k)],
                                                                   per_layer[dev][(c, k)]))


def compare_tops(what, rows):
    """Per operation, the top-level rows by reach and where they stopped."""
    op_of = {"secure-erase": "discard"}
    reach, where = Counter(), Counter()
    for r in rows:
        if r["class"] != "top":
            continue
        op = op_of.get(r["op"], r["op"])
        reach[(op, r["reach"])] += 1
        if r["reach"] != "disk":
            where[(op, r["reach"], r["ended_at"])] += 1
    want = Counter({(op, r): e[REACH[r]] for op, e in e2e.items() for r in REACH if e[REACH[r]]})
    if reach != want:
        errors.append("%s: top-level by reach %s, report %s" % (what, dict(reach), dict(want)))
    want = Counter({(op, r, a["dev"]): a["ios"] for op, e in e2e.items() for r, k in AT.items() for a in e[k]})
    if where != want:
        errors.append("%s: where they stopped %s, report %s" % (what, dict(where), dict(want)))


compare_layers("jsonl", by_layer(jrows, lambda r: [(l["dev"], l["bios"], l["bytes"]) for l in r["layers"]]))
compare_tops("jsonl", jrows)
for r in jrows:
    if r["cause"] is not None and r["cause"] not in ids:
        errors.append("jsonl: io %d names cause %d, no row" % (r["io"], r["cause"]))
    # top-level: no cause, no issuer; caused: by an I/O, issued by a layer
    if (r["class"] == "top") != r["top"] or (r["top"] and (r["cause"] or r["issuer"])):
        errors.append("jsonl: io %d is %s, top %s, cause %s" % (r["io"], r["class"], r["top"], r["cause"]))
    if r["class"] == "caused" and (r["cause"] is None or r["issuer"] is None):
        errors.append("jsonl: io %d is caused, by %s, issued by %s" % (r["io"], r["cause"], r["issuer"]))

with open(out + "/rows.csv", newline="") as f:
    crows = list(csv.DictReader(f))
for r in crows:
    if int(r["nlayers"]) > 8:
        errors.append("csv: io %s crosses %s layers, its columns hold 8" % (r["io"], r["nlayers"]))
    r["ended_at"] = r["ended_at"] or None
compare_layers("csv", by_layer(crows, lambda r: [(r["l%d_dev" % i], int(r["l%d_bios" % i]), int(r["l%d_bytes" % i]))
                                                   for i in range(min(int(r["nlayers"]), 8))]))
compare_tops("csv", crows)
if [(int(r["io"]), r["class"], r["cause"]) for r in crows] != [(r["io"], r["class"], "" if r["cause"] is None else str(r["cause"])) for r in jrows]:
    errors.append("csv: numbers, classes or causes differ from jsonl")

# ---- Perfetto -----------------------------------------------------------
doc = json.load(open(out + "/rows.json"))
slices = [ev["args"] for ev in doc["traceEvents"] if ev["ph"] == "X" and ev.get("cat") == "io"]
pio = {}
for a in slices:
    pio.setdefault(a["io"], {"io": a["io"], "class": a["class"], "reach": a["reach"], "layers": [],
                             "top": a["top"], "op": None, "ended_at": None})
    pio[a["io"]]["layers"].append((a["dev"], a["bios"], a["bytes"]))
    if (a["class"], a["reach"]) != (pio[a["io"]]["class"], pio[a["io"]]["reach"]):
        errors.append("perfetto: io %d's slices disagree on its class" % a["io"])
if set(pio) != ids:
    errors.append("perfetto: %d I/Os, jsonl %d" % (len(pio), len(ids)))
compare_layers("perfetto", by_layer(pio.values(), lambda r: r["layers"]))
for r in jrows:
    p = pio.get(r["io"])
    if p and (p["class"], p["reach"]) != (r["class"], r["reach"]):
        errors.append("perfetto: io %d %s %s, jsonl %s %s" % (r["io"], p["class"], p["reach"], r["class"], r["reach"]))

# ---- HTML ---------------------------------------------------------------
page = open(out + "/r.html").read()
boxes = {m.group(1): m for m in re.finditer(
    r'class="layer" data-dev="([^"]+)"[^>]*? data-ios="(\d+)" data-bytes="(\d+)" data-classes="([\d ]+)"', page)}
for dev, c in per_layer.items():
    m = boxes.get(dev)
    want = [c[(k, w)] for k in CLASSES for w in ("ios", "bytes")]
    if not m:
        errors.append("html: no box of %s" % dev)
    elif (int(m.group(2)), int(m.group(3)), [int(x) for x in m.group(4).split()]) != (c[("all", "ios")], c[("all", "bytes")], want):
        errors.append("html %s: %s %s %s, json %d %d %s" % (dev, m.group(2), m.group(3), m.group(4),
                                                          c[("all", "ios")], c[("all", "bytes")], want))
rates = re.search(r'<span class="rates">\d+ top-level I/Os, [\d.]+% of which reached a disk through every layer \(([^)]*)\)', page)
want = ", ".join("%s %.1f%%" % (op, 100.0 * e["matched"] / e["ios"]) for op, e in e2e.items())
if e2e and (not rates or rates.group(1) != want):
    errors.append("html: rates %s, json %s" % (rates and rates.group(1), want))
# the table of every layer and operation: I/Os by class, as the JSON
table_html = re.search(r'<table[^>]*id="layer-table".*?</table>', page, re.S)
if not table_html:
    errors.append("html: no table of every layer and operation")
else:
    cells = lambda row: [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
    trs = re.findall(r"<tr>(.*?)</tr>", table_html.group(0), re.S)
    head = cells(trs[0]) if trs else []
    seen = 0
    for tr in trs[1:]:
        row = dict(zip(head, cells(tr)))
        seen += 1
        o = next(l for l in rep["layers"] if l["dev"] == dev_of[row["layer"]])["ops"][row["op"]]
        got = [int(row[k]) for k in ("I/Os", "top", "caused", "own", "unexpl.")]
        want = [o["ios"]] + [o["classes"][c]["ios"] for c in CLASSES]
        if got != want:
            errors.append("html table %s %s: %s, json %s" % (row["layer"], row["op"], got, want))
    if seen != sum(len(l["ops"]) for l in rep["layers"]):
        errors.append("html table: %d rows, json %d layers and ops" % (seen, sum(len(l["ops"]) for l in rep["layers"])))
pre = next((html.unescape(p) for p in re.findall(r"<pre>(.*?)</pre>", page, re.S) if "Per layer, by class" in p), "")
for title in ("Per layer, by class of I/O", "Match rate per operation"):
    section = lambda s: s[s.find(title):s.find("\n\n", s.find(title))]
    if title not in pre or section(pre) != section(text):
        errors.append("html: its table '%s' is not the text report's" % title)

# ---- iostat's bytes -----------------------------------------------------
ios = json.load(open(out + "/ios.json"))
secs = ios["interval_ns"] / 1e9
cols = {"read": "rkB/s", "write": "wkB/s", "discard": "dkB/s"}
for d in ios["devices"]:
    l = next((l for l in rep["layers"] if l["dev"] == d["dev"]), None)
    for op, col in cols.items():
        want = l["ops"].get(op, {}).get("bytes", 0) if l else 0
        if abs(d[col] * secs * 1024 - want) > 0.5:
            errors.append("iostat %s %s: %.0f bytes, report %d" % (d["dev"], op, d[col] * secs * 1024, want))
# top -x, one interval for the whole recording: two decimals of kB/s
head, length = None, None
for line in open(out + "/top.txt"):
    f = line.split()
    m = re.match(r"^\+(\d+\.\d+)s$", line)
    if m:
        length = float(m.group(1))
    elif f and f[0] == "Device":
        head = f
    elif head and len(f) == len(head):
        row = dict(zip(head, f))
        l = next((l for l in rep["layers"] if l["dev"] == row["Device"]), None)
        for op, col in cols.items():
            want = l["ops"].get(op, {}).get("bytes", 0) / 1024 if l else 0
            got = float(row[col]) * length
            if abs(got - want) > 0.006 * length + 0.001 * want:
                errors.append("top -x %s %s: %.1f kB, report %.1f" % (row["Device"], op, got, want))

# ---- the slowest I/Os and what was issued on their behalf -----------------
row_of = {r["io"]: r for r in jrows}


def served(r):
    """The top-level I/O a row's chain of causes leads to, or None."""
    seen = set()
    while r and r["class"] != "top" and r["cause"] is not None and r["io"] not in seen:
        seen.add(r["io"])
        r = row_of.get(r["cause"])
    return r["io"] if r and r["class"] == "top" else None


on_behalf = defaultdict(set)
for r in jrows:
    if r["class"] != "top" and served(r) is not None:
        on_behalf[served(r)].add(r["io"])
for slow in rep["slowest"]:
    r = row_of.get(slow["io"])
    if not r or r["class"] != "top" or r["latency_ns"] != slow["latency_ns"]:
        errors.append("slowest io %d: no top-level row of %d ns" % (slow["io"], slow["latency_ns"]))
    got = {c["io"] for c in slow["caused"]}
    if got != on_behalf[slow["io"]]:
        errors.append("slowest io %d: %s issued on its behalf, rows %s" % (slow["io"], sorted(got),
                                                                          sorted(on_behalf[slow["io"]])))
    for c in slow["caused"]:
        if c["cause"] != row_of.get(c["io"], {}).get("cause"):
            errors.append("slowest io %d: caused io %d names cause %d" % (slow["io"], c["io"], c["cause"]))

if errors:
    print("FAIL %s: %s" % (name, "; ".join(errors[:12])))
    sys.exit(1)
print("ok   %s: %d layers, %d rows, %d top-level I/Os (%d reached a disk), classes and bytes agree; "
      "%d I/Os issued on behalf of the %d slowest" % (name, len(rep["layers"]), len(jrows),
      t["top_level_ios"], t["top_level_matched"], sum(len(s["caused"]) for s in rep["slowest"]),
      len(rep["slowest"])))
PY
		failed=1
	fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no recordings in $FIXTURES"; exit 1; }
exit $failed
