// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topology.c - "blkstack topology": this machine's device stack as
 * text (topo-record.h), for reports of its recordings elsewhere.
 *
 * Glue only: the -d selection (cmd/live), or every block device, to
 * topo_record_write() through an outfile.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "cmd/opt.h"
#include "cmd/topology.h"
#include "output/outfile.h"
#include "track/topo-record.h"
#include "track/topo.h"

/* ---- options ---- */

const char *cli_usage_topology(void)
{
	return "Usage:\n"
	       " blkstack topology [options]\n"
	       "\n"
	       "Write the device stack of this machine (names, device numbers, kinds, dm\n"
	       "names and target types, partition starts, holders and slaves), one line per\n"
	       "device, so that 'blkstack report -i TRACE --topology FILE' can draw and follow\n"
	       "a recording's stack on another machine, or after the stack is gone.\n"
	       "\n"
	       "Options:\n"
	       " -d, --device DEV        the whole stack of DEV (repeatable); default: every\n"
	       "                         block device\n"
	       " -o, --output FILE       write to FILE instead of standard output\n"
	       " -D, --debug             print debugging messages\n"
	       " -h, --help              display this help\n"
	       "\n"
	       "See blkstack-topology(8).\n";
}

enum cli_result cli_parse_topology(int argc, char **argv, struct topology_params *p,
				   char *err, size_t errlen)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "debug",  no_argument,       NULL, 'D' },
		{ "help",   no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum cli_result r;
	int c;

	memset(p, 0, sizeof(*p));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:o:Dh", opts, NULL)) != -1) {
		r = CLI_RUN;
		switch (c) {
		case 'd':
			r = opt_add_dev(p->devs, &p->ndevs, optarg, err, errlen);
			break;
		case 'o':
			r = opt_file(optarg, &p->output, 'o', err, errlen);
			break;
		case 'D':
			p->debug = true;
			break;
		case 'h':
			return CLI_HELP;
		default:
			return opt_bad(err, errlen, argv, c);
		}
		if (r != CLI_RUN)
			return r;
	}
	if (optind < argc)
		return opt_error(err, errlen, "unexpected argument '%s'", argv[optind]);
	return CLI_RUN;
}

/* ---- the command ---- */

int cmd_topology(int argc, char **argv)
{
	struct topo_selection sel = { 0 };
	struct outfile of = { 0 };
	struct topology_params p;
	char err[CLI_ERR_LEN];
	int rc = EXIT_RUNTIME;
	int ret;

	switch (cli_parse_topology(argc, argv, &p, err, sizeof(err))) {
	case CLI_HELP:
		fputs(cli_usage_topology(), stdout);
		return EXIT_OK;
	case CLI_USAGE_ERROR:
		err_msg("%s", err);
		fprintf(stderr, "see '" PROGRAM_NAME " topology --help'\n");
		return EXIT_USAGE;
	case CLI_RUN:
		break;
	}
	util_debug = p.debug;
	if (p.ndevs) {
		struct live_opts lo = { .devs = p.devs, .ndevs = p.ndevs };

		if (live_select_devices(&lo, &sel) < 0)
			goto out;
	} else {
		ret = topo_all_devices("", &sel);
		if (ret < 0) {
			err_msg("cannot list the block devices in /sys/class/block: %s",
				strerror(-ret));
			goto out;
		}
	}
	ret = outfile_open(&of, p.output);
	if (ret < 0) {
		err_msg("cannot create '%s.partial': %s", p.output, strerror(-ret));
		goto out;
	}
	ret = topo_record_write(of.fp, "", sel.devs, sel.n);
	if (!ret)
		ret = outfile_commit(&of);
	if (ret < 0) {
		err_msg("cannot write the stack to '%s': %s",
			p.output ? p.output : "standard output", strerror(-ret));
		goto out;
	}
	rc = EXIT_OK;
out:
	if (of.fp)
		outfile_abort(&of);
	topo_selection_free(&sel);
	return rc;
}
