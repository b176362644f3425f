// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * datsource.c - the descriptions a trace.dat carries beside its pages,
 * read from tracefs, and the spill files that hold the pages meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "capture/datsource.h"

/* A tracefs file read whole into @t (freed by the caller). */
static int read_text(struct tracefs_instance *inst, const char *file, struct dat_text *t)
{
	int size = 0;
	char *data = tracefs_instance_file_read(inst, file, &size);

	if (!data)
		return errno ? -errno : -EIO;
	t->data = data;
	t->len = size;
	return 0;
}

static void free_texts(struct dat_text *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)t[i].data);
}

/* The format of every event of @system: what the recording may hold. */
static int read_formats(const char *system, struct dat_system *out)
{
	char **events = tracefs_system_events(NULL, system);
	struct dat_text *formats;
	size_t count = 0;
	int ret = 0;

	out->name = system;
	out->formats = NULL;
	out->n = 0;
	if (!events)
		return -ENOENT;
	while (events[count])
		count++;
	formats = calloc(count ? count : 1, sizeof(*formats));
	if (!formats) {
		tracefs_list_free(events);
		return -ENOMEM;
	}
	out->formats = formats;
	for (size_t i = 0; i < count && !ret; i++) {
		char file[256];

		snprintf(file, sizeof(file), "events/%s/%s/format", system, events[i]);
		ret = read_text(NULL, file, &formats[out->n]);
		if (!ret)
			out->n++;
	}
	tracefs_list_free(events);
	return ret;
}

/* The kernel's tick (tickevent.h), an event of its own: -ENOENT when this kernel lacks it. */
static int read_tick_format(struct dat_system *out)
{
	struct dat_text *format = calloc(1, sizeof(*format));
	int ret;

	*out = (struct dat_system){ .name = TICK_EV_SYSTEM, .formats = format };
	if (!format)
		return -ENOMEM;
	ret = read_text(NULL, "events/" TICK_EV_SYSTEM "/" TICK_EV_NAME "/format", format);
	if (!ret)
		out->n = 1;
	return ret;
}

/*
 * The event systems to describe: block, the tick's, and with the page
 * cache those of its events this kernel has (filemap, readahead,
 * writeback, iomap).
 */
static int read_systems(bool page_cache, struct dat_system *sys, size_t max, size_t *n)
{
	int ret;

	*n = 0;
	ret = read_formats("block", &sys[(*n)++]);
	if (!ret) {
		ret = read_tick_format(&sys[(*n)++]);
		if (ret == -ENOENT) {
			free((struct dat_text *)sys[--(*n)].formats);
			ret = 0;
		}
	}
	for (unsigned int k = PC_EV_ADD; page_cache && k < PC_EV_KIND_MAX && !ret; k++) {
		const char *name = pc_kind_system(k);
		size_t i;

		for (i = 0; i < *n && strcmp(sys[i].name, name); i++)
			;
		if (i < *n || *n == max)
			continue;
		ret = read_formats(name, &sys[*n]);
		if (ret == -ENOENT)	/* a system this kernel lacks (iomap before 5.17) */
			ret = 0;
		else
			(*n)++;
	}
	return ret;
}

int dat_formats_read(struct tracefs_instance *inst, bool page_cache, struct dat_formats *f)
{
	struct utsname u;
	int ret;

	memset(f, 0, sizeof(*f));
	/* the traced kernel's release, which decides how it counted (report -i --iostat) */
	if (uname(&u) == 0)
		snprintf(f->uname, sizeof(f->uname), "%s %s %s %s", u.sysname, u.nodename,
			 u.release, u.machine);
	ret = read_text(NULL, "events/header_page", &f->header_page);
	if (!ret)
		ret = read_text(NULL, "events/header_event", &f->header_event);
	if (!ret)
		ret = read_text(NULL, "events/ftrace/print/format", &f->print_format);
	if (!ret)
		ret = read_text(inst, "trace_clock", &f->clock);
	if (!ret)
		ret = read_systems(page_cache, f->systems,
				   sizeof(f->systems) / sizeof(f->systems[0]), &f->nsystems);
	return ret;
}

int dat_formats_read_cmdlines(struct dat_formats *f)
{
	free((char *)f->cmdlines.data);
	f->cmdlines = (struct dat_text){ 0 };
	return read_text(NULL, "saved_cmdlines", &f->cmdlines);
}

void dat_formats_free(struct dat_formats *f)
{
	free((char *)f->header_page.data);
	free((char *)f->header_event.data);
	free((char *)f->print_format.data);
	free((char *)f->clock.data);
	free((char *)f->cmdlines.data);
	for (size_t i = 0; i < f->nsystems; i++) {
		free_texts((struct dat_text *)f->systems[i].formats, f->systems[i].n);
		free((struct dat_text *)f->systems[i].formats);
	}
	memset(f, 0, sizeof(*f));
}

void dat_formats_source(const struct dat_formats *f, uint32_t page_size, int ncpu,
			FILE **spill, const uint64_t *bytes, struct dat_source *out)
{
	*out = (struct dat_source){
		.page_size = page_size, .header_page = f->header_page,
		.header_event = f->header_event, .ftrace_formats = &f->print_format,
		.nftrace_formats = 1, .systems = f->systems, .nsystems = f->nsystems,
		.cmdlines = f->cmdlines, .clock = f->clock, .ncpu = ncpu,
		.uname = f->uname[0] ? f->uname : NULL,
		.spill = spill, .spill_bytes = bytes,
	};
}

FILE *dat_spill_open(const char *dir)
{
	char path[PATH_MAX + 32];
	FILE *f;
	int fd;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/.blkstack-record.XXXXXX", dir);
		fd = mkstemp(path);
		if (fd < 0)
			return NULL;
		unlink(path);
	}
	f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}
