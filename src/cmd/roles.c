// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * roles.c - what each device of a recording is in its stack (see roles.h).
 *
 * A trace-cmd recording names no stack: its remaps and queue events tell
 * which devices are under others and which only remap, once all of them
 * are seen. Reading the events twice costs far less than classes that
 * change with the order of the events; but a recording without remaps (a
 * disk, a partition: the common case) teaches the tracker nothing it would
 * not learn as it goes, and needs no first pass.
 */
#include <errno.h>

#include "cmd/roles.h"

/*
 * One pass of tracker_learn_event() over @f, of its remaps and queue
 * events only when @only_learnt, @f rewound after. Returns whether a CPU's
 * time went back in it (false also when the file cannot be read: the main
 * read says why), or a negative errno of the rewind.
 */
static int learn_pass(struct tracefile *f, struct tracker *t, bool only_learnt, int jobs)
{
	const struct source_stats *st;
	bool back = false;
	int ret;

	if (only_learnt)
		tracefile_keep_kinds(f, 1ULL << BLK_EV_BIO_REMAP | 1ULL << BLK_EV_RQ_REMAP |
					    1ULL << BLK_EV_BIO_QUEUE);
	tracefile_set_jobs(f, jobs);
	tracefile_read(f, tracker_learn_event, t);
	st = tracefile_stats(f);
	for (int c = 0; c < st->ncpu; c++)
		back |= st->cpu[c].time_back > 0;
	ret = tracefile_rewind(f);
	return ret < 0 ? ret : back;
}

/*
 * The roles of @f's devices, learnt by @t from its events, @f rewound
 * (also when it was read before). Only remaps and queue events are decoded
 * and merged. Where every CPU's records are in time order they reach the
 * tracker in the order they have among all events, which the tracker's
 * devices keep; where a CPU's time goes back, the merge's order depends on
 * the records left out, and the pass is made again with all of them.
 * Returns 0, or -1 after saying what failed.
 */
static int learn(const char *path, struct tracefile *f, struct tracker *t, int jobs)
{
	int ret = tracefile_rewind(f);

	if (ret >= 0)
		ret = learn_pass(f, t, true, jobs);
	if (ret > 0) {
		tracker_reset(t);
		ret = learn_pass(f, t, false, jobs);
	}
	if (ret < 0) {
		/* rewinding a file read through a child opens it again */
		tracefile_open_error(path, ret);
		return -1;
	}
	return 0;
}

int roles_read(const char *path, struct tracefile *f, const struct topo_record *stack,
	       struct tracker *t, int jobs, const struct roles_reader *r)
{
	int ret;

	if (stack) {
		topo_record_mark_roles(stack, t);
		return r->read(f, r->ctx);
	}
	tracker_stop_at_remap(t);
	ret = r->read(f, r->ctx);
	if (ret != -ERESTART)
		return ret;
	/*
	 * A remap: the roles are needed before any event. Everything the
	 * read fed is thrown away, the roles are learnt and the read is made
	 * again. At worst (a first remap near the end) that is two reads and
	 * the learning pass, where a scan for a remap before the learning
	 * pass and the read would have cost one read and a scan to the first
	 * remap; a recording without remaps is read once, with no scan.
	 */
	t = r->rebuild(r->ctx);
	if (!t || learn(path, f, t, jobs) < 0)
		return -ECANCELED;
	return r->read(f, r->ctx);
}

/* What stops remap_scan() at the first event of a file read through a child. */
static int stop_at_event(const struct blk_event *ev __attribute__((unused)),
			 void *ctx __attribute__((unused)))
{
	return -ECANCELED;
}

/*
 * Whether @f has a remap: its records walked (in @jobs threads), only
 * remaps decoded, up to the first. A file read through a child delivers
 * every kind: its first event says yes (and @f is rewound by the learning).
 */
static bool remap_scan(struct tracefile *f, int jobs)
{
	int ret = tracefile_holds(f, 1ULL << BLK_EV_BIO_REMAP, jobs);

	if (ret == -ENOTSUP)
		ret = tracefile_read(f, stop_at_event, NULL) == -ECANCELED;
	return ret == 1;
}

int roles_of_recording(const char *path, struct tracefile *f, const struct topo_record *stack,
		       struct tracker *t, int jobs)
{
	int ret;

	if (stack) {
		topo_record_mark_roles(stack, t);
		return 0;
	}
	if (remap_scan(f, jobs))
		return learn(path, f, t, jobs);
	/* a child's file was read to its first event */
	ret = tracefile_rewind(f);
	if (ret < 0) {
		tracefile_open_error(path, ret);
		return -1;
	}
	return 0;
}
