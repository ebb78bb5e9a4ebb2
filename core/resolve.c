/* SPDX-License-Identifier: MIT */
/* Paths inside the root: resolved component by component with O_PATH|O_NOFOLLOW, symbolic links
 * followed inside the root (an absolute target restarts at it, ".." stops at it), directories
 * resolved once and cached; every link crossed is handed to the capture when recording. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env_int.h"

#define MAX_DEPTH 256
#define DIRCACHE_DEPTH 8

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
			if (++links > ENV_MAX_LINKS) {
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
			env_cap_link(e, w->res, comp, target, (size_t)tl);
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

static bool kind_allows(const struct hwc_env *e, enum env_open_kind kind, mode_t mode)
{
	switch (kind) {
	case OPEN_META: return true;
	case OPEN_FILE: return S_ISREG(mode);
	case OPEN_DIR: return S_ISDIR(mode);
	case OPEN_ANY_DEV: return S_ISREG(mode) || S_ISDIR(mode) || (S_ISCHR(mode) && e->live);
	}
	return false;
}


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
	for (size_t i = 0; i < ENV_DIRCACHE_N; i++) {
		struct env_dircache_ent *c = &e->dircache[i];
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
		fd = env_open_unmapped(e, key, O_PATH | O_DIRECTORY, rbuf, sizeof(rbuf), OPEN_META);
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
	struct env_dircache_ent *slot = &e->dircache[0];
	for (size_t i = 0; i < ENV_DIRCACHE_N; i++) {
		struct env_dircache_ent *c = &e->dircache[i];
		if (!c->key || (slot->key && c->use < slot->use))
			slot = c;
	}
	if (slot->key) {
		close(slot->fd);
		free(slot->key);
		free(slot->res);
	}
	*slot = (struct env_dircache_ent){key, r, fd, ++e->dircache_clock};
	*res = slot->res;
	return fd;
}

/* A cached directory removed since (a device gone, a recording rewritten) answers ENOENT for
 * everything: drop it, so the general walk finds what the path names now. */
static bool dircache_drop_if_stale(struct hwc_env *e, int dfd)
{
	struct stat st;
	if (fstat(dfd, &st) == 0 && st.st_nlink > 0)
		return false;
	for (size_t i = 0; i < ENV_DIRCACHE_N; i++) {
		struct env_dircache_ent *c = &e->dircache[i];
		if (c->key && c->fd == dfd) {
			close(c->fd);
			free(c->key);
			free(c->res);
			memset(c, 0, sizeof(*c));
		}
	}
	return true;
}

/* The cached directory of a path's last component (a plain name: not "." or ".."), and that
 * name; -EAGAIN when the general walk must decide. */
static int cached_parent(struct hwc_env *e, const char *path, const char **leaf, const char **dres)
{
	while (*path == '/')
		path++;
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1] || strcmp(slash + 1, ".") == 0 || strcmp(slash + 1, "..") == 0)
		return -EAGAIN;
	*leaf = slash + 1;
	return dircache_get(e, path, (size_t)(slash - path), dres);
}

/* dir/leaf into resolved (when asked for), or nothing: never a cut name. */
static void name_in(char *resolved, size_t rsz, const char *dir, const char *leaf)
{
	if (!resolved)
		return;
	int n = snprintf(resolved, rsz, "%s%s%s", dir, *dir ? "/" : "", leaf);
	if (n < 0 || (size_t)n >= rsz || (size_t)n >= PATH_MAX)
		resolved[0] = 0;
}

/* Opens `leaf` in a cached directory (following it when it is a link), with the same checks as
 * the general walk below. Returns -EAGAIN when the general walk must decide. */
