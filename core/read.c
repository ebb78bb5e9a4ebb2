/* SPDX-License-Identifier: MIT */
/* Readers that say why: a file, a link or a directory listing inside the root fills a fact with
 * its value or with why there is none (absent, needs_root, unreadable, truncated, invalid), the
 * path named in the detail; what was read is handed to the capture when recording. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env_int.h"
#include "core/wait.h"

#define READ_CAP_DEFAULT (1u << 20)

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int hwc_env_list_dir(struct hwc_env *e, const char *path, struct hwc_arena *a,
		     struct hwc_dirlist *out)
{
	char res[PATH_MAX];
	int fd = env_open_resolved(e, path, O_RDONLY | O_DIRECTORY, res, sizeof(res), OPEN_DIR);
	if (fd < 0)
		return fd;
	DIR *d = fdopendir(fd);
	if (!d) {
		int err = errno;
		close(fd);
		return -err;
	}
	const char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;
	env_cap_put(e, HWC_CAP_DIR, res, NULL, 0);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, HWC_KEEP_FILE) == 0)
			continue;
		if (hwc_arena_grow(a, (void **)&names, sizeof(*names), &cap, n + 1) < 0) {
			rc = -ENOMEM;
			break;
		}
		names[n] = hwc_arena_strdup(a, de->d_name);
		if (!names[n]) {
			rc = -ENOMEM;
			break;
		}
		n++;
		env_cap_listed(e, d, res, de);
	}
	closedir(d);
	if (rc < 0)
		return rc;
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	out->names = names;
	out->n = n;
	return 0;
}

int64_t *hwc_dirlist_numbered(struct hwc_dirlist *dl, const char *prefix, bool by_number,
			      struct hwc_arena *a)
{
	size_t pl = strlen(prefix), k = 0;
	int64_t *ids = dl->n ? hwc_arena_calloc(a, dl->n, sizeof(*ids)) : NULL;
	for (size_t i = 0; ids && i < dl->n; i++) {
		int64_t v;
		const char *nm = dl->names[i];
		if (strncmp(nm, prefix, pl) != 0 || !nm[pl] || hwc_parse_i64(nm + pl, 10, &v) < 0 ||
		    v < 0)
			continue;
		size_t at = k++;
		for (; by_number && at > 0 && ids[at - 1] > v; at--) { /* insertion: short lists */
			ids[at] = ids[at - 1];
			dl->names[at] = dl->names[at - 1];
		}
		ids[at] = v;
		dl->names[at] = nm;
	}
	dl->n = k;
	return k ? ids : NULL;
}

/* The status of a failed open or read by its errno (as non-root on the live machine, EACCES is
 * needs_root; in a capture it is the capture's own). */
static enum hwc_status fail_status(const struct hwc_env *e, int err)
{
	if (err == ENOENT || err == ENOTDIR || err == ENODEV || err == ENXIO)
		return HWC_ST_ABSENT;
	if ((err == EACCES || err == EPERM) && e->live && !e->is_root_user)
		return HWC_ST_NEEDS_ROOT;
	return HWC_ST_UNREADABLE;
}

static void fail_as(struct hwc_env *e, struct hwc_fmeta *m, struct hwc_arena *a, const char *path,
		    int err, enum hwc_status st)
{
	const char *why = err == ELOOP ? "too many symbolic links (or a loop) under the root"
				       : strerror(err);
	while (*path == '/')
		path++;
	if (e->only_input)
		why = hwc_arena_printf(a, "not in %s", e->only_input);
	hwc_fmeta_set(m, st, st == HWC_ST_UNREADABLE ? err : 0,
		      hwc_arena_printf(a, "/%s: %s", path, why));
}

void hwc_env_fail(struct hwc_env *e, struct hwc_fmeta *m, struct hwc_arena *a, const char *path,
		  int err)
{
	if (err < 0)
		err = -err;
	fail_as(e, m, a, path, err, fail_status(e, err));
}

