/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rows.h - one row per completed I/O, as CSV or as JSON lines: what
 * was issued, by whom, and each layer's timestamps and latencies.
 *
 * Both formats take their field names from one table, so that a CSV column
 * and a JSON key of the same value have the same name. JSON lines hold
 * every layer of an I/O; CSV has fixed columns, for the first
 * ROWS_CSV_LAYERS layers (the column "layers" tells how many there were).
 */
#ifndef BLKSTACK_OUT_ROWS_H
#define BLKSTACK_OUT_ROWS_H

#include <stdint.h>
#include <stdio.h>

#include "output/row.h"
#include "track/tracker.h"

#define ROWS_CSV_LAYERS 8

enum rows_format {
	ROWS_CSV,
	ROWS_JSONL,
};

/**
 * rows_csv_header - the CSV header line
 * Returns 0 or a negative errno.
 */
int rows_csv_header(FILE *fp);

/**
 * rows_csv_write - one row as a CSV line
 * Returns 0 or a negative errno.
 */
int rows_csv_write(FILE *fp, const struct row *r);

/**
 * rows_jsonl_write - one row as a JSON object on one line
 * Returns 0 or a negative errno.
 */
int rows_jsonl_write(FILE *fp, const struct row *r);

struct rows_out;

/**
 * rows_out_alloc - a writer of rows to @fp
 * Returns the writer, or NULL with errno set.
 */
struct rows_out *rows_out_alloc(FILE *fp, enum rows_format fmt);

/** rows_out_free - NULL is accepted (does not close @fp) */
void rows_out_free(struct rows_out *o);

/**
 * rows_out_io - write the row of a completed tree (a tk_io_fn): the
 * header before the first row; after a write error nothing more
 */
void rows_out_io(const struct tk_io *io, void *ctx);

/**
 * rows_out_io_file - rows_out_io() of a tree whose owner the page-cache
 * attribution knows: @file fills the row's "file" (see struct row)
 */
void rows_out_io_file(struct rows_out *o, const struct tk_io *io, const char *file);

/**
 * rows_out_finish - the end: the CSV header if no row came, then flush
 * Returns 0, or the first negative errno a write returned.
 */
int rows_out_finish(struct rows_out *o);

/** rows_out_error - the first write error so far (negative errno), or 0 */
int rows_out_error(const struct rows_out *o);

/** rows_out_count - rows written */
uint64_t rows_out_count(const struct rows_out *o);

#endif /* BLKSTACK_OUT_ROWS_H */
