#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What a recording knows of the machine it was made on, read back by
# report -i on this machine (which is the one it was made on: the oracle is
# this machine itself):
#  - blkstack record: the kernel's release (uname -r) in its marker and in
#    trace-cmd's UNAME option (trace-cmd report --uname shows it), CONFIG_HZ
#    (/boot/config-RELEASE or /proc/config.gz), and its wall clock: the
#    first I/O's wall-clock time lies between two reads of CLOCK_REALTIME
#    the workload took around its I/O (the two are read beside the trace
#    clock within microseconds: 2 ms of slack is the date command's own
#    start, not the pairing's error);
#  - report -i --iostat and top -x -i take the recording's kernel (6.16 and
#    later count started requests) and HZ, and say nothing is assumed;
#  - trace-cmd record --date: its DATE option gives the wall clock, as
#    trace-cmd report reads it (its times with the option, less those of
#    --nodate, to its printed microsecond). trace-cmd writes its stamp to
#    the top-level buffer and reads its time there, whatever -B says: the
#    top level is held for the test (as the btt tests hold it), on, and
#    given back as it was. Its DATE is no oracle of the wall clock itself
#    (trace-cmd 3.1.6 pairs a stamp with another try's time: off by 0.4 to
#    0.9 s here). Without --date the report says the wall clock is
#    unknown, and --iostat says which CONFIG_HZ it assumed, in text and JSON;
#  - report --html of each: the page's time axis has the wall clock where
#    the recording knows it, and says it is unknown where it does not; its
#    note says the times are those trace-cmd report prints, or with a DATE
#    option (trace-cmd report then prints the wall clock) --nodate prints.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=lib-btt.sh
. "$(dirname "$0")/lib-btt.sh"

setup
need_tool python3 trace-cmd flock

make_loop A 64
hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" 2>/dev/null ||
	zcat /proc/config.gz 2>/dev/null | sed -n 's/^CONFIG_HZ=//p' || true)

# the workload: CLOCK_REALTIME in ns before and after its I/O
cat >"$TMPD/work.sh" <<EOF
#!/bin/sh
date +%s%N >"$TMPD/before"
dd status=none if=/dev/zero of=$A_PDEV bs=64k count=16 oflag=direct
dd status=none if=$A_PDEV of=/dev/null bs=16k count=16 iflag=direct
date +%s%N >"$TMPD/after"
EOF
chmod +x "$TMPD/work.sh"

# check NAME REPORT.JSON IOSTAT.JSON SLACK_MS WALL(yes|no|OFFSET_NS) HZ(yes|no): what
# report -i read back; the wall clock within SLACK_MS of the workload's, or
# its offset from the trace clock within 2 us of OFFSET_NS
check()
{
	python3 - "$TMPD" "$@" "$(uname -r)" "${hz:-0}" <<'PY'
import json, sys
tmp, name, rep, ios, slack, wall, has_hz, release, hz = sys.argv[1:10]
before, after = (int(open("%s/%s" % (tmp, f)).read()) for f in ("before", "after"))
doc, io = json.load(open(rep)), json.load(open(ios))
errs = []
h = doc["host"]
if h["release"] != release:
    errs.append("host release %r, uname -r %r" % (h["release"], release))
want_hz = int(hz) if has_hz == "yes" and int(hz) else None
if h["hz"] != want_hz:
    errs.append("host hz %r, want %r" % (h["hz"], want_hz))
if wall not in ("yes", "no"):
    if h["wall_offset_ns"] is None or abs(h["wall_offset_ns"] - int(wall)) > 2000:
        errs.append("wall clock offset %s ns, trace-cmd report's %s" % (h["wall_offset_ns"], wall))
    else:
        print("  %s: wall clock offset %d ns, trace-cmd report's %s, from %s" %
              (name, h["wall_offset_ns"], wall, h["wall_clock"]))
elif wall == "yes":
    first = doc["first_ns"] + h["wall_offset_ns"]
    lo, hi = before - int(slack) * 1000000, after + int(slack) * 1000000
    if not lo <= first <= hi:
        errs.append("first I/O at wall %d ns, the workload ran in [%d, %d] (slack %s ms)"
                    % (first, before, after, slack))
    if not doc["first_wall"] or not doc["first_wall"].endswith("Z"):
        errs.append("first_wall %r" % doc["first_wall"])
    print("  %s: first I/O %.3f ms after the workload's start, wall clock from %s" %
          (name, (first - before) / 1e6, h["wall_clock"]))
else:
    if doc["first_wall"] is not None or h["wall_offset_ns"] is not None:
        errs.append("a wall clock %r where the recording has none" % doc["first_wall"])
    if not h["wall_clock"].startswith("unknown"):
        errs.append("wall_clock %r does not say it is unknown" % h["wall_clock"])
k = io["kernel"]
major, minor = (int(x) for x in release.split(".")[:2])
counts = "started" if (major, minor) >= (6, 16) else "issued"
if k["release"] != release or k["busy_counts"] != counts or k["busy_counts_assumed"]:
    errs.append("--iostat kernel %s, want release %s counting %s" % (k, release, counts))
if has_hz == "yes" and want_hz and (k["hz"] != want_hz or k["hz_from"] != "the recording"):
    errs.append("--iostat hz %s from %s, the recording says %s" % (k["hz"], k["hz_from"], want_hz))
if has_hz == "no" and (k["hz"] != 250 or k["hz_from"] != "assumed"):
    errs.append("--iostat hz %s from %s, want 250 assumed" % (k["hz"], k["hz_from"]))
for e in errs:
    print("  %s: %s" % (name, e))
sys.exit(1 if errs else 0)
PY
}

