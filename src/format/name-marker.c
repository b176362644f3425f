// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record-names.c - the file names a recording carries: the recorded pages
 * read back once tracing stopped, and one marker per named file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "cmd/pagecache.h"
#include "format/decode.h"
#include "base/event.h"
#include "format/pagewalk.h"
#include "base/pcevent.h"
#include "format/name-marker.h"

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

int record_names_format(char *buf, size_t len, uint32_t sdev, uint64_t ino, bool deleted,
			const char *path)
{
	int n = snprintf(buf, len, RECORD_NAME_PREFIX "%u:%u %" PRIu64 " %s %s", KDEV_MAJOR(sdev),
			 KDEV_MINOR(sdev), ino, deleted ? "deleted" : "live", path);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* A decimal number at *@s (advanced past it), below @max. */
static int number(const char **s, const char *end, uint64_t max, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	if (p == end || *p < '0' || *p > '9')
		return -EINVAL;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (*v > (max - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		*v = *v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	return 0;
}

/* The word @w at *@s (advanced past it and one space). */
static bool word(const char **s, const char *end, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(end - *s) < n + 1 || memcmp(*s, w, n) || (*s)[n] != ' ')
		return false;
	*s += n + 1;
	return true;
}

int record_names_parse(const char *text, size_t len, uint32_t *sdev, uint64_t *ino,
		       bool *deleted, const char **path, size_t *pathlen)
{
	const char *s = text, *end = text + len;
	uint64_t maj, min;

	while (end > s && (end[-1] == '\n' || end[-1] == '\0'))
		end--;
	if (number(&s, end, 0xfff, &maj) || s == end || *s++ != ':' ||
	    number(&s, end, 0xfffff, &min) || s == end || *s++ != ' ' ||
	    number(&s, end, UINT64_MAX, ino) || s == end || *s++ != ' ')
		return -EINVAL;
	if (word(&s, end, "deleted"))
		*deleted = true;
	else if (word(&s, end, "live"))
		*deleted = false;
	else
		return -EINVAL;
	if (s == end)
		return -EINVAL;
	*sdev = KDEV_MKDEV(maj, min);
	*path = s;
	*pathlen = end - s;
	return 0;
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
		if (record_names_format(text, sizeof(text), files[i].sdev, files[i].ino, deleted,
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
