// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topo-record.c - a device stack recorded as text (see topo-record.h).
 *
 * Devices name their slaves, holders and parent by kernel name, so a file
 * is read in two passes: every "blk" line first, then the names resolved
 * to device numbers.
 */
#include <errno.h>
#include <libmount.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "base/event.h"
#include "base/util.h"
#include "track/topo-record.h"
#include "track/topo-sysfs.h"
#include "track/tracker.h"

/* What a "blk" line names by kernel name, resolved once all are read. */
struct pending_links {
	char parent[64];
	char *slaves;
	char *holders;
	char *slots;
};

static int cmp_dev(const void *a, const void *b)
{
	const struct topo_dev_info *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

const struct topo_dev_info *topo_record_find(const struct topo_record *r, uint32_t dev)
{
	struct topo_dev_info key = { .dev = dev };

	if (!r || !r->n)
		return NULL;
	return bsearch(&key, r->devs, r->n, sizeof(*r->devs), cmp_dev);
}

const char *topo_record_name(uint32_t dev, char *buf, size_t len, void *ctx)
{
	const struct topo_dev_info *d = topo_record_find(ctx, dev);

	if (!d || !d->name[0])
		return NULL;
	snprintf(buf, len, "%s", d->name);
	return buf;
}

const char *topo_record_label(uint32_t dev, char *buf, size_t len, void *ctx)
{
	const struct topo_dev_info *d = topo_record_find(ctx, dev);
	const char *name, *what;

	if (!d || !d->name[0])
		return NULL;
	name = d->kind == TOPO_DM && d->dm_name[0] ? d->dm_name : d->name;
	what = d->kind == TOPO_DM ? d->target : d->kind == TOPO_MD ? d->md_level : "";
	if (what[0])
		snprintf(buf, len, "%s(%s)", name, what);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

int topo_record_from_sysfs(const char *root, const uint32_t *devs, size_t n,
			   struct topo_record *out)
{
	memset(out, 0, sizeof(*out));
	out->devs = calloc(n ? n : 1, sizeof(*out->devs));
	if (!out->devs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int ret = topo_dev_info(root, devs[i], &out->devs[out->n]);

		if (ret == -ENOENT)
			continue;	/* gone since it was traced */
		if (ret) {
			topo_record_free(out);
			return ret;
		}
		out->n++;
	}
	qsort(out->devs, out->n, sizeof(*out->devs), cmp_dev);
	return 0;
}

unsigned int topo_roles_of(const struct topo_dev_info *d)
{
	unsigned int roles = 0;

	if (d->nholders)
		roles |= TK_ROLE_LOWER;
	if (d->nslaves)
		roles |= TK_ROLE_UPPER;
	if (d->kind == TOPO_PARTITION)
		roles |= TK_ROLE_REMAP_ONLY;
	if (d->kind == TOPO_MD && (!strcmp(d->md_level, "raid4") || !strcmp(d->md_level, "raid5") ||
				   !strcmp(d->md_level, "raid6")))
		roles |= TK_ROLE_PARITY;
	/* dm targets that complete I/O with nothing sent down, by design */
	if (!strcmp(d->target, "zero") || !strcmp(d->target, "error"))
		roles |= TK_ROLE_COMPLETES;
	if (!strcmp(d->target, "thin") || !strcmp(d->target, "thin-pool"))
		roles |= TK_ROLE_THIN;
	return roles;
}

void topo_mark_tracker(const struct topo_dev_info *d, struct tracker *t)
{
	unsigned int roles = topo_roles_of(d);

	tracker_set_role(t, d->dev, roles);
	for (size_t j = 0; j < d->nslaves; j++)
		tracker_set_edge(t, d->dev, d->slaves[j]);
	/* raid5 and raid4 keep one parity block a stripe; raid6 two */
	if ((roles & TK_ROLE_PARITY) && d->md_chunk && d->md_disks > 2)
		tracker_set_stripe(t, d->dev, d->md_chunk,
				   d->md_disks - (!strcmp(d->md_level, "raid6") ? 2 : 1));
}

void topo_record_mark_roles(const struct topo_record *r, struct tracker *t)
{
	for (size_t i = 0; i < r->n; i++)
		topo_mark_tracker(&r->devs[i], t);
}

int topo_record_load_said(const char *path, struct topo_record *out)
{
	unsigned int line;
	int ret = topo_record_load(path, out, &line);

	if (ret == -EINVAL && line)
		err_msg("'%s' line %u is not a device of a topology file: its dev= is not MAJ:MIN, "
			"or it has no name=", path, line);
	else if (ret == -EINVAL)
		err_msg("'%s' names a device (slaves=, holders=, parent= or slots=) that no line "
			"describes", path);
	else if (ret == -ENODATA)
		err_msg("'%s' describes no device: it is not a topology file", path);
	else if (ret)
		err_msg("cannot read '%s': %s", path, strerror(-ret));
	if (ret == -EINVAL || ret == -ENODATA)
		hint_msg("a topology file is text, one line per device: 'blk name=NAME dev=MAJ:MIN "
			 "size=SECTORS partition=0|1 start=SECTOR parent=DISK holders=A,B slaves=C,D "
			 "...' ('-' for none); 'blkstack topology -o FILE' writes one on the traced "
			 "machine; see blkstack-topology(8)");
	return ret ? -1 : 0;
}

void topo_record_free(struct topo_record *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		topo_dev_info_free(&r->devs[i]);
	free(r->devs);
	for (size_t i = 0; i < r->nmounts; i++)
		free(r->mounts[i].dir);
	free(r->mounts);
	r->devs = NULL;
	r->n = 0;
	r->mounts = NULL;
	r->nmounts = 0;
}

/* A device's name: its kernel name, its dm name, either under /dev (or /dev/mapper) */
static const struct topo_dev_info *by_name(const struct topo_record *r, const char *arg)
{
	const char *name = arg;

	if (!strncmp(name, "/dev/mapper/", 12))
		name += 12;
	else if (!strncmp(name, "/dev/", 5))
		name += 5;
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->devs[i].name, name) ||
		    (r->devs[i].dm_name[0] && !strcmp(r->devs[i].dm_name, name)))
			return &r->devs[i];
	return NULL;
}

