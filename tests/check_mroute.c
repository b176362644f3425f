// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_mroute.c - who gets what from the endpoint: with users, nothing
 * without one of them (401 and a challenge); POST /record only when it is
 * on, only by POST, only to a user when there are users, and with none
 * only on a loopback listener or with --record-without-auth; a body on it
 * refused past its bound; the format chosen by Accept; other paths 404.
 */
#include <check.h>
#include <string.h>

#include "check_run.h"
#include "output/metrics-route.h"

/* htpasswd -nbBC 4 prometheus secret */
#define PROM_HASH "$2y$04$fcqfAwcoHfee8fNjMEYNP.xmj4IYBxJUt3cmsdvGQPOkWXV/Tstuy"
#define GOOD "Basic cHJvbWV0aGV1czpzZWNyZXQ="
#define WRONG "Basic cHJvbWV0aGV1czpzZWNyZQ=="

static struct bauth *auth;

static void setup(void)
{
	struct webcfg_user u = { .name = "prometheus", .hash = PROM_HASH };

	auth = bauth_alloc(&u, 1);
	ck_assert_ptr_nonnull(auth);
}

static void teardown(void)
{
	bauth_free(auth);
}

static struct mroute_result ask(bool users, bool record, bool anyone, const char *method,
				const char *url, const char *authorization, size_t body)
{
	struct mroute_policy p = { .auth = users ? auth : NULL, .record = record,
				   .record_anyone = anyone };
	struct mroute_request r = { .method = method, .url = url,
				    .authorization = authorization, .body = body };
	struct mroute_result res;

	memset(&res, 0xa5, sizeof(res));
	mroute_decide(&p, &r, &res);
	return res;
}

START_TEST(no_users_metrics_for_anyone)
{
	struct mroute_result r = ask(false, false, false, "GET", "/metrics", NULL, 0);

	ck_assert_int_eq(r.action, MROUTE_METRICS);
	ck_assert_uint_eq(r.status, 200);
	ck_assert(!r.openmetrics);
	r = ask(false, false, false, "HEAD", "/metrics", NULL, 0);
	ck_assert_int_eq(r.action, MROUTE_METRICS);
	r = ask(false, false, false, "POST", "/metrics", NULL, 0);
	ck_assert_int_eq(r.action, MROUTE_REPLY);
	ck_assert_uint_eq(r.status, 405);
	ck_assert_str_eq(r.allow, "GET, HEAD");
	r = ask(false, false, false, "GET", "/", NULL, 0);
	ck_assert_int_eq(r.action, MROUTE_INDEX);
	r = ask(false, false, false, "GET", "/metrics/", NULL, 0);
	ck_assert_uint_eq(r.status, 404);
	/* off: /record is no path at all */
	r = ask(false, false, true, "POST", "/record", NULL, 0);
	ck_assert_int_eq(r.action, MROUTE_REPLY);
	ck_assert_uint_eq(r.status, 404);
}
END_TEST

START_TEST(users_needed_everywhere)
{
	const char *const urls[] = { "/metrics", "/", "/record", "/nothing" };
	const char *const creds[] = { NULL, WRONG, "Basic", "Digest x" };

	for (size_t u = 0; u < 4; u++)
		for (size_t c = 0; c < 4; c++) {
			struct mroute_result r = ask(true, true, true, u == 2 ? "POST" : "GET",
						     urls[u], creds[c], 0);

			ck_assert_int_eq(r.action, MROUTE_REPLY);
			ck_assert_uint_eq(r.status, 401);
			ck_assert(r.challenge);
		}
	ck_assert_int_eq(ask(true, false, false, "GET", "/metrics", GOOD, 0).action, MROUTE_METRICS);
	ck_assert_uint_eq(ask(true, false, false, "GET", "/nothing", GOOD, 0).status, 404);
}
END_TEST

START_TEST(record_with_users)
{
	struct mroute_result r;

	/* a user: served, whatever the listener */
	r = ask(true, true, false, "POST", "/record", GOOD, 0);
	ck_assert_int_eq(r.action, MROUTE_RECORD);
	ck_assert_uint_eq(r.status, 202);
	/* no user: 401, even where anyone could record without users */
	r = ask(true, true, true, "POST", "/record", NULL, 0);
	ck_assert_int_eq(r.action, MROUTE_REPLY);
	ck_assert_uint_eq(r.status, 401);
	r = ask(true, true, false, "GET", "/record", GOOD, 0);
	ck_assert_uint_eq(r.status, 405);
	ck_assert_str_eq(r.allow, "POST");
	r = ask(true, true, false, "POST", "/record", GOOD, MROUTE_MAX_BODY);
	ck_assert_int_eq(r.action, MROUTE_RECORD);
	r = ask(true, true, false, "POST", "/record", GOOD, MROUTE_MAX_BODY + 1);
	ck_assert_int_eq(r.action, MROUTE_REPLY);
	ck_assert_uint_eq(r.status, 413);
}
END_TEST

START_TEST(record_without_users)
{
	struct mroute_result r;

	/* not loopback, no --record-without-auth: forbidden, not a challenge */
	r = ask(false, true, false, "POST", "/record", NULL, 0);
	ck_assert_int_eq(r.action, MROUTE_REPLY);
	ck_assert_uint_eq(r.status, 403);
	ck_assert(!r.challenge);
	ck_assert_ptr_nonnull(strstr(r.text, "--record-without-auth"));
	r = ask(false, true, false, "POST", "/record", GOOD, 0);
	ck_assert_uint_eq(r.status, 403);
	/* loopback, or allowed */
	r = ask(false, true, true, "POST", "/record", NULL, 0);
	ck_assert_int_eq(r.action, MROUTE_RECORD);
	r = ask(false, true, true, "PUT", "/record", NULL, 0);
	ck_assert_uint_eq(r.status, 405);
}
END_TEST

START_TEST(format_by_accept)
{
	struct mroute_policy p = { 0 };
	struct mroute_request rq = {
		.method = "GET", .url = "/metrics",
		.accept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
			  "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
	};
	struct mroute_result r;

	mroute_decide(&p, &rq, &r);
	ck_assert(r.openmetrics);
	rq.accept = "text/plain;version=0.0.4";
	mroute_decide(&p, &rq, &r);
	ck_assert(!r.openmetrics);
}
END_TEST

static Suite *mroute_suite(void)
{
	Suite *s = suite_create("mroute");
	TCase *tc = tcase_create("decide");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_users_metrics_for_anyone);
	tcase_add_test(tc, users_needed_everywhere);
	tcase_add_test(tc, record_with_users);
	tcase_add_test(tc, record_without_users);
	tcase_add_test(tc, format_by_accept);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(mroute_suite());
}
