// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_markers.c - what a recording carries as text: the topology record
 * (track/topo-record.c, "blkstack-topology:" markers and --topology files)
 * and the file-name markers (format/name-marker.c, "blkstack-file:").
 *
 * Input: one byte choosing the parser (even: the topology, odd: a name
 * marker), then the text, not NUL-terminated (markers are not).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/name-marker.h"
#include "track/topo-record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void topology(const char *text, size_t len)
{
	struct topo_record r;
	unsigned int line = 0;
	char name[64];

	if (topo_record_parse(text, len, &r, &line) < 0)
		return;
	/* every device found again by its number, and named */
	for (size_t i = 0; i < r.n; i++) {
		if (topo_record_find(&r, r.devs[i].dev) == NULL)
			abort();
		topo_record_name(r.devs[i].dev, name, sizeof(name), &r);
	}
	topo_record_free(&r);
}

static void name_marker(const char *text, size_t len)
{
	size_t pathlen, pathlen2, plen = strlen(NAME_MARKER_PREFIX);
	const char *path, *path2;
	uint32_t sdev, sdev2;
	uint64_t ino, ino2;
	bool deleted, deleted2;
	char *p, *again;
	int n;

	if (name_marker_parse(text, len, &sdev, &ino, &deleted, &path, &pathlen) < 0)
		return;
	if (path < text || pathlen == 0 || path + pathlen > text + len)
		abort();
	/* what parses is written back as record-names.c would, and parses to the same */
	p = strndup(path, pathlen);
	again = malloc(pathlen + 64);
	if (!p || !again)
		goto out;
	n = name_marker_format(again, pathlen + 64, sdev, ino, deleted, p);
	if (n < 0)
		abort();
	if (!p[0] || p[strlen(p) - 1] == '\n')
		goto out;	/* cut at a NUL, or ending as a marker's line does */
	if (name_marker_parse(again + plen, n - plen, &sdev2, &ino2, &deleted2, &path2,
			      &pathlen2) < 0 ||
	    sdev2 != sdev || ino2 != ino || deleted2 != deleted || pathlen2 != strlen(p) ||
	    memcmp(path2, p, pathlen2))
		abort();
out:
	free(again);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	char *text;

	if (len < 1)
		return 0;
	/* a copy exactly as long as the text: no NUL after it to lean on */
	text = malloc(len - 1 ? len - 1 : 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, len - 1);
	if (data[0] & 1)
		name_marker(text, len - 1);
	else
		topology(text, len - 1);
	free(text);
	return 0;
}
