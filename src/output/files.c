// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * files.c - the page-cache attribution as tables and JSON.
 *
 * Tables are drawn by libsmartcols, as the per-layer report's; sizes in
 * KiB, latencies in microseconds, every header names its unit. JSON gives
 * raw bytes and nanoseconds.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <libsmartcols/libsmartcols.h>
#include <stdlib.h>
#include <string.h>

#include "base/pcevent.h"
#include "output/files.h"

static const char *const by_names[] = {
	[FILES_BY_FILE] = "file", [FILES_BY_DIR] = "dir", [FILES_BY_PROCESS] = "process",
};

const char *files_by_name(enum files_by by)
{
	return by <= FILES_BY_PROCESS ? by_names[by] : "?";
}

static struct libscols_table *new_table(FILE *fp, const char *const *cols, size_t n)
{
	struct libscols_table *tb = scols_new_table();

	if (!tb)
		return NULL;
	scols_table_set_stream(tb, fp);
	for (size_t i = 0; i < n; i++) {
		if (!scols_table_new_column(tb, cols[i], 0, i ? SCOLS_FL_RIGHT : 0)) {
			scols_unref_table(tb);
			return NULL;
		}
	}
	return tb;
}

static void set_str(struct libscols_line *ln, size_t col, const char *s)
{
	scols_line_set_data(ln, col, s);
}

static void set_u64(struct libscols_line *ln, size_t col, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	scols_line_set_data(ln, col, buf);
}

static void set_kib(struct libscols_line *ln, size_t col, uint64_t bytes)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.1f", bytes / 1024.0);
	scols_line_set_data(ln, col, buf);
}

/* microseconds, "-" without a sample */
static void set_us(struct libscols_line *ln, size_t col, uint64_t n, double ns)
{
	char buf[32];

	if (!n) {
		scols_line_set_data(ln, col, "-");
		return;
	}
	snprintf(buf, sizeof(buf), ns < 10000 ? "%.2f" : ns < 1000000 ? "%.1f" : "%.0f",
		 ns / 1000.0);
	scols_line_set_data(ln, col, buf);
}

static int print_table(struct libscols_table *tb, FILE *fp)
{
	int ret = scols_print_table(tb);

	scols_unref_table(tb);
	if (ret)
		return ret < 0 ? ret : -EIO;
	return fputc('\n', fp) == EOF ? -EIO : 0;
}

/* ---- ordering ------------------------------------------------------------ */

/* Most disk bytes first, then most misses, then most evictions. */
static int cmp_counts(const struct pc_counts *a, const struct pc_counts *b)
{
	uint64_t x = ft_bytes(a), y = ft_bytes(b);

	if (x != y)
		return x < y ? 1 : -1;
	if (a->misses != b->misses)
		return a->misses < b->misses ? 1 : -1;
	if (a->evicted != b->evicted)
		return a->evicted < b->evicted ? 1 : -1;
	return 0;
}

static const struct filetree *sort_tree;

static int cmp_nodes(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = cmp_counts(&sort_tree->n[i].c, &sort_tree->n[j].c);

	return c ? c : (i < j ? -1 : i > j);
}

