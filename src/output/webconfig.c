// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * webconfig.c - exporter-toolkit's web configuration file, read with libyaml.
 *
 * exporter-toolkit decodes the file strictly (Go's yaml.UnmarshalStrict):
 * an unknown key or a key given twice is an error, and so it is here. A
 * key of the format that blkstack cannot honour (cipher_suites,
 * client_allowed_sans, rate_limit, http2: true) is refused by name rather
 * than read and ignored: a file that says more than the endpoint does must
 * not look accepted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "output/webconfig.h"

struct ctx {
	yaml_document_t *doc;
	const char *dir;
	char *err;
	size_t errlen;
	bool client_auth_given;
};

static const char *const client_auth_names[] = {
	[WEBCFG_NO_CLIENT_CERT] = "NoClientCert",
	[WEBCFG_REQUEST_CLIENT_CERT] = "RequestClientCert",
	[WEBCFG_REQUIRE_ANY_CLIENT_CERT] = "RequireAnyClientCert",
	[WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN] = "VerifyClientCertIfGiven",
	[WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT] = "RequireAndVerifyClientCert",
};

static const char *const curve_names[] = {
	[WEBCFG_CURVE_P256] = "CurveP256",
	[WEBCFG_CURVE_P384] = "CurveP384",
	[WEBCFG_CURVE_P521] = "CurveP521",
	[WEBCFG_CURVE_X25519] = "X25519",
};

/* the headers exporter-toolkit lets a file set, and the values it allows */
static const struct {
	const char *name;
	const char *const allowed[3];	/* NULL-ended; none: any value */
} header_rules[WEBCFG_MAX_HEADERS] = {
	{ "Content-Security-Policy", { NULL } },
	{ "X-Frame-Options", { "deny", "sameorigin", NULL } },
	{ "X-Content-Type-Options", { "nosniff", NULL } },
	{ "X-XSS-Protection", { NULL } },
	{ "Strict-Transport-Security", { NULL } },
};

const char *webcfg_client_auth_name(enum webcfg_client_auth a)
{
	return client_auth_names[a];
}

/* "line N: KEY: what" into the error buffer; returns -EINVAL. */
__attribute__((format(printf, 4, 5)))
static int bad(struct ctx *x, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	used = snprintf(x->err, x->errlen, "line %zu: %s: ", n ? n->start_mark.line + 1 : 1, key);
	if (used < x->errlen) {
		va_start(ap, fmt);
		vsnprintf(x->err + used, x->errlen - used, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* YAML's null: an empty plain scalar, ~ or null (a key given no value). */
static bool is_null(const yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/* The text of scalar @n, refused when it holds a NUL ("\0" in double quotes). */
static int scalar(struct ctx *x, const yaml_node_t *n, const char *key, const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return bad(x, n, key, "a single value is expected here, not a %s",
			   n->type == YAML_MAPPING_NODE ? "mapping" : "list");
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return bad(x, n, key, "the value holds a NUL byte");
	*out = (const char *)n->data.scalar.value;
	return 0;
}

/* A string value; null and "" leave *@out NULL, an absent key (as in Go). */
static int get_string(struct ctx *x, const yaml_node_t *n, const char *key, char **out)
{
	const char *v;
	int ret;

	if (is_null(n))
		return 0;
	ret = scalar(x, n, key, &v);
	if (ret || !*v)
		return ret;
	*out = strdup(v);
	return *out ? 0 : -ENOMEM;
}

/* A file name, taken from the file's directory when relative. */
static int get_path(struct ctx *x, const yaml_node_t *n, const char *key, char **out)
{
	char *v = NULL;
	int ret = get_string(x, n, key, &v);

	if (ret || !v)
		return ret;
	if (v[0] == '/' || !strcmp(x->dir, ".")) {
		*out = v;
		return 0;
	}
	ret = asprintf(out, "%s/%s", x->dir, v);
	free(v);
	if (ret < 0) {
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A boolean as YAML 1.1 spells it (Go's yaml.v2 reads the file so). */
static int get_bool(struct ctx *x, const yaml_node_t *n, const char *key, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "YES",
					   "on", "On", "ON", "y", "Y" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "NO",
					  "off", "Off", "OFF", "n", "N" };
	const char *v;
	int ret = scalar(x, n, key, &v);

	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	return bad(x, n, key, "'%s' is not a boolean (true or false)", v);
}

static int get_version(struct ctx *x, const yaml_node_t *n, const char *key,
		       enum webcfg_tls_version *out)
{
	static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
	const char *v;
	int ret = scalar(x, n, key, &v);

	if (ret)
		return ret;
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(v, names[i])) {
			*out = WEBCFG_TLS10 + i;
			return 0;
		}
	return bad(x, n, key, "'%s' is not a TLS version (TLS10, TLS11, TLS12 or TLS13)", v);
}

static int get_client_auth(struct ctx *x, const yaml_node_t *n, const char *key,
			   enum webcfg_client_auth *out)
{
	const char *v;
	int ret;

	if (is_null(n))
		return 0;
	ret = scalar(x, n, key, &v);
	if (ret || !*v)
		return ret;
	/* any client_auth_type, NoClientCert too, means TLS: exporter-toolkit's IsEnabled() */
	x->client_auth_given = true;
	/* exporter-toolkit keeps RequireClientCert, an older name */
	if (!strcmp(v, "RequireClientCert")) {
		*out = WEBCFG_REQUIRE_ANY_CLIENT_CERT;
		return 0;
	}
	for (size_t i = 0; i < sizeof(client_auth_names) / sizeof(client_auth_names[0]); i++)
		if (!strcmp(v, client_auth_names[i])) {
			*out = i;
			return 0;
		}
	return bad(x, n, key,
		   "'%s' is not a client authentication type (NoClientCert, RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert)",
		   v);
}

/* A list that blkstack takes only empty: what it would say is not done here. */
static int empty_list_only(struct ctx *x, const yaml_node_t *n, const char *key, const char *why)
{
	if (is_null(n) || (n->type == YAML_SEQUENCE_NODE &&
			   n->data.sequence.items.top == n->data.sequence.items.start))
		return 0;
	return bad(x, n, key, "not supported by blkstack monitor (%s): remove it", why);
}

static int get_curves(struct ctx *x, const yaml_node_t *n, const char *key, struct webcfg *c)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_SEQUENCE_NODE)
		return bad(x, n, key, "a list of curves is expected (CurveP256, CurveP384, CurveP521, X25519)");
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top;
	     i++) {
		yaml_node_t *item = yaml_document_get_node(x->doc, *i);
		size_t k;
		const char *v;
		int ret = scalar(x, item, key, &v);

		if (ret)
			return ret;
		for (k = 0; k < WEBCFG_CURVES && strcmp(v, curve_names[k]); k++)
			;
		if (k == WEBCFG_CURVES)
			return bad(x, item, key,
				   "'%s' is not a curve (CurveP256, CurveP384, CurveP521 or X25519)", v);
		for (size_t j = 0; j < c->ncurves; j++)
			if (c->curves[j] == k)
				return bad(x, item, key, "'%s' is given twice", v);
		c->curves[c->ncurves++] = k;
	}
	return 0;
}

/*
 * The pairs of mapping @n, each key checked to be a string given once;
 * calls @fn for each. null is an empty mapping.
 */
static int each_pair(struct ctx *x, const yaml_node_t *n, const char *key,
		     int (*fn)(struct ctx *x, const char *k, yaml_node_t *kn, yaml_node_t *v,
			       void *arg),
		     void *arg)
{
	if (is_null(n))
		return 0;
	if (n->type != YAML_MAPPING_NODE)
		return bad(x, n, key, "a mapping of keys to values is expected here");
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = yaml_document_get_node(x->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		const char *k;
		int ret = scalar(x, kn, key, &k);

		if (ret)
			return ret;
		for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *qk = yaml_document_get_node(x->doc, q->key);

			if (qk->type == YAML_SCALAR_NODE &&
			    !strcmp((const char *)qk->data.scalar.value, k))
				return bad(x, kn, key, "'%s' is given twice", k);
		}
		ret = fn(x, k, kn, v, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int tls_pair(struct ctx *x, const char *k, yaml_node_t *kn, yaml_node_t *v, void *arg)
{
	struct webcfg *c = arg;
	char key[64];
	int ret;

	snprintf(key, sizeof(key), "tls_server_config.%s", k);
	if (!strcmp(k, "cert_file"))
		ret = get_path(x, v, key, &c->cert_file);
	else if (!strcmp(k, "key_file"))
		ret = get_path(x, v, key, &c->key_file);
	else if (!strcmp(k, "client_ca_file"))
		ret = get_path(x, v, key, &c->client_ca_file);
	else if (!strcmp(k, "cert"))
		ret = get_string(x, v, key, &c->cert);
	else if (!strcmp(k, "key"))
		ret = get_string(x, v, key, &c->key);
	else if (!strcmp(k, "client_ca"))
		ret = get_string(x, v, key, &c->client_ca);
	else if (!strcmp(k, "client_auth_type"))
		ret = get_client_auth(x, v, key, &c->client_auth);
	else if (!strcmp(k, "min_version"))
		ret = get_version(x, v, key, &c->min_version);
	else if (!strcmp(k, "max_version"))
		ret = get_version(x, v, key, &c->max_version);
	else if (!strcmp(k, "prefer_server_cipher_suites"))
		ret = get_bool(x, v, key, &c->server_precedence);
	else if (!strcmp(k, "curve_preferences"))
		ret = get_curves(x, v, key, c);
	else if (!strcmp(k, "cipher_suites"))
		ret = empty_list_only(x, v, key,
				      "GnuTLS's suites for the versions allowed are offered");
	else if (!strcmp(k, "client_allowed_sans"))
		ret = empty_list_only(x, v, key, "client certificates are checked against client_ca_file only");
	else
		ret = bad(x, kn, key, "unknown key");
	return ret;
}

static int header_pair(struct ctx *x, const char *k, yaml_node_t *kn, yaml_node_t *v, void *arg)
{
	struct webcfg *c = arg;
	struct webcfg_header *h;
	char key[80];
	size_t i;
	int ret;

	snprintf(key, sizeof(key), "http_server_config.headers.%.40s", k);
	for (i = 0; i < WEBCFG_MAX_HEADERS && strcasecmp(k, header_rules[i].name); i++)
		;
	if (i == WEBCFG_MAX_HEADERS)
		return bad(x, kn, key,
			   "this header cannot be set (Content-Security-Policy, X-Frame-Options, X-Content-Type-Options, X-XSS-Protection or Strict-Transport-Security)");
	for (size_t j = 0; j < c->nheaders; j++)
		if (c->headers[j].name == header_rules[i].name)
			return bad(x, kn, key, "given twice");
	h = &c->headers[c->nheaders];
	/* blank: the header is not set (exporter-toolkit's "Unset if blank") */
	ret = get_string(x, v, key, &h->value);
	if (ret || !h->value)
		return ret;
	/* counted at once: a value refused below is freed with the rest */
	h->name = header_rules[i].name;
	c->nheaders++;
	if (strpbrk(h->value, "\r\n"))
		return bad(x, v, key, "a header value cannot hold a line break");
	if (header_rules[i].allowed[0]) {
		size_t a;

		for (a = 0; header_rules[i].allowed[a] &&
			    strcasecmp(h->value, header_rules[i].allowed[a]); a++)
			;
		if (!header_rules[i].allowed[a])
			return bad(x, v, key, "'%s' is not allowed (%s%s%s)", h->value,
				   header_rules[i].allowed[0], header_rules[i].allowed[1] ? " or " : "",
				   header_rules[i].allowed[1] ? header_rules[i].allowed[1] : "");
	}
	return 0;
}

static int http_pair(struct ctx *x, const char *k, yaml_node_t *kn, yaml_node_t *v, void *arg)
{
	struct webcfg *c = arg;
	bool http2;
	int ret;

	if (!strcmp(k, "headers"))
		return each_pair(x, v, "http_server_config.headers", header_pair, c);
	if (!strcmp(k, "http2")) {
		ret = get_bool(x, v, "http_server_config.http2", &http2);
		if (!ret && http2)
			return bad(x, v, "http_server_config.http2",
				   "blkstack monitor serves HTTP/1.1 only: set it to false or remove it");
		return ret;
	}
	return bad(x, kn, "http_server_config", "unknown key '%s'", k);
}

/* $2a$, $2b$ or $2y$, a cost of 04 to 31, 22 characters of salt and 31 of hash */
static bool bcrypt_hash(const char *h)
{
	static const char alphabet[] =
		"./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	int cost;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9' || h[6] != '$')
		return false;
	cost = (h[4] - '0') * 10 + h[5] - '0';
	if (cost < 4 || cost > 31)
		return false;
	return strspn(h + 7, alphabet) == 53;
}

static int user_pair(struct ctx *x, const char *k, yaml_node_t *kn, yaml_node_t *v, void *arg)
{
	struct webcfg *c = arg;
	struct webcfg_user *u;
	char key[80];
	int ret;

	(void)kn;
	snprintf(key, sizeof(key), "basic_auth_users.%.40s", k);
	if (strchr(k, ':'))
		return bad(x, kn, key, "a user name cannot hold ':' (basic authentication splits there)");
	u = realloc(c->users, (c->nusers + 1) * sizeof(*u));
	if (!u)
		return -ENOMEM;
	c->users = u;
	u = &c->users[c->nusers];
	*u = (struct webcfg_user){ .name = strdup(k) };
	if (!u->name)
		return -ENOMEM;
	c->nusers++;
	ret = get_string(x, v, key, &u->hash);
	if (ret)
		return ret;
	if (!u->hash || !bcrypt_hash(u->hash))
		return bad(x, v, key,
			   "not a bcrypt hash ($2y$10$ and 53 characters: htpasswd -nBC 10 \"\" | tr -d ':\\n' makes one)");
	return 0;
}

static int top_pair(struct ctx *x, const char *k, yaml_node_t *kn, yaml_node_t *v, void *arg)
{
	if (!strcmp(k, "tls_server_config"))
		return each_pair(x, v, k, tls_pair, arg);
	if (!strcmp(k, "http_server_config"))
		return each_pair(x, v, k, http_pair, arg);
	if (!strcmp(k, "basic_auth_users"))
		return each_pair(x, v, k, user_pair, arg);
	if (!strcmp(k, "rate_limit"))
		return bad(x, kn, k, "not supported by blkstack monitor: remove it");
	return bad(x, kn, k, "unknown key");
}

/* What one TLS setting needs of the others, as exporter-toolkit checks it. */
static int check_tls(struct ctx *x, struct webcfg *c)
{
	bool verify = c->client_auth == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN ||
		      c->client_auth == WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT;

	c->tls = c->cert_file || c->key_file || c->client_ca_file || c->cert || c->key ||
		 c->client_ca || x->client_auth_given;

	if (c->min_version > c->max_version)
		return bad(x, NULL, "tls_server_config.min_version",
			   "TLS1%d is above max_version TLS1%d", c->min_version - WEBCFG_TLS10,
			   c->max_version - WEBCFG_TLS10);
	if (!c->tls)
		return 0;
	if (c->cert_file && c->cert)
		return bad(x, NULL, "tls_server_config.cert", "give cert or cert_file, not both");
	if (c->key_file && c->key)
		return bad(x, NULL, "tls_server_config.key", "give key or key_file, not both");
	if (c->client_ca_file && c->client_ca)
		return bad(x, NULL, "tls_server_config.client_ca",
			   "give client_ca or client_ca_file, not both");
	if (!c->cert_file && !c->cert)
		return bad(x, NULL, "tls_server_config.cert_file",
			   "missing: TLS needs the server's certificate (cert_file or cert)");
	if (!c->key_file && !c->key)
		return bad(x, NULL, "tls_server_config.key_file",
			   "missing: TLS needs the certificate's private key (key_file or key)");
	if ((c->client_ca_file || c->client_ca) && c->client_auth == WEBCFG_NO_CLIENT_CERT)
		return bad(x, NULL, "tls_server_config.client_ca_file",
			   "client CAs are given, but client_auth_type is NoClientCert: say how clients are checked");
	if (verify && !c->client_ca_file && !c->client_ca)
		return bad(x, NULL, "tls_server_config.client_ca_file",
			   "missing: client_auth_type %s verifies client certificates against it",
			   client_auth_names[c->client_auth]);
	return 0;
}

int webcfg_parse(const char *text, size_t len, const char *dir, struct webcfg *c, char *err,
		 size_t errlen)
{
	struct ctx x = { .dir = dir, .err = err, .errlen = errlen };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int ret;

	memset(c, 0, sizeof(*c));
	c->min_version = WEBCFG_TLS12;
	c->max_version = WEBCFG_TLS13;
	c->server_precedence = true;
	if (errlen)
		err[0] = '\0';
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = parser.error == YAML_MEMORY_ERROR ? -ENOMEM : -EINVAL;
		snprintf(err, errlen, "line %zu: not YAML: %s%s%s", parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "unreadable",
			 parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return ret;
	}
	x.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	/* an empty file: no TLS, no users, as exporter-toolkit reads it */
	ret = root ? each_pair(&x, root, "the file", top_pair, c) : 0;
	if (!ret)
		ret = check_tls(&x, c);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return ret;
}

int webcfg_load(const char *path, struct webcfg *c, char *err, size_t errlen)
{
	char *text = NULL, *dir = NULL, *slash;
	struct stat sb;
	ssize_t n;
	int fd, ret;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read it: %s", strerror(-ret));
		goto out;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size > WEBCFG_MAX_BYTES) {
		ret = S_ISREG(sb.st_mode) ? -EFBIG : -EINVAL;
		snprintf(err, errlen, S_ISREG(sb.st_mode) ? "larger than %d bytes: not a web configuration"
			 : "not a regular file", WEBCFG_MAX_BYTES);
		goto out;
	}
	text = malloc(sb.st_size + 1);
	dir = strdup(path);
	if (!text || !dir) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	n = read(fd, text, sb.st_size);
	if (n < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read it: %s", strerror(-ret));
		goto out;
	}
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	ret = webcfg_parse(text, n, dir, c, err, errlen);
out:
	if (fd >= 0)
		close(fd);
	free(text);
	free(dir);
	return ret;
}

void webcfg_free(struct webcfg *c)
{
	if (!c)
		return;
	free(c->cert_file);
	free(c->key_file);
	free(c->client_ca_file);
	free(c->cert);
	/* a key inline is a secret: not left in freed memory */
	if (c->key) {
		explicit_bzero(c->key, strlen(c->key));
		free(c->key);
	}
	free(c->client_ca);
	for (size_t i = 0; i < c->nheaders; i++)
		free(c->headers[i].value);
	for (size_t i = 0; i < c->nusers; i++) {
		free(c->users[i].name);
		free(c->users[i].hash);
	}
	free(c->users);
	memset(c, 0, sizeof(*c));
}