static int open_in_cached_dir(struct hwc_env *e, const char *path, int flags, char *resolved,
			      size_t rsz, enum env_open_kind kind)
{
	const char *leaf, *dres;
	int dfd = cached_parent(e, path, &leaf, &dres);
	if (dfd < 0)
		return -EAGAIN;
	struct stat lst;
	if (fstatat(dfd, leaf, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT || dircache_drop_if_stale(e, dfd))
			return -EAGAIN;
		name_in(resolved, rsz, dres, leaf); /* where it would be: a replay's mark may name it */
		return -ENOENT;
	}
	if (S_ISLNK(lst.st_mode)) {
		/* Follow it from here: the directory is resolved, so its path joined with a relative
		 * target walks the same way the general walk would (".." stops at the root, an
		 * absolute target restarts there), and the target's directory is shared by its
		 * siblings (sys/bus/pci/devices/<bdf> -> ../../../devices/pci0000:00/...). */
		if (e->link_depth >= ENV_MAX_LINKS)
			return -ELOOP;
		char target[PATH_MAX], joined[2 * PATH_MAX];
		ssize_t tl = readlinkat(dfd, leaf, target, sizeof(target) - 1);
		if (tl < 0)
			return -EAGAIN;
		target[tl] = 0;
		env_cap_link(e, dres, leaf, target, (size_t)tl);
		int n = target[0] == '/' ? snprintf(joined, sizeof(joined), "%s", target)
					 : snprintf(joined, sizeof(joined), "%s%s%s", dres,
						    *dres ? "/" : "", target);
		if (n < 0 || (size_t)n >= sizeof(joined))
			return -ENAMETOOLONG;
		e->link_depth++;
		int fd = env_open_unmapped(e, joined, flags, resolved, rsz, kind);
		e->link_depth--;
		return fd;
	}
	if (!kind_allows(e, kind, lst.st_mode))
		return S_ISDIR(lst.st_mode) ? -EISDIR : kind == OPEN_DIR ? -ENOTDIR : -EINVAL;
	int extra = (flags & O_PATH) ? 0 : O_NONBLOCK | O_NOCTTY;
	int fd = openat(dfd, leaf, flags | extra | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		name_in(resolved, rsz, dres, leaf); /* it exists: for a capture's mark */
		return -err;
	}
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

int env_open_unmapped(struct hwc_env *e, const char *path, int flags, char *resolved, size_t rsz,
		      enum env_open_kind kind)
{
	if (resolved && rsz)
		resolved[0] = 0;
	int fast = open_in_cached_dir(e, path, flags, resolved, rsz, kind);
	if (fast != -EAGAIN)
		return fast;
	struct walk w;
	char last[NAME_MAX + 1];
	int rc = walk_path(e, &w, path, true, last, sizeof(last));
	if (rc < 0) {
		/* a missing last component of a resolved directory: where it would be */
		if (rc == -ENOENT && last[0] && res_append(&w, last) == 0)
			name_in(resolved, rsz, "", w.res);
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
	if (fd < 0) {
		fd = -errno;
		/* the object exists but would not open: named, for a capture's mark */
		if (!last[0] || res_append(&w, last) == 0)
			name_in(resolved, rsz, "", w.res);
	}
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

/* A capture read for a sample (hwc_env_set_sample): the path resolved in the machine's shape,
 * then opened in the sample's place; `resolved` names that place. */
static int open_sample(struct hwc_env *e, const char *path, int flags, char *resolved, size_t rsz,
		       enum env_open_kind kind)
{
	char res[PATH_MAX], buf[PATH_MAX];
	while (*path == '/')
		path++;
	const char *at = path;
	if (strncmp(path, "hwcheck/", 8) != 0) {
		/* not on the captured machine at all: the main collection's answer */
		int fd = env_open_unmapped(e, path, O_PATH, res, sizeof(res), OPEN_META);
		if (fd < 0) {
			if (resolved && rsz)
				snprintf(resolved, rsz, "%s", res);
			return fd;
		}
		close(fd);
		at = res;
	}
	const char *sp = env_sample_path(e, at, buf, sizeof(buf));
	if (!sp)
		return -ENAMETOOLONG;
	int fd = env_open_unmapped(e, sp, flags, resolved, rsz, kind);
	if (fd == -ENOENT && resolved && rsz)
		snprintf(resolved, rsz, "%s", sp); /* named for the reader's "not in this sample" */
	return fd;
}

int env_open_resolved(struct hwc_env *e, const char *path, int flags, char *resolved, size_t rsz,
		      enum env_open_kind kind)
{
	/* a capture's sample; under --exec-tools on a mounted root (not live, not a replay) the
	 * machine's files are read as they are now, its recordings still from the sample's place */
	const char *p = path + strspn(path, "/");
	if (e->sample && (e->mode == HWC_RUN_REPLAY || (!e->live && strncmp(p, "hwcheck/", 8) == 0)))
		return open_sample(e, path, flags, resolved, rsz, kind);
	return env_open_unmapped(e, path, flags, resolved, rsz, kind);
}

int hwc_env_open_path(struct hwc_env *e, const char *path)
{
	return env_open_resolved(e, path, O_RDONLY, NULL, 0, OPEN_ANY_DEV);
}

int hwc_env_realpath(struct hwc_env *e, const char *path, struct hwc_arena *a, const char **out)
{
	char res[PATH_MAX];
	int fd = env_open_resolved(e, path, O_PATH, res, sizeof(res), OPEN_META);
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
	const char *leaf, *dres;
	int dfd = cached_parent(e, path, &leaf, &dres);
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
	env_cap_link(e, dres, leaf, target, (size_t)tl);
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
	if (hwc_env_recording(e)) {
		if ((rc = res_append(&w, last)) < 0)
			goto done; /* not captured under a cut name */
		env_cap_put(e, HWC_CAP_LINK, w.res, target, (size_t)tl);
	}
	*out = hwc_arena_strdup(a, target);
	rc = *out ? 0 : -ENOMEM;
done:
	walk_done(&w);
	return rc;
}

int hwc_env_access(struct hwc_env *e, const char *path)
{
	int fd = env_open_resolved(e, path, O_PATH, NULL, 0, OPEN_META);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

bool hwc_env_is_dir(struct hwc_env *e, const char *path)
{
	int fd = env_open_resolved(e, path, O_PATH | O_DIRECTORY, NULL, 0, OPEN_META);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

void env_dircache_free(struct hwc_env *e)
{
	for (size_t i = 0; i < ENV_DIRCACHE_N; i++) {
		if (e->dircache[i].key) {
			close(e->dircache[i].fd);
			free(e->dircache[i].key);
			free(e->dircache[i].res);
		}
	}
}
