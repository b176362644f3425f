#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every way out of "blkstack trace" leaves tracefs as it found it: Ctrl-C,
# SIGTERM, a reader that goes away (| head), and, for SIGKILL which nothing
# can catch, the next run removes the orphaned instance and says so. Bad
# devices, bad options and a user without rights fail with the right code.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"

setup

make_loop A 64

# The top-level block events are not ours: they must not change.
top_state()
{
	grep -H . "$TRACEFS"/events/block/*/enable "$TRACEFS"/events/block/*/filter
}
top0=$(top_state)
check_top()
{
	[ "$(top_state)" = "$top0" ] || fail "$1: the top-level block events changed"
}

busy()
{
	while [ ! -e "$TMPD/stop.$1" ]; do
		dd status=none if=/dev/zero of="$A_PDEV" bs=4k count=256 oflag=direct
	done
}

# (a), (b): a signal mid-run is a normal end: exit 0, the log committed
for sig in INT TERM; do
	out=$TMPD/sig$sig.log
	start_trace "$TMPD/sig$sig.stdout" "$TMPD/sig$sig.err" -d "$A_PDEV" -o "$out"
	dd_quiet if=/dev/zero of="$A_PDEV" bs=64k count=4 oflag=direct
	sleep 0.5
	kill -s "$sig" "$TRACE_PID"
	wait_trace
	[ "$TRACE_RC" -eq 0 ] || { cat "$TMPD/sig$sig.err" >&2; fail "SIG$sig: exit $TRACE_RC, want 0"; }
	instance_gone "blkstack-$TRACE_PID" || fail "SIG$sig: instance blkstack-$TRACE_PID left behind"
	[ -s "$out" ] || fail "SIG$sig: no log '$out'"
	[ ! -e "$out.partial" ] || fail "SIG$sig: '$out.partial' left"
	[ "$(sum_sectors "$out" "$A_MM" Q W)" -eq 512 ] || fail "SIG$sig: the log lacks the 4 writes"
	check_top "SIG$sig"
	note "SIG$sig: exit 0, instance removed, log complete: ok"
done

# (c) the reader leaves: blkstack must notice at its next write and clean up
busy c &
_clean_pids+=("$!")
at_cleanup "touch '$TMPD/stop.c'"
"$BLKSTACK" trace -d "$A_PDEV" 2>"$TMPD/head.err" > >(head -n 5 >"$TMPD/head.out") &
pid=$!
_clean_pids+=("$pid")
_clean_instances+=("blkstack-$pid")
for i in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null && fail "| head -n 5: blkstack still runs 10 s after head left"
rc=0
wait "$pid" || rc=$?
touch "$TMPD/stop.c"
[ "$rc" -eq 0 ] || { cat "$TMPD/head.err" >&2; fail "| head -n 5: exit $rc, want 0"; }
instance_gone "blkstack-$pid" || fail "| head: instance blkstack-$pid left behind"
[ "$(wc -l <"$TMPD/head.out")" -eq 5 ] || fail "| head -n 5: got $(wc -l <"$TMPD/head.out") lines"
check_top "| head"
note "| head -n 5: returned after $((i / 10)).$((i % 10)) s, instance removed: ok"

# (d) SIGKILL leaves the instance; the next run removes it and names it
start_trace "$TMPD/kill.stdout" "$TMPD/kill.err" -d "$A_PDEV" -o "$TMPD/kill.log"
killed=$TRACE_PID
kill -KILL "$killed"
wait_trace
[ -d "$TRACEFS/instances/blkstack-$killed" ] ||
	fail "SIGKILL: no instance blkstack-$killed left (cannot test the stale cleanup)"
rc=0
"$BLKSTACK" trace -d "$A_PDEV" -w 1 -o "$TMPD/next.log" 2>"$TMPD/next.err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$TMPD/next.err" >&2; fail "run after SIGKILL: exit $rc"; }
grep "blkstack-$killed" "$TMPD/next.err" | grep -qi "removed" ||
	{ cat "$TMPD/next.err" >&2; fail "run after SIGKILL: no message naming blkstack-$killed as removed"; }
instance_gone "blkstack-$killed" || fail "run after SIGKILL: blkstack-$killed still there"
check_top "SIGKILL"
note "SIGKILL: the next run removed blkstack-$killed and said so: ok"

# (e) a device that does not exist: runtime error naming it, nothing created
for dev in /dev/blkstack-no-such-disk no-such-disk9 4095:1048575; do
	rc=0
	"$BLKSTACK" trace -d "$dev" -w 1 >/dev/null 2>"$TMPD/nodev.err" || rc=$?
	[ "$rc" -eq 1 ] || fail "-d $dev: exit $rc, want 1"
	grep -qF "$dev" "$TMPD/nodev.err" || fail "-d $dev: the message does not name the device"
done
note "nonexistent devices: exit 1 naming them: ok"

# (f) usage errors are exit 2
for args in "--no-such-option" "-w" "-w abc" "-b xyz" "extra-argument"; do
	rc=0
	# shellcheck disable=SC2086 # split on purpose: each is an argument list
	"$BLKSTACK" trace $args >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 2 ] || fail "trace $args: exit $rc, want 2"
done
note "usage errors: exit 2: ok"

# (g) without root: exit 1 and say why (not "tracefs is not mounted")
if command -v setpriv >/dev/null 2>&1; then
	asuser=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
elif command -v su >/dev/null 2>&1; then
	# shellcheck disable=SC2016 # expanded by the shell su starts
	asuser=(su nobody -s /bin/sh -c 'exec "$0" "$@"' --)
else
	note "no setpriv or su: the non-root case is not tested"
	exit 0
fi
# nobody must reach the binary: copy it where it can (the build may be in
# a private home directory)
mkdir "$TMPD/bin"
cp "$BLKSTACK" "$TMPD/bin/blkstack"
chmod 755 "$TMPD" "$TMPD/bin" "$TMPD/bin/blkstack"
rc=0
"${asuser[@]}" "$TMPD/bin/blkstack" trace -w 1 >/dev/null 2>"$TMPD/user.err" || rc=$?
[ "$rc" -eq 1 ] || { cat "$TMPD/user.err" >&2; fail "as nobody: exit $rc, want 1"; }
grep -Eqi "root|permission" "$TMPD/user.err" ||
	fail "as nobody: the message does not mention root or permission: $(cat "$TMPD/user.err")"
note "as nobody: exit 1 with a permission message: ok"
