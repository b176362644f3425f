// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_tracefile.c - the trace.dat reader (format/datfile.c, tracefile.c)
 * on a file held in memory: version 6 and 7 headers, options, CPU tables,
 * flyrecord pages, the markers of a blkstack recording.
 *
 * The layout of a v6 file is parsed straight from a heap copy of exactly the
 * input's size, so that AddressSanitizer sees any read past its end. Then the
 * whole reader runs as the commands run it, on a memfd: tracefile_open()
 * (the headers, libtracecmd's part parsed first in a child as always, then
 * the decoders and the marker scan here), and tracefile_read() through the
 * merge, whose events must come out in time order. A memfd is on tmpfs,
 * where the pages are read with pread() (datpages_read_pays()): the reader
 * runs again on an unnamed file in the working directory, when that is on
 * another filesystem, for the path that maps them. A v7 file's records are
 * read in tracefile's child, which a crash there turns into "corrupt".
 *
 * tracefile's children run libtracecmd on the damaged input on purpose: it
 * crashes on some (tests/fuzz/README.md). A child inherits libFuzzer's and
 * the sanitizers' crash handlers, which would save the input as a crash of
 * this harness and leave the parent fuzzing on: in the child, a crash just
 * ends it, as it does in blkstack, and the parent's reading says "corrupt".
 */
#include <fcntl.h>
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/datfile.h"
#include "format/datpages.h"
#include "format/tracefile.h"
#include "track/topo-record.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

static void child_dies_plainly(void)
{
	_exit(1);
}

/* in a forked child: crashes end it, with no report saved as this harness's */
static void child_handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };

	__sanitizer_set_death_callback(child_dies_plainly);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

/* whether an unnamed file in the working directory is mapped, not read */
static bool disk_maps;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open(".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	(void)argc;
	(void)argv;
	pthread_atfork(NULL, NULL, child_handlers);
	if (fd >= 0) {
		disk_maps = !datpages_read_pays(fd);
		close(fd);
	}
	if (!disk_maps)
		fprintf(stderr, "fuzz_tracefile: the working directory is on tmpfs (or takes no "
				"O_TMPFILE): the mapped path is not fuzzed\n");
	return 0;
}

struct order {
	uint64_t last;
	uint64_t n;
};

static int on_event(const struct blk_event *ev, void *ctx)
{
	struct order *o = ctx;

	/* the merge releases events in time order, whatever the pages say */
	if (o->n++ && ev->ts < o->last)
		abort();
	o->last = ev->ts;
	return 0;
}

static void layout(const uint8_t *data, size_t len)
{
	struct datfile_layout l;
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return;
	memcpy(copy, data, len);
	if (datfile_layout_parse(copy, len, &l) == 0) {
		for (int i = 0; i < l.nstreams; i++) {
			const struct datfile_stream *s = &l.streams[i];

			/* what is said to be there is inside the file, in whole
			 * pages (a compressed stream's are chunks of any size) */
			if (s->avail > s->size || (s->avail && s->offset + s->avail > len) ||
			    (!s->compressed && s->avail % l.page_size) || s->buffer >= l.nbuffers)
				abort();
		}
		datfile_layout_free(&l);
	}
	free(copy);
}

/* The reader on @data written to @fd, which it closes. */
static void reader(int fd, const uint8_t *data, size_t len)
{
	struct order o = { 0 };
	struct tracefile *f;
	char path[64];
	size_t n;
	int err;

	if (fd < 0)
		return;
	if (write(fd, data, len) != (ssize_t)len)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f = tracefile_open(path, &err);
	if (!f)
		goto out;
	tracefile_read(f, on_event, &o);
	tracefile_topology(f);
	tracefile_file_names(f, &n);
	tracefile_close(f);
out:
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	layout(data, len);
	reader(memfd_create("fuzz.dat", MFD_CLOEXEC), data, len);
	if (disk_maps)
		reader(open(".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600), data, len);
	return 0;
}
