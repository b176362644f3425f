/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cgroup.h - the cgroup of the task that queued a top-level I/O, as a
 * small index for per-cgroup statistics: read from /proc/PID/cgroup while
 * the task lives (at its queue event), kept per pid, and capped: past the
 * cap, every new cgroup is "other". Memory is bounded by the cap and the
 * pid cache, whatever runs on the machine.
 */
#ifndef BLKSTACK_CGROUP_H
#define BLKSTACK_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "track/stats.h"
#include "track/tracker.h"

/* Pids remembered at once; the cache starts afresh when full. */
#define CG_PID_CACHE 4096
/* What a cgroup is called when it cannot be read (the task is gone). */
#define CG_UNKNOWN "unknown"
#define CG_OTHER "other"

struct cg_map;

/**
 * cg_map_alloc - a map of pids to at most @cap cgroups (and "other")
 * @root: root under which /proc is read ("" for this machine; tests give
 *	  a fixture tree)
 * @cap: distinct cgroups counted apart, at least 1
 * Returns the map, or NULL with errno set.
 */
struct cg_map *cg_map_alloc(const char *root, size_t cap);

/** cg_map_free - NULL is accepted */
void cg_map_free(struct cg_map *m);

/**
 * cg_index - the index of @pid's cgroup: 0 to cap - 1, or cap for "other"
 * The first call for a pid reads /proc/PID/cgroup (the cgroup v2 line
 * "0::PATH", else the first line's path); later calls find it cached.
 * A pid whose file cannot be read is CG_UNKNOWN (which takes a slot too).
 */
size_t cg_index(struct cg_map *m, int32_t pid);

/** cg_name - the cgroup path of index @i ("other" for the cap; NULL past it) */
const char *cg_name(const struct cg_map *m, size_t i);

/** cg_count - indexes in use, "other" included once it was used */
size_t cg_count(const struct cg_map *m);

/** cg_cap - the cap given to cg_map_alloc() (the index of "other") */
size_t cg_cap(const struct cg_map *m);

/**
 * cg_forget_pids - forget the cached pids (not the cgroups and their
 * indexes): a pid reused by a task of another cgroup is read afresh.
 * Called every interval by the monitor.
 */
void cg_forget_pids(struct cg_map *m);

/**
 * struct cg_stats - statistics per cgroup (monitor and report --by cgroup)
 * @map: pids to cgroup indexes
 * @st: one struct stats per index, "other" last (cap + 1 entries), each
 *	allocated when its first I/O completes; NULL until then
 */
struct cg_stats {
	struct cg_map *map;
	struct stats **st;
};

/**
 * cg_stats_init - empty statistics for at most @cap cgroups and "other"
 * @root: as for cg_map_alloc()
 * Returns 0 or -ENOMEM; cg_stats_destroy() accepts a failed init.
 */
int cg_stats_init(struct cg_stats *c, const char *root, size_t cap);

/** cg_stats_destroy - release everything; a zeroed @c is accepted */
void cg_stats_destroy(struct cg_stats *c);

/**
 * cg_stats_event - look the cgroup of a queue event's task up now, while
 * it lives (a cached pid costs a hash lookup); other events pass
 */
void cg_stats_event(struct cg_stats *c, const struct blk_event *ev);

/**
 * cg_stats_io - account a completed tree to the cgroup of the task that
 * queued it; out of memory, the tree is left out of that cgroup's figures
 */
void cg_stats_io(struct cg_stats *c, const struct tk_io *io);

#endif /* BLKSTACK_CGROUP_H */