int topo_record_resolve(const struct topo_record *r, const char *arg, uint32_t *dev)
{
	const struct topo_dev_info *d;
	const struct topo_mount *best = NULL;
	unsigned int ma, mi;
	char extra;

	if (sscanf(arg, "%u:%u%c", &ma, &mi, &extra) == 2 && ma <= 0xfff && mi <= 0xfffff) {
		*dev = KDEV_MKDEV(ma, mi);
		return 0;
	}
	d = by_name(r, arg);
	if (d) {
		*dev = d->dev;
		return 0;
	}
	/* a directory: the mount it is in, the longest that holds it */
	for (size_t i = 0; arg[0] == '/' && i < r->nmounts; i++) {
		const struct topo_mount *m = &r->mounts[i];
		size_t len = strlen(m->dir);

		if (!strcmp(m->dir, "/") || (!strncmp(arg, m->dir, len) &&
					      (arg[len] == '\0' || arg[len] == '/')))
			if (!best || strlen(best->dir) < len)
				best = m;
	}
	if (!best)
		return -ENOENT;
	*dev = best->dev;
	return 0;
}

/* "value" of "key=value" in a line of space-separated fields, copied */
static bool field(const char *line, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);

	for (const char *p = line; (p = strstr(p, key)); p += klen) {
		size_t n;

		if ((p != line && p[-1] != ' ' && p[-1] != '\t') || p[klen] != '=')
			continue;
		p += klen + 1;
		n = strcspn(p, " \t\r\n");
		if (n >= len)
			n = len - 1;
		memcpy(buf, p, n);
		buf[n] = '\0';
		/* "-": recorded as absent */
		if (!strcmp(buf, "-"))
			buf[0] = '\0';
		return true;
	}
	buf[0] = '\0';
	return false;
}

