#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack report --iostat against iostat -x (sysstat) on the same device
# over the same 10 seconds of a steady fio workload: a whole loop disk,
# random 4 KiB reads and sequential 4 KiB direct writes whose plugged
# submissions merge. iostat reads /proc/diskstats, blkstack the events:
# iostat runs as the command blkstack traces, and a steady workload makes
# the part of the trace around iostat's window immaterial to rates.
# r/s, w/s, rkB/s, wkB/s, rrqm/s and wrqm/s agree within 2%, or within
# iostat's rounding (0.01) where the figure is that small; r_await,
# w_await and aqu-sz (the requests' times in nanoseconds, summed: the
# awaits times the rates; and 4 us a request, see below) within 5%: the trace begins before iostat's
# first read and ends up to a poll (250 ms) after its last, while blkstack
# starts and drains, and on a loaded 2-CPU machine the loop device's
# requests that complete then take longer (awaits 2-4% apart seen, once
# 11%). %util: the kernel counts busy time in whole jiffies, a jiffy
# counting whole when a request is in flight across its tick, so blkstack
# traces the ticks (timer:timer_expire_entry) to place the same jiffies;
# with ticks at phase 0 it gave 2.40 against 1.52. What stays is where a
# request's start or end lies within a few microseconds of a tick: the
# kernel reads jiffies a little after the G and C events, and the phase is
# known to a few microseconds. With u = 4 us of that per event, the ticks
# near an event are HZ * T * 2 * IOPS * u, each one jiffy either way: %util
# agrees within 2% plus three standard deviations of that (1.0 at 3,500
# I/Os a second over 10 s, whatever the utilisation; 0.72 apart seen once
# at 12%, 0.01 to 0.19 in ten other runs). On 6.16 and later a
# request keeps the device busy from its start, before from its issue
# (counted from the issue on 6.18 under load: 60.8 against 54.5).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup
need_tool iostat fio python3

make_loop A 256
# measure: iostat -x and report --iostat over the same 10 s of the workload
measure()
{
	fio --name=rand --filename="$A_DEV" --direct=1 --rw=randread --bs=4k --iodepth=4 \
		--ioengine=libaio --rate_iops=1500 --time_based --runtime=16 \
		--name=seq --filename="$A_DEV" --direct=1 --rw=write --bs=4k --iodepth=8 \
		--iodepth_batch_submit=8 --ioengine=libaio --rate_iops=2000 --offset=128m \
		--time_based --runtime=16 >"$TMPD/fio.out" 2>&1 &
	wait_pid=$!
	# past fio's start-up, into its steady state
	sleep 2
	# iostat runs as the command blkstack traces: its interval lies within the
	# trace, which begins and ends a few milliseconds around it
	"$BLKSTACK" report -d "$A_NAME" --iostat --json -o "$TMPD/ours.json" -- \
		sh -c "iostat -x -d -y -o JSON $A_NAME 10 1 >$TMPD/iostat.json" 2>"$TMPD/ours.err" ||
		{ cat "$TMPD/ours.err" >&2; fail "blkstack report -d $A_NAME --iostat -- iostat failed"; }
	wait "$wait_pid" || { cat "$TMPD/fio.out" >&2; fail "fio failed"; }
}

# agree: the two compared, column by column; fails when they disagree
agree()
{
	# the kernel's CONFIG_HZ, as blkstack takes it: from /boot/config, else 250
	hz=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" 2>/dev/null || true)
	python3 - "$TMPD/iostat.json" "$TMPD/ours.json" "$A_NAME" "${hz:-250}" <<'PY'
import json, sys
theirs = json.load(open(sys.argv[1]))["sysstat"]["hosts"][0]["statistics"][0]["disk"]
theirs = [d for d in theirs if d["disk_device"] == sys.argv[3]][0]
ours = [d for d in json.load(open(sys.argv[2]))["devices"] if d["name"] == sys.argv[3]]
if not ours:
    sys.exit("  no row for %s in report --iostat" % sys.argv[3])
ours = ours[0]
errs = []
for col in ("r/s", "w/s", "rkB/s", "wkB/s", "rrqm/s", "wrqm/s", "r_await", "w_await",
            "aqu-sz", "util"):
    t, o = theirs[col], ours["%util" if col == "util" else col]
    slack = 0.05 if col in ("r_await", "w_await", "aqu-sz") else 0.02
    # merges are rare (2 to 5/s): the quarter second the trace runs past
    # iostat's window, and where it starts, move a few of them (4.90
    # against 5.09 seen, 3.60 against 3.89 on a quiet machine): 5 in 10 s
    floor = 0.5 if col in ("rrqm/s", "wrqm/s") else 0.01
    if col == "util":
        hz, secs, u = int(sys.argv[4]), 10.0, 4e-6
        near = hz * secs * 2 * (theirs["r/s"] + theirs["w/s"]) * u
        floor = abs(t) * slack + 3 * near ** 0.5 * 100.0 / hz / secs
    # (each side rounded to 0.01: a difference of one unit is rounding)
    bound = max(abs(t) * slack, floor) + 1e-9
    if col == "aqu-sz":
        # the kernel times a request from its allocation to its accounting,
        # blkstack from its G to its C event, which the probes' own time
        # puts a few microseconds inside: 4 us a request (blkstack came out
        # 0.01-0.015 lower at 3,500 requests/s of 20-40 us each)
        bound += (theirs["r/s"] + theirs["w/s"]) * 4e-6
    ok = abs(t - o) <= bound
    print("  %-8s iostat %10.2f  blkstack %10.2f  %s" % (col, t, o, "ok" if ok else "DIFFERS"))
    if not ok:
        errs.append(col)
if theirs["wrqm/s"] < 1:
    errs.append("the workload merged no writes: nothing was compared for merges")
if errs:
    sys.exit("  differ: " + ", ".join(errs))
PY
}

wait_pid=
at_cleanup 'kill $wait_pid 2>/dev/null; wait $wait_pid 2>/dev/null'
# The kernel's own counts move on a loaded 2-CPU VM: the same workload
# gave a %util of 0.1 to 54 from one run to the next on 6.18, and once
# (on CI) awaits, aqu-sz and %util that iostat saw 12-33% above the
# events' figures, as when the kernel counts a request from its start
# (see above). A disagreement is measured again once; two in a row fail.
measure
if ! agree; then
	note "report --iostat and iostat -x disagreed: measured again"
	measure
	agree || fail "report --iostat and iostat -x disagree, twice"
fi
note "iostat -x's columns of $A_NAME agree (2%; awaits and aqu-sz 5%): ok"
