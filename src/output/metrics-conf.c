// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics-conf.c - a web configuration as the endpoint serves it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "output/metrics-conf.h"

static void stamp(struct mconf_stamp *s, const char *path)
{
	struct stat sb;

	*s = (struct mconf_stamp){ .path = path };
	if (stat(path, &sb) < 0) {
		s->err = errno;
		return;
	}
	s->dev = sb.st_dev;
	s->ino = sb.st_ino;
	s->size = sb.st_size;
	s->mtime = sb.st_mtim;
}

static bool same_stamp(const struct mconf_stamp *a, const struct mconf_stamp *b)
{
	return a->err == b->err && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

struct mconf *mconf_load(const char *path, char *err, size_t errlen)
{
	struct mconf *c = calloc(1, sizeof(*c));
	const char *names[MCONF_MAX_FILES - 1];
	char what[512];

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->refs = 1;
	c->path = strdup(path);
	if (!c->path) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* stamped before reading: a change while it is read is seen next time */
	stamp(&c->files[c->nfiles++], c->path);
	if (webcfg_load(path, &c->cfg, what, sizeof(what)) < 0) {
		snprintf(err, errlen, "%s", what);
		goto fail;
	}
	names[0] = c->cfg.cert_file;
	names[1] = c->cfg.key_file;
	names[2] = c->cfg.client_ca_file;
	for (size_t i = 0; i < MCONF_MAX_FILES - 1; i++)
		if (names[i])
			stamp(&c->files[c->nfiles++], names[i]);
	if (c->cfg.nusers) {
		c->auth = bauth_alloc(c->cfg.users, c->cfg.nusers);
		if (!c->auth) {
			snprintf(err, errlen, "basic_auth_users: out of memory");
			goto fail;
		}
	}
	if (c->cfg.tls) {
		c->tls = mtls_load(&c->cfg, err, errlen);
		if (!c->tls)
			goto fail;
	}
	return c;
fail:
	mconf_put(c);
	return NULL;
}

struct mconf *mconf_get(struct mconf *c)
{
	__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
	return c;
}

void mconf_put(struct mconf *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
		return;
	mtls_free(c->tls);
	bauth_free(c->auth);
	webcfg_free(&c->cfg);
	free(c->path);
	free(c);
}

bool mconf_changed(const struct mconf *c)
{
	for (size_t i = 0; i < c->nfiles; i++) {
		struct mconf_stamp now;

		stamp(&now, c->files[i].path);
		if (!same_stamp(&now, &c->files[i]))
			return true;
	}
	return false;
}