static bool parse_dev(const char *s, uint32_t *dev)
{
	unsigned int ma, mi;
	char extra;

	if (sscanf(s, "%u:%u%c", &ma, &mi, &extra) != 2 || ma > 0xfff || mi > 0xfffff)
		return false;
	*dev = KDEV_MKDEV(ma, mi);
	return true;
}

static enum topo_kind kind_of(const struct topo_dev_info *d, bool partition)
{
	if (partition)
		return TOPO_PARTITION;
	if (d->dm_name[0] || !strncmp(d->name, "dm-", 3))
		return TOPO_DM;
	if (!strncmp(d->name, "loop", 4) || KDEV_MAJOR(d->dev) == 7)
		return TOPO_LOOP;
	if (!strncmp(d->name, "zram", 4))
		return TOPO_ZRAM;
	if (d->md_level[0] || !strncmp(d->name, "md", 2))
		return TOPO_MD;
	return TOPO_DISK;
}

static int parse_blk(const char *line, struct topo_dev_info *d, struct pending_links *pl)
{
	char v[4096];

	memset(d, 0, sizeof(*d));
	memset(pl, 0, sizeof(*pl));
	if (!field(line, "dev", v, sizeof(v)) || !parse_dev(v, &d->dev))
		return -EINVAL;
	if (!field(line, "name", d->name, sizeof(d->name)) || !d->name[0])
		return -EINVAL;
	field(line, "dm_name", d->dm_name, sizeof(d->dm_name));
	field(line, "dm_uuid", d->dm_uuid, sizeof(d->dm_uuid));
	field(line, "target", d->target, sizeof(d->target));
	field(line, "backing", d->backing, sizeof(d->backing));
	field(line, "md_level", d->md_level, sizeof(d->md_level));
	if (field(line, "md_chunk", v, sizeof(v)))
		d->md_chunk = strtoul(v, NULL, 10);
	if (field(line, "md_disks", v, sizeof(v)))
		d->md_disks = strtoul(v, NULL, 10);
	field(line, "scheduler", d->scheduler, sizeof(d->scheduler));
	if (field(line, "size", v, sizeof(v)))
		d->size_sectors = strtoull(v, NULL, 10);
	if (field(line, "start", v, sizeof(v)))
		d->part_start = strtoull(v, NULL, 10);
	field(line, "parent", pl->parent, sizeof(pl->parent));
	field(line, "slaves", v, sizeof(v));
	pl->slaves = strdup(v);
	field(line, "holders", v, sizeof(v));
	pl->holders = strdup(v);
	field(line, "slots", v, sizeof(v));
	pl->slots = strdup(v);
	if (!pl->slaves || !pl->holders || !pl->slots)
		return -ENOMEM;
	field(line, "partition", v, sizeof(v));
	d->kind = kind_of(d, v[0] && strcmp(v, "0"));
	return 0;
}

/*
 * An "md NAME level=raid5 chunk_size=BYTES raid_disks=N ..." line (the
 * tests/vm guest's topology): the geometry of array NAME.
 */
static void parse_md(struct topo_record *r, const char *line)
{
	char name[64], v[32];

	if (sscanf(line, "md %63s", name) != 1)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct topo_dev_info *d = &r->devs[i];

		if (strcmp(d->name, name))
			continue;
		if (!d->md_chunk && field(line, "chunk_size", v, sizeof(v)))
			d->md_chunk = strtoul(v, NULL, 10) / 512;
		if (!d->md_disks && field(line, "raid_disks", v, sizeof(v)))
			d->md_disks = strtoul(v, NULL, 10);
	}
}

/* @dev among the devices read so far (not sorted yet) */
static const struct topo_dev_info *topo_record_find_unsorted(const struct topo_record *r,
							     uint32_t dev)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->devs[i].dev == dev)
			return &r->devs[i];
	return NULL;
}

/* The most devices a table line names that are kept as slots. */
#define TABLE_MAX_SLOTS 64

