// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * metrics-http.c - the /metrics endpoint, with libmicrohttpd.
 *
 * The listening socket is made here, not by libmicrohttpd, so that a port
 * in use or an address that is not this machine's comes back as an errno
 * the command can name; libmicrohttpd then serves it, one thread per
 * connection (a scrape waits for the reading thread, and must not hold up
 * another scrape meanwhile).
 *
 * libmicrohttpd is opened when the first endpoint is, not linked: it pulls
 * in GnuTLS and eight more libraries, whose loading, relocation and symbol
 * lookups cost every command about 2.5 ms at start (a quarter of a report
 * on a small trace), and only monitor --listen serves HTTP.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "output/metrics-http.h"
#include "output/openmetrics.h"

/* How long a scrape waits for a fresh text before it takes the last one. */
#define MHTTP_WAIT_MS 2000
#define MHTTP_MAX_CONNECTIONS 16
#define MHTTP_CONNECTION_TIMEOUT_S 10

struct mhttp {
	struct MHD_Daemon *d;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool record;
	bool stopping;
	unsigned int wanted;
	uint64_t gen[MHTTP_FORMATS];
	char *text[MHTTP_FORMATS];
	size_t len[MHTTP_FORMATS];
	uint64_t record_requests;
};

/* The libmicrohttpd calls made here, resolved by mhd_load(). */
static struct {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
} mhd;

/*
 * Open libmicrohttpd once; -ELIBACC when it or one of its calls is missing,
 * with *@what saying which.
 */
static int mhd_load(const char **what)
{
	static void *lib;
	const struct {
		const char *name;
		void **fn;
	} calls[] = {
		{ "MHD_start_daemon", (void **)&mhd.start_daemon },
		{ "MHD_stop_daemon", (void **)&mhd.stop_daemon },
		{ "MHD_create_response_from_buffer", (void **)&mhd.create_response_from_buffer },
		{ "MHD_add_response_header", (void **)&mhd.add_response_header },
		{ "MHD_queue_response", (void **)&mhd.queue_response },
		{ "MHD_destroy_response", (void **)&mhd.destroy_response },
		{ "MHD_lookup_connection_value", (void **)&mhd.lookup_connection_value },
	};

	if (lib)
		return 0;
	lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		*what = dlerror();
		return -ELIBACC;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		*calls[i].fn = dlsym(lib, calls[i].name);
		if (!*calls[i].fn) {
			*what = "a call blkstack makes is missing in " MHD_SONAME;
			dlclose(lib);
			lib = NULL;
			return -ELIBACC;
		}
	}
	return 0;
}

static const char index_page[] =
	"<html><head><title>blkstack monitor</title></head><body>"
	"<h1>blkstack monitor</h1><p><a href=\"/metrics\">/metrics</a></p></body></html>\n";

/* Split "ADDR:PORT", "[ADDR]:PORT" or ":PORT" into its parts. */
static int split_listen(const char *listen, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon;
	size_t n;

	if (listen[0] == '[') {
		const char *end = strchr(listen, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		n = end - listen - 1;
		colon = end + 1;
		if (n >= hlen)
			return -EINVAL;
		memcpy(host, listen + 1, n);
	} else {
		colon = strrchr(listen, ':');
		if (!colon)
			return -EINVAL;
		n = colon - listen;
		if (n >= hlen)
			return -EINVAL;
		memcpy(host, listen, n);
	}
	host[n] = '\0';
	if (!colon[1] || strlen(colon + 1) >= plen)
		return -EINVAL;
	strcpy(port, colon + 1);
	return 0;
}

/* A bound, listening socket for @listen; a negative errno and *@what on failure. */
static int listen_socket(const char *addr, const char **what)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	char host[256], port[16];
	struct addrinfo *res;
	int fd, one = 1, ret;

	*what = "parse the address";
	if (split_listen(addr, host, sizeof(host), port, sizeof(port)) < 0)
		return -EINVAL;
	*what = "resolve the address";
	ret = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (ret)
		return ret == EAI_SYSTEM ? -errno : -EADDRNOTAVAIL;
	*what = "create a socket";
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC, res->ai_protocol);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	/* a restart must not wait for the old connections' TIME_WAIT */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	*what = "bind";
	if (bind(fd, res->ai_addr, res->ai_addrlen) < 0) {
		ret = -errno;
		close(fd);
		goto out;
	}
	*what = "listen";
	if (listen(fd, 16) < 0) {
		ret = -errno;
		close(fd);
		goto out;
	}
	ret = fd;
out:
	freeaddrinfo(res);
	return ret;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *type,
			     void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status,
				  const char *text)
{
	return reply(c, status, "text/plain; charset=utf-8", (void *)text, strlen(text),
		     MHD_RESPMEM_PERSISTENT);
}

