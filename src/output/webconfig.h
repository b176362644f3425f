/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * webconfig.h - the web configuration file of Prometheus's exporter-toolkit
 * (node_exporter's --web.config.file), read for blkstack monitor's
 * endpoint: TLS (tls_server_config), basic-auth users with bcrypt hashes
 * (basic_auth_users) and response headers (http_server_config), so that
 * the file operators already keep for their exporters serves here too.
 *
 * Reading is pure: the file's text into a struct, every key checked, an
 * error naming the key and its line. The certificates and keys it names
 * are read when the endpoint starts (metrics-tls.h).
 */
#ifndef BLKSTACK_OUT_WEBCONFIG_H
#define BLKSTACK_OUT_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/* A web configuration file larger than this is refused: it is a few lines. */
#define WEBCFG_MAX_BYTES (1 << 20)

/* tls_server_config.client_auth_type, as Go's tls.ClientAuthType. */
enum webcfg_client_auth {
	WEBCFG_NO_CLIENT_CERT = 0,
	WEBCFG_REQUEST_CLIENT_CERT,
	WEBCFG_REQUIRE_ANY_CLIENT_CERT,
	WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN,
	WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT,
};

/* min_version and max_version */
enum webcfg_tls_version {
	WEBCFG_TLS10 = 10,
	WEBCFG_TLS11,
	WEBCFG_TLS12,
	WEBCFG_TLS13,
};

/* curve_preferences: the four names exporter-toolkit accepts */
enum webcfg_curve {
	WEBCFG_CURVE_P256,
	WEBCFG_CURVE_P384,
	WEBCFG_CURVE_P521,
	WEBCFG_CURVE_X25519,
	WEBCFG_CURVES
};

/* http_server_config.headers: the ones exporter-toolkit allows */
#define WEBCFG_MAX_HEADERS 5

/**
 * struct webcfg_user - one of basic_auth_users
 * @name: the user name
 * @hash: its bcrypt hash ($2a$, $2b$ or $2y$, cost 4 to 31)
 */
struct webcfg_user {
	char *name;
	char *hash;
};

/**
 * struct webcfg_header - one of http_server_config.headers
 * @name: the header, as exporter-toolkit spells it
 * @value: its value
 */
struct webcfg_header {
	const char *name;
	char *value;
};

/**
 * struct webcfg - a web configuration file
 * @tls: serve TLS: some key of tls_server_config was given
 * @cert_file: the server's certificate chain (PEM), NULL when @cert is given
 * @key_file: its private key (PEM), NULL when @key is given
 * @client_ca_file: the CAs that sign client certificates, or NULL
 * @cert: cert: the chain inline, or NULL
 * @key: key: the key inline, or NULL
 * @client_ca: client_ca: the CAs inline, or NULL
 * @client_auth: client_auth_type
 * @min_version: min_version (default TLS12)
 * @max_version: max_version (default TLS13)
 * @server_precedence: prefer_server_cipher_suites (default true)
 * @curves: curve_preferences in order, @ncurves of them (none: GnuTLS's)
 * @headers: http_server_config.headers given, @nheaders of them
 * @users: basic_auth_users, @nusers of them (none: no authentication)
 *
 * Relative file names are taken from the file's directory, as
 * exporter-toolkit takes them.
 */
struct webcfg {
	bool tls;
	char *cert_file;
	char *key_file;
	char *client_ca_file;
	char *cert;
	char *key;
	char *client_ca;
	enum webcfg_client_auth client_auth;
	enum webcfg_tls_version min_version;
	enum webcfg_tls_version max_version;
	bool server_precedence;
	enum webcfg_curve curves[WEBCFG_CURVES];
	size_t ncurves;
	struct webcfg_header headers[WEBCFG_MAX_HEADERS];
	size_t nheaders;
	struct webcfg_user *users;
	size_t nusers;
};

/**
 * webcfg_parse - read a web configuration from @text
 * @text: the YAML text, @len bytes (need not end in a NUL)
 * @dir: the directory relative file names are taken from ("." for none)
 * @c: the configuration (webcfg_free() it, whatever the result)
 * @err: on failure, what is wrong: "line N: KEY: what", @errlen bytes
 *
 * Returns 0, -EINVAL for a file that is not valid (an unknown key, a value
 * of the wrong kind, a hash that is not bcrypt, a TLS setting that needs
 * another), or -ENOMEM.
 */
int webcfg_parse(const char *text, size_t len, const char *dir, struct webcfg *c, char *err,
		 size_t errlen);

/**
 * webcfg_load - webcfg_parse() of the file @path
 *
 * Returns as webcfg_parse(), or the negative errno of reading @path (@err
 * then says so), or -EFBIG for a file above WEBCFG_MAX_BYTES.
 */
int webcfg_load(const char *path, struct webcfg *c, char *err, size_t errlen);

/** webcfg_free - release what @c holds (a zeroed or half-read one too) */
void webcfg_free(struct webcfg *c);

/** webcfg_client_auth_name - the name of @a, as the file spells it */
const char *webcfg_client_auth_name(enum webcfg_client_auth a);

#endif /* BLKSTACK_OUT_WEBCONFIG_H */
