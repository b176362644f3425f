// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_mconf.c - a web configuration as the endpoint serves it: loaded
 * with its users ready, a bad one refused with what is wrong, and a change
 * of its file seen (a rewrite, a rename over it as rotation tools do, its
 * removal), none seen when nothing changed; references counted.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "output/metrics-conf.h"

/* htpasswd -nbBC 4 prometheus secret */
#define PROM_HASH "$2y$04$fcqfAwcoHfee8fNjMEYNP.xmj4IYBxJUt3cmsdvGQPOkWXV/Tstuy"

static char dir[] = "/tmp/check_mconf.XXXXXX";
static char path[64], other[64];

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	snprintf(other, sizeof(other), "%s/web.yml.new", dir);
}

static void teardown(void)
{
	unlink(path);
	unlink(other);
	rmdir(dir);
	strcpy(dir, "/tmp/check_mconf.XXXXXX");
}

static void write_file(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(load_and_changes)
{
	struct mconf *c;
	char err[512];

	write_file(path, "basic_auth_users:\n  prometheus: " PROM_HASH "\n");
	c = mconf_load(path, err, sizeof(err));
	ck_assert_msg(c, "%s", err);
	ck_assert_ptr_null(c->tls);
	ck_assert_ptr_nonnull(c->auth);
	ck_assert_int_eq(bauth_check(c->auth, "Basic cHJvbWV0aGV1czpzZWNyZXQ="), BAUTH_OK);
	ck_assert(!mconf_changed(c));
	ck_assert(!mconf_changed(c));
	/* rewritten in place, one byte longer */
	write_file(path, "basic_auth_users:\n  prometheus: " PROM_HASH "\n\n");
	ck_assert(mconf_changed(c));
	mconf_put(c);

	c = mconf_load(path, err, sizeof(err));
	ck_assert_ptr_nonnull(c);
	ck_assert(!mconf_changed(c));
	/* a new file renamed over it: a new inode */
	write_file(other, "basic_auth_users:\n  prometheus: " PROM_HASH "\n\n");
	ck_assert_int_eq(rename(other, path), 0);
	ck_assert(mconf_changed(c));
	mconf_put(c);

	c = mconf_load(path, err, sizeof(err));
	ck_assert_ptr_nonnull(c);
	/* another reference outlives the first */
	ck_assert_ptr_eq(mconf_get(c), c);
	mconf_put(c);
	ck_assert_ptr_nonnull(c->auth);
	unlink(path);
	ck_assert(mconf_changed(c));
	mconf_put(c);
	mconf_put(NULL);
}
END_TEST

START_TEST(refused)
{
	char err[512];

	write_file(path, "tls_server_config:\n  cert_file: nothing.crt\n  key_file: nothing.key\n");
	ck_assert_ptr_null(mconf_load(path, err, sizeof(err)));
	/* the certificate is named as the file names it, from its directory */
	ck_assert_ptr_nonnull(strstr(err, "tls_server_config.cert_file: cannot read '"));
	ck_assert_ptr_nonnull(strstr(err, "/nothing.crt': No such file or directory"));
	write_file(path, "basic_auth_users:\n  prometheus: secret\n");
	ck_assert_ptr_null(mconf_load(path, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "line 2: basic_auth_users.prometheus: not a bcrypt hash"));
}
END_TEST

static Suite *mconf_suite(void)
{
	Suite *s = suite_create("mconf");
	TCase *tc = tcase_create("load");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, load_and_changes);
	tcase_add_test(tc, refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(mconf_suite());
}
