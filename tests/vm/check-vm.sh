#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot the ref-virtio stack (tests/vm/vm.sh) and check the recorded trace against
# what the stack must produce on a real kernel:
#   - every partition -> disk remap adds the partition's start, and follows a
#     remap from a dm device onto the whole disk at the partition-relative sector
#   - dm -> dm remaps, block_split on dm devices
#   - every dm device has block_bio_queue and block_bio_complete events
#   - the top device queued exactly the raw phase's 192 KiB write and read
#   - blkstack's text log, when blkstack was built, has remap ('A') lines
# Usage: tests/vm/check-vm.sh [RESULTS_DIR]  (with a directory: check only, no boot)
# Exit: 0 pass, 1 fail, 77 the VM cannot run on this host.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STACK=ref-virtio
ERRORS=0

fail() {
	echo "check-vm: FAIL: $*" >&2
	ERRORS=$((ERRORS + 1))
}
pass() { echo "check-vm: ok: $*"; }
# assert RESULT(1 true/0 false) OK_MESSAGE FAIL_MESSAGE
assert() { if (($1)); then pass "$2"; else fail "$3"; fi; }

if (($#)); then
	RES=$1
else
	OUT=${VM_CHECK_OUT:-$HERE/out/check}
	rc=0
	"$HERE/vm.sh" --stack "$STACK" --out "$OUT" || rc=$?
	case $rc in
	0) ;;
	77) echo "check-vm: SKIP: the VM cannot run here (see vm.sh's reason above)"; exit 77 ;;
	*) echo "check-vm: FAIL: vm.sh exited with $rc; results in $OUT/$STACK" >&2; exit 1 ;;
	esac
	RES=$OUT/$STACK
fi

command -v trace-cmd >/dev/null || { echo "check-vm: SKIP: trace-cmd is not installed"; exit 77; }
DAT=$RES/trace.dat
TOPO=$RES/topo.txt
[[ -s $DAT ]] || { echo "check-vm: FAIL: no trace.dat in $RES" >&2; exit 1; }
[[ -s $TOPO ]] || { echo "check-vm: FAIL: no topo.txt in $RES" >&2; exit 1; }
pass "trace.dat ($(stat -c %s "$DAT") bytes) and topo.txt present"

REPORT=$(mktemp)
trap 'rm -f "$REPORT"' EXIT
trace-cmd report "$DAT" 2>/dev/null >"$REPORT" || { echo "check-vm: FAIL: trace-cmd report failed on $DAT" >&2; exit 1; }

