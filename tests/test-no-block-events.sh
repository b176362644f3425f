#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A recording without a block event is said to be one, by every command
# that reads recordings (report, top, parse, convert, diff): exit 1, the
# message names the file, says it holds no block events, names the events
# it does hold (as trace-cmd report shows them, the oracle) and how to
# record block events; no output file is left. Three recordings: trace-cmd
# with block events enabled on a device that did no I/O (a filter nothing
# passes) beside sched_process_exec; trace-cmd without the block events at
# all (so without their formats); blkstack record of an idle loop device
# (its stack's markers, no I/O).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool trace-cmd

make_loop A 16
tc_inst=bstest-nb-$$
_clean_instances+=("$tc_inst")

# tc_record FILE ARGS...: trace-cmd record into FILE (see test-agree-tracecmd.sh
# for why -B and why its exit status is not the recording's)
tc_record()
{
	local out=$1

	shift
	trace-cmd record -B "$tc_inst" -b 16384 -d --no-filter "$@" -o "$out" -- \
		sh -c 'for i in 1 2 3 4 5; do /bin/true; sleep 0.05; done' >"$TMPD/tc.log" 2>&1 || true
	remove_instance "$tc_inst" || fail "cannot remove trace-cmd's instance $tc_inst"
	[ -s "$out" ] || { cat "$TMPD/tc.log" >&2; fail "trace-cmd record wrote no '$out'"; }
}

# no block event passes the filter: dev 1 is no device (block_plug has no
# dev to filter on: a block event of its own, so not enabled here)
tc_record "$TMPD/filtered.dat" -e block:block_bio_queue -f 'dev == 1' -e sched:sched_process_exec
tc_record "$TMPD/noformat.dat" -e sched:sched_process_exec
"$BLKSTACK" record -d "$A_DEV" -w 1 -o "$TMPD/idle.dat" 2>"$TMPD/rec.err" ||
	{ cat "$TMPD/rec.err" >&2; fail "blkstack record of an idle device failed"; }

for dat in filtered noformat idle; do
	f=$TMPD/$dat.dat
	# the oracle: the events trace-cmd report shows, by name
	trace-cmd report "$f" 2>/dev/null | awk '$1 != "cpus=" { for (i = 1; i < NF; i++)
		if ($i ~ /^[a-z_0-9]+:$/ && $(i - 1) ~ /^[0-9.]+:$/) { print substr($i, 1, length($i) - 1); break } }' |
		sort | uniq -c | sort -rn >"$TMPD/$dat.events"
	if grep -q " block_" "$TMPD/$dat.events"; then
		fail "$dat: trace-cmd report shows block events: $(cat "$TMPD/$dat.events")"
	fi
	for cmd in "report -i $f" "top -i $f" "parse -i $f" "convert -i $f --to csv -o $TMPD/out.csv" \
		   "convert -i $f --to blktrace -o $TMPD/bt" "diff $f $f"; do
		rc=0
		# shellcheck disable=SC2086
		"$BLKSTACK" $cmd >"$TMPD/out" 2>"$TMPD/err" || rc=$?
		[ "$rc" -eq 1 ] || fail "$dat: blkstack $cmd exited $rc, not 1"
		grep -qF "'$f' holds no block events" "$TMPD/err" ||
			fail "$dat: blkstack $cmd does not say the file holds no block events: $(cat "$TMPD/err")"
		grep -q "hint: record block events with 'blkstack record" "$TMPD/err" ||
			fail "$dat: blkstack $cmd does not say how to record block events"
		# every event type trace-cmd shows, with its count; or that there is none
		while read -r count name; do
			grep -qE "holds: (.*, )?$count [a-z_0-9]+:$name(,|$)" "$TMPD/err" ||
				fail "$dat: blkstack $cmd does not name the $count $name events: $(cat "$TMPD/err")"
		done <"$TMPD/$dat.events"
		[ -s "$TMPD/$dat.events" ] || grep -qF "'$f' holds no event at all" "$TMPD/err" ||
			fail "$dat: trace-cmd report shows no event, blkstack $cmd does not say so: $(cat "$TMPD/err")"
		! ls "$TMPD"/out.csv "$TMPD"/bt.* >/dev/null 2>&1 ||
			fail "$dat: blkstack $cmd left an output file: $(ls "$TMPD"/out.csv "$TMPD"/bt.* 2>/dev/null)"
	done
	note "$dat: every reader says it holds no block events but: $(paste -sd, "$TMPD/$dat.events" | tr -s ' ')$([ -s "$TMPD/$dat.events" ] || echo none), exit 1"
done
