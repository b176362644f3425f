// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_webconfig.c - the web configuration file of blkstack monitor
 * --web-config (output/webconfig.c, libyaml underneath): any bytes.
 *
 * Input: the file, not NUL-terminated.
 *
 * Checked beyond the sanitizers: a file refused says where ("line N: "); a
 * file taken is consistent: TLS has a certificate and a key, each given
 * once; verifying client authentication has its CAs; the versions are in
 * order; file names are absolute, relative ones taken from the file's
 * directory; each user has a bcrypt hash; curves and headers are not
 * repeated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "output/webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void check_path(const char *p)
{
	if (p && p[0] != '/')
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct webcfg c;
	char err[512];
	char *text = malloc(len ? len : 1);

	if (!text)
		return 0;
	memcpy(text, data, len);
	if (webcfg_parse(text, len, "/etc/blkstack", &c, err, sizeof(err)) < 0) {
		if (strncmp(err, "line ", 5))
			abort();
		goto out;
	}
	if (c.tls && ((!c.cert_file == !c.cert) || (!c.key_file == !c.key)))
		abort();
	if ((c.client_auth == WEBCFG_VERIFY_CLIENT_CERT_IF_GIVEN ||
	     c.client_auth == WEBCFG_REQUIRE_AND_VERIFY_CLIENT_CERT) &&
	    (!c.tls || (!c.client_ca_file == !c.client_ca)))
		abort();
	if (c.min_version > c.max_version || c.min_version < WEBCFG_TLS10 ||
	    c.max_version > WEBCFG_TLS13)
		abort();
	check_path(c.cert_file);
	check_path(c.key_file);
	check_path(c.client_ca_file);
	for (size_t i = 0; i < c.nusers; i++)
		if (strlen(c.users[i].hash) != 60 || strncmp(c.users[i].hash, "$2", 2) ||
		    strchr(c.users[i].name, ':'))
			abort();
	for (size_t i = 0; i < c.ncurves; i++)
		for (size_t j = 0; j < i; j++)
			if (c.curves[i] == c.curves[j])
				abort();
	if (c.nheaders > WEBCFG_MAX_HEADERS)
		abort();
	for (size_t i = 0; i < c.nheaders; i++) {
		if (!c.headers[i].name || !c.headers[i].value || strpbrk(c.headers[i].value, "\r\n"))
			abort();
		for (size_t j = 0; j < i; j++)
			if (c.headers[i].name == c.headers[j].name)
				abort();
	}
out:
	webcfg_free(&c);
	free(text);
	return 0;
}
