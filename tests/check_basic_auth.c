// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_basic_auth.c - basic authentication: the header decoded as RFC
 * 7617 and RFC 4648 say (the scheme in any case, padded canonical base64,
 * the password split at the first ':' and allowed to hold more), bcrypt
 * hashes made by Apache's htpasswd (an implementation that is not ours)
 * accepting their password and nothing else, and a remembered pair
 * letting only that exact pair through.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "check_run.h"
#include "output/basic-auth.h"

/* htpasswd -nbBC 4 prometheus secret; htpasswd -nbBC 4 grafana 'pa:ss wörd' */
#define PROM_HASH "$2y$04$fcqfAwcoHfee8fNjMEYNP.xmj4IYBxJUt3cmsdvGQPOkWXV/Tstuy"
#define GRAF_HASH "$2y$04$UpIcD.vHhPikPWcHAL8OtuKVH9A5.4dbidAjcCsBD60mcrJEp001G"
/* base64 of "prometheus:secret", "grafana:pa:ss wörd", "prometheus:secre" */
#define PROM_OK "cHJvbWV0aGV1czpzZWNyZXQ="
#define GRAF_OK "Z3JhZmFuYTpwYTpzcyB3w7ZyZA=="
#define PROM_SHORT "cHJvbWV0aGV1czpzZWNyZQ=="

static struct bauth *users(void)
{
	struct webcfg_user u[] = {
		{ .name = "prometheus", .hash = PROM_HASH },
		{ .name = "grafana", .hash = GRAF_HASH },
	};
	struct bauth *a = bauth_alloc(u, 2);

	ck_assert_ptr_nonnull(a);
	return a;
}

START_TEST(decode)
{
	const char *user, *pass;
	char buf[64];

	ck_assert_int_eq(bauth_decode("Basic " PROM_OK, buf, sizeof(buf), &user, &pass), 0);
	ck_assert_str_eq(user, "prometheus");
	ck_assert_str_eq(pass, "secret");
	/* the scheme in any case, more spaces, trailing spaces */
	ck_assert_int_eq(bauth_decode("bAsIc  \t" GRAF_OK "  ", buf, sizeof(buf), &user, &pass), 0);
	ck_assert_str_eq(user, "grafana");
	ck_assert_str_eq(pass, "pa:ss w\xc3\xb6rd");
	/* "prometheus:" and ":secret": empty parts are parts */
	ck_assert_int_eq(bauth_decode("Basic cHJvbWV0aGV1czo=", buf, sizeof(buf), &user, &pass), 0);
	ck_assert_str_eq(pass, "");
	ck_assert_int_eq(bauth_decode("Basic OnNlY3JldA==", buf, sizeof(buf), &user, &pass), 0);
	ck_assert_str_eq(user, "");
}
END_TEST

static const char *const malformed[] = {
	"",
	"Basic",
	"Basic ",
	"Bearer " PROM_OK,
	"Basically " PROM_OK,
	"Basic" PROM_OK,
	"Basic cHJvbWV0aGV1czpzZWNyZXQ",	/* unpadded */
	"Basic cHJvbWV0aGV1czpzZWNyZXQ==",	/* too much padding */
	"Basic cHJvbWV0aGV1czpzZWNyZXR=",	/* not canonical: bits left under '=' */
	"Basic cHJvbWV0aGV1c=pzZWNyZXQ=",	/* '=' inside */
	"Basic cHJvbWV0aGV1czpzZWNyZXQ= x",	/* something after */
	"Basic cHJvbWV0aGV1czpz!WNyZXQ=",	/* not base64 */
	"Basic cHJvbWV0aGV1cw==",		/* "prometheus": no ':' */
	"Basic cHJvbWV0aGV1cwA6c2VjcmV0",	/* "prometheus\0:secret" */
};

START_TEST(decode_refuses)
{
	const char *user, *pass;
	char buf[64];

	ck_assert_int_eq(bauth_decode(malformed[_i], buf, sizeof(buf), &user, &pass), -EINVAL);
}
END_TEST

START_TEST(decode_bounded)
{
	const char *user, *pass;
	char buf[12];

	/* 17 bytes decoded do not fit in 11 and a NUL */
	ck_assert_int_eq(bauth_decode("Basic " PROM_OK, buf, sizeof(buf), &user, &pass), -EINVAL);
}
END_TEST

START_TEST(check_users)
{
	struct bauth *a = users();

	ck_assert_int_eq(bauth_check(a, NULL), BAUTH_MISSING);
	ck_assert_int_eq(bauth_check(a, "Basic !!!!"), BAUTH_MALFORMED);
	ck_assert_int_eq(bauth_check(a, "Basic " PROM_OK), BAUTH_OK);
	ck_assert_int_eq(bauth_check(a, "Basic " GRAF_OK), BAUTH_OK);
	ck_assert_int_eq(bauth_check(a, "Basic " PROM_SHORT), BAUTH_DENIED);
	/* "grafana:secret": prometheus's password is not grafana's */
	ck_assert_int_eq(bauth_check(a, "Basic Z3JhZmFuYTpzZWNyZXQ="), BAUTH_DENIED);
	/* "nobody:secret" */
	ck_assert_int_eq(bauth_check(a, "Basic bm9ib2R5OnNlY3JldA=="), BAUTH_DENIED);
	/* "Prometheus:secret": names are compared exactly */
	ck_assert_int_eq(bauth_check(a, "Basic UHJvbWV0aGV1czpzZWNyZXQ="), BAUTH_DENIED);
	bauth_free(a);
}
END_TEST

/* Remembered pairs: the same pair again, never a prefix or a longer one. */
START_TEST(remembered_pairs_only)
{
	struct bauth *a = users();

	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(bauth_check(a, "Basic " PROM_OK), BAUTH_OK);
		ck_assert_int_eq(bauth_check(a, "Basic " PROM_SHORT), BAUTH_DENIED);
		/* "prometheus:secrets" */
		ck_assert_int_eq(bauth_check(a, "Basic cHJvbWV0aGV1czpzZWNyZXRz"), BAUTH_DENIED);
	}
	bauth_free(a);
}
END_TEST

/* No users: nobody gets through (an empty list is not "anyone"). */
START_TEST(no_users_nobody)
{
	struct bauth *a = bauth_alloc(NULL, 0);

	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(bauth_check(a, "Basic " PROM_OK), BAUTH_DENIED);
	bauth_free(a);
	bauth_free(NULL);
}
END_TEST

static Suite *basic_auth_suite(void)
{
	Suite *s = suite_create("basic_auth");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, decode);
	tcase_add_loop_test(tc, decode_refuses, 0, sizeof(malformed) / sizeof(malformed[0]));
	tcase_add_test(tc, decode_bounded);
	suite_add_tcase(s, tc);
	tc = tcase_create("check");
	tcase_add_test(tc, check_users);
	tcase_add_test(tc, remembered_pairs_only);
	tcase_add_test(tc, no_users_nobody);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(basic_auth_suite());
}
