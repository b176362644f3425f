#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack record, and every reader of its files, when things go wrong: run
# on the AddressSanitizer and UndefinedBehaviorSanitizer build of blkstack
# when configure could make one (src/blkstack-asan), so that a read out of
# bounds, a use after free, undefined behaviour or a leak of our own fails
# the test whatever the exit code.
#
#   - damaged recordings: truncated (at many points of the headers and of
#     the data), CPU data offsets past the end of the file, a damaged event
#     format: report, parse, top and convert exit 1 with a message naming
#     the file, and convert presents no output as complete;
#   - version 7 (trace-cmd convert, zstd): read as the original; cut, or a
#     chunk's data or sizes damaged: exit 1 naming the file, no crash;
#   - another architecture's long size: a 32-bit machine's recording reads
#     as the original; pages unlike their header_page are skipped with a
#     warning naming the file (exit 0);
#   - empty recordings (no I/O, -w or -- true): valid files, read by every
#     reader and by trace-cmd;
#   - record --page-cache (its pages read back, files named, markers
#     appended), and report --by file and convert of what it made;
#   - Ctrl-C at 8 moments of record -- CMD and 6 of record -w (at once,
#     while setting up, as tracing starts, while recording, at and after
#     the end of the data, twice while finishing): a valid, complete file,
#     or nothing at all when the signal came before blkstack could catch
#     it; never FILE.partial, a spill file or a tracefs instance left;
#   - a full disk (tmpfs of 64 KiB and of 4 MiB): exit 1 with the error,
#     no FILE, only FILE.partial (none when it would be empty), no space
#     held by a spill file, and the
#     readers take it or refuse it with a message naming it; report and
#     parse -o on it say "No space left on device" and leave no empty
#     FILE.partial.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool trace-cmd python3

if [ -n "${BLKSTACK_ASAN:-}" ] && [ -x "$BLKSTACK_ASAN" ]; then
	BS=$BLKSTACK_ASAN
	note "running $BS (AddressSanitizer, UndefinedBehaviorSanitizer)"
elif [ -n "${CI:-}" ]; then
	fail "no sanitized build (BLKSTACK_ASAN='${BLKSTACK_ASAN:-}'): configure found no -fsanitize=address,undefined"
else
	BS=$BLKSTACK
	note "no sanitized build (configure found none): running $BS"
fi
# libtracefs' tracefs_instances() never frees its regex: not ours to report
printf 'leak:tracefs_instances\n' >"$TMPD/lsan.supp"
# the whole stack of each allocation, for the suppression to find its caller
export ASAN_OPTIONS=exitcode=99:abort_on_error=0:fast_unwind_on_malloc=0:detect_leaks=1
export LSAN_OPTIONS=exitcode=99:suppressions=$TMPD/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99

make_loop A 64

# sanitizer_said FILE: a sanitizer's report in FILE
sanitizer_said()
{
	grep -q 'Sanitizer\|runtime error:' "$1"
}

# bs_run WANT NAME ARGS...: run blkstack, check its exit code; its output
# and messages are kept in $TMPD/NAME.out and $TMPD/NAME.err
bs_run()
{
	local want=$1 name=$2 rc=0

	shift 2
	"$BS" "$@" >"$TMPD/$name.out" 2>"$TMPD/$name.err" || rc=$?
	if sanitizer_said "$TMPD/$name.err" || [ "$rc" -eq 99 ]; then
		cat "$TMPD/$name.err" >&2
		fail "blkstack $*: a sanitizer found an error"
	fi
	[ "$rc" -eq "$want" ] || { cat "$TMPD/$name.err" >&2; fail "blkstack $*: exit $rc, want $want"; }
}

