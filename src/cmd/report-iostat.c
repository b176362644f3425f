// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report-iostat.c - the glue of "blkstack report --iostat": source events
 * -> diskstats accounting -> iostat -x's table over the trace (its first to
 * its last event).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "base/pcevent.h"
#include "base/tickevent.h"
#include "cmd/report-iostat.h"
#include "output/iostat.h"

/* CONFIG_HZ= in a kernel configuration read through @fp, 0 if absent */
static unsigned int config_hz(gzFile fp)
{
	char line[128];

	while (gzgets(fp, line, sizeof(line)))
		if (!strncmp(line, "CONFIG_HZ=", 10))
			return (unsigned int)strtoul(line + 10, NULL, 10);
	return 0;
}

/* CONFIG_HZ of the configuration file @path (plain or gzip), 0 if unknown */
static unsigned int config_file_hz(const char *path)
{
	unsigned int hz;
	gzFile fp;

	/* gzopen() reads a plain file as it is: one reader for both */
	fp = gzopen(path, "r");
	if (!fp)
		return 0;
	hz = config_hz(fp);
	gzclose(fp);
	return hz;
}

unsigned int report_iostat_hz(void)
{
	unsigned int hz;
	struct utsname u;
	char path[128 + sizeof(u.release)];

	if (uname(&u) < 0)
		return 0;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	hz = config_file_hz(path);
	return hz ? hz : config_file_hz("/proc/config.gz");
}

bool report_iostat_counts_started(void)
{
	unsigned int major = 0, minor = 0;
	struct utsname u;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	/* 6.16 counts started requests per CPU, no longer blk-mq's issued ones */
	return major > 6 || (major == 6 && minor >= 16);
}

int report_iostat_init(struct report_iostat *ri, unsigned int hz)
{
	ri->s = iostat_alloc(hz);
	return ri->s ? 0 : -ENOMEM;
}

void report_iostat_destroy(struct report_iostat *ri)
{
	iostat_free(ri->s);
	ri->s = NULL;
}

int report_iostat_event(const struct blk_event *ev, void *ctx)
{
	struct report_iostat *ri = ctx;

	if (pc_kind_is(ev->kind))
		return 0;
	/* a tick places the kernel's jiffies; it is no I/O and spans no time */
	if (tick_kind_is(ev->kind))
		return iostat_event(ev, ri->s);
	if (!ri->first)
		ri->first = ev->ts;
	ri->last = ev->ts;
	return iostat_event(ev, ri->s);
}

int report_iostat_output(FILE *fp, struct report_iostat *ri, bool json, report_name_fn name,
			 void *ctx)
{
	if (json)
		return out_iostat_json(fp, ri->s, ri->first, ri->last, name, ctx);
	return out_iostat_text(fp, ri->s, ri->first, ri->last, name, ctx, true);
}
