// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tree.c - the device stack as a tree (libsmartcols, as lsblk -s).
 *
 * Every device of the set is described once (topo_dev_info()), then the
 * trees are drawn from the descriptions: the tops of the set first, each
 * device's lower devices (slaves, a partition's disk) below it. The
 * descriptions make the tree and the tops one consistent snapshot of
 * sysfs, even if it changes while we read it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libsmartcols/libsmartcols.h>

#include "base/event.h"
#include "output/tree.h"
#include "track/topo-record.h"
#include "track/topo.h"

enum {
	COL_NAME,
	COL_MAJMIN,
	COL_KIND,
	COL_SIZE,
	COL_SCHED,
	COL_DETAIL,
	COL_MAX
};

/**
 * struct tree - the set being drawn
 * @info: one description per device, in ascending dev_t
 * @known: whether sysfs knew the device (else only @info.dev is set)
 * @below: whether some member has it as a lower device
 * @path: the devices on the way from the current top, against cycles
 * @n: how many devices
 * @flags: enum out_tree_flags
 */
struct tree {
	struct topo_dev_info *info;
	bool *known;
	bool *below;
	size_t *path;
	size_t n;
	int flags;
};

/* cmp_u32 - qsort order of dev_t values */
static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* tree_find - the index of @dev in the set, or t->n */
static size_t tree_find(const struct tree *t, uint32_t dev)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->info[mid].dev == dev)
			return mid;
		if (t->info[mid].dev < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return t->n;
}

/* tree_free - release the descriptions; accepts a half-built tree */
static void tree_free(struct tree *t)
{
	size_t i;

	if (t->info)
		for (i = 0; i < t->n; i++)
			topo_dev_info_free(&t->info[i]);
	free(t->info);
	free(t->known);
	free(t->below);
	free(t->path);
}

/* recorded_info - a copy of the recorded description of @dev (-ENOENT: none) */
static int recorded_info(const struct topo_record *rec, uint32_t dev, struct topo_dev_info *out)
{
	const struct topo_dev_info *d = topo_record_find(rec, dev);

	if (!d)
		return -ENOENT;
	*out = *d;
	/* the tree owns its copy: the lists are copied, the slots not needed */
	out->slots = NULL;
	out->nslots = 0;
	out->slaves = out->holders = NULL;
	out->nslaves = out->nholders = 0;
	if (d->nslaves && !(out->slaves = malloc(d->nslaves * sizeof(*d->slaves))))
		return -ENOMEM;
	if (d->nholders && !(out->holders = malloc(d->nholders * sizeof(*d->holders)))) {
		topo_dev_info_free(out);
		return -ENOMEM;
	}
	if (d->nslaves)
		memcpy(out->slaves, d->slaves, d->nslaves * sizeof(*d->slaves));
	if (d->nholders)
		memcpy(out->holders, d->holders, d->nholders * sizeof(*d->holders));
	out->nslaves = d->nslaves;
	out->nholders = d->nholders;
	return 0;
}

/*
 * tree_load - describe every device of @devs (from sysfs under @root, or
 * from @rec when set) and mark the lower ones
 *
 * The descriptions are made in dev_t order, duplicates dropped, so that a
 * device's index is found by binary search.
 */
