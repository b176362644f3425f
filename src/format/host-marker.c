// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * host-marker.c - the text of the marker that says what machine a
 * recording was made on (see host-marker.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format/host-marker.h"

int host_marker_format(char *buf, size_t len, const struct host_marker *m)
{
	size_t used = 0;
	int n;

	n = snprintf(buf, len, HOST_MARKER_PREFIX "release=%s", m->release[0] ? m->release : "-");
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	used = n;
	if (m->hz) {
		n = snprintf(buf + used, len - used, " hz=%u", m->hz);
		if (n < 0 || (size_t)n >= len - used)
			return -ENAMETOOLONG;
		used += n;
	}
	if (m->has_clock) {
		n = snprintf(buf + used, len - used, " realtime_ns=%" PRId64 " mono_ns=%" PRIu64,
			     m->realtime_ns, m->mono_ns);
		if (n < 0 || (size_t)n >= len - used)
			return -ENAMETOOLONG;
		used += n;
	}
	return (int)used;
}

/* A decimal number of the whole of [@s, @end), at most @max. */
static int number(const char *s, const char *end, uint64_t max, uint64_t *v)
{
	*v = 0;
	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || *v > (max - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	return 0;
}

/* One KEY=VALUE word, [@w, @end). */
static int take_word(const char *w, const char *end, struct host_marker *m, bool *realtime,
		     bool *mono)
{
	const char *eq = memchr(w, '=', end - w), *v;
	size_t klen;
	uint64_t n;

	if (!eq)
		return 0;		/* not a KEY=VALUE word: someone else's, skipped */
	klen = eq - w;
	v = eq + 1;
	if (klen == 7 && !memcmp(w, "release", 7)) {
		if (end - v >= TRACE_HOST_RELEASE_MAX || v == end)
			return -EINVAL;
		/* "-": the writer did not know it */
		if (end - v == 1 && *v == '-')
			return 0;
		memcpy(m->release, v, end - v);
		m->release[end - v] = '\0';
	} else if (klen == 2 && !memcmp(w, "hz", 2)) {
		if (number(v, end, 100000, &n) || !n)
			return -EINVAL;
		m->hz = (unsigned int)n;
	} else if (klen == 11 && !memcmp(w, "realtime_ns", 11)) {
		if (number(v, end, INT64_MAX, &n))
			return -EINVAL;
		m->realtime_ns = (int64_t)n;
		*realtime = true;
	} else if (klen == 7 && !memcmp(w, "mono_ns", 7)) {
		if (number(v, end, UINT64_MAX, &n))
			return -EINVAL;
		m->mono_ns = n;
		*mono = true;
	}
	return 0;
}

int host_marker_parse(const char *text, size_t len, struct host_marker *m)
{
	const char *s = text, *end = text + len;
	bool realtime = false, mono = false;

	memset(m, 0, sizeof(*m));
	while (end > s && (end[-1] == '\n' || end[-1] == '\0'))
		end--;
	while (s < end) {
		const char *w = s, *sp = memchr(s, ' ', end - s);
		const char *wend = sp ? sp : end;

		if (wend > w && take_word(w, wend, m, &realtime, &mono) < 0) {
			memset(m, 0, sizeof(*m));
			return -EINVAL;
		}
		s = sp ? sp + 1 : end;
	}
	/* a wall clock is a pair read side by side, or nothing */
	m->has_clock = realtime && mono;
	if (!m->has_clock) {
		m->realtime_ns = 0;
		m->mono_ns = 0;
	}
	return 0;
}
