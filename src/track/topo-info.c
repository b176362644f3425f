// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topo-info.c - what a device is (kind, size, names, queue, holders,
 * slaves, device-mapper target type), from sysfs under a root (see
 * topo.c). The one thing sysfs does not tell, the target type of a
 * device-mapper table, comes from libdevmapper on this machine, or from a
 * lookup that tests set (topo_dm_ops_set()).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <libdevmapper.h>

#include "base/event.h"
#include "track/topo-sysfs.h"
#include "track/topo.h"

/* ---- device information ---- */

static const char *const kind_names[] = {
	[TOPO_DISK]		= "disk",
	[TOPO_PARTITION]	= "part",
	[TOPO_DM]		= "dm",
	[TOPO_LOOP]		= "loop",
	[TOPO_ZRAM]		= "zram",
	[TOPO_MD]		= "md",
};

/* topo_kind_name - see topo.h */
const char *topo_kind_name(enum topo_kind kind)
{
	if ((unsigned int)kind >= sizeof(kind_names) / sizeof(kind_names[0]))
		return "?";
	return kind_names[kind];
}

/*
 * read_opt - an optional attribute into a fixed field: "" when the device
 * does not have it or it cannot be read, cut when too long. Nothing shown
 * in a tree is worth failing the whole description for.
 */
static void read_opt(int dfd, const char *path, char *buf, size_t len)
{
	if (sysfs_read_small(dfd, path, buf, len))
		*buf = '\0';
}

/* read_u64 - a decimal attribute; 0 when absent or not a number */
static uint64_t read_u64(int dfd, const char *path)
{
	unsigned long long v;
	char buf[32], *end;

	if (sysfs_read_small(dfd, path, buf, sizeof(buf)) || !isdigit((unsigned char)*buf))
		return 0;
	errno = 0;
	v = strtoull(buf, &end, 10);
	return *end || errno ? 0 : v;
}

/*
 * read_sched - the selected scheduler of queue/scheduler at @path
 *
 * The kernel lists them all and brackets the one in use
 * ("none [mq-deadline] kyber bfq"); a queue with no choice prints "none"
 * alone, unbracketed.
 */
static void read_sched(int dfd, const char *path, char *buf, size_t len)
{
	char line[256], *open, *close_;

	*buf = '\0';
	if (sysfs_read_small(dfd, path, line, sizeof(line)))
		return;
	open = strchr(line, '[');
	close_ = open ? strchr(open, ']') : NULL;
	if (!close_) {
		snprintf(buf, len, "none");
		return;
	}
	*close_ = '\0';
	snprintf(buf, len, "%s", open + 1);
}

/* dev_kind - what the device directory says the device is (see enum topo_kind) */
static enum topo_kind dev_kind(int dfd, uint32_t dev, const char *name)
{
	if (sysfs_is_partition(dfd))
		return TOPO_PARTITION;
	if (!faccessat(dfd, "dm", F_OK, 0))
		return TOPO_DM;
	if (!faccessat(dfd, "md", F_OK, 0))
		return TOPO_MD;
	/* an unattached loop device has no loop/ directory, but still its major */
	if (KDEV_MAJOR(dev) == 7 || !faccessat(dfd, "loop", F_OK, 0))
		return TOPO_LOOP;
	if (!strncmp(name, "zram", 4))
		return TOPO_ZRAM;
	return TOPO_DISK;
}

/* has_suffix - whether @s ends with @suffix */
static bool has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

/*
 * dm_target_guess - the target type from the dm uuid alone (see the table
 * in topo.h). Only prefixes the creating tool always sets are trusted; an
 * LVM volume's uuid says nothing of its segment type, so none is guessed
 * but the pool's.
 */
static void dm_target_guess(const char *uuid, char *buf, size_t len)
{
	const char *guess = "";
	const char *p;

	if (!strncmp(uuid, "CRYPT-VERITY-", 13))
		guess = "verity";
	else if (!strncmp(uuid, "CRYPT-INTEGRITY-", 16))
		guess = "integrity";
	else if (!strncmp(uuid, "CRYPT-SUBDEV-", 13))
		guess = "";
	else if (!strncmp(uuid, "CRYPT-", 6))
		guess = "crypt";
	else if (!strncmp(uuid, "mpath-", 6))
		guess = "multipath";
	else if (!strncmp(uuid, "LVM-", 4) && has_suffix(uuid, "-tpool"))
		guess = "thin-pool";
	else if (!strncmp(uuid, "part", 4) && isdigit((unsigned char)uuid[4])) {
		for (p = uuid + 4; isdigit((unsigned char)*p); p++)
			;
		if (*p == '-')
			guess = "linear";
	}
	snprintf(buf, len, "%s", guess);
}

static const struct topo_dm_ops default_dm_ops = { .target = topo_dm_target,
						    .devices = topo_dm_devices };
static const struct topo_dm_ops *dm_ops = &default_dm_ops;

