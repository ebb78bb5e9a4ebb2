/* SPDX-License-Identifier: MIT */
/* Atomic output files: a temporary file beside the target, fsync, rename. */
#include "core/output.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files being written, so a signal handler can remove them. */
#define TMP_SLOTS 8
static char *volatile tmp_slots[TMP_SLOTS];

static void tmp_register(char *tmp)
{
	for (size_t i = 0; i < TMP_SLOTS; i++)
		if (!tmp_slots[i]) {
			tmp_slots[i] = tmp;
			return;
		}
}

static void tmp_forget(const char *tmp)
{
	for (size_t i = 0; i < TMP_SLOTS; i++)
		if (tmp && tmp_slots[i] == tmp)
			tmp_slots[i] = NULL;
}

void hwc_outfile_abort_all(void)
{
	for (size_t i = 0; i < TMP_SLOTS; i++) {
		char *t = tmp_slots[i];
		if (t)
			unlink(t);
	}
}

/* The directory part of path ("." for a bare name), malloc'd. */
static char *dir_of(const char *path)
{
	char *dup = strdup(path);
	if (!dup)
		return NULL;
	char *d = strdup(dirname(dup));
	free(dup);
	return d;
}

/* A character device (/dev/null, a tty) or a FIFO is written in place: replacing it would turn
 * the system's /dev/null into a file. A FIFO without a reader is refused rather than waited on. */
static int open_direct(struct hwc_outfile *o, const char *path, const struct stat *st)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
				    (S_ISFIFO(st->st_mode) ? O_NONBLOCK : 0));
	if (fd < 0)
		return -errno;
	struct stat now;
	if (fstat(fd, &now) < 0 || (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) ||
	    now.st_rdev != st->st_rdev) {
		close(fd);
		return -EAGAIN; /* swapped under us: write nothing */
	}
	if (S_ISFIFO(st->st_mode))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		int err = errno;
		close(fd);
		return -err;
	}
	o->direct = true;
	return 0;
}

/* The new file's mode and owner: those of the file it replaces, else 0644 less the umask. */
static void set_mode(int fd, const struct stat *old)
{
	if (old) {
		/* as root the replacement keeps its owner; chown first, it clears set-id bits */
		if (fchown(fd, old->st_uid, old->st_gid) < 0) {
			/* not ours to give away (not root): the file stays the caller's */
		}
		fchmod(fd, old->st_mode & 07777);
		return;
	}
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0644 & ~um);
}

/* A regular file (or none yet): an unnamed temporary file in the target's directory
 * (O_TMPFILE: a run killed by SIGKILL leaves nothing behind), or a named one where the file
 * system has no O_TMPFILE. Named on commit. */
static int open_atomic(struct hwc_outfile *o, const char *path, const struct stat *old)
{
	char *dir = dir_of(path);
	if (!dir)
		return -ENOMEM;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	o->unnamed = fd >= 0;
	if (asprintf(&o->tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
		o->tmp = NULL;
		free(dir);
		if (fd >= 0)
			close(fd);
		return -ENOMEM;
	}
	free(dir);
	if (fd < 0)
		fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	set_mode(fd, old);
	if (!o->unnamed)
		tmp_register(o->tmp);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		int err = errno;
		tmp_forget(o->tmp);
		close(fd);
		if (!o->unnamed)
			unlink(o->tmp);
		return -err;
	}
	return 0;
}

