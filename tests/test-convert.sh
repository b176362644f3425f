#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack convert --to blktrace on a live recording: trace-cmd records the
# block events (file version 6) while dd writes and reads a partition of a
# loop device, made with addpart. Then
#
#  - blkparse -i OUT prints, per device and action, the same counts as
#    blkstack parse of the recording (and the same lines);
#  - btt runs on blkparse -d of the files, and its D2C and Q2C averages for
#    the disk under the partition equal those of blkstack report -i on the
#    recording within 1% (btt's Q is the bio's queue event at the disk, after
#    its remap from the partition: so is the report's);
#  - the device map names the devices as the recording's stack does (the
#    file is blkstack record's, which carries it).
#  - the files are created 0600 and btt-data's directory 0700, under umask
#    000 too;
#  - a full disk (a small tmpfs) while converting: exit status 1, a message
#    naming the file, the .partial files left and nothing under the final
#    names.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool trace-cmd blkparse btt python3

make_loop A 64
tc_inst=bstest-cv-$$
_clean_instances+=("$tc_inst")
# record OUT WORKLOAD: trace-cmd's recording (file version 6) of WORKLOAD
record() {
	local out=$1 attempt

	# trace-cmd's own file must be readable by trace-cmd: on a loaded
	# machine a recording has come out unreadable once; record again
	# rather than blame us
	for attempt in 1 2 3; do
		rm -f "$out"
		trace-cmd record -B "$tc_inst" -b 16384 -d --no-filter --file-version 6 -e block -o "$out" \
			-- sh -c "$2" >"$TMPD/tc.log" 2>&1 || true # lockdown fails its reset
		remove_instance "$tc_inst" || fail "cannot remove trace-cmd's instance $tc_inst"
		[ -s "$out" ] || { cat "$TMPD/tc.log" >&2; fail "trace-cmd record wrote no '$out'"; }
		trace-cmd report "$out" >/dev/null 2>&1 && return 0
		note "attempt $attempt: trace-cmd cannot read its own recording; recording again"
	done
}

# direct I/O of several sizes, each bio a request of its own (no split,
# no merge, no flush): this tree's report counts btt's phases as btt does
# for such I/O
direct() {
	echo "dd status=none if=/dev/zero of=$1 bs=64k count=16 oflag=direct &&
	dd status=none if=/dev/zero of=$1 bs=4k count=32 seek=1024 oflag=direct &&
	dd status=none if=/dev/zero of=$1 bs=512k count=8 seek=16 oflag=direct &&
	dd status=none if=$1 of=/dev/null bs=16k count=16 iflag=direct &&
	dd status=none if=$1 of=/dev/null bs=512k count=8 skip=16 iflag=direct"
}
rec=$TMPD/rec.dat
record "$rec" "$(direct "$A_PDEV") &&
	dd status=none if=/dev/zero of=$A_PDEV bs=4k count=64 seek=8192 conv=fsync"

# --- blkparse on the converted files -------------------------------------------
(umask 000 && exec "$BLKSTACK" convert -i "$rec" --to blktrace -o "$TMPD/bt") 2>"$TMPD/cv.err" ||
	{ cat "$TMPD/cv.err" >&2; fail "convert --to blktrace failed"; }
# the user's alone, whatever the umask: they name the processes that did the I/O
for f in "$TMPD"/bt.blktrace.* "$TMPD/bt.devmap"; do
	[ "$(stat -c %a "$f")" = 600 ] || fail "$f is mode $(stat -c %a "$f") under umask 000, not 600"
done
(umask 000 && exec "$BLKSTACK" convert -i "$rec" --to btt-data -o "$TMPD/bttdata") 2>"$TMPD/cv.err" ||
	{ cat "$TMPD/cv.err" >&2; fail "convert --to btt-data failed"; }
[ "$(stat -c %a "$TMPD/bttdata")" = 700 ] || fail "the btt-data directory is mode $(stat -c %a "$TMPD/bttdata"), not 700"
[ -z "$(find "$TMPD/bttdata" -type f ! -perm 600)" ] || fail "btt-data files not 600: $(find "$TMPD/bttdata" -type f ! -perm 600)"
[ -n "$(find "$TMPD/bttdata" -type f)" ] || fail "convert --to btt-data wrote no file"
"$BLKSTACK" parse -i "$rec" --no-summary -o "$TMPD/parse.txt"
blkparse -q -i "$TMPD/bt" -o "$TMPD/bp.txt" >"$TMPD/bp.err" 2>&1 ||
	{ cat "$TMPD/bp.err" >&2; fail "blkparse could not read the converted files"; }
count_actions "$TMPD/parse.txt" >"$TMPD/parse.counts"
count_actions "$TMPD/bp.txt" >"$TMPD/bp.counts"
grep -q "^$A_MM Q " "$TMPD/bp.counts" || fail "blkparse shows no Q of the disk $A_MM"
grep -q "^$A_MM A " "$TMPD/bp.counts" || fail "blkparse shows no remap into the disk $A_MM"
diff -u "$TMPD/parse.counts" "$TMPD/bp.counts" >&2 ||
	fail "per (device, action) counts differ: blkstack parse (-) vs blkparse of the converted files (+)"
