// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd-topology.c - "blkstack topology": this machine's device stack as
 * text (topo-record.h), for reports of its recordings elsewhere.
 *
 * Glue only: the -d selection (cmd-live), or every block device, to
 * topo_record_write() through an outfile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/opt.h"
#include "cmd/cmd.h"
#include "cmd/live.h"
#include "output/outfile.h"
#include "track/topo-record.h"
#include "track/topo.h"
#include "base/util.h"

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