static int tree_load(struct tree *t, const char *root, const struct topo_record *rec,
		     const uint32_t *devs, size_t n)
{
	uint32_t *sorted;
	size_t i, j, m;
	int ret;

	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	if (n)
		memcpy(sorted, devs, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	for (i = 0, m = 0; i < n; i++)
		if (!m || sorted[m - 1] != sorted[i])
			sorted[m++] = sorted[i];

	t->info = calloc(m ? m : 1, sizeof(*t->info));
	t->known = calloc(m ? m : 1, sizeof(*t->known));
	t->below = calloc(m ? m : 1, sizeof(*t->below));
	t->path = calloc(m ? m : 1, sizeof(*t->path));
	if (!t->info || !t->known || !t->below || !t->path) {
		free(sorted);
		return -ENOMEM;
	}
	for (t->n = 0; t->n < m; t->n++) {
		struct topo_dev_info *d = &t->info[t->n];

		ret = rec ? recorded_info(rec, sorted[t->n], d) : topo_dev_info(root, sorted[t->n], d);
		if (ret == -ENOENT) {
			memset(d, 0, sizeof(*d));
			d->dev = sorted[t->n];
			continue;
		}
		if (ret) {
			free(sorted);
			return ret;
		}
		t->known[t->n] = true;
	}
	free(sorted);

	/* the same rule as topo_stack_tops(), on this snapshot */
	for (i = 0; i < t->n; i++) {
		const struct topo_dev_info *d = &t->info[i];

		for (j = 0; j < d->nslaves; j++) {
			m = tree_find(t, d->slaves[j]);
			if (m < t->n)
				t->below[m] = true;
		}
		if (d->kind == TOPO_PARTITION && d->parent) {
			m = tree_find(t, d->parent);
			if (m < t->n)
				t->below[m] = true;
		}
	}
	return 0;
}

/* size_human - bytes as lsblk prints them: "10G", "4.5M", "512B" */
static void size_human(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	unsigned int exp = 0, tenths = 0;
	uint64_t whole = bytes, frac = 0;

	while (exp < sizeof(units) - 2 && bytes >= (1ULL << (10 * (exp + 1))))
		exp++;
	if (exp) {
		whole = bytes >> (10 * exp);
		frac = bytes & ((1ULL << (10 * exp)) - 1);
		/* one decimal, rounded; frac * 10 cannot overflow: frac < 2^60 */
		tenths = (unsigned int)((frac * 10 + (1ULL << (10 * exp - 1))) >> (10 * exp));
		if (tenths == 10) {
			whole++;
			tenths = 0;
		}
	}
	if (tenths)
		snprintf(buf, len, "%" PRIu64 ".%u%c", whole, tenths, units[exp]);
	else
		snprintf(buf, len, "%" PRIu64 "%c", whole, units[exp]);
}

/* kind_text - the KIND column: a dm target type or md level where known */
static const char *kind_text(const struct topo_dev_info *d)
{
	if (d->kind == TOPO_DM && d->target[0])
		return d->target;
	if (d->kind == TOPO_MD && d->md_level[0])
		return d->md_level;
	return topo_kind_name(d->kind);
}

/* line_fill - the columns of one device */
static int line_fill(const struct tree *t, size_t i, struct libscols_line *ln)
{
	const struct topo_dev_info *d = &t->info[i];
	const char *detail = "";
	char buf[64];
	int ret;

	snprintf(buf, sizeof(buf), "%u:%u", KDEV_MAJOR(d->dev), KDEV_MINOR(d->dev));
	ret = scols_line_set_data(ln, COL_MAJMIN, buf);
	if (ret || !t->known[i])
		return ret ? ret : scols_line_set_data(ln, COL_NAME, "?");

	if (t->flags & OUT_TREE_BYTES)
		snprintf(buf, sizeof(buf), "%" PRIu64, d->size_sectors * 512);
	else
		size_human(d->size_sectors * 512, buf, sizeof(buf));
	if (d->kind == TOPO_DM)
		detail = d->dm_name;
	else if (d->kind == TOPO_LOOP)
		detail = d->backing;

	if ((ret = scols_line_set_data(ln, COL_NAME, d->name)) ||
	    (ret = scols_line_set_data(ln, COL_KIND, kind_text(d))) ||
	    (ret = scols_line_set_data(ln, COL_SIZE, buf)) ||
	    (ret = scols_line_set_data(ln, COL_SCHED, d->scheduler)) ||
	    (ret = scols_line_set_data(ln, COL_DETAIL, detail)))
		return ret;
	return 0;
}

/* on_path - whether device @i is already on the way down to here */
static bool on_path(const struct tree *t, size_t depth, size_t i)
{
	size_t k;

	for (k = 0; k < depth; k++)
		if (t->path[k] == i)
			return true;
	return false;
}

/* is_lower - whether I/O of @d goes to @dev: a slave, or a partition's disk */
static bool is_lower(const struct topo_dev_info *d, uint32_t dev)
{
	size_t lo = 0, hi = d->nslaves;

	if (d->kind == TOPO_PARTITION && d->parent && d->parent == dev)
		return true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->slaves[mid] == dev)
			return true;
		if (d->slaves[mid] < dev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * add_line - device @i under @parent, then its lower devices under it
 *
 * A device never appears twice on one path, so a cycle (which sysfs
 * should not have) ends the descent and the depth stays below t->n.
 */
static int add_line(const struct tree *t, struct libscols_table *tb,
		    struct libscols_line *parent, size_t i, size_t depth)
{
	struct libscols_line *ln;
	size_t j;
	int ret;

	ln = scols_table_new_line(tb, parent);
	if (!ln)
		return -ENOMEM;
	ret = line_fill(t, i, ln);
	if (ret)
		return ret;
	if (!t->known[i])
		return 0;
	t->path[depth] = i;
	/* the set is in dev_t order, and so are the children */
	for (j = 0; j < t->n; j++) {
		if (!is_lower(&t->info[i], t->info[j].dev) || on_path(t, depth + 1, j))
			continue;
		ret = add_line(t, tb, ln, j, depth + 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* table_new - the columns, and the output mode of @flags */
static struct libscols_table *table_new(FILE *fp, int flags)
{
	static const struct {
		const char *name;
		double whint;
		int flags;
	} cols[COL_MAX] = {
		[COL_NAME]	= { "NAME", 0.25, SCOLS_FL_TREE | SCOLS_FL_NOEXTREMES },
		[COL_MAJMIN]	= { "MAJ:MIN", 6, 0 },
		[COL_KIND]	= { "KIND", 4, 0 },
		[COL_SIZE]	= { "SIZE", 5, SCOLS_FL_RIGHT },
		[COL_SCHED]	= { "SCHED", 5, 0 },
		[COL_DETAIL]	= { "DETAIL", 0.3, SCOLS_FL_NOEXTREMES },
	};
	int tree_fl = SCOLS_FL_TREE;
	struct libscols_column *cl;
	struct libscols_table *tb;
	size_t i;

	tb = scols_new_table();
	if (!tb)
		return NULL;
	if (scols_table_set_stream(tb, fp))
		goto out_unref;
	/* raw output is a list, as lsblk -r: parents before their children */
	if ((flags & OUT_TREE_RAW) && !(flags & OUT_TREE_JSON))
		tree_fl = 0;
	for (i = 0; i < COL_MAX; i++) {
		cl = scols_table_new_column(tb, cols[i].name, cols[i].whint,
					    cols[i].flags & ~(SCOLS_FL_TREE & ~tree_fl));
		if (!cl)
			goto out_unref;
		if (i == COL_SIZE && (flags & OUT_TREE_BYTES))
			scols_column_set_json_type(cl, SCOLS_JSON_NUMBER);
	}
	if (flags & OUT_TREE_JSON) {
		if (scols_table_set_name(tb, "devices") || scols_table_enable_json(tb, 1))
			goto out_unref;
		return tb;
	}
	if (((flags & OUT_TREE_RAW) && scols_table_enable_raw(tb, 1)) ||
	    ((flags & OUT_TREE_NOHEADINGS) && scols_table_enable_noheadings(tb, 1)) ||
	    ((flags & OUT_TREE_ASCII) && scols_table_enable_ascii(tb, 1)))
		goto out_unref;
	return tb;

out_unref:
	scols_unref_table(tb);
	return NULL;
}

static int print_trees(FILE *fp, const char *root, const struct topo_record *rec,
		       const uint32_t *devs, size_t n, int flags)
{
	struct tree t = { .flags = flags };
	struct libscols_table *tb;
	size_t i;
	int ret;

	if (!fp || (n && !devs))
		return -EINVAL;
	ret = tree_load(&t, root, rec, devs, n);
	if (ret)
		goto out_free_tree;
	tb = table_new(fp, flags);
	if (!tb) {
		ret = -ENOMEM;
		goto out_free_tree;
	}
	for (i = 0; i < t.n && !ret; i++)
		if (!t.below[i])
			ret = add_line(&t, tb, NULL, i, 0);
	if (!ret && scols_print_table(tb))
		ret = -EIO;
	if (!ret && (fflush(fp) || ferror(fp)))
		ret = -EIO;
	scols_unref_table(tb);
out_free_tree:
	tree_free(&t);
	return ret;
}

/* out_tree_print - describe the set, then one tree per top. See tree.h. */
int out_tree_print(FILE *fp, const char *root, const uint32_t *devs, size_t n, int flags)
{
	return print_trees(fp, root, NULL, devs, n, flags);
}

int out_tree_print_recorded(FILE *fp, const struct topo_record *rec, const uint32_t *devs,
			    size_t n, int flags)
{
	if (!rec)
		return -EINVAL;
	return print_trees(fp, "", rec, devs, n, flags);
}
