// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * convert-btt.c - the glue of "convert --to btt-data": a recording ->
 * plugdev -> time order -> btt's statistics, whose sink writes btt's data files
 * (output/btt-data.c) into one directory.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/convert-btt.h"
#include "cmd/report-btt.h"
#include "output/btt-data.h"

int convert_btt_data(const char *input, struct tracefile *f, const char *dir)
{
	struct report_btt rb = { 0 };
	struct btt_data *w;
	int rc = EXIT_RUNTIME;
	int ret;

	w = btt_data_alloc(dir);
	if (!w) {
		err_msg("cannot create the directory '%s': %s", dir, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (report_btt_init(&rb) < 0) {
		err_msg("out of memory");
		goto out;
	}
	btt_set_sink(rb.b, btt_data_sink(w, rb.b));
	ret = tracefile_read(f, report_btt_event, &rb);
	if (tracefile_damage_said(input, f, ret, "converted") || ret < 0 ||
	    tracefile_no_block_said(input, f))
		goto out;
	ret = report_btt_finish(&rb);
	if (ret >= 0)
		ret = btt_data_commit(w);
	if (ret < 0) {
		err_msg("cannot write '%s': %s", btt_data_failed(w) ? btt_data_failed(w) : dir,
			strerror(-ret));
		goto out;
	}
	fprintf(stderr, PROGRAM_NAME ": %d btt data files in '%s'\n", ret, dir);
	rc = EXIT_OK;
out:
	report_btt_destroy(&rb);
	btt_data_free(w);
	return rc;
}