/* Wait for the reading thread to publish a text of format @f newer than now. */
static enum MHD_Result serve_metrics(struct mhttp *h, struct MHD_Connection *c)
{
	const char *accept = mhd.lookup_connection_value(c, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	enum mhttp_format f = accept && strstr(accept, "application/openmetrics-text") ?
			      MHTTP_OPENMETRICS : MHTTP_TEXT;
	struct timespec until;
	char *copy = NULL;
	size_t len = 0;
	uint64_t gen;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += MHTTP_WAIT_MS / 1000;
	until.tv_nsec += (MHTTP_WAIT_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&h->lock);
	gen = h->gen[f];
	h->wanted |= 1U << f;
	while (h->gen[f] == gen && !h->stopping &&
	       pthread_cond_timedwait(&h->cond, &h->lock, &until) != ETIMEDOUT)
		;
	/* a late reading thread: the last text is better than none */
	if (h->text[f]) {
		len = h->len[f];
		copy = malloc(len ? len : 1);
		if (copy)
			memcpy(copy, h->text[f], len);
	}
	pthread_mutex_unlock(&h->lock);
	if (!copy)
		return reply_text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "metrics not ready yet\n");
	return reply(c, MHD_HTTP_OK, om_content_type(f == MHTTP_OPENMETRICS), copy, len,
		     MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	static int first_call;
	struct mhttp *h = cls;
	bool get = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);

	(void)version;
	(void)upload;
	/* the first call only announces the request: its body (if any) follows */
	if (!*con_cls) {
		*con_cls = &first_call;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;	/* a body is not used: POST /record needs none */
		return MHD_YES;
	}
	if (!strcmp(url, "/metrics")) {
		if (!get)
			return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "use GET\n");
		return serve_metrics(h, c);
	}
	if (!strcmp(url, "/record") && h->record) {
		if (strcmp(method, MHD_HTTP_METHOD_POST))
			return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "use POST\n");
		pthread_mutex_lock(&h->lock);
		h->record_requests++;
		pthread_mutex_unlock(&h->lock);
		return reply_text(c, MHD_HTTP_ACCEPTED, "recording requested\n");
	}
	if (!strcmp(url, "/") && get)
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", (void *)index_page,
			     sizeof(index_page) - 1, MHD_RESPMEM_PERSISTENT);
	return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: see /metrics\n");
}

int mhttp_open(const char *addr, bool record, struct mhttp **out, const char **what)
{
	pthread_condattr_t ca;
	struct mhttp *h;
	int fd;

	*out = NULL;
	if (mhd_load(what) < 0)
		return -ELIBACC;
	h = calloc(1, sizeof(*h));
	if (!h) {
		*what = "allocate";
		return -ENOMEM;
	}
	pthread_mutex_init(&h->lock, NULL);
	/* the scrape's deadline is of the monotonic clock: a clock step must not stretch it */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
	h->record = record;
	fd = listen_socket(addr, what);
	if (fd < 0) {
		mhttp_close(h);
		return fd;
	}
	h->d = mhd.start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD,
				0, NULL, NULL, handle, h,
				MHD_OPTION_LISTEN_SOCKET, fd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MHTTP_MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned int)MHTTP_CONNECTION_TIMEOUT_S,
				MHD_OPTION_END);
	if (!h->d) {
		*what = "start the HTTP server (libmicrohttpd)";
		close(fd);
		mhttp_close(h);
		return -EIO;
	}
	*out = h;
	return 0;
}

void mhttp_close(struct mhttp *h)
{
	if (!h)
		return;
	if (h->d) {
		/* wake the scrapes that wait, so that the threads can be joined */
		pthread_mutex_lock(&h->lock);
		h->stopping = true;
		pthread_cond_broadcast(&h->cond);
		pthread_mutex_unlock(&h->lock);
		mhd.stop_daemon(h->d);
	}
	for (int f = 0; f < MHTTP_FORMATS; f++)
		free(h->text[f]);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

unsigned int mhttp_wanted(struct mhttp *h)
{
	unsigned int w;

	pthread_mutex_lock(&h->lock);
	w = h->wanted;
	h->wanted = 0;
	pthread_mutex_unlock(&h->lock);
	return w;
}

void mhttp_publish(struct mhttp *h, enum mhttp_format f, char *text, size_t len)
{
	char *old;

	pthread_mutex_lock(&h->lock);
	old = h->text[f];
	h->text[f] = text;
	h->len[f] = len;
	h->gen[f]++;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	free(old);
}

uint64_t mhttp_record_requests(struct mhttp *h)
{
	uint64_t n;

	pthread_mutex_lock(&h->lock);
	n = h->record_requests;
	pthread_mutex_unlock(&h->lock);
	return n;
}
