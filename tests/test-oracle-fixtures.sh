#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every real dm and md stack recording of tests/fixtures/vm, I/O by I/O:
# blkstack convert --to jsonl (with the stack's .topo) against
# tests/vm/oracle.py, a second program that is not blkstack's tracker,
# reading trace-cmd report's text of the same file with full look-ahead.
# Each I/O's class (top-level; caused, for a top-level I/O, by which I/O;
# issued by a layer on its own; unexplained), the I/O it was issued for and
# the devices it reached agree for at least 99.5% of the I/Os of every
# recording, and every cause a row names by number is the row its device and
# queue time name (tests/vm/agree.py). Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}" "${top_srcdir:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }
command -v trace-cmd >/dev/null || { echo "SKIP: trace-cmd is not installed (apt-get install trace-cmd)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
n=0
# vm/next: recordings other fixture tests do not pass yet (tests/vm/README.md)
for dat in "$FIXTURES"/vm/*.dat "$FIXTURES"/vm/next/*.dat; do
	name=$(basename "$dat" .dat)
	topo=${dat%.dat}.topo
	[ -r "$topo" ] || { echo "FAIL $name: no ${topo##*/} beside it"; failed=1; continue; }
	n=$((n + 1))
	trace-cmd report -t -i "$dat" >"$tmp/report.txt" 2>"$tmp/err" ||
		{ echo "FAIL $name: trace-cmd report: $(tail -n 1 "$tmp/err")"; failed=1; continue; }
	python3 "$top_srcdir/tests/vm/oracle.py" "$topo" "$tmp/report.txt" -o "$tmp/oracle.jsonl" 2>"$tmp/err" ||
		{ echo "FAIL $name: oracle.py: $(tail -n 1 "$tmp/err")"; failed=1; continue; }
	"$BLKSTACK" convert -i "$dat" --topology "$topo" --to jsonl -o "$tmp/rows.jsonl" 2>"$tmp/err" ||
		{ echo "FAIL $name: convert --to jsonl: $(tail -n 1 "$tmp/err")"; failed=1; continue; }
	if out=$(python3 "$top_srcdir/tests/vm/agree.py" "$tmp/oracle.jsonl" "$tmp/rows.jsonl" --min 99.5); then
		echo "ok $name: $(head -n 1 <<<"$out"); $(sed -n 2p <<<"$out"); $(sed -n 3p <<<"$out")"
	else
		echo "FAIL $name:"
		sed 's/^/    /' <<<"$out"
		failed=1
	fi
done
[ "$n" -ge 22 ] || { echo "FAIL: only $n recordings in $FIXTURES/vm and vm/next"; failed=1; }
exit $failed
