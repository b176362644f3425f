#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The libFuzzer harnesses of tests/fuzz (README.md there):
#
#   run.sh build                        build them (clang) into $OUT
#   run.sh fuzz [SECONDS] [HARNESS...]  fuzz each for SECONDS (default
#                                       $FUZZ_SECONDS or 60), one at a time;
#                                       a crash leaves its input in
#                                       tests/fuzz/crashes/HARNESS-*
#   run.sh replay [HARNESS...]          run each over its corpus and its
#                                       regression inputs, once (make check)
#
# SRCDIR (the source tree), BUILDDIR (where config.h is) and OUT (the build
# directory, default BUILDDIR/tests/fuzz/build) can be set; by default the
# tree this script is in, built in place.
# Exit: 0 all passed, 1 a harness crashed or failed, 77 no clang (replay).
set -euo pipefail
shopt -s nullglob

here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$(cd "$here/../.." && pwd)}
BUILDDIR=${BUILDDIR:-$SRCDIR}
OUT=${OUT:-$BUILDDIR/tests/fuzz/build}
CLANG=${CLANG:-clang}
FUZZ=$SRCDIR/tests/fuzz
ALL="pagewalk tracefile decode markers opt http webconfig"

export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=16:detect_leaks=1}
export LSAN_OPTIONS=suppressions=$FUZZ/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# per harness: the longest input, and the time one input may take before it
# counts as a hang (above the 1 s each must stay under: the machine may be
# busy; -print_final_stats reports the slowest, README.md the results)
max_len() {
	case $1 in
	tracefile) echo 140000 ;; pagewalk) echo 16386 ;; *) echo 4096 ;;
	esac
}
timeout_of() {
	case $1 in
	tracefile) echo 20 ;; *) echo 10 ;;
	esac
}

build() {
	if ! command -v "$CLANG" >/dev/null; then
		echo "tests/fuzz: clang is not installed (apt-get install clang): the harnesses cannot be built" >&2
		return 77
	fi
	[ -f "$BUILDDIR/config.h" ] ||
		{ echo "tests/fuzz: no config.h in '$BUILDDIR': run ./configure first" >&2; return 1; }
	make -s -f "$FUZZ/fuzz.mk" -j"$(nproc)" CLANG="$CLANG" SRCDIR="$SRCDIR" \
		BUILDDIR="$BUILDDIR" OUT="$OUT"
}

opts_of() {
	local h=$1
	echo "-max_len=$(max_len "$h") -timeout=$(timeout_of "$h") -rss_limit_mb=4096"
	# libtracecmd, in tracefile's child, allocates what a damaged file claims;
	# libFuzzer's malloc limit would save that as this harness's crash (the
	# sanitizers' own limit ends the child quietly, see fuzz_tracefile.c)
	[ "$h" != tracefile ] || echo "-malloc_limit_mb=1048576"
	[ ! -f "$FUZZ/$h.dict" ] || echo "-dict=$FUZZ/$h.dict"
}

fuzz() {
	local secs=${1:-${FUZZ_SECONDS:-60}} status=0 h
	shift || true
	mkdir -p "$FUZZ/crashes"
	for h in ${*:-$ALL}; do
		# new inputs go to a scratch corpus; the tree's stays small (README.md)
		mkdir -p "$OUT/corpus-$h"
		echo "fuzz: $h for ${secs}s"
		# shellcheck disable=SC2046
		"$OUT/fuzz_$h" $(opts_of "$h") -max_total_time="$secs" -print_final_stats=1 \
			-artifact_prefix="$FUZZ/crashes/$h-" "$OUT/corpus-$h" "$FUZZ/corpus/$h" \
			>"$OUT/fuzz-$h.log" 2>&1 || { status=1; echo "fuzz: $h FAILED: see $OUT/fuzz-$h.log and $FUZZ/crashes/"; }
		grep -E '^(#[0-9]+.*DONE|stat::|SUMMARY)' "$OUT/fuzz-$h.log" || true
	done
	return $status
}

replay() {
	local status=0 h files
	for h in ${*:-$ALL}; do
		files=()
		for d in "$FUZZ/corpus/$h" "$FUZZ/regress/$h"; do
			[ -d "$d" ] && files+=("$d"/*)
		done
		[ ${#files[@]} -gt 0 ] || { echo "FAIL $h: no corpus in $FUZZ/corpus/$h"; status=1; continue; }
		# shellcheck disable=SC2046
		if "$OUT/fuzz_$h" $(opts_of "$h") -runs=0 -artifact_prefix="$OUT/replay-$h-" \
			"${files[@]}" >"$OUT/replay-$h.log" 2>&1; then
			echo "ok   $h: ${#files[@]} inputs"
		else
			echo "FAIL $h: see $OUT/replay-$h.log"
			grep -E 'ERROR|SUMMARY|Running: ' "$OUT/replay-$h.log" | tail -5
			status=1
		fi
	done
	return $status
}

cmd=${1:-}
shift || true
case $cmd in
build) build ;;
fuzz) build && fuzz "$@" ;;
replay) build && replay "$@" ;;
*) echo "usage: $0 build | fuzz [SECONDS] [HARNESS...] | replay [HARNESS...]" >&2; exit 2 ;;
esac
