/* SPDX-License-Identifier: MIT */
/* Atomic output files and a small pax tar writer. */
#include "core/output.h"

#include <errno.h>
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

int hwc_outfile_open(struct hwc_outfile *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->fp = stdout;
		return 0;
	}
	o->path = strdup(path);
	char *dup = strdup(path);
	if (!o->path || !dup) {
		free(dup);
		free(o->path);
		return -ENOMEM;
	}
	const char *dir = dirname(dup);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (asprintf(&o->tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
		o->tmp = NULL;
		free(dup);
		free(o->path);
		return -ENOMEM;
	}
	free(dup);
	int fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		free(o->tmp);
		free(o->path);
		memset(o, 0, sizeof(*o));
		return -err;
	}
	/* mkostemp makes 0600; give the file the mode a plain create would have had. */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0644 & ~um);
	tmp_register(o->tmp);
	o->fp = fdopen(fd, "w");
	if (!o->fp) {
		tmp_forget(o->tmp);
		int err = errno;
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		free(o->path);
		memset(o, 0, sizeof(*o));
		return -err;
	}
	return 0;
}

void hwc_outfile_abort(struct hwc_outfile *o)
{
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	if (o->tmp)
		unlink(o->tmp);
	tmp_forget(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

/* The rename is atomic; this makes it durable (the new name survives a crash right after). */
static void sync_dir_of(const char *path)
{
	char *dup = strdup(path);
	if (!dup)
		return;
	int fd = open(dirname(dup), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dup);
}

int hwc_outfile_commit(struct hwc_outfile *o)
{
	if (o->fp == stdout) {
		int rc = fflush(stdout) == 0 ? 0 : -errno;
		memset(o, 0, sizeof(*o));
		return rc;
	}
	int rc = 0;
	if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0)
		rc = -(errno ? errno : EIO);
	if (fclose(o->fp) != 0 && rc == 0)
		rc = -errno;
	o->fp = NULL;
	if (rc == 0 && rename(o->tmp, o->path) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(o->tmp);
	else
		sync_dir_of(o->path);
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

/* ------------------------------------------------------------------ tar */

#define TAR_MTIME 0

static void octal(char *dst, size_t width, unsigned long long v)
{
	/* width includes the terminating NUL; digits are written right to left */
	dst[width - 1] = 0;
	for (size_t i = width - 1; i > 0; i--) {
		dst[i - 1] = (char)('0' + (v & 7));
		v >>= 3;
	}
}

static int write_block(FILE *fp, const void *data, size_t len)
{
	static const char zero[512];
	if (len && fwrite(data, 1, len, fp) != len)
		return -EIO;
	size_t pad = (512 - len % 512) % 512;
	if (pad && fwrite(zero, 1, pad, fp) != pad)
		return -EIO;
	return 0;
}

static int header(FILE *fp, const char *name, char type, unsigned mode, size_t size,
		  const char *link)
{
	char h[512];
	memset(h, 0, sizeof(h));
	snprintf(h, 100, "%s", name);
	octal(h + 100, 8, mode);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, size);
	octal(h + 136, 12, TAR_MTIME);
	memset(h + 148, ' ', 8);
	h[156] = type;
	if (link)
		snprintf(h + 157, 100, "%s", link);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	snprintf(h + 265, 32, "root");
	snprintf(h + 297, 32, "root");
	unsigned sum = 0;
	for (size_t i = 0; i < sizeof(h); i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	h[155] = ' ';
	return fwrite(h, 1, sizeof(h), fp) == sizeof(h) ? 0 : -EIO;
}

static int pax_record(char *buf, size_t cap, size_t *off, const char *key, const char *val)
{
	/* "%d %s=%s\n" where %d counts the whole record, itself included */
	size_t body = strlen(key) + strlen(val) + 3;
	size_t len = body + 1;
	for (;;) {
		char tmp[24];
		size_t dl = (size_t)snprintf(tmp, sizeof(tmp), "%zu", len);
		if (body + dl == len)
			break;
		len = body + dl;
	}
	if (*off + len + 1 > cap)
		return -ENAMETOOLONG;
	*off += (size_t)snprintf(buf + *off, cap - *off, "%zu %s=%s\n", len, key, val);
	return 0;
}

static int entry(FILE *fp, const char *path, char type, unsigned mode, const void *data,
		 size_t len, const char *link)
{
	if (strlen(path) >= 100 || (link && strlen(link) >= 100)) {
		char pax[16384];
		size_t off = 0;
		if (strlen(path) >= 100 && pax_record(pax, sizeof(pax), &off, "path", path) < 0)
			return -ENAMETOOLONG;
		if (link && strlen(link) >= 100 &&
		    pax_record(pax, sizeof(pax), &off, "linkpath", link) < 0)
			return -ENAMETOOLONG;
		if (header(fp, "././@PaxHeader", 'x', 0644, off, NULL) < 0 ||
		    write_block(fp, pax, off) < 0)
			return -EIO;
	}
	if (header(fp, path, type, mode, type == '0' ? len : 0, link) < 0)
		return -EIO;
	return type == '0' ? write_block(fp, data, len) : 0;
}

int hwc_tar_add_file(FILE *fp, const char *path, const void *data, size_t len, unsigned mode)
{
	return entry(fp, path, '0', mode, data, len, NULL);
}

int hwc_tar_add_dir(FILE *fp, const char *path)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/", path);
	return entry(fp, p, '5', 0755, NULL, 0, NULL);
}

int hwc_tar_add_link(FILE *fp, const char *path, const char *target)
{
	return entry(fp, path, '2', 0777, NULL, 0, target);
}

int hwc_tar_finish(FILE *fp)
{
	static const char zero[1024];
	return fwrite(zero, 1, sizeof(zero), fp) == sizeof(zero) ? 0 : -EIO;
}
