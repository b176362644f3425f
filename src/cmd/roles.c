// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * roles.c - what each device of a recording is in its stack (see roles.h).
 */
#include <errno.h>

#include "cmd/roles.h"
#include "format/tracefile.h"

/*
 * One pass of tracker_learn_event() over the recording, of its remaps and
 * queue events only when @only_learnt. Returns whether a CPU's time went
 * back in it (false also when the file cannot be read).
 */
static bool learn_pass(const char *path, struct tracker *t, bool only_learnt, int jobs)
{
	const struct source_stats *st;
	struct tracefile *f;
	bool back = false;
	int err;

	f = tracefile_open(path, &err);
	if (!f)
		return false;
	if (only_learnt)
		tracefile_keep_kinds(f, 1ULL << BLK_EV_BIO_REMAP | 1ULL << BLK_EV_BIO_QUEUE);
	tracefile_set_jobs(f, jobs);
	tracefile_read(f, tracker_learn_event, t);
	st = tracefile_stats(f);
	for (int c = 0; c < st->ncpu; c++)
		back |= st->cpu[c].time_back > 0;
	tracefile_close(f);
	return back;
}

/* What stops remap_scan() at the first remap. */
static int stop_at_remap(const struct blk_event *ev __attribute__((unused)),
			 void *ctx __attribute__((unused)))
{
	return -ECANCELED;
}

/*
 * Whether the recording has a remap, its records walked (in @jobs threads)
 * and only remaps decoded, up to the first. A recording with none teaches
 * the tracker nothing it would not learn as it goes: it needs no learning
 * pass.
 */
static bool remap_scan(const char *path, int jobs)
{
	struct tracefile *f;
	int ret;

	f = tracefile_open(path, &ret);
	if (!f)
		return false;
	ret = tracefile_holds(f, 1ULL << BLK_EV_BIO_REMAP, jobs);
	/* a file read through a child delivers every kind: its first event stops it, and it learns */
	if (ret == -ENOTSUP)
		ret = tracefile_read(f, stop_at_remap, NULL) == -ECANCELED;
	tracefile_close(f);
	return ret == 1;
}

void roles_of_recording(const char *path, const struct topo_record *stack, struct tracker *t,
			int jobs)
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
	 * left out, and the pass is made again with all of them. A recording
	 * without remaps needs neither.
	 */
	if (!remap_scan(path, jobs))
		return;
	if (learn_pass(path, t, true, jobs)) {
		tracker_reset(t);
		learn_pass(path, t, false, jobs);
	}
}
