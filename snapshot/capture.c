/* SPDX-License-Identifier: MIT */
/* The capture set of a recording run: every file read, link crossed and directory listed, once
 * per path (open addressing on the path), visited sorted by path when the tar is written. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/snapshot.h"

struct cap_entry {
	enum hwc_capture_kind kind;
	char *path;
	unsigned char *data;
	size_t len;
	bool listed; /* a file only seen in a directory listing: a later read fills it */
};

struct hwc_capset {
	struct hwc_capture_sink sink; /* first: the sink env.c calls is the set */
	struct cap_entry *caps;
	size_t ncaps, capcap;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static struct cap_entry *cap_slot(struct hwc_capset *e, const char *path)
{
	if (e->ncaps * 2 >= e->capcap) {
		size_t ncap = e->capcap ? e->capcap * 2 : 256;
		struct cap_entry *n = calloc(ncap, sizeof(*n));
		if (!n)
			return NULL;
		for (size_t i = 0; i < e->capcap; i++) {
			if (!e->caps[i].path)
				continue;
			size_t j = fnv1a(e->caps[i].path) & (ncap - 1);
			while (n[j].path)
				j = (j + 1) & (ncap - 1);
			n[j] = e->caps[i];
		}
		free(e->caps);
		e->caps = n;
		e->capcap = ncap;
	}
	size_t j = fnv1a(path) & (e->capcap - 1);
	while (e->caps[j].path && strcmp(e->caps[j].path, path) != 0)
		j = (j + 1) & (e->capcap - 1);
	return &e->caps[j];
}

static void cap_set_data(struct cap_entry *s, const void *data, size_t len)
{
	if (len) {
		s->data = malloc(len);
		if (s->data)
			memcpy(s->data, data, len);
		s->len = s->data ? len : 0;
	}
}

static void cap_put(struct hwc_capture_sink *sink, enum hwc_capture_kind kind, const char *path,
		    const void *data, size_t len)
{
	struct hwc_capset *e = (struct hwc_capset *)sink;
	struct cap_entry *s = cap_slot(e, path);
	if (!s)
		return;
	if (s->path && s->listed && (kind == HWC_CAP_FILE || kind == HWC_CAP_UNREADABLE)) {
		/* listed first, read now: the content is what the collectors used, or why the read
		 * failed */
		s->listed = false;
		s->kind = kind;
		cap_set_data(s, data, len);
		return;
	}
	if (s->path && s->kind == HWC_CAP_UNREADABLE && kind == HWC_CAP_FILE) {
		/* refused once, read later: the bytes are kept (a replay then knows the value) */
		free(s->data);
		s->data = NULL;
		s->len = 0;
		s->kind = kind;
		cap_set_data(s, data, len);
		return;
	}
	if (s->path) {
		/* A directory seen first as a parent and later as a file cannot happen; a file read
		 * twice keeps its first content (what the collectors used). */
		return;
	}
	s->path = strdup(path);
	if (!s->path)
		return;
	s->kind = kind;
	cap_set_data(s, data, len);
	e->ncaps++;
}

static int cap_cmp(const void *a, const void *b)
{
	const struct cap_entry *x = *(const struct cap_entry *const *)a;
	const struct cap_entry *y = *(const struct cap_entry *const *)b;
	return strcmp(x->path, y->path);
}

/* A file only seen in a directory listing: kept by name, a later read fills it. */
static void cap_listed(struct hwc_capture_sink *sink, const char *path)
{
	struct hwc_capset *e = (struct hwc_capset *)sink;
	struct cap_entry *s = cap_slot(e, path);
	if (s && !s->path && (s->path = strdup(path))) {
		s->kind = HWC_CAP_FILE;
		s->listed = true;
		e->ncaps++;
	}
}

struct hwc_capset *hwc_capset_new(void)
{
	struct hwc_capset *c = calloc(1, sizeof(*c));
	if (c)
		c->sink = (struct hwc_capture_sink){cap_put, cap_listed};
	return c;
}

void hwc_capset_free(struct hwc_capset *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->capcap; i++) {
		free(c->caps[i].path);
		free(c->caps[i].data);
	}
	free(c->caps);
	free(c);
}

struct hwc_capture_sink *hwc_capset_sink(struct hwc_capset *c)
{
	return &c->sink;
}

int hwc_capset_visit(const struct hwc_capset *e, int (*fn)(const struct hwc_capture *, void *),
		     void *ctx)
{
	if (!e->ncaps)
		return 0;
	const struct cap_entry **v = calloc(e->ncaps, sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < e->capcap; i++)
		if (e->caps[i].path)
			v[n++] = &e->caps[i];
	qsort(v, n, sizeof(*v), cap_cmp);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct hwc_capture c = {v[i]->kind, v[i]->path, v[i]->data, v[i]->len};
		rc = fn(&c, ctx);
	}
	free(v);
	return rc;
}
