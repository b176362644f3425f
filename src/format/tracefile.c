// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefile.c - reading trace.dat files.
 *
 * The event formats always come from libtracecmd. The events themselves,
 * for version 6 and 7 files, are read by mapping each CPU's pages and
 * walking them with pagewalk, as the live path walks ring-buffer pages: an
 * allocated record per event (libtracecmd's way) costs more than the rest
 * of the work per event. A compressed v7 file holds each CPU's pages in
 * chunks of a few pages, each compressed on its own: they are decompressed
 * one chunk at a time per CPU, so memory stays at a chunk per CPU whatever
 * the file's length (libtracecmd keeps every chunk it has decompressed,
 * or writes the whole CPU's data to a temporary file). Other files
 * (latency traces, unknown compressions) are read record by record through
 * libtracecmd, in a child process: libtracecmd (and trace-cmd itself)
 * crashes on some damaged files, and a bad file must give a message, not a
 * crash. The child sends decoded events through a pipe. For the same
 * reason the headers of every trace.dat are parsed once in a child before
 * they are parsed here: libtraceevent crashes on some damaged event
 * formats.
 *
 * A file made by "trace-cmd record -B NAME -e block" holds its events in a
 * buffer instance, not in the top-level buffer: every buffer is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <trace-cmd.h>
#include <unistd.h>

#include "base/array.h"
#include "base/lostevent.h"
#include "base/pcevent.h"
#include "base/tickevent.h"
#include "base/util.h"
#include "format/census.h"
#include "format/chunkring.h"
#include "format/cmdlines.h"
#include "format/datfile.h"
#include "format/datformats.h"
#include "format/datpages.h"
#include "format/host-marker.h"
#include "format/kindscan.h"
#include "format/name-marker.h"
#include "format/pagewalk.h"
#include "format/tracefile.h"
#include "format/unzip.h"
#include "track/merge.h"
#include "track/topo-record.h"

struct tracefile {
	struct tracecmd_input *handle;	/* the libtracecmd path's */
	struct tep_handle *tep;		/* the mapped path's formats, datformats.c */
	struct decoder *decoder;
	struct source_stats st;
	int cpu_cap;

	/* v6 and v7 path: the mapped file and where its pages are */
	bool mapped;
	bool corrupt;		/* a chunk did not decompress: the read ends in -EBADMSG */
	const uint8_t *map;
	size_t map_len;
	int read_fd;		/* the file, where its pages are read, not mapped (datpages.h) */
	struct datfile_layout layout;

	/* libtracecmd path, in the child: top level first, then instances */
	struct tracecmd_input **buffers;
	int nbuffers;
	int out_fd;
	int jobs;		/* threads that may decode the mapped streams */
	uint64_t keep_kinds;	/* tracefile_keep_kinds(): 0 keeps all */
	bool want_ticks;	/* tracefile_want_ticks() */
	uint64_t bare_kinds;	/* tracefile_bare_kinds() */
	bool loss_marks;	/* tracefile_loss_marks() */
	struct blk_event batch[256];
	unsigned int nbatch;
	int ret;

	/* libtracecmd path, in the parent */
	char *path;		/* for another child, when the file is read again */
	pid_t child;
	int in_fd;
	uint64_t has_kinds;	/* bit per enum blk_kind or pc_kind the file's formats have */

	/* the stack blkstack record wrote as markers, when there is one */
	struct topo_record topology;
	bool has_topology;
	/* what it said of its machine (host-marker.h), and when it said it */
	struct host_marker host;
	uint64_t host_ts;
	bool has_host;
	/* and the names of the files its page-cache events touched */
	struct tracefile_name *names;
	size_t nnames, names_cap;
	/* the workload's markers, read at the first tracefile_markers() */
	struct marker_set marks;
	bool marks_read;
	/* a mapped file's saved_cmdlines, read at the first tracefile_comm() */
	struct cmdlines *cmdlines;
	bool cmdlines_read;
};

_Static_assert(PC_EV_KIND_MAX <= 64, "has_kinds has a bit per event kind");

/* Messages from the child: a type byte, then the payload. */
enum msg_type {
	MSG_OPENED = 1,		/* int32 error (0: ok), uint64 kinds, int32 ncpu */
	MSG_EVENTS,		/* uint32 count, then count struct blk_event */
	MSG_CPU_STATS,		/* int32 cpu, struct source_cpu_stats */
	MSG_END,		/* int32 error of the walk */
};

/*
 * The most CPUs a file may claim (datfile.c's bound too): a count beyond is
 * damage, and would size the per-CPU table by the file's word (2^31 CPUs).
 */
#define TRACEFILE_MAX_CPUS 65536

static struct source_cpu_stats *cpu_stats(struct tracefile *f, int cpu)
{
	if (cpu < 0 || cpu >= TRACEFILE_MAX_CPUS)
		return NULL;
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

/* A CPU's records are in time order, a day apart at most in a real recording. */
#define TIME_JUMP_MAX_NS (86400ULL * 1000000000ULL)

/* Count a record's time that goes backwards or jumps far ahead on its CPU. */
static void time_check(struct source_cpu_stats *cs, uint64_t ts)
{
	if (cs->last_ts && ts < cs->last_ts)
		cs->time_back++;
	else if (cs->last_ts && ts - cs->last_ts > TIME_JUMP_MAX_NS)
		cs->time_jumps++;
	cs->last_ts = ts;
}

static int open_buffers(struct tracefile *f)
{
	int n = tracecmd_buffer_instances(f->handle);

	f->buffers = calloc(n + 1, sizeof(*f->buffers));
	if (!f->buffers)
		return -ENOMEM;
	f->buffers[f->nbuffers++] = f->handle;
	for (int i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(f->handle, i);

		if (b)
			f->buffers[f->nbuffers++] = b;
	}
	return 0;
}

/* Map the file and find its pages; 0, -ENOTSUP (not v6 or v7 flyrecord), or -errno. */
static int map_file(struct tracefile *f, const char *path)
{
	struct stat sb;
	void *map;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (S_ISDIR(sb.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (!S_ISREG(sb.st_mode) || sb.st_size == 0) {
		/* a pipe or an empty file: let libtracecmd try and say no */
		close(fd);
		return sb.st_size == 0 && S_ISREG(sb.st_mode) ? -EINVAL : -ENOTSUP;
	}
	map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}
	/* the headers are read through the map either way: they are few pages */
	if (datpages_read_pays(fd))
		f->read_fd = fd;
	else
		close(fd);
	f->map = map;
	f->map_len = sb.st_size;
	madvise(map, sb.st_size, MADV_SEQUENTIAL);
	ret = datfile_layout_parse(f->map, f->map_len, &f->layout);
	if (ret == 0)
		f->mapped = true;
	return ret;
}

/* Whether the file starts like a trace.dat, whatever follows. */
static bool has_magic(const char *path)
{
	static const char magic[] = "\x17\x08\x44tracing";
	char buf[sizeof(magic) - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) &&
	     memcmp(buf, magic, sizeof(buf)) == 0;
	close(fd);
	return ok;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* 1 read, 0 end of stream, -1 error */
static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return got ? -1 : 0;
		got += n;
	}
	return 1;
}

static int send_msg(int fd, uint8_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	if (write_all(fd, &type, 1) || (alen && write_all(fd, a, alen)) ||
	    (blen && write_all(fd, b, blen)))
		return -1;
	return 0;
}

/*
 * Why libtracecmd could not open a trace.dat. It allocates what the file
 * claims (a v7 section's size, a compressed chunk's): ENOMEM while memory
 * is still there to allocate is a corrupt claim, not the machine's state.
 */
static int open_failure(void)
{
	int e = errno;
	void *p;

	if (e == EACCES)
		return -EACCES;
	if (e != ENOMEM)
		return -EBADMSG;
	p = malloc(64 << 20);
	free(p);
	return p ? -EBADMSG : -ENOMEM;
}

/*
 * The kinds a decoder of a mapped file delivers: those tracefile_keep_kinds()
 * kept (all by default), the tick's only when tracefile_want_ticks() asked
 * for it: the tracker and the text outputs count every event they are given.
 */
static uint64_t kinds_kept(const struct tracefile *f)
{
	uint64_t k = f->keep_kinds ? f->keep_kinds : ~0ULL;

	return f->want_ticks ? k : k & ~(1ULL << TICK_EV_TIMER);
}

static int open_records(struct tracefile *f, const char *path)
{
	f->handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!f->handle)
		return open_failure();
	f->decoder = decoder_alloc(tracecmd_get_tep(f->handle));
	if (!f->decoder)
		return errno == ENOMEM ? -ENOMEM : -ENODATA;
	return open_buffers(f) < 0 ? -ENOMEM : 0;
}

static int read_records(struct tracefile *f);

/*
 * In a child that parses with libtracecmd and libtraceevent: they print
 * some complaints on stdout and stderr, which are not ours to show
 * (unless debugging).
 */
static void quiet_child(void)
{
	int null;

	if (util_debug)
		return;
	null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
}

/* The child: open with libtracecmd, send every decoded event, exit. */
static void __attribute__((noreturn)) child_main(struct tracefile *f, const char *path, int fd)
{
	uint64_t kinds = 0;
	int32_t err, ncpu = 0;

	quiet_child();
	signal(SIGPIPE, SIG_DFL);
	f->out_fd = fd;
	err = open_records(f, path);
	if (!err) {
		for (int k = BLK_EV_NONE + 1; k < PC_EV_KIND_MAX; k++)
			if (decoder_has(f->decoder, k))
				kinds |= 1ULL << k;
		ncpu = tep_get_cpus(tracecmd_get_tep(f->handle));
		if (ncpu > TRACEFILE_MAX_CPUS)
			err = -EBADMSG;
	}
	if (send_msg(fd, MSG_OPENED, &err, sizeof(err), &kinds, sizeof(kinds)) ||
	    write_all(fd, &ncpu, sizeof(ncpu)))
		_exit(1);
	if (err)
		_exit(0);
	err = read_records(f);
	for (int c = 0; c < f->st.ncpu; c++)
		if (send_msg(fd, MSG_CPU_STATS, &c, sizeof(c), &f->st.cpu[c], sizeof(f->st.cpu[c])))
			_exit(1);
	send_msg(fd, MSG_END, &err, sizeof(err), NULL, 0);
	_exit(0);
}

/* The parent's half of the libtracecmd path: start the child, read its verdict. */
static int open_in_child(struct tracefile *f, const char *path)
{
	int32_t err, ncpu;
	uint8_t type;
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	f->child = fork();
	if (f->child < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (f->child == 0) {
		close(fds[0]);
		child_main(f, path, fds[1]);
	}
	close(fds[1]);
	f->in_fd = fds[0];
	if (read_all(f->in_fd, &type, 1) != 1 || type != MSG_OPENED ||
	    read_all(f->in_fd, &err, sizeof(err)) != 1 ||
	    read_all(f->in_fd, &f->has_kinds, sizeof(f->has_kinds)) != 1 ||
	    read_all(f->in_fd, &ncpu, sizeof(ncpu)) != 1)
		return -EBADMSG;	/* the child died opening it */
	if (!err && ncpu > TRACEFILE_MAX_CPUS)
		return -EBADMSG;
	if (!err && ncpu > 0 && !cpu_stats(f, ncpu - 1))
		return -ENOMEM;
	return err;
}

/* ---- what a blkstack recording carries as markers: its stack, file names ---- */

/* blkstack record writes each line of its stack as "PREFIX line" markers */
#define MARKER_PREFIX		"blkstack-topology: "
/*
 * the stack is written as tracing starts, the file names (name-marker.h)
 * after the events: near the start and the end of their CPU's pages
 */
#define MARKER_SCAN_PAGES	64
/* the most text of a stack read from markers */
#define MARKER_TOPOLOGY_MAX	(1U << 20)

struct markers {
	struct tracefile *f;
	char *text;		/* the stack's lines */
	size_t len, cap;
	int err;		/* -ENOMEM */
	bool workload;		/* collect the others' markers (tracefile_markers()) instead */
};

static void add_topology_line(struct markers *m, const char *s, size_t n)
{
	/* a stack is a few KiB of text: more is damage, and its parse is quadratic */
	if (m->len + n + 1 > MARKER_TOPOLOGY_MAX)
		return;
	if (m->len + n + 1 > m->cap) {
		size_t c = (m->len + n + 1) * 2;
		char *t = realloc(m->text, c);

		if (!t) {
			m->err = -ENOMEM;
			return;
		}
		m->text = t;
		m->cap = c;
	}
	memcpy(m->text + m->len, s, n);
	m->len += n;
	m->text[m->len++] = '\n';
}

static void add_file_name(struct tracefile *f, struct markers *m, const char *s, size_t n)
{
	struct tracefile_name *nm;
	const char *path;
	size_t pathlen;

	if (ARRAY_ROOM(f->names, f->nnames, f->names_cap, 64)) {
		m->err = -ENOMEM;
		return;
	}
	nm = &f->names[f->nnames];
	if (name_marker_parse(s, n, &nm->sdev, &nm->ino, &nm->deleted, &path, &pathlen) < 0)
		return;		/* a marker of someone else's */
	nm->path = strndup(path, pathlen);
	if (!nm->path) {
		m->err = -ENOMEM;
		return;
	}
	f->nnames++;
}

static void add_marker(void *ctx, uint64_t ts, const char *s, size_t n)
{
	size_t tlen = strlen(MARKER_PREFIX), flen = strlen(NAME_MARKER_PREFIX);
	size_t hlen = strlen(HOST_MARKER_PREFIX);
	struct markers *m = ctx;
	struct tracefile *f = m->f;

	if (m->workload)
		marker_set_add(&f->marks, ts, s, n);
	else if (n >= tlen && !memcmp(s, MARKER_PREFIX, tlen))
		add_topology_line(m, s + tlen, n - tlen);
	else if (n >= flen && !memcmp(s, NAME_MARKER_PREFIX, flen))
		add_file_name(f, m, s + flen, n - flen);
	/* one per recording: a second (a recording of a recording's replay) is not its own */
	else if (n >= hlen && !memcmp(s, HOST_MARKER_PREFIX, hlen) && !f->has_host &&
		 !host_marker_parse(s + hlen, n - hlen, &f->host)) {
		f->has_host = true;
		f->host_ts = ts;
	}
}

/*
 * The print events of every stream: blkstack's own near the start and the
 * end of each (@m->workload false), or the workload's on every page.
 */
static void scan_streams(struct tracefile *f, struct markers *m)
{
	const struct datfile_layout *l = &f->layout;
	struct markscan ms;

	if (markscan_init(&ms, f->tep, tep_get_header_page_size(f->tep) == 4 ? 4 : 8,
			  l->big_endian, l->page_size) < 0)
		return;
	m->f = f;
	for (int i = 0; i < l->nstreams; i++) {
		struct datpages dp;
		const uint8_t *page;
		uint64_t pages, n = 0;

		if (datpages_init(&dp, f->map, f->read_fd, l, &l->streams[i]) < 0) {
			datpages_destroy(&dp);
			m->err = -ENOMEM;
			break;
		}
		pages = datpages_count(&dp);
		while ((page = datpages_next(&dp))) {
			markscan_page(&ms, page, add_marker, m);
			/* the first pages, then the last ones */
			if (!m->workload && ++n == MARKER_SCAN_PAGES &&
			    pages > 2 * MARKER_SCAN_PAGES) {
				n = pages - MARKER_SCAN_PAGES;
				datpages_destroy(&dp);
				if (datpages_init(&dp, f->map, f->read_fd, l, &l->streams[i]) < 0 ||
				    datpages_seek(&dp, n) < 0)
					break;
			}
		}
		/* the count walked every chunk header: the read maps them again as it goes */
		if (dp.ds)
			datpages_forget(&dp);
		datpages_destroy(&dp);
	}
}

static void scan_markers(struct tracefile *f)
{
	struct markers m = { 0 };
	unsigned int line;

	scan_streams(f, &m);
	if (m.err)
		debug_msg("out of memory reading the markers of the recording");
	if (m.len)
		f->has_topology = topo_record_parse(m.text, m.len, &f->topology, &line) == 0;
	free(m.text);
}

const struct tracefile_marker *tracefile_markers(struct tracefile *f, size_t *n, size_t *dropped)
{
	struct markers m = { .workload = true };

	if (f->mapped && !f->marks_read) {
		f->marks_read = true;
		scan_streams(f, &m);
		if (m.err || f->marks.err)
			debug_msg("out of memory reading the markers of the recording");
		/* streams are per CPU: in time order only once merged */
		marker_set_sort(&f->marks);
	}
	*n = f->marks.n;
	if (dropped)
		*dropped = f->marks.dropped;
	return f->marks.n ? f->marks.marks : NULL;
}

const struct topo_record *tracefile_topology(const struct tracefile *f)
{
	return f && f->has_topology ? &f->topology : NULL;
}

/* The release in a UNAME option: "SYSNAME NODENAME RELEASE MACHINE", as trace-cmd writes it. */
static void uname_release(const char *uname, char *out)
{
	const char *s = uname;
	size_t n;

	for (int word = 0; word < 2 && s; word++) {
		s = strchr(s, ' ');
		s = s ? s + 1 : NULL;
	}
	if (!s)
		return;
	n = strcspn(s, " ");
	if (n && n < TRACE_HOST_RELEASE_MAX) {
		memcpy(out, s, n);
		out[n] = '\0';
	}
}

/* Trace clocks that count cycles or events, not time: no wall clock can be paired with them. */
static bool clock_counts_time(const char *clock)
{
	return strcmp(clock, "x86-tsc") && strcmp(clock, "counter");
}

void tracefile_host(const struct tracefile *f, struct trace_host *h)
{
	const struct datfile_host *dh = f->mapped ? &f->layout.host : NULL;

	memset(h, 0, sizeof(*h));
	h->from = "the recording";
	if (f->has_host && f->host.release[0])
		memcpy(h->release, f->host.release, sizeof(h->release));
	else if (dh && dh->uname)
		uname_release(dh->uname, h->release);
	if (f->has_host)
		h->hz = f->host.hz;
	h->date_option = dh && dh->has_date;

	if (dh && dh->clock[0] && !clock_counts_time(dh->clock)) {
		h->wall_from = "unknown: the recording's trace clock counts cycles, not time";
	} else if (f->has_host && f->host.has_clock) {
		h->wall_known = true;
		/* blkstack's instance runs on "mono": the pair read side by side is exact */
		if (!dh || !strcmp(dh->clock, "mono")) {
			h->wall_offset_ns = f->host.realtime_ns - (int64_t)f->host.mono_ns;
			h->wall_from = "blkstack record (CLOCK_REALTIME read beside the trace clock)";
		} else {
			h->wall_offset_ns = f->host.realtime_ns - (int64_t)f->host_ts;
			h->wall_from = "blkstack record (CLOCK_REALTIME read as its marker was written)";
		}
	} else if (dh && dh->has_date) {
		h->wall_known = true;
		h->wall_offset_ns = dh->date_ns;
		h->wall_from = "the DATE option of trace-cmd record --date";
	} else {
		h->wall_from = "unknown: the recording does not carry it (blkstack record and "
			       "trace-cmd record --date write it)";
	}
}

/* A mapped file's saved_cmdlines: a file without them, or with them damaged, has no names. */
static void read_cmdlines(struct tracefile *f)
{
	const char *text;
	void *owned;
	size_t size;

	f->cmdlines_read = true;
	if (!datformats_cmdlines(f->map, f->map_len, &f->layout, &text, &size, &owned))
		f->cmdlines = cmdlines_parse(text, size);
	free(owned);
}

const char *tracefile_comm(struct tracefile *f, int32_t pid)
{
	struct tep_handle *tep;

	if (!f || pid <= 0)
		return NULL;
	if (f->mapped) {
		if (!f->cmdlines_read)
			read_cmdlines(f);
		return cmdlines_find(f->cmdlines, pid);
	}
	tep = f->handle ? tracecmd_get_tep(f->handle) : NULL;
	return tep && tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : NULL;
}

const struct tracefile_name *tracefile_file_names(const struct tracefile *f, size_t *n)
{
	*n = f ? f->nnames : 0;
	return *n ? f->names : NULL;
}

/* Whether libtraceevent parsed every format of @tep whole (a failed one is kept, flagged). */
static bool formats_all_parsed(struct tep_handle *tep)
{
	for (int i = 0; i < tep_get_events_count(tep); i++)
		if (tep_get_event(tep, i)->flags & TEP_EVENT_FL_FAILED)
			return false;
	return true;
}

/*
 * libtraceevent crashes on some damaged event formats (a '[' in a field's
 * type, for one): parse the headers first in a child, which says through
 * a pipe that it lived through the parse (its exit status is not used:
 * valgrind and the sanitizers set their own), and for a mapped file
 * whether the formats it decodes all parsed whole (*@parsed). The child
 * parses what the parent then will: datformats_load() for a mapped file,
 * libtracecmd otherwise; for a mapped file with the print fmts too, which
 * the parent skips, so that a file whose decoded formats do not parse
 * whole is read by libtracecmd and says what it always said. Returns 0
 * when they can be parsed here (or fail to parse without a crash),
 * -EBADMSG when they crash their parser.
 */
static int headers_parse_safely(struct tracefile *f, const char *path, bool *parsed)
{
	struct tracecmd_input *h;
	struct tep_handle *tep;
	int fds[2], ret = 0;
	char done = 0, ok = 0;
	pid_t pid;

	*parsed = true;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return 0;	/* no child to try in: parse here, as before */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return 0;
	}
	if (pid == 0) {
		close(fds[0]);
		quiet_child();
		if (f->mapped) {
			tep = datformats_load(f->map, f->map_len, &f->layout, true, &ret);
			ok = tep && formats_all_parsed(tep);
			tep_free(tep);
		} else {
			h = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS);
			ok = h != NULL;
			if (h)
				tracecmd_close(h);
		}
		done = 1;
		_exit(write_all(fds[1], &done, 1) < 0 || write_all(fds[1], &ok, 1) < 0);
	}
	close(fds[1]);
	if (read_all(fds[0], &done, 1) != 1 || !done || read_all(fds[0], &ok, 1) != 1)
		ret = -EBADMSG;
	*parsed = ok;
	close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return ret;
}

