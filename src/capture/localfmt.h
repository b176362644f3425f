/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * localfmt.h - the event formats of this kernel's tracefs, for the systems
 * a live run traces.
 */
#ifndef BLKSTACK_LOCALFMT_H
#define BLKSTACK_LOCALFMT_H

struct tep_handle;

/**
 * localfmt_load - a tep of the ring-buffer header and of every event of
 * @systems, read from the mounted tracefs
 * @systems: NULL-terminated system names; one that this kernel lacks adds
 *	no event (its events are then looked up and found missing)
 *
 * Unlike tracefs_local_events_system(), it reads no /proc/kallsyms,
 * printk_formats or saved_cmdlines: block events need none of them, and
 * parsing kallsyms alone cost a live run about 0.1 s of CPU at its start.
 *
 * Returns the handle (tep_free() it), or NULL with errno set.
 */
struct tep_handle *localfmt_load(const char *const *systems);

/**
 * localfmt_add_event - parse one more event's format into @tep (ftrace's
 * print, whose system has dozens of events no decoder reads)
 * Returns 0, -ENOENT when this kernel lacks the event, or -EINVAL when its
 * format does not parse.
 */
int localfmt_add_event(struct tep_handle *tep, const char *sys, const char *event);

#endif /* BLKSTACK_LOCALFMT_H */
