// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * iogen.c - the load of bench-scale.sh where fio is not installed: THREADS
 * threads each doing 4 KiB random I/O, synchronous and O_DIRECT (queue
 * depth 1 per thread, as fio's psync engine), on a block device for
 * SECONDS, READ_PERCENT of them reads (the rest writes of a fixed buffer).
 *
 *   iogen DEV THREADS SECONDS [READ_PERCENT]
 *
 * Prints one line: "ios N seconds S iops X" (the I/Os all threads
 * completed, the wall time from the first start to the last stop, and
 * their ratio). Exit status 0, 1 on an I/O error, 2 on a usage error.
 * Not a test and not a part of blkstack: a benchmark's workload, built by
 * the benchmark with cc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define IOGEN_BLOCK 4096
#define IOGEN_MAX_THREADS 1024

struct worker {
	pthread_t tid;
	unsigned int index;
	uint64_t ios;
	int err;
};

static const char *dev;
static uint64_t nblocks;
static unsigned int read_percent = 100;
static atomic_bool stop;

/* xorshift64: a different sequence per thread, no shared state */
static inline uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (w->index + 1);
	void *buf;
	int fd;

	fd = open(dev, (read_percent == 100 ? O_RDONLY : O_RDWR) | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		w->err = errno;
		return NULL;
	}
	if (posix_memalign(&buf, IOGEN_BLOCK, IOGEN_BLOCK)) {
		w->err = ENOMEM;
		close(fd);
		return NULL;
	}
	/* half-compressible data, so that zram compresses real pages */
	for (int i = 0; i < IOGEN_BLOCK; i++)
		((unsigned char *)buf)[i] = i < IOGEN_BLOCK / 2 ? (unsigned char)next_rand(&x) : 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		uint64_t r = next_rand(&x);
		off_t off = (off_t)(r % nblocks) * IOGEN_BLOCK;
		ssize_t n;

		if ((r >> 40) % 100 < read_percent)
			n = pread(fd, buf, IOGEN_BLOCK, off);
		else
			n = pwrite(fd, buf, IOGEN_BLOCK, off);
		if (n != IOGEN_BLOCK) {
			w->err = n < 0 ? errno : EIO;
			break;
		}
		w->ios++;
	}
	free(buf);
	close(fd);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fprintf(stderr, "usage: iogen DEV THREADS SECONDS [READ_PERCENT]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct worker *w;
	struct timespec d;
	uint64_t bytes = 0, ios = 0;
	unsigned int nthreads;
	double secs, t0, t1;
	char *end;
	int fd, rc = 0;

	if (argc < 4 || argc > 5)
		return usage();
	dev = argv[1];
	nthreads = strtoul(argv[2], &end, 10);
	if (*end || !nthreads || nthreads > IOGEN_MAX_THREADS)
		return usage();
	secs = strtod(argv[3], &end);
	if (*end || secs <= 0)
		return usage();
	if (argc == 5) {
		read_percent = strtoul(argv[4], &end, 10);
		if (*end || read_percent > 100)
			return usage();
	}
	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &bytes) < 0) {
		fprintf(stderr, "iogen: cannot open block device '%s': %s\n", dev, strerror(errno));
		return 1;
	}
	close(fd);
	nblocks = bytes / IOGEN_BLOCK;
	if (!nblocks) {
		fprintf(stderr, "iogen: '%s' is smaller than one block\n", dev);
		return 1;
	}
	w = calloc(nthreads, sizeof(*w));
	if (!w)
		return 1;
	t0 = now_s();
	for (unsigned int i = 0; i < nthreads; i++) {
		w[i].index = i;
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			fprintf(stderr, "iogen: cannot start thread %u\n", i);
			return 1;
		}
	}
	d.tv_sec = (time_t)secs;
	d.tv_nsec = (long)((secs - (double)d.tv_sec) * 1e9);
	while (nanosleep(&d, &d) < 0 && errno == EINTR)
		;
	atomic_store(&stop, true);
	for (unsigned int i = 0; i < nthreads; i++) {
		pthread_join(w[i].tid, NULL);
		ios += w[i].ios;
		if (w[i].err && !rc) {
			fprintf(stderr, "iogen: I/O on '%s' failed: %s\n", dev, strerror(w[i].err));
			rc = 1;
		}
	}
	t1 = now_s();
	printf("ios %llu seconds %.3f iops %.0f\n", (unsigned long long)ios, t1 - t0,
	       ios / (t1 - t0));
	free(w);
	return rc;
}
