/* SPDX-License-Identifier: MIT */
/* Root-confined path resolution, readers that report why, and the capture set for snapshots. */
#include "core/env.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINKS 40
#define MAX_DEPTH 256
#define DIRCACHE_N 64
#define DIRCACHE_DEPTH 8
#define READ_CAP_DEFAULT (1u << 20)

struct cap_entry {
	enum hwc_capture_kind kind;
	char *path;
	unsigned char *data;
	size_t len;
	bool listed; /* a file only seen in a directory listing: a later read fills it */
};

struct hwc_env {
	char *root;
	int root_fd;
	bool live, is_root_user, no_tools, record;
	const char *only_input;
	enum hwc_run_mode mode;
	unsigned cmd_timeout_ms;
	size_t cmd_output_cap;
	struct timespec deadline;
	bool has_deadline;
	/* capture set: open-addressed hash on path */
	struct cap_entry *caps;
	size_t ncaps, capcap;
	/* directories already resolved inside the root (see dircache_get) */
	struct dircache_ent {
		char *key;  /* the directory as asked for, unresolved */
		char *res;  /* resolved, root-relative */
		int fd;     /* O_PATH */
		unsigned long use;
	} dircache[DIRCACHE_N];
	unsigned long dircache_clock;
	int link_depth;  /* links followed by open_in_cached_dir in the current open */
	int cache_depth; /* directories being resolved through their cached parents */
};

/* ------------------------------------------------------------------ open / free */

