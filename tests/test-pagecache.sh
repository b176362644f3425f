#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Page cache and files, live, on ext4, xfs and btrfs over loop devices made
# here: files of known sizes read after dropping the caches with read(2),
# mmap and O_DIRECT, and one written with fsync, under
# "blkstack report --by dir --json". Each file's disk bytes must be within
# one readahead window of its size (O_DIRECT: exact), its misses its pages,
# each directory the sum of its files; a drop of caches afterwards must
# show each file's pages evicted. On ext4 also: names from the open files
# of a live process, --folded adding up to the bytes, the SVG flame graph,
# and "blkstack cache" as tables and as --log. On each filesystem, the same
# workload recorded with "blkstack record --page-cache" and reported from
# the file alone, with the names the recording carries.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool python3 mkfs.ext4 fincore getconf trace-cmd
for e in filemap/mm_filemap_add_to_page_cache filemap/mm_filemap_delete_from_page_cache \
	writeback/sb_mark_inode_writeback iomap/iomap_dio_rw_begin; do
	[ -d "$TRACEFS/events/$e" ] || skip "this kernel has no $e event"
done
PAGE=$(getconf PAGESIZE)

# The workload: read(2), mmap, O_DIRECT, then a buffered write with fsync.
# With HOLD=1 it keeps its files open a while before it exits, so that
# blkstack can name them from /proc/PID/fd. With RES=FILE it writes there,
# still traced, how many pages of each file fincore finds cached.
cat >"$TMPD/work.py" <<'PY'
import mmap, os, subprocess, sys, time
m = sys.argv[1]
for name in ("d1/r1", "d1/r2"):
    with open(os.path.join(m, name), "rb", buffering=0) as f:
        while f.read(65536):
            pass
with open(os.path.join(m, "d2/m1"), "rb") as f:
    mm = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    s = sum(mm[i] for i in range(0, len(mm), mmap.PAGESIZE))
    mm.close()
fd = os.open(os.path.join(m, "d2/sub/o1"), os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 65536)
while os.readv(fd, [buf]) > 0:
    pass
os.close(fd)
with open(os.path.join(m, "d2/w1"), "wb") as f:
    f.write(os.urandom(200000))
    f.flush()
    os.fsync(f.fileno())
if os.environ.get("HOLD"):
    keep = [open(os.path.join(m, n), "rb") for n in ("d1/r1", "d1/r2", "d2/m1", "d2/w1")]
    time.sleep(1.5)