# page NAME PAGE WALL(yes|no) DATE(yes|no): the page's time axis, and its
# note on how trace-cmd report prints the times (a DATE option it adds)
page()
{
	python3 - "$@" <<'PY'
import re, sys
name, path, wall, date = sys.argv[1:5]
text = open(path).read()
w = re.search(r'id="bs-data">\{"wall":([-0-9.e]+|null)', text)
errs = []
if not w:
    errs.append("no page data")
elif (w.group(1) != "null") != (wall == "yes"):
    errs.append("the page's wall clock is %s" % w.group(1))
ticks = len(re.findall(r'class="tick wall"', text))
if wall == "yes" and (not ticks or "Wall clock: trace time" not in text):
    errs.append("%d wall-clock ticks on the time axes, and the note %s" % (ticks,
                "there" if "Wall clock: trace time" in text else "missing"))
if wall == "no" and (ticks or "Wall clock: unknown" not in text):
    errs.append("%d wall-clock ticks, and no note that the wall clock is unknown" % ticks)
said = {"yes": "as <code>trace-cmd report --nodate</code> prints it",
        "no": "as <code>trace-cmd report</code> prints it"}
if said[date] not in text or said["no" if date == "yes" else "yes"] in text:
    errs.append("the note does not say the times are those trace-cmd report%s prints"
                % (" --nodate" if date == "yes" else ""))
for e in errs:
    print("  %s page: %s" % (name, e))
sys.exit(1 if errs else 0)
PY
}

# blkstack record
"$BLKSTACK" record -d "$A_NAME" -o "$TMPD/r.dat" -- "$TMPD/work.sh" 2>"$TMPD/r.err" ||
	{ cat "$TMPD/r.err" >&2; fail "blkstack record failed"; }
trace-cmd report --uname "$TMPD/r.dat" 2>/dev/null | grep -qF " $(uname -r) " ||
	fail "trace-cmd report --uname does not show $(uname -r): $(trace-cmd report --uname "$TMPD/r.dat" 2>&1 | head -3)"
"$BLKSTACK" report -i "$TMPD/r.dat" --json -o "$TMPD/r.json" &&
	"$BLKSTACK" report -i "$TMPD/r.dat" --iostat --json -o "$TMPD/r.ios.json" &&
	"$BLKSTACK" report -i "$TMPD/r.dat" --iostat -o "$TMPD/r.ios.txt" &&
	"$BLKSTACK" top -x -i "$TMPD/r.dat" 10 -o "$TMPD/r.top.txt" &&
	"$BLKSTACK" report -i "$TMPD/r.dat" --html "$TMPD/r.html" -o /dev/null ||
	fail "report -i of blkstack's recording failed"
