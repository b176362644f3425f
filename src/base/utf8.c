// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * utf8.c - text from the kernel made safe for JSON and CSV.
 */
#include <stdint.h>

#include "base/utf8.h"

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t seq_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates and beyond U+10FFFF are invalid */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

char *utf8_sanitize(const char *in, size_t inlen, char *out, size_t outlen)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0;

	while (i < inlen && s[i] && o + 1 < outlen) {
		size_t len = seq_len(s + i, inlen - i);

		/* a sequence cut by the end of the field is as invalid as a bad one */
		for (size_t k = 1; k < len; k++)
			if (!s[i + k])
				len = 0;
		if (!len || s[i] < 0x20 || s[i] == 0x7f) {
			out[o++] = '?';
			i++;
			continue;
		}
		if (o + len >= outlen)
			break;
		for (size_t k = 0; k < len; k++)
			out[o++] = s[i++];
	}
	out[o] = '\0';
	return out;
}