/* A failed read said in the words of the run that failed it, and kept as a mark when recording
 * (res: resolved, the file exists; empty: nothing to mark). */
static int fail_kept(struct hwc_env *e, struct hwc_fmeta *m, struct hwc_arena *a, const char *path,
		     const char *res, int err, enum hwc_status st)
{
	fail_as(e, m, a, path, err, st);
	env_cap_unreadable(e, res, err, st);
	return -err;
}

/* The open or read of a file failed with err. In a replay a file the capture marked unreadable
 * (an empty file and its line, or the line alone: then ENOENT here) fails as the captured run's
 * read did. */
static int read_failed(struct hwc_env *e, struct hwc_fmeta *m, struct hwc_arena *a,
		       const char *path, const char *res, int err)
{
	int merr;
	enum hwc_status st;
	if (err == ENOENT && env_mark_find(e, res, &merr, &st))
		return fail_kept(e, m, a, path, res, merr, st);
	if (err == ENOENT && e->sample && e->mode == HWC_RUN_REPLAY &&
	    strncmp(res, HWC_WATCH_DIR "/", sizeof(HWC_WATCH_DIR)) == 0) {
		/* on the captured machine, but not in this sample of the capture */
		while (*path == '/')
			path++;
		hwc_fmeta_set(m, HWC_ST_ABSENT, 0,
			      hwc_arena_printf(a, "/%s: not in --watch sample %u of this capture (no %s)",
					       path, e->sample, res));
		return -ENOENT;
	}
	return fail_kept(e, m, a, path, res, err, fail_status(e, err));
}

/* A read that may block (a device that stopped answering): marked for the watchdog. */
static ssize_t read_marked(int fd, void *buf, size_t n)
{
	hwc_wait_begin();
	ssize_t r = read(fd, buf, n);
	hwc_wait_end();
	return r;
}

/* Read an open fd whole (up to cap) into the arena; closes fd. `path` names it in details,
 * `res` (resolved, root-relative) in captures. */