/*
 * libtraceevent leaks what it allocated for a format text it fails to
 * parse. A mapped file's formats are parsed again here: when they did not
 * parse in the child, the file is read by libtracecmd in a child instead,
 * so that the leak ends with it and cannot accumulate in a process that
 * opens many files (markers and the recorded stack are then not read: the
 * file is damaged anyway). tracefile_close() releases the mapped path
 * here too, whether or not the file was mapped.
 */
static void unmap_file(struct tracefile *f)
{
	datfile_layout_free(&f->layout);
	if (f->map)
		munmap((void *)f->map, f->map_len);
	f->map = NULL;
	f->map_len = 0;
	f->mapped = false;
	if (f->read_fd >= 0)
		close(f->read_fd);
	f->read_fd = -1;
}

struct tracefile *tracefile_open(const char *path, int *err)
{
	struct tracefile *f;
	bool parsed = true;
	int ret;

	if (!util_debug)
		tracecmd_set_loglevel(TEP_LOG_NONE);
	f = calloc(1, sizeof(*f));
	if (!f) {
		*err = -ENOMEM;
		return NULL;
	}
	f->in_fd = -1;
	f->read_fd = -1;
	ret = map_file(f, path);
	/* a trace.dat whose headers or CPU table do not fit the file: cut short */
	if (ret == -EINVAL && has_magic(path))
		ret = -EBADMSG;
	if (ret < 0 && ret != -ENOTSUP) {
		*err = ret;
		goto fail;
	}
	if (has_magic(path) && headers_parse_safely(f, path, &parsed) < 0) {
		*err = -EBADMSG;
		goto fail;
	}
	if (f->mapped && has_magic(path) && !parsed)
		unmap_file(f);
	if (!f->mapped) {
		f->path = strdup(path);
		ret = f->path ? open_in_child(f, path) : -ENOMEM;
		if (ret < 0) {
			*err = (ret == -EBADMSG && !has_magic(path)) ? -EINVAL : ret;
			goto fail;
		}
		return f;
	}
	/* the mapped path needs only the formats it decodes: the data is read from the map */
	f->tep = datformats_load(f->map, f->map_len, &f->layout, false, &ret);
	if (!f->tep) {
		*err = ret == -ENOMEM ? -ENOMEM : -EBADMSG;
		goto fail;
	}
	f->decoder = decoder_alloc(f->tep);
	if (!f->decoder) {
		*err = errno == ENOMEM ? -ENOMEM : -ENODATA;
		goto fail;
	}
	decoder_keep_kinds(f->decoder, kinds_kept(f));
	for (int k = BLK_EV_NONE + 1; k < PC_EV_KIND_MAX; k++)
		if (decoder_has(f->decoder, k))
			f->has_kinds |= 1ULL << k;
	scan_markers(f);
	return f;
fail:
	tracefile_close(f);
	return NULL;
}

