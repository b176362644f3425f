#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The workload's markers, which scripts write to tracefs's trace_marker (the
# top level's, which blkstack's private instance does not see by itself):
#  - blkstack record sets options/copy_trace_marker on its instance where
#    the kernel has it (6.17 and later), so the markers written to the top
#    level's trace_marker are in the recording; and on every kernel it
#    names its instance's own trace_marker to the COMMAND in
#    $BLKSTACK_TRACE_MARKER, whose writes are in the recording too.
#    trace-cmd report of the recording is the oracle: it must show both,
#    between the workload's I/O as it wrote them;
#  - report -i --html of the recording draws both markers;
#  - a live report --html draws both markers as well (the pages read are
#    scanned for them as they go by);
#  - top -i of the recording prints both between its intervals, in time
#    order, at their offsets into the trace; a live top prints the top
#    level's marker (it runs no command: the one it can see without one).
# On a kernel without copy_trace_marker, each run says so once and the
# top level's marker is not expected.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool python3 trace-cmd

make_loop A 64
copies=yes
[ -e "$TRACEFS/options/copy_trace_marker" ] || copies=no

# The top level's trace_marker refuses a write while its own tracing is off
# (EBADF), after the kernel copied it to the instances that asked: the
# write's status is the top level's business, not the test's.
cat >"$TMPD/work.sh" <<EOF
#!/bin/sh
dd status=none if=/dev/zero of=$A_PDEV bs=64k count=8 oflag=direct
echo "bsk-phase top-level \$\$" >$TRACEFS/trace_marker 2>/dev/null || true
dd status=none if=$A_PDEV of=/dev/null bs=64k count=8 iflag=direct
[ -n "\$BLKSTACK_TRACE_MARKER" ] || { echo "no BLKSTACK_TRACE_MARKER" >&2; exit 1; }
echo "bsk-phase own \$\$" >"\$BLKSTACK_TRACE_MARKER"
dd status=none if=/dev/zero of=$A_PDEV bs=64k count=8 oflag=direct
EOF
chmod +x "$TMPD/work.sh"

# markers NAME PAGE [TRACE-CMD-REPORT]: the page (and the recording) hold
# the workload's markers, each between the I/O before and after it
markers()
{
	python3 - "$copies" "$@" <<'PY'
import json, re, sys
copies, name, page = sys.argv[1:4]
text = open(page).read()
data = json.loads(re.search(r'<script type="application/json" id="bs-data">(.*?)</script>',
                            text, re.S).group(1))
got = {m[1].rsplit(" ", 1)[0]: m[0] for m in data["markers"]}
want = ["bsk-phase own"] + (["bsk-phase top-level"] if copies == "yes" else [])
errs = ["%s: no marker '%s' on the page (it has %s)" % (name, w, sorted(got)) for w in want
        if w not in got]
if copies == "yes" and not errs and not got["bsk-phase top-level"] < got["bsk-phase own"]:
    errs.append("%s: the markers are out of order: %s" % (name, got))
if len(sys.argv) > 4:
    # trace-cmd report: the same markers at the same times (to its printed us)
    tc = {}
    for line in open(sys.argv[4]):
        m = re.search(r"\s(\d+\.\d+): print:\s+\S+: (bsk-phase \S+)", line)
        if m:
            tc[m.group(2)] = float(m.group(1))
    for w in want:
        if w not in tc:
            errs.append("%s: trace-cmd report finds no '%s' in the recording" % (name, w))
        elif w in got and abs(tc[w] - got[w]) > 2e-6:
            errs.append("%s: '%s' at %.6f s, trace-cmd report %.6f s" % (name, w, got[w], tc[w]))
for e in errs:
    print("  " + e)
print("  %s: markers %s" % (name, ", ".join("%s at %.6f" % kv for kv in sorted(got.items()))))
sys.exit(1 if errs else 0)
PY
}

# noted ERR: on a kernel without copy_trace_marker, the run said so once
noted()
{
	local n

	n=$(grep -c "cannot copy trace_marker writes" "$1" || true)
	if [ "$copies" = yes ]; then
		[ "$n" -eq 0 ] || fail "the run says it cannot copy markers on a kernel that can: $(cat "$1")"
	else
		[ "$n" -eq 1 ] || fail "the run said $n times that this kernel cannot copy markers"
	fi
}

