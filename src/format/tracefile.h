/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracefile.h - reading trace.dat files (trace-cmd's, later blkstack's)
 * through libtracecmd.
 */
#ifndef BLKSTACK_TRACEFILE_H
#define BLKSTACK_TRACEFILE_H

#include <stdbool.h>

#include "base/source.h"
#include "format/decode.h"
#include "track/merge.h"

struct tracefile;
struct topo_record;

/**
 * tracefile_open - open a trace.dat file and parse its headers
 * @path: the file
 * @err: on failure, a negative errno: -ENOENT/-EACCES from open, -EINVAL
 *	 for a file that is not a trace.dat, -EBADMSG for a trace.dat that
 *	 cannot be read (truncated or corrupt headers, or a version 7 file cut
 *	 short), -ENODATA for a trace.dat without block events
 * Returns the file, or NULL.
 */
struct tracefile *tracefile_open(const char *path, int *err);

/** tracefile_has - whether the file's formats include this event (enum blk_kind or pc_kind) */
bool tracefile_has(const struct tracefile *f, unsigned int kind);

/** tracefile_has_pagecache - whether the file's formats include a page-cache kind */
bool tracefile_has_pagecache(const struct tracefile *f);

/**
 * tracefile_read - decode every block event, in time order, into @fn
 * Returns 0, -EBADMSG when the file turned out to be corrupt while it was
 * read (events before the damage have been delivered), or the first
 * negative value @fn returned. A version 6 file cut short is not an error
 * here: tracefile_stats() tells, per CPU, the bytes missing.
 */
int tracefile_read(struct tracefile *f, blk_event_fn fn, void *ctx);

/**
 * tracefile_rewind - make the file ready for another tracefile_read() from
 * its first event, as if just opened: its accounting zeroed, every kind
 * delivered again (tracefile_keep_kinds() undone). A read its consumer
 * stopped may be rewound; the formats are not parsed again.
 * Returns 0, -ENOMEM, or for a file read through a child (which reads it
 * once: another one is started), an error of tracefile_open().
 */
int tracefile_rewind(struct tracefile *f);

/**
 * tracefile_holds - whether the file holds an event of some kinds that
 * tracefile_read() would deliver, looked for in no time order
 * @f: the file, not read
 * @kinds: a bit per kind, 1ULL << kind
 * @jobs: threads that share its pages (1: the caller's thread alone)
 * Returns 1 (held), 0 (not), -ENOTSUP for a file that only tracefile_read()
 * reads (through libtracecmd, every kind), or -ENOMEM.
 */
int tracefile_holds(struct tracefile *f, uint64_t kinds, int jobs);

/**
 * tracefile_set_jobs - decode with up to @jobs threads, one per CPU stream
 * of the file, beside the caller's thread that merges and calls the
 * consumer (version 6 and 7 files; others are read by one child process)
 * @f: the file, before tracefile_read()
 * @jobs: 1 (the default) decodes in the caller's thread; the events
 *	  reach the consumer in the same order whatever @jobs is
 */
void tracefile_set_jobs(struct tracefile *f, int jobs);

/**
 * tracefile_keep_kinds - deliver only events of some kinds, the others not
 * even decoded (version 6 and 7 files; others deliver every kind)
 * @f: the file, before tracefile_read()
 * @kinds: a bit per kind, 1ULL << kind
 */
void tracefile_keep_kinds(struct tracefile *f, uint64_t kinds);

/**
 * tracefile_bare_kinds - deliver the events of some block kinds with only
 * their kind, time and CPU filled, for a consumer that reads nothing else
 * of them (version 6 and 7 files; others deliver them whole)
 * @f: the file, before tracefile_read()
 * @kinds: a bit per kind, 1ULL << kind (enum blk_kind)
 */
void tracefile_bare_kinds(struct tracefile *f, uint64_t kinds);

/**
 * tracefile_open_error - say, naming @path, why tracefile_open() failed
 * with @err, and what to do
 */
void tracefile_open_error(const char *path, int err);

/**
 * tracefile_no_block_said - after a read of @f: when it delivered no block
 * event, say so naming @path, with the events it holds instead and how to
 * record block events
 * Returns true when it said so: the command has no I/O to show (exit 1).
 */
bool tracefile_no_block_said(const char *path, struct tracefile *f);

/**
 * tracefile_topology - the device stack a blkstack recording carries (its
 * "blkstack-topology: " markers, see blkstack-record(8)), or NULL: none, or
 * a file of another kind
 */
const struct topo_record *tracefile_topology(const struct tracefile *f);

/**
 * tracefile_comm - the name the recording's saved_cmdlines give task @pid
 * (the kernel's, as it last saved them), or NULL: not there. The first
 * call reads them (format/cmdlines.h): call it from one thread.
 */
const char *tracefile_comm(struct tracefile *f, int32_t pid);

/**
 * struct tracefile_name - a file name a blkstack recording carries
 * ("blkstack-file: " markers, see record-names.h)
 * @sdev: the filesystem's superblock device (kernel dev_t)
 * @ino: the inode number
 * @deleted: the file was unlinked when it was named
 * @path: its path on the recording machine
 */
struct tracefile_name {
	uint32_t sdev;
	uint64_t ino;
	bool deleted;
	char *path;
};

/**
 * tracefile_file_names - the file names a recording made with --page-cache
 * carries, NULL (and *@n 0) when none
 */
const struct tracefile_name *tracefile_file_names(const struct tracefile *f, size_t *n);

/**
 * struct tracefile_marker - a print event of the workload's (a write to
 * trace_marker), blkstack's own markers left out
 * @ts: when, ns of the trace clock
 * @text: what it said, without its trailing newline (cut at 200 bytes)
 */
struct tracefile_marker {
	uint64_t ts;
	char *text;
};

/**
 * tracefile_markers - the workload's markers in time order, NULL (and *@n
 * 0) when none; the first call reads every page of a version 6 or 7 file
 * (a file read through libtracecmd gives none). At most 4096 are kept.
 * @dropped: when not NULL, set to how many were left out past that
 */
const struct tracefile_marker *tracefile_markers(struct tracefile *f, size_t *n, size_t *dropped);

/**
 * tracefile_damage_said - after tracefile_read() returned @read_ret: say
 * whether the file was corrupt or cut short, naming @path; @done, when not
 * NULL, tells what became of the events before the damage ("printed").
 * Records that did not parse are warned about (the exit status is not theirs).
 * Returns true when it was: what the command made of it is incomplete.
 */
bool tracefile_damage_said(const char *path, struct tracefile *f, int read_ret,
			   const char *done);

/** tracefile_stats - per-CPU accounting of what tracefile_read() saw */
const struct source_stats *tracefile_stats(struct tracefile *f);

/** tracefile_close - close the file; NULL is accepted */
void tracefile_close(struct tracefile *f);

#endif /* BLKSTACK_TRACEFILE_H */