# every field but the [comm]: blkparse keeps the first name a pid had (a
# shell that runs dd is "sh" to it), the text log shows each event's
lines() {
	awk '$1 ~ /^[0-9]+,[0-9]+$/ && $6 ~ /^[A-Z]+$/ {
		if ($6 != "C" && $6 != "R")
			sub(/\[[^]]*\]/, "[]")
		print }' "$1" | LC_ALL=C sort
}
diff -u <(lines "$TMPD/parse.txt") <(lines "$TMPD/bp.txt") >&2 ||
	fail "lines differ: blkstack parse (-) vs blkparse of the converted files (+)"
note "blkparse of the converted files: $(wc -l <"$TMPD/bp.counts") (device, action) counts and every line as blkstack parse"

# --- btt against blkstack report, on the partition's recording -------------------
disk=$TMPD/disk.dat
"$BLKSTACK" record -d "$A_PDEV" -o "$disk" -- sh -c "$(direct "$A_PDEV")" 2>"$TMPD/rec.err" ||
	{ cat "$TMPD/rec.err" >&2; fail "blkstack record of the partition failed"; }
"$BLKSTACK" convert -i "$disk" --to blktrace -o "$TMPD/disk" 2>"$TMPD/cv.err" ||
	{ cat "$TMPD/cv.err" >&2; fail "convert --to blktrace of the partition's recording failed"; }
# the device map: the recorded stack's names, the partition's above its disk's
printf '%s %s\n%s %s\n' "$A_PNAME" "$A_PMM" "$A_NAME" "$A_MM" | diff -u - "$TMPD/disk.devmap" >&2 ||
	fail "the device map does not name the recorded stack (want -, got +)"
(cd "$TMPD" && blkparse -q -i disk -d disk.dump -o /dev/null >/dev/null 2>&1) ||
	fail "blkparse -d could not write btt's input"
# btt's per-device tables (-A) of the disk (-D; a device with no event of
# its own, such as a partition, crashes it)
(cd "$TMPD" && btt -A -i disk.dump -M disk.devmap -D "$A_MM" -o btt >btt.log 2>&1) ||
	{ cat "$TMPD/btt.log" >&2; fail "btt failed on the converted files"; }
# btt_avg PHASE: the disk's line in the Per Device table of PHASE, in ns
btt_avg() {
	awk -v p="$1" -v d="${A_MM/,/:}" -v n="$A_NAME" '
		/^=+ Per Device =+$/ { dev = 1; next }
		/^=+ .* =+$/ { dev = 0 }
		dev && $1 == p { table = 1; next }
		dev && table && ($1 == d || $1 == n) { printf "%.0f\n", $3 * 1e9; exit }
		dev && table && NF == 0 { table = 0 }' "$TMPD/btt.avg"
}
d2c=$(btt_avg D2C)
q2c=$(btt_avg Q2C)
[ -n "$d2c" ] && [ -n "$q2c" ] || { cat "$TMPD/btt.avg" >&2; fail "btt printed no D2C or Q2C"; }
"$BLKSTACK" report -i "$disk" --json -o "$TMPD/report.json"
python3 - "$TMPD/report.json" "${A_MM/,/:}" "D2C:$d2c" "Q2C:$q2c" <<'PY' ||
import json, sys
doc = json.load(open(sys.argv[1]))
dev = sys.argv[2]
layer = [l for l in doc["layers"] if l["dev"] == dev]
if not layer:
    sys.exit("no layer %s in the report" % dev)
failed = False
for arg in sys.argv[3:]:
    phase, btt_ns = arg.split(":")
    btt_ns = float(btt_ns)
    n = total = 0
    for op in layer[0]["ops"].values():
        h = op.get("btt", {}).get(phase.lower() + "_ns", {"count": 0})
        n += h["count"]
        total += h.get("avg", 0) * h["count"]
    if not n:
        sys.exit("no %s at %s in the report" % (phase, dev))
    off = abs(total / n - btt_ns) / btt_ns * 100
    print("  %s: blkstack %.1f us over %d, btt %.1f us: %.2f%% apart"
          % (phase, total / n / 1000, n, btt_ns / 1000, off))
    failed |= off > 1.0
sys.exit(1 if failed else 0)
PY
	fail "btt's D2C or Q2C average on the converted files is more than 1% from blkstack report's"
note "btt on the converted files of the partition's recording: D2C and Q2C within 1% of blkstack report; the device map names the stack"

# --- a full disk ------------------------------------------------------------------
full=$TMPD/full
mkdir "$full"
mount -t tmpfs -o size=16k tmpfs "$full" || skip "cannot mount a small tmpfs"
_clean_mounts+=("$full")
for fmt in blktrace csv perfetto; do
	rc=0
	"$BLKSTACK" convert -i "$rec" --to "$fmt" -o "$full/out-$fmt" 2>"$TMPD/full.err" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$TMPD/full.err" >&2; fail "--to $fmt on a full disk: exit $rc, want 1"; }
	grep -q "No space left on device" "$TMPD/full.err" ||
		fail "--to $fmt on a full disk: the message does not say so: $(cat "$TMPD/full.err")"
	grep -qF "'$full/out-$fmt" "$TMPD/full.err" ||
		fail "--to $fmt on a full disk: the message does not name the file: $(cat "$TMPD/full.err")"
	final=$full/out-$fmt
	[ "$fmt" != blktrace ] || final=$full/out-$fmt.blktrace.0
	[ ! -e "$final" ] || fail "--to $fmt on a full disk: '$final' is presented as complete"
	ls "$full/out-$fmt"*.partial >/dev/null 2>&1 || fail "--to $fmt on a full disk: no .partial left"
	rm -f "$full"/*
done
note "a full disk: exit 1 naming the file, only .partial files left"
