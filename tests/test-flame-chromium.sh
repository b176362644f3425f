#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The flame graph of "blkstack report --flame" in a browser: files read in
# a tree of directories on ext4 over a loop device, the SVG opened in
# headless Chromium. In the rendered page every directory's box must show
# its name where the browser drew it (elementFromPoint finds the label's
# box there) with its path as the hover title; the screenshot must be the
# picture of boxes, not a blank or an error page.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

setup
need_tool python3 mkfs.ext4
need_chromium
[ -d "$TRACEFS/events/filemap/mm_filemap_add_to_page_cache" ] ||
	skip "this kernel has no filemap:mm_filemap_add_to_page_cache event"

make_loop A 256 ext4
M=$A_MNT
mkdir -p "$M/alpha/beta" "$M/gamma"
head -c 2000000 /dev/urandom >"$M/alpha/beta/big.dat"
head -c 1000000 /dev/urandom >"$M/gamma/g.dat"
head -c 600000 /dev/urandom >"$M/alpha/a.dat"
# a cold cache for this filesystem only: mount it again
sync
umount "$M" && mount -t ext4 -o no_prefetch_block_bitmaps "$A_PDEV" "$M" || fail "mounting $A_PDEV again failed"
"$BLKSTACK" report -d "$M" --folded --flame "$TMPD/io.svg" --resolve-paths=walk \
	-o "$TMPD/folded.txt" -- sh -c 'cat "$@" >/dev/null' sh \
	"$M/alpha/beta/big.dat" "$M/gamma/g.dat" "$M/alpha/a.dat" ||
	fail "report --flame failed"
[ -s "$TMPD/io.svg" ] || fail "no SVG written"

# The page: the SVG inline, and a script that looks at what was drawn.
python3 - "$TMPD/io.svg" "$TMPD/check.html" "$M" <<'PY'
import json, sys
svg = open(sys.argv[1]).read()
svg = svg[svg.index("<svg"):]
want = ["alpha", "beta", "gamma", "big.dat", "g.dat", "all"]
page = """<!DOCTYPE html><html><body style="margin:0">%s
<pre id="want">%s</pre><pre id="mnt">%s</pre><pre id="result">not run</pre>
<script>
const want = JSON.parse(document.getElementById("want").textContent);
const mnt = document.getElementById("mnt").textContent;
const res = {};
for (const name of want) {
  const t = [...document.querySelectorAll("svg text")].find(e => e.textContent === name);
  if (!t) { res[name] = "no label"; continue; }
  const b = t.getBoundingClientRect();
  const hit = document.elementFromPoint(b.left + Math.min(b.width / 2, 8), b.top + b.height / 2);
  const g = t.closest("g");
  const title = g.querySelector("title").textContent;
  if (!(b.width > 0 && b.height > 0)) res[name] = "not drawn";
  else if (!hit || hit.closest("g") !== g) res[name] = "covered by " + (hit ? hit.tagName : "nothing");
  else if (name !== "all" && !title.startsWith(mnt + "/")) res[name] = "title " + title;
  else res[name] = "ok";
}
document.getElementById("result").textContent = JSON.stringify(res);
</script></body></html>""" % (svg, json.dumps(want), sys.argv[3])
open(sys.argv[2], "w").write(page)
PY
# a window wider than the graph: elementFromPoint sees the viewport only
chrome --window-size=1300,600 --virtual-time-budget=2000 --dump-dom "file://$TMPD/check.html" \
	>"$TMPD/dom.html" ||
	{ cat "$TMPD/chromium.err" >&2; fail "chromium could not load the page"; }
python3 - "$TMPD/dom.html" <<'PY' || fail "the flame graph did not render the directory names (see above)"
import html, json, re, sys
m = re.search(r'<pre id="result">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
assert m, "no result in the page"
res = json.loads(html.unescape(m.group(1)))
bad = {k: v for k, v in res.items() if v != "ok"}
for k, v in bad.items():
    print("  %s: %s" % (k, v))
sys.exit(1 if bad else 0)
PY
note "rendered labels and hover titles: ok"

chrome --window-size=1200,200 --screenshot="$TMPD/shot.png" "file://$TMPD/io.svg" >/dev/null ||
	{ cat "$TMPD/chromium.err" >&2; fail "chromium could not take a screenshot"; }
python3 "$(dirname "$0")/png-stats.py" "$TMPD/shot.png" >"$TMPD/shot.json" ||
	fail "cannot read the screenshot $TMPD/shot.png"
python3 - "$TMPD/shot.json" <<'PY' || fail "the screenshot is not a picture of the flame graph"
import json, sys
st = json.load(open(sys.argv[1]))
w = st["width"]
print("  screenshot %dx%d: %d warm pixels, %d colours" % (w, st["height"], st["warm"], st["colours"]))
# the warm boxes of files and directories: red high, blue low
assert st["warm"] > w * 20, "too few box pixels"
assert st["colours"] > 20, "too few colours"
PY
note "screenshot of the SVG: ok"
