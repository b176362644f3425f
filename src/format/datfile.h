/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datfile.h - where the ring-buffer pages are in a trace.dat file, version
 * 6 or 7.
 *
 * libtracecmd hands out one allocated record per event, which costs more
 * than all of blkstack's own work per event. A v6 file stores each CPU's
 * pages untouched and contiguous (trace-cmd.dat.v6(5)), so they can be
 * mapped and walked exactly like live pages (pagewalk.c). A v7 file
 * (trace-cmd.dat.v7(5)) stores them the same way, or compressed in chunks
 * of a few pages that are decompressed one at a time (unzip.h). This
 * module only finds them; the formats are still parsed by libtracecmd.
 */
#ifndef BLKSTACK_DATFILE_H
#define BLKSTACK_DATFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/unzip.h"

/**
 * struct datfile_stream - one CPU's data of one buffer
 * @offset: where its pages start in the file; for a compressed stream, its
 *	    first chunk (a u32 compressed size, a u32 uncompressed size, the
 *	    compressed bytes)
 * @size: bytes of pages (compressed: of chunks) the header announces
 * @avail: bytes really in the file (less than @size when truncated)
 * @nchunks: chunks of a compressed stream
 * @compressed: the pages are in compressed chunks (v7 only)
 * @cpu: the CPU
 * @buffer: index into datfile_layout.buffer_names (0: top level)
 */
struct datfile_stream {
	uint64_t offset;
	uint64_t size;
	uint64_t avail;
	uint32_t nchunks;
	bool compressed;
	int cpu;
	int buffer;
};

/*
 * the headers the event formats and the tasks' names come from
 * (trace-cmd.dat.v7(5) section ids 16-21)
 */
enum datfile_sec {
	DATFILE_SEC_HEADER,	/* "header_page" and "header_event" */
	DATFILE_SEC_FTRACE,	/* the ftrace events' formats (print: the markers) */
	DATFILE_SEC_EVENTS,	/* the other systems' formats */
	DATFILE_SEC_KALLSYMS,	/* unused */
	DATFILE_SEC_PRINTK,	/* unused */
	DATFILE_SEC_CMDLINES,	/* the kernel's saved_cmdlines: "PID COMM" lines */
	DATFILE_SEC_MAX,
};

/* the longest trace clock name kept ("mono_raw", "x86-tsc") */
#define DATFILE_CLOCK_MAX 32

/**
 * struct datfile_host - what a file's options say of the machine and clock
 * it was recorded with (trace-cmd.dat.v7(5) lists them; v6 files have the
 * same ids)
 * @uname: the UNAME option, "SYSNAME NODENAME RELEASE MACHINE" as
 *	   trace-cmd writes it; NULL when absent
 * @clock: the trace clock of the recorded data ("mono", "local",
 *	   "x86-tsc"); "" when the file does not say
 * @has_date: the DATE option (trace-cmd record --date) was there
 * @date_ns: its value: gettimeofday minus the trace clock (the option
 *	     holds microseconds)
 */
struct datfile_host {
	char *uname;
	char clock[DATFILE_CLOCK_MAX];
	bool has_date;
	int64_t date_ns;
};

/**
 * struct datfile_layout - what blkstack needs of a file's headers
 * @version: 6 or 7
 * @algo: the compression of a v7 file (UNZIP_NONE for v6)
 * @big_endian: the file's numbers are big-endian
 * @long_size: the recording host's userspace long size (4 or 8)
 * @page_size: ring-buffer page size of the recording host
 * @ncpu: CPUs of the recording host
 * @nbuffers: buffers (top level and instances)
 * @buffer_names: their names, "" for the top level
 * @streams: every CPU of every buffer that has data
 * @nstreams: how many
 * @sections: where each enum datfile_sec part is, 0 when absent: in a v6
 *	      file the offset of its first byte, in a v7 file that of its
 *	      section header (the section may be compressed)
 * @nformats: event formats the headers hold (ftrace's and every system's)
 * @host: what the options say of the recording host
 */
struct datfile_layout {
	int version;
	enum unzip_algo algo;
	bool big_endian;
	int long_size;
	uint32_t page_size;
	int ncpu;
	int nbuffers;
	char **buffer_names;
	struct datfile_stream *streams;
	int nstreams;
	uint64_t sections[DATFILE_SEC_MAX];
	uint64_t nformats;
	struct datfile_host host;
};

/**
 * datfile_layout_parse - read the headers of a mapped trace.dat
 * @map: the whole file
 * @len: its size
 * @out: filled on success; free with datfile_layout_free()
 *
 * Returns 0; -ENOTSUP for a trace.dat that is not a version 6 or 7
 * flyrecord, or compressed with an algorithm other than zstd and zlib
 * (read it with libtracecmd instead); -EINVAL when it is not a trace.dat
 * or its headers are cut short or inconsistent; -ENOMEM.
 */
int datfile_layout_parse(const void *map, size_t len, struct datfile_layout *out);

/** datfile_layout_free - release a layout; a zeroed one is accepted */
void datfile_layout_free(struct datfile_layout *l);

#endif /* BLKSTACK_DATFILE_H */