/* Say what @path holds instead of block events: the most common types, by name. */
static void say_census(const char *path, uint64_t other)
{
	struct census_row *rows;
	char list[512] = "";
	size_t n, len = 0;
	int ret = census_of_file(path, &rows, &n);

	if (ret == 0 && n == 0) {
		note_msg("'%s' holds no event at all", path);
	} else if (ret == 0) {
		for (size_t i = 0; i < n && i < 6 && len < sizeof(list); i++)
			len += snprintf(list + len, sizeof(list) - len, "%s%" PRIu64 " %s",
					i ? ", " : "", rows[i].count, rows[i].name);
		if (n > 6 && len < sizeof(list))
			snprintf(list + len, sizeof(list) - len, ", and %zu more types", n - 6);
		note_msg("the events '%s' holds: %s", path, list);
	} else if (other) {
		/* a file only libtracecmd reads: its events are not named here */
		note_msg("'%s' holds %" PRIu64 " events of other kinds", path, other);
	}
	free(rows);
}

static void hint_record_block(void)
{
	hint_msg("record block events with 'blkstack record -o FILE' (-d DEV: one stack), or "
		 "'trace-cmd record -e block -o FILE'");
}

bool tracefile_no_block_said(const char *path, struct tracefile *f)
{
	const struct source_stats *st = tracefile_stats(f);
	uint64_t events = 0, other = 0, block = 0, malformed = 0;

	for (int c = 0; c < st->ncpu; c++) {
		events += st->cpu[c].events;
		other += st->cpu[c].other;
		malformed += st->cpu[c].malformed;
	}
	for (int k = BLK_EV_NONE + 1; k < BLK_EV_KIND_MAX; k++)
		block |= 1ULL << k;
	/* the events read were page-cache events alone? (no file: cannot tell, so no) */
	if (events && !(tracefile_has_pagecache(f) && tracefile_holds(f, block, 1) == 0))
		return false;
	/* records that did not parse (said already) may be the block events */
	if (malformed) {
		err_msg("'%s': no block event could be read, and %" PRIu64 " records did not parse: "
			"the file is damaged", path, malformed);
		return true;
	}
	err_msg("'%s' holds no block events: there is no I/O to show", path);
	say_census(path, other);
	hint_record_block();
	return true;
}