if os.environ.get("RES"):
    with open(os.environ["RES"], "w") as out:
        for n in ("d1/r1", "d1/r2", "d2/m1", "d2/w1"):
            p = os.path.join(m, n)
            res = subprocess.run(["fincore", "--bytes", "--noheadings", "--raw", "--output",
                                  "RES", p], check=True, capture_output=True, text=True)
            out.write("%s %d\n" % (p, int(res.stdout) // mmap.PAGESIZE))
PY

# A drop of caches, traced, between two looks at what the files have cached.
cat >"$TMPD/drop.sh" <<'SH'
#!/bin/sh
# drop.sh BEFORE AFTER FILE...
before=$1 after=$2
shift 2
for f in "$@"; do echo "$f $(($(fincore --bytes --noheadings --raw --output RES "$f") / $(getconf PAGESIZE)))"; done >"$before"
sync
echo 3 >/proc/sys/vm/drop_caches
for f in "$@"; do echo "$f $(($(fincore --bytes --noheadings --raw --output RES "$f") / $(getconf PAGESIZE)))"; done >"$after"
SH
chmod +x "$TMPD/drop.sh"

declare -A SIZE=([d1/r1]=300000 [d1/r2]=1060864 [d2/m1]=2000000 [d2/sub/o1]=1048576)

make_fs()	# FS: a loop device with FS mounted at $TMPD/mnt-FS, files made, caches dropped
{
	local f

	new_fs "$1"
	mkdir -p "$MNT/d1" "$MNT/d2/sub"
	for f in "${!SIZE[@]}"; do
		head -c "${SIZE[$f]}" /dev/urandom >"$MNT/$f"
	done
	cold
}

# The readahead window of the filesystem's backing device, in bytes.
ra_window()
{
	local bdi kb
	bdi=$(python3 -c 'import os,sys; st=os.stat(sys.argv[1]); print("%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev)))' "$MNT")
	kb=$(cat "/sys/class/bdi/$bdi/read_ahead_kb" 2>/dev/null ||
		cat "/sys/class/block/${DEV#/dev/}/queue/read_ahead_kb")
	echo $((kb * 1024))
}

check_report()	# FS JSON WINDOW RESIDENT
{
	python3 - "$@" "$MNT" "$PAGE" <<'PY' || fail "$1: the files' report does not match the workload (see above)"
import json, sys
fs, path, window, resident, mnt, page = sys.argv[1:7]
window, page = int(window), int(page)
res = {k: int(v) for k, v in (l.rsplit(" ", 1) for l in open(resident).read().splitlines())}
doc = json.load(open(path))
sizes = {"d1/r1": 300000, "d1/r2": 1060864, "d2/m1": 2000000, "d2/sub/o1": 1048576}
files = {f["path"]: f for f in doc["files"]}
errs = []
if not doc["page_cache_events"]:
    errs.append("no page-cache event")
for rel, size in sizes.items():
    f = files.get(mnt + "/" + rel)
    if not f:
        errs.append("%s: not in the report (files: %s)" % (rel, sorted(files)))
        continue
    pages = (size + page - 1) // page
    if rel.endswith("o1"):
        # btrfs serves the first O_DIRECT read at offset 0 through the page
        # cache (iomap_dio_rw_begin, then readahead): at most one window of it
        if (abs(f["read_bytes"] - size) > window or f["direct_bytes"] < size - window or
                f["misses"] * page > window):
            errs.append("%s: O_DIRECT read %d bytes (%d direct, %d pages cached), want %d" %
                        (rel, f["read_bytes"], f["direct_bytes"], f["misses"], size))
        if not f["misses"] and (f["read_bytes"] != size or f["direct_bytes"] != size):
            errs.append("%s: O_DIRECT read %d bytes (%d direct), want exactly %d" %
                        (rel, f["read_bytes"], f["direct_bytes"], size))
        continue
    # pages evicted meanwhile (memory pressure) are read again: allowed for
    again = f["evicted"]
    if abs(f["read_bytes"] - size) > window + again * page:
        errs.append("%s: %d bytes read from disk, want %d within %d" %
                    (rel, f["read_bytes"], size, window))
    if not pages <= f["misses"] <= pages + again:
        errs.append("%s: %d misses (%d evicted), want its %d pages" %
                    (rel, f["misses"], again, pages))
    if f["write_bytes"]:
        errs.append("%s: %d bytes written, want none" % (rel, f["write_bytes"]))
    if f["ios_timed"] == 0:
        errs.append("%s: no latency" % rel)
w = files.get(mnt + "/d2/w1")
if not w:
    errs.append("d2/w1: not in the report")
else:
    pages = (200000 + page - 1) // page
    if not (200000 <= w["write_bytes"] <= pages * page + window):
        errs.append("d2/w1: %d bytes written, want 200000 to %d" % (w["write_bytes"], pages * page))
    if not pages <= w["misses"] <= pages + w["evicted"] or w["dirtied"] < 1:
        errs.append("d2/w1: %d misses and %d folios dirtied, want %d misses" % (w["misses"], w["dirtied"], pages))
# what stayed cached, as fincore saw it at the end of the traced workload:
# every page inserted and not evicted (another drop of caches on the
# machine after that look, still traced, can only add evictions)
for p, n in res.items():
    f = files.get(p)
    if f and not f["misses"] - f["evicted"] <= n <= f["misses"]:
        errs.append("%s: %d misses, %d evicted, but %d pages cached" %
                    (p[len(mnt) + 1:], f["misses"], f["evicted"], n))
# every directory is the sum of the files beneath it
keys = ("read_bytes", "write_bytes", "misses", "ra_sync", "ra_async", "evicted", "direct_bytes")
for d in doc["dirs"]:
    prefix = d["path"].rstrip("/") + "/"
    for k in keys:
        s = sum(f[k] for f in doc["files"] if f["path"].startswith(prefix) or d["path"] == "/")
        if d[k] != s:
            errs.append("dir %s: %s %d, but its files sum to %d" % (d["path"], k, d[k], s))
for want in (mnt + "/d1", mnt + "/d2", mnt + "/d2/sub"):
    if want not in {d["path"] for d in doc["dirs"]}:
        errs.append("no directory %s" % want)
share = doc["attributed_bytes"] / max(doc["total_bytes"], 1)
if share < 0.8:
    errs.append("only %.0f%% of the bytes attributed to files" % (share * 100))
for e in errs:
    print("  %s: %s" % (fs, e))
print("  %s: %d files, %.1f%% of %d bytes attributed" % (fs, len(files), share * 100, doc["total_bytes"]))
sys.exit(1 if errs else 0)
PY
}

# Evictions: what the traced drop of caches removed, by fincore before and
# after it (drop_caches skips pages that are busy). A drop of caches
# elsewhere on the machine while this is traced can only add evictions, up
# to what the file had cached.
check_evictions()	# FS DROP.json RESIDENT-BEFORE RESIDENT-AFTER
{
	python3 - "$@" "$MNT" <<'PY' || fail "$1: the evictions do not match what a drop of caches removed"
import json, mmap, os, sys
fs, after, res_before, res_after, mnt = sys.argv[1:6]
a = {f["path"]: f for f in json.load(open(after))["files"]}
rb = dict(l.rsplit(" ", 1) for l in open(res_before).read().splitlines())
ra = dict(l.rsplit(" ", 1) for l in open(res_after).read().splitlines())
errs = []
total = 0
for p in rb:
    got = a.get(p, {}).get("evicted", 0)
    want = int(rb[p]) - int(ra[p])
    pages = (os.stat(p).st_size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
    total += got
    if not want <= got <= pages + a.get(p, {}).get("misses", 0):
        errs.append("%s: %d pages evicted, %d were dropped" % (p[len(mnt) + 1:], got, want))
if not total:
    errs.append("no eviction at all")
for e in errs:
    print("  %s: %s" % (fs, e))
sys.exit(1 if errs else 0)
PY
}

for fs in ext4 xfs btrfs; do
	if [ "$fs" != ext4 ]; then
		command -v "mkfs.$fs" >/dev/null ||
			skip "missing tool 'mkfs.$fs' (Debian: apt-get install ${fs}progs)"
		grep -qw "$fs" /proc/filesystems || modprobe "$fs" 2>/dev/null ||
			skip "this kernel has no $fs"
	fi
	make_fs "$fs"
	window=$(ra_window)
	RES=$TMPD/$fs.cached "$BLKSTACK" report -d "$MNT" --by dir --json --resolve-paths=walk \
		-o "$TMPD/$fs.json" -- python3 "$TMPD/work.py" "$MNT" 2>"$TMPD/$fs.err" ||
		{ cat "$TMPD/$fs.err" >&2; fail "$fs: report --by dir failed"; }
	check_report "$fs" "$TMPD/$fs.json" "$window" "$TMPD/$fs.cached"
	"$BLKSTACK" report -d "$MNT" --by file --json --resolve-paths=walk -o "$TMPD/$fs-drop.json" -- \
		"$TMPD/drop.sh" "$TMPD/$fs.res0" "$TMPD/$fs.res1" \
		"$MNT/d1/r1" "$MNT/d1/r2" "$MNT/d2/m1" "$MNT/d2/w1" 2>"$TMPD/$fs.err" ||
		{ cat "$TMPD/$fs.err" >&2; fail "$fs: report of a drop of caches failed"; }
	check_evictions "$fs" "$TMPD/$fs-drop.json" "$TMPD/$fs.res0" "$TMPD/$fs.res1"
	note "$fs: bytes, misses, directories, evictions: ok"

	# the same workload recorded: the report of the file is the live one's,
	# with the names the recording carries (report -i resolves nothing here)
	cold
	RES=$TMPD/$fs.rcached "$BLKSTACK" record -d "$MNT" --page-cache --resolve-paths=walk \
		-o "$TMPD/$fs.dat" -- python3 "$TMPD/work.py" "$MNT" 2>"$TMPD/$fs.rerr" ||
		{ cat "$TMPD/$fs.rerr" >&2; fail "$fs: record --page-cache failed"; }
	"$BLKSTACK" report -i "$TMPD/$fs.dat" --by dir --json -o "$TMPD/$fs-rec.json" ||
		fail "$fs: report -i of the recording failed"
	check_report "$fs (recorded)" "$TMPD/$fs-rec.json" "$window" "$TMPD/$fs.rcached"
	trace-cmd report "$TMPD/$fs.dat" >"$TMPD/$fs.tc" 2>"$TMPD/$fs.tcerr" ||
		fail "$fs: trace-cmd report cannot read the recording"
	! grep -qi "warn\|error\|fail" "$TMPD/$fs.tcerr" ||
		{ head "$TMPD/$fs.tcerr" >&2; fail "$fs: trace-cmd report warns about the recording"; }
	! grep -q "(NULL)\|FAILED TO PARSE" "$TMPD/$fs.tc" ||
		{ grep "(NULL)\|FAILED TO PARSE" "$TMPD/$fs.tc" | head >&2
		  fail "$fs: trace-cmd report cannot decode some events of the recording"; }
	grep -q "blkstack-file: .* live $MNT/d1/r1\$" "$TMPD/$fs.tc" ||
		fail "$fs: trace-cmd report shows no file-name marker for d1/r1"
	# without --by, the report and parse of the recording take its block
	# events and leave its page-cache events out: the tracker is given
	# exactly the block events trace-cmd shows (buffer events are not I/O)
	"$BLKSTACK" report -i "$TMPD/$fs.dat" --json -o "$TMPD/$fs-blk.json" ||
		fail "$fs: report -i of the recording, block I/O only, failed"
	want=$(grep -E ' block_[a-z_]+:' "$TMPD/$fs.tc" | grep -cvE ' block_(dirty|touch)_buffer:') || true
	got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["tracking"]["events"])' \
		"$TMPD/$fs-blk.json")
	[ "$got" -eq "$want" ] && [ "$want" -gt 0 ] ||
		fail "$fs: report -i gave the tracker $got events, not the recording's $want block events"
	# one word, one meaning: the text says these are block events, and the
	# events read per CPU, page-cache events among them, are more
	"$BLKSTACK" report -i "$TMPD/$fs.dat" -o "$TMPD/$fs-blk.txt" ||
		fail "$fs: text report -i of the recording failed"
	grep -q "^Tracking: $want block events taken;" "$TMPD/$fs-blk.txt" ||
		fail "$fs: the text's Tracking line is not of the $want block events: $(grep '^Tracking' "$TMPD/$fs-blk.txt")"
	read_all=$(awk '/^  cpu[0-9]+: [0-9]+ read, / { n += $2 } END { print n + 0 }' "$TMPD/$fs-blk.txt")
	[ "$read_all" -gt "$want" ] && grep -q "events read (block and page cache)" "$TMPD/$fs-blk.txt" ||
		fail "$fs: $read_all events read per CPU, not more than the $want block events, or not said to count the page cache's"
	"$BLKSTACK" parse -i "$TMPD/$fs.dat" -o "$TMPD/$fs.parse" ||
		fail "$fs: parse -i of the recording failed"
	# every line before the summaries is a block event's
	awk '/^(CPU[0-9]+|Total) \(/ { exit } { n++ }
	     !/^ *[0-9]+,[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+ +[A-Z]+ / { if (!bad++) print "  not an event: " $0 }
	     END { exit !(n > 0 && !bad) }' "$TMPD/$fs.parse" ||
		fail "$fs: parse -i of the recording wrote lines of no block event"
	# convert's rows name each I/O's file: per file, the same bytes as the report
	"$BLKSTACK" convert -i "$TMPD/$fs.dat" --to jsonl -o "$TMPD/$fs.jsonl" 2>/dev/null ||
		fail "$fs: convert --to jsonl of the recording failed"
	python3 - "$TMPD/$fs.jsonl" "$TMPD/$fs-rec.json" <<'PY' || fail "$fs: convert's rows do not give each file the report's bytes"
import collections, json, sys
rows = collections.Counter()
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows[r["file"]] += r["bytes"]
doc = json.load(open(sys.argv[2]))
bad = [(f["path"], f["read_bytes"] + f["write_bytes"], rows[f["path"]])
       for f in doc["files"] if rows[f["path"]] != f["read_bytes"] + f["write_bytes"]]
for b in bad:
    print("  %s: the report has %d bytes, the rows %d" % b)
sys.exit(1 if bad or not doc["files"] else 0)
PY
	"$BLKSTACK" convert -i "$TMPD/$fs.dat" --to perfetto -o "$TMPD/$fs.pf.json" 2>/dev/null ||
		fail "$fs: convert --to perfetto of the recording failed"
	python3 - "$TMPD/$fs.pf.json" "$TMPD/$fs.jsonl" <<'PY' || fail "$fs: the Perfetto slices do not name the rows' files"
import collections, json, sys
rows = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    rows[r["io"]] = r["file"]
files = {}
for ev in json.load(open(sys.argv[1]))["traceEvents"]:
    if ev["ph"] == "X" and "args" in ev:
        files[ev["args"]["io"]] = ev["args"].get("file")
bad = [io for io in files if files[io] != rows.get(io)]
print("  perfetto: %d I/Os, %d with the file of their row" % (len(files), len(files) - len(bad)))
sys.exit(1 if bad or not files else 0)
PY
	note "$fs: record --page-cache: the report of the file, its names, trace-cmd, convert's files (rows, Perfetto): ok"
	[ "$fs" = ext4 ] && EXT4=("$MNT" "$DEV")
done

# ext4 again: names from the open files of the (living) workload, the text
# table, --folded and the flame graph.
MNT=${EXT4[0]} DEV=${EXT4[1]} FSTYPE=ext4
rm -f "$MNT/d2/w1"
cold
HOLD=1 "$BLKSTACK" report -d "$MNT" --by file -o "$TMPD/names.txt" -- python3 "$TMPD/work.py" "$MNT" ||
	fail "report --by file (names from /proc) failed"
for f in d1/r1 d1/r2 d2/m1 d2/w1; do
	grep -q "^$MNT/$f " "$TMPD/names.txt" ||
		{ cat "$TMPD/names.txt" >&2; fail "$f was not named from the open files of the workload"; }
done
grep -q "^Attributed to files: " "$TMPD/names.txt" || fail "the text table has no attributed share"
note "names from /proc/PID/fd and maps: ok"

cold
"$BLKSTACK" report -d "$MNT" --folded --flame "$TMPD/flame.svg" --resolve-paths=walk \
	-o "$TMPD/folded.txt" -- python3 "$TMPD/work.py" "$MNT" || fail "report --folded --flame failed"
python3 - "$TMPD/folded.txt" "$MNT" <<'PY' || fail "the folded stacks are not what was read and written"
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1])]
stacks = {}
for l in lines:
    stack, _, n = l.rpartition(" ")
    assert stack and n.isdigit(), "bad line %r" % l
    stacks[stack] = int(n)
