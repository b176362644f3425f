#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Debian package from end to end, as root on a Debian machine (.ci/run
# runs it; make check does not: it installs a package on the machine):
#  - `make dist`'s tarball, unpacked, builds with dpkg-buildpackage -us -uc
#    -b into blkstack_VERSION_ARCH.deb, VERSION the one configure.ac says;
#  - lintian reports no error and no warning (an override says why);
#  - the package holds the binary in /usr/sbin, every man page, the bash
#    completion and the unit (running /usr/sbin/blkstack), and depends on
#    the libraries blkstack links (${shlibs:Depends}) and on libmicrohttpd,
#    which it opens by soname;
#  - installed with apt, the unit is not enabled, the installed blkstack
#    says its version and reports, live, the bytes dd wrote to a loop
#    device's partition;
#  - purged, no file of it is left, nor any state of its unit.
# Exits 77 when a tool is missing or a blkstack package is installed
# already (it would be replaced).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

: "${top_srcdir:?}" "${top_builddir:?}"
setup
need_tool dpkg-buildpackage lintian apt-get dpkg-deb dpkg-parsechangelog objdump
if dpkg-query -W -f='${Status}' blkstack 2>/dev/null | grep -q 'install ok installed'; then
	skip "a blkstack package is installed: this test would replace it"
fi

VERSION=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
ARCH=$(dpkg --print-architecture)
[ -n "$VERSION" ] || fail "no PACKAGE_VERSION in $top_builddir/config.h"
[ "$(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version)" = "$VERSION" ] ||
	fail "debian/changelog is at $(dpkg-parsechangelog -l "$top_srcdir/debian/changelog" -S Version), configure.ac at $VERSION"