static int read_fd(struct hwc_env *e, int fd, const char *path, const char *res, size_t cap,
		   struct hwc_arena *a, const unsigned char **data, size_t *len, struct hwc_fmeta *m)
{
	int merr;
	enum hwc_status mst;
	if (env_mark_find(e, res, &merr, &mst)) { /* the empty file of a capture's mark */
		close(fd);
		return fail_kept(e, m, a, path, res, merr, mst);
	}
	if (!cap)
		cap = READ_CAP_DEFAULT;
	/* Read into a stack buffer grown on the heap only for large files, then keep exactly what
	 * was read: most sysfs files are a few bytes, and reserving `cap` in the arena for each
	 * made a 1,000-function host cost over 100 MB. */
	unsigned char stackbuf[8192];
	unsigned char *tmp = stackbuf;
	size_t tcap = cap < sizeof(stackbuf) ? cap : sizeof(stackbuf);
	size_t got = 0;
	bool more = false;
	for (;;) {
		if (got == tcap) {
			if (tcap == cap) {
				char one;
				ssize_t r = read_marked(fd, &one, 1);
				more = r > 0;
				break;
			}
			size_t ncap = tcap * 4 < cap ? tcap * 4 : cap;
			unsigned char *n = tmp == stackbuf ? malloc(ncap) : realloc(tmp, ncap);
			if (!n) {
				if (tmp != stackbuf)
					free(tmp);
				close(fd);
				hwc_env_fail(e, m, a, path, ENOMEM);
				return -ENOMEM;
			}
			if (tmp == stackbuf)
				memcpy(n, stackbuf, got);
			tmp = n;
			tcap = ncap;
		}
		ssize_t r = read_marked(fd, tmp + got, tcap - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;
			close(fd);
			if (tmp != stackbuf)
				free(tmp);
			/* sysfs config beyond 64 bytes as non-root reads short, not EACCES. EIO from a
			 * sysfs attribute means the device could not answer. */
			return read_failed(e, m, a, path, res, err);
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	unsigned char *buf = hwc_arena_zalloc(a, got + 1);
	if (buf)
		memcpy(buf, tmp, got);
	if (tmp != stackbuf)
		free(tmp);
	if (!buf) {
		hwc_env_fail(e, m, a, path, ENOMEM);
		return -ENOMEM;
	}
	buf[got] = 0;
	*data = buf;
	*len = got;
	env_cap_put(e, HWC_CAP_FILE, res, buf, got);
	if (more) {
		while (*path == '/')
			path++;
		hwc_fmeta_set(m, HWC_ST_TRUNCATED, 0,
			      hwc_arena_printf(a, "/%s: longer than %zu bytes", path, cap));
		return -EFBIG;
	}
	hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
	return 0;
}

static int not_regular(struct hwc_fmeta *m, struct hwc_arena *a, const char *path)
{
	while (*path == '/')
		path++;
	hwc_fmeta_set(m, HWC_ST_INVALID, 0,
		      hwc_arena_printf(a, "/%s: not a regular file (FIFO, socket or device node); "
					  "not opened", path));
	return -EINVAL;
}

int hwc_read_bytes(struct hwc_env *e, const char *path, size_t cap, struct hwc_arena *a,
		   const unsigned char **data, size_t *len, struct hwc_fmeta *m)
{
	char res[PATH_MAX];
	int fd = env_open_resolved(e, path, O_RDONLY, res, sizeof(res), OPEN_FILE);
	if (fd == -EINVAL)
		return not_regular(m, a, path);
	if (fd < 0)
		return read_failed(e, m, a, path, res, -fd);
	return read_fd(e, fd, path, res, cap, a, data, len, m);
}

/* ---- a directory resolved once ------------------------------------------------------- */

int hwc_env_dir_open(struct hwc_env *e, const char *path, struct hwc_arena *a,
		     struct hwc_env_dir *out)
{
	char res[PATH_MAX];
	out->fd = -1;
	out->path = NULL;
	int fd = env_open_resolved(e, path, O_RDONLY | O_DIRECTORY, res, sizeof(res), OPEN_DIR);
	if (fd < 0)
		return fd;
	out->path = hwc_arena_strdup(a, res);
	if (!out->path) {
		close(fd);
		return -ENOMEM;
	}
	out->fd = fd;
	return 0;
}

void hwc_env_dir_close(struct hwc_env_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

/* A leaf is one name: anything else (or a leaf that is a link) goes the general way. */
static bool plain_leaf(const char *leaf)
{
	return *leaf && !strchr(leaf, '/') && strcmp(leaf, ".") != 0 && strcmp(leaf, "..") != 0;
}

int hwc_read_bytes_at(struct hwc_env *e, const struct hwc_env_dir *d, const char *leaf, size_t cap,
		      struct hwc_arena *a, const unsigned char **data, size_t *len,
		      struct hwc_fmeta *m)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", d->path, leaf) >= (int)sizeof(path)) {
		hwc_env_fail(e, m, a, leaf, ENAMETOOLONG);
		return -ENAMETOOLONG;
	}
	/* a sample of a capture is not in d: the general way finds its place */
	if (!plain_leaf(leaf) || (e->sample && e->mode == HWC_RUN_REPLAY))
		return hwc_read_bytes(e, path, cap, a, data, len, m);
	/* O_NONBLOCK so a FIFO planted in a capture cannot block the open; fstat then refuses
	 * anything but a regular file (as hwc_read_bytes does). */
	int fd = openat(d->fd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int err = errno;
		if (err == ELOOP) /* the leaf is a link: resolve it inside the root */
			return hwc_read_bytes(e, path, cap, a, data, len, m);
		return read_failed(e, m, a, path, path, err);
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return not_regular(m, a, path);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return read_fd(e, fd, path, path, cap, a, data, len, m);
}

int hwc_read_link_name_at(struct hwc_env *e, const struct hwc_env_dir *d, const char *leaf,
			  struct hwc_arena *a, struct hwc_fstr *out)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/%s", d->path, leaf) >= (int)sizeof(path) ||
	    !plain_leaf(leaf))
		return hwc_read_link_name(e, path, a, out);
	char target[PATH_MAX];
	ssize_t tl = readlinkat(d->fd, leaf, target, sizeof(target) - 1);
	if (tl < 0) {
		int err = errno == EINVAL ? EINVAL : errno;
		hwc_env_fail(e, &out->m, a, path, err);
		return -err;
	}
	target[tl] = 0;
	env_cap_put(e, HWC_CAP_LINK, path, target, (size_t)tl);
	const char *slash = strrchr(target, '/');
	const char *name = hwc_arena_strdup(a, slash ? slash + 1 : target);
	if (!name) {
		hwc_env_fail(e, &out->m, a, path, ENOMEM);
		return -ENOMEM;
	}
	HWC_SET(*out, name);
	return 0;
}

