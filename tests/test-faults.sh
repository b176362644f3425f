#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack record, and every reader of its files, when things go wrong: run
# on the AddressSanitizer and UndefinedBehaviorSanitizer build of blkstack
# when configure could make one (src/blkstack-asan), so that a read out of
# bounds, a use after free, undefined behaviour or a leak of our own fails
# the test whatever the exit code.
#
#   - damaged recordings: truncated (in the headers, in the data), CPU data
#     offsets past the end of the file, another architecture's long size:
#     report, parse, top and convert exit 1 (or, for the long size, read
#     what they can) with a message naming the file;
#   - an empty recording (no I/O): a valid file, read by every reader and
#     by trace-cmd;
#   - record --page-cache (its pages read back, files named, markers
#     appended), and report --by file and convert of what it made;
#   - Ctrl-C at six moments (at once, while setting up, as tracing starts,
#     while recording, twice while finishing): a valid, complete file, or
#     nothing at all when the signal came before blkstack could catch it;
#     never FILE.partial, a spill file or a tracefs instance left;
#   - a full disk (a small tmpfs): exit 1 with the error, no FILE, only
#     FILE.partial, which the readers take or refuse with a message.
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

# truncated: in the headers, in the first page, in the data
for cut in 100 4096 $((size / 2)) $((size - 1000)); do
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
if what == "offsets":
    patched = 0
    for c in range(ncpu):
        off, size = struct.unpack_from("<QQ", d, p + 16 * c)
        if size:
            struct.pack_into("<Q", d, p + 16 * c, len(d) + 4096 * (c + 1))
            patched += 1
    assert patched, "no CPU has data"
elif what == "long4":
    i = d.index(b"commit;\toffset:8;\tsize:8;", hp)
    d[i:i + 25] = b"commit;\toffset:8;\tsize:4;"
open(path, "wb").write(d)
PY
cp "$TMPD/good.dat" "$TMPD/offsets.dat"
python3 "$TMPD/patch.py" "$TMPD/offsets.dat" offsets || fail "cannot patch the CPU table"
readers "$TMPD/offsets.dat" 1
grep -q "truncated" "$TMPD/report.err" ||
	fail "report of CPU data past the end does not say it is truncated: $(cat "$TMPD/report.err")"
note "CPU data offsets past the end of the file: exit 1, truncated, naming the file: ok"

# another architecture's long (4 bytes): its pages read as such; records
# that do not parse are skipped and counted, nothing read out of bounds
cp "$TMPD/good.dat" "$TMPD/long4.dat"
python3 "$TMPD/patch.py" "$TMPD/long4.dat" long4 || fail "cannot patch header_page"
for cmd in report parse top; do
	rc=0
	"$BS" "$cmd" -i "$TMPD/long4.dat" >/dev/null 2>"$TMPD/long4.err" || rc=$?
	! sanitizer_said "$TMPD/long4.err" && [ "$rc" -le 1 ] ||
		{ cat "$TMPD/long4.err" >&2; fail "$cmd -i of a 4-byte-long recording: exit $rc"; }
	[ "$rc" -eq 0 ] || grep -qF "'$TMPD/long4.dat'" "$TMPD/long4.err" ||
		fail "$cmd -i of a 4-byte-long recording: exit 1 without naming the file"
done
note "a recording whose header_page says 4-byte longs: read or refused by name, no sanitizer error: ok"

# an empty recording: no I/O at all
bs_run 0 empty record -d "$A_PDEV" -o "$TMPD/empty.dat" -w 0.5
readers "$TMPD/empty.dat" 0
[ -z "$(count_actions "$TMPD/parse.out")" ] || fail "parse of an empty recording prints events"
[ "$(wc -l <"$TMPD/conv.csv")" -eq 1 ] || fail "convert of an empty recording: not just the CSV header"
trace-cmd report "$TMPD/empty.dat" >/dev/null 2>&1 || fail "trace-cmd report cannot read an empty recording"
note "empty recording: valid, read by report, parse, top, convert and trace-cmd: ok"

# the page-cache side: record --page-cache (the recorded pages read back,
# files named by a walk, markers appended) and the readers of its names
mkfs.ext4 -q -F "$A_PDEV" || fail "mkfs.ext4 $A_PDEV failed"
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
umount "$mnt" || fail "cannot unmount $mnt"
_clean_mounts=()	# (it was the only one) the partition is written raw below
note "record --page-cache, report --by file and convert of it: ok"

