// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics-route.c - the endpoint's answer to a request.
 */
#include <string.h>

#include "output/metrics-route.h"

static void reply(struct mroute_result *out, unsigned int status, const char *text)
{
	*out = (struct mroute_result){ .action = MROUTE_REPLY, .status = status, .text = text };
}

/* OpenMetrics when the scrape accepts it, as Prometheus's Accept header says. */
static bool wants_openmetrics(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text");
}

void mroute_decide(const struct mroute_policy *p, const struct mroute_request *r,
		   struct mroute_result *out)
{
	bool get = !strcmp(r->method, "GET") || !strcmp(r->method, "HEAD");

	if (p->auth && bauth_check(p->auth, r->authorization) != BAUTH_OK) {
		reply(out, 401, "unauthorized: this endpoint needs a user of its web configuration\n");
		out->challenge = true;
		return;
	}
	if (!strcmp(r->url, "/metrics")) {
		if (!get) {
			reply(out, 405, "use GET\n");
			out->allow = "GET, HEAD";
			return;
		}
		*out = (struct mroute_result){ .action = MROUTE_METRICS, .status = 200,
					       .openmetrics = wants_openmetrics(r->accept) };
		return;
	}
	if (!strcmp(r->url, "/record") && p->record) {
		if (strcmp(r->method, "POST")) {
			reply(out, 405, "use POST\n");
			out->allow = "POST";
			return;
		}
		if (!p->auth && !p->record_anyone) {
			reply(out, 403,
			      "refused: POST /record needs basic_auth_users in --web-config on a listener that is not loopback (or --record-without-auth)\n");
			return;
		}
		if (r->body > MROUTE_MAX_BODY) {
			reply(out, 413, "POST /record takes no body\n");
			return;
		}
		*out = (struct mroute_result){ .action = MROUTE_RECORD, .status = 202,
					       .text = "recording requested\n" };
		return;
	}
	if (!strcmp(r->url, "/") && get) {
		*out = (struct mroute_result){ .action = MROUTE_INDEX, .status = 200 };
		return;
	}
	reply(out, 404, "not found: see /metrics\n");
}