void tracefile_open_error(const char *path, int err)
{
	switch (err) {
	case -EINVAL:
		err_msg("'%s' is not a trace.dat file", path);
		hint_msg("record one with: trace-cmd record -e block -o FILE");
		break;
	case -EBADMSG:
		err_msg("'%s' is a trace.dat file that cannot be read: it is truncated or corrupt",
			path);
		break;
	case -ENODATA:
		err_msg("'%s' holds no block events: it was recorded without them", path);
		say_census(path, 0);
		hint_record_block();
		break;
	default:
		err_msg("cannot open '%s': %s", path, strerror(-err));
		break;
	}
}

bool tracefile_damage_said(const char *path, struct tracefile *f, int read_ret,
			   const char *done)
{
	const struct source_stats *st = tracefile_stats(f);
	bool damaged = read_ret == -EBADMSG;

	if (damaged)
		err_msg("'%s' is corrupt: it could not be read to its end%s%s", path,
			done ? "; the events before the damage were " : "", done ? done : "");
	for (int c = 0; c < st->ncpu; c++) {
		if (!st->cpu[c].truncated)
			continue;
		err_msg("'%s' is truncated: cpu%d lacks %llu bytes of its data%s%s", path, c,
			(unsigned long long)st->cpu[c].truncated,
			done ? "; the events before the cut were " : "", done ? done : "");
		damaged = true;
	}
	/* times out of order: said, not fatal (the merge keeps each CPU in order) */
	for (int c = 0; c < st->ncpu; c++) {
		if (st->cpu[c].time_back)
			warn_msg("'%s' is damaged: on cpu%d, trace time goes backwards (%llu times); "
				 "times and rates are not to be trusted", path, c,
				 (unsigned long long)st->cpu[c].time_back);
		if (st->cpu[c].time_jumps)
			warn_msg("'%s' is damaged: on cpu%d, trace time jumps ahead by more than a "
				 "day (%llu times); times and rates are not to be trusted", path, c,
				 (unsigned long long)st->cpu[c].time_jumps);
	}
	/* pages that do not parse as the header_page describes them: said, not fatal */
	for (int c = 0; c < st->ncpu; c++)
		if (st->cpu[c].malformed)
			warn_msg("'%s': %llu malformed records skipped on cpu%d", path,
				 (unsigned long long)st->cpu[c].malformed, c);
	return damaged;
}

bool tracefile_has(const struct tracefile *f, unsigned int kind)
{
	return kind > BLK_EV_NONE && kind < PC_EV_KIND_MAX && (f->has_kinds & (1ULL << kind));
}

bool tracefile_has_pagecache(const struct tracefile *f)
{
	for (unsigned int k = PC_EV_ADD; k < PC_EV_KIND_MAX; k++)
		if (tracefile_has(f, k))
			return true;
	return false;
}

/* ---- versions 6 and 7: mapped pages, pagewalk, merge --------------------- */

struct page_stream {
	struct datpages pages;
	struct pagewalk walk;
	bool done;
};

/*
 * Start on the next page of @ps that parses, with its accounting in @cs;
 * false at the stream's end (its damage, if any, is in @ps->pages.corrupt).
 */
static bool stream_next_page(struct tracefile *f, struct page_stream *ps,
			     struct source_cpu_stats *cs)
{
	uint32_t page_size = f->layout.page_size;

	for (;;) {
		const uint8_t *page = datpages_next(&ps->pages);

		if (!page)
			return false;
		datpages_release(&ps->pages);
		if (pagewalk_load(&ps->walk, page, page_size) < 0) {
			cs->malformed++;
			continue;
		}
		cs->pages++;
		cs->bytes += page_size;
		if (ps->walk.missed > 0)
			cs->missed += ps->walk.missed;
		else if (ps->walk.missed < 0)
			cs->missed_unknown++;
		return true;
	}
}

/*
 * The time check of a record the walker flagged (pagewalk.h, retime): the
 * others follow the last record by less than an hour, never behind it.
 * @last: the last record's time; clears *@ordered when time went back
 * after @used events of the batch being decoded. Inline: the addresses
 * of the reader's walker and state go to no call, and they stay in
 * registers.
 */
static inline __attribute__((always_inline)) void
retime_check(struct source_cpu_stats *cs, struct pagewalk *w, uint64_t last, uint64_t ts,
	     unsigned int used, bool *ordered)
{
	if (used && ts < last)
		*ordered = false;
	cs->last_ts = last;
	time_check(cs, ts);
	pagewalk_time_seen(w);
}