/* Nodes of the tree that are files (or directories), sorted; caller frees. */
static size_t *sorted_nodes(const struct filetree *t, bool dirs, size_t *n)
{
	size_t *v = malloc((t->nn + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = dirs ? 0 : 1; i < t->nn; i++) {
		const struct ft_node *nd = &t->n[i];

		/* categories are listed apart */
		if (nd->file && nd->file_idx == FT_NONE)
			continue;
		if (dirs ? nd->file : !nd->file)
			continue;
		if (dirs && i == FT_ROOT && !nd->first_child)
			continue;
		v[(*n)++] = i;
	}
	sort_tree = t;
	qsort(v, *n, sizeof(*v), cmp_nodes);
	sort_tree = NULL;
	return v;
}

static int cmp_procs(const void *a, const void *b)
{
	const struct pc_proc *x = a, *y = b;
	int c = cmp_counts(&x->tot, &y->tot);

	return c ? c : (x->pid < y->pid ? -1 : x->pid > y->pid);
}

/* ---- text ----------------------------------------------------------------- */

static const char *const file_cols[] = {
	"FILE", "READ-KiB", "WRITE-KiB", "DIRECT-KiB", "MISSES", "RA-SYNC", "RA-ASYNC",
	"EVICTED", "LAT-AVG-us", "LAT-MAX-us",
};

static void set_counts(struct libscols_line *ln, const struct pc_counts *c)
{
	set_kib(ln, 1, c->read_bytes);
	set_kib(ln, 2, c->write_bytes);
	set_kib(ln, 3, c->direct_bytes);
	set_u64(ln, 4, c->misses);
	set_u64(ln, 5, c->ra_sync);
	set_u64(ln, 6, c->ra_async);
	set_u64(ln, 7, c->evicted);
	set_us(ln, 8, c->lat_n, c->lat_n ? (double)c->lat_sum / c->lat_n : 0);
	set_us(ln, 9, c->lat_n, c->lat_max);
}

static int text_nodes(FILE *fp, const struct files_report *r, bool dirs)
{
	const struct filetree *t = r->tree;
	struct libscols_table *tb;
	char path[4096 + 64];
	size_t n, shown;
	size_t *v = sorted_nodes(t, dirs, &n);
	int ret;

	if (!v)
		return -ENOMEM;
	shown = r->top && r->top < n ? r->top : n;
	fprintf(fp, "%s (most disk bytes first; %zu of %zu shown)\n",
		dirs ? "Directories, each with everything beneath it" : "Files", shown, n);
	tb = new_table(fp, file_cols, sizeof(file_cols) / sizeof(file_cols[0]));
	if (!tb) {
		free(v);
		return -ENOMEM;
	}
	if (dirs)
		scols_column_set_name(scols_table_get_column(tb, 0), "DIRECTORY");
	for (size_t i = 0; i < shown; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			break;
		if (filetree_path(t, v[i], path, sizeof(path)))
			snprintf(path, sizeof(path), "%s", t->n[v[i]].name);
		set_str(ln, 0, path);
		set_counts(ln, &t->n[v[i]].c);
	}
	free(v);
	ret = print_table(tb, fp);
	return ret;
}

static const char *const proc_cols[] = {
	"PID", "COMM", "READ-KiB", "WRITE-KiB", "DIRECT-KiB", "MISSES", "RA-SYNC", "RA-ASYNC",
	"DIRTIED",
};

static int text_procs(FILE *fp, const struct files_report *r)
{
	struct libscols_table *tb;
	struct pc_proc *v;
	size_t n, shown;
	const struct pc_proc *procs = pagecache_procs(r->pc, &n);

	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, procs, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_procs);
	shown = r->top && r->top < n ? r->top : n;
	fprintf(fp, "Processes (what each read, the writeback of what it dirtied, the pages it inserted; %zu of %zu shown)\n",
		shown, n);
	tb = new_table(fp, proc_cols, sizeof(proc_cols) / sizeof(proc_cols[0]));
	if (!tb) {
		free(v);
		return -ENOMEM;
	}
	scols_column_set_flags(scols_table_get_column(tb, 1), 0);
	for (size_t i = 0; i < shown; i++) {
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			break;
		set_u64(ln, 0, (uint64_t)v[i].pid);
		set_str(ln, 1, v[i].comm[0] ? v[i].comm : "?");
		set_kib(ln, 2, v[i].tot.read_bytes);
		set_kib(ln, 3, v[i].tot.write_bytes);
		set_kib(ln, 4, v[i].tot.direct_bytes);
		set_u64(ln, 5, v[i].tot.misses);
		set_u64(ln, 6, v[i].tot.ra_sync);
		set_u64(ln, 7, v[i].tot.ra_async);
		set_u64(ln, 8, v[i].tot.dirtied);
	}
	free(v);
	return print_table(tb, fp);
}

/* Bytes of files and of categories, for the attributed share. */
static void totals(const struct pagecache *pc, uint64_t *files, uint64_t *all)
{
	const struct pc_file *f;
	size_t n;

	*files = 0;
	f = pagecache_files(pc, &n);
	for (size_t i = 0; i < n; i++)
		*files += ft_bytes(&f[i].tot);
	*all = *files;
	for (int c = 0; c < PC_NCATS; c++)
		*all += ft_bytes(pagecache_cat(pc, c));
}

