/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * util.h - messages and small parsers shared by the commands.
 */
#ifndef BLKSTACK_UTIL_H
#define BLKSTACK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROGRAM_NAME "blkstack"

/* Exit codes of every command, documented in each man page. */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
};

extern bool util_debug;

/** err_msg - "blkstack: <message>" on stderr, with a newline added */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** hint_msg - "  hint: <message>" on stderr, after an err_msg() */
void hint_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** warn_msg - "blkstack: warning: <message>" on stderr */
void warn_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** note_msg - "blkstack: note: <message>" on stderr */
void note_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** debug_msg - like err_msg(), only with -D/--debug */
void debug_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * parse_duration - "10", "10s", "500ms", "2m", "1h", "1.5s" to nanoseconds
 * Returns 0, or -EINVAL (not a duration, or zero) / -ERANGE.
 */
int parse_duration(const char *s, uint64_t *ns);

/**
 * parse_uint - a decimal unsigned integer within [min, max]
 * Returns 0, or -EINVAL / -ERANGE.
 */
int parse_uint(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *val);

/** mono_now_ns - CLOCK_MONOTONIC in ns (the trace clock blkstack uses) */
uint64_t mono_now_ns(void);

#endif /* BLKSTACK_UTIL_H */
