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
 *
 * What a request gets is metrics-route.c's decision; this file carries it
 * out. Each connection keeps the web configuration it started with (a
 * reference in its socket context), taken when it is accepted: the file
 * is read again then when it changed on disk, at most once a second, and
 * a bad new file leaves the last good one serving.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "output/metrics-http.h"
#include "output/metrics-route.h"
#include "output/openmetrics.h"

/* How long a scrape waits for a fresh text before it takes the last one. */
#define MHTTP_WAIT_MS 2000
/* How often, at most, the web configuration's files are looked at. */
#define MHTTP_CONF_CHECK_NS 1000000000ULL
/* Connections the kernel holds for us while every thread is busy. */
#define MHTTP_BACKLOG 128

/* A rendered text, shared by the responses that send it. */
struct mtext {
	int refs;
	size_t len;
	char data[];
};

struct mhttp {
	struct MHD_Daemon *d;
	struct mhttp_params p;
	bool loopback;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stopping;
	unsigned int wanted;
	uint64_t gen[MHTTP_FORMATS];
	struct mtext *text[MHTTP_FORMATS];
	uint64_t published[MHTTP_FORMATS];	/* when, CLOCK_MONOTONIC ns */
	uint64_t record_requests;
	/* the web configuration: the one new connections take */
	pthread_mutex_t conf_lock;
	struct mconf *conf;
	struct mconf *first;		/* the daemon's own, from its start */
	uint64_t conf_checked;
	char note[1024];
	bool note_new;
	bool note_error;
};

/* One request's state, from its first call to its completion. */
struct mhttp_request {
	size_t body;
};

/* The libmicrohttpd calls made here, resolved by mhd_load(). */
static struct {
	__typeof__(&MHD_start_daemon) start_daemon;
	__typeof__(&MHD_stop_daemon) stop_daemon;
	__typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
	__typeof__(&MHD_create_response_from_callback) create_response_from_callback;
	__typeof__(&MHD_add_response_header) add_response_header;
	__typeof__(&MHD_queue_response) queue_response;
	__typeof__(&MHD_destroy_response) destroy_response;
	__typeof__(&MHD_lookup_connection_value) lookup_connection_value;
	__typeof__(&MHD_get_connection_info) get_connection_info;
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
		{ "MHD_create_response_from_callback",
		  (void **)&mhd.create_response_from_callback },
		{ "MHD_add_response_header", (void **)&mhd.add_response_header },
		{ "MHD_queue_response", (void **)&mhd.queue_response },
		{ "MHD_destroy_response", (void **)&mhd.destroy_response },
		{ "MHD_lookup_connection_value", (void **)&mhd.lookup_connection_value },
		{ "MHD_get_connection_info", (void **)&mhd.get_connection_info },
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct mtext *mtext_get(struct mtext *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
	return t;
}

static void mtext_put(struct mtext *t)
{
	if (t && !__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL))
		free(t);
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

/* 127.0.0.0/8, ::1, or ::ffff:127.x.y.z */
static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/*
 * A bound, listening socket for @addr; a negative errno and *@what on
 * failure. *@loopback tells whether it listens on loopback only.
 */
static int listen_socket(const char *addr, bool *loopback, const char **what)
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
	if (listen(fd, MHTTP_BACKLOG) < 0) {
		ret = -errno;
		close(fd);
		goto out;
	}
	*loopback = is_loopback(res->ai_addr);
	ret = fd;
out:
	freeaddrinfo(res);
	return ret;
}

/* ---- the web configuration ---- */

/* Say what happened to the configuration; a refusal once until it changes. */
static void set_note(struct mhttp *h, bool error, const char *text)
{
	if (error && h->note_error && !strcmp(text, h->note))
		return;
	snprintf(h->note, sizeof(h->note), "%s", text);
	h->note_error = error;
	h->note_new = true;
}

/* The file changed on disk: read it again; a bad one leaves the last good one. Locked. */
static void conf_reload(struct mhttp *h)
{
	char err[sizeof(h->note) / 2], text[sizeof(h->note)];
	struct mconf *c = mconf_load(h->conf->path, err, sizeof(err));

	if (!c) {
		snprintf(text, sizeof(text),
			 "web configuration '%s' changed and is not valid: %s; the last good one still serves",
			 h->conf->path, err);
		set_note(h, true, text);
		return;
	}
	if (!c->tls != !h->conf->tls) {
		snprintf(text, sizeof(text),
			 "web configuration '%s' changed and %s: TLS is turned on or off by a restart only; the last one still serves",
			 c->path, c->tls ? "now has TLS" : "no longer has TLS");
		set_note(h, true, text);
		mconf_put(c);
		return;
	}
	mconf_put(h->conf);
	h->conf = c;
	snprintf(text, sizeof(text), "web configuration '%s' read again", c->path);
	set_note(h, false, text);
}