static const char *const cat_cols[] = {
	"NOT A FILE", "READ-KiB", "WRITE-KiB", "IOS", "LAT-AVG-us", "LAT-MAX-us",
};

static int text_cats(FILE *fp, const struct files_report *r)
{
	struct libscols_table *tb;
	uint64_t files, all;

	fprintf(fp, "I/O of no file\n");
	tb = new_table(fp, cat_cols, sizeof(cat_cols) / sizeof(cat_cols[0]));
	if (!tb)
		return -ENOMEM;
	for (int c = 0; c < PC_NCATS; c++) {
		const struct pc_counts *cc = pagecache_cat(r->pc, c);
		struct libscols_line *ln = scols_table_new_line(tb, NULL);

		if (!ln)
			break;
		set_str(ln, 0, pc_cat_name(c));
		set_kib(ln, 1, cc->read_bytes);
		set_kib(ln, 2, cc->write_bytes);
		set_u64(ln, 3, cc->read_ios + cc->write_ios);
		set_us(ln, 4, cc->lat_n, cc->lat_n ? (double)cc->lat_sum / cc->lat_n : 0);
		set_us(ln, 5, cc->lat_n, cc->lat_max);
	}
	if (print_table(tb, fp))
		return -EIO;
	totals(r->pc, &files, &all);
	fprintf(fp, "Attributed to files: %.1f%% of %.1f KiB read and written\n",
		all ? 100.0 * files / all : 0.0, all / 1024.0);
	return ferror(fp) ? -EIO : 0;
}

int out_files_text(FILE *fp, const struct files_report *r)
{
	int ret;

	fprintf(fp, "Disk I/O per %s of %s; names from %s\n", files_by_name(r->by), r->source,
		r->names);
	for (size_t i = 0; r->notes && r->notes[i]; i++)
		fprintf(fp, "note: %s\n", r->notes[i]);
	if (r->src && source_lost_total(r->src))
		fprintf(fp, "warning: %llu events were lost: the figures are short of them\n",
			(unsigned long long)source_lost_total(r->src));
	fputc('\n', fp);
	if (!pagecache_has_events(r->pc))
		fprintf(fp, "No page-cache event was traced: disk I/O cannot be tied to files.\n\n");
	switch (r->by) {
	case FILES_BY_DIR:
		ret = text_nodes(fp, r, true);
		break;
	case FILES_BY_PROCESS:
		ret = text_procs(fp, r);
		break;
	default:
		ret = text_nodes(fp, r, false);
		break;
	}
	if (!ret)
		ret = text_cats(fp, r);
	if (!ret && fflush(fp))
		ret = -errno;
	return ret;
}

/* ---- JSON ------------------------------------------------------------------ */

static int jadd(struct json_object *o, const char *k, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_object_add(o, k, v) ? -ENOMEM : 0;
}

