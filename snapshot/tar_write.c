/* SPDX-License-Identifier: MIT */
/* A small pax tar writer: the members of a snapshot, byte-identical for the same data. */
#include "snapshot/tar.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define TAR_MTIME 0
/* A failed write with its reason (ENOSPC on a full disk), EIO when stdio gave none. */
#define WRITE_ERR (errno ? -errno : -EIO)

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
		return WRITE_ERR;
	size_t pad = (512 - len % 512) % 512;
	if (pad && fwrite(zero, 1, pad, fp) != pad)
		return WRITE_ERR;
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
	return fwrite(h, 1, sizeof(h), fp) == sizeof(h) ? 0 : WRITE_ERR;
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
			return WRITE_ERR;
	}
	if (header(fp, path, type, mode, type == '0' ? len : 0, link) < 0)
		return WRITE_ERR;
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
	return fwrite(zero, 1, sizeof(zero), fp) == sizeof(zero) ? 0 : WRITE_ERR;
}
