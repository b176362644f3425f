// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics-tls.c - the endpoint's TLS, with GnuTLS.
 *
 * GnuTLS is opened by its soname, as libmicrohttpd is (metrics-http.c):
 * linking it would cost every command its loading at start, and only
 * monitor --listen with a web configuration uses it. Each connection gets
 * these credentials and this priority in place of the ones libmicrohttpd
 * set up at its start (gnutls_credentials_set() and gnutls_priority_set()
 * on the session, before the handshake), which is what lets a rotated
 * certificate serve the next handshake without a restart.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/metrics-tls.h"

/* A certificate chain of more certificates than this is refused. */
#define MTLS_MAX_CHAIN 16

struct mtls {
	gnutls_certificate_credentials_t cred;
	gnutls_priority_t prio;
	enum webcfg_client_auth client_auth;
	char *cert_pem;
	char *key_pem;
};

/* The GnuTLS calls made here, resolved by gnutls_load(). */
static struct {
	__typeof__(&gnutls_certificate_allocate_credentials) cert_alloc;
	__typeof__(&gnutls_certificate_free_credentials) cert_free;
	__typeof__(&gnutls_certificate_set_x509_key_mem2) set_key_mem2;
	__typeof__(&gnutls_certificate_set_x509_trust_mem) set_trust_mem;
	__typeof__(&gnutls_x509_crt_list_import) crt_list_import;
	__typeof__(&gnutls_x509_crt_deinit) crt_deinit;
	__typeof__(&gnutls_x509_privkey_init) privkey_init;
	__typeof__(&gnutls_x509_privkey_import2) privkey_import2;
	__typeof__(&gnutls_x509_privkey_deinit) privkey_deinit;
	__typeof__(&gnutls_priority_init) priority_init;
	__typeof__(&gnutls_priority_deinit) priority_deinit;
	__typeof__(&gnutls_priority_set) priority_set;
	__typeof__(&gnutls_credentials_set) credentials_set;
	__typeof__(&gnutls_certificate_server_set_request) set_request;
	__typeof__(&gnutls_session_set_verify_function) set_verify_function;
	__typeof__(&gnutls_certificate_get_peers) get_peers;
	__typeof__(&gnutls_certificate_verify_peers) verify_peers;
	__typeof__(&gnutls_strerror) strerror;
	__typeof__(&gnutls_alert_send) alert_send;
} gt;

/* Open GnuTLS once; -ELIBACC with *@what set when it or a call is missing. */
static int gnutls_load(const char **what)
{
	static void *lib;
	const struct {
		const char *name;
		void **fn;
	} calls[] = {
		{ "gnutls_certificate_allocate_credentials", (void **)&gt.cert_alloc },
		{ "gnutls_certificate_free_credentials", (void **)&gt.cert_free },
		{ "gnutls_certificate_set_x509_key_mem2", (void **)&gt.set_key_mem2 },
		{ "gnutls_certificate_set_x509_trust_mem", (void **)&gt.set_trust_mem },
		{ "gnutls_x509_crt_list_import", (void **)&gt.crt_list_import },
		{ "gnutls_x509_crt_deinit", (void **)&gt.crt_deinit },
		{ "gnutls_x509_privkey_init", (void **)&gt.privkey_init },
		{ "gnutls_x509_privkey_import2", (void **)&gt.privkey_import2 },
		{ "gnutls_x509_privkey_deinit", (void **)&gt.privkey_deinit },
		{ "gnutls_priority_init", (void **)&gt.priority_init },
		{ "gnutls_priority_deinit", (void **)&gt.priority_deinit },
		{ "gnutls_priority_set", (void **)&gt.priority_set },
		{ "gnutls_credentials_set", (void **)&gt.credentials_set },
		{ "gnutls_certificate_server_set_request", (void **)&gt.set_request },
		{ "gnutls_session_set_verify_function", (void **)&gt.set_verify_function },
		{ "gnutls_certificate_get_peers", (void **)&gt.get_peers },
		{ "gnutls_certificate_verify_peers", (void **)&gt.verify_peers },
		{ "gnutls_strerror", (void **)&gt.strerror },
		{ "gnutls_alert_send", (void **)&gt.alert_send },
	};

	if (lib)
		return 0;
	lib = dlopen(GNUTLS_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		*what = dlerror();
		return -ELIBACC;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		*calls[i].fn = dlsym(lib, calls[i].name);
		if (!*calls[i].fn) {
			*what = "a call blkstack makes is missing in " GNUTLS_SONAME;
			dlclose(lib);
			lib = NULL;
			return -ELIBACC;
		}
	}
	return 0;
}

/* The whole of @path, NUL-ended; NULL with errno set. */
static char *read_text(const char *path)
{
	struct stat sb;
	char *text;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) < 0) {
		err = errno;
		goto fail;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size > WEBCFG_MAX_BYTES) {
		err = S_ISREG(sb.st_mode) ? EFBIG : EINVAL;
		goto fail;
	}
	text = malloc(sb.st_size + 1);
	if (!text) {
		err = ENOMEM;
		goto fail;
	}
	n = read(fd, text, sb.st_size);
	if (n < 0) {
		err = errno;
		free(text);
		goto fail;
	}
	text[n] = '\0';
	close(fd);
	return text;
