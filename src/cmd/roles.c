// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * roles.c - what each device of a recording is in its stack (see roles.h).
 */
#include "cmd/roles.h"
#include "format/tracefile.h"

void roles_of_recording(const char *path, const struct topo_record *stack, struct tracker *t)
{
	struct tracefile *f;
	int err;

	if (stack) {
		topo_record_mark_roles(stack, t);
		return;
	}
	/*
	 * A trace-cmd recording names no stack: its remaps and queue events
	 * tell which devices are under others and which only remap, once
	 * all of them are seen. Reading the events twice costs far less than
	 * classes that change with the order of the events.
	 */
	f = tracefile_open(path, &err);
	if (!f)
		return;
	tracefile_read(f, tracker_learn_event, t);
	tracefile_close(f);
}
