// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * signals.c - Ctrl-C, SIGTERM and SIGHUP for the live commands.
 */
#include <string.h>

#include "cmd/signals.h"

volatile sig_atomic_t live_stop;
volatile sig_atomic_t live_nsignals;

static void on_signal(int sig)
{
	live_stop = sig;
	live_nsignals++;
}

void live_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: poll() must return so that the loop sees the flag */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