fail:
	close(fd);
	errno = err;
	return NULL;
}

/*
 * The PEM text of a setting given as a file (@file) or inline (@inline);
 * NULL after writing @err, which names @key.
 */
static char *setting_text(const char *file, const char *inline_text, const char *key,
			  char *err, size_t errlen)
{
	char *text;

	if (!file) {
		text = strdup(inline_text);
		if (!text)
			snprintf(err, errlen, "%s: out of memory", key);
		return text;
	}
	text = read_text(file);
	if (!text)
		snprintf(err, errlen, "%s: cannot read '%s': %s", key, file, strerror(errno));
	return text;
}

static void datum(gnutls_datum_t *d, const char *text)
{
	d->data = (unsigned char *)text;
	d->size = strlen(text);
}

/* The certificate chain parses: its error names @key. */
static int check_chain(const char *pem, const char *key, const char *file, char *err,
		       size_t errlen)
{
	gnutls_x509_crt_t crts[MTLS_MAX_CHAIN];
	unsigned int n = MTLS_MAX_CHAIN;
	gnutls_datum_t d;
	int ret;

	datum(&d, pem);
	ret = gt.crt_list_import(crts, &n, &d, GNUTLS_X509_FMT_PEM,
				 GNUTLS_X509_CRT_LIST_IMPORT_FAIL_IF_EXCEED);
	if (ret < 0 || n == 0) {
		snprintf(err, errlen, "%s: '%s' holds no PEM certificate GnuTLS reads: %s", key,
			 file ? file : "(inline)", ret < 0 ? gt.strerror(ret) : "none found");
		return -EINVAL;
	}
	for (unsigned int i = 0; i < n; i++)
		gt.crt_deinit(crts[i]);
	return 0;
}

static int check_key(const char *pem, const char *key, const char *file, char *err,
		     size_t errlen)
{
	gnutls_x509_privkey_t k;
	gnutls_datum_t d;
	int ret;

	if (gt.privkey_init(&k) < 0) {
		snprintf(err, errlen, "%s: out of memory", key);
		return -ENOMEM;
	}
	datum(&d, pem);
	ret = gt.privkey_import2(k, &d, GNUTLS_X509_FMT_PEM, NULL, 0);
	gt.privkey_deinit(k);
	if (ret < 0) {
		snprintf(err, errlen, "%s: '%s' holds no unencrypted PEM private key GnuTLS reads: %s",
			 key, file ? file : "(inline)", gt.strerror(ret));
		return -EINVAL;
	}
	return 0;
}

/* min_version..max_version and curve_preferences as a GnuTLS priority string. */
static void priority_string(const struct webcfg *c, char *buf, size_t len)
{
	static const char *const versions[] = { "+VERS-TLS1.0", "+VERS-TLS1.1", "+VERS-TLS1.2",
						"+VERS-TLS1.3" };
	static const char *const groups[] = {
		[WEBCFG_CURVE_P256] = "+GROUP-SECP256R1", [WEBCFG_CURVE_P384] = "+GROUP-SECP384R1",
		[WEBCFG_CURVE_P521] = "+GROUP-SECP521R1", [WEBCFG_CURVE_X25519] = "+GROUP-X25519",
	};
	size_t used = snprintf(buf, len, "NORMAL:-VERS-ALL");

	/* highest first: GnuTLS takes the order as the preference */
	for (int v = c->max_version; v >= (int)c->min_version && used < len; v--)
		used += snprintf(buf + used, len - used, ":%s", versions[v - WEBCFG_TLS10]);
	if (c->ncurves && used < len)
		used += snprintf(buf + used, len - used, ":-GROUP-ALL");
	for (size_t i = 0; i < c->ncurves && used < len; i++)
		used += snprintf(buf + used, len - used, ":%s", groups[c->curves[i]]);
	if (c->server_precedence && used < len)
		snprintf(buf + used, len - used, ":%%SERVER_PRECEDENCE");
}

struct mtls *mtls_load(const struct webcfg *c, char *err, size_t errlen)
{
	const char *cert_key = c->cert_file ? "tls_server_config.cert_file" : "tls_server_config.cert";
	const char *key_key = c->key_file ? "tls_server_config.key_file" : "tls_server_config.key";
	const char *ca_key = c->client_ca_file ? "tls_server_config.client_ca_file" :
						 "tls_server_config.client_ca";
	gnutls_datum_t cd, kd;
	char prio[256], *ca = NULL;
	const char *what, *pos;
	struct mtls *t;
	int ret;

