#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack report on the real dm and md stack recordings of tests/fixtures/vm,
# each with the stack it was recorded on (its .topo, as --topology): at
# least 99% of top-level reads and writes followed through every layer,
# nothing expired or unmatched, and bytes conserved: at every layer, the
# bytes the report gives equal the bytes queued at (or, for a partition,
# remapped out of) that device in blkstack parse's log of the same file.
# Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0
for dat in "$FIXTURES"/vm/*.dat; do
	name=$(basename "$dat")
	stack=()
	[ -f "${dat%.dat}.topo" ] && stack=(--topology "${dat%.dat}.topo")
	n=$((n + 1))
	# decoding in threads gives the report of one thread, every time (a
	# decoder shared by the threads once made it change from run to run)
	"$BLKSTACK" report -j 1 -i "$dat" "${stack[@]}" --json -o "$tmp/j1.json" 2>/dev/null
	for run in 1 2 3; do
		"$BLKSTACK" report -j 2 -i "$dat" "${stack[@]}" --json -o "$tmp/j2.json" 2>/dev/null
		cmp -s "$tmp/j1.json" "$tmp/j2.json" ||
			{ echo "FAIL $name: report -j 2 differs from -j 1 (run $run)"; failed=1; break; }
	done
	"$BLKSTACK" report -i "$dat" "${stack[@]}" --json -o "$tmp/r.json" 2>"$tmp/err" ||
		{ echo "FAIL $name: report failed: $(cat "$tmp/err")"; failed=1; continue; }
	"$BLKSTACK" report -i "$dat" "${stack[@]}" -o "$tmp/r.txt" 2>"$tmp/err" ||
		{ echo "FAIL $name: text report failed: $(cat "$tmp/err")"; failed=1; continue; }
	grep -q '^Per layer' "$tmp/r.txt" || { echo "FAIL $name: no per-layer table"; failed=1; }
	"$BLKSTACK" parse -i "$dat" --no-summary -o "$tmp/p.txt"
	if ! python3 - "$tmp/r.json" "$tmp/p.txt" "$name" <<'PY'; then
import json, sys
from collections import defaultdict

report = json.load(open(sys.argv[1]))
name = sys.argv[3]
t = report["tracking"]
errors = []
# reads and writes followed to the disks (a layer may complete a discard
# itself, as dm-thin does: "completed by a layer", counted apart)
e2e = report["end_to_end"]
rw = sum(e2e[op]["ios"] for op in ("read", "write") if op in e2e)
rw_matched = sum(e2e[op]["matched"] for op in ("read", "write") if op in e2e)
if rw == 0 or rw_matched * 100 < rw * 99:
    errors.append("matched %d of %d top-level reads and writes" % (rw_matched, rw))
# the rest was completed by a layer itself, ended at a layer, or partly followed
rest = t["top_level_completed_by_layer"] + t["top_level_ended"] + t["top_level_partly_followed"]
if t["top_level_ios"] - t["top_level_matched"] != rest:
    errors.append("%d completed by a layer, ended or partly followed, but %d of %d matched"
                  % (rest, t["top_level_matched"], t["top_level_ios"]))
for k in ("expired", "unmatched_completions", "unmatched_remaps", "dropped_inflight_cap"):
    if t[k]:
        errors.append("%s: %d" % (k, t[k]))

# bytes per device from the log: queued there, or remapped out of a
# partition, or (a multipath path, which queues nothing) request clones
# remapped into it that it issued (one an offline path rejects goes to the
# other path)
queued = defaultdict(int)
remapped_out = defaultdict(int)
cloned_in = defaultdict(int)
clone = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) < 10 or not f[0][0].isdigit():
        continue
    dev = f[0].replace(",", ":")
    if f[5] == "Q" and f[8] == "+":
        queued[dev] += int(f[9]) * 512
    elif f[5] == "A" and f[8] == "+":
        src = f[11].strip("()").replace(",", ":")
        remapped_out[src] += int(f[9]) * 512
        clone[(dev, f[7])] = int(f[9]) * 512
    elif f[5] == "D" and (dev, f[7]) in clone:
        cloned_in[dev] += clone.pop((dev, f[7]))
layers = 0
for layer in report["layers"]:
    # a completion latency only where it is measured (C - up is 0 at a disk)
    if layer["kind"] != "bio" and any("completion_ns" in op for op in layer["ops"].values()):
        errors.append("%s (%s): a completion_ns" % (layer["dev"], layer["kind"]))
    if "parent" not in layer:
        errors.append("%s: no parent key (null for a top layer)" % layer["dev"])
    got = sum(op["bytes"] for op in layer["ops"].values())
    want = remapped_out[layer["dev"]] if layer["kind"] == "remap" else \
        queued[layer["dev"]] or cloned_in[layer["dev"]]
    layers += 1
    if got != want:
        errors.append("%s (%s): report %d bytes, log %d" % (layer["dev"], layer["kind"], got, want))
if layers < 2:
    errors.append("only %d layers" % layers)
if errors:
    print("FAIL %s: %s" % (name, "; ".join(errors)))
    sys.exit(1)
print("ok   %s: %d layers, %d/%d top-level I/Os matched (%d/%d reads and writes), %d "
      "completed by a layer, %d ended, %d partly followed, %d+%d+%d issued by a layer (caused, "
      "own, unexplained), bytes conserved" %
      (name, layers, t["top_level_matched"], t["top_level_ios"], rw_matched, rw,
       t["top_level_completed_by_layer"], t["top_level_ended"], t["top_level_partly_followed"],
       t["layer_caused_ios"], t["layer_issued_ios"], t["unexplained_ios"]))
PY
		failed=1
	fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no fixtures in $FIXTURES/vm"; exit 1; }

# With the stack the guest recorded beside each trace (--topology): the
# recorded tree with its names and dm target types, and a disk that only a
# layer above writes to without remapping (dm-thin's metadata disk) counted
# as that layer's own I/O, not as top-level I/O.
for dat in "$FIXTURES"/vm/*.dat; do
	name=$(basename "$dat")
	topo=${dat%.dat}.topo
	[ -r "$topo" ] || { echo "FAIL $name: no ${topo##*/} beside it"; failed=1; continue; }
	"$BLKSTACK" report -i "$dat" --topology "$topo" -o "$tmp/t.txt" 2>"$tmp/err" &&
		"$BLKSTACK" report -i "$dat" --topology "$topo" --json -o "$tmp/t.json" 2>>"$tmp/err" &&
		"$BLKSTACK" report -i "$dat" --json -o "$tmp/r.json" 2>>"$tmp/err" ||
		{ echo "FAIL $name: report --topology failed: $(cat "$tmp/err")"; failed=1; continue; }
	grep -q '^Devices (recorded):' "$tmp/t.txt" || { echo "FAIL $name: no recorded stack drawn"; failed=1; }
	if ! python3 - "$tmp/t.json" "$tmp/r.json" "$topo" "$tmp/t.txt" "$name" <<'PY'; then
