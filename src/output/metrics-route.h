/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics-route.h - what blkstack monitor's endpoint does with a request:
 * who may ask what, on which path, with which method, as a pure function
 * of the request's method, path, headers and body size. metrics-http.c
 * carries it out; the check tests and the fuzz harness call it directly.
 *
 * With basic_auth_users configured every path needs a user (as
 * exporter-toolkit does). POST /record writes a file on the monitored
 * machine: with users it needs one; with none it is served only when the
 * listener is loopback, or when --record-without-auth says so.
 */
#ifndef BLKSTACK_OUT_METRICS_ROUTE_H
#define BLKSTACK_OUT_METRICS_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "output/basic-auth.h"

/* A POST /record carries no body; one longer than this is refused. */
#define MROUTE_MAX_BODY 1024

/* The realm of the basic-auth challenge. */
#define MROUTE_REALM "blkstack monitor"

/**
 * struct mroute_policy - what the endpoint serves
 * @auth: the users (NULL: none configured, no authentication)
 * @record: POST /record is served (--record-on http)
 * @record_anyone: with no users, POST /record is served to anyone: the
 *		   listener is loopback, or --record-without-auth
 */
struct mroute_policy {
	struct bauth *auth;
	bool record;
	bool record_anyone;
};

/**
 * struct mroute_request - a request, as the server parsed it
 * @method: "GET", "POST", ...
 * @url: the path, without the query
 * @authorization: the Authorization header, NULL when absent
 * @accept: the Accept header, NULL when absent
 * @body: the bytes of body received
 */
struct mroute_request {
	const char *method;
	const char *url;
	const char *authorization;
	const char *accept;
	size_t body;
};

/* What to do with a request. */
enum mroute_action {
	MROUTE_REPLY = 0,	/* answer @status with @text */
	MROUTE_METRICS,		/* serve the metrics, in @openmetrics's format */
	MROUTE_RECORD,		/* a recording is asked for: 202 */
	MROUTE_INDEX,		/* the index page */
};

/**
 * struct mroute_result - the answer
 * @action: what to do
 * @status: the HTTP status
 * @text: the body of a MROUTE_REPLY (a static string)
 * @challenge: send WWW-Authenticate (a 401)
 * @allow: the Allow header of a 405, or NULL
 * @openmetrics: MROUTE_METRICS in OpenMetrics, else Prometheus's text
 */
struct mroute_result {
	enum mroute_action action;
	unsigned int status;
	const char *text;
	bool challenge;
	const char *allow;
	bool openmetrics;
};

/** mroute_decide - what @p serves to @r, into @out */
void mroute_decide(const struct mroute_policy *p, const struct mroute_request *r,
		   struct mroute_result *out);

#endif /* BLKSTACK_OUT_METRICS_ROUTE_H */
