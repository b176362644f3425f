// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * basic-auth.c - basic authentication against bcrypt hashes (libcrypt).
 */
#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output/basic-auth.h"

struct bauth_seen {
	size_t user;		/* index in the users */
	char *pass;		/* NULL: an empty slot */
	size_t len;
	uint64_t used;		/* when last matched, in checks */
};

struct bauth {
	struct webcfg_user *users;
	size_t nusers;
	pthread_mutex_t lock;
	struct bauth_seen seen[BAUTH_CACHE_SIZE];
	uint64_t clock;
};

/* Equal bytes, in a time that does not depend on where they differ. */
static bool same_bytes(const char *a, const char *b, size_t n)
{
	unsigned char diff = 0;

	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)a[i] ^ (unsigned char)b[i];
	return diff == 0;
}

static void forget(struct bauth_seen *s)
{
	if (s->pass) {
		explicit_bzero(s->pass, s->len);
		free(s->pass);
	}
	s->pass = NULL;
}

struct bauth *bauth_alloc(const struct webcfg_user *users, size_t nusers)
{
	struct bauth *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	pthread_mutex_init(&a->lock, NULL);
	a->users = calloc(nusers ? nusers : 1, sizeof(*a->users));
	if (!a->users)
		goto fail;
	for (; a->nusers < nusers; a->nusers++) {
		struct webcfg_user *u = &a->users[a->nusers];

		u->name = strdup(users[a->nusers].name);
		u->hash = strdup(users[a->nusers].hash);
		if (!u->name || !u->hash) {
			free(u->name);
			free(u->hash);
			goto fail;
		}
	}
	return a;
fail:
	bauth_free(a);
	errno = ENOMEM;
	return NULL;
}

void bauth_free(struct bauth *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < BAUTH_CACHE_SIZE; i++)
		forget(&a->seen[i]);
	for (size_t i = 0; i < a->nusers; i++) {
		free(a->users[i].name);
		free(a->users[i].hash);
	}
	free(a->users);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Padded, canonical base64 of @n characters into @out; the length, or -1. */
static long b64_decode(const char *in, size_t n, char *out, size_t outlen)
{
	size_t o = 0;

	if (n % 4)
		return -1;
	for (size_t i = 0; i < n; i += 4) {
		int v[4], pad = 0;
		uint32_t bits = 0;

		for (int k = 0; k < 4; k++) {
			/* '=' only at the end: one or two of them */
			if (in[i + k] == '=' && i + 4 == n && k >= 2 && (k == 3 || in[i + 3] == '=')) {
				v[k] = 0;
				pad++;
				continue;
			}
			v[k] = b64_value(in[i + k]);
			if (v[k] < 0 || pad)
				return -1;
			bits |= (uint32_t)v[k] << (18 - 6 * k);
		}
		/* the bits that padding leaves over must be zero (canonical) */
		if ((pad == 1 && (bits & 0xff)) || (pad == 2 && (bits & 0xffff)))
			return -1;
		if (o + 3 - pad > outlen)
			return -1;
		out[o++] = bits >> 16;
		if (pad < 2)
			out[o++] = bits >> 8;
		if (pad < 1)
			out[o++] = bits;
	}
	return o;
}

int bauth_decode(const char *header, char *buf, size_t buflen, const char **user,
		 const char **pass)
{
	size_t n;
	long len;
	char *colon;

	if (strncasecmp(header, "Basic", 5) || (header[5] != ' ' && header[5] != '\t'))
		return -EINVAL;
	header += 5;
	header += strspn(header, " \t");
	n = strcspn(header, " \t");
	/* nothing but spaces may follow the credentials */
	if (header[n + strspn(header + n, " \t")] || !buflen)
		return -EINVAL;
	len = b64_decode(header, n, buf, buflen - 1);
	if (len < 0 || memchr(buf, '\0', len))
		return -EINVAL;
	buf[len] = '\0';
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	*user = buf;
	*pass = colon + 1;
	return 0;
}

/* bcrypt of @pass with @hash's cost and salt equals @hash. */
static bool bcrypt_matches(const char *pass, const char *hash)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;
	bool ok = false;

	if (!cd)
		return false;
	out = crypt_rn(pass, hash, cd, sizeof(*cd));
	if (out && strlen(out) == strlen(hash))
		ok = same_bytes(out, hash, strlen(hash));
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

/* A pair checked before: the slot, or -1. Called locked. */
static int seen_slot(struct bauth *a, size_t user, const char *pass, size_t len)
{
	for (int i = 0; i < BAUTH_CACHE_SIZE; i++) {
		struct bauth_seen *s = &a->seen[i];

		if (s->pass && s->user == user && s->len == len && same_bytes(s->pass, pass, len))
			return i;
	}
	return -1;
}

/* Remember a pair that matched, in place of the least recently used. */
static void remember(struct bauth *a, size_t user, const char *pass, size_t len)
{
	struct bauth_seen *victim = &a->seen[0];
	char *copy = malloc(len + 1);

	if (!copy)
		return;		/* the next check is a bcrypt again: slower, not wrong */
	memcpy(copy, pass, len + 1);
	pthread_mutex_lock(&a->lock);
	if (seen_slot(a, user, pass, len) >= 0) {
		pthread_mutex_unlock(&a->lock);
		explicit_bzero(copy, len);
		free(copy);
		return;
	}
	for (int i = 0; i < BAUTH_CACHE_SIZE; i++) {
		if (!a->seen[i].pass) {
			victim = &a->seen[i];
			break;
		}
		if (a->seen[i].used < victim->used)
			victim = &a->seen[i];
	}
	forget(victim);
	*victim = (struct bauth_seen){ .user = user, .pass = copy, .len = len,
				       .used = ++a->clock };
	pthread_mutex_unlock(&a->lock);
}

enum bauth_result bauth_check(struct bauth *a, const char *header)
{
	char buf[BAUTH_MAX_CREDENTIALS + 1];
	const char *user, *pass;
	enum bauth_result r = BAUTH_DENIED;
	size_t u, len;
	int slot;

	if (!header)
		return BAUTH_MISSING;
	if (bauth_decode(header, buf, sizeof(buf), &user, &pass) < 0) {
		explicit_bzero(buf, sizeof(buf));
		return BAUTH_MALFORMED;
	}
	len = strlen(pass);
	for (u = 0; u < a->nusers && strcmp(a->users[u].name, user); u++)
		;
	if (u < a->nusers) {
		pthread_mutex_lock(&a->lock);
		slot = seen_slot(a, u, pass, len);
		if (slot >= 0)
			a->seen[slot].used = ++a->clock;
		pthread_mutex_unlock(&a->lock);
		if (slot >= 0) {
			r = BAUTH_OK;
		} else if (bcrypt_matches(pass, a->users[u].hash)) {
			remember(a, u, pass, len);
			r = BAUTH_OK;
		}
	} else if (a->nusers) {
		/* as long as a known user's check: the refusal tells no names */
		bcrypt_matches(pass, a->users[0].hash);
	}
	explicit_bzero(buf, sizeof(buf));
	return r;
}
