// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * roles.c - what each device of a recording is in its stack (see roles.h).
 */
#include "cmd/roles.h"
#include "format/tracefile.h"

/*
 * One pass of tracker_learn_event() over the recording, of its remaps and
 * queue events only when @only_learnt. Returns 1 when a CPU's time went
 * back in it, else 0 (also when the file cannot be read).
 */
static int learn_pass(const char *path, struct tracker *t, bool only_learnt)
{
	const struct source_stats *st;
	struct tracefile *f;
	bool back = false;
	int err;

	f = tracefile_open(path, &err);
	if (!f)
		return 0;
	if (only_learnt)
		tracefile_keep_kinds(f, 1ULL << BLK_EV_BIO_REMAP | 1ULL << BLK_EV_BIO_QUEUE);
	tracefile_read(f, tracker_learn_event, t);
	st = tracefile_stats(f);
	for (int c = 0; c < st->ncpu; c++)
		back |= st->cpu[c].time_back > 0;
	tracefile_close(f);
	return back;
}

void roles_of_recording(const char *path, const struct topo_record *stack, struct tracker *t)
{
	if (stack) {
		topo_record_mark_roles(stack, t);
		return;
	}
	/*
	 * A trace-cmd recording names no stack: its remaps and queue events
	 * tell which devices are under others and which only remap, once
	 * all of them are seen. Reading the events twice costs far less than
	 * classes that change with the order of the events.
	 *
	 * Only those two kinds are decoded and merged. Where every CPU's
	 * records are in time order they reach the tracker in the order they
	 * have among all events, which the tracker's devices keep; where a
	 * CPU's time goes back, the merge's order depends on the records
	 * left out, and the pass is made again with all of them.
	 */
	if (learn_pass(path, t, true) == 1) {
		tracker_reset(t);
		learn_pass(path, t, false);
	}
}
