// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * monitor-http.c - blkstack monitor's endpoint, set up and said.
 */
#include <errno.h>
#include <string.h>

#include "base/util.h"
#include "cmd/monitor-http.h"
#include "output/metrics-conf.h"

static void say_listen_error(const char *listen, int ret, const char *what)
{
	if (ret == -EADDRINUSE) {
		err_msg("cannot listen on '%s': the port is in use", listen);
		hint_msg("stop what uses it (ss -ltnp shows it), or choose another port with --listen");
	} else if (ret == -EINVAL) {
		err_msg("invalid --listen '%s': give ADDR:PORT", listen);
	} else if (ret == -EADDRNOTAVAIL) {
		err_msg("cannot listen on '%s': no such address on this machine", listen);
		hint_msg("give one of this machine's addresses (ip -br addr), 127.0.0.1, or :PORT for all");
	} else if (ret == -ELIBACC) {
		err_msg("cannot listen on '%s': %s", listen, what);
		hint_msg("install libmicrohttpd, which serves --listen (Debian: libmicrohttpd12)");
	} else {
		err_msg("cannot listen on '%s' (%s): %s", listen, what, strerror(-ret));
	}
}

struct mhttp *monitor_http_open(const char *listen, const char *web_config, bool record,
				bool record_without_auth, bool *tls)
{
	struct mhttp_params hp = {
		.listen = listen, .record = record, .record_without_auth = record_without_auth,
	};
	struct mhttp *h = NULL;
	const char *what;
	char err[512];
	int ret;

	*tls = false;
	if (web_config) {
		hp.conf = mconf_load(web_config, err, sizeof(err));
		if (!hp.conf) {
			err_msg("invalid --web-config '%s': %s", web_config, err);
			hint_msg("the format is that of node_exporter's --web.config.file: see blkstack-monitor(8)");
			return NULL;
		}
		*tls = hp.conf->tls != NULL;
	}
	ret = mhttp_open(&hp, &h, &what);
	if (ret < 0) {
		say_listen_error(listen, ret, what);
		goto out;
	}
	/* a request to write a file on this machine, from anyone who can reach it: not by default */
	if (record && !mhttp_loopback(h) && !(hp.conf && hp.conf->auth) && !record_without_auth) {
		err_msg("--record-on http on '%s', which is not a loopback address, with no users to authenticate POST /record",
			listen);
		hint_msg("give basic_auth_users in --web-config, listen on 127.0.0.1, or allow anyone with --record-without-auth");
		mhttp_close(h);
		h = NULL;
	}
out:
	mconf_put(hp.conf);
	return h;
}

void monitor_http_notes(struct mhttp *h)
{
	char note[1024];
	bool error;

	while (mhttp_take_note(h, note, sizeof(note), &error)) {
		if (error)
			warn_msg("%s", note);
		else
			note_msg("%s", note);
	}
}
