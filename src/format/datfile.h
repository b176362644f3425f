/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datfile.h - where the ring-buffer pages are in a trace.dat version 6 file.
 *
 * libtracecmd hands out one allocated record per event, which costs more
 * than all of blkstack's own work per event. A v6 file stores each CPU's
 * pages untouched and contiguous (trace-cmd.dat.v6(5)), so they can be
 * mapped and walked exactly like live pages (pagewalk.c). This module only
 * finds them; the formats are still parsed by libtracecmd.
 */
#ifndef BLKSTACK_DATFILE_H
#define BLKSTACK_DATFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct datfile_stream - one CPU's data of one buffer
 * @offset: where its pages start in the file
 * @size: bytes of pages the header announces
 * @avail: bytes really in the file (less than @size when truncated)
 * @cpu: the CPU
 * @buffer: index into datfile_layout.buffer_names (0: top level)
 */
struct datfile_stream {
	uint64_t offset;
	uint64_t size;
	uint64_t avail;
	int cpu;
	int buffer;
};

/**
 * struct datfile_layout - what blkstack needs of a v6 file's headers
 * @big_endian: the file's numbers are big-endian
 * @long_size: the recording host's userspace long size (4 or 8)
 * @page_size: ring-buffer page size of the recording host
 * @ncpu: CPUs of the recording host
 * @nbuffers: buffers (top level and instances)
 * @buffer_names: their names, "" for the top level
 * @streams: every CPU of every buffer that has data
 * @nstreams: how many
 * @nformats: event formats the headers hold (ftrace's and every system's)
 */
struct datfile_layout {
	bool big_endian;
	int long_size;
	uint32_t page_size;
	int ncpu;
	int nbuffers;
	char **buffer_names;
	struct datfile_stream *streams;
	int nstreams;
	uint64_t nformats;
};

/**
 * datfile_layout_parse - read the headers of a mapped trace.dat
 * @map: the whole file
 * @len: its size
 * @out: filled on success; free with datfile_layout_free()
 *
 * Returns 0; -ENOTSUP for a trace.dat that is not version 6 flyrecord
 * (read it with libtracecmd instead); -EINVAL when it is not a trace.dat
 * or its headers are cut short or inconsistent.
 */
int datfile_layout_parse(const void *map, size_t len, struct datfile_layout *out);

/** datfile_layout_free - release a layout; a zeroed one is accepted */
void datfile_layout_free(struct datfile_layout *l);

#endif /* BLKSTACK_DATFILE_H */