# readers FILE WANT: report, parse, top and convert of FILE exit WANT; when
# it is not 0, the message names FILE
readers()
{
	local f=$1 want=$2 cmd

	for cmd in report parse top; do
		bs_run "$want" "$cmd" "$cmd" -i "$f"
		if [ "$want" -ne 0 ]; then
			grep -qF "'$f'" "$TMPD/$cmd.err" ||
				{ cat "$TMPD/$cmd.err" >&2; fail "$cmd -i $f: the message does not name the file"; }
		fi
	done
	rm -f "$TMPD/conv.csv" "$TMPD/conv.csv.partial"
	bs_run "$want" convert convert -i "$f" --to csv -o "$TMPD/conv.csv"
	if [ "$want" -ne 0 ]; then
		grep -qF "'$f'" "$TMPD/convert.err" ||
			{ cat "$TMPD/convert.err" >&2; fail "convert -i $f: the message does not name the file"; }
		[ ! -e "$TMPD/conv.csv" ] || fail "convert -i $f: exit $want, but conv.csv is presented as complete"
	fi
}

cat >"$TMPD/work.sh" <<EOF
set -e
dd status=none if=/dev/zero of=$A_PDEV bs=64k count=64 oflag=direct
dd status=none if=$A_PDEV of=/dev/null bs=4k count=256 iflag=direct
EOF

# a good recording, made by the sanitized build too
bs_run 0 rec record -d "$A_PDEV" -o "$TMPD/good.dat" -- sh "$TMPD/work.sh"
readers "$TMPD/good.dat" 0
size=$(stat -c %s "$TMPD/good.dat")

# truncated: in the headers (every 8 KiB of them), in the first page, in the data
hdr=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().index(b"flyrecord\0"))' "$TMPD/good.dat")
for cut in 0 100 $(seq 4096 8192 "$hdr") $((hdr + 100)) $((size / 2)) $((size - 1000)); do
	head -c "$cut" "$TMPD/good.dat" >"$TMPD/cut.dat"
	readers "$TMPD/cut.dat" 1
	grep -Eq "truncated|cannot be read|not a trace.dat|corrupt" "$TMPD/report.err" ||
		fail "report of a file cut at $cut bytes does not say what is wrong: $(cat "$TMPD/report.err")"
done
note "truncated recordings (headers, data): exit 1 naming the file: ok"

# The CPU table and header_page, found by walking the headers (trace-cmd.dat.v6(5)).
cat >"$TMPD/patch.py" <<'PY'
import struct, sys
path, what = sys.argv[1], sys.argv[2]
d = bytearray(open(path, "rb").read())
p = 10
p = d.index(b"\0", p) + 1 + 2 + 4
def skip_sized(p, n):
    (size,) = struct.unpack_from("<Q" if n == 8 else "<I", d, p)
    return p + n + size
p += 12; hp = p; p = skip_sized(p, 8)
p += 13; p = skip_sized(p, 8)
(n,) = struct.unpack_from("<I", d, p); p += 4
for _ in range(n): p = skip_sized(p, 8)
(n,) = struct.unpack_from("<I", d, p); p += 4
for _ in range(n):
    p = d.index(b"\0", p) + 1
    (m,) = struct.unpack_from("<I", d, p); p += 4
    for _ in range(m): p = skip_sized(p, 8)
p = skip_sized(p, 4); p = skip_sized(p, 4); p = skip_sized(p, 8)
(ncpu,) = struct.unpack_from("<I", d, p); p += 4
assert d[p:p + 10] == b"options  \0"; p += 10
while True:
    (oid,) = struct.unpack_from("<H", d, p); p += 2
    if oid == 0: break
    (size,) = struct.unpack_from("<I", d, p); p += 4 + size
assert d[p:p + 10] == b"flyrecord\0"; p += 10
def sub(old, new, after=b""):
    i = d.index(old, d.index(after, hp))
    assert len(old) == len(new)
    d[i:i + len(old)] = new
if what == "offsets":
    patched = 0
    for c in range(ncpu):
        off, size = struct.unpack_from("<QQ", d, p + 16 * c)
        if size:
            struct.pack_into("<Q", d, p + 16 * c, len(d) + 4096 * (c + 1))
            patched += 1
    assert patched, "no CPU has data"
elif what == "long4":
    # header_page says 4-byte longs, the pages still have 8-byte commits
    sub(b"commit;\toffset:8;\tsize:8;", b"commit;\toffset:8;\tsize:4;")