int hwc_outfile_open(struct hwc_outfile *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	struct stat st;
	int rc;
	bool exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return -errno;
	if (exists && S_ISLNK(st.st_mode))
		return -ELOOP; /* never replaced, never followed: see hwc_output_strerror */
	if (exists && S_ISDIR(st.st_mode))
		return -EISDIR;
	if (exists && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
		return -ENOTSUP;
	o->path = strdup(path);
	if (!o->path)
		return -ENOMEM;
	if (exists && !S_ISREG(st.st_mode))
		rc = open_direct(o, path, &st);
	else
		rc = open_atomic(o, path, exists ? &st : NULL);
	if (rc < 0) {
		free(o->tmp);
		free(o->path);
		memset(o, 0, sizeof(*o));
	}
	return rc;
}

const char *hwc_output_strerror(int rc)
{
	switch (-rc) {
	case ELOOP:
		return "it is a symbolic link; hwcheck neither replaces a link nor writes through it "
		       "(give the path it points to)";
	case ENXIO:
		return "it is a FIFO that no process is reading";
	case ENOTSUP:
		return "it is a block device, socket or other special file; hwcheck writes only to "
		       "regular files, character devices and FIFOs";
	case EISDIR:
		return "it is a directory (give a file name)";
	case EAGAIN:
		return "it was replaced while being opened; nothing written";
	default:
		return strerror(-rc);
	}
}

void hwc_outfile_abort(struct hwc_outfile *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	if (o->tmp && !o->unnamed && !o->direct)
		unlink(o->tmp);
	tmp_forget(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

/* The rename is atomic; this makes it durable (the new name survives a crash right after). */
static void sync_dir_of(const char *path)
{
	char *dir = dir_of(path);
	if (!dir)
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Gives the unnamed temporary file a name: the target itself when there is none yet (atomic,
 * no temporary name ever), else the temporary name that is then renamed over it. */
static int name_unnamed(struct hwc_outfile *o, bool *done)
{
	char proc[64];
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(o->fp));
	int fd = fileno(o->fp);
	*done = false;
	if (linkat(fd, "", AT_FDCWD, o->path, AT_EMPTY_PATH) == 0 ||
	    linkat(AT_FDCWD, proc, AT_FDCWD, o->path, AT_SYMLINK_FOLLOW) == 0) {
		*done = true;
		return 0;
	}
	if (errno != EEXIST)
		return -errno;
	int fdt = mkostemp(o->tmp, O_CLOEXEC); /* reserve a fresh name, then link over it */
	if (fdt < 0)
		return -errno;
	close(fdt);
	tmp_register(o->tmp);
	o->unnamed = false;
	unlink(o->tmp);
	if (linkat(fd, "", AT_FDCWD, o->tmp, AT_EMPTY_PATH) == 0 ||
	    linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	return -errno;
}

static int commit_direct(struct hwc_outfile *o)
{
	int rc = 0;
	if (fflush(o->fp) != 0 || ferror(o->fp))
		rc = -(errno ? errno : EIO);
	if (fclose(o->fp) != 0 && rc == 0)
		rc = -errno;
	return rc;
}

static int commit_atomic(struct hwc_outfile *o)
{
	int rc = 0;
	bool done = false;
	if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0)
		rc = -(errno ? errno : EIO);
	if (rc == 0 && o->unnamed)
		rc = name_unnamed(o, &done);
	if (fclose(o->fp) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && !done && rename(o->tmp, o->path) != 0)
		rc = -errno;
	if (rc != 0 && !o->unnamed)
		unlink(o->tmp);
	if (rc == 0)
		sync_dir_of(o->path);
	return rc;
}

int hwc_outfile_commit(struct hwc_outfile *o)
{
	if (o->fp == stdout) {
		int rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : -(errno ? errno : EIO);
		memset(o, 0, sizeof(*o));
		return rc;
	}
	errno = 0;
	int rc = o->direct ? commit_direct(o) : commit_atomic(o);
	o->fp = NULL;
	tmp_forget(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return rc;
}

int hwc_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct hwc_outfile o;
	int rc = hwc_outfile_open(&o, path);
	if (rc < 0)
		return rc;
	if (len && fwrite(data, 1, len, o.fp) != len) {
		rc = -(errno ? errno : EIO);
		hwc_outfile_abort(&o);
		return rc;
	}
	return hwc_outfile_commit(&o);
}
