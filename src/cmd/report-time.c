// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-time.c - glue: completed trees to the slowest set, the flag split,
 * the series and the access pattern, beside the statistics; and the file
 * names of the slowest I/Os from the page-cache side when it runs.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "base/util.h"
#include "cmd/report-time.h"
#include "track/amp.h"
#include "output/html.h"
#include "output/outfile.h"

int report_extra_init(struct report_extra *x, struct stats *st, size_t slowest, bool by_flag,
		      bool access, bool html)
{
	memset(x, 0, sizeof(*x));
	x->st = st;
	x->slow_asked = slowest > 0;
	x->access_asked = access;
	/*
	 * not for --html alone: btt's exact seek tables cost more than the rest
	 * of the page (a distinct-distance table per layer and direction)
	 */
	x->want_access = access;
	access_init(&x->access);
	if (!slowest && html)
		slowest = REPORT_HTML_SLOWEST;
	if (slowest) {
		x->slow = slowest_alloc(slowest);
		if (!x->slow)
			return -ENOMEM;
	}
	x->want_flags = by_flag || html;
	x->want_series = html;
	series_init(&x->series);
	return 0;
}

void report_extra_destroy(struct report_extra *x)
{
	slowest_free(x->slow);
	flaglat_free(&x->flags);
	series_destroy(&x->series);
	access_destroy(&x->access);
	memset(x, 0, sizeof(*x));
}

bool report_extra_any(const struct report_extra *x)
{
	return x->slow || x->want_flags || x->want_series || x->want_access || x->amp;
}

void report_extra_owner_io(const struct tk_io *io, int32_t owner, void *ctx)
{
	struct report_extra *x = ctx;

	if (x->slow && slowest_io(x->slow, io, owner) < 0)
		x->enomem = true;
	if (x->amp)
		amp_io(io, x->amp);
	if (x->want_flags && flaglat_io(&x->flags, io) < 0)
		x->enomem = true;
	if (x->want_series && series_io(&x->series, io) < 0)
		x->enomem = true;
	if (x->want_access) {
		if (access_io(&x->access, io) < 0)
			x->enomem = true;
		/* what entered the stack before every tree still in flight is final */
		access_release(&x->access, x->t ? tracker_oldest_q(x->t) : 0);
	}
}

void report_extra_io(const struct tk_io *io, void *ctx)
{
	struct report_extra *x = ctx;

	stats_io(io, x->st);
	report_extra_owner_io(io, SLOWEST_NO_OWNER, ctx);
}

static const char *owner_file(int32_t owner, char *buf, size_t len, void *ctx)
{
	return pc_run_owner_name(ctx, owner, buf, len);
}

const struct report_time *report_extra_time(struct report_extra *x, struct report_time *t,
					   bool html)
{
	if (!report_extra_any(x) || (!html && !x->slow_asked && !x->access_asked))
		return NULL;
	memset(t, 0, sizeof(*t));
	if (x->slow && (html || x->slow_asked)) {
		t->slow = slowest_sorted(x->slow, &t->nslow);
		t->slow_offered = slowest_offered(x->slow);
	}
	if (x->want_flags) {
		flaglat_sort(&x->flags, x->st);
		t->flags = &x->flags;
	}
	if (x->want_series && html)
		t->series = &x->series;
	if (x->want_access && (html || x->access_asked)) {
		/* the trace is over: nothing is in flight any more */
		access_finish(&x->access);
		t->access = &x->access;
	}
	if (x->run) {
		t->file = owner_file;
		t->file_ctx = x->run;
	}
	return t;
}

void report_html_time(struct report_time *t, struct tracefile *file)
{
	struct timespec mono, real;

	if (file) {
		t->markers = tracefile_markers(file, &t->nmarkers, NULL);
		return;
	}
	t->markers_note = "none: a live run reads no trace_marker writes (a recording of "
			  "trace-cmd record carries them).";
	/* the live trace clock is CLOCK_MONOTONIC (capture/session.c): read both side by side */
	if (clock_gettime(CLOCK_MONOTONIC, &mono) == 0 && clock_gettime(CLOCK_REALTIME, &real) == 0) {
		t->wall_known = true;
		t->wall_offset_ns = (real.tv_sec - mono.tv_sec) * 1000000000LL +
				    (real.tv_nsec - mono.tv_nsec);
	}
}

int report_html_open(struct outfile *of, const char *path)
{
	int ret = outfile_open(of, path);

	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", path, strerror(-ret));
		return -1;
	}
	return 0;
}

int report_html_write(struct outfile *of, const char *path, const struct report *r)
{
	int ret = out_report_html(of->fp, r);

	if (!ret)
		ret = outfile_commit(of);
	if (ret < 0) {
		outfile_abort(of);
		err_msg("cannot write the HTML report to '%s': %s", path, strerror(-ret));
		return -1;
	}
	return 0;
}
