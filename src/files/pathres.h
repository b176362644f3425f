/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pathres.h - inode numbers to path names.
 *
 * Page-cache events name a file by superblock device and inode number only.
 * Names come from the open files and memory maps of live processes
 * (/proc/PID/fd with fdinfo's mnt_id and ino, /proc/PID/maps), and on
 * request from a walk of the mounted filesystem. What cannot be resolved
 * is shown as "MAJ:MIN:ino" by the caller. /proc is read under a settable
 * root, so that tests run on a fixture tree.
 */
#ifndef BLKSTACK_PATHRES_H
#define BLKSTACK_PATHRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "files/fsmap.h"

struct pathres;

/**
 * struct pathres_key - a file as page-cache events name it
 * @sdev: superblock device (kernel dev_t)
 * @ino: inode number
 */
struct pathres_key {
	uint32_t sdev;
	uint64_t ino;
};

/**
 * pathres_alloc - an empty name store reading /proc under @root
 * @root: "" for this machine, or a fixture tree holding proc/PID/...
 * Returns the store, or NULL with errno set.
 */
struct pathres *pathres_alloc(const char *root);

/** pathres_free - release; NULL is accepted */
void pathres_free(struct pathres *pr);

/**
 * pathres_set - record a name (the first name of a file is kept)
 * @deleted: the file was unlinked ("(deleted)" in /proc)
 * Returns 0 or -ENOMEM.
 */
int pathres_set(struct pathres *pr, uint32_t sdev, uint64_t ino, const char *path,
		bool deleted);

/**
 * pathres_set_deleted - the file's last link is gone: its name, if known,
 * is now that of a deleted file
 */
void pathres_set_deleted(struct pathres *pr, uint32_t sdev, uint64_t ino);

/**
 * pathres_lookup - the name of a file
 * @deleted: set when the name is that of an unlinked file; may be NULL
 * Returns the path (valid until pathres_free()), or NULL when unknown.
 */
const char *pathres_lookup(const struct pathres *pr, uint32_t sdev, uint64_t ino,
			   bool *deleted);

/**
 * pathres_scan_pid - record the names of every file process @pid has open
 * or mapped (/proc/PID/fd, fdinfo, mountinfo, maps)
 *
 * A process that has exited, or whose files may not be read, gives nothing.
 * Returns how many names were new, or -ENOMEM.
 */
int pathres_scan_pid(struct pathres *pr, pid_t pid);

/** pathres_scan_all - pathres_scan_pid() of every process. Returns as it. */
int pathres_scan_all(struct pathres *pr);

/**
 * pathres_walk - walk the mounted filesystems for the files of @want that
 * have no name yet (--resolve-paths=walk)
 * @map: where each superblock is mounted
 * @want: the files to name
 * @n: how many
 *
 * Each filesystem is walked once from a mount of its root, without
 * crossing into other mounts, and stops when all of its wanted files
 * are named. A file a walk did not find is remembered as such: no later
 * walk looks for it again (a scan of /proc may still name it).
 * Returns how many names were found, -ENOMEM, or -ECANCELED when the
 * callback of pathres_set_cancel() stopped it: the names found until then
 * are kept, the files it did not reach stay unknown.
 */
int pathres_walk(struct pathres *pr, const struct fsmap *map, const struct pathres_key *want,
		 size_t n);

/**
 * pathres_set_cancel - a walk asks @cancel(@ctx) before each directory
 * entry it reads, and stops when it says true: a walk of a large
 * filesystem can take minutes, and a user's Ctrl-C must end it
 */
void pathres_set_cancel(struct pathres *pr, bool (*cancel)(void *ctx), void *ctx);

/** pathres_count - how many files have a name */
size_t pathres_count(const struct pathres *pr);

#endif /* BLKSTACK_PATHRES_H */
