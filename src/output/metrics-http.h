/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * metrics-http.h - the /metrics endpoint of blkstack monitor, served by
 * libmicrohttpd in a thread of its own.
 *
 * The statistics belong to the thread that reads the trace: the HTTP
 * thread never touches them. A scrape asks for a fresh text
 * (mhttp_wanted()), the reading thread renders it between two reads and
 * hands it over (mhttp_publish()), and the scrape is answered with it, so
 * what Prometheus gets is at most one read pass old.
 */
#ifndef BLKSTACK_OUT_METRICS_HTTP_H
#define BLKSTACK_OUT_METRICS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mhttp;

/* The two formats a scrape may ask for (its Accept header chooses). */
enum mhttp_format {
	MHTTP_TEXT = 0,		/* Prometheus text 0.0.4 */
	MHTTP_OPENMETRICS,	/* OpenMetrics 1.0 */
	MHTTP_FORMATS
};

/**
 * mhttp_open - listen on @addr and serve GET /metrics
 * @addr: "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (every address); ADDR is
 *	    a numeric address or a host name resolved once here
 * @record: also accept POST /record (counted, see mhttp_record_requests())
 * @out: the server
 * @what: on failure, the step that failed ("resolve", "bind", ...)
 *
 * Returns 0, or a negative errno (-EADDRINUSE: the port is taken;
 * -EINVAL: @listen is malformed; -EADDRNOTAVAIL: no such address here;
 * -EACCES: a privileged port) with *@what set.
 */
int mhttp_open(const char *addr, bool record, struct mhttp **out, const char **what);

/** mhttp_close - stop serving (waits for the thread); NULL is accepted */
void mhttp_close(struct mhttp *h);

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

/** mhttp_record_requests - POST /record requests received since the start */
uint64_t mhttp_record_requests(struct mhttp *h);

#endif /* BLKSTACK_OUT_METRICS_HTTP_H */
