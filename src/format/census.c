// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * census.c - a trace.dat's records counted per event type (see census.h).
 *
 * Only for a message, on a recording with no block event: the pages are
 * walked once more, in no time order, one CPU after the other, and each
 * record's common_type (the first field of every event, a u16 at offset
 * 0 on every kernel) is counted; the headers' formats name the types.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/census.h"
#include "format/datformats.h"
#include "format/datpages.h"
#include "format/pagewalk.h"

#define CENSUS_IDS 65536

struct names {
	char (*name)[160];	/* per ID, "" when the headers have none */
};

static void name_one(unsigned int id, const char *sys, const char *name, void *ctx)
{
	struct names *nm = ctx;

	snprintf(nm->name[id], sizeof(nm->name[id]), "%s:%s", sys, name);
}

/* Count the records of every stream of @l into @counts, by ID. */
static int count_records(const uint8_t *map, const struct datfile_layout *l, uint64_t *counts)
{
	for (int i = 0; i < l->nstreams; i++) {
		struct datpages dp;
		struct pagewalk w;
		const uint8_t *page;

		if (datpages_init(&dp, map, -1, l, &l->streams[i]) < 0) {
			datpages_destroy(&dp);
			return -ENOMEM;
		}
		pagewalk_init(&w, l->long_size, l->big_endian);
		while ((page = datpages_next(&dp))) {
			const uint8_t *rec;
			unsigned int size;
			uint64_t ts;

			datpages_release(&dp);
			if (pagewalk_load(&w, page, l->page_size) < 0)
				continue;
			while ((rec = pagewalk_next(&w, &ts, &size))) {
				uint16_t id;

				if (size < sizeof(id))
					continue;
				memcpy(&id, rec, sizeof(id));
				counts[l->big_endian ? be16toh(id) : le16toh(id)]++;
			}
		}
		datpages_destroy(&dp);
	}
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct census_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* The IDs seen, named, the most records first. */
static int make_rows(const uint64_t *counts, const struct names *nm, struct census_row **rows,
		     size_t *n)
{
	size_t k = 0;

	for (size_t id = 0; id < CENSUS_IDS; id++)
		k += counts[id] != 0;
	*rows = calloc(k ? k : 1, sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	*n = 0;
	for (size_t id = 0; id < CENSUS_IDS; id++) {
		struct census_row *r;

		if (!counts[id])
			continue;
		r = &(*rows)[(*n)++];
		if (nm->name[id][0])
			snprintf(r->name, sizeof(r->name), "%s", nm->name[id]);
		else
			snprintf(r->name, sizeof(r->name), "#%zu", id);
		r->count = counts[id];
	}
	qsort(*rows, *n, sizeof(**rows), cmp_rows);
	return 0;
}

int census_of_file(const char *path, struct census_row **rows, size_t *n)
{
	struct datfile_layout l = { 0 };
	struct names nm = { 0 };
	uint64_t *counts = NULL;
	struct stat sb;
	void *map = MAP_FAILED;
	int fd, ret;

	*rows = NULL;
	*n = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0) {
		close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	ret = datfile_layout_parse(map, sb.st_size, &l);
	if (ret)
		goto out;
	counts = calloc(CENSUS_IDS, sizeof(*counts));
	nm.name = calloc(CENSUS_IDS, sizeof(*nm.name));
	if (!counts || !nm.name) {
		ret = -ENOMEM;
		goto out;
	}
	/* formats that cannot be read leave their IDs unnamed, not the count undone */
	datformats_each_event(map, sb.st_size, &l, name_one, &nm);
	ret = count_records(map, &l, counts);
	if (!ret)
		ret = make_rows(counts, &nm, rows, n);
out:
	free(counts);
	free(nm.name);
	datfile_layout_free(&l);
	munmap(map, sb.st_size);
	return ret;
}
