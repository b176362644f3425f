// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefile.c - reading trace.dat files through libtracecmd.
 *
 * A file made by "trace-cmd record -B NAME -e block" holds its events in a
 * buffer instance, not in the top-level buffer: every buffer of the file is
 * read and merged in time order by libtracecmd.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <trace-cmd.h>

#include "tracefile.h"
#include "util.h"

struct tracefile {
	struct tracecmd_input *handle;
	struct tracecmd_input **buffers;	/* top level first, then instances */
	int nbuffers;
	struct decoder *decoder;
	struct source_stats st;
	int cpu_cap;
	blk_event_fn fn;
	void *ctx;
	int ret;
};

struct tracefile *tracefile_open(const char *path, int *err)
{
	struct tracefile *f;
	struct stat sb;
	int n;

	if (stat(path, &sb) < 0) {
		*err = -errno;
		return NULL;
	}
	if (S_ISDIR(sb.st_mode)) {
		*err = -EISDIR;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	if (!util_debug)
		tracecmd_set_loglevel(TEP_LOG_NONE);
	errno = 0;
	f->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!f->handle) {
		*err = (errno == EACCES || errno == ENOMEM) ? -errno : -EINVAL;
		goto fail;
	}
	f->decoder = decoder_alloc(tracecmd_get_tep(f->handle));
	if (!f->decoder) {
		*err = errno == ENOMEM ? -ENOMEM : -ENODATA;
		goto fail;
	}
	n = tracecmd_buffer_instances(f->handle);
	f->buffers = calloc(n + 1, sizeof(*f->buffers));
	if (!f->buffers) {
		*err = -ENOMEM;
		goto fail;
	}
	f->buffers[f->nbuffers++] = f->handle;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(f->handle, i);

		if (b)
			f->buffers[f->nbuffers++] = b;
	}
	return f;
fail:
	tracefile_close(f);
	return NULL;
}

struct tep_handle *tracefile_tep(struct tracefile *f)
{
	return tracecmd_get_tep(f->handle);
}

const struct decoder *tracefile_decoder(struct tracefile *f)
{
	return f->decoder;
}

static struct source_cpu_stats *cpu_stats(struct tracefile *f, int cpu)
{
	if (cpu >= f->cpu_cap) {
		int cap = cpu + 16;
		struct source_cpu_stats *n = realloc(f->st.cpu, cap * sizeof(*n));

		if (!n)
			return NULL;
		for (int i = f->cpu_cap; i < cap; i++)
			n[i] = (struct source_cpu_stats){ 0 };
		f->st.cpu = n;
		f->cpu_cap = cap;
	}
	if (cpu >= f->st.ncpu)
		f->st.ncpu = cpu + 1;
	return &f->st.cpu[cpu];
}

/* @idx counts CPUs across buffers in libtracecmd's multi-buffer walk: use rec->cpu */
static int on_record(struct tracecmd_input *h, struct tep_record *rec, int idx, void *data)
{
	struct tracefile *f = data;
	int cpu = rec->cpu;
	struct source_cpu_stats *cs = cpu_stats(f, cpu);
	struct blk_event ev;
	int ret;

	if (!cs) {
		f->ret = -ENOMEM;
		return -1;
	}
	if (rec->missed_events > 0)
		cs->missed += rec->missed_events;
	else if (rec->missed_events < 0)
		cs->missed_unknown++;
	ret = decoder_decode(f->decoder, rec->data, rec->size, rec->ts, cpu, &ev);
	if (ret == 0) {
		cs->other++;
		return 0;
	}
	if (ret < 0) {
		cs->malformed++;
		return 0;
	}
	cs->events++;
	ret = f->fn(&ev, f->ctx);
	if (ret < 0) {
		f->ret = ret;
		return -1;
	}
	return 0;
}

int tracefile_read(struct tracefile *f, blk_event_fn fn, void *ctx)
{
	f->fn = fn;
	f->ctx = ctx;
	f->ret = 0;
	/* a file whose CPU count is known has a stats line for every CPU */
	if (tep_get_cpus(tracecmd_get_tep(f->handle)) > 0)
		cpu_stats(f, tep_get_cpus(tracecmd_get_tep(f->handle)) - 1);
	tracecmd_iterate_events_multi(f->buffers, f->nbuffers, on_record, f);
	return f->ret;
}

const struct source_stats *tracefile_stats(struct tracefile *f)
{
	return &f->st;
}

void tracefile_close(struct tracefile *f)
{
	if (!f)
		return;
	decoder_free(f->decoder);
	/* an instance handle holds a reference on the top-level one */
	for (int i = 1; i < f->nbuffers; i++)
		tracecmd_close(f->buffers[i]);
	if (f->handle)
		tracecmd_close(f->handle);
	free(f->buffers);
	free(f->st.cpu);
	free(f);
}
