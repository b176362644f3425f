/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * signals.h - Ctrl-C, SIGTERM and SIGHUP for the live commands: the
 * handler only counts and sets a flag; the loops look at them, stop, and
 * clean up (the tracefs instance is never left behind).
 */
#ifndef BLKSTACK_SIGNALS_H
#define BLKSTACK_SIGNALS_H

#include <signal.h>

/* Set by SIGINT, SIGTERM and SIGHUP: the loop ends and cleans up. */
extern volatile sig_atomic_t live_stop;
/* How many of those signals came: work after the first (a walk for file
 * names once tracing stopped) ends at the next one. */
extern volatile sig_atomic_t live_nsignals;

/** live_signals - catch SIGINT, SIGTERM and SIGHUP; ignore SIGPIPE */
void live_signals(void);

#endif /* BLKSTACK_SIGNALS_H */