"$BLKSTACK" record -d "$A_NAME" -o "$TMPD/r.dat" -- "$TMPD/work.sh" 2>"$TMPD/r.err" ||
	{ cat "$TMPD/r.err" >&2; fail "blkstack record -- work.sh failed"; }
noted "$TMPD/r.err"
trace-cmd report "$TMPD/r.dat" >"$TMPD/r.tc" 2>/dev/null || fail "trace-cmd report of the recording failed"
"$BLKSTACK" report -i "$TMPD/r.dat" --html "$TMPD/r.html" -o /dev/null ||
	fail "report -i --html of the recording failed"
markers recording "$TMPD/r.html" "$TMPD/r.tc" || fail "the recording's markers (see above)"
note "record: the workload's markers in the recording and on its page: ok"

"$BLKSTACK" report -d "$A_NAME" --html "$TMPD/live.html" -o /dev/null -- "$TMPD/work.sh" \
	2>"$TMPD/live.err" || { cat "$TMPD/live.err" >&2; fail "report --html -- work.sh failed"; }
noted "$TMPD/live.err"
markers live "$TMPD/live.html" || fail "the live page's markers (see above)"
note "live report --html: the workload's markers on the page: ok"

# top -i: "marker +T.TTTs TEXT" lines in time order, at trace-cmd's times
"$BLKSTACK" top -i "$TMPD/r.dat" 0.01 -o "$TMPD/top.txt" || fail "top -i of the recording failed"
python3 - "$copies" "$TMPD/top.txt" "$TMPD/r.tc" <<'PY' || fail "top -i does not show the recording's markers (see above)"
import re, sys
copies, top, tc = sys.argv[1:4]
lines = open(top).read().split("\n")
marks = [(i, float(m.group(1)), m.group(2)) for i, l in enumerate(lines)
         for m in [re.match(r"^marker ([-+]\d+\.\d+)s (bsk-phase \S+)", l)] if m]
labels = [(i, float(m.group(1))) for i, l in enumerate(lines) for m in [re.match(r"^\+(\d+\.\d+)s ", l)] if m]
times = {}
first = None
for l in open(tc):
    m = re.search(r"\s(\d+\.\d+): (\w+):", l)
    if m and m.group(2).startswith("block_") and first is None:
        first = float(m.group(1))
    m = re.search(r"\s(\d+\.\d+): print:\s+\S+: (bsk-phase \S+)", l)
    if m:
        times[m.group(2)] = float(m.group(1))
want = ["bsk-phase top-level", "bsk-phase own"] if copies == "yes" else ["bsk-phase own"]
errs = []
if [m[2] for m in marks] != want:
    errs.append("markers %s, want %s" % ([m[2] for m in marks], want))
for i, t, text in marks:
    if text in times and abs(t - (times[text] - first)) > 0.0015:
        errs.append("%s at %+.3fs, trace-cmd puts it at %+.6fs" % (text, t, times[text] - first))
    # before the label of the first interval that ends after it
    after = [lt for li, lt in labels if li > i]
    if after and not t <= after[0] + 0.0005:
        errs.append("%s at %+.3fs is printed before the interval ending +%.3fs" % (text, t, after[0]))
for e in errs:
    print("  " + e)
sys.exit(1 if errs else 0)
PY
note "top -i: the recording's markers between its intervals: ok"

if [ "$copies" = yes ]; then
	"$BLKSTACK" top -d "$A_NAME" 0.3 4 -o "$TMPD/live-top.txt" 2>"$TMPD/top.err" &
	top_pid=$!
	_clean_pids+=("$top_pid")
	_clean_instances+=("blkstack-$top_pid")
	# a new instance starts with tracing on: copying is asked for once top turned it on
	for i in $(seq 100); do
		[ "$(cat "$TRACEFS/instances/blkstack-$top_pid/options/copy_trace_marker" \
			2>/dev/null)" = 1 ] && break
		sleep 0.1
	done
	echo "bsk-phase top-live" >"$TRACEFS/trace_marker" 2>/dev/null || true
	dd status=none if=/dev/zero of="$A_PDEV" bs=64k count=8 oflag=direct
	wait "$top_pid" || { cat "$TMPD/top.err" >&2; fail "top -d $A_NAME failed"; }
	grep -q "^marker [0-9:.]* bsk-phase top-live$" "$TMPD/live-top.txt" ||
		{ cat "$TMPD/live-top.txt" >&2; fail "a live top does not print the top level's marker"; }
	note "live top: the workload's marker between its intervals: ok"
fi