mnt = sys.argv[2].strip("/").replace("/", ";")
for rel, size in (("d1;r1", 300000), ("d2;m1", 2000000), ("d2;sub;o1", 1048576)):
    got = stacks.get(mnt + ";" + rel)
    assert got and got >= size * 0.9, "%s: %s bytes" % (rel, got)
assert sum(stacks.values()) >= 300000 + 1060864 + 2000000 + 1048576 + 200000
PY
python3 - "$TMPD/flame.svg" <<'PY' || fail "the flame graph is not a well-formed SVG naming the directories"
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg"), root.tag
titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
for d in ("/d1 ", "/d2 ", "/d2/sub ", "/d1/r1 "):
    assert any(d in t for t in titles), "no box for %s" % d
PY
note "--folded and --flame: ok"

# blkstack cache: one table per interval, and the log of first accesses
cold
"$BLKSTACK" cache -d "$MNT" --log --resolve-paths=walk -w 4 >"$TMPD/log.txt" 2>"$TMPD/log.err" &
logpid=$!
_clean_pids+=("$logpid")
"$BLKSTACK" cache -d "$MNT" 1 3 >"$TMPD/cache.txt" 2>"$TMPD/cache.err" &
cachepid=$!
_clean_pids+=("$cachepid")
for _ in $(seq 50); do
	[ -d "$TRACEFS/instances/blkstack-$logpid" ] && [ -d "$TRACEFS/instances/blkstack-$cachepid" ] &&
		[ "$(cat "$TRACEFS/instances/blkstack-$cachepid/tracing_on" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$TRACEFS/instances/blkstack-$logpid/tracing_on" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
sleep 0.3
HOLD=1 python3 "$TMPD/work.py" "$MNT"
wait "$cachepid" || { cat "$TMPD/cache.err" >&2; fail "cache 1 3 failed"; }
wait "$logpid" || { cat "$TMPD/log.err" >&2; fail "cache --log failed"; }
[ "$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] ' "$TMPD/cache.txt")" -eq 3 ] ||
	{ cat "$TMPD/cache.txt" >&2; fail "cache 1 3 did not print 3 intervals"; }
grep -q "^$MNT/d1/r1 " "$TMPD/cache.txt" ||
	{ cat "$TMPD/cache.txt" >&2; fail "cache did not show d1/r1"; }
python3 - "$TMPD/log.txt" "$MNT" "$PAGE" <<'PY' || fail "cache --log does not show the first accesses of d1/r1"
import re, sys
pages, ra = set(), set()
for l in open(sys.argv[1]):
    m = re.match(r"^(\S+) (\d+) (\d+)\.\.(\d+)( RA (sync|async))?$", l.rstrip("\n"))
    assert m, "bad line %r" % l
    if m.group(1) == sys.argv[2] + "/d1/r1":
        pages.update(range(int(m.group(3)), int(m.group(4)) + 1))
        if m.group(6):
            ra.add(m.group(6))
want = (300000 + int(sys.argv[3]) - 1) // int(sys.argv[3])
assert pages == set(range(want)), "pages %s, want 0..%d" % (sorted(pages), want - 1)
assert "sync" in ra, "no synchronous readahead"
PY
for pid in "$logpid" "$cachepid"; do
	instance_gone "blkstack-$pid" || fail "instance blkstack-$pid left behind"
done
note "cache tables and --log: ok"