/*
 * What stream_fill() keeps while it decodes a page into the merge's slots:
 * reserved from @first to @end, decoded up to @slot.
 */
struct fill {
	struct blk_event *first, *slot, *end;
	uint64_t last;
	bool ordered;
};

/* Queue the events decoded into @fl's slots, counted as the stream's. */
static inline void fill_commit(struct merge *m, unsigned int idx, struct source_cpu_stats *cs,
			       struct fill *fl)
{
	unsigned int n = fl->slot - fl->first;

	cs->events += n;
	merge_commit_n(m, idx, n, fl->ordered);
}

/*
 * Decode the records of the page in @w into the merge's slots. @le: a
 * constant, pagewalk_le(): the loop of the usual byte order tests none.
 * Returns 0, or -ENOMEM.
 */
static inline __attribute__((always_inline)) int
fill_page(struct decoder *dec, struct merge *m, unsigned int idx, int cpu,
	  struct source_cpu_stats *cs, struct pagewalk *w, struct fill *fl, const bool le)
{
	const void *rec;
	unsigned int size;
	uint64_t ts;

	while ((rec = pagewalk_next_as(w, &ts, &size, le))) {
		int ret;

		if (fl->slot == fl->end) {
			/* not &fl's: its fields can stay in registers */
			unsigned int room;

			fill_commit(m, idx, cs, fl);
			fl->ordered = true;
			fl->first = fl->slot = merge_reserve(m, idx, &room);
			if (!fl->slot)
				return -ENOMEM;
			fl->end = fl->slot + room;
		}
		if (w->retime)
			retime_check(cs, w, fl->last, ts, fl->slot - fl->first, &fl->ordered);
		fl->last = ts;
		ret = decoder_decode(dec, rec, size, ts, cpu, fl->slot);
		if (ret > 0)
			fl->slot++;
		else if (ret == 0)
			cs->other++;
		else
			cs->malformed++;
	}
	return 0;
}

/*
 * The mark of the events lost before the page in @w (lostevent.h): after
 * @last, the stream's last record, and before the page's time stamp.
 */
static void loss_mark(struct blk_event *ev, int cpu, const struct pagewalk *w, uint64_t last)
{
	lost_mark_fill(ev, cpu, last, w->ts, w->missed > 0 ? w->missed : 0);
}

/*
 * Decode the next pages of @ps until one holds block events, or its end.
 * The page is walked on a copy of the walker: a local that no event store
 * can alias stays in registers.
 */
static int stream_fill(struct tracefile *f, struct merge *m, unsigned int idx,
		       struct page_stream *ps)
{
	const struct datfile_stream *ds = ps->pages.ds;
	struct source_cpu_stats *cs = cpu_stats(f, ds->cpu);

	if (!cs)
		return -ENOMEM;
	while (!ps->done && !merge_stream_len(m, idx)) {
		/* decoded in place, into the merge's own slots, a page at a time */
		struct fill fl = { .last = cs->last_ts, .ordered = true };
		struct pagewalk w;
		int ret;

		if (!stream_next_page(f, ps, cs)) {
			ps->done = true;
			if (ps->pages.corrupt)
				f->corrupt = true;
			merge_end(m, idx);
			break;
		}
		w = ps->walk;
		if (w.missed && f->loss_marks) {
			struct blk_event *ev = merge_slot(m, idx);

			if (!ev)
				return -ENOMEM;
			loss_mark(ev, ds->cpu, &w, cs->last_ts);
			merge_commit(m, idx);
		}
		if (pagewalk_le(&w))
			ret = fill_page(f->decoder, m, idx, ds->cpu, cs, &w, &fl, true);
		else
			ret = fill_page(f->decoder, m, idx, ds->cpu, cs, &w, &fl, false);
		if (ret < 0)
			return ret;
		ps->walk = w;
		cs->last_ts = fl.last;
		fill_commit(m, idx, cs, &fl);
		if (w.malformed)
			cs->malformed++;
	}
	return 0;
}

/* ---- versions 6 and 7 on several cores: a thread per stream decodes -------- */

/*
 * Decoding (walking the pages, decompressing them, decoding each record)
 * costs more than merging and following the I/O: with -j, each CPU stream
 * is decoded by a thread into batches of events, which the caller's thread
 * merges and hands to @fn exactly as the one-thread path does. The merge
 * sees the same events of each stream in the same order, so its output is
 * the same event for event; only how far each stream is read ahead
 * differs. A stream's queue holds FEED_DEPTH batches, so memory stays at a
 * few hundred KiB per stream whatever the file's length.
 *
 * The threads are one fewer than the jobs: the caller's thread is the
 * last job. When the stream the merge needs has nothing queued and no
 * thread is decoding it, the caller decodes its next batch itself rather
 * than wait: with a thread per stream besides it, three threads took
 * turns on two cores and waited for each other (1.25-1.35x one core's
 * pace on 10 M events); like this, nobody waits while work is left.
 *
 * A compressed stream's chunks go through a ring (chunkring.h): a thread
 * whose own streams are far enough ahead decompresses the chunks of the
 * stream the merge is waiting for, rather than sleep, so the stream that
 * holds most of a recording no longer keeps one core busy alone. The
 * merging thread does the same while the stream it needs is being
 * decoded: at -j 2 the one decoding thread was the bottleneck (61% of
 * the CPU time, libzstd most of it).
 */
#define FEED_BATCH	4096	/* events per batch */
#define FEED_DEPTH	4	/* batches queued per stream */
/*
 * Chunks decompressed ahead per compressed stream: the helpers are woken
 * when the merge takes a batch, and a batch of FEED_BATCH block events
 * spans about 8 of trace-cmd's chunks (ten pages each) in an fio
 * recording; a ring of two batches' worth (640 KiB) lets them stay ahead
 * between wakeups. With 4 and 8 slots the walkers decompressed 65% and
 * 42% of such a v7 recording's chunks themselves, with 16, 24%.
 */
#define FEED_CHUNKS	16

struct feed_batch {
	unsigned int n;
	bool ordered;		/* its events are in time order (merge_lend()) */
	struct blk_event ev[FEED_BATCH];
};

/* One stream: its decoder's state (the thread's), and the queue both share. */
struct feed {
	struct page_stream ps;
	struct source_cpu_stats st;	/* the thread's, summed into the file's at the end */
	bool in_page;			/* ps.walk holds a page not yet walked to its end */
	struct chunkring *ring;		/* a compressed stream's chunks, or NULL */
	/* under feeds.lock */
	bool busy;			/* being decoded: the stream's state above is in use */
	struct feed_batch *q[FEED_DEPTH];
	unsigned int head, len;
	bool end;			/* the thread has queued its last batch */
	struct feed_batch *spare;	/* a batch handed back by the consumer */
};

struct feeds {
	struct tracefile *f;
	struct feed *feed;
	int nfeeds, nthreads;
	int nended;			/* feeds whose @end is set */
	pthread_mutex_t lock;
	unsigned int space_sent;	/* room signals, for a waiter that dropped the lock */
	pthread_cond_t data;		/* a queue has a batch, or ended */
	unsigned int data_sent;		/* @data broadcasts, for a waiter that dropped the lock */
	bool stop;			/* the consumer gave up: threads leave */
	int err;			/* a thread's -ENOMEM */
	/* the consumer's */
	struct feed_batch **cur;	/* per stream, the batch being merged */
	int err_seen;			/* @err, read under the lock */
	struct unzip *unzip;		/* for the chunks it decompresses while it waits, or NULL */
	struct feed_thread *threads;
	pthread_t *tids;
	int started;
};

struct feed_thread {
	pthread_cond_t room;		/* one of its streams has room, or stop */
	struct feeds *fs;
	int first;			/* the streams first, first + nthreads, ... */
	struct decoder *dec;		/* its own: a decoder's memo is not shared */
	struct unzip *unzip;		/* its own, for the chunks of any stream (or NULL) */
};

static void feeds_stop(struct feeds *fs, struct page_stream *ps);