check blkstack "$TMPD/r.json" "$TMPD/r.ios.json" 2 yes yes ||
	fail "report -i does not read back what blkstack record knew (see above)"
if [ -n "$hz" ]; then
	! grep -q "assumed" "$TMPD/r.ios.txt" "$TMPD/r.top.txt" ||
		fail "report --iostat or top -x assumed what the recording says: $(grep -h assumed "$TMPD"/r.*.txt)"
fi
page blkstack "$TMPD/r.html" yes no || fail "the page of blkstack's recording has no wall clock"
note "blkstack record: release, CONFIG_HZ and wall clock read back: ok"

# trace-cmd record, with and without --date; its DATE is measured on the top level
btt_take_tracer
echo mono >"$TRACEFS/trace_clock"
# trace-cmd takes the first of its stamps it finds there: none of an earlier run's
: >"$TRACEFS/trace"
echo 1 >"$TRACEFS/tracing_on"
for v in date nodate; do
	inst=bstest-host-$$-$v
	_clean_instances+=("$inst")
	opts=(-B "$inst" -d --no-filter -C mono -e block -o "$TMPD/$v.dat")
	[ "$v" = nodate ] || opts+=(--date)
	# under lockdown trace-cmd exits 1 at its reset, its file complete: checked below
	trace-cmd record "${opts[@]}" -- "$TMPD/work.sh" >"$TMPD/$v.log" 2>&1 || true
	remove_instance "$inst" || fail "cannot remove trace-cmd's instance $inst"
	[ -s "$TMPD/$v.dat" ] || { cat "$TMPD/$v.log" >&2; fail "trace-cmd record wrote no $v.dat"; }
	"$BLKSTACK" report -i "$TMPD/$v.dat" --json -o "$TMPD/$v.json" &&
		"$BLKSTACK" report -i "$TMPD/$v.dat" --iostat --json -o "$TMPD/$v.ios.json" &&
		"$BLKSTACK" report -i "$TMPD/$v.dat" --iostat -o "$TMPD/$v.ios.txt" &&
		"$BLKSTACK" report -i "$TMPD/$v.dat" --html "$TMPD/$v.html" -o /dev/null ||
		fail "report -i of trace-cmd's recording ($v) failed"
	grep -q "^Note: %util counts busy time in ticks of CONFIG_HZ 250, assumed" "$TMPD/$v.ios.txt" ||
		fail "report --iostat does not say it assumed CONFIG_HZ 250: $(tail -3 "$TMPD/$v.ios.txt")"
done
restore_top
# trace-cmd report's own reading of DATE: the first event's time with it and without
tc_offset=$(python3 - "$TMPD/date.dat" <<'PY'
import re, subprocess, sys
def first(*opts):
    out = subprocess.run(["trace-cmd", "report", *opts, sys.argv[1]], capture_output=True,
                         text=True).stdout
    return re.search(r"\]\s+(\d+)\.(\d{6}):", out).groups()
a, b = first(), first("--nodate")
print((int(a[0]) - int(b[0])) * 1000000000 + (int(a[1]) - int(b[1])) * 1000)
PY
) || fail "trace-cmd report does not read its own recording's times"
check trace-cmd-date "$TMPD/date.json" "$TMPD/date.ios.json" 0 "$tc_offset" no ||
	fail "report -i does not read trace-cmd's DATE and UNAME options (see above)"
check trace-cmd "$TMPD/nodate.json" "$TMPD/nodate.ios.json" 0 no no ||
	fail "report -i of trace-cmd's recording without --date (see above)"
page trace-cmd-date "$TMPD/date.html" yes yes && page trace-cmd "$TMPD/nodate.html" no no ||
	fail "the pages of trace-cmd's recordings (see above)"
note "trace-cmd record: UNAME, DATE, and an unknown wall clock said: ok"