/* The configuration a new connection takes (a reference), NULL when none. */
static struct mconf *conf_current(struct mhttp *h)
{
	struct mconf *c = NULL;
	uint64_t now = now_ns();

	pthread_mutex_lock(&h->conf_lock);
	if (h->conf && now - h->conf_checked >= MHTTP_CONF_CHECK_NS) {
		h->conf_checked = now;
		if (mconf_changed(h->conf))
			conf_reload(h);
	}
	if (h->conf)
		c = mconf_get(h->conf);
	pthread_mutex_unlock(&h->conf_lock);
	return c;
}

/*
 * A connection starts (in the listening thread, before its TLS handshake)
 * or ends: it takes the configuration of the moment, and its TLS session
 * that configuration's credentials, or gives them back.
 */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct mhttp *h = cls;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		mconf_put(*socket_context);
		*socket_context = NULL;
		return;
	}
	*socket_context = conf_current(h);
	if (*socket_context && ((struct mconf *)*socket_context)->tls) {
		const union MHD_ConnectionInfo *ci =
			mhd.get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);

		/* on failure the session keeps the credentials the daemon started with */
		if (ci && ci->tls_session)
			mtls_session_setup(((struct mconf *)*socket_context)->tls, ci->tls_session);
	}
}

/* ---- requests ---- */

/* The response headers of the web configuration, then queue @r. */
static enum MHD_Result queue(struct MHD_Connection *c, const struct mconf *conf,
			     unsigned int status, struct MHD_Response *r)
{
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	for (size_t i = 0; conf && i < conf->cfg.nheaders; i++)
		mhd.add_response_header(r, conf->cfg.headers[i].name, conf->cfg.headers[i].value);
	ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static struct MHD_Response *static_response(const char *type, const char *body)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(strlen(body), (void *)body,
								 MHD_RESPMEM_PERSISTENT);

	if (r)
		mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return r;
}

static ssize_t text_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	const struct mtext *t = cls;
	size_t n;

	if (pos >= t->len)
		return MHD_CONTENT_READER_END_OF_STREAM;
	n = t->len - pos < max ? t->len - pos : max;
	memcpy(buf, t->data + pos, n);
	return n;
}

static void text_free(void *cls)
{
	mtext_put(cls);
}

/*
 * The text of format @f: the last one when it is fresh, else a new one
 * asked of the reading thread and waited for (the last one after
 * MHTTP_WAIT_MS). A reference, or NULL before the first.
 */
static struct mtext *metrics_text(struct mhttp *h, enum mhttp_format f)
{
	struct timespec until;
	struct mtext *t = NULL;
	uint64_t gen;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += MHTTP_WAIT_MS / 1000;
	until.tv_nsec += (MHTTP_WAIT_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&h->lock);
	if (!h->text[f] || now_ns() - h->published[f] >= MHTTP_FRESH_MS * 1000000ULL) {
		gen = h->gen[f];
		h->wanted |= 1U << f;
		while (h->gen[f] == gen && !h->stopping &&
		       pthread_cond_timedwait(&h->cond, &h->lock, &until) != ETIMEDOUT)
			;
	}
	/* a late reading thread: the last text is better than none */
	if (h->text[f])
		t = mtext_get(h->text[f]);
	pthread_mutex_unlock(&h->lock);
	return t;
}

static enum MHD_Result serve_metrics(struct mhttp *h, struct MHD_Connection *c,
				     const struct mconf *conf, bool openmetrics)
{
	enum mhttp_format f = openmetrics ? MHTTP_OPENMETRICS : MHTTP_TEXT;
	struct mtext *t = metrics_text(h, f);
	struct MHD_Response *r;

	if (!t)
		return queue(c, conf, MHD_HTTP_SERVICE_UNAVAILABLE,
			     static_response("text/plain; charset=utf-8", "metrics not ready yet\n"));
	r = mhd.create_response_from_callback(t->len, 16 * 1024, text_read, t, text_free);
	if (!r) {
		mtext_put(t);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, om_content_type(openmetrics));
	return queue(c, conf, MHD_HTTP_OK, r);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct mhttp *h = cls;
	struct mhttp_request *rq = *con_cls;
	const union MHD_ConnectionInfo *ci;
	const struct mconf *conf;
	struct mroute_policy policy;
	struct mroute_request req;
	struct mroute_result res;
	struct MHD_Response *r;

	(void)version;
	(void)upload;
	/* the first call only announces the request: its body (if any) follows */
	if (!rq) {
		rq = calloc(1, sizeof(*rq));
		*con_cls = rq;
		return rq ? MHD_YES : MHD_NO;
	}
	if (*upload_size) {
		/* counted, not kept: POST /record takes none, and nothing else a body */
		rq->body = rq->body > SIZE_MAX - *upload_size ? SIZE_MAX : rq->body + *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	ci = mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	conf = ci ? ci->socket_context : NULL;
	policy = (struct mroute_policy){
		.auth = conf ? conf->auth : NULL, .record = h->p.record,
		.record_anyone = h->loopback || h->p.record_without_auth,
	};
	req = (struct mroute_request){
		.method = method, .url = url, .body = rq->body,
		.authorization = mhd.lookup_connection_value(c, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_AUTHORIZATION),
		.accept = mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT),
	};
	mroute_decide(&policy, &req, &res);
	switch (res.action) {
	case MROUTE_METRICS:
		return serve_metrics(h, c, conf, res.openmetrics);
	case MROUTE_INDEX:
		return queue(c, conf, res.status, static_response("text/html; charset=utf-8", index_page));
	case MROUTE_RECORD:
		pthread_mutex_lock(&h->lock);
		h->record_requests++;
		pthread_mutex_unlock(&h->lock);
		break;
	case MROUTE_REPLY:
		break;
	}
	r = static_response("text/plain; charset=utf-8", res.text);
	if (r && res.challenge)
		mhd.add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Basic realm=\"" MROUTE_REALM "\", charset=\"UTF-8\"");
	if (r && res.allow)
		mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, res.allow);
	return queue(c, conf, res.status, r);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)c;
	(void)toe;
	free(*con_cls);
	*con_cls = NULL;
}

