/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topo-record.h - a device stack recorded as text, for reading a trace on
 * another machine (or after the stack is gone).
 *
 * The format is line based; blank lines, "#" comments and lines of other
 * keywords are skipped, so that it can carry notes:
 *
 *   blk name=dm-0 dev=253:0 size=196608 partition=0 start=- parent=-
 *       holders=dm-1 slaves=vda1,vdb1 dm_name=bsk-stripe dm_uuid=- scheduler=none
 *       (one line; fields in any order, "-" for none; unknown fields ignored)
 *   table bsk-stripe: 0 196608 striped 2 64 254:1 0 254:17 0
 *       (a dm table line, as `dmsetup table` prints it after "NAME:";
 *        its target type gives the device's kind)
 *
 * tests/vm's guest writes this for each stack it builds
 * (tests/fixtures/vm/ *.topo); topo_record_write() writes it for this
 * machine's devices.
 */
#ifndef BLKSTACK_TOPO_RECORD_H
#define BLKSTACK_TOPO_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "track/topo.h"

struct tracker;

/**
 * struct topo_mount - a filesystem mounted on a recorded device
 * @dev: the device
 * @dir: where it was mounted
 */
struct topo_mount {
	uint32_t dev;
	char *dir;
};

/**
 * struct topo_record - the devices of a recorded stack
 * @devs: their descriptions, in dev_t order
 * @n: how many
 * @mounts: the filesystems mounted on them ("mount SRC DIR ..." lines),
 *	    @nmounts of them
 */
struct topo_record {
	struct topo_dev_info *devs;
	size_t n;
	struct topo_mount *mounts;
	size_t nmounts;
};

/**
 * topo_record_load - read a recorded stack
 * @path: the file
 * @out: filled on success; release with topo_record_free()
 * @line: on a parse error, the number of the bad line (0 otherwise)
 * Returns 0; -errno when the file cannot be read; -EINVAL when a "blk" line
 * has no valid dev= or name=, or names a slave or holder no line
 * describes; -ENODATA when the file describes no device.
 */
int topo_record_load(const char *path, struct topo_record *out, unsigned int *line);

/**
 * topo_record_load_said - topo_record_load() for a command's --topology:
 * what went wrong is said, naming @path and the bad line
 * Returns 0, or -1 after saying it.
 */
int topo_record_load_said(const char *path, struct topo_record *out);

/**
 * topo_record_parse - topo_record_load() of @len bytes of text (the lines
 * of a recording's markers, for instance)
 */
int topo_record_parse(const char *text, size_t len, struct topo_record *out, unsigned int *line);

/** topo_record_free - release; a zeroed record is accepted */
void topo_record_free(struct topo_record *r);

/**
 * topo_record_resolve - what a user names as a device, in a recorded stack
 * rather than this machine's: MAJ:MIN, a kernel name (dm-0), a dm name,
 * /dev/NAME, /dev/mapper/NAME, or a directory a filesystem of the stack
 * was mounted on (a "mount" line; a path below it names it too)
 * @r: the stack
 * @arg: the name
 * @dev: set to the device
 * Returns 0, or -ENOENT when @r has no such device (a MAJ:MIN not
 * described is taken as it is: 0).
 */
int topo_record_resolve(const struct topo_record *r, const char *arg, uint32_t *dev);

/** topo_record_find - the description of @dev, or NULL */
const struct topo_dev_info *topo_record_find(const struct topo_record *r, uint32_t dev);

/**
 * topo_record_name - the recorded kernel name of @dev into @buf (a
 * report_name_fn: @ctx is the struct topo_record); NULL when not recorded
 */
const char *topo_record_name(uint32_t dev, char *buf, size_t len, void *ctx);

/**
 * topo_record_label - @dev as every output names a layer (a report_name_fn:
 * @ctx is the struct topo_record): a dm device by its dm name with its
 * target type, "bsk-crypt(crypt)", an md device by its name with its
 * level, "md0(raid5)", any other by its kernel name; NULL when not
 * recorded (the outputs write MAJ:MIN then)
 */
const char *topo_record_label(uint32_t dev, char *buf, size_t len, void *ctx);

/**
 * topo_record_from_sysfs - describe devices of this machine as a recorded
 * stack, for naming a live report's layers as a recording's are named
 * @root: as for topo_resolve() ("" for this machine)
 * @devs: the devices, @n of them (a device gone since is left out)
 * @out: filled; release with topo_record_free()
 * Returns 0, -ENOMEM, or a negative errno from sysfs.
 */
int topo_record_from_sysfs(const char *root, const uint32_t *devs, size_t n,
			   struct topo_record *out);

/**
 * topo_roles_of - what a device is in its stack, as the tracker's enum
 * tk_role: holders make it lower (I/O rooted there is its holder's own:
 * dm-thin's metadata, md's superblock), slaves upper, a partition only
 * remaps, an md raid4/5/6 issues stripe I/O of its own
 */
unsigned int topo_roles_of(const struct topo_dev_info *d);

/**
 * topo_record_mark_roles - tell @t the role of every device of @r, and
 * which devices each sends its I/O to, as live tracing does from sysfs
 * (live_mark_roles)
 */
void topo_record_mark_roles(const struct topo_record *r, struct tracker *t);

/**
 * topo_record_write - describe devices of this machine in the format above
 * @fp: where to write
 * @root: as for topo_resolve() ("" for this machine)
 * @devs: the devices (a topo_stack_expand() selection)
 * @n: how many
 * Returns 0, -EIO when writing failed, or a negative errno from sysfs.
 */
int topo_record_write(FILE *fp, const char *root, const uint32_t *devs, size_t n);

#endif /* BLKSTACK_TOPO_RECORD_H */
