#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The HTML page of "report --html" as a browser shows it, for recordings of
# tests/fixtures/vm: dm-crypt over dm-thin over dm-stripe (ref-virtio) and
# md raid5, on both kernels. Headless Chromium opens each page (a copy with
# tests/html-check.js injected) at 1280x800 and 1920x1080:
#  - no error and no console error;
#  - every chart has a title, an x axis with its unit, a y axis and a legend;
#    with the charting library (libjs-dygraphs) the line charts are drawn by
#    it, without it (BLKSTACK_DYGRAPHS naming no file) the page says the
#    charts are static, and they still have all of the above;
#  - no element reaches past the window's width, and the page does not
#    scroll sideways;
#  - without scrolling (the first 800 or 1080 px): the costliest layer for
#    reads and for writes (the verdict, and the highlighted cells of the
#    stack), the overview's latency charts with the slowest I/Os on them,
#    and the workload's markers, which are the recording's own print events
#    (trace-cmd report is the oracle);
#  - the page is under 2 MB.
# The screenshots stay in html-shots/ of the build tree's tests/ (or
# $HTML_SHOTS): KVER-STACK-1280x800.png and -1920x1080.png, and the
# static page's -static-1280x800.png. Needs no root.
set -euo pipefail

: "${BLKSTACK:?}" "${FIXTURES:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (apt-get install python3)"; exit 77; }
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: missing tool 'chromium' (Debian: apt-get install chromium)"; exit 77; }
command -v trace-cmd >/dev/null || { echo "SKIP: missing tool 'trace-cmd' (apt-get install trace-cmd)"; exit 77; }
[ -r /usr/share/javascript/dygraphs/dygraph.min.js ] ||
	{ echo "SKIP: libjs-dygraphs is not installed (apt-get install libjs-dygraphs)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
SHOTS=${HTML_SHOTS:-$PWD/html-shots}
mkdir -p "$SHOTS" "$tmp/home"
export HOME=$tmp/home
failed=0

# chrome SIZE ARGS...: as root it runs unsandboxed; this machine has no network
chrome()
{
	local size=$1
	shift
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--hide-scrollbars --user-data-dir="$tmp/profile" --window-size="$size" \
		--virtual-time-budget=5000 "$@" 2>>"$tmp/chromium.err"
}

# inject PAGE OUT: the page with html-check.js's two halves in it
inject()
{
	python3 - "$1" "$2" "$HERE/html-check.js" <<'PY'
import sys
page, out, js = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
first, after = js.split("//--- after\n")
text = open(page).read()
head = text.index("<head>") + len("<head>")
text = text[:head] + "<script>" + first + "</script>" + text[head:]
end = text.rindex("</body>")
text = text[:end] + "<script>" + after + "</script>" + text[end:]
open(out, "w").write(text)
PY
}

# check NAME PAGE DOM SIZE LIBRARY MARKERS: what check.js found, judged
check()
{
	python3 - "$@" <<'PY'
import html, json, re, sys
name, page, dom, size, library, markers = sys.argv[1:7]
w, h = (int(x) for x in size.split(","))
m = list(re.finditer(r'<pre id="bs-check">(.*?)</pre>', open(dom).read(), re.S))
m = m[-1] if m else None
if not m:
    print("FAIL %s %s: the page's check did not run" % (name, size))
    sys.exit(1)
res = json.loads(html.unescape(m.group(1)))
want_marks = [l for l in open(markers).read().split("\n") if l]
text = open(page).read()
bad = []
if res["errors"]:
    bad.append("errors: %s" % res["errors"][:3])
for c in res["charts"]:
    if c["lacks"]:
        bad.append("chart %s (%s) lacks %s" % (c["id"], c["title"][:60], ", ".join(c["lacks"])))
lines = [c for c in res["charts"] if '<div class="plot" data-chart="%s"' % c["id"] in text]
drawn = [c for c in lines if c["drawn_by_library"]]
if library == "yes" and (not lines or len(drawn) != len(lines)):
    bad.append("%d of %d line charts drawn by the library" % (len(drawn), len(lines)))
if library == "no" and (drawn or "The charts are static" not in text):
    bad.append("without the library: %d charts drawn by it, or no note" % len(drawn))
if res["overflow"] or res["scroll_w"] > res["window_w"]:
    bad.append("wider than the window (%d > %d): %s" % (res["scroll_w"], res["window_w"],
               res["overflow"][:4]))
f = res["fold"]
for k in ("verdict_read", "verdict_write", "stack", "markers"):
    if f[k] is None or f[k] > h:
        bad.append("%s at %s px: not on the first screen of %d px" % (k, f[k], h))
if len(f["charts"]) < 2 or max(f["charts"]) > h:
    bad.append("overview charts end at %s px: not on the first screen" % f["charts"])
if not f["slow_points"]:
    bad.append("no slowest I/O on the overview's charts")
got_marks = [html.unescape(x) for x in re.findall(r'<span class="mark" data-t="[^"]*">[^&]*&nbsp;([^<]*)</span>', text)]
if got_marks != want_marks:
    bad.append("markers %s, trace-cmd report %s" % (got_marks[:4], want_marks[:4]))
for b in bad[:8]:
    print("FAIL %s %s: %s" % (name, size, b))
print("%s %s: %d charts (%d by the library), first screen: verdict %s/%s px, charts %s px, "
      "markers %s px, %d slowest I/Os shown" % (name, size, len(res["charts"]), len(drawn),
      f["verdict_read"], f["verdict_write"], f["charts"], f["markers"], f["slow_points"]))
sys.exit(1 if bad else 0)
PY
}

n=0
for dat in "$FIXTURES"/vm/*-ref-virtio.dat "$FIXTURES"/vm/*-md-raid5.dat; do
	name=$(basename "$dat" .dat)
	out=$tmp/$name
	n=$((n + 1))
	mkdir "$out"
	# the oracle of the markers: the print events trace-cmd reads, not blkstack's own
	trace-cmd report -i "$dat" 2>/dev/null |
		sed -n 's/^.* print: *[0-9a-fx]*: //p' | grep -v '^blkstack-' >"$out/markers" || true
	[ -s "$out/markers" ] || { echo "FAIL $name: trace-cmd finds no marker in the recording"; failed=1; }
	if ! "$BLKSTACK" report -i "$dat" --topology "${dat%.dat}.topo" --slowest 10 \
		--html "$out/r.html" -o /dev/null 2>"$out/err"; then
		echo "FAIL $name: report --html failed: $(cat "$out/err")"
		failed=1
		continue
	fi
	if [ "$(stat -c %s "$out/r.html")" -ge $((2 << 20)) ]; then
		echo "FAIL $name: the page is $(stat -c %s "$out/r.html") bytes, over 2 MB"
		failed=1
	fi
	BLKSTACK_DYGRAPHS=/nonexistent/dygraph.min.js "$BLKSTACK" report -i "$dat" \
		--topology "${dat%.dat}.topo" --slowest 10 --html "$out/static.html" -o /dev/null
	inject "$out/r.html" "$out/check.html"
	inject "$out/static.html" "$out/check-static.html"
	for size in 1280,800 1920,1080; do
		chrome "$size" --screenshot="$SHOTS/$name-${size/,/x}.png" "file://$out/r.html" \
			>/dev/null || { echo "FAIL $name: no screenshot at $size"; failed=1; }
		chrome "$size" --dump-dom "file://$out/check.html" >"$out/dom-$size.html" ||
			{ echo "FAIL $name: chromium could not load the page at $size"; failed=1; continue; }
		check "$name" "$out/r.html" "$out/dom-$size.html" "$size" yes "$out/markers" || failed=1
	done
	chrome 1280,800 --screenshot="$SHOTS/$name-static-1280x800.png" "file://$out/static.html" \
		>/dev/null || { echo "FAIL $name: no screenshot of the static page"; failed=1; }
	chrome 1280,800 --dump-dom "file://$out/check-static.html" >"$out/dom-static.html" ||
		{ echo "FAIL $name: chromium could not load the static page"; failed=1; continue; }
	check "$name-static" "$out/static.html" "$out/dom-static.html" 1280,800 no "$out/markers" ||
		failed=1
	# a screenshot is a picture of the page, in its colours, not a blank or an error page
	for png in "$SHOTS/$name"-1280x800.png "$SHOTS/$name"-1920x1080.png; do
		python3 "$HERE/png-stats.py" "$png" | python3 -c '
import json, sys
st = json.load(sys.stdin)
ok = st["ink"] > st["width"] * 40 and st["blue"] > 100 and st["warm"] > 500 and st["colours"] > 50
print("%s: %dx%d, %d inked pixels, %d blue, %d warm, %d colours%s" % (sys.argv[1], st["width"],
      st["height"], st["ink"], st["blue"], st["warm"], st["colours"], "" if ok else ": FAIL"))
sys.exit(0 if ok else 1)' "$(basename "$png")" || failed=1
	done
done
[ "$n" -gt 0 ] || { echo "FAIL: no recordings in $FIXTURES/vm"; exit 1; }
[ "$failed" -eq 0 ] || [ ! -s "$tmp/chromium.err" ] || grep -v -i "dbus\|gpu\|sandbox" "$tmp/chromium.err" | tail -5
echo "screenshots in $SHOTS"
exit "$failed"
