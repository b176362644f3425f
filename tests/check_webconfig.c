// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_webconfig.c - exporter-toolkit's web configuration read as
 * exporter-toolkit reads it: its defaults, relative file names taken from
 * the file's directory, inline PEM, YAML 1.1's booleans and nulls; and
 * every file it refuses refused here too, with a message naming the key
 * and the line (a table of bad files, each with the key its message must
 * name), plus the keys blkstack cannot honour, refused by name.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "output/webconfig.h"

/* htpasswd -nbBC 10 prometheus secret (Apache's bcrypt, not ours) */
#define HASH "$2y$10$hwgcST0XHnfLjCXp1QKOVe0Fjts/Pnwio9xYVHkZ/H17J7FUiSfH6"

static struct webcfg c;
static char err[512];

static int parse(const char *text)
{
	webcfg_free(&c);
	return webcfg_parse(text, strlen(text), "/etc/blkstack", &c, err, sizeof(err));
}

static void teardown(void)
{
	webcfg_free(&c);
}

START_TEST(empty_file_is_plain_http)
{
	ck_assert_int_eq(parse(""), 0);
	ck_assert(!c.tls);
	ck_assert_uint_eq(c.nusers, 0);
	ck_assert_int_eq(c.min_version, WEBCFG_TLS12);
	ck_assert_int_eq(c.max_version, WEBCFG_TLS13);
	ck_assert(c.server_precedence);
	ck_assert_int_eq(parse("# only a comment\n"), 0);
	ck_assert(!c.tls);
	/* null sections: as absent ones */
	ck_assert_int_eq(parse("tls_server_config:\nbasic_auth_users: ~\nhttp_server_config: null\n"), 0);
	ck_assert(!c.tls);
	ck_assert_uint_eq(c.nusers, 0);
}
END_TEST

START_TEST(tls_and_users)
{
	ck_assert_int_eq(parse("tls_server_config:\n"
			       "  cert_file: server.crt\n"
			       "  key_file: /abs/server.key\n"
			       "  client_auth_type: RequireAndVerifyClientCert\n"
			       "  client_ca_file: ca/clients.pem\n"
			       "  min_version: TLS13\n"
			       "  prefer_server_cipher_suites: no\n"
			       "  curve_preferences: [X25519, CurveP384]\n"
			       "basic_auth_users:\n"
			       "  prometheus: " HASH "\n"
			       "  'grafana': \"" HASH "\"\n"), 0);
	ck_assert(c.tls);
	/* relative names from the file's directory, as exporter-toolkit's SetDirectory() */
	ck_assert_str_eq(c.cert_file, "/etc/blkstack/server.crt");
	ck_assert_str_eq(c.key_file, "/abs/server.key");
	ck_assert_str_eq(c.client_ca_file, "/etc/blkstack/ca/clients.pem");
	ck_assert_int_eq(c.client_auth, WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT);
	ck_assert_int_eq(c.min_version, WEBCFG_TLS13);
	ck_assert_int_eq(c.max_version, WEBCFG_TLS13);
	ck_assert(!c.server_precedence);
	ck_assert_uint_eq(c.ncurves, 2);
	ck_assert_int_eq(c.curves[0], WEBCFG_CURVE_X25519);
	ck_assert_int_eq(c.curves[1], WEBCFG_CURVE_P384);
	ck_assert_uint_eq(c.nusers, 2);
	ck_assert_str_eq(c.users[0].name, "prometheus");
	ck_assert_str_eq(c.users[0].hash, HASH);
	ck_assert_str_eq(c.users[1].name, "grafana");
	ck_assert_str_eq(c.users[1].hash, HASH);
}
END_TEST

