# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034
#
# Shared helpers of the integration tests (sourced, never run). They need root,
# tracefs and loop devices, and exit 77 (automake's SKIP) with the reason when
# one is missing. Everything a test sets up is registered here and undone by
# one EXIT trap, on every path: loop devices, mounts, tracefs instances,
# background processes, the top-level tracer, temporary directories.

TRACEFS=/sys/kernel/tracing
BLKSTACK=${BLKSTACK:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/src/blkstack}
TEST_NAME=$(basename "$0" .sh)

_clean_hooks=()
_clean_pids=()
_clean_instances=()
_clean_mounts=()
_clean_loops=()
_clean_dirs=()

skip()
{
	echo "SKIP: $TEST_NAME: $*"
	exit 77
}

fail()
{
	echo "FAIL: $TEST_NAME: $*" >&2
	exit 1
}

note()
{
	echo "$TEST_NAME: $*"
}

need_root()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root (tracefs instances and loop devices)"
}

# need_tool TOOL...: on CI these are installed by .ci/run, so name them.
need_tool()
{
	local t

	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			skip "missing tool '$t' (Debian: apt-get install $(tool_package "$t"))"
	done
}

tool_package()
{
	case $1 in
	trace-cmd) echo trace-cmd ;;
	blkparse | blktrace) echo blktrace ;;
	mkfs.ext4) echo e2fsprogs ;;
	valgrind) echo valgrind ;;
	prometheus | promtool) echo prometheus ;;
	prometheus-node-exporter) echo prometheus-node-exporter ;;
	htpasswd) echo apache2-utils ;;
	curl | python3 | openssl) echo "$1" ;;
	*) echo util-linux ;;
	esac
}

need_blkstack()
{
	[ -x "$BLKSTACK" ] || fail "no blkstack binary at '$BLKSTACK' (set BLKSTACK or build first)"
}

# Mount tracefs where blkstack looks for it; a kernel without it is a skip.
need_tracefs()
{
	if [ ! -d "$TRACEFS/instances" ]; then
		mount -t tracefs nodev "$TRACEFS" 2>/dev/null ||
			skip "tracefs is not mounted at $TRACEFS and cannot be mounted"
	fi
	[ -d "$TRACEFS/instances" ] || skip "tracefs has no instances/ directory"
	[ -d "$TRACEFS/events/block" ] || skip "this kernel has no block trace events"
}

