/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * basic-auth.h - HTTP basic authentication (RFC 7617) against the bcrypt
 * hashes of a web configuration's basic_auth_users, checked with libcrypt
 * (libxcrypt).
 *
 * A bcrypt check costs tens of milliseconds by design (cost 10: ~70 ms), and
 * Prometheus sends the same credentials at every scrape: a pair that was
 * checked is remembered (as exporter-toolkit does), so that a scrape costs
 * one comparison. An unknown user costs a bcrypt check too, so that the
 * time of a refusal does not tell which users exist. Safe to call from
 * the HTTP server's threads at once.
 */
#ifndef BLKSTACK_OUT_BASIC_AUTH_H
#define BLKSTACK_OUT_BASIC_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "output/webconfig.h"

/* Credentials remembered after a successful check (the least recent go first). */
#define BAUTH_CACHE_SIZE 16
/* The longest "user:password" taken from a header. */
#define BAUTH_MAX_CREDENTIALS 1024

struct bauth;

/* What bauth_check() found. */
enum bauth_result {
	BAUTH_OK = 0,		/* a configured user with its password */
	BAUTH_MISSING,		/* no Authorization header */
	BAUTH_MALFORMED,	/* not "Basic BASE64(user:password)" */
	BAUTH_DENIED,		/* an unknown user or a wrong password */
};

/**
 * bauth_alloc - the users of a web configuration (copied)
 * Returns the checker, or NULL with errno set.
 */
struct bauth *bauth_alloc(const struct webcfg_user *users, size_t nusers);

/** bauth_free - NULL is accepted */
void bauth_free(struct bauth *a);

/**
 * bauth_check - the credentials of an Authorization header value
 * @header: the value, or NULL when the request has none
 * Returns what was found; only BAUTH_OK lets a request through.
 */
enum bauth_result bauth_check(struct bauth *a, const char *header);

/**
 * bauth_decode - "Basic BASE64" into "user" and "password"
 * @header: the header's value
 * @buf: room for the decoded text, @buflen bytes
 * @user: set to the user name inside @buf
 * @pass: set to the password inside @buf
 *
 * The scheme is matched without case, spaces after it are skipped, the
 * base64 must be padded and canonical (RFC 4648), and the text must hold a
 * ':' and no NUL. Returns 0 or -EINVAL.
 */
int bauth_decode(const char *header, char *buf, size_t buflen, const char **user,
		 const char **pass);

#endif /* BLKSTACK_OUT_BASIC_AUTH_H */
