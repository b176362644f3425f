#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# "blkstack parse" on input that is not a good trace.dat: a missing file, an
# empty one, random bytes, text, a directory, a real recording cut short or
# with a damaged middle. It must fail with exit 1 and a message naming the
# file, or (for damage it cannot see) succeed, and never crash; under
# valgrind when it is installed, never touch memory it should not.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool trace-cmd

if command -v valgrind >/dev/null 2>&1; then
	vg=(valgrind -q --error-exitcode=99)
else
	vg=()
	note "valgrind is not installed: crashes are checked, memory errors are not"
fi

# junk N SEED: N bytes of fixed pseudo-random junk, the same on every run
junk()
{
	LC_ALL=C awk -v n="$1" -v s="$2" 'BEGIN { srand(s); for (i = 0; i < n; i++) printf "%c", int(rand() * 256) }'
}

# parse FILE [EXPECT]: run parse on FILE; EXPECT is an exit code, or "0|1"
parse()
{
	local file=$1 want=${2:-1} rc=0

	"${vg[@]}" "$BLKSTACK" parse -i "$file" >"$TMPD/out" 2>"$TMPD/err" || rc=$?
	[ "$rc" -ne 99 ] || { cat "$TMPD/err" >&2; fail "parse -i $file: valgrind found memory errors"; }
	if [ "$rc" -ge 128 ]; then
		# keep the input: the damage is pseudo-random over a fresh recording
		keep=$(mktemp "${TMPDIR:-/tmp}/blkstack-parse-crash.XXXXXX")
		cp "$file" "$keep"
		cat "$TMPD/err" >&2
		fail "parse -i $file: killed by signal $((rc - 128)); the input is kept as $keep"
	fi
	case "|$want|" in
	*"|$rc|"*) ;;
	*) cat "$TMPD/err" >&2; fail "parse -i $file: exit $rc, want $want" ;;
	esac
	if [ "$rc" -ne 0 ]; then
		grep -qF "'$file'" "$TMPD/err" ||
			fail "parse -i $file: exit $rc, but the message does not name the file: $(cat "$TMPD/err")"
	fi
	note "  $(basename "$file"): exit $rc"
}

# a real recording to damage
make_loop A 16
tc_inst=bstest-pf-$$
_clean_instances+=("$tc_inst")
good=$TMPD/good.dat
# trace-cmd's own file must be readable by trace-cmd: on a loaded machine a
# recording has come out unreadable once; record again rather than blame parse
for attempt in 1 2 3; do
	rm -f "$good"
	trace-cmd record -B "$tc_inst" -b 16384 -d --no-filter -e block -o "$good" -- \
		dd status=none if=/dev/zero of="$A_PDEV" bs=64k count=16 oflag=direct \
		>"$TMPD/tc.log" 2>&1 || true # lockdown makes its reset fail: see the file
	remove_instance "$tc_inst" || fail "cannot remove trace-cmd's instance $tc_inst"
	[ -s "$good" ] || { cat "$TMPD/tc.log" >&2; fail "trace-cmd record wrote no '$good'"; }
	# and it must hold the writes (on a busy machine trace-cmd has once
	# recorded none of them: that is trace-cmd's miss, not parse's)
	trace-cmd report "$good" >"$TMPD/tc.report" 2>/dev/null &&
		grep -q "block_bio_queue: *$A_MM W" "$TMPD/tc.report" && break
	note "attempt $attempt: trace-cmd's own report of its recording lacks the writes; recording again"
	cat "$TMPD/tc.log" >&2
done
size=$(stat -c %s "$good")

parse "$good" 0
grep -q "^ *$A_MM .* Q  *W" "$TMPD/out" || fail "parse of the good recording shows no Q write of $A_MM"
note "the good recording ($size bytes): exit 0 with the Q lines: ok"

parse "$TMPD/no-such-file.dat"
: >"$TMPD/empty.dat"
parse "$TMPD/empty.dat"
junk 65536 7 >"$TMPD/random.dat"
parse "$TMPD/random.dat"
printf 'tracing\nthis is text, not a trace.dat\n' >"$TMPD/text.dat"
parse "$TMPD/text.dat"
# the magic alone, then nothing
head -c 10 "$good" >"$TMPD/magic.dat"
parse "$TMPD/magic.dat"
mkdir "$TMPD/dir.dat"
parse "$TMPD/dir.dat"
note "missing, empty, random, text, magic-only, directory: exit 1 naming the file: ok"

# cut short: the header, then the middle of the data
for cut in 4096 $((size / 2)) $((size - 1000)); do
	head -c "$cut" "$good" >"$TMPD/cut$cut.dat"
	parse "$TMPD/cut$cut.dat"
done
note "truncated to 4 KiB, to half, and by 1000 bytes: exit 1 naming the file: ok"

# damage it cannot always see: junk over pages of the data. trace-cmd 3
# writes version 7, its instance's events in one compressed section: hit
# its middle too (a corrupt compressed buffer is where libtracecmd fails)
at_list="$((size / 2)) $((size * 3 / 4)) $((size - 8192))"
sec=$(trace-cmd dump --sections "$good" 2>/dev/null |
	awk -v n="\"buffer flyrecord $tc_inst\"," '$0 ~ n { print $4; exit }')
[ -z "$sec" ] || at_list="$at_list $((sec + 1024))"
seed=0
for at in $at_list; do
	seed=$((seed + 1))
	cp "$good" "$TMPD/bad$at.dat"
	junk 4096 "$seed" | dd status=none of="$TMPD/bad$at.dat" bs=1 seek="$at" conv=notrunc
	parse "$TMPD/bad$at.dat" "0|1"
done
# zeros over the section headers and formats near the start
cp "$good" "$TMPD/zero.dat"
dd status=none if=/dev/zero of="$TMPD/zero.dat" bs=1 seek=512 count=8192 conv=notrunc
parse "$TMPD/zero.dat" "0|1"
note "damaged copies: no crash, exit 0 or 1 naming the file: ok"
