/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * roles.h - what each device of a recording is in its stack, told to the
 * tracker before the events, so that no I/O's class depends on which event
 * came first: from the stack the recording carries (or --topology), else
 * from a first pass over its events, made only when it holds remaps.
 */
#ifndef BLKSTACK_ROLES_H
#define BLKSTACK_ROLES_H

#include "format/tracefile.h"
#include "track/topo-record.h"
#include "track/tracker.h"

/**
 * struct roles_reader - a command's consumers of a recording, the tracker
 * among them, that can be thrown away and made again
 * @read: one read of the recording @f into them, from its first event:
 *	  tracefile_read() (and what the command does around it); returns
 *	  what tracefile_read() returned
 * @rebuild: free every consumer and make them again, empty, as before the
 *	     first read; returns the new tracker, or NULL after saying why
 * @ctx: for both
 */
struct roles_reader {
	int (*read)(struct tracefile *f, void *ctx);
	struct tracker *(*rebuild)(void *ctx);
	void *ctx;
};

/**
 * roles_read - read the recording @f once into @r's consumers, the roles
 * of its devices told to their tracker @t
 * @path: the recording's name, for messages
 * @stack: its stack (recorded or given), or NULL: the roles are learnt
 * @jobs: the threads @f is read with (tracefile_set_jobs(), set already)
 *
 * Without a stack the read starts as if the recording had no remap (most
 * recordings: a disk or a partition); at its first remap it stops, the
 * consumers are made again, the roles are learnt from the remaps and queue
 * events, and the read is made again on the same open file. Nothing of the
 * first read is kept, so the consumers must not print before the read
 * ends.
 *
 * Returns what the last @r->read returned (-EBADMSG for damage, left to
 * the caller to say), or -ECANCELED after saying what failed.
 */
int roles_read(const char *path, struct tracefile *f, const struct topo_record *stack,
	       struct tracker *t, int jobs, const struct roles_reader *r);

/**
 * roles_of_recording - tell @t the roles of the devices of the open
 * recording @f before it is read: from @stack when there is one, else from
 * a first pass over its events when it holds a remap (found by a scan of
 * its pages), read in up to @jobs threads; @f is then rewound. For commands
 * that print as they read, which roles_read() cannot start again.
 * Returns 0, or -1 after saying (naming @path) what failed.
 */
int roles_of_recording(const char *path, struct tracefile *f, const struct topo_record *stack,
		       struct tracker *t, int jobs);

#endif /* BLKSTACK_ROLES_H */
