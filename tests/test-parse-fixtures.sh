#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack parse on the real dm-stack recordings of tests/fixtures/vm (Debian
# 6.1, made by tests/vm): for every block event type that has a blkparse
# letter, the number of lines blkstack prints equals the number of records
# trace-cmd report shows; the v6 files (read by blkstack's own page walker)
# and the v7 compressed file (read through libtracecmd) both. -d names a
# device as the other commands do, by the recording's stack (--topology):
# its kernel name, dm name, /dev path and the directory its filesystem was
# mounted on (each stack's "mount" line) print what its MAJ:MIN prints,
# only that device's lines; a name the stack lacks is refused, exit 1.
# Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed (apt-get install trace-cmd)"; exit 77; }

letter_of() {
	case $1 in
	block_bio_queue) echo Q ;; block_getrq) echo G ;; block_rq_insert) echo I ;;
	block_rq_issue) echo D ;; block_rq_requeue) echo R ;;
	block_bio_backmerge | block_rq_merge) echo M ;; block_bio_frontmerge) echo F ;;
	block_rq_complete | block_bio_complete) echo C ;;
	block_bio_remap | block_rq_remap) echo A ;; block_split) echo X ;;
	block_plug) echo P ;; block_unplug) echo U ;;
	*) echo - ;;
	esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0
for dat in "$FIXTURES"/vm/*.dat; do
	name=$(basename "$dat")
	n=$((n + 1))
	if ! "$BLKSTACK" parse -i "$dat" -o "$tmp/out.txt" 2>"$tmp/err"; then
		echo "FAIL $name: blkstack parse failed: $(cat "$tmp/err")"
		failed=1
		continue
	fi
	[ ! -e "$tmp/out.txt.partial" ] || { echo "FAIL $name: .partial left"; failed=1; }
	# a timer unplug (UT) is a block_unplug too
	awk 'NF >= 7 && $6 ~ /^[A-Z]+$/ { print ($6 == "UT" ? "U" : $6) }' "$tmp/out.txt" | sort | uniq -c |
		awk '{ print $2, $1 }' >"$tmp/ours"
	trace-cmd report "$dat" 2>/dev/null | grep -oE ' block_[a-z_]+:' | tr -d ' :' |
		while read -r ev; do letter_of "$ev"; done | grep -v '^-$' | sort | uniq -c |
		awk '{ print $2, $1 }' >"$tmp/theirs"
	if ! diff -u "$tmp/theirs" "$tmp/ours" >"$tmp/diff"; then
		echo "FAIL $name: per-letter counts differ (trace-cmd report vs blkstack parse):"
		cat "$tmp/diff"
		failed=1
	else
		echo "ok   $name: $(paste -sd' ' "$tmp/ours")"
	fi
	# split events carry the kernel's rwbs (a read split is R, not N)
	awk 'NF >= 7 && $6 == "X" { print $7 }' "$tmp/out.txt" | sort | uniq -c >"$tmp/ours-x"
	trace-cmd report "$dat" 2>/dev/null | sed -n 's/.* block_split: *[0-9]*,[0-9]* \([A-Z]*\) .*/\1/p' |
		sort | uniq -c >"$tmp/theirs-x"
	if ! diff -u "$tmp/theirs-x" "$tmp/ours-x" >"$tmp/diff"; then
		echo "FAIL $name: rwbs of the split events differ (trace-cmd report vs blkstack parse):"
		cat "$tmp/diff"
		failed=1
	fi
	grep -q '^Total events lost: 0$' "$tmp/out.txt" ||
		{ echo "FAIL $name: summary does not say 0 events lost"; failed=1; }
done
[ "$n" -gt 0 ] || { echo "FAIL: no fixtures in $FIXTURES/vm"; exit 1; }

# -d by the recording's stack: each name of a device prints its MAJ:MIN's lines
for dat in "$FIXTURES"/vm/6.1.0-56-amd64-md-raid1.dat "$FIXTURES"/vm/6.12.117+deb12-amd64-ref-virtio.dat; do
	name=$(basename "$dat")
	topo=${dat%.dat}.topo
	mnt=$(awk '$1 == "mount" { print $3; exit }' "$topo")
	src=$(awk '$1 == "mount" { print $2; exit }' "$topo")
	# the mounted device's MAJ:MIN and kernel name, from the stack's own lines
	kname=$(awk -v s="${src##*/}" '$1 == "blk" { n = ""; d = ""; m = "";
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "name") n = kv[2];
		if (kv[1] == "dm_name") m = kv[2] } if (n == s || m == s) { print n; exit } }' "$topo")
	mm=$(awk -v s="$kname" '$1 == "blk" && $2 == "name=" s { sub("dev=", "", $3); print $3 }' "$topo")
	[ -n "$mnt" ] && [ -n "$mm" ] || { echo "FAIL $name: no mount line or device in $topo"; failed=1; continue; }
	"$BLKSTACK" parse -i "$dat" --topology "$topo" -d "$mm" --no-summary -o "$tmp/want.txt"
	awk -v d="${mm/:/,}" 'NF >= 7 && $1 != d { bad++ } END { exit bad > 0 }' "$tmp/want.txt" &&
		[ -s "$tmp/want.txt" ] || { echo "FAIL $name: -d $mm prints other devices' lines, or none"; failed=1; }
	for arg in "$kname" "/dev/$kname" "$src" "$mnt" "$mnt/a/file"; do
		"$BLKSTACK" parse -i "$dat" --topology "$topo" -d "$arg" --no-summary -o "$tmp/got.txt" 2>"$tmp/err" &&
			cmp -s "$tmp/want.txt" "$tmp/got.txt" ||
			{ echo "FAIL $name: -d $arg does not print what -d $mm prints: $(cat "$tmp/err")"; failed=1; }
	done
	rc=0
	"$BLKSTACK" parse -i "$dat" --topology "$topo" -d nosuchdev -o "$tmp/no.txt" 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 1 ] && grep -q "no device 'nosuchdev' in the stack of" "$tmp/err" &&
		[ ! -e "$tmp/no.txt" ] ||
		{ echo "FAIL $name: -d nosuchdev: exit $rc: $(cat "$tmp/err")"; failed=1; }
	echo "ok   $name: -d $kname, /dev/$kname, $src, $mnt, $mnt/a/file: the lines of $mm"
done
exit "$failed"