int hwc_env_open(const struct hwc_env_opts *o, struct hwc_env **out)
{
	struct hwc_env_opts def = {0};
	if (!o)
		o = &def;
	const char *root = (o->root && *o->root) ? o->root : "/";
	struct hwc_env *e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->root_fd = -1;
	char *real = realpath(root, NULL);
	if (!real) {
		int err = errno;
		free(e);
		return -err;
	}
	e->root = real;
	e->root_fd = open(real, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (e->root_fd < 0) {
		int err = errno;
		hwc_env_free(e);
		return -err;
	}
	e->live = strcmp(real, "/") == 0 && !o->only_input;
	e->is_root_user = geteuid() == 0;
	e->no_tools = o->no_tools;
	e->record = o->record;
	e->only_input = o->only_input;
	e->mode = o->only_input ? HWC_RUN_REPLAY : o->mode;
	if (e->mode == HWC_RUN_AUTO)
		e->mode = e->live ? HWC_RUN_EXEC : HWC_RUN_REPLAY;
	e->cmd_timeout_ms = o->cmd_timeout_ms ? o->cmd_timeout_ms : 10000;
	e->cmd_output_cap = o->cmd_output_cap ? o->cmd_output_cap : (8u << 20);
	if (o->total_timeout_ms) {
		clock_gettime(CLOCK_MONOTONIC, &e->deadline);
		e->deadline.tv_sec += o->total_timeout_ms / 1000;
		e->deadline.tv_nsec += (long)(o->total_timeout_ms % 1000) * 1000000L;
		if (e->deadline.tv_nsec >= 1000000000L) {
			e->deadline.tv_sec++;
			e->deadline.tv_nsec -= 1000000000L;
		}
		e->has_deadline = true;
	}
	*out = e;
	return 0;
}

void hwc_env_free(struct hwc_env *e)
{
	if (!e)
		return;
	if (e->root_fd >= 0)
		close(e->root_fd);
	for (size_t i = 0; i < e->capcap; i++) {
		free(e->caps[i].path);
		free(e->caps[i].data);
	}
	free(e->caps);
	for (size_t i = 0; i < DIRCACHE_N; i++) {
		if (e->dircache[i].key) {
			close(e->dircache[i].fd);
			free(e->dircache[i].key);
			free(e->dircache[i].res);
		}
	}
	free(e->root);
	free(e);
}

bool hwc_env_is_live(const struct hwc_env *e) { return e->live; }
enum hwc_run_mode hwc_env_mode(const struct hwc_env *e) { return e->mode; }
bool hwc_env_is_root_user(const struct hwc_env *e) { return e->is_root_user; }
bool hwc_env_no_tools(const struct hwc_env *e) { return e->no_tools; }
const char *hwc_env_only_input(const struct hwc_env *e) { return e->only_input; }
unsigned hwc_env_cmd_timeout_ms(const struct hwc_env *e) { return e->cmd_timeout_ms; }
size_t hwc_env_cmd_output_cap(const struct hwc_env *e) { return e->cmd_output_cap; }
bool hwc_env_recording(const struct hwc_env *e) { return e->record; }

unsigned hwc_env_time_left_ms(const struct hwc_env *e)
{
	if (!e->has_deadline)
		return UINT32_MAX;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	long long ms = (long long)(e->deadline.tv_sec - now.tv_sec) * 1000 +
		       (e->deadline.tv_nsec - now.tv_nsec) / 1000000;
	return ms <= 0 ? 0 : (ms > UINT32_MAX ? UINT32_MAX : (unsigned)ms);
}

/* ------------------------------------------------------------------ capture set */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static struct cap_entry *cap_slot(struct hwc_env *e, const char *path)
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

static void cap_put(struct hwc_env *e, enum hwc_capture_kind kind, const char *path,
		    const void *data, size_t len)
{
	if (!e->record || !*path)
		return;
	struct cap_entry *s = cap_slot(e, path);
	if (!s)
		return;
	if (s->path && s->listed && kind == HWC_CAP_FILE) {
		/* listed first, read now: the content is what the collectors used */
		s->listed = false;
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

/* Keep a link crossed at dir/leaf (dir resolved, root-relative) when recording. */
static void cap_link(struct hwc_env *e, const char *dir, const char *leaf, const char *target,
		     size_t tl)
{
	if (!e->record)
		return;
	char lp[PATH_MAX];
	int n = snprintf(lp, sizeof(lp), "%s%s%s", dir, *dir ? "/" : "", leaf);
	if (n > 0 && (size_t)n < sizeof(lp))
		cap_put(e, HWC_CAP_LINK, lp, target, tl);
}

int hwc_env_capture_blob(struct hwc_env *e, const char *path, const void *data, size_t len)
{
	while (*path == '/')
		path++;
	cap_put(e, HWC_CAP_FILE, path, data, len);
	return 0;
}

static int cap_cmp(const void *a, const void *b)
{
	const struct cap_entry *x = *(const struct cap_entry *const *)a;
	const struct cap_entry *y = *(const struct cap_entry *const *)b;
	return strcmp(x->path, y->path);
}

int hwc_env_captures(const struct hwc_env *e, int (*fn)(const struct hwc_capture *, void *),
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

/* ------------------------------------------------------------------ resolution */

/* Walk `path` from the root, following links inside it. On success returns a dirfd (O_PATH) for
 * the parent and the final component in `last` (empty when the path is the root itself), and the
 * resolved path in `res`. With follow_last the final component is resolved too. */
struct walk {
	int fds[MAX_DEPTH];
	size_t depth;
	char res[PATH_MAX];
	size_t reslen;
	struct stat last_st; /* the final component (after links), valid when `last` is set */
};

static void walk_reset(struct walk *w)
{
	for (size_t i = 1; i < w->depth; i++)
		close(w->fds[i]);
	w->depth = 1;
	w->reslen = 0;
	w->res[0] = 0;
}

static void walk_pop(struct walk *w)
{
	if (w->depth > 1) {
		close(w->fds[--w->depth]);
		char *slash = strrchr(w->res, '/');
		w->reslen = slash ? (size_t)(slash - w->res) : 0;
		w->res[w->reslen] = 0;
	}
}

static int res_append(struct walk *w, const char *comp)
{
	size_t cl = strlen(comp);
	if (w->reslen + cl + 2 >= sizeof(w->res))
		return -ENAMETOOLONG;
	if (w->reslen)
		w->res[w->reslen++] = '/';
	memcpy(w->res + w->reslen, comp, cl + 1);
	w->reslen += cl;
	return 0;
}

/* Resolves everything; the final object's own (unfollowed unless follow_last) name is
 * returned in `last`, with the fd of its directory on top of the stack. */
static int walk_path(struct hwc_env *e, struct walk *w, const char *path, bool follow_last,
		     char *last, size_t lastsz)
{
	char *rest = malloc(2 * PATH_MAX);
	if (!rest)
		return -ENOMEM;
	w->fds[0] = e->root_fd;
	w->depth = 1;
	w->reslen = 0;
	w->res[0] = 0;
	last[0] = 0;
	if (e->only_input) {
		free(rest);
		return -ENOENT; /* nothing under this root is the machine under test */
	}
	if (strlen(path) >= 2 * PATH_MAX) {
		free(rest);
		return -ENAMETOOLONG;
	}
	strcpy(rest, path);
	int links = 0, rc = 0;
	char *p = rest;
	for (;;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *end = strchr(p, '/');
		size_t cl = end ? (size_t)(end - p) : strlen(p);
		char comp[NAME_MAX + 1];
		if (cl > NAME_MAX) {
			rc = -ENAMETOOLONG;
			goto out;
		}
		memcpy(comp, p, cl);
		comp[cl] = 0;
		p += cl;
		bool is_last = true;
		for (const char *q = p; *q; q++)
			if (*q != '/') {
				is_last = false;
				break;
			}
		if (strcmp(comp, ".") == 0) {
			if (is_last)
				break;
			continue;
		}
		if (strcmp(comp, "..") == 0) {
			walk_pop(w);
			if (is_last)
				break;
			continue;
		}
		int dfd = w->fds[w->depth - 1];
		struct stat st;
		if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = -errno;
			/* A missing final component is still a resolved parent: report it in `last`. */
			if (is_last && rc == -ENOENT) {
				snprintf(last, lastsz, "%s", comp);
			}
			goto out;
		}
		if (S_ISLNK(st.st_mode) && (!is_last || follow_last)) {
			if (++links > MAX_LINKS) {
				rc = -ELOOP;
				goto out;
			}
			char target[PATH_MAX];
			ssize_t tl = readlinkat(dfd, comp, target, sizeof(target) - 1);
			if (tl < 0) {
				rc = -errno;
				goto out;
			}
			target[tl] = 0;
			cap_link(e, w->res, comp, target, (size_t)tl);
			/* Splice the target in front of what is left. */
			size_t restlen = strlen(p);
			if ((size_t)tl + restlen + 2 >= 2 * PATH_MAX) {
				rc = -ENAMETOOLONG;
				goto out;
			}
			memmove(rest + tl + 1, p, restlen + 1);
			memcpy(rest, target, (size_t)tl);
			rest[tl] = '/';
			if (restlen == 0)
				rest[tl] = 0;
			p = rest;
			if (target[0] == '/')
				walk_reset(w);
			continue;
		}
		if (is_last) {
			snprintf(last, lastsz, "%s", comp);
			w->last_st = st;
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc = -ENOTDIR;
			goto out;
		}
		if (w->depth >= MAX_DEPTH) {
			rc = -ELOOP;
			goto out;
		}
		int nfd = openat(dfd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0) {
			rc = -errno;
			goto out;
		}
		w->fds[w->depth++] = nfd;
		if ((rc = res_append(w, comp)) < 0)
			goto out;
	}
out:
	free(rest);
	return rc;
}

static void walk_done(struct walk *w)
{
	for (size_t i = 1; i < w->depth; i++)
		close(w->fds[i]);
	w->depth = 0;
}

/* What a reader may open. A capture or a hostile root can hold FIFOs (an open would block for
 * ever) and device nodes (opening /dev/watchdog arms it; a tape rewinds): readers only open
 * regular files and directories, and device nodes only on the live root. */
enum open_kind {
	OPEN_META,    /* O_PATH: anything */
	OPEN_FILE,    /* a regular file to read */
	OPEN_DIR,     /* a directory to list */
	OPEN_ANY_DEV, /* hwc_env_open_path: regular files, directories, char devices when live */
};

static bool kind_allows(const struct hwc_env *e, enum open_kind kind, mode_t mode)
{
	switch (kind) {
	case OPEN_META: return true;
	case OPEN_FILE: return S_ISREG(mode);
	case OPEN_DIR: return S_ISDIR(mode);
	case OPEN_ANY_DEV: return S_ISREG(mode) || S_ISDIR(mode) || (S_ISCHR(mode) && e->live);
	}
	return false;
}

/* Resolve fully and open with flags; records the resolved path in `resolved` if given. Returns
 * -EISDIR for a directory where a file was wanted and -EINVAL for a type readers never open. */
static int open_resolved(struct hwc_env *e, const char *path, int flags, char *resolved,
			 size_t rsz, enum open_kind kind);

/* The directory part of many reads is the same (sys/bus/pci/devices/<bdf>/...): each directory is
 * resolved once, through the same confined walk, and kept as an O_PATH fd. Only a leaf that is not
 * a link is opened from it; everything else takes the general walk. Returns the fd (owned by the
 * cache) or -errno. */
/* A directory by the general walk alone, as an O_PATH fd, its resolved path in res. */
static int walk_open_dir(struct hwc_env *e, const char *path, char *res, size_t rsz)
{
	struct walk w;
	char last[NAME_MAX + 1];
	int rc = walk_path(e, &w, path, true, last, sizeof(last));
	int fd = -1;
	if (rc == 0) {
		if (!last[0])
			fd = openat(w.fds[w.depth - 1], ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		else
			fd = openat(w.fds[w.depth - 1], last,
				    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			rc = -errno;
		else if (last[0])
			rc = res_append(&w, last);
	}
	if (rc == 0)
		snprintf(res, rsz, "%s", w.res);
	else if (fd >= 0)
		close(fd);
	walk_done(&w);
	return rc < 0 ? rc : fd;
}

static int dircache_get(struct hwc_env *e, const char *dir, size_t dirlen, const char **res)
{
	for (size_t i = 0; i < DIRCACHE_N; i++) {
		struct dircache_ent *c = &e->dircache[i];
		if (c->key && strlen(c->key) == dirlen && memcmp(c->key, dir, dirlen) == 0) {
			c->use = ++e->dircache_clock;
			*res = c->res;
			return c->fd;
		}
	}
	char *key = strndup(dir, dirlen);
	if (!key)
		return -ENOMEM;
	/* Resolved the same way as any open, so through the cached parent when there is one: the
	 * recursion strips one component per level and ends at the general walk. */
	char rbuf[PATH_MAX];
	int fd;
	if (e->cache_depth >= DIRCACHE_DEPTH) {
		/* deep paths: the general walk, so the stack stays bounded */
		fd = walk_open_dir(e, key, rbuf, sizeof(rbuf));
	} else {
		e->cache_depth++;
		fd = open_resolved(e, key, O_PATH | O_DIRECTORY, rbuf, sizeof(rbuf), OPEN_META);
		e->cache_depth--;
	}
	char *r = fd >= 0 ? strdup(rbuf) : NULL;
	if (fd < 0 || !r) {
		if (fd >= 0)
			close(fd);
		free(key);
		return fd < 0 ? fd : -ENOMEM;
	}
	/* the least recently used slot, chosen after the recursion (which may have filled some) */
	struct dircache_ent *slot = &e->dircache[0];
	for (size_t i = 0; i < DIRCACHE_N; i++) {
		struct dircache_ent *c = &e->dircache[i];
		if (!c->key || (slot->key && c->use < slot->use))
			slot = c;
	}
	if (slot->key) {
		close(slot->fd);
		free(slot->key);
		free(slot->res);
	}
	*slot = (struct dircache_ent){key, r, fd, ++e->dircache_clock};
	*res = slot->res;
	return fd;
}

static int open_resolved(struct hwc_env *e, const char *path, int flags, char *resolved,
			 size_t rsz, enum open_kind kind);

/* A cached directory removed since (a device gone, a recording rewritten) answers ENOENT for
 * everything: drop it, so the general walk finds what the path names now. */
static bool dircache_drop_if_stale(struct hwc_env *e, int dfd)
{
	struct stat st;
	if (fstat(dfd, &st) == 0 && st.st_nlink > 0)
		return false;
	for (size_t i = 0; i < DIRCACHE_N; i++) {
		struct dircache_ent *c = &e->dircache[i];
		if (c->key && c->fd == dfd) {
			close(c->fd);
			free(c->key);
			free(c->res);
			memset(c, 0, sizeof(*c));
		}
	}
	return true;
}

/* Opens `leaf` in a cached directory (following it when it is a link), with the same checks as
 * the general walk below. Returns -EAGAIN when the general walk must decide. */
static int open_in_cached_dir(struct hwc_env *e, const char *path, int flags, char *resolved,
			      size_t rsz, enum open_kind kind)
{
	while (*path == '/')
		path++;
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1] || strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0)
		return -EAGAIN;
	const char *leaf = slash + 1, *dres;
	int dfd = dircache_get(e, path, (size_t)(slash - path), &dres);
	if (dfd < 0)
		return -EAGAIN;
	struct stat lst;
	if (fstatat(dfd, leaf, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT || dircache_drop_if_stale(e, dfd))
			return -EAGAIN;
		return -ENOENT;
	}
	if (S_ISLNK(lst.st_mode)) {
		/* Follow it from here: the directory is resolved, so its path joined with a relative
		 * target walks the same way the general walk would (".." stops at the root, an
		 * absolute target restarts there), and the target's directory is shared by its
		 * siblings (sys/bus/pci/devices/<bdf> -> ../../../devices/pci0000:00/...). */
		if (e->link_depth >= MAX_LINKS)
			return -ELOOP;
		char target[PATH_MAX], joined[2 * PATH_MAX];
		ssize_t tl = readlinkat(dfd, leaf, target, sizeof(target) - 1);
		if (tl < 0)
			return -EAGAIN;
		target[tl] = 0;
		cap_link(e, dres, leaf, target, (size_t)tl);
		int n = target[0] == '/' ? snprintf(joined, sizeof(joined), "%s", target)
					 : snprintf(joined, sizeof(joined), "%s%s%s", dres,
						    *dres ? "/" : "", target);
		if (n < 0 || (size_t)n >= sizeof(joined))
			return -ENAMETOOLONG;
		e->link_depth++;
		int fd = open_resolved(e, joined, flags, resolved, rsz, kind);
		e->link_depth--;
		return fd;
	}
	if (!kind_allows(e, kind, lst.st_mode))
		return S_ISDIR(lst.st_mode) ? -EISDIR : kind == OPEN_DIR ? -ENOTDIR : -EINVAL;
	int extra = (flags & O_PATH) ? 0 : O_NONBLOCK | O_NOCTTY;
	int fd = openat(dfd, leaf, flags | extra | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (kind != OPEN_META) {
		struct stat st;
		if (fstat(fd, &st) < 0 || !kind_allows(e, kind, st.st_mode) ||
		    st.st_ino != lst.st_ino || st.st_dev != lst.st_dev) {
			close(fd);
			return -EINVAL;
		}
		/* back to blocking (a device opened for ioctls expects it); a regular file's reads
		 * never block, so it is left alone */
		if (extra && !S_ISREG(st.st_mode))
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	}
	if (resolved) {
		int n = snprintf(resolved, rsz, "%s%s%s", dres, *dres ? "/" : "", leaf);
		if (n < 0 || (size_t)n >= rsz || (size_t)n >= PATH_MAX) {
			/* refused, never kept under a cut name */
			close(fd);
			return -ENAMETOOLONG;
		}
	}
	return fd;
}

static int open_resolved(struct hwc_env *e, const char *path, int flags, char *resolved,
			 size_t rsz, enum open_kind kind)
{
	int fast = open_in_cached_dir(e, path, flags, resolved, rsz, kind);
	if (fast != -EAGAIN)
		return fast;
	struct walk w;
	char last[NAME_MAX + 1];
	int rc = walk_path(e, &w, path, true, last, sizeof(last));
	if (rc < 0) {
		walk_done(&w);
		return rc;
	}
	if (last[0] && !kind_allows(e, kind, w.last_st.st_mode)) {
		walk_done(&w);
		return S_ISDIR(w.last_st.st_mode) ? -EISDIR
		       : kind == OPEN_DIR	   ? -ENOTDIR
						   : -EINVAL;
	}
	/* O_NONBLOCK: should the object be swapped for a FIFO after the check, the open still
	 * returns at once; the fstat below then refuses it. */
	int extra = (flags & O_PATH) ? 0 : O_NONBLOCK | O_NOCTTY;
	int fd;
	if (!last[0])
		fd = openat(w.fds[w.depth - 1], ".", flags | extra | O_CLOEXEC);
	else
		fd = openat(w.fds[w.depth - 1], last, flags | extra | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	if (fd >= 0 && kind != OPEN_META) {
		struct stat st;
		if (fstat(fd, &st) < 0 || !kind_allows(e, kind, st.st_mode) ||
		    (last[0] && (st.st_ino != w.last_st.st_ino || st.st_dev != w.last_st.st_dev))) {
			close(fd);
			fd = -EINVAL;
		} else if (extra && !S_ISREG(st.st_mode)) {
			/* back to blocking reads (a device opened for ioctls expects them) */
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		}
	}
	if (fd >= 0 && resolved) {
		/* a resolved path over PATH_MAX is refused, never kept under a cut name */
		if (last[0] && res_append(&w, last) < 0) {
			close(fd);
			fd = -ENAMETOOLONG;
		} else {
			snprintf(resolved, rsz, "%s", w.res);
		}
	}
	walk_done(&w);
	return fd;
}

int hwc_env_open_path(struct hwc_env *e, const char *path)
{
	return open_resolved(e, path, O_RDONLY, NULL, 0, OPEN_ANY_DEV);
}

int hwc_env_realpath(struct hwc_env *e, const char *path, struct hwc_arena *a, const char **out)
{
	char res[PATH_MAX];
	int fd = open_resolved(e, path, O_PATH, res, sizeof(res), OPEN_META);
	if (fd < 0)
		return fd;
	close(fd);
	const char *s = hwc_arena_strdup(a, res);
	if (!s)
		return -ENOMEM;
	*out = s;
	return 0;
}

/* readlink of a plain leaf in a cached directory; -EAGAIN when the general walk must decide. */
static int readlink_in_cached_dir(struct hwc_env *e, const char *path, struct hwc_arena *a,
				  const char **out)
{
	while (*path == '/')
		path++;
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1] || strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0)
		return -EAGAIN;
	const char *leaf = slash + 1, *dres;
	int dfd = dircache_get(e, path, (size_t)(slash - path), &dres);
	if (dfd < 0)
		return -EAGAIN;
	char target[PATH_MAX];
	ssize_t tl = readlinkat(dfd, leaf, target, sizeof(target) - 1);
	if (tl < 0) {
		int err = errno;
		if (err == ENOENT && dircache_drop_if_stale(e, dfd))
			return -EAGAIN;
		return err == ENOENT || err == EINVAL ? -err : -EAGAIN;
	}
	target[tl] = 0;
	cap_link(e, dres, leaf, target, (size_t)tl);
	*out = hwc_arena_strdup(a, target);
	return *out ? 0 : -ENOMEM;
}

int hwc_env_readlink(struct hwc_env *e, const char *path, struct hwc_arena *a, const char **out)
{
	int fast = readlink_in_cached_dir(e, path, a, out);
	if (fast != -EAGAIN)
		return fast;
	struct walk w;
	char last[NAME_MAX + 1];
	int rc = walk_path(e, &w, path, false, last, sizeof(last));
	if (rc < 0)
		goto done;
	if (!last[0]) {
		rc = -EINVAL;
		goto done;
	}
	char target[PATH_MAX];
	ssize_t tl = readlinkat(w.fds[w.depth - 1], last, target, sizeof(target) - 1);
	if (tl < 0) {
		rc = -errno;
		goto done;
	}
	target[tl] = 0;
	if (e->record) {
		if ((rc = res_append(&w, last)) < 0)
			goto done; /* not captured under a cut name */
		cap_put(e, HWC_CAP_LINK, w.res, target, (size_t)tl);
	}
	*out = hwc_arena_strdup(a, target);
	rc = *out ? 0 : -ENOMEM;
done:
	walk_done(&w);
	return rc;
}

int hwc_env_access(struct hwc_env *e, const char *path)
{
	int fd = open_resolved(e, path, O_PATH, NULL, 0, OPEN_META);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

bool hwc_env_is_dir(struct hwc_env *e, const char *path)
{
	int fd = open_resolved(e, path, O_PATH | O_DIRECTORY, NULL, 0, OPEN_META);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Keeps the shape of a listed directory: links, subdirectories, and the names of regular files
 * (empty until read: a collector that uses only the names, like msi_irqs/<irq>, replays the
 * same). */
static void cap_listed(struct hwc_env *e, DIR *d, const char *res, const struct dirent *de)
{
	char ep[PATH_MAX];
	int k = snprintf(ep, sizeof(ep), "%s%s%s", res, *res ? "/" : "", de->d_name);
	if (k <= 0 || (size_t)k >= sizeof(ep))
		return;
	unsigned char type = de->d_type;
	struct stat st;
	if (type == DT_UNKNOWN && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK
						  : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
	if (type == DT_DIR) {
		cap_put(e, HWC_CAP_DIR, ep, NULL, 0);
	} else if (type == DT_LNK) {
		char target[PATH_MAX];
		ssize_t tl = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (tl >= 0)
			cap_put(e, HWC_CAP_LINK, ep, target, (size_t)tl);
	} else if (type == DT_REG) {
		struct cap_entry *s = cap_slot(e, ep);
		if (s && !s->path && (s->path = strdup(ep))) {
			s->kind = HWC_CAP_FILE;
			s->listed = true;
			e->ncaps++;
		}
	}
}

int hwc_env_list_dir(struct hwc_env *e, const char *path, struct hwc_arena *a,
		     struct hwc_dirlist *out)
{
	char res[PATH_MAX];
	int fd = open_resolved(e, path, O_RDONLY | O_DIRECTORY, res, sizeof(res), OPEN_DIR);
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
	if (e->record)
		cap_put(e, HWC_CAP_DIR, res, NULL, 0);
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
		if (e->record)
			cap_listed(e, d, res, de);
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

/* ------------------------------------------------------------------ readers */

void hwc_env_fail(struct hwc_env *e, struct hwc_fmeta *m, struct hwc_arena *a, const char *path,
		  int err)
{
	if (err < 0)
		err = -err;
	enum hwc_status st = HWC_ST_UNREADABLE;
	const char *why = strerror(err);
	if (err == ENOENT || err == ENOTDIR || err == ENODEV || err == ENXIO)
		st = HWC_ST_ABSENT;
	else if ((err == EACCES || err == EPERM) && !(e->live ? e->is_root_user : true))
		st = HWC_ST_NEEDS_ROOT;
	else if (err == ELOOP)
		why = "too many symbolic links (or a loop) under the root";
	while (*path == '/')
		path++;
	if (e->only_input)
		why = hwc_arena_printf(a, "not in %s", e->only_input);
	hwc_fmeta_set(m, st, st == HWC_ST_UNREADABLE ? err : 0,
		      hwc_arena_printf(a, "/%s: %s", path, why));
}

/* Read an open fd whole (up to cap) into the arena; closes fd. `path` names it in details,
 * `res` (resolved, root-relative) in captures. */
static int read_fd(struct hwc_env *e, int fd, const char *path, const char *res, size_t cap,
		   struct hwc_arena *a, const unsigned char **data, size_t *len, struct hwc_fmeta *m)
{
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
				ssize_t r = read(fd, &one, 1);
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
		ssize_t r = read(fd, tmp + got, tcap - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int err = errno;
			close(fd);
			if (tmp != stackbuf)
				free(tmp);
			/* sysfs config beyond 64 bytes as non-root reads short, not EACCES. EIO from a
			 * sysfs attribute means the device could not answer. */
			hwc_env_fail(e, m, a, path, err);
			return -err;
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
	if (e->record)
		cap_put(e, HWC_CAP_FILE, res, buf, got);
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
	int fd = open_resolved(e, path, O_RDONLY, res, sizeof(res), OPEN_FILE);
	if (fd == -EINVAL)
		return not_regular(m, a, path);
	if (fd < 0) {
		hwc_env_fail(e, m, a, path, fd);
		return fd;
	}
	return read_fd(e, fd, path, res, cap, a, data, len, m);
}

/* ---- a directory resolved once ------------------------------------------------------- */

int hwc_env_dir_open(struct hwc_env *e, const char *path, struct hwc_arena *a,
		     struct hwc_env_dir *out)
{
	char res[PATH_MAX];
	out->fd = -1;
	out->path = NULL;
	int fd = open_resolved(e, path, O_RDONLY | O_DIRECTORY, res, sizeof(res), OPEN_DIR);
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
	if (!plain_leaf(leaf))
		return hwc_read_bytes(e, path, cap, a, data, len, m);
	/* O_NONBLOCK so a FIFO planted in a capture cannot block the open; fstat then refuses
	 * anything but a regular file (as hwc_read_bytes does). */
	int fd = openat(d->fd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int err = errno;
		if (err == ELOOP) /* the leaf is a link: resolve it inside the root */
			return hwc_read_bytes(e, path, cap, a, data, len, m);
		hwc_env_fail(e, m, a, path, err);
		return -err;
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
	if (e->record)
		cap_put(e, HWC_CAP_LINK, path, target, (size_t)tl);
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

/* Base 0 means decimal, or hex after 0x: never octal, so "010" from a sysfs file is ten, not
 * eight. */
static int effective_base(const char *s, int base)
{
	if (base != 0)
		return base;
	if (*s == '+' || *s == '-')
		s++;
	return (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
}

int hwc_parse_i64(const char *s, int base, int64_t *out)
{
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -EINVAL;
	base = effective_base(s, base);
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int hwc_parse_u64(const char *s, int base, uint64_t *out)
{
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '-')
		return -EINVAL;
	base = effective_base(s, base);
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s)
		return -EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
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

int hwc_read_i64(struct hwc_env *e, const char *path, struct hwc_arena *a, struct hwc_fi64 *out)
{
	struct hwc_fstr s = {0};
	int rc = hwc_read_str(e, path, a, &s);
	if (rc < 0) {
		out->m = s.m;
		return rc;
	}
	int64_t v;
	if (hwc_parse_i64(s.v, 0, &v) < 0) {
		invalid(&out->m, a, path, "an integer", s.v);
		return -EINVAL;
	}
	HWC_SET(*out, v);
	return 0;
}

int hwc_read_hex(struct hwc_env *e, const char *path, struct hwc_arena *a, struct hwc_fu64 *out)
{
	struct hwc_fstr s = {0};
	int rc = hwc_read_str(e, path, a, &s);
	if (rc < 0) {
		out->m = s.m;
		return rc;
	}
	const char *p = s.v;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	uint64_t v;
	if (!*p || hwc_parse_u64(p, 16, &v) < 0 || strchr(p, 'x') || strchr(p, '+')) {
		invalid(&out->m, a, path, "a hexadecimal number", s.v);
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

