// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * session-pagecache.c - the page-cache events of a live session: filters
 * and enabling, in the session's own instance (libtracefs).
 *
 * Page-cache events outnumber block events on buffered workloads (one per
 * page inserted, dirtied or evicted), so they are filtered in the kernel
 * to the selected filesystems: by superblock device where the event has
 * one, by bdi name for the writeback events, which have only that.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/session.h"

/* "FIELD == V || ..." of the selected superblock devices. */
static char *sdev_filter(const char *field, const uint32_t *devs, size_t n)
{
	size_t len = n * (strlen(field) + 24) + 1;
	char *s = malloc(len), *p = s;

	if (!s)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < n; i++)
		p += snprintf(p, len - (p - s), "%s%s == %u", i ? " || " : "", field, devs[i]);
	return s;
}

/*
 * The filemap events also of the selected block devices' own page cache
 * (raw reads, a filesystem's buffers): its inode number is the device.
 * Without them, raw reads of a device under a filesystem count as the
 * filesystem's unattributed I/O, and a direct I/O loses sight of the
 * metadata it reads.
 */
static char *sdev_bdev_filter(const struct session_params *p, const uint32_t *sdevs, size_t n)
{
	char *s = sdev_filter("s_dev", sdevs, n), *b = sdev_filter("i_ino", p->devs, p->ndevs);
	char *f = NULL;

	if (s && b && asprintf(&f, "%s || %s", s, b) < 0)
		f = NULL;
	free(s);
	free(b);
	return f;
}

/* name == "7:0" || name == "btrfs-1": bdi names are short and plain. */
static char *bdi_filter(const char *const *names, size_t n)
{
	size_t len = 1;
	char *s, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(names[i]) + 16;
	s = p = malloc(len);
	if (!s)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < n; i++)
		p += snprintf(p, len - (p - s), "%sname == \"%s\"", i ? " || " : "", names[i]);
	return s;
}

/* The filter of one event, or NULL with *unfilterable when it lacks the field. */
static char *event_filter(const struct session_params *p, struct tep_event *event,
			  bool *unfilterable, int *err)
{
	char *f = NULL;

	*unfilterable = false;
	*err = 0;
	if (!p->pc_nsdevs)
		return NULL;
	if (tep_find_field(event, "s_dev") && tep_find_field(event, "i_ino") && p->ndevs)
		f = sdev_bdev_filter(p, p->pc_sdevs, p->pc_nsdevs);
	else if (tep_find_field(event, "s_dev"))
		f = sdev_filter("s_dev", p->pc_sdevs, p->pc_nsdevs);
	else if (tep_find_field(event, "dev"))
		f = sdev_filter("dev", p->pc_sdevs, p->pc_nsdevs);
	else if (tep_find_field(event, "name") && p->pc_nbdis)
		f = bdi_filter(p->pc_bdis, p->pc_nbdis);
	else {
		*unfilterable = true;
		return NULL;
	}
	if (!f)
		*err = -ENOMEM;
	return f;
}

/* iomap_iter's filter: its direct I/O only ("flags & 16"), on the filesystems asked. */
static int direct_only(char **filter)
{
	char *f;

	if (*filter ? asprintf(&f, "(%s) && (flags & %u)", *filter, PC_IOMAP_DIRECT) < 0
		    : asprintf(&f, "flags & %u", PC_IOMAP_DIRECT) < 0)
		return -ENOMEM;
	free(*filter);
	*filter = f;
	return 0;
}

int session_pagecache_enable(const struct session_params *p, struct session *s,
			     const char **what)
{
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++) {
		const char *sys = pc_kind_system(k);
		const char *name = pc_kind_name(k);
		struct tep_event *event;
		bool unfilterable;
		char *filter;
		int err;

		/*
		 * iomap_iter is the stand-in for iomap_dio_rw_begin on kernels
		 * without it (5.15 to 6.2): one event per extent mapped, even
		 * when buffered, so only where needed and only the direct ones
		 */
		if (k == PC_EV_DIO_ITER && !s->pc_missing[PC_EV_DIO_BEGIN - PC_EV_ADD])
			continue;
		event = tep_find_event_by_name(s->tep, sys, name);
		if (!event && pc_kind_alt_name(k)) {
			name = pc_kind_alt_name(k);
			event = tep_find_event_by_name(s->tep, sys, name);
		}
		if (!event) {
			s->pc_missing[k - PC_EV_ADD] = true;
			continue;
		}
		*what = name;
		filter = event_filter(p, event, &unfilterable, &err);
		if (!err && k == PC_EV_DIO_ITER)
			err = direct_only(&filter);
		if (err) {
			errno = -err;
			return err;
		}
		s->pc_unfiltered[k - PC_EV_ADD] = unfilterable;
		if (filter && tracefs_event_file_write(s->instance, sys, name, "filter", filter) < 0) {
			err = errno ? -errno : -EIO;
			free(filter);
			errno = -err;
			return err;
		}
		free(filter);
		if (tracefs_event_enable(s->instance, sys, name) < 0)
			return errno ? -errno : -EIO;
	}
	return 0;
}

int session_saved_comms(void (*fn)(int pid, const char *comm, void *ctx), void *ctx)
{
	char *text = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	char *line, *save;

	if (!text)
		return errno ? -errno : -EIO;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char comm[32];
		int pid;

		if (sscanf(line, "%d %31s", &pid, comm) == 2)
			fn(pid, comm, ctx);
	}
	free(text);
	return 0;
}