/* topo_dm_ops_set - see topo.h */
void topo_dm_ops_set(const struct topo_dm_ops *ops)
{
	dm_ops = ops ? ops : &default_dm_ops;
}

/*
 * dm_target_fill - @info->target: the lookup, then the uuid guess
 *
 * libdevmapper speaks for this machine only: asked about a fixture tree's
 * 253:2 it would describe whatever this machine's 253:2 is.
 */
static void dm_target_fill(const char *root, struct topo_dev_info *info)
{
	const struct topo_dm_ops *ops = dm_ops;

	info->target[0] = '\0';
	if (ops->target && (ops != &default_dm_ops || !*root)) {
		if (ops->target(info->dev, info->target, sizeof(info->target)))
			info->target[0] = '\0';
	}
	if (!info->target[0])
		dm_target_guess(info->dm_uuid, info->target, sizeof(info->target));
}

/* The most devices a dm table names that are kept as its slots. */
#define DM_MAX_SLOTS 64

/* @info->slots: the table's devices in order, when the lookup can tell */
static void dm_slots_fill(const char *root, struct topo_dev_info *info)
{
	const struct topo_dm_ops *ops = dm_ops;
	uint32_t devs[DM_MAX_SLOTS];
	size_t n = 0;

	if (!ops->devices || (ops == &default_dm_ops && *root))
		return;
	if (ops->devices(info->dev, devs, DM_MAX_SLOTS, &n) || !n)
		return;
	info->slots = malloc(n * sizeof(*info->slots));
	if (!info->slots)
		return;	/* the slots are an addition: without them, slaves */
	memcpy(info->slots, devs, n * sizeof(*devs));
	info->nslots = n;
}

/*
 * topo_dev_info - everything from the device's own sysfs directory, a
 * partition's queue attributes from its disk's. See topo.h.
 */
int topo_dev_info(const char *root, uint32_t dev, struct topo_dev_info *out)
{
	int dfd, ret;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	root = sysfs_root(root);

	ret = topo_dev_name(root, dev, out->name, sizeof(out->name));
	if (ret)
		return ret == -ENOTDIR ? -ENOENT : ret;
	dfd = sysfs_open_devdir(root, dev);
	if (dfd < 0)
		return dfd == -ENOTDIR ? -ENOENT : dfd;

	out->dev = dev;
	out->kind = dev_kind(dfd, dev, out->name);
	out->size_sectors = read_u64(dfd, "size");
	switch (out->kind) {
	case TOPO_PARTITION:
		out->part_start = read_u64(dfd, "start");
		if (sysfs_read_dev(dfd, "../dev", &out->parent))
			out->parent = 0;
		break;
	case TOPO_DM:
		read_opt(dfd, "dm/name", out->dm_name, sizeof(out->dm_name));
		read_opt(dfd, "dm/uuid", out->dm_uuid, sizeof(out->dm_uuid));
		dm_target_fill(root, out);
		dm_slots_fill(root, out);
		break;
	case TOPO_LOOP:
		read_opt(dfd, "loop/backing_file", out->backing, sizeof(out->backing));
		break;
	case TOPO_MD:
		read_opt(dfd, "md/level", out->md_level, sizeof(out->md_level));
		break;
	default:
		break;
	}

	/* a partition has no queue/ of its own: I/O to it is queued on the disk */
	if (out->kind == TOPO_PARTITION) {
		read_sched(dfd, "../queue/scheduler", out->scheduler, sizeof(out->scheduler));
		out->rotational = read_u64(dfd, "../queue/rotational") == 1;
	} else {
		read_sched(dfd, "queue/scheduler", out->scheduler, sizeof(out->scheduler));
		out->rotational = read_u64(dfd, "queue/rotational") == 1;
	}

	ret = sysfs_list_links(root, dfd, "slaves", &out->slaves, &out->nslaves);
	if (!ret)
		ret = sysfs_list_links(root, dfd, "holders", &out->holders, &out->nholders);
	close(dfd);
	if (ret) {
		topo_dev_info_free(out);
		memset(out, 0, sizeof(*out));
	}
	return ret;
}

/* topo_dev_info_free - see topo.h */
void topo_dev_info_free(struct topo_dev_info *info)
{
	if (!info)
		return;
	free(info->slaves);
	free(info->holders);
	free(info->slots);
	info->slaves = info->holders = info->slots = NULL;
	info->nslaves = info->nholders = info->nslots = 0;
}

/* ---- device-mapper target types, through libdevmapper ---- */

#define DM_CONTROL	"/dev/mapper/control"

/* dm_log_quiet - libdevmapper's log function: its messages are not ours to print */
static void __attribute__((format(printf, 5, 6)))
dm_log_quiet(int level, const char *file, int line, int dm_errno_or_class, const char *f, ...)
{
	(void)level;
	(void)file;
	(void)line;
	(void)dm_errno_or_class;
	(void)f;
}