/* Under @fs->lock: wake the consumer waiting for a batch. */
static void data_signal(struct feeds *fs)
{
	fs->data_sent++;
	pthread_cond_broadcast(&fs->data);
}

/* Under @fs->lock: wake every thread waiting for room (a stream ended, or stop). */
static void space_signal(struct feeds *fs)
{
	fs->space_sent++;
	for (int t = 0; t < fs->started; t++)
		pthread_cond_signal(&fs->threads[t].room);
}

/*
 * Under @fs->lock: stream @i has room. Only its thread is woken: with a
 * broadcast, each of the 2,000 batches a second the merge takes woke every
 * thread, and -j 8 and 16 were slower than -j 2 on 16 CPUs. A compressed
 * recording's threads help each other's streams (feeds_help()): all are.
 */
static void room_signal(struct feeds *fs, int i)
{
	if (fs->unzip || !fs->started) {
		space_signal(fs);
		return;
	}
	fs->space_sent++;
	if (i % fs->nthreads < fs->started)
		pthread_cond_signal(&fs->threads[i % fs->nthreads].room);
}

/*
 * Decode records of @fd into @b until it is full or the stream ends, with
 * @dec, the thread's own decoder (a decoder memoizes rwbs strings: shared
 * by threads, it gave reports that changed from run to run).
 */
static void feed_decode(struct tracefile *f, struct decoder *dec, struct feed *fd,
			struct feed_batch *b)
{
	const struct datfile_stream *ds = fd->ps.pages.ds;
	uint64_t last = fd->st.last_ts;

	b->n = 0;
	b->ordered = true;
	while (b->n < FEED_BATCH) {
		const void *rec;
		unsigned int size;
		struct pagewalk w;
		uint64_t ts;

		if (!fd->in_page) {
			if (!stream_next_page(f, &fd->ps, &fd->st)) {
				fd->ps.done = true;
				break;
			}
			fd->in_page = true;
			if (fd->ps.walk.missed && f->loss_marks)
				loss_mark(&b->ev[b->n++], ds->cpu, &fd->ps.walk, last);
		}
		/* on a copy of the walker, as in stream_fill() */
		w = fd->ps.walk;
		while (b->n < FEED_BATCH && (rec = pagewalk_next(&w, &ts, &size))) {
			int ret;

			if (w.retime)
				retime_check(&fd->st, &w, last, ts, b->n, &b->ordered);
			last = ts;
			ret = decoder_decode(dec, rec, size, ts, ds->cpu, &b->ev[b->n]);
			if (ret == 0) {
				fd->st.other++;
			} else if (ret < 0) {
				fd->st.malformed++;
			} else {
				fd->st.events++;
				b->n++;
			}
		}
		fd->ps.walk = w;
		if (b->n < FEED_BATCH) {
			/* the page's end */
			if (w.malformed)
				fd->st.malformed++;
			fd->in_page = false;
		}
	}
	fd->st.last_ts = last;
}

/*
 * Under @fs->lock, which it drops meanwhile: decode the next batch of @fd
 * with @dec, @fd marked busy so that no other thread decodes it too.
 * Returns the batch, or NULL out of memory (the threads then stop).
 */
static struct feed_batch *feed_decode_locked(struct feeds *fs, struct feed *fd,
					     struct decoder *dec)
{
	struct feed_batch *b = fd->spare;

	fd->spare = NULL;
	fd->busy = true;
	pthread_mutex_unlock(&fs->lock);
	if (!b)
		b = malloc(sizeof(*b));
	if (b)
		feed_decode(fs->f, dec, fd, b);
	pthread_mutex_lock(&fs->lock);
	fd->busy = false;
	if (!b) {
		fs->err = -ENOMEM;
		fs->stop = true;
		data_signal(fs);
		return NULL;
	}
	if (fd->ps.done) {
		/* the threads waiting to help may be waiting for this */
		__atomic_store_n(&fd->end, true, __ATOMIC_RELAXED);
		fs->nended++;
		space_signal(fs);
	}
	return b;
}

/*
 * Under @fs->lock, which it drops meanwhile: decompress a chunk ahead of a
 * live stream's walk, first for the stream with the fewest batches queued
 * (the one the merge waits for). Returns whether it did.
 */
static bool feeds_help(struct feeds *fs, struct unzip *u)
{
	int first = -1;
	bool done = false;

	for (int i = 0; i < fs->nfeeds; i++)
		if (fs->feed[i].ring && !fs->feed[i].end &&
		    (first < 0 || fs->feed[i].len < fs->feed[first].len))
			first = i;
	if (first < 0)
		return false;
	pthread_mutex_unlock(&fs->lock);
	for (int k = 0; k < fs->nfeeds && !done; k++) {
		struct feed *fd = &fs->feed[(first + k) % fs->nfeeds];

		/* @end read unlocked: at worst a chunk decompressed that nobody takes */
		if (fd->ring && !__atomic_load_n(&fd->end, __ATOMIC_RELAXED))
			done = chunkring_fill(fd->ring, u);
	}
	pthread_mutex_lock(&fs->lock);
	return done;
}

static void *feed_thread_main(void *arg)
{
	struct feed_thread *t = arg;
	struct feeds *fs = t->fs;

	pthread_mutex_lock(&fs->lock);
	while (!fs->stop) {
		struct feed *fd = NULL;
		struct feed_batch *b;
		bool live = false;

		/*
		 * of this thread's streams that have room and that the caller
		 * is not decoding, the one with the fewest batches queued (the
		 * merge needs it first); else help, else wait for room
		 */
		for (int i = t->first; i < fs->nfeeds; i += fs->nthreads) {
			if (fs->feed[i].end)
				continue;
			live = true;
			if (fs->feed[i].len < FEED_DEPTH && !fs->feed[i].busy &&
			    (!fd || fs->feed[i].len < fd->len))
				fd = &fs->feed[i];
		}
		if (!fd) {
			unsigned int sent = fs->space_sent;

			if (t->unzip && feeds_help(fs, t->unzip))
				continue;
			/* a thread that can help others stays until they all end */
			if (!live && (!t->unzip || fs->nended == fs->nfeeds))
				break;
			/* not when room was made while feeds_help() had dropped the lock */
			if (sent == fs->space_sent)
				pthread_cond_wait(&t->room, &fs->lock);
			continue;
		}
		b = feed_decode_locked(fs, fd, t->dec);
		if (!b)
			break;
		fd->q[(fd->head + fd->len) % FEED_DEPTH] = b;
		fd->len++;
		data_signal(fs);
	}
	pthread_mutex_unlock(&fs->lock);
	return NULL;
}

/*
 * The next batch of stream @i, waiting for its thread; NULL when the
 * stream has ended (or the threads stopped). The batch given back last
 * time becomes the stream's spare.
 */
static struct feed_batch *feed_take(struct feeds *fs, int i, struct feed_batch *done)
{
	struct feed *fd = &fs->feed[i];
	struct feed_batch *b = NULL;

	pthread_mutex_lock(&fs->lock);
	if (done) {
		if (!fd->spare)
			fd->spare = done;
		else
			free(done);
	}
	while (!fd->len && !fd->end && !fs->stop) {
		unsigned int sent = fs->data_sent;

		/* nothing queued and nobody at it: its next batch, decoded here */
		if (!fd->busy) {
			b = feed_decode_locked(fs, fd, fs->f->decoder);
			/* a thread may wait for room while the stream was busy here */
			room_signal(fs, i);
			break;
		}
		/* its decoder is at work: decompress chunks ahead of it rather than sleep */
		if (fs->unzip && feeds_help(fs, fs->unzip))
			continue;
		/* not when a batch came while feeds_help() had dropped the lock */
		if (sent == fs->data_sent)
			pthread_cond_wait(&fs->data, &fs->lock);
	}
	fs->err_seen = fs->err;
	if (!b && fd->len) {
		b = fd->q[fd->head];
		fd->head = (fd->head + 1) % FEED_DEPTH;
		fd->len--;
		room_signal(fs, i);
	}
	pthread_mutex_unlock(&fs->lock);
	return b;
}