	ret = gnutls_load(&what);
	if (ret < 0) {
		snprintf(err, errlen, "tls_server_config: cannot open GnuTLS: %s", what);
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->client_auth = c->client_auth;
	t->cert_pem = setting_text(c->cert_file, c->cert, cert_key, err, errlen);
	if (!t->cert_pem || check_chain(t->cert_pem, cert_key, c->cert_file, err, errlen) < 0)
		goto fail;
	t->key_pem = setting_text(c->key_file, c->key, key_key, err, errlen);
	if (!t->key_pem || check_key(t->key_pem, key_key, c->key_file, err, errlen) < 0)
		goto fail;
	if (gt.cert_alloc(&t->cred) < 0) {
		snprintf(err, errlen, "tls_server_config: out of memory");
		goto fail;
	}
	datum(&cd, t->cert_pem);
	datum(&kd, t->key_pem);
	ret = gt.set_key_mem2(t->cred, &cd, &kd, GNUTLS_X509_FMT_PEM, NULL, 0);
	if (ret < 0) {
		snprintf(err, errlen, "%s: the key does not go with the certificate of %s: %s", key_key,
			 c->cert_file ? c->cert_file : "cert", gt.strerror(ret));
		goto fail;
	}
	if (c->client_ca_file || c->client_ca) {
		gnutls_datum_t ad;

		ca = setting_text(c->client_ca_file, c->client_ca, ca_key, err, errlen);
		if (!ca)
			goto fail;
		datum(&ad, ca);
		ret = gt.set_trust_mem(t->cred, &ad, GNUTLS_X509_FMT_PEM);
		if (ret <= 0) {
			snprintf(err, errlen, "%s: '%s' holds no PEM certificate GnuTLS reads: %s",
				 ca_key, c->client_ca_file ? c->client_ca_file : "(inline)",
				 ret < 0 ? gt.strerror(ret) : "none found");
			goto fail;
		}
	}
	priority_string(c, prio, sizeof(prio));
	ret = gt.priority_init(&t->prio, prio, &pos);
	if (ret < 0) {
		snprintf(err, errlen, "tls_server_config: GnuTLS refuses the versions and curves given ('%s' at '%s'): %s",
			 prio, pos ? pos : "", gt.strerror(ret));
		t->prio = NULL;
		goto fail;
	}
	free(ca);
	return t;
fail:
	free(ca);
	mtls_free(t);
	return NULL;
}

void mtls_free(struct mtls *t)
{
	if (!t)
		return;
	if (t->prio)
		gt.priority_deinit(t->prio);
	if (t->cred)
		gt.cert_free(t->cred);
	free(t->cert_pem);
	if (t->key_pem) {
		explicit_bzero(t->key_pem, strlen(t->key_pem));
		free(t->key_pem);
	}
	free(t);
}

void mtls_pem(const struct mtls *t, const char **cert, const char **key)
{
	*cert = t->cert_pem;
	*key = t->key_pem;
}

/*
 * The client's certificate chain during the handshake: none is a failure
 * when @required, and when @verify it must be signed by a client CA for
 * client authentication. A failure sends its alert (libmicrohttpd closes
 * the connection without one), so that the client is told why. Non-zero
 * fails the handshake.
 */
static int check_client(gnutls_session_t s, bool required, bool verify)
{
	gnutls_typed_vdata_st purpose = {
		.type = GNUTLS_DT_KEY_PURPOSE_OID,
		.data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT,
	};
	unsigned int n = 0, status = 0;

	if (!gt.get_peers(s, &n) || !n) {
		if (!required)
			return 0;
		gt.alert_send(s, GNUTLS_AL_FATAL, GNUTLS_A_CERTIFICATE_REQUIRED);
		return GNUTLS_E_NO_CERTIFICATE_FOUND;
	}
	if (verify && (gt.verify_peers(s, &purpose, 1, &status) < 0 || status)) {
		gt.alert_send(s, GNUTLS_AL_FATAL, GNUTLS_A_BAD_CERTIFICATE);
		return GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR;
	}
	return 0;
}

static int require_any(gnutls_session_t s)
{
	return check_client(s, true, false);
}

static int verify_if_given(gnutls_session_t s)
{
	return check_client(s, false, true);
}

static int require_and_verify(gnutls_session_t s)
{
	return check_client(s, true, true);
}

int mtls_session_setup(const struct mtls *t, void *session)
{
	gnutls_session_t s = session;
	int ret;

	ret = gt.credentials_set(s, GNUTLS_CRD_CERTIFICATE, t->cred);
	if (ret >= 0)
		ret = gt.priority_set(s, t->prio);
	if (ret < 0)
		return ret;
	/* asked for, never required by GnuTLS itself: check_client() says why it fails */
	gt.set_request(s, t->client_auth == WEBCFG_NO_CLIENT_CERT ? GNUTLS_CERT_IGNORE :
							       GNUTLS_CERT_REQUEST);
	if (t->client_auth == WEBCFG_REQUIRE_ANY_CLIENT_CERT)
		gt.set_verify_function(s, require_any);
	else if (t->client_auth == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN)
		gt.set_verify_function(s, verify_if_given);
	else if (t->client_auth == WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT)
		gt.set_verify_function(s, require_and_verify);
	return 0;
}
