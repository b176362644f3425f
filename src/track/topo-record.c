// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topo-record.c - a device stack recorded as text (see topo-record.h).
 *
 * Devices name their slaves, holders and parent by kernel name, so a file
 * is read in two passes: every "blk" line first, then the names resolved
 * to device numbers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/event.h"
#include "base/util.h"
#include "track/topo-record.h"
#include "track/tracker.h"

/* What a "blk" line names by kernel name, resolved once all are read. */
struct pending_links {
	char parent[64];
	char *slaves;
	char *holders;
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

void topo_record_mark_roles(const struct topo_record *r, struct tracker *t)
{
	for (size_t i = 0; i < r->n; i++) {
		tracker_set_role(t, r->devs[i].dev, topo_roles_of(&r->devs[i]));
		for (size_t j = 0; j < r->devs[i].nslaves; j++)
			tracker_set_edge(t, r->devs[i].dev, r->devs[i].slaves[j]);
	}
}

int topo_record_load_said(const char *path, struct topo_record *out)
{
	unsigned int line;
	int ret = topo_record_load(path, out, &line);

	if (ret == -EINVAL)
		err_msg("'%s' line %u: not a device of a recorded stack (blkstack topology "
			"writes them)", path, line);
	else if (ret == -ENODATA)
		err_msg("'%s' describes no device (blkstack topology writes them)", path);
	else if (ret)
		err_msg("cannot read '%s': %s", path, strerror(-ret));
	return ret ? -1 : 0;
}

void topo_record_free(struct topo_record *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		topo_dev_info_free(&r->devs[i]);
	free(r->devs);
	r->devs = NULL;
	r->n = 0;
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
	if (!pl->slaves || !pl->holders)
		return -ENOMEM;
	field(line, "partition", v, sizeof(v));
	d->kind = kind_of(d, v[0] && strcmp(v, "0"));
	return 0;
}

/* A "table NAME: start len TARGET ..." line: the target type of dm NAME. */
static void parse_table(struct topo_record *r, const char *line)
{
	char name[128], target[32];

	if (sscanf(line, "table %127[^:]: %*s %*s %31s", name, target) != 2)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct topo_dev_info *d = &r->devs[i];

		if (strcmp(d->dm_name, name))
			continue;
		if (!d->target[0])
			snprintf(d->target, sizeof(d->target), "%s", target);
		else if (strcmp(d->target, target))
			snprintf(d->target, sizeof(d->target), "mixed");
	}
}

static uint32_t dev_by_name(const struct topo_record *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->devs[i].name, name))
			return r->devs[i].dev;
	return 0;
}

/* "a,b,c" -> device numbers, ascending; -EINVAL when one is not described */
static int resolve_list(const struct topo_record *r, const char *names, uint32_t **out,
			size_t *n)
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
	for (size_t i = 1; i < *n; i++)	/* a handful: insertion sort */
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
	/* the table lines, once every device is known */
	for (p = text; !ret && next_line(&p, end, buf, sizeof(buf));)
		if (!strncmp(buf, "table ", 6))
			parse_table(out, buf);
	for (size_t i = 0; !ret && i < out->n; i++) {
		struct topo_dev_info *d = &out->devs[i];

		ret = resolve_list(out, links[i].slaves, &d->slaves, &d->nslaves);
		if (!ret)
			ret = resolve_list(out, links[i].holders, &d->holders, &d->nholders);
		if (!ret && links[i].parent[0] && !(d->parent = dev_by_name(out, links[i].parent)))
			ret = -EINVAL;
	}
	for (size_t i = 0; i < out->n; i++) {
		free(links[i].slaves);
		free(links[i].holders);
	}
	free(links);
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
		put_value(fp, "dm_name", d.dm_name);
		put_value(fp, "dm_uuid", d.dm_uuid);
		put_value(fp, "target", d.target);
		put_value(fp, "backing", d.backing);
		put_value(fp, "md_level", d.md_level);
		put_value(fp, "scheduler", d.scheduler);
		fputc('\n', fp);
		topo_dev_info_free(&d);
	}
	return fflush(fp) || ferror(fp) ? -EIO : 0;
}