/* Start the threads on the streams of @ps; NULL with *@err on failure. */
static struct feeds *feeds_start(struct tracefile *f, struct page_stream *ps, int *err)
{
	const struct datfile_layout *l = &f->layout;
	struct feeds *fs = calloc(1, sizeof(*fs));
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	bool compressed = false;

	if (!fs)
		goto fail;
	fs->f = f;
	fs->nfeeds = l->nstreams;
	/*
	 * the caller's thread is the last job (feed_take()); more threads than
	 * the other online CPUs only take turns on them
	 */
	fs->nthreads = f->jobs - 1 < l->nstreams ? f->jobs - 1 : l->nstreams;
	if (online > 1 && fs->nthreads > online - 1)
		fs->nthreads = online - 1;
	fs->feed = calloc(fs->nfeeds, sizeof(*fs->feed));
	fs->cur = calloc(fs->nfeeds, sizeof(*fs->cur));
	fs->threads = calloc(fs->nthreads, sizeof(*fs->threads));
	fs->tids = calloc(fs->nthreads, sizeof(*fs->tids));
	if (!fs->feed || !fs->cur || !fs->threads || !fs->tids)
		goto fail;
	pthread_mutex_init(&fs->lock, NULL);
	pthread_cond_init(&fs->data, NULL);
	for (int i = 0; i < fs->nfeeds; i++)
		fs->feed[i].ps = ps[i];
	for (int i = 0; i < fs->nfeeds; i++) {
		compressed |= l->streams[i].compressed;
		if (!l->streams[i].compressed)
			continue;
		fs->feed[i].ring = chunkring_alloc(f->map, l, &l->streams[i], FEED_CHUNKS);
		if (!fs->feed[i].ring) {
			feeds_stop(fs, ps);
			*err = -ENOMEM;
			return NULL;
		}
		datpages_attach(&fs->feed[i].ps.pages, chunkring_take_from, fs->feed[i].ring);
	}
	/* the consumer decompresses chunks too while it waits (feed_take()) */
	if (compressed) {
		fs->unzip = unzip_alloc(l->algo);
		if (!fs->unzip) {
			feeds_stop(fs, ps);
			*err = -ENOMEM;
			return NULL;
		}
	}
	for (; fs->started < fs->nthreads; fs->started++) {
		struct feed_thread *t = &fs->threads[fs->started];

		*t = (struct feed_thread){ .fs = fs, .first = fs->started,
					   .dec = decoder_alloc(f->tep) };
		pthread_cond_init(&t->room, NULL);
		if (t->dec)
			decoder_keep_kinds(t->dec, kinds_kept(f));
		if (t->dec && f->bare_kinds)
			decoder_bare_kinds(t->dec, f->bare_kinds);
		if (compressed)
			t->unzip = unzip_alloc(l->algo);
		if (!t->dec || (compressed && !t->unzip)) {
			decoder_free(t->dec);
			unzip_free(t->unzip);
			feeds_stop(fs, ps);
			*err = -ENOMEM;
			return NULL;
		}
		if (pthread_create(&fs->tids[fs->started], NULL, feed_thread_main, t)) {
			decoder_free(t->dec);
			unzip_free(t->unzip);
			feeds_stop(fs, ps);
			*err = -EAGAIN;
			return NULL;
		}
	}
	return fs;
fail:
	if (fs) {
		free(fs->tids);
		free(fs->threads);
		free(fs->cur);
		free(fs->feed);
		free(fs);
	}
	*err = -ENOMEM;
	return NULL;
}

/*
 * As stream_fill(), from the stream's thread: whole batches of events until
 * the stream has some queued in the merge, or has ended.
 */
static int feed_fill(struct feeds *fs, struct merge *m, unsigned int i, struct page_stream *ps)
{
	while (!ps->done && !merge_stream_len(m, i)) {
		fs->cur[i] = feed_take(fs, i, fs->cur[i]);
		if (!fs->cur[i]) {
			ps->done = true;
			merge_end(m, i);
			break;
		}
		/* queued where it is: this thread merges and tracks, its time is the read's */
		if (merge_lend(m, i, fs->cur[i]->ev, fs->cur[i]->n, fs->cur[i]->ordered))
			return -EINVAL;
	}
	return fs->err_seen;
}

/*
 * Stop and join the threads, add their accounting to the file's, and hand
 * their streams' state back to @ps for the caller to release.
 */
static void feeds_stop(struct feeds *fs, struct page_stream *ps)
{
	struct tracefile *f = fs->f;

	pthread_mutex_lock(&fs->lock);
	fs->stop = true;
	space_signal(fs);
	pthread_mutex_unlock(&fs->lock);
	for (int t = 0; t < fs->started; t++) {
		pthread_join(fs->tids[t], NULL);
		decoder_free(fs->threads[t].dec);
		unzip_free(fs->threads[t].unzip);
		pthread_cond_destroy(&fs->threads[t].room);
	}
	pthread_cond_destroy(&fs->data);
	pthread_mutex_destroy(&fs->lock);
	for (int i = 0; i < fs->nfeeds; i++) {
		struct feed *fd = &fs->feed[i];
		struct source_cpu_stats *cs = cpu_stats(f, f->layout.streams[i].cpu);

		if (cs) {
			cs->events += fd->st.events;
			cs->other += fd->st.other;
			cs->malformed += fd->st.malformed;
			cs->missed += fd->st.missed;
			cs->missed_unknown += fd->st.missed_unknown;
			cs->pages += fd->st.pages;
			cs->bytes += fd->st.bytes;
			cs->time_back += fd->st.time_back;
			cs->time_jumps += fd->st.time_jumps;
			if (fd->st.last_ts > cs->last_ts)
				cs->last_ts = fd->st.last_ts;
		}
		if (fd->ps.pages.corrupt)
			f->corrupt = true;
		ps[i].pages = fd->ps.pages;
		datpages_attach(&ps[i].pages, NULL, NULL);
		chunkring_free(fd->ring);
		for (unsigned int k = 0; k < fd->len; k++)
			free(fd->q[(fd->head + k) % FEED_DEPTH]);
		free(fd->spare);
		free(fs->cur[i]);
	}
	free(fs->tids);
	free(fs->threads);
	free(fs->cur);
	free(fs->feed);
	unzip_free(fs->unzip);
	free(fs);
}

static int read_mapped(struct tracefile *f, blk_event_fn fn, void *ctx)
{
	const struct datfile_layout *l = &f->layout;
	int long_size;
	struct page_stream *ps;
	struct merge *m = NULL;
	struct feeds *fs = NULL;
	int ret = 0, live;

	long_size = tep_get_header_page_size(f->tep) == 4 ? 4 : 8;
	for (int i = 0; i < l->nstreams; i++) {
		struct source_cpu_stats *cs = cpu_stats(f, l->streams[i].cpu);

		if (!cs)
			return -ENOMEM;
		cs->truncated += l->streams[i].size - l->streams[i].avail;
	}
	if (!l->nstreams)
		return 0;
	ps = calloc(l->nstreams, sizeof(*ps));
	m = merge_alloc(l->nstreams);
	if (!ps || !m) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < l->nstreams; i++) {
		ret = datpages_init(&ps[i].pages, f->map, f->read_fd, l, &l->streams[i]);
		if (ret < 0)
			goto out;
		pagewalk_init(&ps[i].walk, long_size, l->big_endian);
	}
	if (f->jobs > 1 && l->nstreams > 1) {
		fs = feeds_start(f, ps, &ret);
		if (!fs)
			goto out;
	}
	/* refill every stream that ran dry, release what is ordered, repeat */
	do {
		live = 0;
		for (int i = 0; i < l->nstreams; i++) {
			ret = fs ? feed_fill(fs, m, i, &ps[i]) : stream_fill(f, m, i, &ps[i]);
			if (ret < 0)
				goto out;
			live += !ps[i].done;
		}
		ret = merge_drain(m, live == 0, fn, ctx);
		if (ret < 0)
			goto out;
	} while (live);
	if (fs) {
		feeds_stop(fs, ps);
		fs = NULL;
	}
	/* what came before the damage has been delivered */
	if (f->corrupt)
		ret = -EBADMSG;
