// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * localfmt.c - the event formats of this kernel's tracefs (see localfmt.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "capture/localfmt.h"

int localfmt_add_event(struct tep_handle *tep, const char *sys, const char *event)
{
	int len = 0;
	char *text = tracefs_event_file_read(NULL, sys, event, "format", &len);
	int ret = -ENOENT;

	/* as libtracefs does: a format that does not parse leaves its event out */
	if (text && len > 0)
		ret = tep_parse_event(tep, text, len, sys) ? -EINVAL : 0;
	free(text);
	return ret;
}

/* Every event format of @sys; a system this kernel lacks adds none. */
static void load_system(struct tep_handle *tep, const char *sys)
{
	char **events = tracefs_system_events(NULL, sys);

	for (size_t i = 0; events && events[i]; i++)
		localfmt_add_event(tep, sys, events[i]);
	tracefs_list_free(events);
}

/* The CPUs that have a ring buffer: tracefs's per_cpu/cpuN, as libtracefs counts them. */
static int ring_cpus(void)
{
	const char *dir = tracefs_tracing_dir();
	char path[4096];
	struct dirent *d;
	int n = 0;
	DIR *dp;

	if (!dir || snprintf(path, sizeof(path), "%s/per_cpu", dir) >= (int)sizeof(path))
		return 0;
	dp = opendir(path);
	if (!dp)
		return 0;
	while ((d = readdir(dp)))
		n += strncmp(d->d_name, "cpu", 3) == 0;
	closedir(dp);
	return n;
}

struct tep_handle *localfmt_load(const char *const *systems)
{
	struct tep_handle *tep = tep_alloc();
	char *header;
	int len = 0;

	if (!tep) {
		errno = ENOMEM;
		return NULL;
	}
	header = tracefs_instance_file_read(NULL, "events/header_page", &len);
	if (!header || len <= 0) {
		free(header);
		tep_free(tep);
		if (!errno)
			errno = ENOENT;
		return NULL;
	}
	tep_parse_header_page(tep, header, len, sizeof(long));
	free(header);
	/* what libtracefs sets beside the formats */
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	tep_set_cpus(tep, ring_cpus());
	for (size_t i = 0; systems[i]; i++)
		load_system(tep, systems[i]);
	return tep;
}