need_loop()
{
	[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true
	[ -e /dev/loop-control ] || skip "no loop device support (/dev/loop-control)"
}

# The usual preamble: root, tracefs, loop devices, a temp dir, the trap.
# Call need_tool for other tools after it (the skip reason then names them).
setup()
{
	need_root
	need_tool losetup addpart
	need_blkstack
	need_tracefs
	need_loop
	TMPD=$(mktemp -d "${TMPDIR:-/tmp}/blkstack-$TEST_NAME.XXXXXX")
	_clean_dirs+=("$TMPD")
	trap cleanup EXIT
	trap 'exit 1' INT TERM HUP
}

# at_cleanup CMD: run CMD (eval'd) at exit, before the rest is torn down.
at_cleanup()
{
	_clean_hooks+=("$1")
}

# Remove a tracefs instance; a reader still closing it makes rmdir EBUSY.
remove_instance()
{
	local dir=$TRACEFS/instances/$1 i

	[ -d "$dir" ] || return 0
	echo 0 >"$dir/tracing_on" 2>/dev/null || true
	echo 0 >"$dir/events/enable" 2>/dev/null || true
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$dir" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "$TEST_NAME: warning: cannot remove tracefs instance '$1'" >&2
	return 1
}

cleanup()
{
	local rc=$? i pid

	set +e
	trap - INT TERM HUP
	for ((i = ${#_clean_hooks[@]} - 1; i >= 0; i--)); do
		eval "${_clean_hooks[i]}"
	done
	for pid in "${_clean_pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || continue
		for i in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for i in "${_clean_instances[@]}"; do
		remove_instance "$i"
	done
	for ((i = ${#_clean_mounts[@]} - 1; i >= 0; i--)); do
		umount "${_clean_mounts[i]}" 2>/dev/null || umount -l "${_clean_mounts[i]}"
	done
	for ((i = ${#_clean_loops[@]} - 1; i >= 0; i--)); do
		losetup -d "${_clean_loops[i]}" 2>/dev/null
	done
	for i in "${_clean_dirs[@]}"; do
		rm -rf -- "$i"
	done
	exit "$rc"
}

# make_loop VAR [SIZE_MB] [ext4]: a loop disk with one partition at sector
# 2048 created with BLKPG (this kernel has no partition-table parser), and
# optionally ext4 mounted on the partition. Sets VAR_DEV (/dev/loopN),
# VAR_NAME (loopN), VAR_MM (blkparse "7,N"), VAR_KDEV (kernel dev_t),
# VAR_PDEV, VAR_PNAME, VAR_PMM, VAR_PKDEV (the partition), VAR_PSTART
# (its first sector) and VAR_MNT when mounted.
make_loop()
{
	local var=$1 size=${2:-64} fs=${3:-} img dev name pname mm pmm mnt i

	img=$TMPD/$var.img
	truncate -s "${size}M" "$img"
	dev=$(losetup -P -f --show "$img") || fail "losetup -P -f --show $img failed"
	_clean_loops+=("$dev")
	name=${dev#/dev/}
	pname=${name}p1
	addpart "$dev" 1 2048 $((size * 2048 - 4096)) || fail "addpart $dev 1 failed"
	for i in $(seq 50); do
		[ -b "/dev/$pname" ] && [ -r "/sys/class/block/$pname/dev" ] && break
		sleep 0.1
	done
	[ -b "/dev/$pname" ] || fail "partition /dev/$pname did not appear after addpart"
	mm=$(cat "/sys/class/block/$name/dev")
	pmm=$(cat "/sys/class/block/$pname/dev")
	printf -v "${var}_DEV" %s "$dev"
	printf -v "${var}_NAME" %s "$name"
	printf -v "${var}_MM" %s "${mm/:/,}"
	printf -v "${var}_KDEV" %s $(((${mm%:*} << 20) | ${mm#*:}))
	printf -v "${var}_PDEV" %s "/dev/$pname"
	printf -v "${var}_PNAME" %s "$pname"
	printf -v "${var}_PMM" %s "${pmm/:/,}"
	printf -v "${var}_PKDEV" %s $(((${pmm%:*} << 20) | ${pmm#*:}))
	printf -v "${var}_PSTART" %s "$(cat "/sys/class/block/$pname/start")"
	if [ "$fs" = ext4 ]; then
		need_tool mkfs.ext4
		# no lazy init: its background zeroing would be noise in every trace
		mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/$pname" ||
			fail "mkfs.ext4 /dev/$pname failed"
		mnt=$TMPD/$var.mnt
		mkdir "$mnt"
		# no block-bitmap prefetch either: ext4lazyinit reads the bitmaps
		# (read-ahead, metadata) at a random moment up to 5 s after the
		# mount, into whatever a test is tracing then
		mount -t ext4 -o no_prefetch_block_bitmaps "/dev/$pname" "$mnt" ||
			fail "mount /dev/$pname failed"
		_clean_mounts+=("$mnt")
		printf -v "${var}_MNT" %s "$mnt"
	fi
}

# throttle_cgroup MAJ:MIN IOPS: a cgroup whose reads and writes of device
# MAJ:MIN are throttled to IOPS a second each (cgroup v2 io.max, or v1
# blkio.throttle where the io controller is v1's), removed at exit. Sets
# CGDIR: a task whose pid is written to $CGDIR/cgroup.procs is throttled.
# Bios are held before their queue event (blk-throttle runs first in
# submit_bio_noacct): a throttled task's I/O waits before it is traced.
throttle_cgroup()
{
	local mm=$1 iops=$2 cg=blkstack-$TEST_NAME-$$-${#_clean_hooks[@]}

	if grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		echo +io >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
		CGDIR=/sys/fs/cgroup/$cg
		mkdir "$CGDIR" || skip "cannot create cgroup $CGDIR"
		at_cleanup "rmdir '$CGDIR' 2>/dev/null"
		echo "$mm riops=$iops wiops=$iops" >"$CGDIR/io.max" ||
			skip "cgroup v2 io.max refuses '$mm riops=$iops wiops=$iops'"
	elif [ -w /sys/fs/cgroup/blkio/blkio.throttle.read_iops_device ]; then
		CGDIR=/sys/fs/cgroup/blkio/$cg
		mkdir "$CGDIR" || skip "cannot create cgroup $CGDIR"
		at_cleanup "rmdir '$CGDIR' 2>/dev/null"
		echo "$mm $iops" >"$CGDIR/blkio.throttle.read_iops_device" ||
			skip "blkio.throttle.read_iops_device refuses '$mm $iops'"
		echo "$mm $iops" >"$CGDIR/blkio.throttle.write_iops_device" ||
			skip "blkio.throttle.write_iops_device refuses '$mm $iops'"
	else
		skip "no cgroup I/O throttling here (neither v2 io.max nor v1 blkio.throttle)"
	fi
}

# start_trace OUT ERR ARGS...: run "blkstack trace ARGS" in the background,
# and return once its instance traces, so no workload event is missed. A new
# instance starts with tracing_on = 1 and blkstack turns it off before it
# enables events: so "events enabled, then tracing_on = 1" means started.
# Sets TRACE_PID.
start_trace()
{
	local out=$1 err=$2 i inst

	shift 2
	"$BLKSTACK" trace "$@" >"$out" 2>"$err" &
	TRACE_PID=$!
	_clean_pids+=("$TRACE_PID")
	_clean_instances+=("blkstack-$TRACE_PID")
	inst=$TRACEFS/instances/blkstack-$TRACE_PID
	for i in $(seq 100); do
		if [ "$(cat "$inst/events/block/block_bio_queue/enable" 2>/dev/null)" = 1 ] &&
			[ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ]; then
			return 0
		fi
		kill -0 "$TRACE_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$err" >&2
	fail "blkstack trace did not start tracing within 10 s (instance blkstack-$TRACE_PID)"
}

# wait_trace: wait for the background trace; sets TRACE_RC.
wait_trace()
{
	TRACE_RC=0
	wait "$TRACE_PID" || TRACE_RC=$?
}

# still_tracing WHAT: the workload must end inside the -w window, or the
# comparison would be of different time spans.
still_tracing()
{
	kill -0 "$TRACE_PID" 2>/dev/null ||
		fail "blkstack trace ended before $1 finished: the machine is too slow for -w"
}

instance_gone()
{
	[ ! -e "$TRACEFS/instances/$1" ]
}

# count_actions FILE: "maj,min letter count" for every event line of a
# blkparse-format log (6th field one upper-case letter), sorted.
count_actions()
{
	awk '$1 ~ /^[0-9]+,[0-9]+$/ && $6 ~ /^[A-Z]$/ { n[$1 " " $6]++ }
	     END { for (k in n) print k, n[k] }' "$1" | sort
}

# sum_sectors FILE DEV LETTER OP: sectors in "sector + count" lines of DEV
# ("7,1") and action LETTER whose rwbs has OP (R or W).
sum_sectors()
{
	awk -v d="$2" -v a="$3" -v op="$4" \
		'$1 == d && $6 == a && $7 ~ op && $9 == "+" { s += $10 } END { print s + 0 }' "$1"
}

# free_port: a free TCP port on 127.0.0.1 (the kernel picks it; the race
# until the caller binds it is harmless on a test machine).
free_port()
{
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_http URL WHAT PID [ERRFILE [CURL_ARGS...]]: until URL answers 200, at
# most 15 s; PID (WHAT) exiting first is a failure, with ERRFILE shown.
# CURL_ARGS: certificates and credentials of an endpoint that needs them.
wait_http()
{
	local i

	for i in $(seq 150); do
		curl -sf -o /dev/null "${@:5}" "$1" && return 0
		if ! kill -0 "$3" 2>/dev/null; then
			[ -z "${4:-}" ] || cat "$4" >&2
			fail "$2 exited before serving $1"
		fi
		sleep 0.1
	done
	fail "$2 did not answer at $1 within 15 s"
}

# make_tls DIR: certificates made now, never committed: a CA (DIR/ca.crt)
# and the server's certificate it signs for 127.0.0.1 and localhost
# (DIR/server.crt, .key), a client's (DIR/client.crt, .key, for client
# authentication), and a client certificate of another CA (DIR/rogue.crt,
# .key), EC P-256 keys all.
make_tls()
{
	local d=$1 n

	need_tool openssl
	mkdir -p "$d"
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$d/server.ext"
	printf 'extendedKeyUsage=clientAuth\n' >"$d/client.ext"
	for n in ca other-ca; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-keyout "$d/$n.key" -out "$d/$n.crt" -subj "/CN=blkstack test $n" 2>/dev/null ||
			fail "openssl cannot make the test CA $n"
	done
	for n in server:ca:server client:ca:client rogue:other-ca:client; do
		set -- ${n//:/ }
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/$1.key" \
			-out "$d/$1.csr" -subj "/CN=blkstack test $1" 2>/dev/null &&
			openssl x509 -req -in "$d/$1.csr" -CA "$d/$2.crt" -CAkey "$d/$2.key" \
				-CAcreateserial -days 2 -extfile "$d/$3.ext" -out "$d/$1.crt" 2>/dev/null ||
			fail "openssl cannot make the test certificate $1"
	done
}

# dd_quiet ARGS...: quiet dd; failures are test failures.
dd_quiet()
{
	dd status=none "$@" || fail "dd $* failed"
}

# new_fs FS [SIZE_MB]: a loop device made here with FS (ext4, xfs, btrfs)
# mounted at $TMPD/mnt-FS; sets MNT, DEV and FSTYPE (for cold)
new_fs()
{
	local fs=$1 img=$TMPD/$1.img dev

	truncate -s "${2:-512}M" "$img"
	dev=$(losetup -f --show "$img") || fail "losetup $img failed"
	_clean_loops+=("$dev")
	case $fs in
	ext4) mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" ;;
	xfs) mkfs.xfs -q -f "$dev" ;;
	btrfs) mkfs.btrfs -q -f "$dev" >/dev/null ;;
	esac || fail "mkfs.$fs $dev failed"
	MNT=$TMPD/mnt-$fs
	mkdir -p "$MNT"
	mount -t "$fs" "$dev" "$MNT" || fail "mount $dev ($fs) failed"
	_clean_mounts+=("$MNT")
	DEV=$dev
	FSTYPE=$fs
}

# cold: empty the page cache of the filesystem at $MNT, and only its:
# unmount and mount it again (a drop of caches would empty everyone's, and
# another drop elsewhere on the machine would spoil the counts of a test)
cold()
{
	sync
	umount "$MNT" || fail "umount $MNT failed"
	mount -t "$FSTYPE" "$DEV" "$MNT" || fail "mount $DEV ($FSTYPE) again failed"
}

# need_chromium: headless Chromium (the tests that render SVG and HTML), with
# a home and a profile of its own in TMPD; as root it runs unsandboxed, and
# reaches for no network (this machine has none). Then
# "chrome ARGS..." runs it, its messages in $TMPD/chromium.err.
need_chromium()
{
	CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
	[ -n "$CHROMIUM" ] || skip "missing tool 'chromium' (Debian: apt-get install chromium)"
	export HOME=$TMPD/home
	mkdir -p "$HOME"
}

chrome()
{
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$TMPD/profile" "$@" 2>>"$TMPD/chromium.err"
}