/*
 * A "table NAME: start len TARGET ARGS..." line: the target type of dm
 * NAME, and, when its blk line gave no slots=, the recorded devices its
 * arguments name, in order, as its slots (a table of several targets has
 * a line per target: theirs follow). -ENOMEM, else 0.
 */
static int parse_table(struct topo_record *r, const char *line, const bool *had_slots)
{
	char name[128], target[32];
	int args = 0;

	if (sscanf(line, "table %127[^:]: %*s %*s %31s %n", name, target, &args) != 2)
		return 0;
	for (size_t i = 0; i < r->n; i++) {
		struct topo_dev_info *d = &r->devs[i];
		uint32_t devs[TABLE_MAX_SLOTS];
		size_t n = 0, k = 0;

		if (strcmp(d->dm_name, name))
			continue;
		if (!d->target[0])
			snprintf(d->target, sizeof(d->target), "%s", target);
		else if (strcmp(d->target, target))
			snprintf(d->target, sizeof(d->target), "mixed");
		if (had_slots[i] || !args)
			continue;
		for (k = 0; k < d->nslots && n < TABLE_MAX_SLOTS; k++)
			devs[n++] = d->slots[k];
		topo_table_devices(line + args, devs, TABLE_MAX_SLOTS, &n);
		/* only the devices the stack describes: not a device of the host */
		for (size_t j = k = 0; j < n; j++)
			if (topo_record_find_unsorted(r, devs[j]))
				devs[k++] = devs[j];
		if (k > d->nslots) {
			uint32_t *m = realloc(d->slots, k * sizeof(*m));

			if (!m)
				return -ENOMEM;
			memcpy(m, devs, k * sizeof(*m));
			d->slots = m;
			d->nslots = k;
		}
	}
	return 0;
}

/* "\040" and the like, as /proc/mounts and the writer escape blanks, back to the byte */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/* A "mount SRC DIR ..." line, SRC a recorded device: -ENOMEM, else 0. */
static int parse_mount(struct topo_record *r, const char *line)
{
	char src[256], dir[4096];
	const struct topo_dev_info *d;
	struct topo_mount *m;

	if (sscanf(line, "mount %255s %4095s", src, dir) != 2 || dir[0] != '/')
		return 0;
	unescape_octal(dir);
	d = by_name(r, src);
	if (!d)
		return 0;	/* not on the stack: a mount of the host */
	m = realloc(r->mounts, (r->nmounts + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	r->mounts = m;
	m[r->nmounts].dev = d->dev;
	m[r->nmounts].dir = strdup(dir);
	if (!m[r->nmounts].dir)
		return -ENOMEM;
	r->nmounts++;
	return 0;
}

static uint32_t dev_by_name(const struct topo_record *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->devs[i].name, name))
			return r->devs[i].dev;
	return 0;
}

/*
 * "a,b,c" -> device numbers, ascending (@sorted) or in the order given;
 * -EINVAL when one is not described
 */
static int resolve_list(const struct topo_record *r, const char *names, bool sorted,
			uint32_t **out, size_t *n)
{
	char *copy, *tok, *save = NULL;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (!names || !names[0])
		return 0;
	copy = strdup(names);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t dev = dev_by_name(r, tok);

		if (!dev) {
			free(copy);
			return -EINVAL;
		}
		if (*n == cap) {
			uint32_t *m = realloc(*out, (cap = cap ? cap * 2 : 4) * sizeof(**out));

			if (!m) {
				free(copy);
				return -ENOMEM;
			}
			*out = m;
		}
		(*out)[(*n)++] = dev;
	}
	free(copy);
	for (size_t i = 1; sorted && i < *n; i++)	/* a handful: insertion sort */
		for (size_t j = i; j && (*out)[j - 1] > (*out)[j]; j--) {
			uint32_t t = (*out)[j];

			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = t;
		}
	return 0;
}

