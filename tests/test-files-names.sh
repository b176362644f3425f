#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Files named for short-lived processes, and direct I/O given to its file.
#
# Names (fanotify): on ext4, xfs and btrfs over loop devices made here,
# "blkstack report --by file -- cat MNT/dir/big.bin" on a cold cache must
# show the 8 MiB under the path (cat has exited before /proc could be
# read), a file removed right after its read must show as deleted with its
# path, 2,000 small files read by short-lived cats must all be named, and
# "record --page-cache" must carry the name into the recording; without
# CAP_SYS_ADMIN the report must say that fanotify cannot be used.
#
# Direct I/O: ext4 on a partition, 16 MiB written and then read with
# O_DIRECT on a cold filesystem (ext4 reads its bitmaps and extent blocks
# through the page cache within the direct I/O) while another process reads
# the raw partition: every byte of the direct I/O must be the file's, and
# direct; the raw reads none of it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool python3 mkfs.ext4 dd
[ -d "$TRACEFS/events/filemap/mm_filemap_add_to_page_cache" ] ||
	skip "this kernel has no filemap/mm_filemap_add_to_page_cache event"

MIB=$((1024 * 1024))

# check_json JSON PYTHON-EXPR MESSAGE: the expression, on the report "d", must be true
check_json()
{
	python3 - "$1" "$2" <<'PY' || fail "$3 (report: $1)"
import json, sys
d = json.load(open(sys.argv[1]))
files = {f["path"]: f for f in d["files"]}
# the direct I/O checks find the file by inode too, whatever named it
files.update({f["path"].split(":")[-1]: f for f in d["files"] if not f["path"].startswith("/")})
ok = eval(sys.argv[2])
if not ok:
    print("files:", {k: (v["read_bytes"], v["write_bytes"], v["direct_bytes"]) for k, v in files.items()},
          "not_files:", {k: (v["read_bytes"], v["write_bytes"]) for k, v in d["not_files"].items()},
          "notes:", d.get("notes"), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

names_on()
{
	local fs=$1 out=$TMPD/$1

	new_fs "$fs" 400
	mkdir -p "$MNT/dir" "$MNT/many"
	head -c $((8 * MIB)) /dev/urandom >"$MNT/dir/big.bin"
	head -c $((2 * MIB)) /dev/urandom >"$MNT/dir/gone.bin"
	cold

	# exec: the traced command becomes cat itself, gone when the trace ends
	"$BLKSTACK" report -d "$MNT" --by file --json -- \
		sh -c "exec cat '$MNT/dir/big.bin' >/dev/null" >"$out-cat.json" 2>"$out-cat.err" ||
		fail "report of cat on $fs failed: $(cat "$out-cat.err")"
	if grep -q "fanotify" "$out-cat.err"; then
		skip "fanotify cannot be used here: $(grep fanotify "$out-cat.err")"
	fi
	check_json "$out-cat.json" "files.get('$MNT/dir/big.bin', {}).get('read_bytes', 0) >= 8 * $MIB" \
		"$fs: the 8 MiB cat read are not under $MNT/dir/big.bin"
	check_json "$out-cat.json" "d['names'].startswith('opens seen by fanotify')" \
		"$fs: the report does not say the names came from fanotify"

	# a file removed right after its read: deleted, with its path
	"$BLKSTACK" report -d "$MNT" --by file --json -- \
		sh -c "cat '$MNT/dir/gone.bin' >/dev/null; rm '$MNT/dir/gone.bin'" \
		>"$out-gone.json" 2>"$out-gone.err" || fail "report of cat+rm on $fs failed"
	check_json "$out-gone.json" \
		"files.get('$MNT/dir/gone.bin (deleted)', {}).get('read_bytes', 0) >= 2 * $MIB" \
		"$fs: the file read then removed is not named '$MNT/dir/gone.bin (deleted)'"
	note "$fs: cat's file and a removed file named"
}

names_on ext4
ext4_mnt=$MNT
if command -v mkfs.xfs >/dev/null; then names_on xfs; else note "SKIP xfs: no mkfs.xfs"; fi
if command -v mkfs.btrfs >/dev/null; then names_on btrfs; else note "SKIP btrfs: no mkfs.btrfs"; fi

# Under load: 2,000 files, each read by a cat that lives a few milliseconds.
MNT=$ext4_mnt DEV=$(findmnt -n -o SOURCE "$ext4_mnt") FSTYPE=ext4
for d in $(seq 0 9); do
	mkdir -p "$MNT/many/d$d"
	for f in $(seq 0 199); do echo "file $d $f" >"$MNT/many/d$d/f$f"; done
done
cold
"$BLKSTACK" report -d "$MNT" --by file --json -- \
	sh -c "find '$MNT/many' -type f -print0 | xargs -0 -n 20 cat >/dev/null" \
	>"$TMPD/many.json" 2>"$TMPD/many.err" || fail "report of 2,000 cats failed"
check_json "$TMPD/many.json" \
	"sum(1 for p in files if p.startswith('$MNT/many/')) == 2000 and not d.get('notes')" \
	"not every one of 2,000 files read by short-lived cats is named"
note "2,000 files of short-lived cats named"

# The name travels in the recording.
cold
"$BLKSTACK" record -d "$MNT" --page-cache -o "$TMPD/names.dat" -- \
	sh -c "exec cat '$MNT/dir/big.bin' >/dev/null" 2>"$TMPD/record.err" ||
	fail "record --page-cache failed: $(cat "$TMPD/record.err")"
"$BLKSTACK" report -i "$TMPD/names.dat" --by file --json >"$TMPD/names.json" ||
	fail "report -i of the recording failed"
check_json "$TMPD/names.json" "files.get('$MNT/dir/big.bin', {}).get('read_bytes', 0) >= 8 * $MIB" \
	"the recording does not name $MNT/dir/big.bin"
note "record --page-cache carries the name"

# The watch keeps no descriptor on the filesystem: it can be unmounted while
# traced (and its file is still named).
cold
"$BLKSTACK" report -d "$MNT" --by file --json -- \
	sh -c "cat '$MNT/dir/big.bin' >/dev/null && umount '$MNT'" \
	>"$TMPD/umount.json" 2>"$TMPD/umount.err" || fail "report of cat+umount failed: $(cat "$TMPD/umount.err")"
mountpoint -q "$MNT" && fail "the traced filesystem could not be unmounted while traced: $(cat "$TMPD/umount.err")"
mount -t "$FSTYPE" "$DEV" "$MNT" || fail "mount $DEV again failed"
check_json "$TMPD/umount.json" "files.get('$MNT/dir/big.bin', {}).get('read_bytes', 0) >= 8 * $MIB" \
	"cat's file, unmounted while traced, is not named"
note "the traced filesystem unmounted while traced, its file named"

# "blkstack cache --log": the runs of pages of cat's file, under its path
# (from /proc, the log names it MAJ:MIN: cat has gone by the next pass).
cold
"$BLKSTACK" cache -d "$MNT" --log -w 4 -o "$TMPD/cache.log" 2>"$TMPD/cache.err" &
cache_pid=$!
_clean_pids+=("$cache_pid")
_clean_instances+=("blkstack-$cache_pid")
inst=$TRACEFS/instances/blkstack-$cache_pid
for _ in $(seq 100); do
	[ "$(cat "$inst/events/filemap/mm_filemap_add_to_page_cache/enable" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && break
	kill -0 "$cache_pid" 2>/dev/null || break
	sleep 0.1
done
sh -c "exec cat '$MNT/dir/big.bin' >/dev/null"
wait "$cache_pid" || fail "blkstack cache failed: $(cat "$TMPD/cache.err")"
pages=$(awk -v p="$MNT/dir/big.bin" '$1 == p { split($3, r, /\.\./); n += r[2] - r[1] + 1 } END { print n + 0 }' \
	"$TMPD/cache.log")
[ "$pages" -eq $((8 * MIB / $(getconf PAGESIZE))) ] ||
	{ cat "$TMPD/cache.log" >&2; fail "cache --log: $pages pages under $MNT/dir/big.bin, want all 8 MiB"; }
note "cache --log names cat's file"

# Without CAP_SYS_ADMIN: the report says fanotify cannot be used.
if command -v setpriv >/dev/null; then
	cold
	setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin "$BLKSTACK" report -d "$MNT" \
		--by file -- sh -c "exec cat '$MNT/dir/big.bin' >/dev/null" \
		>"$TMPD/nocap.txt" 2>"$TMPD/nocap.err" || fail "report without CAP_SYS_ADMIN failed"
	grep -q "fanotify needs CAP_SYS_ADMIN" "$TMPD/nocap.err" ||
		fail "no note that fanotify needs CAP_SYS_ADMIN: $(cat "$TMPD/nocap.err")"
	note "without CAP_SYS_ADMIN: said"
fi

# Direct I/O on ext4 on a partition, with raw reads of the partition beside it.
[ -d "$TRACEFS/events/iomap/iomap_dio_rw_begin" ] || [ -d "$TRACEFS/events/iomap/iomap_iter" ] ||
	skip "this kernel has neither iomap/iomap_dio_rw_begin nor iomap/iomap_iter"
make_loop P 256 ext4
MNT=$P_MNT DEV=$P_PDEV FSTYPE=ext4
raw="for i in \$(seq 100); do dd if=$P_PDEV of=/dev/null bs=4k count=4 skip=\$((i * 37)) status=none; done"
for pass in 1 2 3; do
	rm -f "$MNT/dio"
	cold
	"$BLKSTACK" report -d "$MNT" --by file --json -- sh -c \
		"dd if=/dev/zero of=$MNT/dio bs=1M count=16 oflag=direct status=none & ($raw); wait" \
		>"$TMPD/dio-w$pass.json" 2>"$TMPD/dio-w$pass.err" || fail "report of the direct write failed"
	ino=$(stat -c %i "$MNT/dio")
	check_json "$TMPD/dio-w$pass.json" \
		"(files.get('$MNT/dio') or files.get('$ino', {})).get('write_bytes') == 16 * $MIB and (files.get('$MNT/dio') or files['$ino'])['direct_bytes'] == 16 * $MIB" \
		"pass $pass: the 16 MiB direct write is not all the file's, and direct"
	check_json "$TMPD/dio-w$pass.json" \
		"d['not_files']['unattributed']['write_bytes'] == 0 and d['not_files']['raw']['write_bytes'] == 0" \
		"pass $pass: direct write bytes counted as unattributed or raw"
	cold
	"$BLKSTACK" report -d "$MNT" --by file --json -- sh -c \
		"dd if=$MNT/dio of=/dev/null bs=1M iflag=direct status=none & ($raw); wait" \
		>"$TMPD/dio-r$pass.json" 2>"$TMPD/dio-r$pass.err" || fail "report of the direct read failed"
	check_json "$TMPD/dio-r$pass.json" \
		"(files.get('$MNT/dio') or files.get('$ino', {})).get('read_bytes') == 16 * $MIB and (files.get('$MNT/dio') or files['$ino'])['direct_bytes'] == 16 * $MIB" \
		"pass $pass: the 16 MiB direct read is not all the file's, and direct"
done
note "direct I/O beside raw reads: every byte the file's, 3 passes"
echo "PASS: $TEST_NAME"
