// SPDX-License-Identifier: GPL-2.0-or-later
//
// html-check.js: what test-html-chromium.sh injects into a copy of a page of
// "report --html" before headless Chromium opens it. The part before the
// marker line runs first in <head> and records every error and console
// error; the rest runs once the page has loaded and its charts are drawn,
// and writes what it found as JSON into a pre element "bs-check", which
// --dump-dom prints:
//  - errors: uncaught errors and console.error calls;
//  - charts: each figure.chart with what it lacks of a title, an x axis
//    with its unit "(...)", a y axis (with its unit, but for bar charts
//    whose y axis is the layers) and a legend with a key;
//  - overflow: HTML elements reaching past the window's width, outside
//    the boxes that scroll on their own (.tablewrap, pre); scroll_w: the
//    document's width against the window's;
//  - fold: the bottom of the first screen's parts, in px from the top:
//    the verdict of reads and writes, the overview's charts, the markers.
window.__bsErrors = [];
window.addEventListener("error", function (e) { window.__bsErrors.push(String(e.message)); });
(function () {
  var ce = console.error;
  console.error = function () {
    window.__bsErrors.push([].join.call(arguments, " "));
    ce.apply(console, arguments);
  };
})();
//--- after
window.addEventListener("load", function () {
  setTimeout(function () {
    var res = { errors: window.__bsErrors, charts: [], overflow: [], fold: {} };
    var W = document.documentElement.clientWidth;
    res.window_w = W;
    res.scroll_w = document.documentElement.scrollWidth;
    res.window_h = window.innerHeight;
    document.querySelectorAll("figure.chart").forEach(function (f) {
      var t = f.querySelector("figcaption.title");
      var xl = f.querySelector(".xlabel, .dygraph-xlabel");
      var yl = f.querySelector(".ylabel, .dygraph-ylabel");
      var bad = [];
      if (!t || !t.textContent.trim()) bad.push("title");
      if (!xl || !/\(.+\)/.test(xl.textContent)) bad.push("x axis with its unit");
      if (!yl || !yl.textContent.trim() ||
          (!f.classList.contains("bar") && !/\(.+\)/.test(yl.textContent)))
        bad.push("y axis with its unit");
      if (!f.querySelector(".legend .key")) bad.push("legend");
      res.charts.push({ id: f.id, title: t ? t.textContent : "", lacks: bad,
                        drawn_by_library: !!f.querySelector("canvas"),
                        width: Math.round(f.getBoundingClientRect().width) });
    });
    document.querySelectorAll("body *").forEach(function (e) {
      if (e.closest("svg") && e.closest("svg") !== e) return;
      if (e.parentNode.closest && e.parentNode.closest(".tablewrap, pre")) return;
      var r = e.getBoundingClientRect();
      if (r.width > 0 && r.right > W + 1)
        res.overflow.push(e.tagName + "." + (e.getAttribute("class") || "") + " right " +
                          Math.round(r.right));
    });
    function bottom(sel) {
      var e = document.querySelector(sel);
      return e ? Math.round(e.getBoundingClientRect().bottom + window.scrollY) : null;
    }
    res.fold.verdict_read = bottom('.verdict [data-op="read"]');
    res.fold.verdict_write = bottom('.verdict [data-op="write"]');
    res.fold.stack = bottom("#stack tr.layer .top");
    res.fold.markers = bottom(".markers");
    res.fold.charts = [].map.call(document.querySelectorAll(".ovcharts figure.chart"),
                                  function (f) {
      return Math.round(f.getBoundingClientRect().bottom + window.scrollY);
    });
    // the slowest I/Os on the overview's charts: drawn as SVG dots, or as
    // the library's points from the page's data
    var data = JSON.parse(document.getElementById("bs-data").textContent);
    res.fold.slow_points = document.querySelectorAll(".ovcharts circle").length;
    document.querySelectorAll(".ovcharts figure.chart").forEach(function (f) {
      var c = data.charts[f.id];
      if (c && f.querySelector("canvas")) res.fold.slow_points += c.slow.length;
    });
    var pre = document.createElement("pre");
    pre.id = "bs-check";
    pre.textContent = JSON.stringify(res);
    document.body.appendChild(pre);
  }, 300);
});
