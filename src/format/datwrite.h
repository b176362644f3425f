/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datwrite.h - writing a trace-cmd trace.dat, version 6 (trace-cmd.dat.v6(5)),
 * from raw ring-buffer pages spilled per CPU during a recording.
 *
 * What the man page leaves out, and readers rely on: with the TRACECLOCK
 * option (id 4) a u64 size and the clock text follow the per-CPU table;
 * the options list ends with a bare 2-byte zero; readers take the kernel's
 * long size from header_page's "commit" field. CPU data starts page-aligned
 * (readers map it).
 */
#ifndef BLKSTACK_DATWRITE_H
#define BLKSTACK_DATWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** struct dat_text - a text section: the bytes of a tracefs file */
struct dat_text {
	const char *data;
	size_t len;
};

/**
 * struct dat_system - an event system and the formats of its events
 * @name: "block", "filemap"...
 * @formats: events/SYSTEM/NAME/format of every event of it that may be recorded
 * @n: how many
 */
struct dat_system {
	const char *name;
	const struct dat_text *formats;
	size_t n;
};

/**
 * struct dat_source - what a recording holds
 * @page_size: ring-buffer sub-buffer size
 * @header_page: events/header_page
 * @header_event: events/header_event
 * @ftrace_formats: events/ftrace/NAME/format of the ftrace events in the
 *		    data (print: trace_marker writes)
 * @nftrace_formats: how many
 * @systems: the event systems that may be recorded, with their formats
 * @nsystems: how many
 * @cmdlines: saved_cmdlines ("PID COMM" lines)
 * @clock: the instance's trace_clock file ("local global [mono] ...")
 * @uname: "SYSNAME NODENAME RELEASE MACHINE" of the traced machine, as
 *	   trace-cmd's UNAME option holds it; NULL: none written
 * @ncpu: CPUs
 * @spill: per CPU, the file its pages were appended to (NULL: no data)
 * @spill_bytes: per CPU, how many bytes of pages it holds
 */
struct dat_source {
	uint32_t page_size;
	struct dat_text header_page;
	struct dat_text header_event;
	const struct dat_text *ftrace_formats;
	size_t nftrace_formats;
	const struct dat_system *systems;
	size_t nsystems;
	struct dat_text cmdlines;
	struct dat_text clock;
	const char *uname;
	int ncpu;
	FILE **spill;
	const uint64_t *spill_bytes;
};

/**
 * datwrite_v6 - write the whole file to @out: headers, then each CPU's
 * pages copied from its spill file (read from its start)
 * Returns 0, or a negative errno (-ENOSPC on a full disk) with @out
 * incomplete.
 */
int datwrite_v6(FILE *out, const struct dat_source *src);

#endif /* BLKSTACK_DATWRITE_H */
