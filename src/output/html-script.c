// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * html-script.c - what makes the HTML page interactive, kept inside it:
 * the charting library inlined from its installed file (Debian's
 * libjs-dygraphs), the charts' data, and the page's own script.
 *
 * The page stays one file that works from disk with no network: the
 * library's text is copied in as it was installed (its licence comment
 * kept, its source-map reference dropped: the map is not in the page).
 * When the library is absent the page keeps its static SVG charts and
 * says why; the script then only sorts tables. The script draws each line
 * chart with the library in place of its SVG, and keeps every chart on one
 * time window: a zoom in one chart (drag; double-click zooms out) is set
 * on every other, and on the heatmaps' and offset charts' viewBox.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/html-page.h"

/* The library's size at most: Debian's dygraph.min.js is 131 KB. */
#define LIB_MAX (1U << 20)

static char *slurp(const char *path, int *err)
{
	FILE *fp = fopen(path, "r");
	char *buf;
	size_t n;

	if (!fp) {
		*err = errno;
		return NULL;
	}
	buf = malloc(LIB_MAX + 1);
	if (!buf) {
		*err = ENOMEM;
		fclose(fp);
		return NULL;
	}
	n = fread(buf, 1, LIB_MAX + 1, fp);
	*err = ferror(fp) ? EIO : n > LIB_MAX ? EFBIG : 0;
	fclose(fp);
	if (*err) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* Drop the "sourceMappingURL" comment: the map is not in the page. */
static void drop_source_map(char *s)
{
	char *m = strstr(s, "sourceMappingURL=");

	while (m && m > s && m[-1] != '\n')
		m--;
	if (m)
		*m = '\0';
}

/*
 * Text that would end its <script> or <style> element early, or start a
 * comment there: such a file is not inlined (escaping it would change a
 * regular expression such as /</g).
 */
static bool closes_element(const char *s)
{
	for (; *s; s++)
		if (*s == '<' && (!strncasecmp(s + 1, "/script", 7) ||
				  !strncasecmp(s + 1, "/style", 6) || !strncmp(s + 1, "!--", 3)))
			return true;
	return false;
}

void html_lib_load(struct html_page *pg)
{
	const char *js = getenv(HTML_DYGRAPHS_ENV);
	char css[4096];
	int err;

	if (!js || !*js)
		js = HTML_DYGRAPHS_JS;
	pg->lib_js = slurp(js, &err);
	if (!pg->lib_js) {
		snprintf(pg->lib_note, sizeof(pg->lib_note), "The charts are static: the charting "
			 "library '%s' cannot be read (%s); install Debian's libjs-dygraphs for "
			 "zoomable charts.", js, strerror(err));
		return;
	}
	drop_source_map(pg->lib_js);
	if (closes_element(pg->lib_js)) {
		snprintf(pg->lib_note, sizeof(pg->lib_note), "The charts are static: the charting "
			 "library '%s' holds text that would end its script element.", js);
		free(pg->lib_js);
		pg->lib_js = NULL;
		return;
	}
	/* its CSS beside it: dygraph.min.js -> dygraph.min.css */
	snprintf(css, sizeof(css), "%s", js);
	if (strlen(css) > 3 && !strcmp(css + strlen(css) - 3, ".js")) {
		strcpy(css + strlen(css) - 3, ".css");
		pg->lib_css = slurp(css, &err);
		if (pg->lib_css)
			drop_source_map(pg->lib_css);
		if (pg->lib_css && closes_element(pg->lib_css)) {
			free(pg->lib_css);
			pg->lib_css = NULL;
		}
	}
}

void html_lib_free(struct html_page *pg)
{
	free(pg->lib_js);
	free(pg->lib_css);
	pg->lib_js = pg->lib_css = NULL;
}

void html_lib_style(struct html_page *pg)
{
	if (pg->lib_css)
		fputs(pg->lib_css, pg->fp);
	/* the library's labels inside our figures */
	fputs(".dygraph-axis-label{font-size:10px}.dygraph-label{font-size:11px}"
	      ".dygraph-xlabel,.dygraph-ylabel{font-size:11px}", pg->fp);
}

/* The page's own script: plain ES5, for any browser that opens the file. */
static const char page_script[] =
	"(function(){'use strict';\n"
	"var D=JSON.parse(document.getElementById('bs-data').textContent);\n"
	"var M=D.markers,W=D.wall,full=[D.t0,D.t1],win=null,graphs=[],busy=false;\n"
	"function pad(n,w){n=String(n);while(n.length<w)n='0'+n;return n}\n"
	"function wall(t){var d=new Date((t+W)*1000);return pad(d.getHours(),2)+':'+"
	"pad(d.getMinutes(),2)+':'+pad(d.getSeconds(),2)+'.'+pad(d.getMilliseconds(),3)}\n"
	"function dec(span){return Math.max(0,Math.min(6,Math.ceil(-Math.log(span/8)/Math.LN10)))}\n"
	"function cur(){return win||full}\n"
	"function tick(t){var s=t.toFixed(dec(cur()[1]-cur()[0]));return W===null?s:s+'<br>'+wall(t)}\n"
	"function val(t){return t.toFixed(6)+' s'+(W===null?'':' ('+wall(t)+')')}\n"
	/* the markers as labelled lines under the chart's lines */
	"function marks(ctx,a,g){ctx.save();ctx.strokeStyle='#555';ctx.fillStyle='#555';"
	"ctx.lineWidth=0.8;ctx.setLineDash([3,2]);ctx.font='9px sans-serif';"
	"M.forEach(function(m){var x=g.toDomXCoord(m[0]);if(x<a.x||x>a.x+a.w)return;"
	"ctx.beginPath();ctx.moveTo(x,a.y);ctx.lineTo(x,a.y+a.h);ctx.stroke();ctx.save();"
	"ctx.translate(x+2,a.y+3);ctx.rotate(Math.PI/2);ctx.fillText(m[1],0,0);ctx.restore()});"
	"ctx.restore()}\n"
	/* heatmaps and offset charts: the window is their inner viewBox, their ticks redrawn */
	"var NS='http://www.w3.org/2000/svg';\n"
	"function svgzoom(r){document.querySelectorAll('svg.zoom').forEach(function(z){"
	"var t0=+z.getAttribute('data-t0'),vb=z.getAttribute('viewBox').split(' ');"
	"vb[0]=r[0]-t0;vb[2]=r[1]-r[0];z.setAttribute('viewBox',vb.join(' '));"
	"var g=z.parentNode.querySelector('g.xt');if(!g)return;"
	"var x=+g.getAttribute('data-x'),y=+g.getAttribute('data-y'),w=+g.getAttribute('data-w');"
	"while(g.firstChild)g.removeChild(g.firstChild);"
	"var span=r[1]-r[0],p=Math.pow(10,Math.floor(Math.log(span/6)/Math.LN10)),st=p;"
	"[2,5,10].forEach(function(m){if(span/st>7)st=p*m});var d=dec(st*8);"
	"for(var v=Math.ceil(r[0]/st)*st;v<=r[1]+st*1e-9;v+=st){var px=x+(v-r[0])/span*w;"
	"var l=document.createElementNS(NS,'line');l.setAttribute('x1',px);l.setAttribute('x2',px);"
	"l.setAttribute('y1',y);l.setAttribute('y2',y+4);l.setAttribute('stroke','#444');g.appendChild(l);"
	"var t=document.createElementNS(NS,'text');t.setAttribute('x',px);t.setAttribute('y',y+15);"
	"t.setAttribute('class','tick');t.setAttribute('text-anchor','middle');"
	"t.textContent=v.toFixed(d);g.appendChild(t)}})}\n"
	"function bar(){var b=document.getElementById('zoombar');if(!win){b.style.display='none';return}"
	"b.style.display='block';b.innerHTML='';var s=document.createElement('span');"
	"s.textContent='Every chart shows trace time '+val(win[0])+' to '+val(win[1])+' ';"
	"b.appendChild(s);var a=document.createElement('button');a.textContent='show all';"
	"a.onclick=function(){setwin(null)};b.appendChild(a)}\n"
	"function setwin(r){win=r;busy=true;graphs.forEach(function(g){g.updateOptions({dateWindow:r||full})});"
	"busy=false;svgzoom(r||full);bar()}\n"
	"function zoomed(a,b){if(busy)return;setwin(a<=full[0]+1e-9&&b>=full[1]-1e-9?null:[a,b])}\n"
	"if(typeof Dygraph!=='undefined')document.querySelectorAll('.plot[data-chart]').forEach(function(el){"
	"var c=D.charts[el.getAttribute('data-chart')];if(!c)return;var n=c.labels.length;"
	"var rows=c.d.map(function(r){return r.map(function(v){return v===null?NaN:v})});"
	"var labels=c.labels.slice(),colors=c.colors.slice(),series={};"
	"if(c.slow.length){labels.push('slowest I/Os');colors.push('#000');"
	"series['slowest I/Os']={strokeWidth:0,drawPoints:true,pointSize:3};"
	"rows.forEach(function(r){r.push(null)});c.slow.forEach(function(p){var r=[p[0]];"
	"for(var i=1;i<n;i++)r.push(null);r.push(p[1]);rows.push(r)});"
	"rows.sort(function(a,b){return a[0]-b[0]})}\n"
	"el.innerHTML='';var g=new Dygraph(el,rows,{labels:labels,colors:colors,series:series,"
	"logscale:c.log,connectSeparatedPoints:true,strokeWidth:1.4,xlabel:'trace time (s)'+"
	"(W===null?'':', wall clock'),ylabel:c.y,labelsDiv:el.parentNode.querySelector('.readout'),"
	"legend:'onmouseover',drawPoints:true,pointSize:1.8,xAxisHeight:W===null?18:30,xLabelHeight:14,yLabelWidth:14,"
	"axes:{x:{axisLabelFormatter:tick,valueFormatter:val,pixelsPerLabel:72},"
	"y:{axisLabelWidth:52}},dateWindow:full,underlayCallback:marks,zoomCallback:zoomed});"
	"graphs.push(g)});\n"
	"document.querySelectorAll('.mark[data-t]').forEach(function(s,i,all){s.style.cursor='pointer';"
	"s.title='zoom to this phase';s.onclick=function(){var a=+s.getAttribute('data-t');"
	"var b=i+1<all.length?+all[i+1].getAttribute('data-t'):full[1];if(b>a)setwin([a,b])}})\n"
	"document.querySelectorAll('table.sortable').forEach(function(t){var hs=t.tHead.rows[0].cells;"
	"[].forEach.call(hs,function(h,k){h.onclick=function(){var asc=h.getAttribute('data-dir')!=='asc';"
	"[].forEach.call(hs,function(o){o.removeAttribute('data-dir')});h.setAttribute('data-dir',asc?'asc':'desc');"
	"var b=t.tBodies[0],rs=[].slice.call(b.rows);rs.sort(function(x,y){var p=x.cells[k],q=y.cells[k];"
	"var u=p.getAttribute('data-v'),v=q.getAttribute('data-v');"
	"var r=u!==null&&v!==null?u-v:p.textContent.localeCompare(q.textContent);return asc?r:-r});"
	"rs.forEach(function(r){b.appendChild(r)})}})})\n"
	"})();\n";

void html_json_str(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(fp, "\\u%04x", c);	/* nor can "</script>" end the data early */
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

void html_script(struct html_page *pg)
{
	const struct report_time *t = pg->r->time;
	FILE *fp = pg->fp;

	if (pg->lib_js) {
		fputs("<script>", fp);
		fputs(pg->lib_js, fp);
		fputs("</script>\n", fp);
	}
	fputs("<script type=\"application/json\" id=\"bs-data\">{\"wall\":", fp);
	if (t && t->wall_known)
		fprintf(fp, "%.9f", t->wall_offset_ns / 1e9);
	else
		fputs("null", fp);
	if (pg->s) {
		double t0, t1;

		html_time_range(pg, &t0, &t1);
		fprintf(fp, ",\"t0\":%.6f,\"t1\":%.6f", t0, t1);
	} else
		fputs(",\"t0\":0,\"t1\":1", fp);
	fputs(",\"markers\":[", fp);
	for (size_t i = 0; t && i < t->nmarkers; i++) {
		fprintf(fp, "%s[%.6f,", i ? "," : "", html_time(t->markers[i].ts));
		html_json_str(fp, t->markers[i].text);
		fputc(']', fp);
	}
	fputs("],\"charts\":{", fp);
	if (pg->data_buf)
		fwrite(pg->data_buf, 1, pg->data_len, fp);
	fputs("}}</script>\n<script>", fp);
	fputs(page_script, fp);
	fputs("</script>\n", fp);
}