# Ctrl-C at any moment: at once (maybe before the handlers), while setting
# up, as tracing starts, while recording, and twice while finishing.
long=$TMPD/long.sh
printf 'exec dd status=none if=/dev/zero of=%s bs=4k count=12000 oflag=direct\n' "$A_PDEV" >"$long"

# wait_for PID WHAT: until the instance of PID exists (setup) or traces (tracing)
wait_for()
{
	local inst=$TRACEFS/instances/blkstack-$1 i

	for i in $(seq 300); do
		case $2 in
		setup) [ -d "$inst" ] && return 0 ;;
		tracing) [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] &&
			[ "$(cat "$inst/events/block/block_bio_queue/enable" 2>/dev/null)" = 1 ] && return 0 ;;
		esac
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	fail "blkstack record (pid $1) did not reach '$2' within 15 s"
}

n=0
for moment in now setup tracing:0 tracing:0.3 tracing:1 twice; do
	f=$TMPD/int.dat
	rm -f "$f" "$f.partial"
	: >"$TMPD/int.err"
	"$BS" record -d "$A_PDEV" -o "$f" -- sh "$long" >/dev/null 2>"$TMPD/int.err" &
	pid=$!
	_clean_instances+=("blkstack-$pid")
	case $moment in
	now) ;;
	setup) wait_for "$pid" setup ;;
	tracing:*) wait_for "$pid" tracing; sleep "${moment#tracing:}" ;;
	twice)
		wait_for "$pid" tracing
		sleep 1
		kill -INT "$pid" 2>/dev/null || true
		sleep 0.05
		;;
	esac
	kill -INT "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" || rc=$?
	n=$((n + 1))
	sanitizer_said "$TMPD/int.err" &&
		{ cat "$TMPD/int.err" >&2; fail "Ctrl-C ($moment): a sanitizer found an error"; }
	instance_gone "blkstack-$pid" || fail "Ctrl-C ($moment): instance blkstack-$pid left"
	[ ! -e "$f.partial" ] || fail "Ctrl-C ($moment): '$f.partial' left"
	! ls -A "$TMPD" | grep -q '^\.blkstack-record' || fail "Ctrl-C ($moment): a spill file left"
	if [ "$rc" -eq 130 ] && [ "$moment" = now ]; then
		# killed by the signal before catching it: nothing was made
		[ ! -e "$f" ] || fail "Ctrl-C ($moment): exit 130 but '$f' exists"
		continue
	fi
	[ "$rc" -eq 0 ] || { cat "$TMPD/int.err" >&2; fail "Ctrl-C ($moment): exit $rc"; }
	readers "$f" 0
	trace-cmd report "$f" >/dev/null 2>"$TMPD/tc.err" && [ ! -s "$TMPD/tc.err" ] ||
		{ cat "$TMPD/tc.err" >&2; fail "Ctrl-C ($moment): trace-cmd report fails or warns"; }
done
note "Ctrl-C at $n moments (at once, setting up, tracing, recording, twice while finishing): a valid file (or none before the handlers), no instance, partial or spill file left: ok"

# a full disk
full=$TMPD/full
mkdir "$full"
mount -t tmpfs -o size=4m blkstack-test "$full" || skip "cannot mount a tmpfs"
_clean_mounts+=("$full")
bs_run 1 full record -d "$A_PDEV" -o "$full/r.dat" -- sh "$long"
grep -q "No space left on device" "$TMPD/full.err" || fail "a full disk: $(cat "$TMPD/full.err")"
grep -qF "'$full" "$TMPD/full.err" || fail "a full disk: the message names no file: $(cat "$TMPD/full.err")"
[ ! -e "$full/r.dat" ] || fail "a full disk: the incomplete recording was renamed to r.dat"
[ "$(ls -A "$full")" = r.dat.partial ] || fail "a full disk left: $(ls -A "$full" | tr '\n' ' ')"
for cmd in report parse top; do
	rc=0
	"$BS" "$cmd" -i "$full/r.dat.partial" >/dev/null 2>"$TMPD/fr.err" || rc=$?
	! sanitizer_said "$TMPD/fr.err" && [ "$rc" -le 1 ] ||
		{ cat "$TMPD/fr.err" >&2; fail "$cmd -i of the recording cut by a full disk: exit $rc"; }
	[ "$rc" -eq 0 ] || grep -qF "'$full/r.dat.partial'" "$TMPD/fr.err" ||
		fail "$cmd -i of the recording cut by a full disk: exit 1 without naming it"
done
note "a full disk: exit 1 naming the error and the place, only FILE.partial left, read or refused by name: ok"