START_TEST(inline_pem_and_old_names)
{
	ck_assert_int_eq(parse("tls_server_config:\n"
			       "  cert: |\n"
			       "    -----BEGIN CERTIFICATE-----\n"
			       "    MIIB\n"
			       "    -----END CERTIFICATE-----\n"
			       "  key: \"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n\"\n"
			       "  client_auth_type: RequireClientCert\n"), 0);
	ck_assert(c.tls);
	ck_assert_ptr_null(c.cert_file);
	ck_assert_str_eq(c.cert, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
	ck_assert_str_eq(c.key, "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
	/* the older name exporter-toolkit still takes */
	ck_assert_int_eq(c.client_auth, WEBCFG_REQUIRE_ANY_CLIENT_CERT);
}
END_TEST

START_TEST(tls_is_on_as_exporter_toolkit_says)
{
	/* min_version alone: no TLS (IsEnabled() looks at files and client auth) */
	ck_assert_int_eq(parse("tls_server_config:\n  min_version: TLS13\n"), 0);
	ck_assert(!c.tls);
	/* an empty name is no name */
	ck_assert_int_eq(parse("tls_server_config:\n  cert_file: ''\n  key_file:\n"), 0);
	ck_assert(!c.tls);
	/* any client_auth_type is TLS, and then a certificate is missing */
	ck_assert_int_eq(parse("tls_server_config:\n  client_auth_type: NoClientCert\n"), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "tls_server_config.cert_file"));
}
END_TEST

START_TEST(headers_and_http2)
{
	ck_assert_int_eq(parse("http_server_config:\n"
			       "  http2: false\n"
			       "  headers:\n"
			       "    x-frame-options: DENY\n"
			       "    Strict-Transport-Security: max-age=31536000\n"
			       "    X-XSS-Protection: ''\n"), 0);
	/* blank is unset; names as exporter-toolkit spells them */
	ck_assert_uint_eq(c.nheaders, 2);
	ck_assert_str_eq(c.headers[0].name, "X-Frame-Options");
	ck_assert_str_eq(c.headers[0].value, "DENY");
	ck_assert_str_eq(c.headers[1].name, "Strict-Transport-Security");
	ck_assert_str_eq(c.headers[1].value, "max-age=31536000");
}
END_TEST

/* A file refused, with the key (and line) its message must name. */
static const struct {
	const char *text;
	const char *key;
	const char *also;	/* more that the message must hold, or NULL */
} bad_files[] = {
	{ "tls_server_config: [a, b]\n", "line 1: tls_server_config", "mapping" },
	{ "nonsense: 1\n", "line 1: nonsense: unknown key", NULL },
	{ "tls_server_config:\n  cert_file: a\n  cert_fil: b\n", "line 3: tls_server_config.cert_fil",
	  "unknown key" },
	{ "tls_server_config:\n  cert_file: a\n  cert_file: b\n", "line 3: tls_server_config",
	  "given twice" },
	{ "tls_server_config:\n  cert_file: a\n", "tls_server_config.key_file", "missing" },
	{ "tls_server_config:\n  key_file: a\n", "tls_server_config.cert_file", "missing" },
	{ "tls_server_config:\n  cert_file: a\n  cert: b\n  key_file: c\n",
	  "tls_server_config.cert", "not both" },
	{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Maybe\n",
	  "line 4: tls_server_config.client_auth_type", "'Maybe'" },
	{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: VerifyClientCertIfGiven\n",
	  "tls_server_config.client_ca_file", "missing" },
	{ "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
	  "tls_server_config.client_ca_file", "NoClientCert" },
	{ "tls_server_config:\n  min_version: TLS14\n", "line 2: tls_server_config.min_version",
	  "'TLS14'" },
	{ "tls_server_config:\n  min_version: TLS13\n  max_version: TLS12\n",
	  "tls_server_config.min_version", "above max_version" },
	{ "tls_server_config:\n  prefer_server_cipher_suites: maybe\n",
	  "tls_server_config.prefer_server_cipher_suites", "boolean" },
	{ "tls_server_config:\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
	  "tls_server_config.cipher_suites", "not supported" },
	{ "tls_server_config:\n  client_allowed_sans: [a.example]\n",
	  "tls_server_config.client_allowed_sans", "not supported" },
	{ "tls_server_config:\n  curve_preferences: [CurveP999]\n",
	  "tls_server_config.curve_preferences", "'CurveP999'" },
	{ "tls_server_config:\n  curve_preferences: [X25519, X25519]\n",
	  "tls_server_config.curve_preferences", "twice" },
	{ "tls_server_config:\n  cert_file: \"a\\0b\"\n", "tls_server_config.cert_file", "NUL" },
	{ "tls_server_config:\n  cert_file: [a]\n", "tls_server_config.cert_file", "list" },
	{ "basic_auth_users:\n  prometheus: secret\n", "line 2: basic_auth_users.prometheus",
	  "bcrypt" },
	{ "basic_auth_users:\n  prometheus:\n", "basic_auth_users.prometheus", "bcrypt" },
	/* $1$ is md5-crypt; a cost of 3 is below bcrypt's least; 52 characters */
	{ "basic_auth_users:\n  u: $1$10$hwgcST0XHnfLjCXp1QKOVe0Fjts/Pnwio9xYVHkZ/H17J7FUiSfH6\n",
	  "basic_auth_users.u", "bcrypt" },
	{ "basic_auth_users:\n  u: $2y$03$hwgcST0XHnfLjCXp1QKOVe0Fjts/Pnwio9xYVHkZ/H17J7FUiSfH6\n",
	  "basic_auth_users.u", "bcrypt" },
	{ "basic_auth_users:\n  u: $2y$10$hwgcST0XHnfLjCXp1QKOVe0Fjts/Pnwio9xYVHkZ/H17J7FUiSfH\n",
	  "basic_auth_users.u", "bcrypt" },
	{ "basic_auth_users:\n  'a:b': " HASH "\n", "basic_auth_users.a:b", "':'" },
	{ "basic_auth_users: [prometheus]\n", "basic_auth_users", "mapping" },
	{ "http_server_config:\n  http2: true\n", "http_server_config.http2", "HTTP/1.1" },
	{ "http_server_config:\n  headers:\n    Set-Cookie: a\n",
	  "http_server_config.headers.Set-Cookie", "cannot be set" },
	{ "http_server_config:\n  headers:\n    X-Frame-Options: allow\n",
	  "http_server_config.headers.X-Frame-Options", "'allow'" },
	{ "http_server_config:\n  headers:\n    X-Frame-Options: deny\n    x-frame-options: deny\n",
	  "http_server_config.headers.x-frame-options", "twice" },
	{ "http_server_config:\n  headers:\n    Content-Security-Policy: \"a\\nb\"\n",
	  "http_server_config.headers.Content-Security-Policy", "line break" },
	{ "http_server_config:\n  tls: 1\n", "http_server_config", "unknown key 'tls'" },
	{ "rate_limit:\n  interval: 1s\n", "line 1: rate_limit", "not supported" },
	{ "tls_server_config:\n  cert_file: [unclosed\n", "not YAML", NULL },
	{ "\t- tab\n", "not YAML", NULL },
};

START_TEST(bad_file_names_the_key)
{
	ck_assert_int_eq(parse(bad_files[_i].text), -EINVAL);
	ck_assert_msg(strstr(err, bad_files[_i].key), "'%s' does not name '%s'", err,
		      bad_files[_i].key);
	if (bad_files[_i].also)
		ck_assert_msg(strstr(err, bad_files[_i].also), "'%s' does not say '%s'", err,
			      bad_files[_i].also);
}
END_TEST

START_TEST(booleans_of_yaml_1_1)
{
	const char *yes[] = { "true", "True", "yes", "on", "Y" };
	const char *no[] = { "false", "FALSE", "no", "Off", "n" };
	char text[128];

	for (size_t i = 0; i < 5; i++) {
		snprintf(text, sizeof(text), "tls_server_config:\n  prefer_server_cipher_suites: %s\n",
			 no[i]);
		ck_assert_int_eq(parse(text), 0);
		ck_assert(!c.server_precedence);
		snprintf(text, sizeof(text), "tls_server_config:\n  prefer_server_cipher_suites: %s\n",
			 yes[i]);
		ck_assert_int_eq(parse(text), 0);
		ck_assert(c.server_precedence);
	}
}
END_TEST

/* Aliases point at one node: a file of them stays as small as it reads. */
START_TEST(aliases_are_followed_once)
{
	ck_assert_int_eq(parse("x: &h " HASH "\n"), -EINVAL);
	ck_assert_int_eq(parse("basic_auth_users:\n  a: &h " HASH "\n  b: *h\n"), 0);
	ck_assert_uint_eq(c.nusers, 2);
	ck_assert_str_eq(c.users[1].hash, HASH);
}
END_TEST

START_TEST(load_a_file)
{
	char dir[] = "/tmp/check_webconfig.XXXXXX", path[64];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	/* missing: the error of reading it */
	ck_assert_int_eq(webcfg_load(path, &c, err, sizeof(err)), -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n", f);
	fclose(f);
	ck_assert_int_eq(webcfg_load(path, &c, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/s.crt", dir);
	ck_assert_str_eq(c.cert_file, path);
	webcfg_free(&c);
	/* a directory is not a file */
	ck_assert_int_eq(webcfg_load(dir, &c, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	unlink(path);
	rmdir(dir);
}
END_TEST

static Suite *webconfig_suite(void)
{
	Suite *s = suite_create("webconfig");
	TCase *tc = tcase_create("read");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, empty_file_is_plain_http);
	tcase_add_test(tc, tls_and_users);
	tcase_add_test(tc, inline_pem_and_old_names);
	tcase_add_test(tc, tls_is_on_as_exporter_toolkit_says);
	tcase_add_test(tc, headers_and_http2);
	tcase_add_test(tc, booleans_of_yaml_1_1);
	tcase_add_test(tc, aliases_are_followed_once);
	tcase_add_test(tc, load_a_file);
	suite_add_tcase(s, tc);
	tc = tcase_create("refused");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, bad_file_names_the_key, 0, sizeof(bad_files) / sizeof(bad_files[0]));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(webconfig_suite());
}
