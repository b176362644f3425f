/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tracehost.h - what a trace knows of the machine it was made on: the
 * traced kernel's release and timer frequency (which decide how that
 * kernel counted a disk's busy time), and the wall-clock time of its trace
 * clock (which places its events among application logs).
 *
 * Live they are this machine's. A recording carries them, or some of
 * them: blkstack record writes its "blkstack-host:" marker and trace-cmd's
 * UNAME option, trace-cmd record the UNAME option and, with --date, the
 * DATE option. What a trace does not say is unknown here, never guessed:
 * a consumer that needs a value says which one it assumed.
 */
#ifndef BLKSTACK_TRACEHOST_H
#define BLKSTACK_TRACEHOST_H

#include <stdbool.h>
#include <stdint.h>

/* uname's release field holds at most 64 characters */
#define TRACE_HOST_RELEASE_MAX 65

/**
 * struct trace_host - the traced machine, as far as the trace says
 * @release: the kernel's release (uname -r); "" when unknown
 * @hz: its CONFIG_HZ; 0 when unknown
 * @wall_known: @wall_offset_ns is known
 * @wall_offset_ns: CLOCK_REALTIME minus the trace clock, ns: an event at
 *		    trace time T happened at wall-clock time T + @wall_offset_ns
 * @wall_from: how the wall clock is known ("blkstack record", "the DATE
 *	       option of trace-cmd record --date"), or when unknown why not;
 *	       static text
 * @from: where @release and @hz come from ("the recording", "this
 *	  machine"); static text
 * @date_option: the recording carries trace-cmd's DATE option, which
 *		 trace-cmd report adds to every time it prints (unless
 *		 --nodate): it prints wall-clock times, not trace time
 */
struct trace_host {
	char release[TRACE_HOST_RELEASE_MAX];
	unsigned int hz;
	bool wall_known;
	int64_t wall_offset_ns;
	const char *wall_from;
	const char *from;
	bool date_option;
};

#endif /* BLKSTACK_TRACEHOST_H */
