// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * outfile.c - an output file that is only presented as complete when it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "output/outfile.h"

FILE *outfile_create(const char *path, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
	FILE *fp;

	if (fd < 0)
		return NULL;
	/* the umask only narrows @mode, and a file left from before keeps its own */
	if (fchmod(fd, mode) < 0 || !(fp = fdopen(fd, "w"))) {
		int err = errno;

		close(fd);
		errno = err;
		return NULL;
	}
	return fp;
}

int outfile_open(struct outfile *o, const char *path)
{
	return outfile_open_mode(o, path, OUTFILE_MODE);
}

int outfile_open_mode(struct outfile *o, const char *path, mode_t mode)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	if (!path || strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	/*
	 * Only a regular file (or a new one) is written aside and renamed:
	 * /dev/null, a FIFO or a symlink must be written where they are, never
	 * replaced.
	 */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		o->fp = fopen(path, "w");
		return o->fp ? 0 : -errno;
	}
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.partial", path) < 0) {
		free(o->path);
		o->path = NULL;
		o->tmp = NULL;
		return -ENOMEM;
	}
	o->fp = outfile_create(o->tmp, mode);
	if (!o->fp) {
		int err = -errno;

		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return err;
	}
	return 0;
}

/* A .partial nothing could be written to tells nobody anything: remove it. */
static void drop_if_empty(const char *tmp)
{
	struct stat st;

	if (tmp && stat(tmp, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(tmp);
}

int outfile_commit(struct outfile *o)
{
	int err = 0;

	if (!o->fp)
		return 0;
	if (fflush(o->fp))
		err = -errno;
	if (!o->path) {
		/* standard output, or a device or FIFO written in place */
		if (o->fp != stdout && fclose(o->fp) && !err)
			err = -errno;
		o->fp = NULL;
		return err;
	}
	if (!err && fsync(fileno(o->fp)) && errno != EINVAL)
		err = -errno;
	if (fclose(o->fp) && !err)
		err = -errno;
	o->fp = NULL;
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err)
		drop_if_empty(o->tmp);
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return err;
}

void outfile_abort(struct outfile *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	else if (o->fp)
		fflush(o->fp);
	o->fp = NULL;
	drop_if_empty(o->tmp);
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
}

int outfile_write_error(const struct outfile *o, int ret)
{
	struct statvfs vfs;
	struct stat st;
	int fd;

	if (ret != -EIO || !o->fp || !ferror(o->fp))
		return ret;
	fd = fileno(o->fp);
	if (fd < 0 || fstat(fd, &st))
		return ret;
	if (S_ISREG(st.st_mode))
		return fstatvfs(fd, &vfs) == 0 && (!vfs.f_bavail || !vfs.f_bfree) ? -ENOSPC : ret;
	/* a device or a pipe: an empty write fails as the real one did (/dev/full) */
	if (write(fd, "", 0) < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	return ret;
}