static struct json_object *json_counts(struct json_object *o, const struct pc_counts *c)
{
	if (!o)
		return NULL;
	if (jadd(o, "read_bytes", json_object_new_int64(c->read_bytes)) ||
	    jadd(o, "write_bytes", json_object_new_int64(c->write_bytes)) ||
	    jadd(o, "read_ios", json_object_new_int64(c->read_ios)) ||
	    jadd(o, "write_ios", json_object_new_int64(c->write_ios)) ||
	    jadd(o, "direct_bytes", json_object_new_int64(c->direct_bytes)) ||
	    jadd(o, "misses", json_object_new_int64(c->misses)) ||
	    jadd(o, "ra_sync", json_object_new_int64(c->ra_sync)) ||
	    jadd(o, "ra_async", json_object_new_int64(c->ra_async)) ||
	    jadd(o, "evicted", json_object_new_int64(c->evicted)) ||
	    jadd(o, "lookups", json_object_new_int64(c->lookups)) ||
	    jadd(o, "dirtied", json_object_new_int64(c->dirtied)) ||
	    jadd(o, "ios_timed", json_object_new_int64(c->lat_n)) ||
	    jadd(o, "lat_avg_ns", json_object_new_int64(c->lat_n ? c->lat_sum / c->lat_n : 0)) ||
	    jadd(o, "lat_max_ns", json_object_new_int64(c->lat_max))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static struct json_object *json_nodes(const struct filetree *t, const struct pagecache *pc,
				      bool dirs)
{
	const struct pc_file *files;
	size_t nfiles;
	struct json_object *arr = json_object_new_array();
	char path[4096 + 64];
	size_t n;
	size_t *v = sorted_nodes(t, dirs, &n);

	if (!arr || !v) {
		json_object_put(arr);
		free(v);
		return NULL;
	}
	files = pagecache_files(pc, &nfiles);
	for (size_t i = 0; i < n; i++) {
		const struct ft_node *nd = &t->n[v[i]];
		struct json_object *o = json_object_new_object();
		char dev[32] = "";

		if (filetree_path(t, v[i], path, sizeof(path)))
			snprintf(path, sizeof(path), "%s", nd->name);
		if (!dirs && nd->file_idx < nfiles)
			snprintf(dev, sizeof(dev), "%u:%u", KDEV_MAJOR(files[nd->file_idx].sdev),
				 KDEV_MINOR(files[nd->file_idx].sdev));
		o = json_counts(o, &nd->c);
		if (!o || jadd(o, "path", json_object_new_string(path)) ||
		    (!dirs && jadd(o, "deleted", json_object_new_boolean(nd->deleted))) ||
		    (dev[0] && jadd(o, "sdev", json_object_new_string(dev))) ||
		    (dev[0] && jadd(o, "ino", json_object_new_int64(files[nd->file_idx].ino))) ||
		    json_object_array_add(arr, o)) {
			json_object_put(o);
			json_object_put(arr);
			free(v);
			return NULL;
		}
	}
	free(v);
	return arr;
}

static struct json_object *json_procs(const struct pagecache *pc)
{
	struct json_object *arr = json_object_new_array();
	size_t n;
	const struct pc_proc *p = pagecache_procs(pc, &n);

	if (!arr)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_counts(json_object_new_object(), &p[i].tot);

		if (!o || jadd(o, "pid", json_object_new_int(p[i].pid)) ||
		    jadd(o, "comm", json_object_new_string(p[i].comm)) ||
		    json_object_array_add(arr, o)) {
			json_object_put(o);
			json_object_put(arr);
			return NULL;
		}
	}
	return arr;
}

static uint64_t events_read(const struct source_stats *src)
{
	uint64_t n = 0;

	for (int i = 0; src && i < src->ncpu; i++)
		n += src->cpu[i].events;
	return n;
}

int out_files_json(FILE *fp, const struct files_report *r)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *cats = json_object_new_object();
	struct json_object *files;
	uint64_t fbytes, all;
	int ret = -ENOMEM;

	if (!doc || !cats)
		goto out;
	totals(r->pc, &fbytes, &all);
	if (jadd(doc, "source", json_object_new_string(r->source)) ||
	    jadd(doc, "by", json_object_new_string(files_by_name(r->by))) ||
	    jadd(doc, "names", json_object_new_string(r->names)) ||
	    jadd(doc, "page_cache_events", json_object_new_boolean(pagecache_has_events(r->pc))) ||
	    jadd(doc, "events", json_object_new_int64(events_read(r->src))) ||
	    jadd(doc, "events_lost", json_object_new_int64(r->src ? source_lost_total(r->src) : 0)))
		goto out;
	if (r->notes && r->notes[0]) {
		struct json_object *notes = json_object_new_array();

		for (size_t i = 0; notes && r->notes[i]; i++)
			if (json_object_array_add(notes, json_object_new_string(r->notes[i]))) {
				json_object_put(notes);
				notes = NULL;
			}
		if (!notes || jadd(doc, "notes", notes))
			goto out;
	}
	files = json_nodes(r->tree, r->pc, false);
	if (!files || jadd(doc, "files", files))
		goto out;
	if (r->by == FILES_BY_DIR && jadd(doc, "dirs", json_nodes(r->tree, r->pc, true)))
		goto out;
	if (r->by == FILES_BY_PROCESS && jadd(doc, "processes", json_procs(r->pc)))
		goto out;
	for (int c = 0; c < PC_NCATS; c++)
		if (jadd(cats, pc_cat_name(c), json_counts(json_object_new_object(),
							   pagecache_cat(r->pc, c))))
			goto out;
	if (jadd(doc, "not_files", cats)) {
		cats = NULL;
		goto out;
	}
	cats = NULL;
	if (jadd(doc, "attributed_bytes", json_object_new_int64(fbytes)) ||
	    jadd(doc, "total_bytes", json_object_new_int64(all)))
		goto out;
	ret = fputs(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							 JSON_C_TO_STRING_NOSLASHESCAPE), fp) == EOF ||
	      fputc('\n', fp) == EOF ? -EIO : 0;
	if (!ret && fflush(fp))
		ret = -errno;
