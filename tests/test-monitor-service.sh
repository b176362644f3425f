#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack monitor's systemd unit (contrib/blkstack-monitor.service, as
# make builds it): systemd-analyze verify finds nothing to say, and
# systemd-analyze security rates its exposure at most 2.4 (5.3 before it
# was hardened). Then the monitor runs in the unit's sandbox, made here by
# hand (no systemd needed): CAP_SYS_ADMIN its only capability, no new
# privileges, the root filesystem and /sys read-only, tracefs, the
# textfile directory and the recording directory the only places it may
# write. It traces, serves /metrics, counts the bytes dd wrote, writes the
# textfile (0640, the group of its set-group-ID directory) and a flight
# recording (0600), and ends cleanly. A textfile directory whose group the
# file would need a capability to take is refused at the start, saying to
# make it set-group-ID.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

: "${top_builddir:?}"
setup
need_tool systemd-analyze unshare setpriv curl python3 mountpoint

UNIT=$top_builddir/contrib/blkstack-monitor.service
[ -f "$UNIT" ] || fail "no $UNIT: make builds it"

# --- the unit -------------------------------------------------------------
# as installed, but running this build's blkstack
sed "s|^ExecStart=[^ ]*/blkstack |ExecStart=$BLKSTACK |" "$UNIT" >"$TMPD/blkstack-monitor.service"
grep -q "^ExecStart=$BLKSTACK monitor " "$TMPD/blkstack-monitor.service" || fail "no ExecStart of blkstack monitor in $UNIT"
systemd-analyze verify --man=no "$TMPD/blkstack-monitor.service" >"$TMPD/verify.txt" 2>&1 ||
	{ cat "$TMPD/verify.txt" >&2; fail "systemd-analyze verify refuses the unit"; }
[ ! -s "$TMPD/verify.txt" ] || { cat "$TMPD/verify.txt" >&2; fail "systemd-analyze verify warns about the unit"; }
systemd-analyze security --offline=true "$TMPD/blkstack-monitor.service" >"$TMPD/security.txt" 2>&1 || true
SCORE=$(sed -n 's/.*Overall exposure level for blkstack-monitor.service: \([0-9.]*\) .*/\1/p' "$TMPD/security.txt")
[ -n "$SCORE" ] || { cat "$TMPD/security.txt" >&2; fail "systemd-analyze security gave no exposure level"; }
note "systemd-analyze security: exposure $SCORE"
systemd-analyze security --offline=true --threshold=24 "$TMPD/blkstack-monitor.service" >/dev/null 2>&1 ||
	fail "the unit's exposure is $SCORE, above 2.4"
for key in ProtectSystem=strict ProtectHome= PrivateTmp=yes NoNewPrivileges=yes \
	CapabilityBoundingSet=CAP_SYS_ADMIN MemoryMax=; do
	grep -q "^$key" "$UNIT" || fail "the unit has no $key"
done

# --- the sandbox, by hand ----------------------------------------------------
# its read-only remounts need / to be a mount point, as it is on a machine or
# in a container; a plain chroot's root is not
mountpoint -q / || skip "/ is not a mount point (a chroot?): the unit's read-only sandbox cannot be made here; bind the root onto itself (mount --bind DIR DIR) before chroot"
make_loop A 64
TEXTDIR=$TMPD/textfile
REC=$TMPD/rec
OTHER=$TMPD/other
mkdir "$TEXTDIR" "$REC" "$OTHER"
getent group nogroup >/dev/null || skip "no group nogroup for the textfile directory"
chgrp nogroup "$TEXTDIR"
chmod 2750 "$TEXTDIR"
PORT=$(free_port)

# sandbox ARGS...: blkstack monitor ARGS as the unit runs it: binds keep
# $TEXTDIR and $REC writable, then / (and the filesystem of $TMPD, if it is
# another) and /sys are read-only, tracefs (a mount of its own) stays
# writable; CAP_SYS_ADMIN alone, no new privileges. Call it in a subshell,
# which it replaces: the subshell's pid is the monitor's.
sandbox()
{
	local tmpfs

	tmpfs=$(stat -c %m "$TMPD")
	exec unshare -m --propagation private -- bash -c '
		set -e
		mount --bind "$1" "$1"
		mount --bind "$2" "$2"
		mount -o remount,bind,ro /
		[ "$3" = / ] || mount -o remount,bind,ro "$3"
		mount -o remount,bind,ro /sys
		# the sandbox holds: nothing else is writable
		if touch "$4/x" 2>/dev/null || touch /sys/kernel/x 2>/dev/null; then
			echo "sandbox: $4 or /sys is writable" >&2
			exit 99
		fi
		shift 4
		exec setpriv --bounding-set=-all,+sys_admin --inh-caps=-all --ambient-caps=-all \
			--no-new-privs "$@"' sandbox "$TEXTDIR" "$REC" "$tmpfs" "$OTHER" "$@"
}

