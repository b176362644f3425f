#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The man pages keep up with the code: every subcommand in src/cmd/main.c's
# command table has man/blkstack-NAME.8, and every long option of a command's
# getopt_long table in src/cmd/NAME.c (the table inside cli_parse_NAME) is
# mentioned as --option in that page, and every option that `blkstack NAME
# --help` lists is an option of that page (a tag of .TP) under the same
# metavariable (--topology FILE in both, not FILE in one and STACK in the
# other). Exit 0 when all is there, 1 otherwise.
set -euo pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BLKSTACK=${BLKSTACK:-${top_builddir:-$top_srcdir}/src/blkstack}
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

# "--long META" of each option line of a --help text, one a line ("--json"
# alone when it takes no argument): a single blank after the long name
# introduces its metavariable, two or more its description.
help_options()
{
	sed -nE 's/^ +(-[[:alnum:]], )?(--[a-z0-9-]+)( ([^ ]+))?( .*)?$/\2 \4/p' |
		sed -E 's/ +$//'
}

# The same of each option a roff page describes: the line after each .TP,
# its macros, font changes, quotes and escaped hyphens taken away
# (.BI \-d ", " \-\-device " DEV" -> "--device DEV").
man_options()
{
	awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' "$1" |
		sed -E -e 's/^\.[A-Z]+ //' -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\&//g' \
		       -e 's/"//g' -e 's/ ,/,/g' -e 's/  +/ /g' |
		sed -nE 's/^(-[[:alnum:]], )?(--[a-z0-9-]+)( ([^ ]+))?.*$/\2 \4/p' |
		sed -E 's/ +$//'
}

# Every option line of a command's --help is an option of its page (no
# command: blkstack --help and the overview page).
check_help()
{
	local cmd=$1 page=$2 help line documented

	if ! help=$("$BLKSTACK" ${cmd:+"$cmd"} --help); then
		fail "'blkstack${cmd:+ $cmd} --help' failed"
		return
	fi
	documented=$(man_options "$page")
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		grep -qxF -- "$line" <<<"$documented" ||
			fail "man/${page##*/} has no option '$line' as 'blkstack${cmd:+ $cmd} --help' lists it (its page: $(grep -F -- "${line%% *}" <<<"$documented" | paste -sd '|' || true))"
	done < <(help_options <<<"$help")
}

[ -x "$BLKSTACK" ] || fail "no blkstack binary at '$BLKSTACK' to read the --help of (build it first)"

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
	[ -x "$BLKSTACK" ] && check_help "$cmd" "$page"
done

if [ -r "$man/blkstack.8" ]; then
	[ -x "$BLKSTACK" ] && check_help "" "$man/blkstack.8"
else
	fail "no overview page man/blkstack.8"
fi

# Every library configure.ac asks pkg-config for (but check, the unit
# tests') is named in blkstack(8)'s requirements and in the README's.
# A module's name as the documents name the library: its version suffix
# off (yaml-0.1), "lib" in front but where the project names it otherwise
# (zlib, json-c, GnuTLS); matched as a word, in any case.
libraries=$(sed -nE 's/^PKG_CHECK_MODULES\(\[[A-Z_]+\], \[([a-z0-9.-]+).*/\1/p' \
		"$top_srcdir/configure.ac" | grep -vx check |
	    sed -E -e 's/-[0-9.]+$//' -e '/^(lib|zlib$|json-c$|gnutls$)/!s/^/lib/')
[ -n "$libraries" ] || fail "no PKG_CHECK_MODULES found in configure.ac"
for lib in $libraries; do
	grep -qiwF -- "${lib//-/\\-}" "$man/blkstack.8" ||
		fail "man/blkstack.8 does not name the library $lib that configure.ac needs"
	grep -qiwF -- "$lib" "$top_srcdir/README.md" ||
		fail "README.md does not name the library $lib that configure.ac needs"
done

if [ "$failed" -eq 0 ]; then
	echo "PASS: check-manpages: $(wc -w <<<"$commands") commands, every long option documented, under --help's metavariables"
fi
exit "$failed"
