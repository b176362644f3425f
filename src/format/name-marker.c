// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * name-marker.c - the text of the file-name markers a recording carries.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/event.h"
#include "format/name-marker.h"

int name_marker_format(char *buf, size_t len, uint32_t sdev, uint64_t ino, bool deleted,
		       const char *path)
{
	int n = snprintf(buf, len, NAME_MARKER_PREFIX "%u:%u %" PRIu64 " %s %s", KDEV_MAJOR(sdev),
			 KDEV_MINOR(sdev), ino, deleted ? "deleted" : "live", path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* A decimal number at *@s (advanced past it), below @max. */
static int number(const char **s, const char *end, uint64_t max, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	if (p == end || *p < '0' || *p > '9')
		return -EINVAL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (*v > (max - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	return 0;
}

/* The word @w at *@s (advanced past it and one space). */
static bool word(const char **s, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *s) < n + 1 || memcmp(*s, w, n) || (*s)[n] != ' ')
		return false;
	*s += n + 1;
	return true;
}

int name_marker_parse(const char *text, size_t len, uint32_t *sdev, uint64_t *ino,
		      bool *deleted, const char **path, size_t *pathlen)
{
	const char *s = text, *end = text + len;
	uint64_t maj, min;

	while (end > s && (end[-1] == '\n' || end[-1] == '\0'))
		end--;
	if (number(&s, end, 0xfff, &maj) || s == end || *s++ != ':' ||
	    number(&s, end, 0xfffff, &min) || s == end || *s++ != ' ' ||
	    number(&s, end, UINT64_MAX, ino) || s == end || *s++ != ' ')
		return -EINVAL;
	if (word(&s, end, "deleted"))
		*deleted = true;
	else if (word(&s, end, "live"))
		*deleted = false;
	else
		return -EINVAL;
	if (s == end)
		return -EINVAL;
	*sdev = KDEV_MKDEV(maj, min);
	*path = s;
	*pathlen = end - s;
	return 0;
}

