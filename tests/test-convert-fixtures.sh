#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack convert on the real dm-stack recordings of tests/fixtures/vm
# (trace-cmd's files, version 6 and 7). Needs no root.
#
#  - blktrace: one file per CPU of the recording and a device map; blkparse
#    prints from them exactly the lines blkstack parse prints from the
#    recording (so per device and action the same counts); btt -M reads
#    them after blkparse -d without error;
#  - csv and jsonl: one row per completed I/O, as many as the report counts
#    (top-level and layer-issued), and per device the report's bytes and
#    bios;
#  - perfetto: JSON with one process per device, slices that never cross on
#    a thread, phases inside their slice, arrows from slices that hold them;
#  - btt-data: the files per second (iops, mbps, and the seeks of -m) are
#    byte for byte those btt writes from the blktrace files (and on
#    fixtures/btt/sps-190s.dat, where btt's two streams of seeks write
#    over each other in its -m file a buffer at a time);
#  - input that is damaged or missing, output that cannot be written: exit
#    status 1, a message naming the file, no output under its final name.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }
have_blkparse=1
command -v blkparse >/dev/null && command -v btt >/dev/null ||
	{ have_blkparse=0; echo "note: blkparse or btt missing (apt-get install blktrace): their checks are skipped"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0

bad() {
	echo "FAIL $*"
	failed=1
}

# lines of a blkparse-format log, sorted, without the summary
log_lines() {
	awk '$1 ~ /^[0-9]+,[0-9]+$/ && $6 ~ /^[A-Z]+$/' "$1" | LC_ALL=C sort
}

# per_second DAT DUMP DIR NAME: convert --to btt-data's files per second
# (MAJ,MIN_iops_fp.dat, sys_mbps_fp.dat, sps_MAJ,MIN.dat...) are btt's own,
# run without -M on DUMP (DAT converted for it), byte for byte
per_second() {
	local ours theirs f

	mkdir "$3/btt-data" "$3/btt-sec"
	(cd "$3/btt-sec" && btt -i "$2" -s seek -m sps -o x >/dev/null 2>&1) ||
		{ bad "$4: btt -s seek -m sps failed on the converted files"; return; }
	"$BLKSTACK" convert -i "$1" --to btt-data -o "$3/btt-data" 2>"$3/err" ||
		{ bad "$4: convert --to btt-data failed: $(cat "$3/err")"; return; }
	theirs=$(cd "$3/btt-sec" && ls | grep -E '_fp\.dat$|^sps_' || true)
	ours=$(cd "$3/btt-data" && ls | grep -E '_fp\.dat$|^sps_' || true)
	[ -n "$theirs" ] && [ "$theirs" = "$ours" ] ||
		{ bad "$4: files per second: btt's" $theirs "blkstack's" $ours; return; }
	for f in $theirs; do
		cmp -s "$3/btt-sec/$f" "$3/btt-data/$f" || bad "$4: $f is not btt's"
	done
}

for dat in "$FIXTURES"/vm/*.dat; do
	name=$(basename "$dat" .dat)
	n=$((n + 1))
	out=$tmp/$name
	mkdir "$out"

	# --- blktrace --------------------------------------------------------------
	if ! "$BLKSTACK" convert -i "$dat" --to blktrace -o "$out/bt" 2>"$out/err"; then
		bad "$name: convert --to blktrace failed: $(cat "$out/err")"
		continue
	fi
	files=("$out"/bt.blktrace.*)
	ncpu=${#files[@]}
	[ "$ncpu" -ge 1 ] && [ -e "$out/bt.blktrace.$((ncpu - 1))" ] ||
		bad "$name: the per-CPU files are not numbered from 0"
	[ -s "$out/bt.devmap" ] || bad "$name: no device map"
	! ls "$out"/*.partial >/dev/null 2>&1 || bad "$name: .partial files left after success"
	"$BLKSTACK" parse -i "$dat" --no-summary -o "$out/parse.txt"
	if [ "$have_blkparse" = 1 ]; then
		blkparse -q -i "$out/bt" -o "$out/bp.txt" >"$out/bp.err" 2>&1 ||
			bad "$name: blkparse failed: $(cat "$out/bp.err")"
		log_lines "$out/bp.txt" >"$out/bp.lines"
		log_lines "$out/parse.txt" >"$out/parse.lines"
		if ! diff -u "$out/parse.lines" "$out/bp.lines" >"$out/diff"; then
			bad "$name: blkparse of the converted files differs from blkstack parse:"
			head -20 "$out/diff"
		fi
		(cd "$out" && blkparse -q -i bt -d bt.dump -o /dev/null >/dev/null 2>&1 &&
			btt -i bt.dump -M bt.devmap -o btt >btt.log 2>&1) ||
			bad "$name: btt failed on the converted files: $(cat "$out/btt.log")"
		grep -q "All Devices" "$out/btt.avg" || bad "$name: btt printed no table"
		# the device map names the devices of btt's per-device tables
		first=$(awk 'NR == 1 { print $1 }' "$out/bt.devmap")
		grep -qF "$first" "$out/btt.avg" || bad "$name: btt did not use the device map"
		per_second "$dat" "$out/bt.dump" "$out" "$name"
	fi

	# --- the stack's names: the recording's stack (--topology) in devmap and Perfetto ---
	topo=${dat%.dat}.topo
	if [ -f "$topo" ]; then
		"$BLKSTACK" convert -i "$dat" --to blktrace -o "$out/named" --topology "$topo" \
			2>"$out/err" || bad "$name: convert --topology failed: $(cat "$out/err")"
		"$BLKSTACK" convert -i "$dat" --to perfetto -o "$out/named.json" --topology "$topo" \
			2>"$out/err" || bad "$name: convert --to perfetto --topology failed: $(cat "$out/err")"
		python3 - "$topo" "$out/named.devmap" "$out/named.json" <<'PY' || bad "$name: the converted files do not name the recorded stack"
import json, re, sys
names, labels, targets = {}, {}, {}
for line in open(sys.argv[1]):
    if line.startswith("table ") and len(line.split()) > 4:
        targets[line.split()[1].rstrip(":")] = line.split()[4]
for line in open(sys.argv[1]):
    m = re.match(r"blk name=(\S+) dev=(\d+):(\d+) ", line)
    if m:
        num = "%s,%s" % (m.group(2), m.group(3))
        f = dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)
        names[num] = m.group(1)
        # a track is labelled as the report names a layer: dm name(target), md0(level)
        if f.get("dm_name", "-") != "-":
            labels[num] = "%s(%s)" % (f["dm_name"], targets[f["dm_name"]])
        elif f.get("md_level", "-") != "-":
            labels[num] = "%s(%s)" % (m.group(1), f["md_level"])
        else:
            labels[num] = m.group(1)
ok = True
lines = open(sys.argv[2]).read().split("\n")[:-1]
for line in lines:
    name, num = line.split()
    if names.get(num) != name:
        print("  devmap: %s named %s, the stack says %s" % (num, name, names.get(num)))
        ok = False
tracks = [ev["args"]["name"] for ev in json.load(open(sys.argv[3]))["traceEvents"]
          if ev["ph"] == "M" and ev["name"] == "process_name"]
for t in tracks:
    name, num = t.split()
    if labels.get(num.replace(":", ",")) != name:
        print("  perfetto: track %s, the stack says %s" % (t, labels.get(num.replace(":", ","))))
        ok = False
sys.exit(0 if ok and lines and tracks else 1)
PY
		if [ "$have_blkparse" = 1 ]; then
			(cd "$out" && blkparse -q -i named -d named.dump -o /dev/null >/dev/null 2>&1 &&
				btt -i named.dump -M named.devmap -o nbtt >nbtt.log 2>&1) ||
				bad "$name: btt -M failed on the named device map: $(cat "$out/nbtt.log")"
			# every device of btt's per-device tables goes by its recorded name
			awk 'NR == FNR { names[$1] = 1; next }
			     $2 == "|" && $1 !~ /^(DEV|Overall|Average|TOTAL|Total|-+)$/ {
				seen++; if (!($1 in names)) { print "  btt: " $1; bad = 1 } }
			     END { exit !(seen && !bad) }' "$out/named.devmap" "$out/nbtt.avg" ||
				bad "$name: btt's tables do not name the devices as the device map does"
		fi
	fi

	# --- csv, jsonl, perfetto --------------------------------------------------------
	for fmt in csv jsonl perfetto; do
		"$BLKSTACK" convert -i "$dat" --to "$fmt" -o "$out/rows.$fmt" 2>"$out/err" ||
			bad "$name: convert --to $fmt failed: $(cat "$out/err")"
	done
	# standard output is the default, and the same
	"$BLKSTACK" convert -i "$dat" -F jsonl 2>/dev/null | cmp -s - "$out/rows.jsonl" ||
		bad "$name: jsonl on standard output differs from the file"
	"$BLKSTACK" report -i "$dat" --json -o "$out/report.json"
	if ! python3 - "$out" "$name" <<'PY'; then
import csv, json, sys
from collections import defaultdict
from decimal import Decimal

out, name = sys.argv[1], sys.argv[2]
errors = []
report = json.load(open(out + "/report.json"))
t = report["tracking"]

rows = [json.loads(line) for line in open(out + "/rows.jsonl")]
issued = t["layer_issued_ios"] + t["layer_caused_ios"] + t["unexplained_ios"]
if len(rows) != t["top_level_ios"] + issued:
    errors.append("jsonl: %d rows, the report %d + %d I/Os"
                  % (len(rows), t["top_level_ios"], issued))
if sum(r["top"] for r in rows) != t["top_level_ios"]:
    errors.append("jsonl: %d top-level rows, the report %d"
                  % (sum(r["top"] for r in rows), t["top_level_ios"]))
# numbered in the order they began: each number once, a cause is a row's
ids = set(r["io"] for r in rows)
if len(ids) != len(rows) or min(ids) < 1:
    errors.append("jsonl: I/O numbers are not distinct and positive")
for r in rows:
    if r["cause"] is not None and r["cause"]["io"] not in ids:
        errors.append("jsonl: io %d names cause %d, no row" % (r["io"], r["cause"]["io"]))
        break
# per device: the report's bytes and bios are those of the rows' layers
by_dev = defaultdict(lambda: [0, 0])
for r in rows:
    for l in r["layers"]:
        by_dev[l["dev"]][0] += l["bytes"]
        by_dev[l["dev"]][1] += l["bios"]
        parts = [l[k] for k in ("sub_ns", "below_ns", "comp_ns")]
        if None not in parts and l["total_ns"] != sum(parts):
            errors.append("io %d at %s: parts %s do not sum to %d"
                          % (r["io"], l["dev"], parts, l["total_ns"]))
    if r["latency_ns"] is not None and r["layers"][0]["total_ns"] != r["latency_ns"]:
        errors.append("io %d: latency %s, top layer %s"
                      % (r["io"], r["latency_ns"], r["layers"][0]["total_ns"]))
for layer in report["layers"]:
    want = [sum(op["bytes"] for op in layer["ops"].values()),
            sum(op["ios"] for op in layer["ops"].values())]
    if by_dev[layer["dev"]] != want:
        errors.append("%s: rows %s bytes/bios, report %s" % (layer["dev"], by_dev[layer["dev"]], want))

# CSV: the same rows, the same values where both have them
with open(out + "/rows.csv", newline="") as f:
    table = list(csv.DictReader(f))
if len(table) != len(rows):
    errors.append("csv: %d rows, jsonl %d" % (len(table), len(rows)))
for c, j in zip(table, rows):
    for k in ("io", "op", "dev", "sector", "bytes", "pid", "comm", "q_ns", "c_ns", "latency_ns"):
        want = "" if j[k] is None else str(j[k])
        if c[k] != want:
            errors.append("csv io %s: %s is '%s', jsonl '%s'" % (c["io"], k, c[k], want))
            break
    for i, l in enumerate(j["layers"][:8]):
        if c["l%d_dev" % i] != l["dev"] or c["l%d_total_ns" % i] != ("" if l["total_ns"] is None else str(l["total_ns"])):
            errors.append("csv io %s: layer %d differs from jsonl" % (c["io"], i))

# Perfetto
text = open(out + "/rows.perfetto").read()
doc = json.loads(text, parse_float=Decimal)
names, slices, flows = {}, defaultdict(list), {}
tops = 0
for ev in doc["traceEvents"]:
    ph = ev["ph"]
    if ph == "M":
        if ev["name"] == "process_name":
            if ev["pid"] in names:
                errors.append("perfetto: pid %d named twice" % ev["pid"])
            names[ev["pid"]] = ev["args"]["name"]
        continue
    ts = int(ev["ts"] * 1000)
    if ev["ts"] * 1000 != ts:
        errors.append("perfetto: ts %s is not whole nanoseconds" % ev["ts"])
    if ph == "X":
        end = ts + int(ev["dur"] * 1000)
        slices[(ev["pid"], ev["tid"])].append((ts, end, ev["name"], "args" in ev))
        if "args" in ev and ev["args"]["depth"] == 0:
            tops += 1
    elif ph in "sf":
        flows.setdefault(ev["id"], {})[ph] = (ev["pid"], ev["tid"], ts)
    else:
        errors.append("perfetto: unexpected phase %s" % ph)
devs = set(l["dev"] for r in rows for l in r["layers"])
if len(names) != len(devs):
    errors.append("perfetto: %d processes for %d devices" % (len(names), len(devs)))
if tops != len(rows):
    errors.append("perfetto: %d top slices for %d I/Os" % (tops, len(rows)))


def enclosing(track, ts):
    return any(s[0] <= ts <= s[1] for s in slices.get(track, []))


for track, ss in slices.items():
    # by start, the longer first: an enclosing slice comes before what it holds
    ss.sort(key=lambda s: (s[0], -s[1]))
    stack = []
    for s in ss:
        while stack and stack[-1][1] <= s[0]:
            stack.pop()
        if stack and s[1] > stack[-1][1]:
            errors.append("perfetto: %s %s crosses %s on %s" % (s[2], s[:2], stack[-1][2], track))
            break
        if not s[3] and not stack:
            errors.append("perfetto: phase %s %s outside any I/O on %s" % (s[2], s[:2], track))
            break
        stack.append(s)
for fid, f in flows.items():
    if set(f) != {"s", "f"}:
        errors.append("perfetto: flow %s lacks an end" % fid)
    elif not enclosing(f["s"][:2], f["s"][2]) or not enclosing(f["f"][:2], f["f"][2]):
        errors.append("perfetto: flow %s is not inside slices at both ends" % fid)
if errors:
    print("FAIL %s: %s" % (name, "; ".join(errors[:8])))
    sys.exit(1)
print("ok   %s: %d rows, %d devices, %d slices, %d arrows" %
      (name, len(rows), len(names), sum(len(s) for s in slices.values()), len(flows)))
PY
		failed=1
	fi

	# with the stack, the I/O of a device with holders (dm-thin's metadata)
	# is its holder's own: rows and report count the same top-level I/Os
	if [ -f "$topo" ]; then
		"$BLKSTACK" convert -i "$dat" -F jsonl --topology "$topo" -o "$out/stack.jsonl" 2>/dev/null &&
			"$BLKSTACK" report -i "$dat" --topology "$topo" --json -o "$out/stack.json" ||
			bad "$name: convert or report with --topology failed"
		python3 - "$out/stack.jsonl" "$out/stack.json" "$name" <<'PY' || bad "$name: rows and report differ with the stack"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
t = json.load(open(sys.argv[2]))["tracking"]
tops = sum(r["top"] for r in rows)
issued = t["layer_issued_ios"] + t["layer_caused_ios"] + t["unexplained_ios"]
ok = (tops, len(rows)) == (t["top_level_ios"], t["top_level_ios"] + issued)
print("%s %s with its stack: %d rows (%d top-level), report %d top-level + %d layer-issued" %
      ("ok  " if ok else "FAIL", sys.argv[3], len(rows), tops, t["top_level_ios"], issued))
sys.exit(0 if ok else 1)
PY
	fi
done
[ "$n" -gt 0 ] || { echo "FAIL: no fixtures in $FIXTURES/vm"; exit 1; }

# --- btt-data: btt's -m file past its first buffer ---------------------------------
if [ "$have_blkparse" = 1 ]; then
	sps=$tmp/sps
	mkdir "$sps"
	"$BLKSTACK" convert -i "$FIXTURES/btt/sps-190s.dat" --to blktrace -o "$sps/bt" 2>"$sps/err" &&
		(cd "$sps" && blkparse -q -i bt -d bt.dump -o /dev/null >/dev/null 2>&1) ||
		bad "sps-190s: convert --to blktrace or blkparse failed: $(cat "$sps/err")"
	before=$failed
	failed=0
	per_second "$FIXTURES/btt/sps-190s.dat" "$sps/bt.dump" "$sps" sps-190s
	[ "$failed" -eq 0 ] && echo "ok   sps-190s: btt-data's files per second are btt's, -m's past a buffer too"
	failed=$((failed | before))
fi

# --- faults -----------------------------------------------------------------------
if command -v valgrind >/dev/null 2>&1; then
	vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
else
	vg=()
	echo "note: valgrind is not installed: crashes are checked, memory errors are not"
fi

# convert WANT_RC INPUT FORMAT OUT: exit status, a message naming INPUT or
# OUT, and nothing under the final output name unless it succeeded
convert() {
	local want=$1 in=$2 fmt=$3 o=$4 rc=0 final

	"${vg[@]}" "$BLKSTACK" convert -i "$in" --to "$fmt" -o "$o" >"$tmp/f.out" 2>"$tmp/f.err" || rc=$?
	[ "$rc" -ne 99 ] && [ "$rc" -lt 128 ] ||
		{ cat "$tmp/f.err"; bad "convert $in --to $fmt: crashed or memory errors (exit $rc)"; return; }
	[ "$rc" -eq "$want" ] ||
		{ bad "convert $in --to $fmt: exit $rc, want $want: $(cat "$tmp/f.err")"; return; }
	[ "$rc" -eq 0 ] && return
	grep -qF -e "'$in'" -e "'$o" "$tmp/f.err" ||
		bad "convert $in --to $fmt: the message names neither file: $(cat "$tmp/f.err")"
	final=$o
	[ "$fmt" != blktrace ] || final=$o.blktrace.0
	[ ! -e "$final" ] || bad "convert $in --to $fmt: failed, yet '$final' exists"
}

good=$FIXTURES/vm/6.1.0-56-amd64-ref-sata.dat
size=$(stat -c %s "$good")
mkdir "$tmp/faults"
f=$tmp/faults
head -c $((size / 2)) "$good" >"$f/half.dat"
head -c 4096 "$good" >"$f/head.dat"
: >"$f/empty.dat"
printf 'not a trace\n' >"$f/text.dat"
for fmt in blktrace csv jsonl perfetto; do
	convert 1 "$f/half.dat" "$fmt" "$f/half-$fmt"
	convert 1 "$f/head.dat" "$fmt" "$f/head-$fmt"
	convert 1 "$f/empty.dat" "$fmt" "$f/empty-$fmt"
	convert 1 "$f/text.dat" "$fmt" "$f/text-$fmt"
	convert 1 "$f/missing.dat" "$fmt" "$f/missing-$fmt"
	# an output directory that does not exist
	convert 1 "$good" "$fmt" "$f/no/such/dir/out"
done
# cut in its data: what could be read is kept, under .partial
ls "$f"/half-blktrace.blktrace.0.partial "$f"/half-csv.partial >/dev/null 2>&1 ||
	bad "a truncated recording left no .partial output"
# a v7 file cut short
head -c 20000 "$FIXTURES/vm/6.1.0-56-amd64-ref-virtio-v7.dat" >"$f/v7cut.dat"
convert 1 "$f/v7cut.dat" perfetto "$f/v7cut.json"
# a good file under valgrind, every format
for fmt in blktrace csv jsonl perfetto; do
	convert 0 "$good" "$fmt" "$f/good-$fmt"
done
# usage errors: exit 2
for args in "--to csv" "-i $good" "-i $good --to xml" "-i $good --to blktrace"; do
	rc=0
	# shellcheck disable=SC2086
	"$BLKSTACK" convert $args >/dev/null 2>"$tmp/f.err" || rc=$?
	[ "$rc" -eq 2 ] || bad "convert $args: exit $rc, want 2"
	grep -q "convert --help" "$tmp/f.err" || bad "convert $args: no pointer to --help"
done
[ "$failed" -eq 0 ] && echo "ok   faults: damaged, empty, missing input and missing output directory: exit 1 naming the file, nothing presented as complete; usage errors: exit 2"
exit "$failed"
