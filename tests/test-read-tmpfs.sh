#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A recording on tmpfs is read with pread() instead of through its mapping
# (format/datpages.c: there the mapping costs twice the copy). Every real
# recording of tests/fixtures/vm and every damaged one of
# tests/fuzz/regress/tracefile, read from a copy on tmpfs (/dev/shm), must
# give what it gives from the disk: parse's lines, report's JSON, the
# same messages on standard error and the same exit status, at -j 1 and
# -j 2. Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}" "${top_srcdir:?}"

shm=/dev/shm
[ "$(stat -f -c %T "$shm" 2>/dev/null)" = tmpfs ] ||
	{ echo "SKIP: $shm is not a tmpfs mount: the pread() path cannot be checked"; exit 77; }
disk=$FIXTURES/vm
[ "$(stat -f -c %T "$disk")" != tmpfs ] ||
	{ echo "SKIP: the fixtures are on tmpfs themselves: nothing to compare with"; exit 77; }

tmp=$(mktemp -d)
fast=$(mktemp -d -p "$shm" blkstack-read-tmpfs.XXXXXX)
trap 'rm -rf "$tmp" "$fast"' EXIT
failed=0
n=0

# out DIR NAME CMD ARGS...: blkstack CMD -i NAME ARGS in DIR (the same
# relative name in both places, so the messages can be compared) -> the
# status, then standard output, then standard error, on standard output
out()
{
	local dir=$1 name=$2 cmd=$3 rc=0

	shift 3
	(cd "$dir" && "$BLKSTACK" "$cmd" -i "$name" "$@" >"$tmp/o" 2>"$tmp/e") || rc=$?
	echo "exit $rc"
	cat "$tmp/o" "$tmp/e"
}

for dat in "$disk"/*.dat "$top_srcdir"/tests/fuzz/regress/tracefile/*.dat; do
	name=$(basename "$dat")
	src=$(dirname "$dat")
	cp "$dat" "$fast/$name"
	for args in "parse -j 1" "parse -j 2" "report --json -j 1" "report --json -j 2"; do
		# shellcheck disable=SC2086
		out "$src" "$name" $args >"$tmp/disk.txt"
		# shellcheck disable=SC2086
		out "$fast" "$name" $args >"$tmp/tmpfs.txt"
		if ! cmp -s "$tmp/disk.txt" "$tmp/tmpfs.txt"; then
			echo "FAIL $name: blkstack $args differs on tmpfs:"
			diff "$tmp/disk.txt" "$tmp/tmpfs.txt" | head -10
			failed=1
		fi
		n=$((n + 1))
	done
	rm "$fast/$name"
done
[ "$n" -gt 40 ] || { echo "FAIL: only $n readings compared"; failed=1; }
[ "$failed" -ne 0 ] || echo "ok   $n readings of $((n / 4)) recordings: the same from tmpfs as from the disk"
exit "$failed"