/*
 * topo_dm_target - one DM_DEVICE_TABLE ioctl. See topo.h.
 *
 * The table, not the status: a thin-pool's status commits its metadata
 * unless told not to, which would add I/O to the stack being traced. A
 * crypt table carries the key, so the task is marked secure: the kernel
 * and libdevmapper wipe their copies of it.
 */
/*
 * Whether this kernel has device-mapper: its misc device is listed. A
 * control node can outlive it (made by dmsetup or udev on a kernel
 * without it), and libdevmapper then fails to create a task at all.
 */
static bool dm_in_kernel(void)
{
	char line[128];
	bool found = false;
	FILE *fp = fopen("/proc/misc", "r");

	if (!fp)
		return true;	/* cannot tell: let libdevmapper say */
	while (!found && fgets(line, sizeof(line), fp))
		found = strstr(line, " device-mapper\n") != NULL;
	fclose(fp);
	return found;
}

/*
 * The targets of dm device @dev's table, in order, each to @fn with its
 * type and parameters (@fn returns false to stop). Returns 0 or as
 * topo_dm_target().
 */
static int dm_table_each(uint32_t dev, bool (*fn)(const char *type, const char *params, void *ctx),
			 void *ctx)
{
	static bool log_quiet;
	char *type, *params;
	uint64_t start, length;
	struct dm_task *dmt;
	struct dm_info info;
	void *next = NULL;
	int ret = 0;

	/*
	 * Checked first: libdevmapper would otherwise try to create the node
	 * (as root) or log its failure to open it.
	 */
	if (faccessat(AT_FDCWD, DM_CONTROL, R_OK | W_OK, AT_EACCESS))
		return errno == ENOENT || errno == ENOTDIR ? -ENODEV : -errno;
	if (!dm_in_kernel())
		return -ENODEV;
	if (!log_quiet) {
		dm_log_with_errno_init(dm_log_quiet);
		log_quiet = true;
	}

	dmt = dm_task_create(DM_DEVICE_TABLE);
	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_major_minor(dmt, KDEV_MAJOR(dev), KDEV_MINOR(dev), 0) ||
	    !dm_task_secure_data(dmt) || !dm_task_no_open_count(dmt)) {
		ret = -ENOMEM;
		goto out_destroy;
	}
	if (!dm_task_run(dmt)) {
		ret = -EIO;
		goto out_destroy;
	}
	if (!dm_task_get_info(dmt, &info) || !info.exists) {
		ret = -ENOENT;
		goto out_destroy;
	}
	do {
		next = dm_get_next_target(dmt, next, &start, &length, &type, &params);
		if (!type || !fn(type, params ? params : "", ctx))
			break;
	} while (next);
out_destroy:
	dm_task_destroy(dmt);
	/* close the control node: nothing keeps it open between lookups */
	dm_lib_release();
	return ret;
}

struct target_type {
	char first[64];
	bool mixed;
};

static bool target_type(const char *type, const char *params, void *ctx)
{
	struct target_type *t = ctx;

	(void)params;
	if (!t->first[0])
		snprintf(t->first, sizeof(t->first), "%s", type);
	else if (strcmp(t->first, type))
		t->mixed = true;
	return true;
}

int topo_dm_target(uint32_t dev, char *buf, size_t len)
{
	struct target_type t = { "", false };
	int ret;

	if (!buf || !len)
		return -EINVAL;
	*buf = '\0';
	ret = dm_table_each(dev, target_type, &t);
	if (ret)
		return ret;
	if (t.mixed)
		strcpy(t.first, "mixed");
	if (strlen(t.first) >= len)
		return -ERANGE;
	strcpy(buf, t.first);
	return 0;
}

struct table_devs {
	uint32_t *devs;
	size_t max, n;
};

/* every MAJ:MIN among a target's parameters, in order, once each */
static bool table_devs(const char *type, const char *params, void *ctx)
{
	struct table_devs *t = ctx;

	(void)type;
	topo_table_devices(params, t->devs, t->max, &t->n);
	return t->n < t->max;
}

int topo_dm_devices(uint32_t dev, uint32_t *devs, size_t max, size_t *n)
{
	struct table_devs t = { devs, max, 0 };
	int ret = dm_table_each(dev, table_devs, &t);

	*n = ret ? 0 : t.n;
	return ret;
}

void topo_table_devices(const char *params, uint32_t *devs, size_t max, size_t *n)
{
	const char *p = params;

	while (*p && *n < max) {
		unsigned int ma, mi;
		int used = 0;
		uint32_t d;
		size_t k;

		p += strspn(p, " \t");
		if (sscanf(p, "%u:%u%n", &ma, &mi, &used) == 2 && (!p[used] || p[used] == ' ' ||
								  p[used] == '\t') &&
		    ma <= 0xfff && mi <= 0xfffff) {
			d = KDEV_MKDEV(ma, mi);
			for (k = 0; k < *n && devs[k] != d; k++)
				;
			if (k == *n)
				devs[(*n)++] = d;
		}
		p += strcspn(p, " \t");
	}
}