elif what == "arch32":
    # a 4-byte-long machine's recording: the file header's long size,
    # header_page, and every page header (timestamp, then a 4-byte commit)
    assert d[13] == 8
    d[13] = 4
    sub(b"commit;\toffset:8;\tsize:8;", b"commit;\toffset:8;\tsize:4;")
    sub(b"data;\toffset:16;\tsize:4080;", b"data;\toffset:12;\tsize:4084;")
    pages = 0
    for c in range(ncpu):
        off, size = struct.unpack_from("<QQ", d, p + 16 * c)
        for q in range(off, off + size, 4096):
            (commit,) = struct.unpack_from("<Q", d, q + 8)
            assert commit >> 32 == 0
            struct.pack_into("<I", d, q + 8, commit)
            d[q + 12:q + 4096] = d[q + 16:q + 4096] + bytes(4)
            pages += 1
    assert pages, "no pages"
elif what == "format":
    # a damaged format of an event the readers decode, on which
    # libtraceevent's parser crashes
    if b"name: block_rq_complete\n" not in d or b"unsigned short ioprio;" not in d:
        sys.exit(3)
    sub(b"unsigned short ioprio;", b"unsigned sh[rt ioprio;", b"name: block_rq_complete\n")
elif what == "format-unused":
    # the same damage in the format of an event no reader decodes
    sub(b"size_t size;", b"size_t s[ze;", b"name: block_touch_buffer\n")
open(path, "wb").write(d)
PY
cp "$TMPD/good.dat" "$TMPD/offsets.dat"
python3 "$TMPD/patch.py" "$TMPD/offsets.dat" offsets || fail "cannot patch the CPU table"
readers "$TMPD/offsets.dat" 1
grep -q "truncated" "$TMPD/report.err" ||
	fail "report of CPU data past the end does not say it is truncated: $(cat "$TMPD/report.err")"
note "CPU data offsets past the end of the file: exit 1, truncated, naming the file: ok"

# another architecture's long (4 bytes), as a 32-bit machine records it:
# read as such, the same output as the original
cp "$TMPD/good.dat" "$TMPD/arch32.dat"
python3 "$TMPD/patch.py" "$TMPD/arch32.dat" arch32 || fail "cannot make a 4-byte-long recording"
for cmd in report parse top; do
	bs_run 0 "$cmd" "$cmd" -i "$TMPD/good.dat"
	mv "$TMPD/$cmd.out" "$TMPD/$cmd.good"
	bs_run 0 "$cmd" "$cmd" -i "$TMPD/arch32.dat"
	sed "s|arch32\.dat|good.dat|" "$TMPD/$cmd.out" | cmp -s - "$TMPD/$cmd.good" ||
		{ diff "$TMPD/$cmd.good" "$TMPD/$cmd.out" | head >&2; fail "$cmd -i of a 4-byte-long recording differs from the original"; }
	[ ! -s "$TMPD/$cmd.err" ] || { cat "$TMPD/$cmd.err" >&2; fail "$cmd -i of a 4-byte-long recording warns"; }
done
bs_run 0 convert convert -i "$TMPD/good.dat" --to csv -o "$TMPD/good.csv"
bs_run 0 convert convert -i "$TMPD/arch32.dat" --to csv -o "$TMPD/arch32.csv"
cmp -s "$TMPD/good.csv" "$TMPD/arch32.csv" || fail "convert of a 4-byte-long recording differs from the original"
trace-cmd report "$TMPD/arch32.dat" >/dev/null 2>&1 || fail "trace-cmd report cannot read the 4-byte-long recording"
note "a 32-bit machine's recording (4-byte longs in its headers and pages): read as the original by report, parse, top, convert: ok"

