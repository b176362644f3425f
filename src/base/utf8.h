/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * utf8.h - text from the kernel made safe for JSON and CSV: a task name is
 * whatever bytes the task set (prctl PR_SET_NAME), JSON must be UTF-8.
 */
#ifndef BLKSTACK_UTF8_H
#define BLKSTACK_UTF8_H

#include <stddef.h>

/**
 * utf8_sanitize - copy @in (up to @inlen bytes or its NUL) to @out,
 * replacing each byte that is not part of a valid UTF-8 sequence, and each
 * control character, by '?'
 * @out: @outlen bytes, at least 1; always NUL-terminated, never longer than
 *	 the input
 * Returns @out.
 */
char *utf8_sanitize(const char *in, size_t inlen, char *out, size_t outlen);

#endif /* BLKSTACK_UTF8_H */
