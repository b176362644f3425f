// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * util.c - messages and small parsers shared by the commands.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

bool util_debug;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(PROGRAM_NAME ": ", fmt, ap);
	va_end(ap);
}

void hint_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("  hint: ", fmt, ap);
	va_end(ap);
}

void warn_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(PROGRAM_NAME ": warning: ", fmt, ap);
	va_end(ap);
}

void note_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(PROGRAM_NAME ": note: ", fmt, ap);
	va_end(ap);
}

void debug_msg(const char *fmt, ...)
{
	va_list ap;

	if (!util_debug)
		return;
	va_start(ap, fmt);
	vmsg(PROGRAM_NAME ": debug: ", fmt, ap);
	va_end(ap);
}

int parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = {
		{ "", 1e9 }, { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
		{ "m", 60e9 }, { "h", 3600e9 },
	};
	double v;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v <= 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			double t = v * units[i].mult;

			if (t >= 1.8e19)
				return -ERANGE;
			if (t < 1)
				return -EINVAL;
			*ns = (uint64_t)t;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *val)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

uint64_t mono_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