(sandbox "$BLKSTACK" monitor -d "$A_PDEV" --listen "127.0.0.1:$PORT" --textfile "$TEXTDIR" \
	--interval 1s --by cgroup --record-on http --record-dir "$REC") \
	>"$TMPD/monitor.out" 2>"$TMPD/monitor.err" &
MON_PID=$!
_clean_pids+=("$MON_PID")
_clean_instances+=("blkstack-$MON_PID")
wait_http "http://127.0.0.1:$PORT/metrics" "blkstack monitor in the sandbox" "$MON_PID" "$TMPD/monitor.err"
grep -q '^CapEff:	0000000000200000$' "/proc/$MON_PID/status" ||
	fail "the monitor's capabilities are $(grep CapEff "/proc/$MON_PID/status"), not CAP_SYS_ADMIN alone"
grep -q '^NoNewPrivs:	1$' "/proc/$MON_PID/status" || fail "the monitor may gain privileges"

metric()
{
	curl -sf "http://127.0.0.1:$PORT/metrics" |
		awk -v re="^$1" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }'
}
W0=$(metric "blkstack_layer_bytes_total[{][^}]*name=\"$A_PNAME\"[^}]*op=\"write\"")
dd_quiet if=/dev/zero of="$A_PDEV" bs=64k count=32 oflag=direct
for i in $(seq 30); do
	W1=$(metric "blkstack_layer_bytes_total[{][^}]*name=\"$A_PNAME\"[^}]*op=\"write\"")
	[ $((W1 - W0)) = $((32 * 65536)) ] && break
	sleep 0.1
done
[ $((W1 - W0)) = $((32 * 65536)) ] || fail "in the sandbox the monitor counts $((W1 - W0)) bytes written, dd wrote $((32 * 65536))"

[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/record")" = 202 ] ||
	fail "POST /record refused in the sandbox"
for i in $(seq 50); do
	[ -e "$TEXTDIR/blkstack.prom" ] && ls "$REC"/blkstack-flight-*.dat >/dev/null 2>&1 && break
	sleep 0.1
done
[ "$(stat -c '%a %G' "$TEXTDIR/blkstack.prom" 2>/dev/null)" = "640 nogroup" ] ||
	fail "in the sandbox the textfile is '$(stat -c '%a %G' "$TEXTDIR/blkstack.prom" 2>&1)', not '640 nogroup'"
FLIGHT=$(ls "$REC"/blkstack-flight-*.dat 2>/dev/null | head -1)
[ -n "$FLIGHT" ] || fail "no flight recording written in the sandbox: $(cat "$TMPD/monitor.err")"
[ "$(stat -c %a "$FLIGHT")" = 600 ] || fail "the flight recording is mode $(stat -c %a "$FLIGHT"), not 600"

kill -TERM "$MON_PID"
wait "$MON_PID" || { cat "$TMPD/monitor.err" >&2; fail "the sandboxed monitor did not end cleanly"; }
instance_gone "blkstack-$MON_PID" || fail "tracefs instance blkstack-$MON_PID left behind"
[ ! -e "$TEXTDIR/blkstack.prom" ] || fail "the textfile left behind"
note "in the sandbox: traced, served, wrote the textfile and a recording, ended cleanly"

# a directory of another group, not set-group-ID: the file would need CAP_CHOWN
NOSGID=$TMPD/nosgid
mkdir "$NOSGID"
chgrp nogroup "$NOSGID"
chmod 0750 "$NOSGID"
rc=0
(TEXTDIR=$NOSGID && sandbox "$BLKSTACK" monitor -d "$A_PDEV" --textfile "$NOSGID") \
	>/dev/null 2>"$TMPD/nosgid.err" || rc=$?
[ "$rc" = 1 ] || fail "a textfile directory the file cannot take the group of: exit $rc, not 1"
grep -q "hint: make the directory set-group-ID (chmod g+s '$NOSGID')" "$TMPD/nosgid.err" ||
	fail "no set-group-ID hint: $(cat "$TMPD/nosgid.err")"
note "PASS"