# Every assertion on the event stream, in one awk pass.  Topology lines come
# first ("blk name=... dev=M:m partition=N start=S parent=P holders=..."), then
# the report; device numbers in the report are "M,m".
check=$(awk '
function kv(line, key,   re, m) {
	re = " " key "=[^ ]*"
	if (match(line, re)) return substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
	return ""
}
FNR == NR {
	if ($1 != "blk") next
	name = kv($0, "name"); dev = kv($0, "dev"); sub(":", ",", dev)
	devname[dev] = name; bydev[name] = dev
	if (name ~ /^dm-/) { dm[dev] = 1; if (kv($0, "holders") == "-") top = dev }
	if (kv($0, "partition") != "0") { part[dev] = 1; pstart[dev] = kv($0, "start"); pparent[dev] = kv($0, "parent") }
	next
}
# trace markers: "print: ...: bsk-phase NAME" (the ip is unresolved without kallsyms)
/ print: .* bsk-phase / { phase = $NF; phases[phase] = 1; next }
{
	for (i = 1; i <= NF; i++) if ($i ~ /^block_[a-z_]+:$/) break
	if (i > NF) next
	ev = substr($i, 1, length($i) - 1); d = $(i + 1); rwbs = $(i + 2)
	if (ev == "block_bio_remap") {
		# DEV RWBS SECTOR + NR <- (OLD) OLD_SECTOR
		sec = $(i + 3); nr = $(i + 5); old = $(i + 7); gsub(/[()]/, "", old); osec = $(i + 8)
		remaps++
		if (old in dm && d in dm) dm2dm++
		if (old in dm && !(d in dm)) { last_dm_disk = d; last_dm_sec = sec; last_dm_nr = nr }
		if (old in part) {
			p2d++
			if (bydev[pparent[old]] != d) bad_parent++
			else if (sec != osec + pstart[old]) bad_offset++
			else if (last_dm_disk == d && last_dm_sec == osec && last_dm_nr == nr) pair++
		}
	} else if (ev == "block_split") {
		if (d in dm) dmsplit[d]++
	} else if (ev == "block_bio_queue") {
		q[d]++
		if (d == top && phase == "raw-write" && rwbs ~ /W/) raww += $(i + 5)
		if (d == top && phase == "raw-read" && rwbs ~ /R/) rawr += $(i + 5)
	} else if (ev == "block_bio_complete") {
		c[d]++
	}
}
END {
	printf "remaps %d\n", remaps
	printf "dm2dm %d\n", dm2dm
	printf "part2disk %d\n", p2d
	printf "part2disk_bad_parent %d\n", bad_parent
	printf "part2disk_bad_offset %d\n", bad_offset
	printf "dm2disk_then_part2disk %d\n", pair
	for (x in dm) {
		printf "dm %s %s queue %d complete %d split %d\n", x, devname[x], q[x], c[x], dmsplit[x]
		nsplit += dmsplit[x]
	}
	printf "dmsplit %d\n", nsplit
	printf "top %s\n", top
	printf "raw_write_sectors %d\n", raww
	printf "raw_read_sectors %d\n", rawr
	n = split("raw-write raw-read direct-write direct-read buffered-write rm fstrim flush end", want, " ")
	for (k = 1; k <= n; k++) if (!(want[k] in phases)) printf "missing_phase %s\n", want[k]
}' "$TOPO" "$REPORT")
while read -r line; do echo "check-vm:   $line"; done <<<"$check"

val() { echo "$check" | awk -v k="$1" '$1 == k { print $2 }'; }

assert $(($(val dm2dm) > 0)) \
	"dm -> dm remaps" \
	"no remap from a dm device to another"
assert $(($(val part2disk) > 0)) \
	"partition -> disk remaps" \
	"no remap from a partition to its disk"
assert $(($(val part2disk_bad_parent) == 0 && $(val part2disk_bad_offset) == 0)) \
	"every partition -> disk remap lands on the parent disk at sector + start" \
	"partition -> disk remaps with wrong disk or offset"
assert $(($(val dm2disk_then_part2disk) > 0)) \
	"dm -> whole disk (partition-relative sector) followed by partition -> disk" \
	"no dm -> disk remap followed by the matching partition -> disk remap"
assert $(($(val dmsplit) > 0)) \
	"block_split on dm devices" \
	"no block_split on any dm device"
ndm=0
while read -r _ dev name _ nq _ nc _; do
	ndm=$((ndm + 1))
	((nq > 0 && nc > 0)) || fail "dm device $name ($dev): $nq queue, $nc complete events"
done < <(echo "$check" | grep '^dm ')
assert $((ndm == 4)) \
	"4 dm devices, each with queue and complete events" \
	"expected 4 dm devices, found $ndm"
[[ -n $(val top) ]] || fail "no top dm device in the topology"
assert $(($(val raw_write_sectors) == 384)) \
	"top device queued 192 KiB in raw-write" \
	"top device queued $(val raw_write_sectors) sectors in raw-write, expected 384"
assert $(($(val raw_read_sectors) == 384)) \
	"top device queued 192 KiB in raw-read" \
	"top device queued $(val raw_read_sectors) sectors in raw-read, expected 384"
if echo "$check" | grep -q '^missing_phase'; then fail "workload phases missing from the trace"; else pass "all workload phases marked"; fi

if [[ -e $RES/blkstack.txt ]]; then
	na=$(awk '$6 == "A"' "$RES/blkstack.txt" | wc -l)
	assert $((na > 0)) "blkstack.txt has $na remap (A) lines" "blkstack.txt has no remap (A) lines"
else
	echo "check-vm: note: no blkstack output ($(cat "$RES/blkstack.skipped" 2>/dev/null || echo 'not run'))"
fi

if ((ERRORS)); then
	echo "check-vm: $ERRORS check(s) failed; results in $RES" >&2
	exit 1
fi
echo "check-vm: PASS ($RES)"