# --- build: from the tarball, as a distribution would -------------------------
make -C "$top_builddir" dist >"$TMPD/dist.log" 2>&1 || { tail -20 "$TMPD/dist.log" >&2; fail "make dist failed"; }
tar -C "$TMPD" -xzf "$top_builddir/blkstack-$VERSION.tar.gz"
rm -f "$top_builddir/blkstack-$VERSION.tar.gz"
# the unit tests ran in make check: nocheck here
(cd "$TMPD/blkstack-$VERSION" &&
	DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" dpkg-buildpackage -us -uc -b) \
	>"$TMPD/build.log" 2>&1 || { tail -40 "$TMPD/build.log" >&2; fail "dpkg-buildpackage -us -uc -b failed"; }
DEB=$TMPD/blkstack_${VERSION}_$ARCH.deb
[ -f "$DEB" ] || fail "no $(basename "$DEB") built: $(ls "$TMPD")"
note "built $(basename "$DEB")"

# --- lint: no error, no warning without an override that says why --------------
lintian --fail-on error,warning "$TMPD/blkstack_${VERSION}_$ARCH.changes" >"$TMPD/lintian.txt" 2>&1 ||
	{ cat "$TMPD/lintian.txt" >&2; fail "lintian reports errors or warnings"; }
grep -E '^[EW]: ' "$TMPD/lintian.txt" && fail "lintian reports errors or warnings"
note "lintian: $(grep -c '' "$TMPD/lintian.txt") lines, no error, no warning"

# --- what the package holds, and what it depends on --------------------------
dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|' >"$TMPD/contents"
for f in /usr/sbin/blkstack /usr/share/bash-completion/completions/blkstack \
	/lib/systemd/system/blkstack-monitor.service /etc/default/blkstack-monitor; do
	grep -qx "$f" "$TMPD/contents" || fail "the package has no $f"
done
for m in "$top_srcdir"/man/*.8; do
	grep -qx "/usr/share/man/man8/$(basename "$m").gz" "$TMPD/contents" ||
		fail "the package has no man page $(basename "$m")"
done
dpkg-deb --fsys-tarfile "$DEB" | tar -xO ./lib/systemd/system/blkstack-monitor.service |
	grep -q '^ExecStart=/usr/sbin/blkstack monitor ' || fail "the unit does not run /usr/sbin/blkstack"
DEPENDS=$(dpkg-deb -f "$DEB" Depends)
# what the binary links, each from its package (${shlibs:Depends})
for lib in $(objdump -p "$TMPD/blkstack-$VERSION/src/blkstack" | awk '$1 == "NEEDED" { print $2 }'); do
	path=$(ldd "$TMPD/blkstack-$VERSION/src/blkstack" | awk -v l="$lib" '$1 == l { print $3 }')
	pkg=
	# dpkg knows a library by the path its package ships, /lib or /usr/lib
	for p in "$path" "$(readlink -f "$path")" "/usr$path"; do
		pkg=$(dpkg-query -S "$p" 2>/dev/null | head -1 | cut -d: -f1) && [ -n "$pkg" ] && break
	done
	[ -n "$pkg" ] || fail "no package holds $lib ($path)"
	echo "$DEPENDS" | tr ',' '\n' | grep -qE "^ *$pkg( |$)" ||
		fail "Depends ($DEPENDS) lacks $pkg, the package of $lib"
done
echo "$DEPENDS" | grep -q 'libmicrohttpd' || fail "Depends ($DEPENDS) lacks libmicrohttpd, opened by soname"

# --- install, run ------------------------------------------------------------
at_cleanup "dpkg-query -W blkstack >/dev/null 2>&1 && dpkg --purge blkstack >/dev/null 2>&1"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$DEB" >"$TMPD/install.log" 2>&1 ||
	{ cat "$TMPD/install.log" >&2; fail "apt-get install of the package failed"; }
dpkg-query -L blkstack >"$TMPD/files"
[ -z "$(find /etc/systemd/system -name 'blkstack-monitor.service' 2>/dev/null)" ] ||
	fail "installing enabled the unit: $(find /etc/systemd/system -name 'blkstack-monitor.service')"
[ "$(/usr/sbin/blkstack --version)" = "blkstack $VERSION" ] ||
	fail "the installed blkstack says '$(/usr/sbin/blkstack --version)', not 'blkstack $VERSION'"
[ -f /usr/share/man/man8/blkstack-monitor.8.gz ] || fail "no /usr/share/man/man8/blkstack-monitor.8.gz installed"

make_loop A 64
/usr/sbin/blkstack report -d "$A_PDEV" --json -- \
	dd if=/dev/zero of="$A_PDEV" bs=64k count=16 oflag=direct status=none \
	>"$TMPD/report.json" 2>"$TMPD/report.err" ||
	{ cat "$TMPD/report.err" >&2; fail "the installed blkstack report failed"; }
python3 - "$TMPD/report.json" "$A_PNAME" <<'EOF' || fail "the installed blkstack's report is not the 1 MiB dd wrote to $A_PNAME"
import json, sys
doc = json.load(open(sys.argv[1]))
w = [l["ops"].get("write", {}) for l in doc["layers"] if l.get("name") == sys.argv[2]]
sys.exit(0 if w and w[0].get("bytes") == 16 * 65536 else 1)
EOF
note "installed: blkstack $VERSION, a live report of $A_PNAME: 1048576 bytes written"

# --- purge: nothing left ----------------------------------------------------
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q blkstack >"$TMPD/purge.log" 2>&1 ||
	{ cat "$TMPD/purge.log" >&2; fail "apt-get purge blkstack failed"; }
! dpkg-query -W -f='${Status}' blkstack 2>/dev/null | grep -q installed ||
	fail "blkstack still installed after the purge"
while read -r f; do
	# the directories it shares with others stay (/lib may be a link to one)
	[ -d "$f" ] && continue
	[ ! -e "$f" ] && [ ! -L "$f" ] || fail "$f left after the purge"
done <"$TMPD/files"
for f in /etc/default/blkstack-monitor /var/lib/blkstack /usr/share/doc/blkstack; do
	[ ! -e "$f" ] || fail "$f left after the purge"
done
left=$(find /var/lib/systemd /etc/systemd -name '*blkstack*' 2>/dev/null || true)
[ -z "$left" ] || fail "the unit's state left after the purge: $left"
note "purged: none of its $(grep -c '' "$TMPD/files") paths left"
note "PASS"
