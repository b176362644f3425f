/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * roles.h - what each device of a recording is in its stack, told to the
 * tracker before the events, so that no I/O's class depends on which event
 * came first: from the stack the recording carries (or --topology), else
 * from a first pass over its events.
 */
#ifndef BLKSTACK_ROLES_H
#define BLKSTACK_ROLES_H

#include "track/topo-record.h"
#include "track/tracker.h"

/**
 * roles_of_recording - tell @t the roles of the devices of the recording
 * at @path: from @stack when there is one, else from a first pass over the
 * recording's events (a second opening of the file; a failure there is
 * left to the main read to report), read in up to @jobs threads
 */
void roles_of_recording(const char *path, const struct topo_record *stack, struct tracker *t,
			int jobs);

#endif /* BLKSTACK_ROLES_H */
