// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmdlines.c - task names from a trace.dat's saved_cmdlines text (see
 * cmdlines.h).
 *
 * The names must stay those the file gave through libtraceevent, where
 * each line went through sscanf("%d %31[^\n]") into tep_register_comm():
 * the line reader copies sscanf's rules, and the table is ordered as
 * libtraceevent orders its own (a list built newest first, then sorted
 * by pid with glibc's stable qsort) and searched with the same bsearch,
 * so that a pid listed twice gets the same one of its names.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/cmdlines.h"

/* the longest line read: sscanf went through a 64-byte copy */
#define LINE_MAX_LEN	63
/* the longest name: "%31[^\n]" */
#define COMM_MAX_LEN	31

struct cmdline {
	int32_t pid;
	uint32_t line;		/* its line's rank in the text: the later first among equal pids */
	char comm[COMM_MAX_LEN + 1];
};

struct cmdlines {
	struct cmdline *v;
	size_t n;
};

/* scanf's white space in the C locale */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/*
 * "%d" as glibc reads it: strtol's value, saturated at LONG_MIN and
 * LONG_MAX, narrowed to int. Returns the position after it, or NULL when
 * no digit follows the sign.
 */
static const char *read_pid(const char *p, const char *end, int32_t *pid)
{
	const unsigned long long cap = (unsigned long long)LONG_MAX + 1;
	unsigned long long v = 0;
	const char *digits;
	bool neg = false;
	long l;

	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	/* v stops at cap + 1: beyond, strtol's value is saturated anyway */
	for (digits = p; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		v = v > (cap + 1 - d) / 10 ? cap + 1 : v * 10 + d;
	}
	if (p == digits)
		return NULL;
	if (neg)
		l = v >= cap ? LONG_MIN : -(long)v;
	else
		l = v > (unsigned long long)LONG_MAX ? LONG_MAX : (long)v;
	*pid = (int32_t)l;
	return p;
}

/* One line (no '\n' in it) into @c; false when sscanf would not have matched both. */
static bool read_line(const char *p, size_t n, struct cmdline *c)
{
	const char *end = memchr(p, '\0', n);
	size_t len;

	if (!end)
		end = p + n;
	while (p < end && is_blank(*p))
		p++;
	p = read_pid(p, end, &c->pid);
	if (!p)
		return false;
	while (p < end && is_blank(*p))
		p++;
	len = (size_t)(end - p);
	if (!len)
		return false;
	if (len > COMM_MAX_LEN)
		len = COMM_MAX_LEN;
	memcpy(c->comm, p, len);
	c->comm[len] = '\0';
	return true;
}

static int by_pid_later_first(const void *a, const void *b)
{
	const struct cmdline *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->line > y->line ? -1 : x->line < y->line;
}

static int by_pid(const void *a, const void *b)
{
	const struct cmdline *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

struct cmdlines *cmdlines_parse(const char *text, size_t size)
{
	const char *end = text + size;
	struct cmdlines *t;
	size_t cap = 0;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	while (text < end) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t n = (size_t)((nl ? nl : end) - text);
		struct cmdline c;

		if (n <= LINE_MAX_LEN && read_line(text, n, &c) && c.pid > 0) {
			if (t->n == cap) {
				size_t ncap = cap ? cap * 2 : 256;
				struct cmdline *v = realloc(t->v, ncap * sizeof(*v));

				if (!v) {
					cmdlines_free(t);
					errno = ENOMEM;
					return NULL;
				}
				t->v = v;
				cap = ncap;
			}
			c.line = (uint32_t)t->n;
			t->v[t->n++] = c;
		}
		text += n + 1;
	}
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), by_pid_later_first);
	return t;
}

const char *cmdlines_find(const struct cmdlines *c, int32_t pid)
{
	struct cmdline key = { .pid = pid };
	const struct cmdline *hit;

	if (!c || !c->n)
		return NULL;
	hit = bsearch(&key, c->v, c->n, sizeof(*c->v), by_pid);
	return hit ? hit->comm : NULL;
}

void cmdlines_free(struct cmdlines *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}
