/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics-conf.h - a web configuration as the endpoint serves it: the file
 * read (webconfig.h), its users ready to check (basic-auth.h), its TLS
 * loaded (metrics-tls.h), and what its files looked like when read, so
 * that a change on disk is seen and the file read again, as
 * exporter-toolkit reads it again for every connection.
 *
 * Counted references: a connection keeps the configuration it started
 * with until it closes, while the next ones take the new one.
 */
#ifndef BLKSTACK_OUT_METRICS_CONF_H
#define BLKSTACK_OUT_METRICS_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "output/basic-auth.h"
#include "output/metrics-tls.h"
#include "output/webconfig.h"

/* the web configuration and the certificate, key and CA files it names */
#define MCONF_MAX_FILES 4

/* What a file looked like when read: a change of any of these is a change. */
struct mconf_stamp {
	const char *path;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	int err;		/* the errno of stat(), 0 when it worked */
};

/**
 * struct mconf - a loaded web configuration
 * @path: the file
 * @cfg: its settings
 * @auth: its users, NULL when it has none
 * @tls: its TLS, NULL when it has none (plain HTTP)
 */
struct mconf {
	char *path;
	struct webcfg cfg;
	struct bauth *auth;
	struct mtls *tls;
	struct mconf_stamp files[MCONF_MAX_FILES];
	size_t nfiles;
	int refs;
};

/**
 * mconf_load - read the web configuration @path and everything it names
 * @err: on failure, what is wrong and where ("line N: KEY: what", or
 *	 "KEY: cannot read 'FILE': ..."), @errlen bytes
 * Returns the configuration (one reference), or NULL after writing @err.
 */
struct mconf *mconf_load(const char *path, char *err, size_t errlen);

/** mconf_get - one more reference to @c */
struct mconf *mconf_get(struct mconf *c);

/** mconf_put - drop a reference; the last frees @c. NULL is accepted. */
void mconf_put(struct mconf *c);

/**
 * mconf_changed - whether a file @c was read from has changed since (its
 * size, time, inode, or whether it exists)
 */
bool mconf_changed(const struct mconf *c);

#endif /* BLKSTACK_OUT_METRICS_CONF_H */
