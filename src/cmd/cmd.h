/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h - the subcommands. Each returns an exit code (EXIT_OK, EXIT_RUNTIME,
 * EXIT_USAGE); only main() exits.
 */
#ifndef BLKSTACK_CMD_H
#define BLKSTACK_CMD_H

int cmd_trace(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_topology(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_monitor(int argc, char **argv);

#endif /* BLKSTACK_CMD_H */