out:
	json_object_put(cats);
	json_object_put(doc);
	return ret;
}

/* ---- the interval view and the log of "blkstack cache" ------------------- */

static const char *const iv_cols[] = {
	"FILE", "MISSES", "RA-SYNC", "RA-ASYNC", "EVICTED", "LOOKUPS", "HIT%", "READ-KiB",
	"WRITE-KiB",
};

static const struct pc_file *iv_files;

static int cmp_iv(const void *a, const void *b)
{
	const struct pc_counts *x = &iv_files[*(const size_t *)a].iv;
	const struct pc_counts *y = &iv_files[*(const size_t *)b].iv;
	uint64_t ax = x->misses + x->evicted + x->lookups, ay = y->misses + y->evicted + y->lookups;

	if (ax != ay)
		return ax < ay ? 1 : -1;
	return cmp_counts(x, y);
}

int out_files_interval(FILE *fp, const struct pagecache *pc, const struct pathres *pr,
		       const char *label, size_t top)
{
	const struct pc_file *files;
	struct libscols_table *tb;
	char name[4096 + 16];
	size_t n, m = 0, *v;
	int ret;

	files = pagecache_files(pc, &n);
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct pc_counts *c = &files[i].iv;

		if (c->misses || c->evicted || c->lookups || ft_bytes(c) || c->dirtied)
			v[m++] = i;
	}
	iv_files = files;
	qsort(v, m, sizeof(*v), cmp_iv);
	iv_files = NULL;
	fprintf(fp, "%s  %zu files active%s\n", label, m,
		top && m > top ? " (the busiest shown)" : "");
	tb = new_table(fp, iv_cols, sizeof(iv_cols) / sizeof(iv_cols[0]));
	if (!tb) {
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m && (!top || i < top); i++) {
		const struct pc_counts *c = &files[v[i]].iv;
		struct libscols_line *ln = scols_table_new_line(tb, NULL);
		bool deleted = false;

		if (!ln)
			break;
		filetree_file_name(pr, files[v[i]].sdev, files[v[i]].ino, name, sizeof(name));
		if (pr && pathres_lookup(pr, files[v[i]].sdev, files[v[i]].ino, &deleted) &&
		    deleted)
			strcat(name, " (deleted)");
		set_str(ln, 0, name);
		set_u64(ln, 1, c->misses);
		set_u64(ln, 2, c->ra_sync);
		set_u64(ln, 3, c->ra_async);
		set_u64(ln, 4, c->evicted);
		set_u64(ln, 5, c->lookups);
		if (c->lookups) {
			/* a page asked for and not inserted was there already */
			uint64_t hits = c->lookups > c->misses ? c->lookups - c->misses : 0;
			char buf[16];

			snprintf(buf, sizeof(buf), "%.1f", 100.0 * hits / c->lookups);
			set_str(ln, 6, buf);
		} else {
			set_str(ln, 6, "-");
		}
		set_kib(ln, 7, c->read_bytes);
		set_kib(ln, 8, c->write_bytes);
	}
	free(v);
	ret = print_table(tb, fp);
	return ret;
}

int out_files_log_line(FILE *fp, const struct pathres *pr, const struct pc_log_range *lr)
{
	const char *path = pr ? pathres_lookup(pr, lr->sdev, lr->ino, NULL) : NULL;
	char dev[32];
	int n;

	snprintf(dev, sizeof(dev), "%u:%u", KDEV_MAJOR(lr->sdev), KDEV_MINOR(lr->sdev));
	n = fprintf(fp, "%s %" PRIu64 " %" PRIu64 "..%" PRIu64 "%s\n", path ? path : dev, lr->ino,
		    lr->first, lr->last,
		    lr->ra == PC_EV_RA_SYNC ? " RA sync" : lr->ra == PC_EV_RA_ASYNC ? " RA async"
										 : "");
	return n < 0 ? -EIO : 0;
}
