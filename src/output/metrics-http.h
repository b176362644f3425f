/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics-http.h - the /metrics endpoint of blkstack monitor, served by
 * libmicrohttpd in threads of its own, with TLS and basic authentication
 * from a web configuration (metrics-conf.h).
 *
 * The statistics belong to the thread that reads the trace: the HTTP
 * threads never touch them. A scrape asks for a fresh text
 * (mhttp_wanted()), the reading thread renders it between two reads and
 * hands it over (mhttp_publish()), and every scrape waiting is answered
 * with it; a text less than MHTTP_FRESH_MS old answers a scrape at once.
 * So the reading thread renders each format at most once a pass and a few
 * times a second, however many scrapers there are, and the HTTP threads
 * run at a lower priority (MHTTP_NICE): neither scrapes nor slow clients
 * take the reading thread's time.
 */
#ifndef BLKSTACK_OUT_METRICS_HTTP_H
#define BLKSTACK_OUT_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/metrics-conf.h"

/* A text younger than this answers a scrape without asking for another. */
#define MHTTP_FRESH_MS 250
/* The nice value of the HTTP threads (the reading thread keeps its own). */
#define MHTTP_NICE 10
/* Connections served at once (a thread each); more wait in the backlog. */
#define MHTTP_MAX_CONNECTIONS 64
/* A connection idle this long is closed. */
#define MHTTP_CONNECTION_TIMEOUT_S 10

struct mhttp;

/* The two formats a scrape may ask for (its Accept header chooses). */
enum mhttp_format {
	MHTTP_TEXT = 0,		/* Prometheus text 0.0.4 */
	MHTTP_OPENMETRICS,	/* OpenMetrics 1.0 */
	MHTTP_FORMATS
};

/**
 * struct mhttp_params - what to serve
 * @listen: "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (every address); ADDR
 *	    is a numeric address or a host name resolved once
 * @record: also accept POST /record (counted, see mhttp_record_requests())
 * @record_without_auth: POST /record from anyone on a listener that is
 *			 not loopback, when no users are configured
 * @conf: the web configuration (TLS, users), or NULL for plain HTTP
 *	  with no users; mhttp_open() takes a reference of its own
 */
struct mhttp_params {
	const char *listen;
	bool record;
	bool record_without_auth;
	struct mconf *conf;
};

/**
 * mhttp_open - listen and serve GET /metrics
 * @out: the server
 * @what: on failure, the step that failed ("resolve", "bind", ...)
 *
 * Returns 0, or a negative errno (-EADDRINUSE: the port is taken;
 * -EINVAL: @listen is malformed; -EADDRNOTAVAIL: no such address here;
 * -EACCES: a privileged port; -ELIBACC: libmicrohttpd cannot be opened)
 * with *@what set.
 */
int mhttp_open(const struct mhttp_params *p, struct mhttp **out, const char **what);

/** mhttp_close - stop serving (waits for the threads); NULL is accepted */
void mhttp_close(struct mhttp *h);

/** mhttp_loopback - the listener is on a loopback address (127.0.0.0/8, ::1) */
bool mhttp_loopback(const struct mhttp *h);

/**
 * mhttp_wanted - the formats that scrapes wait for now, as a bit mask of
 * 1 << enum mhttp_format; the requests are cleared
 */
unsigned int mhttp_wanted(struct mhttp *h);

/**
 * mhttp_publish - hand over a freshly rendered text (taken: freed by the
 * server) and wake the scrapes waiting for it
 */
void mhttp_publish(struct mhttp *h, enum mhttp_format f, char *text, size_t len);

/** mhttp_record_requests - POST /record requests served since the start */
uint64_t mhttp_record_requests(struct mhttp *h);

/**
 * mhttp_take_note - what happened to the web configuration since the last
 * call: read again after a change, or kept because the new one is bad
 * @buf: the message, @len bytes
 * @error: set when the new file was refused
 * Returns true when there is a message; false too while a reload is under
 * way (it is not waited for: the caller reads the trace).
 */
bool mhttp_take_note(struct mhttp *h, char *buf, size_t len, bool *error);

#endif /* BLKSTACK_OUT_METRICS_HTTP_H */
