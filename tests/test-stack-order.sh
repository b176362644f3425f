#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every output lists a stack's layers in the stack's order, top first, and
# names them as its stack does, on the real recordings of tests/fixtures/vm
# with the stack recorded beside each (--topology):
#
# - the report's tables, its JSON "layers" and "amplification", top -i's
#   intervals and Perfetto's track order (convert --to perfetto) list the
#   layers in one order, in which each layer comes after the layer above
#   it (its JSON "parent"): md0 before its members, a dm-snapshot origin
#   before the linear device under it and that one's disk;
# - a layer is labelled as its stack names it: a dm device by its dm name
#   and the target type of its table ("bsk-crypt(crypt)"), an md device
#   with its level ("md0(raid5)"), any other by its kernel name;
# - without a stack, the layer tree has no NAME column that would repeat
#   the MAJ:MIN beside it ("253:3  253:3"), and the JSON still has "name"
#   for every layer, null.
# Needs no root.
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
	[ -r "$topo" ] || continue
	n=$((n + 1))
	t=(--topology "$topo")
	if ! "$BLKSTACK" report -i "$dat" "${t[@]}" --amplification -o "$tmp/r.txt" 2>"$tmp/err" ||
	   ! "$BLKSTACK" report -i "$dat" "${t[@]}" --amplification --json -o "$tmp/r.json" 2>"$tmp/err" ||
	   ! "$BLKSTACK" report -i "$dat" -o "$tmp/bare.txt" 2>"$tmp/err" ||
	   ! "$BLKSTACK" report -i "$dat" --json -o "$tmp/bare.json" 2>"$tmp/err" ||
	   ! "$BLKSTACK" top -i "$dat" "${t[@]}" 1 -o "$tmp/top.txt" 2>"$tmp/err" ||
	   ! "$BLKSTACK" convert -i "$dat" "${t[@]}" --to perfetto -o "$tmp/p.json" 2>"$tmp/err"; then
		echo "FAIL $name: $(cat "$tmp/err")"
		failed=1
		continue
	fi
	python3 - "$topo" "$tmp" "$name" <<'PY' || failed=1
import json, re, sys
topo, tmp, name = sys.argv[1], sys.argv[2], sys.argv[3]
errors = []

# the labels the stack gives, by MAJ:MIN
targets, label = {}, {}
for l in open(topo):
    if l.startswith("table ") and len(l.split()) > 4:
        targets[l.split()[1].rstrip(":")] = l.split()[4]
for l in open(topo):
    if not l.startswith("blk "):
        continue
    f = dict(x.split("=", 1) for x in l.split()[1:] if "=" in x)
    if f.get("dm_name", "-") != "-":
        label[f["dev"]] = "%s(%s)" % (f["dm_name"], targets[f["dm_name"]])
    elif f.get("md_level", "-") != "-":
        label[f["dev"]] = "%s(%s)" % (f["name"], f["md_level"])
    else:
        label[f["dev"]] = f["name"]

report = json.load(open(tmp + "/r.json"))
order = [l["dev"] for l in report["layers"]]
parent = {l["dev"]: l["parent"] for l in report["layers"]}
if len(order) < 2:
    errors.append("only %d layers" % len(order))
for i, dev in enumerate(order):
    if parent[dev] in order and order.index(parent[dev]) > i:
        errors.append("JSON: %s before the layer above it, %s" % (dev, parent[dev]))
want = [label[d] for d in order]

def table_order(path, heading):
    """the first column of the table under @heading, each label once"""
    seen, rows = [], False
    for line in open(path):
        if line.startswith(heading):
            rows = "header"
            continue
        if rows == "header":
            rows = True
            continue
        if rows is True:
            if not line.strip():
                break
            if line.split()[0] not in seen:
                seen.append(line.split()[0])
    return seen

for heading in ("Per layer (", "Per layer latency"):
    got = table_order(tmp + "/r.txt", heading)
    if got != want:
        errors.append("table '%s': %s, the stack's order %s" % (heading, got, want))
got = table_order(tmp + "/r.txt", "Amplification:")
if got != want:
    errors.append("amplification table: %s, the stack's order %s" % (got, want))
amp = [l["dev"] for l in report["amplification"]["layers"]]
if amp != order:
    errors.append("JSON amplification: %s, the layers' %s" % (amp, order))

# top's first interval: its layers in the same order (those with I/O in it)
got = table_order(tmp + "/top.txt", "+")
if got != [x for x in want if x in got]:
    errors.append("top -i: %s, the stack's order %s" % (got, want))

# Perfetto: the track groups sorted as the layers
events = json.load(open(tmp + "/p.json"))["traceEvents"]
pname = {e["pid"]: e["args"]["name"].split()[-1] for e in events
         if e["ph"] == "M" and e["name"] == "process_name"}
sort = {e["pid"]: e["args"]["sort_index"] for e in events
        if e["ph"] == "M" and e["name"] == "process_sort_index"}
tracks = [pname[p] for p in sorted(sort, key=lambda p: sort[p])]
if tracks != [d for d in order if d in tracks]:
    errors.append("Perfetto track order %s, the layers' %s" % (tracks, order))

# without the stack: no NAME column repeating MAJ:MIN; "name" null, there
bare = open(tmp + "/bare.txt").read()
m = re.search(r"^Layers \(.*\n(.*)\n", bare, re.M)
if not m or not m.group(1).split()[0] == "MAJ:MIN":
    errors.append("without a stack, the layer tree's header is %r" % (m and m.group(1)))
for l in json.load(open(tmp + "/bare.json"))["layers"]:
    if "name" not in l or l["name"] is not None:
        errors.append("without a stack, layer %s: name %r" % (l["dev"], l.get("name", "absent")))
if errors:
    print("FAIL %s: %s" % (name, "; ".join(errors)))
    sys.exit(1)
print("ok   %s: %s" % (name, " > ".join(want)))
PY
done
[ "$n" -gt 0 ] || { echo "FAIL: no recording with its stack in $FIXTURES/vm"; exit 1; }
exit "$failed"
