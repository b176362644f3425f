// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup.c - pids to capped cgroup indexes.
 *
 * The pid cache is an open-addressing table of fixed size, cleared when
 * three quarters full or when the caller asks (pids are reused): a lookup
 * on the hot path is a hash and a compare. The cgroup names are a fixed
 * array of @cap strings, searched linearly when a new pid is read (rare:
 * once per pid per interval).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "track/cgroup.h"

#define CG_EMPTY (-1)

struct cg_slot {
	int32_t pid;
	uint32_t idx;
};

struct cg_map {
	char root[256];
	size_t cap;
	char **names;		/* cap entries, NULL when unused */
	size_t nnames;
	bool other_used;
	struct cg_slot slots[CG_PID_CACHE];
	size_t nslots;
};

struct cg_map *cg_map_alloc(const char *root, size_t cap)
{
	struct cg_map *m;

	if (!cap) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	snprintf(m->root, sizeof(m->root), "%s", root ? root : "");
	m->cap = cap;
	m->names = calloc(cap, sizeof(*m->names));
	if (!m->names) {
		free(m);
		errno = ENOMEM;
		return NULL;
	}
	cg_forget_pids(m);
	return m;
}

void cg_map_free(struct cg_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nnames; i++)
		free(m->names[i]);
	free(m->names);
	free(m);
}

void cg_forget_pids(struct cg_map *m)
{
	for (size_t i = 0; i < CG_PID_CACHE; i++)
		m->slots[i].pid = CG_EMPTY;
	m->nslots = 0;
}

/* /proc/PID/cgroup's v2 path ("0::/x"), else its first line's; CG_UNKNOWN if unreadable. */
static void read_cgroup(const struct cg_map *m, int32_t pid, char *buf, size_t len)
{
	char path[320], line[1024];
	bool found = false;
	FILE *fp;

	snprintf(buf, len, "%s", CG_UNKNOWN);
	snprintf(path, sizeof(path), "%s/proc/%d/cgroup", m->root, pid);
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (!found && fgets(line, sizeof(line), fp)) {
		char *p = strchr(line, ':');
		char *q = p ? strchr(p + 1, ':') : NULL;
		bool v2 = !strncmp(line, "0::", 3);

		if (!q)
			continue;
		if (v2 || !strcmp(buf, CG_UNKNOWN)) {
			q[strcspn(q, "\n")] = '\0';
			snprintf(buf, len, "%s", q + 1);
		}
		found = v2;
	}
	fclose(fp);
}

/* The index of cgroup @name: an existing one, a new one, or "other". */
static uint32_t name_index(struct cg_map *m, const char *name)
{
	for (size_t i = 0; i < m->nnames; i++)
		if (!strcmp(m->names[i], name))
			return i;
	if (m->nnames < m->cap) {
		m->names[m->nnames] = strdup(name);
		if (m->names[m->nnames])
			return m->nnames++;
	}
	m->other_used = true;
	return m->cap;
}

size_t cg_index(struct cg_map *m, int32_t pid)
{
	size_t h = ((uint32_t)pid * 2654435761U) % CG_PID_CACHE;
	char name[1024];
	uint32_t idx;

	for (;;) {
		if (m->slots[h].pid == pid)
			return m->slots[h].idx;
		if (m->slots[h].pid == CG_EMPTY)
			break;
		h = (h + 1) % CG_PID_CACHE;
	}
	read_cgroup(m, pid, name, sizeof(name));
	idx = name_index(m, name);
	/* a full table is cleared: the pids come back as they are seen */
	if (m->nslots >= CG_PID_CACHE * 3 / 4) {
		cg_forget_pids(m);
		h = ((uint32_t)pid * 2654435761U) % CG_PID_CACHE;
	}
	m->slots[h].pid = pid;
	m->slots[h].idx = idx;
	m->nslots++;
	return idx;
}

const char *cg_name(const struct cg_map *m, size_t i)
{
	if (i < m->nnames)
		return m->names[i];
	return i == m->cap ? CG_OTHER : NULL;
}

size_t cg_count(const struct cg_map *m)
{
	return m->nnames + (m->other_used ? 1 : 0);
}

size_t cg_cap(const struct cg_map *m)
{
	return m->cap;
}

int cg_stats_init(struct cg_stats *c, const char *root, size_t cap)
{
	c->st = NULL;
	c->map = cg_map_alloc(root, cap);
	if (!c->map)
		return -ENOMEM;
	c->st = calloc(cap + 1, sizeof(*c->st));
	return c->st ? 0 : -ENOMEM;
}

void cg_stats_destroy(struct cg_stats *c)
{
	for (size_t i = 0; c->st && c->map && i <= c->map->cap; i++)
		stats_free(c->st[i]);
	free(c->st);
	cg_map_free(c->map);
	c->st = NULL;
	c->map = NULL;
}

void cg_stats_event(struct cg_stats *c, const struct blk_event *ev)
{
	if (ev->kind == BLK_EV_BIO_QUEUE)
		cg_index(c->map, ev->pid);
}

void cg_stats_io(struct cg_stats *c, const struct tk_io *io)
{
	size_t i = cg_index(c->map, io->pid);

	if (!c->st[i])
		c->st[i] = stats_alloc();
	if (c->st[i])
		stats_io(io, c->st[i]);
}
