/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics-tls.h - the TLS of blkstack monitor's endpoint, with GnuTLS (the
 * library libmicrohttpd serves TLS with): the server's certificate and key,
 * the CAs of client certificates, the versions and groups allowed, read
 * from a web configuration and set on each connection before its
 * handshake.
 *
 * Each connection takes the credentials loaded last, so that a certificate
 * rotated on disk serves the next handshake (metrics-conf.h reloads).
 * Client certificates are checked during the handshake: a certificate
 * that no client CA signed, or none where one is required, fails it.
 */
#ifndef BLKSTACK_OUT_METRICS_TLS_H
#define BLKSTACK_OUT_METRICS_TLS_H

#include <stddef.h>

#include "output/webconfig.h"

struct mtls;

/**
 * mtls_load - the TLS of @c (c->tls must be set): the files it names read,
 * the certificate chain, the key and the client CAs parsed by GnuTLS, the
 * key checked against the certificate, the versions and groups turned
 * into a GnuTLS priority
 * @err: on failure, "KEY: what" naming the setting at fault, @errlen bytes
 *
 * GnuTLS is opened here, by its soname (libmicrohttpd links it).
 * Returns the credentials, or NULL after writing @err.
 */
struct mtls *mtls_load(const struct webcfg *c, char *err, size_t errlen);

/** mtls_free - NULL is accepted; no session may still use @t */
void mtls_free(struct mtls *t);

/**
 * mtls_pem - the certificate chain and key as read (PEM, NUL-ended), which
 * libmicrohttpd's start wants in memory
 */
void mtls_pem(const struct mtls *t, const char **cert, const char **key);

/**
 * mtls_session_setup - set @t on a server session that has not shaken
 * hands yet: its credentials, priority and client certificate policy
 * @session: a gnutls_session_t
 * Returns 0, or a negative GnuTLS error (the connection must be closed).
 */
int mtls_session_setup(const struct mtls *t, void *session);

#endif /* BLKSTACK_OUT_METRICS_TLS_H */