# header_page says 4-byte longs but the pages have 8-byte ones: what does
# not parse is skipped with a warning naming the file, nothing read out of
# bounds; when no block event is left, that is said (exit 1), as damage
cp "$TMPD/good.dat" "$TMPD/long4.dat"
python3 "$TMPD/patch.py" "$TMPD/long4.dat" long4 || fail "cannot patch header_page"
for cmd in report parse top; do
	want=0
	"$BS" report -i "$TMPD/long4.dat" >/dev/null 2>"$TMPD/probe.err" || want=1
	bs_run "$want" "$cmd" "$cmd" -i "$TMPD/long4.dat"
	[ ! -s "$TMPD/$cmd.err" ] || grep -qF "'$TMPD/long4.dat': " "$TMPD/$cmd.err" ||
		{ cat "$TMPD/$cmd.err" >&2; fail "$cmd -i of pages unlike their header_page: a message without the file"; }
	[ "$want" -eq 0 ] || grep -q "no block event could be read, and [0-9]* records did not parse" "$TMPD/$cmd.err" ||
		{ cat "$TMPD/$cmd.err" >&2; fail "$cmd -i of pages unlike their header_page: exit 1, not said to be damaged"; }
done
grep -q "malformed records skipped" "$TMPD/report.err" ||
	note "(the pages unlike their header_page happened to parse: no warning)"
note "pages unlike their header_page's long size: what does not parse skipped and said, naming the file (exit 1 when nothing is left): ok"

# a damaged event format in the headers (libtraceevent's parser crashes on
# this one): exit 1, the file named as corrupt
cp "$TMPD/good.dat" "$TMPD/format.dat"
rc=0
python3 "$TMPD/patch.py" "$TMPD/format.dat" format || rc=$?
if [ "$rc" -eq 3 ]; then
	note "this kernel's block formats have no ioprio field: no damaged-format case"
else
	[ "$rc" -eq 0 ] || fail "cannot damage an event format"
	readers "$TMPD/format.dat" 1
	grep -q "truncated or corrupt" "$TMPD/report.err" ||
		fail "report of a damaged event format: $(cat "$TMPD/report.err")"
	note "a damaged event format: exit 1, the file named as corrupt, no crash: ok"
fi

# a damaged format of an event that no reader decodes (block_touch_buffer):
# its format is not parsed, and the file reads as the undamaged one
cp "$TMPD/good.dat" "$TMPD/unused.dat"
python3 "$TMPD/patch.py" "$TMPD/unused.dat" format-unused || fail "cannot damage block_touch_buffer's format"
for cmd in report parse; do
	bs_run 0 "$cmd" "$cmd" -i "$TMPD/good.dat"
	mv "$TMPD/$cmd.out" "$TMPD/$cmd.good"
	bs_run 0 "$cmd" "$cmd" -i "$TMPD/unused.dat"
	sed "s|unused\.dat|good.dat|" "$TMPD/$cmd.out" | cmp -s - "$TMPD/$cmd.good" ||
		{ diff "$TMPD/$cmd.good" "$TMPD/$cmd.out" | head >&2; fail "$cmd -i with a damaged unused format differs from the original"; }
done
note "a damaged format of an event no reader decodes: read as the undamaged file: ok"

# trace-cmd's version 7 (zstd chunks), read by blkstack's own reader: the
# same output as the v6 original; cut anywhere, exit 1 naming the file as
# truncated or corrupt; a chunk's bytes or sizes damaged, exit 1 naming it
# as corrupt, after the events before the damage
trace-cmd convert -i "$TMPD/good.dat" -o "$TMPD/v7.dat" --file-version 7 --compression any \
	>/dev/null 2>&1 || fail "trace-cmd convert --file-version 7 failed"
readers "$TMPD/v7.dat" 0
"$BLKSTACK" parse -i "$TMPD/good.dat" >"$TMPD/v6.txt"
"$BLKSTACK" parse -i "$TMPD/v7.dat" >"$TMPD/v7.txt"
cmp -s "$TMPD/v6.txt" "$TMPD/v7.txt" || fail "parse of the v7 copy differs from the v6 original"
size=$(stat -c %s "$TMPD/v7.dat")
for cut in 100 2000 $((size / 3)) $((size / 2)) $((size - 100)); do
	head -c "$cut" "$TMPD/v7.dat" >"$TMPD/v7cut.dat"
	readers "$TMPD/v7cut.dat" 1
	grep -Eq "truncated|corrupt" "$TMPD/report.err" ||
		fail "report of a v7 file cut at $cut bytes does not say what is wrong: $(cat "$TMPD/report.err")"
