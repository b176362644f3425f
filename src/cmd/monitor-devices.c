// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * monitor-devices.c - the names of the monitored devices, read again every
 * interval.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cmd/monitor-devices.h"

/* One device's labels, from sysfs and device-mapper. */
static int device_of(uint32_t dev, struct om_device *d)
{
	struct topo_dev_info info;
	int ret = topo_dev_info("", dev, &info);

	if (ret < 0)
		return ret;
	memset(d, 0, sizeof(*d));
	d->dev = dev;
	snprintf(d->name, sizeof(d->name), "%s", info.name);
	snprintf(d->kind, sizeof(d->kind), "%s", topo_kind_name(info.kind));
	snprintf(d->target, sizeof(d->target), "%s", info.target);
	snprintf(d->dm_name, sizeof(d->dm_name), "%s", info.dm_name);
	snprintf(d->dm_uuid, sizeof(d->dm_uuid), "%s", info.dm_uuid);
	snprintf(d->md_level, sizeof(d->md_level), "%s", info.md_level);
	d->parent = info.parent;
	topo_dev_info_free(&info);
	return 0;
}

static long find(const struct om_device *devs, size_t n, uint32_t dev)
{
	for (size_t i = 0; i < n; i++)
		if (devs[i].dev == dev)
			return i;
	return -1;
}

void monitor_devices_refresh(struct monitor_devices *md, const struct topo_selection *sel,
			     const struct stats *st)
{
	struct topo_selection all = { 0 };
	const struct topo_selection *from = sel;
	struct om_device *devs;
	size_t n = 0, max;
	bool *gone;

	if (!sel->n) {
		if (topo_all_devices("", &all) < 0)
			return;
		from = &all;
	}
	/* room for every device now and every one kept from before */
	max = from->n + md->n + 1;
	devs = calloc(max, sizeof(*devs));
	gone = calloc(max, sizeof(*gone));
	if (!devs || !gone)
		goto out;
	for (size_t i = 0; i < from->n; i++) {
		long was;

		if (device_of(from->devs[i], &devs[n]) < 0)
			continue;
		was = find(md->devs, md->n, devs[n].dev);
		if (was >= 0 && md->gone[was])
			note_msg("device '%s' (%u:%u) is back", devs[n].name,
				 KDEV_MAJOR(devs[n].dev), KDEV_MINOR(devs[n].dev));
		n++;
	}
	for (size_t i = 0; i < md->n; i++) {
		if (find(devs, n, md->devs[i].dev) >= 0)
			continue;
		/* with -d, a device gone is one the user asked for: say so, once */
		if (!md->gone[i] && sel->n)
			warn_msg("device '%s' (%u:%u) went away: its series keep their last values; the other devices are still monitored",
				 md->devs[i].name, KDEV_MAJOR(md->devs[i].dev),
				 KDEV_MINOR(md->devs[i].dev));
		/* its series stay labelled as they were */
		if (stats_layer(st, md->devs[i].dev)) {
			devs[n] = md->devs[i];
			gone[n++] = true;
		}
	}
	monitor_devices_free(md);
	md->devs = devs;
	md->gone = gone;
	md->n = n;
	devs = NULL;
	gone = NULL;
out:
	free(devs);
	free(gone);
	topo_selection_free(&all);
}

void monitor_devices_sample(struct monitor_devices *md)
{
	for (size_t i = 0; i < md->n; i++) {
		struct om_device *d = &md->devs[i];
		unsigned long long r, w;
		char path[128];
		FILE *fp;

		d->has_inflight = false;
		if (md->gone[i])
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%s/inflight", d->name);
		fp = fopen(path, "re");
		if (!fp)
			continue;
		if (fscanf(fp, "%llu %llu", &r, &w) == 2) {
			d->inflight[0] = r;
			d->inflight[1] = w;
			d->has_inflight = true;
		}
		fclose(fp);
	}
}

void monitor_devices_free(struct monitor_devices *md)
{
	free(md->devs);
	free(md->gone);
	md->devs = NULL;
	md->gone = NULL;
	md->n = 0;
}
