#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack diff across machines, on the recordings of tests/fixtures/vm: the
# same stack built on two kernels (6.1 and 6.12), and on two buses (sata
# and virtio), each with its stack (--topology-a, --topology-b):
#
# - every layer of A is paired with a layer of B, and the pair is the same
#   layer: by the oracle of the recorded stacks' own identities, which
#   diff does not read (the same dm name; for a disk or a partition, its
#   disk's serial, or where that is none its size, and its start): the
#   disks of nvme-snap swap numbers from one kernel to the other, the legs
#   of ref-sata's stripe swap names;
# - the figures are in the report's units: MiB/s is the report's bytes at
#   that layer per second of its span, in MiB;
# - the changes come biggest first;
# - a recording compared with itself: said to be the same file, on stderr
#   and in the output, every change 0.
# Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
vm=$FIXTURES/vm

pairs=()
for a in "$vm"/6.1.0-*.dat; do
	stack=${a##*amd64-}
	b=$(ls "$vm"/6.12.*-"$stack" 2>/dev/null || true)
	[ -n "$b" ] && pairs+=("$a $b")
done
pairs+=("$vm/6.1.0-56-amd64-ref-sata.dat $vm/6.1.0-56-amd64-ref-virtio.dat")
[ "${#pairs[@]}" -ge 8 ] || { echo "FAIL: ${#pairs[@]} pairs of recordings of one stack"; exit 1; }

for pair in "${pairs[@]}"; do
	read -r a b <<<"$pair"
	name="$(basename "$a" .dat) ~ $(basename "$b" .dat)"
	if ! "$BLKSTACK" diff --json -o "$tmp/d.json" --topology-a "${a%.dat}.topo" \
		--topology-b "${b%.dat}.topo" "$a" "$b" 2>"$tmp/err" ||
	   ! "$BLKSTACK" diff -o "$tmp/d.txt" --topology-a "${a%.dat}.topo" \
		--topology-b "${b%.dat}.topo" "$a" "$b" 2>"$tmp/err" ||
	   ! "$BLKSTACK" report -i "$a" --topology "${a%.dat}.topo" --json -o "$tmp/ra.json" 2>"$tmp/err"; then
		echo "FAIL $name: $(cat "$tmp/err")"
		failed=1
		continue
	fi
	python3 - "$tmp" "${a%.dat}.topo" "${b%.dat}.topo" "$name" <<'PY' || failed=1
import json, math, sys
tmp, ta, tb, name = sys.argv[1:5]
d = json.load(open(tmp + "/d.json"))
ra = json.load(open(tmp + "/ra.json"))
errors = []

def identities(path):
    """what the guest recorded of each device, by MAJ:MIN, that diff does not read"""
    blk = {}
    for l in open(path):
        if l.startswith("blk "):
            f = dict(x.split("=", 1) for x in l.split()[1:] if "=" in x)
            blk[f["name"]] = f
    ids = {}
    for f in blk.values():
        if f.get("dm_name", "-") != "-":
            ids[f["dev"]] = ("dm", f["dm_name"])
        elif f.get("md_level", "-") != "-":
            ids[f["dev"]] = ("md", f["name"])
        else:
            disk = blk[f["parent"]] if f.get("partition") == "1" else f
            serial = disk.get("serial", "-")
            ids[f["dev"]] = ("disk", serial if serial != "-" else disk["size"],
                             f.get("start", "-"))
    return ids
ida, idb = identities(ta), identities(tb)
for l in d["layers"]:
    if l["dev"] is None or l["dev_b"] is None:
        errors.append("%s of one side only (%s, %s)" % (l["label"] or l["label_b"], l["dev"], l["dev_b"]))
    elif ida[l["dev"]] != idb[l["dev_b"]]:
        errors.append("A's %s (%s) paired with B's %s (%s)" % (l["label"], ida[l["dev"]],
                      l["label_b"], idb[l["dev_b"]]))
    elif l["matched_by"] != "role":
        errors.append("%s matched by %s" % (l["label"], l["matched_by"]))

# the report's units: MiB/s of A is the report's bytes over its span
span = (ra["last_ns"] - ra["first_ns"]) / 1e9
bytes_of = {(l["dev"], op): o["bytes"] for l in ra["layers"] for op, o in l["ops"].items()}
for l in d["layers"]:
    for op, figs in l["ops"].items():
        want = bytes_of.get((l["dev"], op))
        got = figs["mib_per_s"]["a"]
        if want is not None and abs(got - want / 1048576 / span) > 1e-6 * max(1, got):
            errors.append("%s %s: %s MiB/s, the report's %d bytes over %.3f s" % (l["label"], op, got, want, span))
text = open(tmp + "/d.txt").read()
if "MiB/s" not in text or "KiB_AVG" not in text or "MB/s" in text.replace("MiB/s", ""):
    errors.append("the text does not use the report's units (MiB/s, KiB_AVG)")

# biggest first: |change|, a side alone or from 0 the biggest of all
def size(c):
    if c["a"] is None or c["b"] is None or c["a"] == 0:
        return math.inf
    return abs(c["b"] - c["a"]) / abs(c["a"])
sizes = [size(c) for c in d["changes"]]
if not sizes or any(x < y for x, y in zip(sizes, sizes[1:])):
    errors.append("the changes are not the biggest first")
first = text.split("CHANGE\n", 1)[1].split("\n", 1)[0].split()
c0 = d["changes"][0]
if first[1] != c0["op"]:
    errors.append("the text's first change (%s) is not the JSON's (%s %s)" % (" ".join(first), c0["layer"], c0["op"]))
if errors:
    print("FAIL %s: %s" % (name, "; ".join(errors[:8])))
    sys.exit(1)
print("ok   %s: %d layers paired, e.g. %s; biggest change: %s %s %s %+.1f%%" % (
    name, len(d["layers"]),
    ", ".join("%s=%s" % (l["label"], l["label_b"]) for l in d["layers"] if l["label"] != l["label_b"]) or "same names",
    c0["layer"], c0["op"], c0["figure"], c0["change_pct"] if c0["change_pct"] is not None else math.inf))
PY
done

# a recording with itself: said so, no change
dat=$vm/6.1.0-56-amd64-crypt.dat
"$BLKSTACK" diff --json -o "$tmp/self.json" "$dat" "$dat" 2>"$tmp/err" ||
	{ echo "FAIL diff A A: $(cat "$tmp/err")"; failed=1; }
"$BLKSTACK" diff -o "$tmp/self.txt" "$dat" "$(dirname "$dat")/../vm/$(basename "$dat")" 2>"$tmp/err2" ||
	{ echo "FAIL diff A A: $(cat "$tmp/err2")"; failed=1; }
grep -q "are the same file: every change is 0" "$tmp/err" && grep -q "are the same file" "$tmp/err2" ||
	{ echo "FAIL diff A A: not said on stderr: $(cat "$tmp/err")"; failed=1; }
grep -q "^A and B are the same file" "$tmp/self.txt" || { echo "FAIL diff A A: not said in the output"; failed=1; }
python3 - "$tmp/self.json" <<'PY' || failed=1
import json, sys
d = json.load(open(sys.argv[1]))
bad = [c for c in d["changes"] if c["change_pct"] not in (0, 0.0)]
if not d["same_file"] or bad or not d["changes"]:
    print("FAIL diff A A: same_file %s, %d changes not 0 of %d" % (d["same_file"], len(bad), len(d["changes"])))
    sys.exit(1)
print("ok   diff A A: said to be the same file, %d figures, none changed" % len(d["changes"]))
PY
exit "$failed"