done
# the first chunk of cpu0's data (trace-cmd.dat.v7(5)): its header and its bytes
cat >"$TMPD/v7chunk.py" <<'PY7'
import struct, sys
path, what = sys.argv[1], sys.argv[2]
d = bytearray(open(path, "rb").read())
p = d.index(b"\0", 10) + 1 + 2 + 4
p = d.index(b"\0", p) + 1
p = d.index(b"\0", p) + 1
(off,) = struct.unpack_from("<Q", d, p)
chunk = None
while off and chunk is None:
    _, flags, _, size = struct.unpack_from("<HHIQ", d, off)
    assert not flags & 1, "compressed options"
    q, end = off + 16, off + 16 + size
    off = 0
    while q < end:
        oid, osz = struct.unpack_from("<HI", d, q)
        o = q + 6
        q = o + osz
        if oid == 0:
            (off,) = struct.unpack_from("<Q", d, o)
            break
        if oid == 3:
            o += 8
            o = d.index(b"\0", o) + 1
            o = d.index(b"\0", o) + 1
            _, ncpu = struct.unpack_from("<II", d, o)
            o += 8
            for i in range(ncpu):
                cpu, coff, csize = struct.unpack_from("<IQQ", d, o)
                o += 20
                if csize and chunk is None:
                    chunk = coff + 4
if chunk is None:
    sys.exit(3)
zsize, usize = struct.unpack_from("<II", d, chunk)
if what == "data":
    # the start of its zstd frame: a damage that no decompressor can miss
    for i in range(4):
        d[chunk + 8 + i] ^= 0x5a
elif what == "usize":
    struct.pack_into("<I", d, chunk + 4, 0xfffff000)
elif what == "zsize":
    struct.pack_into("<I", d, chunk, 0x7fffffff)
open(path, "wb").write(d)
PY7
for what in data usize zsize; do
	cp "$TMPD/v7.dat" "$TMPD/v7bad.dat"
	python3 "$TMPD/v7chunk.py" "$TMPD/v7bad.dat" "$what" || fail "cannot damage the v7 chunk ($what)"
	readers "$TMPD/v7bad.dat" 1
	grep -q "corrupt" "$TMPD/report.err" ||
		fail "report of a v7 file with a damaged chunk ($what): $(cat "$TMPD/report.err")"
done
note "version 7 (zstd): read as the v6 original; cut or with a damaged chunk, exit 1 naming the file as truncated or corrupt, no crash: ok"

# an empty recording: no I/O at all, for a time (-w) or during a command
bs_run 0 empty record -d "$A_PDEV" -o "$TMPD/empty.dat" -w 0.5
bs_run 0 empty-cmd record -d "$A_PDEV" -o "$TMPD/empty-cmd.dat" -- true
for f in "$TMPD/empty.dat" "$TMPD/empty-cmd.dat"; do
	# a valid recording with nothing to show: said so, exit 1 (test-no-block-events.sh)
	readers "$f" 1
	grep -q "holds no block events" "$TMPD/report.err" ||
		fail "report of an empty recording: $(head -3 "$TMPD/report.err")"
	[ -z "$(count_actions "$TMPD/parse.out")" ] || fail "parse of an empty recording prints events"
	trace-cmd report "$f" >/dev/null 2>&1 || fail "trace-cmd report cannot read an empty recording"
done
note "empty recordings (-w, -- true): valid (trace-cmd reads them), said by report, parse, top, convert to hold no block events: ok"

# the page-cache side: record --page-cache (the recorded pages read back,
# files named by a walk, markers appended) and the readers of its names
mkfs.ext4 -q -F -N 50000 "$A_PDEV" || fail "mkfs.ext4 $A_PDEV failed"
mnt=$TMPD/mnt
mkdir "$mnt"
mount "$A_PDEV" "$mnt" || fail "cannot mount $A_PDEV"
_clean_mounts+=("$mnt")
head -c 300000 /dev/urandom >"$mnt/f1"
umount "$mnt" && mount "$A_PDEV" "$mnt" || fail "cannot mount $A_PDEV again"
bs_run 0 pcrec record -d "$mnt" --page-cache --resolve-paths=walk -o "$TMPD/pc.dat" -- cat "$mnt/f1"
readers "$TMPD/pc.dat" 0
bs_run 0 pcfiles report -i "$TMPD/pc.dat" --by file
grep -q "^$mnt/f1 " "$TMPD/pcfiles.out" ||
	{ cat "$TMPD/pcfiles.out" >&2; fail "report --by file of a --page-cache recording does not name f1"; }
