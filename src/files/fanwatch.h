/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fanwatch.h - file names while tracing, from fanotify: every open of a
 * file on the traced filesystems, however short-lived its process, names
 * that file (the directory's file handle and the entry's name, resolved
 * with open_by_handle_at), and every last unlink marks it deleted.
 *
 * A thread drains the fanotify group into a bounded queue of names; the
 * caller takes them between passes. Names that do not fit are counted,
 * as is the kernel's own queue overflow. Needs CAP_SYS_ADMIN (filesystem
 * marks) and filesystems with file handles; where either is missing, the
 * caller keeps /proc and the walk.
 */
#ifndef BLKSTACK_FANWATCH_H
#define BLKSTACK_FANWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "files/fsmap.h"

/**
 * struct fanwatch_name - a name found, or a file found deleted
 * @sdev, @ino: the file, as page-cache events name it
 * @path: its path (malloc'd, the taker frees it); NULL: only @deleted news
 * @deleted: its last link is gone
 */
struct fanwatch_name {
	uint32_t sdev;
	uint64_t ino;
	char *path;
	bool deleted;
};

/**
 * struct fanwatch_stats - what was seen and lost
 * @marked: filesystems watched
 * @unmarked: filesystems that could not be (no file handles: EXDEV,
 *	      EOPNOTSUPP, ENODEV)
 * @events: fanotify events read
 * @named: names queued
 * @overflow: times the kernel's queue overflowed (events lost there)
 * @dropped: names lost because our queue was full
 * @unresolved: opens whose directory or inode could not be resolved
 */
struct fanwatch_stats {
	size_t marked, unmarked;
	uint64_t events, named, overflow, dropped, unresolved;
};

struct fanwatch;

/**
 * fanwatch_open - watch the filesystems of superblock devices @sdevs
 * @map: the mounted filesystems (their mount points are marked)
 * @sdevs: which, @n of them
 * @out: the watch, running
 *
 * Returns 0; -EPERM without CAP_SYS_ADMIN; -ENOSYS or -EINVAL where the
 * kernel has no fanotify or no FAN_REPORT_DFID_NAME (before 5.9);
 * -EOPNOTSUPP when no filesystem could be marked; -ENOMEM.
 */
int fanwatch_open(const struct fsmap *map, const uint32_t *sdevs, size_t n,
		  struct fanwatch **out);

/**
 * fanwatch_take - the names found since the last call, in order
 * @out: where to copy them (the taker owns each @path)
 * @max: room in @out
 * Returns how many; call again until 0.
 */
size_t fanwatch_take(struct fanwatch *fw, struct fanwatch_name *out, size_t max);

/**
 * fanwatch_stop - read what the kernel still holds, then stop the thread
 * (names stay to be taken); idempotent
 */
void fanwatch_stop(struct fanwatch *fw);

/** fanwatch_get_stats - the counts so far */
void fanwatch_get_stats(struct fanwatch *fw, struct fanwatch_stats *st);

/** fanwatch_close - stop, release the group and the names not taken; NULL is accepted */
void fanwatch_close(struct fanwatch *fw);

/* ---- decoding, pure (unit-tested) -------------------------------------- */

/**
 * struct fanwatch_event - one fanotify event with FID information
 * @mask: FAN_OPEN, FAN_DELETE_SELF, FAN_Q_OVERFLOW...
 * @pid: the task
 * @fsid: the filesystem (statfs f_fsid)
 * @dir_handle, @dir_handle_len, @dir_type: the parent directory's handle
 *	(FAN_EVENT_INFO_TYPE_DFID_NAME), @dir_handle NULL when absent
 * @name: the entry's name in it (points into the buffer), or NULL
 * @obj_handle, @obj_handle_len, @obj_type: the object's own handle
 *	(FAN_EVENT_INFO_TYPE_FID), @obj_handle NULL when absent
 */
struct fanwatch_event {
	uint64_t mask;
	int32_t pid;
	int32_t fsid[2];
	const unsigned char *dir_handle;
	unsigned int dir_handle_len;
	int dir_type;
	const char *name;
	const unsigned char *obj_handle;
	unsigned int obj_handle_len;
	int obj_type;
};

/**
 * fanwatch_parse - the next event of a buffer read from a fanotify group
 * @buf, @len: what read() returned
 * @off: where to start; moved past the event
 * @ev: filled in (pointers into @buf)
 * Returns 1 with an event, 0 at the end, -EINVAL on a malformed event
 * (the rest of the buffer is skipped).
 */
int fanwatch_parse(const void *buf, size_t len, size_t *off, struct fanwatch_event *ev);

/**
 * fanwatch_handle_ino - the inode number a file handle encodes, for the
 * handle types of ext4 (and every filesystem using the generic 32-bit
 * encoding), xfs (32 and 64 bits) and btrfs
 * Returns 0, or -EOPNOTSUPP for another type, -EINVAL when too short.
 */
int fanwatch_handle_ino(int type, const unsigned char *h, unsigned int len, uint64_t *ino);

#endif /* BLKSTACK_FANWATCH_H */
