#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# report -i of a truncated recording (the fixtures of tests/fixtures/vm cut
# short, as a copy interrupted or a full disk leaves them) reports what can
# be read, up to where the first cut CPU's data ends, with a warning in the
# report and on stderr that says where that is and what it means, and
# exits 1 (blkstack-report(8), EXIT STATUS):
#
# - cut inside one CPU's data: the top-level I/Os reported are exactly
#   those whose completion at a top device the full recording shows at or
#   before that time (trace-cmd report -t of the full file, the oracle: an
#   I/O completed by then has every event before the cut); the JSON's
#   "truncated" says the CPU and the time;
# - cut before a CPU's first page: that CPU is named as missing whole;
# - the whole recording: "truncated" null, exit 0.
# Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed (apt-get install trace-cmd)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL $*"; failed=1; }

for name in 6.1.0-56-amd64-md-raid1 6.12.117+deb12-amd64-nvme-snap; do
	dat=$FIXTURES/vm/$name.dat
	topo=$FIXTURES/vm/$name.topo
	size=$(stat -c %s "$dat")
	"$BLKSTACK" report -i "$dat" --topology "$topo" --json -o "$tmp/full.json" ||
		{ fail "$name: the report of the whole recording failed"; continue; }
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["truncated"] is not None)' \
		"$tmp/full.json" || fail "$name: the whole recording is said to be truncated"
	trace-cmd report -t "$dat" 2>/dev/null | grep ' block_bio_complete: ' >"$tmp/complete.txt"

	# the first cut, from the end back, that leaves one CPU cut with data left
	found=0
	for k in $(seq 1 64); do
		head -c $((size - k * 8192)) "$dat" >"$tmp/cut.dat"
		rc=0
		"$BLKSTACK" report -i "$tmp/cut.dat" --topology "$topo" --json -o "$tmp/cut.json" \
			2>"$tmp/cut.err" || rc=$?
		[ "$rc" -eq 1 ] || { fail "$name: report of a cut recording exited $rc, not 1"; break; }
		if python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["truncated"]
sys.exit(not (t and t["until_ns"] and not t["missing_cpus"]))' "$tmp/cut.json"; then
			found=1
			break
		fi
	done
	[ "$found" = 1 ] || { fail "$name: no cut leaves one CPU cut with data"; continue; }
	grep -q "is reported up to .* s (trace clock), where the data of cpu[0-9]* ends" "$tmp/cut.err" ||
		fail "$name: stderr does not say where the report ends: $(cat "$tmp/cut.err")"
	"$BLKSTACK" report -i "$tmp/cut.dat" --topology "$topo" -o "$tmp/cut.txt" 2>/dev/null || true
	grep -q "^WARNING: .* is truncated: reported up to .*I/Os in flight there are counted as expired" \
		"$tmp/cut.txt" || fail "$name: the text report does not warn where it ends"
	python3 - "$tmp/cut.json" "$tmp/full.json" "$tmp/complete.txt" "$name" <<'PY' || failed=1
import json, sys
cut, full = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
name = sys.argv[4]
tops = {l["dev"].replace(":", ",") for l in full["layers"] if l["parent"] is None}
until = cut["truncated"]["until_ns"]
want = 0
for line in open(sys.argv[3]):
    f = line.split()
    i = f.index("block_bio_complete:")
    ts = int(f[i - 1].rstrip(":").replace(".", ""))
    if f[i + 1] in tops and ts <= until:
        want += 1
got = sum(e["ios"] for e in cut["end_to_end"].values())
total = sum(e["ios"] for e in full["end_to_end"].values())
if got != want or not 0 < got < total:
    print("FAIL %s: cut at %d ns (cpu%d): %d top-level I/Os reported, %d completed by then "
          "(of %d)" % (name, until, cut["truncated"]["cpu"], got, want, total))
    sys.exit(1)
print("ok   %s: cut at %.6f s, where cpu%d's data ends: the %d top-level I/Os completed by then "
      "(of %d), %d expired at the cut" % (name, until / 1e9, cut["truncated"]["cpu"], got, total,
                                          cut["tracking"]["expired"]))
PY

	# a cut before the last CPU's first page: that CPU is missing whole
	found=0
	for part in 2/3 1/2 1/3; do
		head -c $((size * ${part%/*} / ${part#*/})) "$dat" >"$tmp/cut.dat"
		rc=0
		"$BLKSTACK" report -i "$tmp/cut.dat" -o "$tmp/cut.txt" 2>"$tmp/cut.err" || rc=$?
		[ "$rc" -eq 1 ] || fail "$name: report of a recording cut at $part exited $rc, not 1"
		if grep -q "truncated before any data of cpu[0-9]" "$tmp/cut.err"; then
			found=1
			break
		fi
	done
	[ "$found" = 1 ] && grep -q "^WARNING: .* is truncated before any data of cpu[0-9]" "$tmp/cut.txt" ||
		fail "$name: a CPU with no data left is not named: $(cat "$tmp/cut.err")"
done
exit "$failed"