import json, sys
with_t, without = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
text, name = open(sys.argv[4]).read(), sys.argv[5]
blk = [dict(f.split("=", 1) for f in l.split()[1:] if "=" in f)
       for l in open(sys.argv[3]) if l.startswith("blk ")]
targets = {}
for l in open(sys.argv[3]):
    if l.startswith("table ") and len(l.split()) > 4:
        targets[l.split()[1].rstrip(":")] = l.split()[4]
errors = []
def walk(devs, out):
    for d in devs:
        out[d["maj:min"] if "maj:min" in d else d.get("dev")] = d
        walk(d.get("children", []), out)
    return out
drawn = walk(with_t.get("devices", []), {})
for b in blk:
    if b["dev"] not in drawn and b["dev"].replace(":", ",") not in drawn:
        errors.append("%s (%s) not in the JSON devices" % (b["name"], b["dev"]))
    if b["name"] not in text:
        errors.append("%s not in the text report" % b["name"])
    if b.get("dm_name", "-") in targets and targets[b["dm_name"]] not in text:
        errors.append("target %s of %s not drawn" % (targets[b["dm_name"]], b["name"]))
# disks with holders that no remap leads into: their I/O is the holder's own
layers = {l["dev"]: l for l in with_t["layers"]}
meta = [b["dev"] for b in blk if b.get("holders", "-") != "-" and b["dev"] in layers
        and not layers[b["dev"]].get("parent")]
for dev in meta:
    for op, o in layers[dev]["ops"].items():
        if o["issued"] != o["ios"]:
            errors.append("%s %s: %d of %d I/Os issued by a layer" % (dev, op, o["issued"], o["ios"]))
e2e = lambda d: sum(e["ios"] for e in d["end_to_end"].values())
if meta and not e2e(with_t) < e2e(without):
    errors.append("top-level I/Os %d with the stack, %d without: the metadata disk's I/O is still top-level"
                  % (e2e(with_t), e2e(without)))
if errors:
    print("FAIL %s --topology: %s" % (name, "; ".join(errors)))
    sys.exit(1)
print("ok   %s --topology: %d devices drawn, %d top-level I/Os (%d without the stack), metadata disks %s"
      % (name, len(drawn), e2e(with_t), e2e(without), ",".join(meta) or "none"))
PY
		failed=1
	fi
done
exit "$failed"
