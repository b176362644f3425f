// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record-names.c - the file names a recording carries: the recorded pages
 * read back once tracing stopped, and one marker per named file
 * (format/name-marker.c writes their text).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "base/event.h"
#include "base/pcevent.h"
#include "cmd/pagecache.h"
#include "cmd/record-names.h"
#include "format/decode.h"
#include "format/name-marker.h"
#include "format/pagewalk.h"

/*
 * Older kernels cut a trace_marker write at 1 KiB (TRACE_BUF_SIZE): a name
 * whose marker would be longer is left out (the file shows as MAJ:MIN:ino)
 * rather than written cut.
 */
#define MARKER_MAX	1000

int record_names_scan(struct pc_run *run, FILE *const *spill, const uint64_t *bytes, int ncpu,
		      uint32_t page_size, int long_size, struct decoder *dec)
{
	struct pagewalk w;
	uint8_t *page;
	int ret = 0;

	page = malloc(page_size);
	if (!page)
		return -ENOMEM;
	/*
	 * CPU after CPU, not merged in time: only the files seen matter here,
	 * not which I/O each one caused
	 */
	for (int c = 0; c < ncpu && !ret; c++) {
		if (!spill[c])
			continue;
		if (fseeko(spill[c], 0, SEEK_SET) < 0) {
			ret = -errno;
			break;
		}
		/* pages as this machine's kernel wrote them: its byte order */
		pagewalk_init(&w, long_size, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
		for (uint64_t off = 0; off + page_size <= bytes[c] && !ret; off += page_size) {
			const uint8_t *rec;
			unsigned int size;
			uint64_t ts;

			if (fread(page, 1, page_size, spill[c]) != page_size) {
				ret = ferror(spill[c]) ? -EIO : -ENODATA;
				break;
			}
			if (pagewalk_load(&w, page, page_size) < 0)
				continue;
			while ((rec = pagewalk_next(&w, &ts, &size)) && !ret) {
				struct blk_event ev;

				if (decoder_decode(dec, rec, size, ts, c, &ev) <= 0 ||
				    !pc_kind_is(ev.kind))
					continue;
				ret = pc_run_event(&ev, run);
			}
		}
		/* the markers to come are appended: back to the end, and to writing */
		if (fseeko(spill[c], 0, SEEK_END) < 0 && !ret)
			ret = -errno;
	}
	free(page);
	return ret;
}

int record_names_write(struct tracefs_instance *inst, const struct pc_run *run,
		       size_t *written, size_t *skipped)
{
	const struct pc_file *files;
	char text[MARKER_MAX];
	size_t n;
	int ret = 0;

	*written = *skipped = 0;
	files = pagecache_files(run->pc, &n);
	if (!n)
		return 0;
	if (tracefs_print_init(inst) < 0)
		return errno ? -errno : -EIO;
	for (size_t i = 0; i < n && !ret; i++) {
		bool deleted = false;
		const char *path = pathres_lookup(run->pr, files[i].sdev, files[i].ino, &deleted);

		if (!path)
			continue;
		if (name_marker_format(text, sizeof(text), files[i].sdev, files[i].ino, deleted,
				       path) < 0) {
			(*skipped)++;
			continue;
		}
		if (tracefs_printf(inst, "%s\n", text) < 0)
			ret = errno ? -errno : -EIO;
		else
			(*written)++;
	}
	tracefs_print_close(inst);
	return ret;
}
