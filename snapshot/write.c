/* SPDX-License-Identifier: MIT */
/* Writing a capture as a tar that is itself a valid --root: every captured file, link, directory
 * and command output, members below a link written where the link points, redacted on request. */
#include "snapshot/snapshot.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/redact.h"
#include "snapshot/tar.h"

/* The link members of a capture, sorted by path. */
struct link_set {
	struct link_ent {
		char *path, *target;
	} *v;
	size_t n, cap;
};

static int cmp_link(const void *a, const void *b)
{
	return strcmp(((const struct link_ent *)a)->path, ((const struct link_ent *)b)->path);
}

static int collect_link(const struct hwc_capture *cap, void *p)
{
	struct link_set *s = p;
	if (cap->kind != HWC_CAP_LINK)
		return 0;
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 64;
		struct link_ent *nv = realloc(s->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = nc;
	}
	struct link_ent *l = &s->v[s->n];
	l->path = strdup(cap->path);
	l->target = strndup((const char *)cap->data, cap->len);
	if (!l->path || !l->target) {
		free(l->path);
		free(l->target);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

static void link_set_free(struct link_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].target);
	}
	free(s->v);
}

static int load_links(const struct hwc_capset *c, struct link_set *s)
{
	int rc = hwc_capset_visit(c, collect_link, s);
	if (rc == 0 && s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_link);
	return rc;
}

/* Normalizes a root-relative path in place: "." and empty components dropped, ".." stops at the
 * root (as the root walker does). */
static void normalize(char *p)
{
	char *out = p, *in = p;
	while (*in) {
		char *end = strchr(in, '/');
		size_t len = end ? (size_t)(end - in) : strlen(in);
		if ((len == 1 && in[0] == '.') || len == 0) {
			/* skip */
		} else if (len == 2 && in[0] == '.' && in[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			if (out > p)
				*out++ = '/';
			memmove(out, in, len);
			out += len;
		}
		in += len + (end ? 1 : 0);
	}
	*out = 0;
}

/* A member below a captured link (`hwcheck -> data/hw`, then `hwcheck/facts.json`) would be
 * written wherever the link points when the tar is extracted: a tar slip. Such a member is
 * written at the path the link resolves to inside the capture instead, so the tar never holds a
 * member below a link member and the capture still reads the same. Returns 0, 1 when the path
 * was rewritten, or -ELOOP/-ENAMETOOLONG (the member is left out). */
static int resolve_member(const struct link_set *s, const char *path, char *out, size_t cap)
{
	if (strlen(path) >= cap)
		return -ENAMETOOLONG;
	strcpy(out, path);
	int moved = 0;
	for (int hops = 0; hops <= 40; hops++) {
		bool hit = false;
		for (char *sl = strchr(out, '/'); sl && s->n; sl = strchr(sl + 1, '/')) {
			*sl = 0;
			struct link_ent key = {.path = out};
			const struct link_ent *l = bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_link);
			*sl = '/';
			if (!l)
				continue;
			char buf[PATH_MAX];
			size_t dirlen = strrchr(l->path, '/') ? (size_t)(strrchr(l->path, '/') - l->path) : 0;
			int n = l->target[0] == '/'
					? snprintf(buf, sizeof(buf), "%s%s", l->target + 1, sl)
					: snprintf(buf, sizeof(buf), "%.*s/%s%s", (int)dirlen, l->path, l->target, sl);
			if (n < 0 || (size_t)n >= sizeof(buf) || (size_t)n >= cap)
				return -ENAMETOOLONG;
			normalize(buf);
			strcpy(out, buf);
			hit = true;
			moved = 1;
			break;
		}
		if (!hit)
			return moved;
	}
	return -ELOOP;
}

struct tar_ctx {
	const struct link_set *link_set;
	FILE *fp;
	struct hwc_redactor *red; /* --redact */
	struct hwc_snapshot_stats *st;
	char *marks; /* the lines of HWC_UNREADABLE_LIST */
	size_t nmarks, capmarks;
};

/* The tar path of a member: its own, or where the links above it resolve (see resolve_member).
 * NULL: left out. */
static const char *member_path(struct tar_ctx *t, const char *path, char *buf, size_t cap)
{
	int r = resolve_member(t->link_set, path, buf, cap);
	if (r < 0) {
		t->st->left_out++;
		return NULL;
	}
	t->st->moved += (size_t)r;
	return buf;
}