/* the next line of @text (NUL-terminated copy into @buf), false at the end */
static bool next_line(const char **text, const char *end, char *buf, size_t len)
{
	const char *p = *text, *nl;
	size_t n;

	if (p >= end)
		return false;
	nl = memchr(p, '\n', end - p);
	n = (nl ? nl : end) - p;
	*text = nl ? nl + 1 : end;
	if (n >= len)
		n = len - 1;	/* longer than any field set: cut, still parsed */
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

int topo_record_parse(const char *text, size_t len, struct topo_record *out, unsigned int *line)
{
	struct pending_links *links = NULL;
	const char *end = text + len, *p;
	bool *had_slots;
	char buf[8192];
	size_t cap = 0;
	unsigned int no = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	*line = 0;
	for (p = text; !ret && next_line(&p, end, buf, sizeof(buf));) {
		no++;
		if (strncmp(buf, "blk ", 4))
			continue;
		if (out->n == cap) {
			size_t c = cap ? cap * 2 : 16;
			struct topo_dev_info *d = realloc(out->devs, c * sizeof(*d));
			struct pending_links *pl = d ? realloc(links, c * sizeof(*pl)) : NULL;

			if (d)
				out->devs = d;
			if (!pl) {
				ret = -ENOMEM;
				break;
			}
			links = pl;
			cap = c;
		}
		ret = parse_blk(buf, &out->devs[out->n], &links[out->n]);
		out->n++;
		if (ret)
			*line = no;
	}
	/* the table lines, once every device is known (slots= first, if given) */
	had_slots = calloc(out->n ? out->n : 1, sizeof(*had_slots));
	if (!had_slots && !ret)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < out->n; i++)
		had_slots[i] = links[i].slots && links[i].slots[0];
	for (p = text; !ret && next_line(&p, end, buf, sizeof(buf));)
		if (!strncmp(buf, "table ", 6))
			ret = parse_table(out, buf, had_slots);
		else if (!strncmp(buf, "md ", 3))
			parse_md(out, buf);
	free(had_slots);
	for (size_t i = 0; !ret && i < out->n; i++) {
		struct topo_dev_info *d = &out->devs[i];

		ret = resolve_list(out, links[i].slaves, true, &d->slaves, &d->nslaves);
		if (!ret)
			ret = resolve_list(out, links[i].holders, true, &d->holders, &d->nholders);
		if (!ret && links[i].slots[0])
			ret = resolve_list(out, links[i].slots, false, &d->slots, &d->nslots);
		if (!ret && links[i].parent[0] && !(d->parent = dev_by_name(out, links[i].parent)))
			ret = -EINVAL;
	}
	for (size_t i = 0; i < out->n; i++) {
		free(links[i].slaves);
		free(links[i].holders);
		free(links[i].slots);
	}
	free(links);
	/* the mount lines: "mount SRC DIR ...", SRC one of the stack's devices */
	for (p = text; !ret && next_line(&p, end, buf, sizeof(buf));)
		if (!strncmp(buf, "mount ", 6))
			ret = parse_mount(out, buf);
	if (!ret && !out->n)
		ret = -ENODATA;
	if (ret) {
		topo_record_free(out);
		return ret;
	}
	qsort(out->devs, out->n, sizeof(*out->devs), cmp_dev);
	return 0;
}

