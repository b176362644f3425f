/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * monitor-devices.h - the names blkstack monitor labels its series with
 * (blkstack_device_info): read from sysfs and device-mapper every
 * interval, so that a renamed or new device shows as it is now, and a
 * device that goes away is said once, its names kept for its series.
 * Command glue: it prints what went away and what came back.
 */
#ifndef BLKSTACK_CMD_MONITOR_DEVICES_H
#define BLKSTACK_CMD_MONITOR_DEVICES_H

#include <stdbool.h>
#include <stddef.h>

#include "output/openmetrics.h"
#include "track/stats.h"
#include "track/topo.h"

/**
 * struct monitor_devices - the devices' names
 * @devs: @n entries, for struct om_input
 * @gone: per entry, the device is no longer in sysfs (said once)
 * @n: how many
 */
struct monitor_devices {
	struct om_device *devs;
	bool *gone;
	size_t n;
};

/**
 * monitor_devices_refresh - read the names again
 * @sel: the selected devices (-d, expanded); empty: every block device
 * @st: the statistics: a device gone keeps its names while it has series
 * On failure (out of memory, sysfs unreadable) the last names stay.
 */
void monitor_devices_refresh(struct monitor_devices *md, const struct topo_selection *sel,
			     const struct stats *st);

/**
 * monitor_devices_sample - read each present device's in-flight reads and
 * writes now (sysfs inflight), for blkstack_layer_inflight
 */
void monitor_devices_sample(struct monitor_devices *md);

/** monitor_devices_free - release the names; a zeroed @md is accepted */
void monitor_devices_free(struct monitor_devices *md);

#endif /* BLKSTACK_CMD_MONITOR_DEVICES_H */
