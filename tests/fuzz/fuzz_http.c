// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_http.c - blkstack monitor's request handling: any method, path,
 * headers and body through output/metrics-route.c (what the endpoint
 * answers, which metrics-http.c only carries out) and the Authorization
 * header through output/basic-auth.c, against a user whose bcrypt hash
 * htpasswd made, under each policy (users or none, POST /record on or
 * off, anyone may record or not).
 *
 * Input: a byte of settings (bit 0: users, bit 1: POST /record on, bit 2:
 * anyone may record), then NUL-separated fields: the method, the path,
 * then header names and values in pairs until an empty name; what is
 * left is the body. Headers are looked up as libmicrohttpd does: the
 * first of that name, in any case.
 *
 * Checked beyond the sanitizers: with users, nothing but a 401 without the
 * user's credentials; a recording only by POST to /record, when on,
 * within the body's bound, and by the user or where anyone may; a
 * challenge exactly with a 401, Allow exactly with a 405; a decoded
 * user and password inside the buffer they were decoded into.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/metrics-route.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

/* htpasswd -nbBC 4 prometheus secret: cost 4, so that a check is ~1 ms */
#define PROM_HASH "$2y$04$fcqfAwcoHfee8fNjMEYNP.xmj4IYBxJUt3cmsdvGQPOkWXV/Tstuy"
#define MAX_HEADERS 32

static struct bauth *auth;

/* The next NUL-ended field of [*p, end), or NULL when none is left. */
static const char *field(const char **p, const char *end)
{
	const char *f = *p, *nul;

	if (f >= end)
		return NULL;
	nul = memchr(f, '\0', end - f);
	if (!nul)
		return NULL;
	*p = nul + 1;
	return f;
}

/* The credentials the user would send, decoded without basic-auth.c. */
static bool is_the_user(const char *header)
{
	char buf[BAUTH_MAX_CREDENTIALS + 1];
	const char *user, *pass;

	if (!header || bauth_decode(header, buf, sizeof(buf), &user, &pass) < 0)
		return false;
	/* inside the buffer, NUL-ended */
	if (user < buf || user >= buf + sizeof(buf) || pass <= user || pass >= buf + sizeof(buf))
		abort();
	return !strcmp(user, "prometheus") && !strcmp(pass, "secret");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	const char *names[MAX_HEADERS], *values[MAX_HEADERS];
	struct mroute_policy p;
	struct mroute_request r = { 0 };
	struct mroute_result res;
	const char *pos, *end;
	char *text;
	size_t n = 0;
	bool allowed;

	if (!auth) {
		struct webcfg_user u = { .name = "prometheus", .hash = PROM_HASH };

		auth = bauth_alloc(&u, 1);
		if (!auth)
			abort();
	}
	if (len < 1)
		return 0;
	p = (struct mroute_policy){ .auth = data[0] & 1 ? auth : NULL, .record = data[0] & 2,
				    .record_anyone = data[0] & 4 };
	/* a copy exactly as long as the input: the last field has no NUL to lean on */
	text = malloc(len - 1 ? len - 1 : 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, len - 1);
	pos = text;
	end = text + len - 1;
	r.method = field(&pos, end);
	r.url = r.method ? field(&pos, end) : NULL;
	if (!r.url)
		goto out;
	while (n < MAX_HEADERS) {
		const char *name = field(&pos, end), *value;

		if (!name || !*name)
			break;
		value = field(&pos, end);
		if (!value)
			break;
		names[n] = name;
		values[n++] = value;
	}
	for (size_t i = n; i-- > 0;) {
		if (!strcasecmp(names[i], "Authorization"))
			r.authorization = values[i];
		else if (!strcasecmp(names[i], "Accept"))
			r.accept = values[i];
	}
	r.body = end > pos ? end - pos : 0;
	mroute_decide(&p, &r, &res);

	if ((res.status == 401) != res.challenge || (res.status == 405) != (res.allow != NULL))
		abort();
	if (res.action == MROUTE_REPLY && !res.text)
		abort();
	if (p.auth && res.status != 401 && !is_the_user(r.authorization))
		abort();
	if (res.action == MROUTE_RECORD) {
		allowed = p.auth ? is_the_user(r.authorization) : p.record_anyone;
		if (!p.record || strcmp(r.method, "POST") || strcmp(r.url, "/record") ||
		    r.body > MROUTE_MAX_BODY || !allowed || res.status != 202)
			abort();
	}
	if (res.action == MROUTE_METRICS && strcmp(r.url, "/metrics"))
		abort();
out:
	free(text);
	return 0;
}
