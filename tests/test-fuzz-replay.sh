#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every libFuzzer harness of tests/fuzz replays its corpus and every input
# that once crashed or hung it (tests/fuzz/regress/HARNESS/), built with
# clang under AddressSanitizer and UndefinedBehaviorSanitizer: seconds, not
# a fuzzing run (that is make fuzz, see tests/fuzz/README.md). Needs clang;
# no root.
set -euo pipefail

: "${top_srcdir:?}" "${top_builddir:?}"
# configure found what building the harnesses takes, or said what is missing
if [ -n "${FUZZ_MISSING:-}" ]; then
	echo "SKIP: the fuzz harnesses cannot be built: $FUZZ_MISSING"
	exit 77
fi
command -v "${CLANG:-clang}" >/dev/null ||
	{ echo "SKIP: clang is not installed (apt-get install clang): the fuzz harnesses cannot be built"; exit 77; }

export SRCDIR=$top_srcdir BUILDDIR=$top_builddir OUT=$top_builddir/tests/fuzz/build
"$top_srcdir/tests/fuzz/run.sh" replay