bs_run 0 pcrows convert -i "$TMPD/pc.dat" --to jsonl -o "$TMPD/pc.jsonl"
grep -qF "\"file\":\"$mnt/f1\"" "$TMPD/pc.jsonl" || fail "convert's rows do not name f1"

# interrupted_clean LABEL PID FILE ERR: after a record (PID) was
# interrupted: no sanitizer error in ERR, no instance, FILE.partial or
# spill file left
interrupted_clean()
{
	sanitizer_said "$4" && { cat "$4" >&2; fail "$1: a sanitizer found an error"; }
	instance_gone "blkstack-$2" || fail "$1: instance blkstack-$2 left"
	[ ! -e "$3.partial" ] || fail "$1: '$3.partial' left"
	[ -z "$(find "$TMPD" -maxdepth 1 -name '.blkstack-record.*')" ] || fail "$1: a spill file left"
}

# recording_complete LABEL RC FILE ERR: it exited 0 and FILE is read by
# every reader and by trace-cmd, without a warning
recording_complete()
{
	[ "$2" -eq 0 ] || { cat "$4" >&2; fail "$1: exit $2"; }
	trace-cmd report "$3" >"$TMPD/tc.out" 2>"$TMPD/tc.err" && [ ! -s "$TMPD/tc.err" ] ||
		{ cat "$TMPD/tc.err" >&2; fail "$1: trace-cmd report fails or warns"; }
	# stopped before any I/O: a valid recording, said to hold no block events
	if grep -q ' block_[a-z_]*: ' "$TMPD/tc.out"; then
		readers "$3" 0
	else
		readers "$3" 1
		grep -q "holds no block events" "$TMPD/report.err" ||
			fail "$1: a recording without I/O is not said to hold no block events"
	fi
}

# Ctrl-C while the walk for names runs (after the command ended the tracing):
# the walk stops, the recording is finished with the names found. 40000
# files read cold make the walk last; it is under way while blkstack holds
# the mount's root directory open.
python3 -c 'import os, sys
for d in range(100):
    os.mkdir("%s/d%02d" % (sys.argv[1], d))
    for f in range(400):
        open("%s/d%02d/f%03d" % (sys.argv[1], d, f), "w").close()' "$mnt" || fail "cannot make the files to walk"
head -c 300000 /dev/urandom >"$mnt/gone"
sync
echo 3 >/proc/sys/vm/drop_caches
rm -f "$TMPD/walk.dat"
# gone is read, then deleted: the walk looks for it in every directory.
# Without CAP_SYS_ADMIN, so that fanotify, which would name it as it is
# opened, cannot be used (and holds no directory of the mount open).
need_tool setpriv
setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin \
	"$BS" record -d "$mnt" --page-cache --resolve-paths=walk -o "$TMPD/walk.dat" -- \
	sh -c "cat '$mnt/gone' >/dev/null; rm '$mnt/gone'" \
	>/dev/null 2>"$TMPD/walk.err" &
pid=$!
_clean_instances+=("blkstack-$pid")
walking=0
for _ in $(seq 1500); do
	[ "$(readlink "/proc/$pid/fd/"* 2>/dev/null | grep -cxF "$mnt")" -gt 0 ] && { walking=1; break; }
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.01
done
kill -INT "$pid" 2>/dev/null || true
rc=0
wait "$pid" || rc=$?
interrupted_clean "Ctrl-C in the walk" "$pid" "$TMPD/walk.dat" "$TMPD/walk.err"
[ "$walking" -eq 1 ] || fail "the walk for names was never seen under way (blkstack exited first)"
grep -q "the walk for file names was stopped" "$TMPD/walk.err" ||
	{ cat "$TMPD/walk.err" >&2; fail "Ctrl-C in the walk: it was not stopped, or not said"; }