int topo_record_load(const char *path, struct topo_record *out, unsigned int *line)
{
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f;
	int ret;

	memset(out, 0, sizeof(*out));
	*line = 0;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	do {
		if (len == cap) {
			char *t = realloc(text, cap = cap ? cap * 2 : 65536);

			if (!t) {
				free(text);
				fclose(f);
				return -ENOMEM;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	ret = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!ret)
		ret = topo_record_parse(text, len, out, line);
	free(text);
	return ret;
}

/* a list of device numbers as kernel names "a,b" ("-" when empty) */
static void put_names(FILE *fp, const char *root, const uint32_t *devs, size_t n)
{
	char name[64];

	if (!n) {
		fputc('-', fp);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (topo_dev_name(root, devs[i], name, sizeof(name)))
			snprintf(name, sizeof(name), "%u:%u", KDEV_MAJOR(devs[i]), KDEV_MINOR(devs[i]));
		fprintf(fp, "%s%s", i ? "," : "", name);
	}
}

/* a free-form value as one field: blanks would end it */
static void put_value(FILE *fp, const char *key, const char *v)
{
	fprintf(fp, " %s=", key);
	if (!v[0]) {
		fputc('-', fp);
		return;
	}
	for (; *v; v++)
		fputc(*v == ' ' || *v == '\t' || *v == '\n' ? '_' : *v, fp);
}

/*
 * "mount /dev/NAME DIR FSTYPE" for each filesystem mounted on one of @devs
 * (mountinfo under @root), so that a reader names a device by the
 * directory it held, as live commands do. Mountinfo that cannot be read
 * leaves the lines out: the stack is still one.
 */
static void put_mounts(FILE *fp, const char *root, const uint32_t *devs, size_t n)
{
	struct libmnt_table *tb = mnt_new_table();
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *fs;
	char mi[PATH_MAX], name[64];

	if (!tb || !it || sysfs_path(mi, sizeof(mi), sysfs_root(root), "/proc/self/mountinfo") ||
	    mnt_table_parse_file(tb, mi))
		goto out;
	while (mnt_table_next_fs(tb, it, &fs) == 0) {
		dev_t devno = mnt_fs_get_devno(fs);
		uint32_t d = KDEV_MKDEV(major(devno), minor(devno));
		const char *dir = mnt_fs_get_target(fs), *type = mnt_fs_get_fstype(fs);
		bool ours = false;

		for (size_t i = 0; i < n && !ours; i++)
			ours = devs[i] == d;
		if (!ours || !dir || topo_dev_name(root, d, name, sizeof(name)))
			continue;
		fprintf(fp, "mount /dev/%s ", name);
		/* blanks would end the field: as /proc/mounts writes them */
		for (const char *c = dir; *c; c++)
			if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\\')
				fprintf(fp, "\\%03o", (unsigned char)*c);
			else
				fputc(*c, fp);
		fprintf(fp, " %s\n", type ? type : "-");
	}
out:
	mnt_free_iter(it);
	mnt_unref_table(tb);
}

int topo_record_write(FILE *fp, const char *root, const uint32_t *devs, size_t n)
{
	fprintf(fp, "# blkstack topology v1\n");
	for (size_t i = 0; i < n; i++) {
		struct topo_dev_info d;
		char parent[64] = "-";
		int ret = topo_dev_info(root, devs[i], &d);

		if (ret == -ENOENT)
			continue;	/* gone since it was selected */
		if (ret)
			return ret;
		if (d.parent && topo_dev_name(root, d.parent, parent, sizeof(parent)))
			snprintf(parent, sizeof(parent), "-");
		fprintf(fp, "blk name=%s dev=%u:%u size=%llu partition=%d", d.name,
			KDEV_MAJOR(d.dev), KDEV_MINOR(d.dev), (unsigned long long)d.size_sectors,
			d.kind == TOPO_PARTITION);
		if (d.kind == TOPO_PARTITION)
			fprintf(fp, " start=%llu parent=%s", (unsigned long long)d.part_start, parent);
		else
			fprintf(fp, " start=- parent=-");
		fprintf(fp, " holders=");
		put_names(fp, root, d.holders, d.nholders);
		fprintf(fp, " slaves=");
		put_names(fp, root, d.slaves, d.nslaves);
		/* the place each lower device fills, by the dm table's order */
		if (d.nslots) {
			fprintf(fp, " slots=");
			put_names(fp, root, d.slots, d.nslots);
		}
		put_value(fp, "dm_name", d.dm_name);
		put_value(fp, "dm_uuid", d.dm_uuid);
		put_value(fp, "target", d.target);
		put_value(fp, "backing", d.backing);
		put_value(fp, "md_level", d.md_level);
		if (d.md_chunk && d.md_disks)
			fprintf(fp, " md_chunk=%u md_disks=%u", d.md_chunk, d.md_disks);
		put_value(fp, "scheduler", d.scheduler);
		fputc('\n', fp);
		topo_dev_info_free(&d);
	}
	put_mounts(fp, root, devs, n);
	return fflush(fp) || ferror(fp) ? -EIO : 0;
}
