// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * host.c - this machine as a trace's host (see host.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <zlib.h>

#include "cmd/host.h"

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

/*
 * This kernel's CONFIG_HZ from /boot/config-RELEASE, else /proc/config.gz
 * (CONFIG_IKCONFIG_PROC); 0 when neither can be read.
 */
static unsigned int host_config_hz(void)
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

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000ULL + (uint64_t)t->tv_nsec;
}

/*
 * CLOCK_REALTIME between two reads of CLOCK_MONOTONIC, paired with their
 * middle: off by at most half the few hundred nanoseconds between them.
 * Returns false when a clock cannot be read.
 */
static bool clock_pair(int64_t *real_ns, uint64_t *mono_ns)
{
	struct timespec a, r, b;

	if (clock_gettime(CLOCK_MONOTONIC, &a) || clock_gettime(CLOCK_REALTIME, &r) ||
	    clock_gettime(CLOCK_MONOTONIC, &b))
		return false;
	*real_ns = (int64_t)ts_ns(&r);
	*mono_ns = ts_ns(&a) + (ts_ns(&b) - ts_ns(&a)) / 2;
	return true;
}

static void release(char *out)
{
	struct utsname u;

	out[0] = '\0';
	if (uname(&u) == 0)
		snprintf(out, TRACE_HOST_RELEASE_MAX, "%s", u.release);
}

void host_live(struct trace_host *h)
{
	uint64_t mono;
	int64_t real;

	memset(h, 0, sizeof(*h));
	h->from = "this machine";
	release(h->release);
	h->hz = host_config_hz();
	if (clock_pair(&real, &mono)) {
		h->wall_known = true;
		h->wall_offset_ns = real - (int64_t)mono;
		h->wall_from = "this machine's clock (CLOCK_REALTIME read beside the trace clock)";
	} else {
		h->wall_from = "unknown: the clocks could not be read";
	}
}

void host_marker_now(struct host_marker *m)
{
	memset(m, 0, sizeof(*m));
	release(m->release);
	m->hz = host_config_hz();
	m->has_clock = clock_pair(&m->realtime_ns, &m->mono_ns);
}
