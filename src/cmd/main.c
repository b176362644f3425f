// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * main.c - the subcommand table. Only this layer turns results into exit().
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "base/util.h"
#include "cmd/cmd.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "trace", cmd_trace, "trace block I/O live, one blkparse-format line per event" },
	{ "parse", cmd_parse, "print a trace.dat recording in blkparse's format" },
	{ "report", cmd_report, "follow every I/O through the stack: per layer and end to end" },
	{ "record", cmd_record, "record the block events of a stack into a trace.dat" },
	{ "top", cmd_top, "per-layer figures every interval, like iostat, down and up" },
	{ "convert", cmd_convert, "a recording to blktrace files, CSV, JSON lines or Perfetto" },
	{ "topology", cmd_topology, "write the device stack, for reports of its traces elsewhere" },
	{ "cache", cmd_cache, "the page cache per file, live: misses, readahead, evictions" },
	{ "diff", cmd_diff, "two recordings' per-layer figures side by side, with the change" },
	{ "monitor", cmd_monitor, "always on: per-layer histograms for Prometheus (/metrics, textfile)" },
};

static void usage(FILE *fp)
{
	fprintf(fp, "Usage:\n %s <command> [options]\n\n", PROGRAM_NAME);
	fprintf(fp, "Trace the Linux block I/O stack layer by layer through tracefs.\n\n");
	fprintf(fp, "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, " %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, " %-8s %s\n", "help", "show this list, or a command's help");
	fprintf(fp, "\nOptions:\n -h, --help     display this help\n"
		    " -V, --version  display the version\n\n"
		    "Run '%s <command> --help' for a command's options. See blkstack(8).\n",
		PROGRAM_NAME);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("%s %s\n", PROGRAM_NAME, PACKAGE_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return EXIT_OK;
		}
		cmd = find(argv[2]);
		if (cmd) {
			char *args[] = { argv[2], "--help", NULL };

			return cmd->run(2, args);
		}
		err_msg("unknown command '%s'", argv[2]);
		fprintf(stderr, "see '%s --help'\n", PROGRAM_NAME);
		return EXIT_USAGE;
	}
	cmd = find(argv[1]);
	if (!cmd) {
		err_msg("unknown command '%s'", argv[1]);
		fprintf(stderr, "see '%s --help'\n", PROGRAM_NAME);
		return EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}