static int add_file(struct tar_ctx *t, const char *orig, const char *path, const void *data,
		    size_t len)
{
	int rc;
	if (t->red && len) {
		unsigned char *copy = malloc(len);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, len);
		t->st->redacted += hwc_redact(t->red, orig, copy, len);
		rc = hwc_tar_add_file(t->fp, path, copy, len, 0644);
		free(copy);
	} else {
		rc = hwc_tar_add_file(t->fp, path, data, len, 0644);
	}
	t->st->files++;
	return rc;
}

/* A file that could not be read: an empty file where it stood (listings and existence checks
 * see it) and its line "<errno> <status> <path>" (cap->data holds the first two). */
static int add_unreadable(struct tar_ctx *t, const struct hwc_capture *cap, const char *path)
{
	for (const char *c = path; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) { /* moved below a link to such a name */
			t->st->left_out++;
			return 0;
		}
	size_t need = cap->len + strlen(path) + 3;
	if (t->nmarks + need > t->capmarks) {
		size_t nc = (t->capmarks ? t->capmarks * 2 : 4096) + need;
		char *nm = realloc(t->marks, nc);
		if (!nm)
			return -ENOMEM;
		t->marks = nm;
		t->capmarks = nc;
	}
	t->nmarks += (size_t)snprintf(t->marks + t->nmarks, t->capmarks - t->nmarks, "%.*s %s\n",
				      (int)cap->len, (const char *)cap->data, path);
	t->st->unreadable++;
	return add_file(t, cap->path, path, NULL, 0);
}

static int add_one(const struct hwc_capture *cap, void *p)
{
	struct tar_ctx *t = p;
	char buf[PATH_MAX];
	const char *path = member_path(t, cap->path, buf, sizeof(buf));
	if (!path)
		return 0;
	int rc = 0;
	switch (cap->kind) {
	case HWC_CAP_FILE:
		rc = add_file(t, cap->path, path, cap->data, cap->len);
		break;
	case HWC_CAP_LINK: {
		char *target = strndup((const char *)cap->data, cap->len);
		if (!target)
			return -ENOMEM;
		rc = hwc_tar_add_link(t->fp, path, target);
		free(target);
		t->st->links++;
		break;
	}
	case HWC_CAP_DIR:
		rc = hwc_tar_add_dir(t->fp, path);
		t->st->dirs++;
		break;
	case HWC_CAP_UNREADABLE:
		rc = add_unreadable(t, cap, path);
		break;
	}
	return rc;
}

/* Names are learned from every capture first, so each is masked in every file, whatever the
 * order of the files. */
static int learn_one(const struct hwc_capture *cap, void *p)
{
	if (cap->kind == HWC_CAP_FILE)
		hwc_redact_learn(p, cap->path, cap->data, cap->len);
	return 0;
}

int hwc_snapshot_write(FILE *fp, const struct hwc_capset *c, const char *facts_json, bool redact,
		       struct hwc_snapshot_stats *st)
{
	*st = (struct hwc_snapshot_stats){0};
	struct link_set links = {0};
	struct tar_ctx t = {.fp = fp, .link_set = &links, .st = st};
	int rc = load_links(c, &links);
	if (rc == 0 && redact && !(t.red = hwc_redactor_new()))
		rc = -ENOMEM;
	if (rc == 0 && t.red)
		rc = hwc_capset_visit(c, learn_one, t.red);
	if (rc == 0)
		rc = hwc_capset_visit(c, add_one, &t);
	/* the list as written, never redacted (paths only): a replay finds each of its paths */
	char mbuf[PATH_MAX];
	const char *mpath = rc == 0 && t.nmarks ? member_path(&t, HWC_UNREADABLE_LIST, mbuf, sizeof(mbuf))
					       : NULL;
	if (mpath)
		rc = hwc_tar_add_file(fp, mpath, t.marks, t.nmarks, 0644);
	free(t.marks);
	/* The facts as collected, for `hwcheck diff` and for a person reading the tar; redacted
	 * after the captures, so a value keeps the placeholder it got there. */
	char fbuf[PATH_MAX];
	const char *fpath = rc == 0 ? member_path(&t, "hwcheck/facts.json", fbuf, sizeof(fbuf)) : NULL;
	if (rc == 0 && facts_json && fpath)
		rc = add_file(&t, "hwcheck/facts.json", fpath, facts_json, strlen(facts_json));
	hwc_redactor_free(t.red);
	link_set_free(&links);
	if (rc == 0)
		rc = hwc_tar_finish(fp);
	return rc;
}
