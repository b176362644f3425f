#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack trace on a loop disk with a partition: the Q and C lines account
# for the bytes an O_DIRECT workload moved, the partition remap is there with
# the right sector, and -o leaves one complete file with the summary.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool mkfs.ext4

# Part 1: ext4 on the partition, traced by its mount point. Journal and
# metadata writes come along, so the direct I/O is a lower bound here.
make_loop A 64 ext4
out=$TMPD/ext4.log
start_trace "$TMPD/ext4.stdout" "$TMPD/ext4.err" -d "$A_MNT" -w 8 -o "$out"
dd_quiet if=/dev/zero of="$A_MNT/data" bs=64k count=4 oflag=direct
dd_quiet if="$A_MNT/data" of=/dev/null bs=4k count=2 iflag=direct
# journal noise: buffered metadata and a commit
touch "$A_MNT/a" "$A_MNT/b"
sync -f "$A_MNT"
still_tracing "the ext4 workload"
# while it runs, only the part file exists
[ -e "$out.partial" ] || fail "no '$out.partial' while the trace runs"
[ ! -e "$out" ] || fail "'$out' exists before the trace ended"
wait_trace
[ "$TRACE_RC" -eq 0 ] || { cat "$TMPD/ext4.err" >&2; fail "trace -d $A_MNT exited $TRACE_RC"; }
[ -s "$out" ] || fail "no output file '$out'"
[ ! -e "$out.partial" ] || fail "'$out.partial' left after the run"
[ ! -s "$TMPD/ext4.stdout" ] || fail "trace -o wrote to standard output too"
instance_gone "blkstack-$TRACE_PID" || fail "instance blkstack-$TRACE_PID left behind"

wq=$(sum_sectors "$out" "$A_MM" Q W)
rq=$(sum_sectors "$out" "$A_MM" Q R)
wc_=$(sum_sectors "$out" "$A_MM" C W)
[ "$wq" -ge 512 ] || fail "ext4: Q writes on $A_MM sum to $wq sectors, want >= 512 (256 KiB)"
[ "$wc_" -ge 512 ] || fail "ext4: C writes on $A_MM sum to $wc_ sectors, want >= 512"
[ "$rq" -ge 16 ] || fail "ext4: Q reads on $A_MM sum to $rq sectors, want >= 16 (8 KiB)"

# A 7,N S + n <- (259,M) O: the disk sector is the partition sector + start
bad=$(awk -v d="$A_MM" -v p="($A_PMM)" -v st="$A_PSTART" \
	'$1 == d && $6 == "A" && $12 == p { n++; if ($8 != $13 + st) { b++; print } }
	 END { if (!n) print "none" }' "$out")
[ -z "$bad" ] || fail "ext4: partition remap lines missing or wrong (start $A_PSTART): $bad"
grep -q "^Total ($A_MM):" "$out" || fail "ext4: no summary 'Total ($A_MM):' in '$out'"
grep -q "Writes Queued:" "$out" || fail "ext4: summary has no 'Writes Queued'"
grep -qi "lost" "$out" || fail "ext4: summary does not report lost events"
grep -q "events written to '$out'" "$TMPD/ext4.err" ||
	fail "ext4: no 'events written' note on stderr"
note "ext4: Q writes $wq sectors, Q reads $rq sectors, remap at +$A_PSTART: ok"

# Part 2: direct I/O on the raw partition: nothing else touches it, so the
# Q and C lines must account for exactly the bytes dd moved. Reads go to a
# region 16 MiB in, away from what a udev probe would read.
make_loop B 64
out=$TMPD/raw.log
start_trace "$TMPD/raw.stdout" "$TMPD/raw.err" -d "$B_PDEV" -w 6 -o "$out"
dd_quiet if=/dev/zero of="$B_PDEV" bs=64k count=4 oflag=direct
dd_quiet if="$B_PDEV" of=/dev/null bs=4k count=2 skip=4096 iflag=direct
still_tracing "the raw workload"
wait_trace
[ "$TRACE_RC" -eq 0 ] || { cat "$TMPD/raw.err" >&2; fail "trace -d $B_PDEV exited $TRACE_RC"; }
[ -s "$out" ] || fail "raw: no output file '$out'"
[ ! -e "$out.partial" ] || fail "raw: '$out.partial' left after the run"

# sectors of LETTER/OP lines inside [lo, hi) of the disk
in_range()
{
	awk -v d="$B_MM" -v a="$1" -v op="$2" -v lo="$3" -v hi="$4" \
		'$1 == d && $6 == a && $7 ~ op && $9 == "+" && $8 >= lo && $8 + $10 <= hi { s += $10 }
		 END { print s + 0 }' "$out"
}
w0=$B_PSTART
r0=$((B_PSTART + 4096 * 8))
for a in Q C; do
	got=$(sum_sectors "$out" "$B_MM" "$a" W)
	[ "$got" -eq 512 ] || fail "raw: $a writes on $B_MM sum to $got sectors, want exactly 512"
	got=$(in_range "$a" W "$w0" $((w0 + 512)))
	[ "$got" -eq 512 ] || fail "raw: $a writes in [$w0, +512) sum to $got sectors, want 512"
	got=$(in_range "$a" R "$r0" $((r0 + 16)))
	[ "$got" -eq 16 ] || fail "raw: $a reads in [$r0, +16) sum to $got sectors, want 16"
done
n=$(awk -v d="$B_MM" -v p="($B_PMM)" '$1 == d && $6 == "A" && $12 == p' "$out" | wc -l)
[ "$n" -ge 6 ] || fail "raw: $n remap lines from ($B_PMM), want at least 6 (4 writes + 2 reads)"
grep -q "^  *$B_MM .* A  *WS* $w0 + 128 <- ($B_PMM) 0\$" "$out" ||
	fail "raw: no line 'A W $w0 + 128 <- ($B_PMM) 0' for the first write"
grep -q "^Total ($B_MM):" "$out" || fail "raw: no summary for $B_MM"
note "raw: Q and C account for exactly 256 KiB written and 8 KiB read: ok"
