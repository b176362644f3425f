// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * filetree.c - files as a tree of path components, with roll-ups.
 *
 * Children are found through one hash on (parent, name), so that a
 * directory of many thousand files is built in linear time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "files/filetree.h"

static size_t name_hash(size_t parent, const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ULL ^ (parent * 0x9e3779b97f4a7c15ULL);

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
	return (size_t)(h ^ (h >> 31));
}

static int new_node(struct filetree *t, size_t parent, const char *name, size_t len)
{
	struct ft_node *n;

	if (ARRAY_ROOM(t->n, t->nn, t->cap, 64) < 0)
		return -ENOMEM;
	n = &t->n[t->nn];
	memset(n, 0, sizeof(*n));
	n->name = strndup(name, len);
	if (!n->name)
		return -ENOMEM;
	n->parent = parent;
	n->first_child = n->next_sibling = FT_NONE;
	n->file_idx = FT_NONE;
	if (parent != FT_NONE) {
		n->next_sibling = t->n[parent].first_child;
		t->n[parent].first_child = t->nn;
	}
	t->nn++;
	return 0;
}

static int rehash(struct filetree *t)
{
	size_t cap = t->hash_cap ? t->hash_cap * 2 : 256;
	size_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 1; i < t->nn; i++) {
		size_t j = name_hash(t->n[i].parent, t->n[i].name, strlen(t->n[i].name)) & (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(t->hash);
	t->hash = h;
	t->hash_cap = cap;
	return 0;
}

/* The child @name of @parent, created when missing; -ENOMEM. */
static long child(struct filetree *t, size_t parent, const char *name, size_t len)
{
	size_t j;

	if ((t->nn + 1) * 2 > t->hash_cap && rehash(t))
		return -ENOMEM;
	j = name_hash(parent, name, len) & (t->hash_cap - 1);
	while (t->hash[j]) {
		const struct ft_node *n = &t->n[t->hash[j] - 1];

		if (n->parent == parent && !strncmp(n->name, name, len) && !n->name[len])
			return (long)(t->hash[j] - 1);
		j = (j + 1) & (t->hash_cap - 1);
	}
	if (new_node(t, parent, name, len))
		return -ENOMEM;
	t->hash[j] = t->nn;
	return (long)(t->nn - 1);
}

int filetree_init(struct filetree *t)
{
	memset(t, 0, sizeof(*t));
	return new_node(t, FT_NONE, "", 0);
}

void filetree_free(struct filetree *t)
{
	for (size_t i = 0; i < t->nn; i++)
		free(t->n[i].name);
	free(t->n);
	free(t->hash);
	memset(t, 0, sizeof(*t));
}

long filetree_add(struct filetree *t, const char *path, bool deleted, size_t file_idx,
		  const struct pc_counts *c)
{
	size_t cur = FT_ROOT;
	const char *p = path;

	while (*p) {
		const char *end;
		long idx;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchr(p, '/');
		if (!end)
			end = p + strlen(p);
		idx = child(t, cur, p, end - p);
		if (idx < 0)
			return idx;
		cur = idx;
		p = end;
	}
	if (cur == FT_ROOT)
		return -EINVAL;
	t->n[cur].file = true;
	t->n[cur].deleted |= deleted;
	if (file_idx != FT_NONE)
		t->n[cur].file_idx = file_idx;
	pc_counts_add(&t->n[cur].c, c);
	return (long)cur;
}

void filetree_rollup(struct filetree *t)
{
	/* children always come after their parent: sum from the end */
	for (size_t i = t->nn; i-- > 1;)
		pc_counts_add(&t->n[t->n[i].parent].c, &t->n[i].c);
}

int filetree_path(const struct filetree *t, size_t idx, char *buf, size_t len)
{
	size_t chain[256], depth = 0, pos = 0;

	if (idx == FT_ROOT) {
		if (len < 2)
			return -ERANGE;
		strcpy(buf, "/");
		return 0;
	}
	for (size_t i = idx; i != FT_ROOT && depth < 256; i = t->n[i].parent)
		chain[depth++] = i;
	/* "[journal]" and "7:0:12" are names, not absolute paths */
	if (depth == 1 && (t->n[idx].name[0] == '[' || strchr(t->n[idx].name, ':'))) {
		if (strlen(t->n[idx].name) >= len)
			return -ERANGE;
		strcpy(buf, t->n[idx].name);
		return 0;
	}
	while (depth--) {
		size_t nl = strlen(t->n[chain[depth]].name);

		if (pos + 1 + nl >= len)
			return -ERANGE;
		buf[pos++] = '/';
		memcpy(buf + pos, t->n[chain[depth]].name, nl);
		pos += nl;
	}
	buf[pos] = '\0';
	return 0;
}

void filetree_file_name(const struct pathres *pr, uint32_t sdev, uint64_t ino, char *buf,
			size_t len)
{
	const char *path = pr ? pathres_lookup(pr, sdev, ino, NULL) : NULL;

	if (path)
		snprintf(buf, len, "%s", path);
	else if (ino == 1)
		/*
		 * no user's file: ext4's allocator cache (in memory, on the
		 * bad-blocks inode's number), btrfs's metadata btree, f2fs's
		 * nodes; the root directory of tmpfs and FUSE
		 */
		snprintf(buf, len, "%u:%u:1 (the filesystem's own)", KDEV_MAJOR(sdev),
			 KDEV_MINOR(sdev));
	else
		snprintf(buf, len, "%u:%u:%" PRIu64, KDEV_MAJOR(sdev), KDEV_MINOR(sdev), ino);
}

int filetree_build(struct filetree *t, const struct pagecache *pc, const struct pathres *pr,
		   bool interval, bool cats)
{
	const struct pc_file *files;
	char name[4096 + 16];
	size_t n;
	int ret = filetree_init(t);

	if (ret)
		return ret;
	files = pagecache_files(pc, &n);
	for (size_t i = 0; i < n; i++) {
		bool deleted = false;

		/* an unlinked file is not the file that has its name now */
		filetree_file_name(pr, files[i].sdev, files[i].ino, name, sizeof(name));
		if (pr && pathres_lookup(pr, files[i].sdev, files[i].ino, &deleted) && deleted)
			strcat(name, " (deleted)");
		if (filetree_add(t, name, deleted, i, interval ? &files[i].iv : &files[i].tot) ==
		    -ENOMEM)
			goto nomem;
	}
	for (int c = 0; cats && c < PC_NCATS; c++) {
		const struct pc_counts *cc = interval ? pagecache_cat_iv(pc, c) : pagecache_cat(pc, c);

		snprintf(name, sizeof(name), "[%s]", pc_cat_name(c));
		if (ft_bytes(cc) && filetree_add(t, name, false, FT_NONE, cc) == -ENOMEM)
			goto nomem;
	}
	filetree_rollup(t);
	return 0;
nomem:
	filetree_free(t);
	return -ENOMEM;
}

/* A frame of a folded stack: no ';' (the separator) and no line breaks. */
static int put_frame(FILE *fp, const char *name)
{
	for (const char *p = name; *p; p++)
		if (fputc(*p == ';' || *p == '\n' || *p == '\r' ? '_' : *p, fp) == EOF)
			return -EIO;
	return 0;
}

static int folded_node(const struct filetree *t, size_t idx, FILE *fp)
{
	const struct ft_node *n = &t->n[idx];
	size_t chain[256], depth = 0;

	if (!n->file || !ft_bytes(&n->c))
		return 0;
	for (size_t i = idx; i != FT_ROOT && depth < 256; i = t->n[i].parent)
		chain[depth++] = i;
	while (depth--) {
		if (put_frame(fp, t->n[chain[depth]].name))
			return -EIO;
		if (depth && fputc(';', fp) == EOF)
			return -EIO;
	}
	return fprintf(fp, " %" PRIu64 "\n", ft_bytes(&n->c)) < 0 ? -EIO : 0;
}

int filetree_folded(const struct filetree *t, FILE *fp)
{
	for (size_t i = 1; i < t->nn; i++) {
		int ret = folded_node(t, i, fp);

		if (ret)
			return ret;
	}
	return ferror(fp) ? -EIO : 0;
}
