#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# report --json keeps every key blkstack-report(8) documents, null where
# there is no value, never left out: a recording without its stack (no
# names: "name" null; no "devices": null; no command: null), and with it,
# with --slowest, --access and --amplification; on every recording of
# tests/fixtures/vm. The lists below are the man page's, section JSON.
# Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
for dat in "$FIXTURES"/vm/*.dat; do
	name=$(basename "$dat" .dat)
	for stack in none topo; do
		t=()
		[ "$stack" = topo ] && t=(--topology "${dat%.dat}.topo")
		"$BLKSTACK" report -i "$dat" "${t[@]}" --json --slowest 3 --access --amplification \
			-o "$tmp/r.json" 2>"$tmp/err" ||
			{ echo "FAIL $name ($stack): $(cat "$tmp/err")"; failed=1; continue; }
		python3 - "$tmp/r.json" "$name ($stack)" "$stack" <<'PY' || failed=1
import json, sys
doc, name, stack = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
missing = []
def need(obj, keys, where):
    for k in keys.split():
        if k not in obj:
            missing.append("%s.%s" % (where, k))
need(doc, "source first_ns last_ns events_lost truncated command devices layers end_to_end "
          "processes tracking amplification slowest_of slowest access", "")
for l in doc["layers"]:
    need(l, "dev name parent parents kind ops", "layers[]")
    for p in l["parents"]:
        need(p, "dev name bios data_bios", "layers[].parents[]")
    if stack == "none" and l["name"] is not None:
        missing.append("layers[].name is %r without a stack, not null" % l["name"])
tops = [l for l in doc["layers"] if l["parent"] is None]
if not tops:
    missing.append("no layer with a null parent")
for op, e in doc["end_to_end"].items():
    need(e, "ios bytes matched total_ns total_ns_sum waterfall", "end_to_end." + op)
    for w in e["waterfall"]:
        need(w, "dev name depth parent down_ns device_ns up_ns", "waterfall[]")
for p in doc["processes"]:
    need(p, "pid comm ios bytes total_ns", "processes[]")
need(doc["tracking"], "events top_level_ios top_level_matched match_rate cpus", "tracking")
for c in doc["tracking"]["cpus"]:
    need(c, "cpu events lost", "tracking.cpus[]")
for s in doc["slowest"]:
    need(s, "rank latency_ns op dev name sector bytes q_ns c_ns pid comm file matched layers",
         "slowest[]")
    for l in s["layers"]:
        need(l, "dev name parent depth kind bios bytes q_ns c_ns submission_ns below_ns "
                "completion_ns total_ns splits merges", "slowest[].layers[]")
for l in doc["amplification"]["layers"]:
    need(l, "dev name kind served_ios served_bytes issued_ios issued_bytes io_amplification "
            "byte_amplification", "amplification.layers[]")
if stack == "none" and doc["devices"] is not None:
    missing.append("devices is not null without a stack")
if stack == "topo" and not doc["devices"]:
    missing.append("devices is empty with the stack")
if doc["command"] is not None or doc["truncated"] is not None:
    missing.append("command or truncated not null for a whole recording")
missing = sorted(set(missing))
if missing:
    print("FAIL %s: %s" % (name, "; ".join(missing[:10])))
    sys.exit(1)
print("ok   %s: every documented key, %d layers" % (name, len(doc["layers"])))
PY
	done
done
exit "$failed"
