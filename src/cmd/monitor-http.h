/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * monitor-http.h - blkstack monitor's endpoint, as the command sets it up:
 * --web-config read and its errors said, the listener opened and its
 * errors said with what to do, POST /record's policy checked, and what
 * happens to the web configuration later said as it happens.
 */
#ifndef BLKSTACK_CMD_MONITOR_HTTP_H
#define BLKSTACK_CMD_MONITOR_HTTP_H

#include <stdbool.h>

#include "output/metrics-http.h"

/**
 * monitor_http_open - serve --listen @listen with --web-config @web_config
 * @web_config: NULL for plain HTTP with no users
 * @record: --record-on http: serve POST /record
 * @record_without_auth: --record-without-auth
 * @tls: set when the endpoint serves TLS
 * Returns the server, or NULL after saying what failed and what to do.
 */
struct mhttp *monitor_http_open(const char *listen, const char *web_config, bool record,
				bool record_without_auth, bool *tls);

/** monitor_http_notes - say what happened to the web configuration since the last call */
void monitor_http_notes(struct mhttp *h);

#endif /* BLKSTACK_CMD_MONITOR_HTTP_H */
