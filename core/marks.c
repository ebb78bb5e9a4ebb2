/* SPDX-License-Identifier: MIT */
/* A capture's marks of files that existed but could not be read (HWC_UNREADABLE_LIST): parsed
 * once, at the first read of a replay, so a replayed read fails the way the captured run's did
 * instead of reading the empty file that stands for it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/env_int.h"

#define MARKS_MAX_BYTES (16u << 20)

/* The field up to the next space: its length, 0 when there is no space after it. */
static size_t field(const char *s, size_t len)
{
	const char *sp = memchr(s, ' ', len);
	return sp ? (size_t)(sp - s) : 0;
}

int hwc_unreadable_line(const char *line, size_t len, int *err, enum hwc_status *st,
			const char **path, size_t *plen)
{
	size_t n = field(line, len);
	char num[8], name[16];
	int64_t v;
	if (n == 0 || n >= sizeof(num) || line[0] == '#')
		return -EINVAL;
	memcpy(num, line, n);
	num[n] = 0;
	if (hwc_parse_i64(num, 10, &v) < 0 || v < 1 || v > 4095)
		return -EINVAL;
	line += n + 1;
	len -= n + 1;
	n = field(line, len);
	if (n == 0 || n >= sizeof(name))
		return -EINVAL;
	memcpy(name, line, n);
	name[n] = 0;
	enum hwc_status s = hwc_status_from_name(name);
	if (s != HWC_ST_NEEDS_ROOT && s != HWC_ST_UNREADABLE && s != HWC_ST_ABSENT)
		return -EINVAL;
	line += n + 1;
	len -= n + 1;
	if (len == 0 || memchr(line, 0, len))
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			return -EINVAL;
	*err = (int)v;
	*st = s;
	*path = line;
	*plen = len;
	return 0;
}

static int cmp_mark(const void *a, const void *b)
{
	return strcmp(((const struct env_mark *)a)->path, ((const struct env_mark *)b)->path);
}

/* The list's bytes (malloc'd, NUL-terminated), up to MARKS_MAX_BYTES; NULL without one. */
static char *marks_read(struct hwc_env *e, size_t *len)
{
	int fd = env_open_unmapped(e, HWC_UNREADABLE_LIST, O_RDONLY, NULL, 0, OPEN_FILE);
	if (fd < 0)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			char *nb = cap < MARKS_MAX_BYTES ? realloc(buf, cap * 2 + 1) : NULL;
			if (!nb)
				break; /* what was read is used: a cut last line is no mark */
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf) {
		buf[n] = 0;
		*len = n;
	}
	return buf;
}

/* Adds the mark of one complete line; a line that is none is ignored. */
static void marks_add(struct hwc_env *e, const char *line, size_t len, size_t *cap)
{
	int err;
	enum hwc_status st;
	const char *p;
	size_t plen;
	if (hwc_unreadable_line(line, len, &err, &st, &p, &plen) < 0)
		return;
	while (plen && *p == '/') {
		p++;
		plen--;
	}
	if (!plen)
		return;
	if (e->nmarks == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct env_mark *nm = realloc(e->marks, nc * sizeof(*nm));
		if (!nm)
			return;
		e->marks = nm;
		*cap = nc;
	}
	char *path = strndup(p, plen);
	if (path)
		e->marks[e->nmarks++] = (struct env_mark){path, err, st};
}

static void marks_load(struct hwc_env *e)
{
	e->marks_loaded = true;
	size_t len = 0, cap = 0;
	char *buf = marks_read(e, &len);
	for (char *line = buf; line && line < buf + len;) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line));
		if (!nl)
			break;
		marks_add(e, line, (size_t)(nl - line), &cap);
		line = nl + 1;
	}
	free(buf);
	if (e->nmarks > 1)
		qsort(e->marks, e->nmarks, sizeof(*e->marks), cmp_mark);
}

bool env_mark_find(struct hwc_env *e, const char *res, int *err, enum hwc_status *st)
{
	if (e->live || !res || !*res)
		return false;
	if (!e->marks_loaded)
		marks_load(e);
	if (!e->nmarks)
		return false;
	struct env_mark key = {.path = (char *)res};
	const struct env_mark *m = bsearch(&key, e->marks, e->nmarks, sizeof(*e->marks), cmp_mark);
	if (!m)
		return false;
	*err = m->err;
	*st = m->st;
	return true;
}

void env_marks_free(struct hwc_env *e)
{
	for (size_t i = 0; i < e->nmarks; i++)
		free(e->marks[i].path);
	free(e->marks);
	e->marks = NULL;
	e->nmarks = 0;
}