/* ---- the server ---- */

struct start_args {
	struct mhttp *h;
	int fd;
};

/*
 * Start libmicrohttpd from a thread of lower priority: its listening
 * thread, and the connection threads that one starts, inherit the nice
 * value, and the thread that reads the trace keeps its own.
 */
static void *start_niced(void *arg)
{
	struct start_args *a = arg;
	struct mhttp *h = a->h;
	struct MHD_OptionItem opts[10];
	unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
	size_t n = 0;

	setpriority(PRIO_PROCESS, syscall(SYS_gettid), MHTTP_NICE);
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, a->fd, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT,
					     MHTTP_MAX_CONNECTIONS, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT,
					     MHTTP_CONNECTION_TIMEOUT_S, NULL };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
					     (intptr_t)on_connection, h };
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed,
					     NULL };
	if (h->first && h->first->tls) {
		const char *cert, *key;

		/* replaced by each connection's own (on_connection()), but needed to start */
		mtls_pem(h->first->tls, &cert, &key);
		flags |= MHD_USE_TLS;
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)cert };
		opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)key };
	}
	opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	h->d = mhd.start_daemon(flags, 0, NULL, NULL, handle, h, MHD_OPTION_ARRAY, opts,
				MHD_OPTION_END);
	return NULL;
}

int mhttp_open(const struct mhttp_params *p, struct mhttp **out, const char **what)
{
	struct start_args args;
	pthread_condattr_t ca;
	pthread_t starter;
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
	h->p = *p;
	h->p.conf = NULL;	/* the caller's reference: h->conf and h->first are ours */
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->conf_lock, NULL);
	/* the scrape's deadline is of the monotonic clock: a clock step must not stretch it */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (p->conf) {
		h->conf = mconf_get(p->conf);
		h->first = mconf_get(p->conf);
		h->conf_checked = now_ns();
	}
	fd = listen_socket(p->listen, &h->loopback, what);
	if (fd < 0) {
		mhttp_close(h);
		return fd;
	}
	args = (struct start_args){ .h = h, .fd = fd };
	if (pthread_create(&starter, NULL, start_niced, &args) == 0)
		pthread_join(starter, NULL);
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
		mtext_put(h->text[f]);
	mconf_put(h->conf);
	mconf_put(h->first);
	pthread_cond_destroy(&h->cond);
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->conf_lock);
	free(h);
}

bool mhttp_loopback(const struct mhttp *h)
{
	return h->loopback;
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
	struct mtext *t = malloc(sizeof(*t) + len), *old;

	if (!t) {
		free(text);
		return;		/* the scrapes take the last text */
	}
	t->refs = 1;
	t->len = len;
	memcpy(t->data, text, len);
	free(text);
	pthread_mutex_lock(&h->lock);
	old = h->text[f];
	h->text[f] = t;
	h->gen[f]++;
	h->published[f] = now_ns();
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
	mtext_put(old);
}

uint64_t mhttp_record_requests(struct mhttp *h)
{
	uint64_t n;

	pthread_mutex_lock(&h->lock);
	n = h->record_requests;
	pthread_mutex_unlock(&h->lock);
	return n;
}

bool mhttp_take_note(struct mhttp *h, char *buf, size_t len, bool *error)
{
	bool any;

	/* the reading thread asks: a reload in progress is not waited for */
	if (pthread_mutex_trylock(&h->conf_lock))
		return false;
	any = h->note_new;
	if (any) {
		snprintf(buf, len, "%s", h->note);
		*error = h->note_error;
		h->note_new = false;
	}
	pthread_mutex_unlock(&h->conf_lock);
	return any;
}
