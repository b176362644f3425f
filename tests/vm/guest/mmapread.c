// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mmapread.c - read a file through a shared read-only mapping, touching
 * one byte of each page, for the page-cache part of the guest's run
 * (guest/pagecache.sh): the guest's busybox has no tool that maps a file.
 * Built by vm.sh with the host's compiler.
 *
 *   mmapread FILE
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile unsigned char sum = 0;
	const unsigned char *p;
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: mmapread FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (off_t off = 0; off < st.st_size; off += page)
		sum += p[off];
	munmap((void *)p, st.st_size);
	close(fd);
	return 0;
}
