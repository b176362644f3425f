#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Live tracing at a rate that forces loss: fio, two jobs of 4 KiB random
# O_DIRECT I/O on zram, traced with a ring buffer of 16 KiB per CPU.
#
#  - report, live: events lost are counted per CPU, the report says how
#    many stretches and I/Os they broke, and its match rate is below 100%;
#    it never counts more I/O than fio did, and its estimate of the I/Os
#    that lost every event makes up fio's count; its peak RSS (GNU time) stays
#    under the bound blkstack-report(8) states: 32 MiB + 1 MiB per CPU +
#    300 KiB per traced device + 300 bytes per bio in flight at the peak.
#  - record, then report -i: the I/Os it says were broken by lost events
#    are those an oracle finds in trace-cmd report's text of the same
#    file (its "[N EVENTS DROPPED]" lines and full time stamps): an I/O
#    whose queue came before the end of a stretch of lost events (the
#    next event of its CPU) and whose completion came after its start
#    (the last event its CPU kept). The oracle pairs a completion with the
#    queue of the same task, if that queue was of the same sector, length
#    and direction (a read's completion cannot end a write): zram ends a
#    bio in the task that submitted it, and a psync job has one I/O in
#    flight, so a task's next queue means that its previous I/O's
#    completion was lost. (Pairing the oldest queue of the same sector,
#    length and direction, as the tracker does with no loss, would hand a
#    queue whose completion was lost the next such I/O's, and so on; the
#    tracker does not, since a queue that met a stretch matches after those
#    that did not.) No I/O it hands out lasts longer than the longest the
#    oracle finds among those no stretch met. The same at -j 1 and -j 2.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool python3
need_tool fio
need_tool trace-cmd
[ -x /usr/bin/time ] || skip "GNU time is not installed (apt-get install time)"
modprobe zram 2>/dev/null || true
[ -e /sys/class/zram-control/hot_add ] || skip "no zram (modprobe zram)"
zid=$(cat /sys/class/zram-control/hot_add)
at_cleanup "echo 1 > /sys/block/zram$zid/reset 2>/dev/null; echo $zid > /sys/class/zram-control/hot_remove"
echo 128M >"/sys/block/zram$zid/disksize"
dd status=none if=/dev/urandom of="/dev/zram$zid" bs=1M count=128 oflag=direct
zdev=/dev/zram$zid
zmm=$(cat "/sys/block/zram$zid/dev")

# two jobs, so that two CPUs queue I/O at once; fio's count of I/Os as JSON
load="fio --name=loss --filename=$zdev --rw=randrw --rwmixread=70 --bs=4k --direct=1 \
	--ioengine=psync --numjobs=2 --time_based --runtime=3 --group_reporting \
	--output-format=json --output=$TMPD/fio.json"

# --- live -------------------------------------------------------------------
# shellcheck disable=SC2086
/usr/bin/time -f '%M' -o "$TMPD/rss" "$BLKSTACK" report -b 16 -d "$zdev" --json \
	-o "$TMPD/live.json" -- $load 2>"$TMPD/live.err" ||
	{ cat "$TMPD/live.err" >&2; fail "report at a rate that loses events failed"; }
python3 - "$TMPD/live.json" "$TMPD/fio.json" "$(tail -1 "$TMPD/rss")" "$(nproc)" <<'PY' ||
import json, sys
doc = json.load(open(sys.argv[1]))
fio = json.load(open(sys.argv[2]))["jobs"][0]
rss_kb, ncpu = int(sys.argv[3]), int(sys.argv[4])
t = doc["tracking"]
ios = fio["read"]["total_ios"] + fio["write"]["total_ios"]
lost = sum(c["lost"] for c in t["cpus"])
errs = []
if not lost:
    print("SKIP: no event lost at this rate on this machine")
    sys.exit(77)
if t.get("lost_stretches", 0) == 0:
    errs.append("%d events lost, but no stretch of them said" % lost)
if t["match_rate"] >= 1.0:
    errs.append("match rate %.4f with %d events lost" % (t["match_rate"], lost))
seen = t["top_level_ios"] + t["broken_by_lost_events_top_level"]
if seen > ios:
    errs.append("%d top-level I/Os seen, fio did %d" % (seen, ios))
# every I/O is seen, or estimated from the events lost (two a zram I/O):
# within 5% of fio's count (the broken ones lost some events of theirs)
total = seen + t["unmatched_completions_after_loss"] + t["top_level_unseen_estimate"]
if abs(total - ios) > ios * 0.05:
    errs.append("%d I/Os seen and %d estimated unseen, fio did %d"
                % (seen, t["top_level_unseen_estimate"], ios))
# the bound of blkstack-report(8), OVERHEAD
bound_kb = 32 * 1024 + 1024 * ncpu + 300 + 300 * t["inflight_peak"] // 1024
if rss_kb > bound_kb:
    errs.append("peak RSS %d KiB over the bound %d KiB" % (rss_kb, bound_kb))
for e in errs:
    print("  " + e)
