#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# blkstack parse on the real dm-stack recordings of tests/fixtures/vm (Debian
# 6.1, made by tests/vm): for every block event type that has a blkparse
# letter, the number of lines blkstack prints equals the number of records
# trace-cmd report shows; the v6 files (read by blkstack's own page walker)
# and the v7 compressed file (read through libtracecmd) both. Needs no root.
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
exit "$failed"
