#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Direct I/O of a file in report --by file, on ext4 on a loop partition,
# the workload's own bytes the oracle (dd's O_DIRECT reads and writes):
#
# - a trace-cmd recording of the block and filemap events but not iomap's
#   (the kernel's direct-I/O events): the direct I/O cannot be given to its
#   file, and counts as "direct" (all its bytes), not as "raw" (which is
#   I/O to the block device itself) nor "unattributed";
# - the same workload live, with this kernel's iomap events: the files get
#   their bytes;
# - dd from the partition's node with O_DIRECT: "raw".
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool trace-cmd python3
make_loop A 64 ext4

dd_quiet if=/dev/urandom of="$A_MNT/f" bs=64k count=16 conv=fsync
sync
echo 3 >/proc/sys/vm/drop_caches
printf '%s\n' "set -e" \
	"dd status=none if=$A_MNT/f of=/dev/null bs=64k count=16 iflag=direct" \
	"dd status=none if=/dev/zero of=$A_MNT/g bs=64k count=8 oflag=direct" >"$TMPD/work.sh"
want_read=$((16 * 65536))
want_write=$((8 * 65536))

# (1) no iomap events in the recording (see test-agree-tracecmd.sh for -B,
# test-agree-blktrace.sh for -b: every device's events, other tests' too)
tc_inst=bstest-dio-$$
_clean_instances+=("$tc_inst")
trace-cmd record -B "$tc_inst" -b 16384 -d --no-filter -e block -e filemap -o "$TMPD/noiomap.dat" -- \
	sh "$TMPD/work.sh" >"$TMPD/tc.log" 2>&1 || true
remove_instance "$tc_inst" || fail "cannot remove trace-cmd's instance $tc_inst"
[ -s "$TMPD/noiomap.dat" ] || { cat "$TMPD/tc.log" >&2; fail "trace-cmd record wrote no recording"; }
"$BLKSTACK" report -i "$TMPD/noiomap.dat" --by file --json -o "$TMPD/noiomap.json" 2>"$TMPD/err" ||
	{ cat "$TMPD/err" >&2; fail "report --by file of the recording failed"; }
python3 - "$TMPD/noiomap.json" "$want_read" "$want_write" <<'PY' ||
import json, sys
doc, rd, wr = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
c = doc["not_files"]
errs = []
# other I/O of the machine may add to "direct", never take from it
if c["direct"]["read_bytes"] < rd or c["direct"]["write_bytes"] < wr:
    errs.append("direct: %d read, %d written; dd read %d, wrote %d directly"
                % (c["direct"]["read_bytes"], c["direct"]["write_bytes"], rd, wr))
if c["direct"]["direct_bytes"] != c["direct"]["read_bytes"] + c["direct"]["write_bytes"]:
    errs.append("direct: direct_bytes %d of %d" % (c["direct"]["direct_bytes"],
                c["direct"]["read_bytes"] + c["direct"]["write_bytes"]))
if c["raw"]["read_bytes"] >= rd or c["raw"]["write_bytes"] >= wr:
    errs.append("raw: %d read, %d written: the file's direct I/O"
                % (c["raw"]["read_bytes"], c["raw"]["write_bytes"]))
if errs:
    print("\n".join(errs))
    # where the bytes went instead
    print("  not files: %s" % {k: (v["read_bytes"], v["write_bytes"]) for k, v in c.items()})
    for f in sorted(doc["files"], key=lambda f: -(f.get("read_bytes") or 0))[:5]:
        print("  file %s: %s read, %s written" % (f.get("name"), f.get("read_bytes"), f.get("write_bytes")))
    sys.exit(1)
PY
	fail "direct I/O of a recording without iomap events (see above)"
note "a recording without iomap events: the file's direct I/O counts as direct, not raw: ok"

# (2) live, with this kernel's iomap events: the files get their bytes
if [ -d "$TRACEFS/events/iomap" ]; then
	"$BLKSTACK" report -d "$A_MNT" --by file --json -o "$TMPD/live.json" -- sh "$TMPD/work.sh" \
		2>"$TMPD/err" || { cat "$TMPD/err" >&2; fail "report --by file, live, failed"; }
	python3 - "$TMPD/live.json" "$want_read" "$want_write" <<'PY' ||
import json, sys
doc, rd, wr = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
files = {f["path"].rsplit("/", 1)[-1]: f for f in doc["files"]}
errs = []
f, g = files.get("f", {}), files.get("g", {})
if f.get("read_bytes") != rd or f.get("direct_bytes", 0) < rd:
    errs.append("f: %s, dd read %d directly" % (f, rd))
if g.get("write_bytes") != wr:
    errs.append("g: %s, dd wrote %d directly" % (g, wr))
if errs:
    print("\n".join(errs))
    sys.exit(1)
PY
		fail "direct I/O live (see above)"
	note "live, with iomap events: each file gets its direct I/O: ok"
else
	note "this kernel has no iomap events: the live check is left out"
fi

# (3) the block device's node, O_DIRECT: raw
umount "$A_MNT"
_clean_mounts=()
"$BLKSTACK" report -d "$A_PDEV" --by file --json -o "$TMPD/raw.json" -- \
	dd status=none if="$A_PDEV" of=/dev/null bs=64k count=4 iflag=direct 2>"$TMPD/err" ||
	{ cat "$TMPD/err" >&2; fail "report --by file of a raw read failed"; }
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["not_files"]
sys.exit(0 if c["raw"]["read_bytes"] == 4 * 65536 and c["direct"]["read_bytes"] == 0 else 1)' \
	"$TMPD/raw.json" || fail "O_DIRECT from the device node is not raw: $(head -c 2000 "$TMPD/raw.json")"
note "O_DIRECT reads of the device node: raw: ok"
