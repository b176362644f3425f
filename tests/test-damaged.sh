#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The damaged recordings of tests/fuzz/regress/tracefile (made from the
# fixtures of tests/fixtures/vm, as a customer's damaged file would be, or
# found by fuzz_tracefile) through every reader, on the sanitized build when
# there is one: each ends (within 60 s), exits 0 or 1, with no sanitizer
# report (a leak of ours included); and what each defect was says what it
# must say now:
#   - linear-page-time-max.dat: a page's time stamp set to UINT64_MAX
#     (readers spun forever; top -i printed ~10^10 empty intervals; report
#     printed an 18446744056 s span): ends, said to be damaged;
#   - v7-section-size-huge.dat: a v7 section size of 2^32-1 ("Cannot
#     allocate memory"): truncated or corrupt;
#   - linear-format-leak.dat: a corrupt event format (libtraceevent leaks
#     on it, in the child only);
# and a write to a full device (/dev/full) says "No space left on device",
# not "Input/output error". Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${top_srcdir:?}"
BS=$BLKSTACK
if [ -n "${BLKSTACK_ASAN:-}" ] && [ -x "$BLKSTACK_ASAN" ]; then
	BS=$BLKSTACK_ASAN
fi
export ASAN_OPTIONS=exitcode=99:detect_leaks=1
export LSAN_OPTIONS=exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99

dir=$top_srcdir/tests/fuzz/regress/tracefile
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL $*"; failed=1; }

# run NAME ARGS...: blkstack with a time bound; output in $tmp/NAME.{out,err}, status in $rc
run()
{
	local name=$1

	shift
	rc=0
	timeout 60 "$BS" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
	if [ "$rc" -eq 124 ]; then
		fail "blkstack $*: still running after 60 s"
	elif [ "$rc" -eq 99 ] || grep -q 'Sanitizer\|runtime error:' "$tmp/$name.err"; then
		fail "blkstack $*: a sanitizer found an error:"
		head -30 "$tmp/$name.err"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		fail "blkstack $*: exit $rc"
	fi
}

n=0
for f in "$dir"/*.dat; do
	n=$((n + 1))
	for cmd in parse report top; do
		run "$cmd" "$cmd" -i "$f"
	done
	run convert convert -i "$f" --to csv -o "$tmp/c.csv"
	echo "ok   $(basename "$f"): parse, report, top, convert end (sanitizers quiet)"
done
[ "$n" -gt 0 ] || fail "no damaged recordings in $dir"

f=$dir/linear-page-time-max.dat
run report report -i "$f"
grep -q "is damaged: on cpu1, trace time goes backwards" "$tmp/report.err" ||
	fail "report -i $f: the time going backwards is not said: $(cat "$tmp/report.err")"
run top top -i "$f"
grep -q "is damaged: its trace time jumps ahead" "$tmp/top.err" ||
	fail "top -i $f: the jump is not said: $(cat "$tmp/top.err")"
[ "$(grep -c '^+' "$tmp/top.out")" -lt 100 ] || fail "top -i $f: an interval for each second of the jump"

f=$dir/v7-section-size-huge.dat
run parse parse -i "$f"
[ "$rc" -eq 1 ] && grep -q "truncated or corrupt" "$tmp/parse.err" ||
	fail "parse -i $f: exit $rc, not said corrupt: $(cat "$tmp/parse.err")"
! grep -q "Cannot allocate memory" "$tmp/parse.err" || fail "parse -i $f: said out of memory"

f=$dir/linear-format-leak.dat
run parse parse -i "$f"
[ "$rc" -eq 0 ] || fail "parse -i $f: exit $rc: $(cat "$tmp/parse.err")"
echo "ok   damage said: time backwards and jumps (report, top), corrupt v7 (parse), no leak"

good=$top_srcdir/tests/fixtures/vm/6.1.0-56-amd64-linear.dat
for args in "report" "report --json" "parse"; do
	rc=0
	# shellcheck disable=SC2086
	"$BS" $args -i "$good" >/dev/full 2>"$tmp/full.err" || rc=$?
	[ "$rc" -eq 1 ] && grep -q "No space left on device" "$tmp/full.err" ||
		fail "$args > /dev/full: exit $rc: $(cat "$tmp/full.err")"
done
echo "ok   report, report --json, parse > /dev/full: No space left on device"
exit "$failed"