out:
	if (fs)
		feeds_stop(fs, ps);
	for (int i = 0; ps && i < l->nstreams; i++)
		datpages_destroy(&ps[i].pages);
	free(ps);
	merge_free(m);
	return ret;
}

/* ---- other versions: libtracecmd's records, in the child -------------- */

static int flush_batch(struct tracefile *f)
{
	uint32_t n = f->nbatch;

	if (!n)
		return 0;
	f->nbatch = 0;
	return send_msg(f->out_fd, MSG_EVENTS, &n, sizeof(n), f->batch,
			n * sizeof(f->batch[0])) ? -EPIPE : 0;
}

/* @idx counts CPUs across buffers in libtracecmd's multi-buffer walk: use rec->cpu */
static int on_record(struct tracecmd_input *h __attribute__((unused)), struct tep_record *rec,
		     int idx __attribute__((unused)), void *data)
{
	struct tracefile *f = data;
	struct source_cpu_stats *cs = cpu_stats(f, rec->cpu);
	int ret;

	if (!cs) {
		f->ret = rec->cpu >= TRACEFILE_MAX_CPUS ? -EBADMSG : -ENOMEM;
		return -1;
	}
	if (rec->missed_events > 0)
		cs->missed += rec->missed_events;
	else if (rec->missed_events < 0)
		cs->missed_unknown++;
	time_check(cs, rec->ts);
	ret = decoder_decode(f->decoder, rec->data, rec->size, rec->ts, rec->cpu,
			     &f->batch[f->nbatch]);
	if (ret == 0) {
		cs->other++;
		return 0;
	}
	if (ret < 0) {
		cs->malformed++;
		return 0;
	}
	cs->events++;
	if (++f->nbatch == sizeof(f->batch) / sizeof(f->batch[0]) && flush_batch(f)) {
		f->ret = -EPIPE;
		return -1;
	}
	return 0;
}

static int read_records(struct tracefile *f)
{
	int ncpu = tep_get_cpus(tracecmd_get_tep(f->handle));

	f->ret = 0;
	if (ncpu > TRACEFILE_MAX_CPUS)
		return -EBADMSG;
	if (ncpu > 0 && !cpu_stats(f, ncpu - 1))
		return -ENOMEM;
	tracecmd_iterate_events_multi(f->buffers, f->nbuffers, on_record, f);
	if (!f->ret)
		f->ret = flush_batch(f);
	return f->ret;
}

/* The parent: events from the child, in order, into @fn. */
static int read_from_child(struct tracefile *f, blk_event_fn fn, void *ctx)
{
	struct blk_event batch[256];
	int32_t err = -EBADMSG;
	uint64_t last = 0;
	uint8_t type;
	int status;

	while (read_all(f->in_fd, &type, 1) == 1) {
		if (type == MSG_EVENTS) {
			uint32_t n;

			if (read_all(f->in_fd, &n, sizeof(n)) != 1 || n > 256 ||
			    read_all(f->in_fd, batch, n * sizeof(batch[0])) != 1)
				break;
			for (uint32_t i = 0; i < n; i++) {
				int ret;

				/*
				 * libtracecmd merges CPUs by time, but a damaged CPU's
				 * own records can go backwards (counted in time_back):
				 * kept in order, as the merge of the v6 path keeps them
				 */
				if (batch[i].ts < last)
					batch[i].ts = last;
				last = batch[i].ts;
				ret = fn(&batch[i], ctx);

				if (ret < 0)
					return ret;
			}
		} else if (type == MSG_CPU_STATS) {
			struct source_cpu_stats cs;
			int32_t cpu;

			if (read_all(f->in_fd, &cpu, sizeof(cpu)) != 1 ||
			    read_all(f->in_fd, &cs, sizeof(cs)) != 1)
				break;
			if (cpu_stats(f, cpu))
				f->st.cpu[cpu] = cs;
		} else if (type == MSG_END) {
			if (read_all(f->in_fd, &err, sizeof(err)) != 1)
				err = -EBADMSG;
			break;
		} else {
			break;
		}
	}
	/* a child killed by a signal crashed on the file's content */
	if (waitpid(f->child, &status, 0) == f->child) {
		f->child = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return -EBADMSG;
	}
	return err;
}

int tracefile_read(struct tracefile *f, blk_event_fn fn, void *ctx)
{
	if (!f->mapped)
		return read_from_child(f, fn, ctx);
	/* a file whose CPU count is known has a stats line for every CPU */
	if (f->layout.ncpu > 0 && !cpu_stats(f, f->layout.ncpu - 1))
		return -ENOMEM;
	return read_mapped(f, fn, ctx);
}

int tracefile_holds(struct tracefile *f, uint64_t kinds, int jobs)
{
	if (!f->mapped)
		return -ENOTSUP;
	return kindscan_any(f->map, f->read_fd, &f->layout, f->tep, kinds, jobs);
}

/* Stop the child of the libtracecmd path, however far it read. */
static void child_stop(struct tracefile *f)
{
	if (f->in_fd >= 0)
		close(f->in_fd);
	f->in_fd = -1;
	if (f->child > 0) {
		/* stopped early (the reader left): the child has nobody to write to */
		kill(f->child, SIGKILL);
		waitpid(f->child, NULL, 0);
	}
	f->child = 0;
}

/* A fresh decoder for what the file delivers now: decoder_keep_kinds() forgets what it left out. */
static int new_decoder(struct tracefile *f)
{
	struct decoder *d = decoder_alloc(f->tep);

	if (!d)
		return -ENOMEM;
	if (f->bare_kinds)
		decoder_bare_kinds(d, f->bare_kinds);
	decoder_keep_kinds(d, kinds_kept(f));
	decoder_free(f->decoder);
	f->decoder = d;
	return 0;
}

int tracefile_rewind(struct tracefile *f)
{
	/* the next read counts from nothing, as the first did */
	if (f->st.cpu)
		memset(f->st.cpu, 0, f->cpu_cap * sizeof(*f->st.cpu));
	f->st.ncpu = 0;
	f->corrupt = false;
	if (!f->mapped) {
		/* a child reads the file once: another one reads it again */
		child_stop(f);
		return open_in_child(f, f->path);
	}
	if (!f->keep_kinds)
		return 0;
	f->keep_kinds = 0;
	return new_decoder(f);
}

void tracefile_set_jobs(struct tracefile *f, int jobs)
{
	f->jobs = jobs;
}

void tracefile_keep_kinds(struct tracefile *f, uint64_t kinds)
{
	/* the child of other files decodes with the decoder it was forked with */
	if (!f->mapped || !f->decoder)
		return;
	f->keep_kinds = kinds;
	decoder_keep_kinds(f->decoder, kinds_kept(f));
}

int tracefile_want_ticks(struct tracefile *f)
{
	if (!f->mapped || f->want_ticks)
		return 0;
	f->want_ticks = true;
	return new_decoder(f);
}

void tracefile_loss_marks(struct tracefile *f, bool on)
{
	f->loss_marks = on;
}

void tracefile_bare_kinds(struct tracefile *f, uint64_t kinds)
{
	if (!f->mapped || !f->decoder)
		return;
	f->bare_kinds = kinds;
	decoder_bare_kinds(f->decoder, kinds);
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
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i].path);
	free(f->names);
	marker_set_free(&f->marks);
	cmdlines_free(f->cmdlines);
	/* an instance handle holds a reference on the top-level one */
	for (int i = 1; i < f->nbuffers; i++)
		tracecmd_close(f->buffers[i]);
	if (f->handle)
		tracecmd_close(f->handle);
	if (f->tep)
		tep_free(f->tep);
	free(f->buffers);
	unmap_file(f);
	child_stop(f);
	free(f->path);
	free(f->st.cpu);
	topo_record_free(&f->topology);
	free(f);
}