recording_complete "Ctrl-C in the walk" "$rc" "$TMPD/walk.dat" "$TMPD/walk.err"
note "Ctrl-C while record walks for file names: the walk stops, the recording is complete: ok"
umount "$mnt" || fail "cannot unmount $mnt"
_clean_mounts=()	# (it was the only one) the partition is written raw below
note "record --page-cache, report --by file and convert of it: ok"

# Ctrl-C at any moment, of record -- CMD and of record -w: at once (maybe
# before the handlers), while setting up, as tracing starts, while
# recording, at the end of the data (the command's exit, -w's end), after
# it while finishing, and twice while finishing.
long=$TMPD/long.sh
printf 'exec dd status=none if=/dev/zero of=%s bs=4k count=12000 oflag=direct\n' "$A_PDEV" >"$long"
short=$TMPD/short.sh
printf 'dd status=none if=/dev/zero of=%s bs=4k count=256 oflag=direct\ntouch %s/short.done\n' \
	"$A_PDEV" "$TMPD" >"$short"

# wait_for PID WHAT: until the instance of PID exists (setup), traces
# (tracing), or until the short command ended (ended)
wait_for()
{
	local inst=$TRACEFS/instances/blkstack-$1 i

	for i in $(seq 300); do
		case $2 in
		setup) [ -d "$inst" ] && return 0 ;;
		tracing) [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] &&
			[ "$(cat "$inst/events/block/block_bio_queue/enable" 2>/dev/null)" = 1 ] && return 0 ;;
		ended) [ -e "$TMPD/short.done" ] && return 0 ;;
		esac
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	fail "blkstack record (pid $1) did not reach '$2' within 15 s"
}

# ctrl_c MODE MOMENT: record (MODE cmd: -- CMD; w: -w 2 beside a writer),
# Ctrl-C at MOMENT; then a complete valid file, or none when the signal
# came before the handlers, and nothing else left
ctrl_c()
{
	local mode=$1 moment=$2 f=$TMPD/int.dat pid rc=0 writer=

	rm -f "$f" "$f.partial" "$TMPD/short.done"
	: >"$TMPD/int.err"
	if [ "$mode" = w ]; then
		sh "$long" &
		writer=$!
		_clean_pids+=("$writer")
		"$BS" record -d "$A_PDEV" -o "$f" -w 2 >/dev/null 2>"$TMPD/int.err" &
	elif [ "$moment" = data-end ] || [ "$moment" = after ]; then
		"$BS" record -d "$A_PDEV" -o "$f" -- sh "$short" >/dev/null 2>"$TMPD/int.err" &
	else
		"$BS" record -d "$A_PDEV" -o "$f" -- sh "$long" >/dev/null 2>"$TMPD/int.err" &
	fi
	pid=$!
	_clean_instances+=("blkstack-$pid")
	case $mode:$moment in
	*:now) ;;
	*:setup) wait_for "$pid" setup ;;
	*:tracing:*) wait_for "$pid" tracing; sleep "${moment#tracing:}" ;;
	*:twice)
		wait_for "$pid" tracing
		sleep 1
		kill -INT "$pid" 2>/dev/null || true
		sleep 0.05
		;;
	cmd:data-end) wait_for "$pid" ended ;;
	cmd:after) wait_for "$pid" ended; sleep 0.3 ;;
	w:data-end) wait_for "$pid" tracing; sleep 2 ;;
	w:after) wait_for "$pid" tracing; sleep 2.3 ;;
	esac
	kill -INT "$pid" 2>/dev/null || true
	wait "$pid" || rc=$?
	if [ -n "$writer" ]; then
		kill "$writer" 2>/dev/null || true
		wait "$writer" 2>/dev/null || true
	fi
	interrupted_clean "Ctrl-C ($mode, $moment)" "$pid" "$f" "$TMPD/int.err"
	if [ "$rc" -eq 130 ] && [ "$moment" = now ]; then
		# killed by the signal before catching it: nothing was made
		[ ! -e "$f" ] || fail "Ctrl-C ($mode, $moment): exit 130 but '$f' exists"
		return 0
	fi
	recording_complete "Ctrl-C ($mode, $moment)" "$rc" "$f" "$TMPD/int.err"
}

