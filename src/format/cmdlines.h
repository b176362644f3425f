/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmdlines.h - task names from a trace.dat's saved_cmdlines text.
 *
 * The kernel's saved_cmdlines is a "PID COMM" line per task it saw. A
 * recording carries it for events that name no task; only a blktrace
 * file's names need it, so it is read on demand: parsed by hand (sscanf
 * and libtraceevent's tep_register_comm() cost 1,900 instructions a line,
 * and a file holds thousands of lines), with the names libtraceevent gave.
 */
#ifndef BLKSTACK_CMDLINES_H
#define BLKSTACK_CMDLINES_H

#include <stddef.h>
#include <stdint.h>

struct cmdlines;

/**
 * cmdlines_parse - the task names of a saved_cmdlines text
 * @text: the text (not NUL-terminated)
 * @size: its length
 *
 * A line is read as sscanf(line, "%d %31[^\n]") read it: blanks, a
 * decimal pid (a long narrowed to int), blanks, then a name of at most 31
 * bytes, up to the line's end or a NUL. A line of 64 bytes or more, one
 * without a name, and one whose pid is not above 0 are skipped. Of two
 * lines for one pid, the name is the one libtraceevent's lookup finds.
 * Returns the table (free with cmdlines_free()), or NULL with errno
 * ENOMEM.
 */
struct cmdlines *cmdlines_parse(const char *text, size_t size);

/** cmdlines_find - the name of task @pid, or NULL: not in the table */
const char *cmdlines_find(const struct cmdlines *c, int32_t pid);

/** cmdlines_free - free @c (NULL accepted) */
void cmdlines_free(struct cmdlines *c);

#endif /* BLKSTACK_CMDLINES_H */