print("  live: fio %d I/Os; %d events lost in %d stretches; %d followed, %d broken, "
      "about %d unseen; match rate %.4f; peak RSS %d KiB (bound %d)"
      % (ios, lost, t["lost_stretches"], t["top_level_ios"],
         t["broken_by_lost_events_top_level"], t["top_level_unseen_estimate"],
         t["match_rate"], rss_kb, bound_kb))
sys.exit(1 if errs else 0)
PY
	{ rc=$?; [ $rc -eq 77 ] && skip "no event lost at this rate on this machine"; fail "live report under loss (see above)"; }
note "live report under loss: counted per CPU, I/Os broken said, match rate under 100%, RSS under the bound: ok"

# --- recording, and the oracle -----------------------------------------------
# shellcheck disable=SC2086
"$BLKSTACK" record -b 16 -d "$zdev" -o "$TMPD/loss.dat" -- $load 2>"$TMPD/rec.err" ||
	{ cat "$TMPD/rec.err" >&2; fail "record at a rate that loses events failed"; }
for j in 1 2; do
	"$BLKSTACK" report -i "$TMPD/loss.dat" -j $j --json -o "$TMPD/rec$j.json" 2>/dev/null ||
		fail "report -i of the lossy recording failed (-j $j)"
done
cmp -s "$TMPD/rec1.json" "$TMPD/rec2.json" || fail "report -i -j 2 differs from -j 1 under loss"
trace-cmd report -t "$TMPD/loss.dat" >"$TMPD/tc.txt" 2>/dev/null ||
	fail "trace-cmd cannot read the recording"
python3 - "$TMPD/rec1.json" "$TMPD/tc.txt" "${zmm/:/,}" <<'PY' || fail "broken I/Os or latencies differ from the oracle's (see above)"
import json, re, sys
doc = json.load(open(sys.argv[1]))
t = doc["tracking"]
dev = sys.argv[3]
ev = re.compile(r"^\s*.*?-(\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(\w+):\s+(\S+)\s+(\S+)\s+(\d+) \+ (\d+)")
any_ev = re.compile(r"^\s*.*?\[(\d+)\]\s+(\d+\.\d+):")
# the count is left out where the page had no room for it
drop = re.compile(r"^CPU:(\d+) \[(?:\d+ )?EVENTS DROPPED\]")
last = {}          # per CPU, the last event's time (ns)
pending = {}       # CPU -> start of its stretch, until its next event
stretches = []     # (from, until)
queued = {}        # task -> its queue in flight: time, sector, length, operation
ios = []           # (q, c, operation)
unended = 0        # queues whose completion was lost (the task queued again)
for line in open(sys.argv[2]):
    m = drop.match(line)
    if m:
        cpu = int(m.group(1))
        pending[cpu] = last.get(cpu, 0)
        continue
    m = any_ev.match(line)
    if not m:
        continue
    cpu = int(m.group(1))
    s, ns = m.group(2).split(".")
    ts = int(s) * 10**9 + int(ns.ljust(9, "0"))
    if cpu in pending:
        stretches.append((pending.pop(cpu), ts))
    last[cpu] = ts
    m = ev.match(line)
    if not m or m.group(5) != dev:
        continue
    rwbs = m.group(6)
    op = "discard" if "D" in rwbs else "write" if "W" in rwbs else "read" if "R" in rwbs else rwbs
    task, io = m.group(1), (m.group(7), m.group(8), op)
    if m.group(4) == "block_bio_queue":
        unended += task in queued
        queued[task] = (ts, io)
    elif m.group(4) == "block_bio_complete" and queued.get(task, (0, None))[1] == io:
        ios.append((queued.pop(task)[0], ts, op))
# a stretch starts after the last event its CPU kept: the completion that
# is that event lost nothing
broken, longest = 0, {}
for q, c, op in ios:
    if any(a < c and b > q for a, b in stretches):
        broken += 1
    else:
        longest[op] = max(longest.get(op, 0), c - q)
got = t.get("broken_by_lost_events_top_level", 0)
print("  oracle: %d stretches, %d I/Os, %d broken, %d whose completion was lost; "
      "report -i: %d stretches, %d broken"
      % (len(stretches), len(ios), broken, unended, t.get("lost_stretches", 0), got))
errs = 0
# an I/O given another's completion lasts as long as the time between them
for op, most in sorted(longest.items()):
    mx = doc["end_to_end"].get(op, {}).get("total_ns", {}).get("max", 0)
    print("  longest %s: oracle %d ns, report -i %d ns" % (op, most, mx))
    errs += mx > most
if not stretches:
    sys.exit(1 if errs else 0)
# two events of two CPUs at the same nanosecond are ordered by CPU in the
# merge, by nothing here: allow for a couple
sys.exit(0 if abs(got - broken) <= 2 and not errs else 1)
PY
note "record under loss: the I/Os report -i says were broken are the oracle's, none handed out longer than the oracle's longest, -j 1 = -j 2: ok"