n=0
for moment in now setup tracing:0 tracing:0.3 tracing:1 data-end after twice; do
	ctrl_c cmd "$moment"
	n=$((n + 1))
done
for moment in now setup tracing:0 tracing:1 data-end after; do
	ctrl_c w "$moment"
	n=$((n + 1))
done
note "Ctrl-C at $n moments of record -- CMD and record -w (at once, setting up, tracing, recording, at and after the end of the data, twice): a valid file (or none before the handlers), no instance, partial or spill file left: ok"

# a full disk: too small for the headers (64 KiB), or for the data (4 MiB)
for size in 64k 4m; do
	full=$TMPD/full-$size
	mkdir "$full"
	mount -t tmpfs -o "size=$size" blkstack-test "$full" || skip "cannot mount a tmpfs"
	_clean_mounts+=("$full")
	bs_run 1 full record -d "$A_PDEV" -o "$full/r.dat" -- sh "$long"
	grep -q "No space left on device" "$TMPD/full.err" || fail "a full disk ($size): $(cat "$TMPD/full.err")"
	grep -qF "'$full" "$TMPD/full.err" ||
		fail "a full disk ($size): the message names no file: $(cat "$TMPD/full.err")"
	[ ! -e "$full/r.dat" ] || fail "a full disk ($size): the incomplete recording was renamed to r.dat"
	# what could be written stays as r.dat.partial; nothing at all, when nothing could
	left=$(ls -A "$full")
	if [ -z "$left" ]; then
		note "a full disk ($size): nothing could be written, no empty r.dat.partial left"
	else
		[ "$left" = r.dat.partial ] && [ -s "$full/r.dat.partial" ] ||
			fail "a full disk ($size) left: $(ls -lA "$full" | tr '\n' ' ')"
	fi
	# and no unnamed spill file still holding space
	used=$(df -k --output=used "$full" | tail -1)
	[ "$used" -le $(($(du -k "$full/r.dat.partial" 2>/dev/null | cut -f1) + 4)) ] ||
		fail "a full disk ($size): $used KiB used, more than r.dat.partial"
	for cmd in report parse top; do
		[ -e "$full/r.dat.partial" ] || break
		rc=0
		"$BS" "$cmd" -i "$full/r.dat.partial" >/dev/null 2>"$TMPD/fr.err" || rc=$?
		! sanitizer_said "$TMPD/fr.err" && [ "$rc" -le 1 ] ||
			{ cat "$TMPD/fr.err" >&2; fail "$cmd -i of the recording cut by a full disk ($size): exit $rc"; }
		[ "$rc" -eq 0 ] || grep -qF "'$full/r.dat.partial'" "$TMPD/fr.err" ||
			fail "$cmd -i of the recording cut by a full disk ($size): exit 1 without naming it"
	done
	# the readers' own output on the full disk: the cause named (not "Input/output
	# error"), and no empty FILE.partial left
	dd status=none if=/dev/zero of="$full/fill" bs=4k 2>/dev/null || true
	for cmd in report parse; do
		rc=0
		"$BS" "$cmd" -i "$TMPD/good.dat" -o "$full/$cmd.out" >/dev/null 2>"$TMPD/fw.err" || rc=$?
		[ "$rc" -eq 1 ] && grep -q "No space left on device" "$TMPD/fw.err" ||
			fail "$cmd -o on a full disk ($size): exit $rc: $(cat "$TMPD/fw.err")"
		[ ! -e "$full/$cmd.out" ] && [ ! -e "$full/$cmd.out.partial" ] ||
			fail "$cmd -o on a full disk ($size) left: $(ls -A "$full" | tr '\n' ' ')"
	done
	rm -f "$full/fill"
done
note "a full disk (64 KiB, 4 MiB): exit 1 naming the error and the place, only a non-empty FILE.partial left, read or refused by name; report and parse -o there say 'No space left on device' and leave nothing: ok"
