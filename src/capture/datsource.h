/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datsource.h - what a trace.dat needs from tracefs beside the pages: the
 * page and event headers, the event formats, the clock and the saved
 * command names, read from this kernel; and the unnamed per-CPU spill files
 * that hold the pages until the file is assembled (format/datwrite.c).
 * Shared by blkstack record and the flight recorder of blkstack monitor.
 */
#ifndef BLKSTACK_DATSOURCE_H
#define BLKSTACK_DATSOURCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <tracefs.h>

#include "base/pcevent.h"
#include "base/tickevent.h"
#include "format/datwrite.h"

/**
 * struct dat_formats - the descriptions of a recording, read from tracefs
 * @header_page, @header_event: events/header_page and header_event
 * @print_format: ftrace's print event (the markers a recording carries)
 * @clock: the instance's trace_clock
 * @cmdlines: saved_cmdlines (empty until dat_formats_read_cmdlines())
 * @systems: the formats of every event of block, of the kernel's tick
 *	     (tickevent.h), and of the page-cache systems when asked,
 *	     @nsystems of them
 * @uname: the traced machine as trace-cmd's UNAME option names it
 *	   ("Linux NODE RELEASE MACHINE"); "" when uname() failed
 */
struct dat_formats {
	struct dat_text header_page;
	struct dat_text header_event;
	struct dat_text print_format;
	struct dat_text clock;
	struct dat_text cmdlines;
	char uname[4 * 65 + 4];		/* uname's four fields and their spaces */
	struct dat_system systems[2 + PC_NKINDS];
	size_t nsystems;
};

/**
 * dat_formats_read - read the descriptions of @inst's recording
 * @inst: the instance (its trace_clock)
 * @page_cache: the page-cache systems too (filemap, readahead, ...)
 * @f: filled in; release with dat_formats_free() whatever the result
 * Returns 0 or a negative errno.
 */
int dat_formats_read(struct tracefs_instance *inst, bool page_cache, struct dat_formats *f);

/**
 * dat_formats_read_cmdlines - read saved_cmdlines now (the names of the
 * pids seen so far, as trace-cmd saves them at the end)
 * Returns 0 or a negative errno (@f->cmdlines is then left empty).
 */
int dat_formats_read_cmdlines(struct dat_formats *f);

/** dat_formats_free - release what was read; a zeroed @f is accepted */
void dat_formats_free(struct dat_formats *f);

/**
 * dat_formats_source - a struct dat_source for datwrite_v6() of the pages
 * in @spill (@bytes each, @ncpu CPUs, sub-buffers of @page_size)
 */
void dat_formats_source(const struct dat_formats *f, uint32_t page_size, int ncpu,
			FILE **spill, const uint64_t *bytes, struct dat_source *out);

/**
 * dat_spill_open - an unnamed temporary file in @dir (O_TMPFILE; else
 * created and unlinked at once): a run killed with SIGKILL leaves nothing
 * Returns the file, or NULL with errno set.
 */
FILE *dat_spill_open(const char *dir);

#endif /* BLKSTACK_DATSOURCE_H */