int hwc_read_str(struct hwc_env *e, const char *path, struct hwc_arena *a, struct hwc_fstr *out)
{
	const unsigned char *d;
	size_t len;
	struct hwc_fmeta m;
	int rc = hwc_read_bytes(e, path, 64 * 1024, a, &d, &len, &m);
	if (rc < 0 && m.st != HWC_ST_TRUNCATED) {
		out->m = m;
		return rc;
	}
	char *s = (char *)d;
	if (memchr(s, 0, len)) {
		while (*path == '/')
			path++;
		HWC_FAIL(*out, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "/%s: binary content where text was expected", path));
		return -EINVAL;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = 0;
	out->v = s;
	out->m = m;
	return rc;
}

static void invalid(struct hwc_fmeta *m, struct hwc_arena *a, const char *path, const char *what,
		    const char *got)
{
	while (*path == '/')
		path++;
	char shown[48];
	snprintf(shown, sizeof(shown), "%s", got);
	hwc_fmeta_set(m, HWC_ST_INVALID, 0,
		      hwc_arena_printf(a, "/%s: expected %s, got '%s'%s", path, what, shown,
				       strlen(got) >= sizeof(shown) ? "..." : ""));
}

/* The text of a number's file; on failure *m is why. */
static int read_text(struct hwc_env *e, const char *path, struct hwc_arena *a,
		     struct hwc_fmeta *m, const char **text)
{
	struct hwc_fstr s = {0};
	int rc = hwc_read_str(e, path, a, &s);
	if (rc < 0)
		*m = s.m;
	*text = s.v;
	return rc;
}

int hwc_read_i64(struct hwc_env *e, const char *path, struct hwc_arena *a, struct hwc_fi64 *out)
{
	const char *t;
	int rc = read_text(e, path, a, &out->m, &t);
	if (rc < 0)
		return rc;
	int64_t v;
	if (hwc_parse_i64(t, 0, &v) < 0) {
		invalid(&out->m, a, path, "an integer", t);
		return -EINVAL;
	}
	HWC_SET(*out, v);
	return 0;
}

int hwc_read_hex(struct hwc_env *e, const char *path, struct hwc_arena *a, struct hwc_fu64 *out)
{
	const char *t;
	int rc = read_text(e, path, a, &out->m, &t);
	if (rc < 0)
		return rc;
	const char *p = t;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	uint64_t v;
	if (!*p || hwc_parse_u64(p, 16, &v) < 0 || strchr(p, 'x') || strchr(p, '+')) {
		invalid(&out->m, a, path, "a hexadecimal number", t);
		return -EINVAL;
	}
	HWC_SET(*out, v);
	return 0;
}

int hwc_read_link_name(struct hwc_env *e, const char *path, struct hwc_arena *a,
		       struct hwc_fstr *out)
{
	const char *t;
	int rc = hwc_env_readlink(e, path, a, &t);
	if (rc < 0) {
		hwc_env_fail(e, &out->m, a, path, rc == -EINVAL ? EINVAL : -rc);
		return rc;
	}
	const char *slash = strrchr(t, '/');
	HWC_SET(*out, slash ? slash + 1 : t);
	return 0;
}
