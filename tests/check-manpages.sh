#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The man pages keep up with the code: every subcommand in src/cmd/main.c's
# command table has man/blkstack-NAME.8, and every long option of a command's
# getopt_long table in src/cmd/NAME.c (the table inside cli_parse_NAME) is
# mentioned as --option in that page. Exit 0 when all is there, 1 otherwise.
set -euo pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cmddir=$top_srcdir/src/cmd
main=$top_srcdir/src/cmd/main.c
man=$top_srcdir/man
failed=0

fail()
{
	echo "FAIL: check-manpages: $*" >&2
	failed=1
}

for f in "$main"; do
	[ -r "$f" ] || { echo "FAIL: check-manpages: cannot read '$f'" >&2; exit 1; }
done

# The names of the command table: { "trace", cmd_trace, "..." },
commands=$(sed -n '/commands\[\] *= *{/,/^};/p' "$main" |
	   sed -n 's/^[[:space:]]*{[[:space:]]*"\([a-z][a-z0-9-]*\)".*/\1/p')
[ -n "$commands" ] || fail "no command found in the command table of $main"

# The long options of the table in cli_parse_NAME():
# from the function's first line to its closing "};" of the option table.
long_options()
{
	sed -n "/^enum cli_result cli_parse_$1(/,/^}/p" "$cmddir/$1.c" |
		sed -n '/struct option/,/};/p' |
		sed -n 's/^[[:space:]]*{[[:space:]]*"\([a-z][a-z0-9-]*\)".*/\1/p'
}

# Does the roff page mention --opt? Hyphens are written \- in roff.
mentions()
{
	local page=$1 opt=$2 escaped

	escaped=${opt//-/\\\\-}
	grep -qE -- "(--|\\\\-\\\\-)(${opt}|${escaped})([^a-z0-9-]|\\\\[^-]|$)" "$page"
}

for cmd in $commands; do
	page=$man/blkstack-$cmd.8
	if [ ! -r "$page" ]; then
		fail "command '$cmd' has no man page man/blkstack-$cmd.8"
		continue
	fi
	cli=$cmddir/$cmd.c
	if ! grep -qs "^enum cli_result cli_parse_$cmd(" "$cli"; then
		fail "command '$cmd' has no cli_parse_$cmd() in $cli to check its page against"
		continue
	fi
	opts=$(long_options "$cmd")
	[ -n "$opts" ] || fail "no long option found in cli_parse_$cmd() of $cli"
	for opt in $opts; do
		mentions "$page" "$opt" || fail "man/blkstack-$cmd.8 does not mention --$opt"
	done
done

[ -r "$man/blkstack.8" ] || fail "no overview page man/blkstack.8"

if [ "$failed" -eq 0 ]; then
	echo "PASS: check-manpages: $(wc -w <<<"$commands") commands, every long option documented"
fi
exit "$failed"
