/* SPDX-License-Identifier: MIT */
/* Inside core/: the environment shared by env.c (the root and its options), resolve.c (paths
 * inside the root), read.c (readers that say why) and capture.c (what a recording run keeps). */
#ifndef HWC_CORE_ENV_INT_H
#define HWC_CORE_ENV_INT_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/env.h"

#define ENV_MAX_LINKS 40
#define ENV_DIRCACHE_N 64

struct hwc_env {
	char *root;
	int root_fd;
	bool live, is_root_user, no_tools;
	struct hwc_capture_sink *sink; /* recording: where every read goes; NULL otherwise */
	const char *only_input;
	enum hwc_run_mode mode;
	unsigned cmd_timeout_ms;
	bool cmd_timeout_given; /* --cmd-timeout: kept for every tool */
	size_t cmd_output_cap;
	struct timespec deadline;
	bool has_deadline;
	unsigned sample; /* hwc_env_set_sample: 0 = the main collection */
	/* directories already resolved inside the root (resolve.c) */
	struct env_dircache_ent {
		char *key; /* the directory as asked for, unresolved */
		char *res; /* resolved, root-relative */
		int fd;    /* O_PATH */
		unsigned long use;
	} dircache[ENV_DIRCACHE_N];
	unsigned long dircache_clock;
	int link_depth;  /* links followed by open_in_cached_dir in the current open */
	int cache_depth; /* directories being resolved through their cached parents */
	/* a capture's HWC_UNREADABLE_LIST (marks.c), loaded at the first read of a replay */
	struct env_mark {
		char *path; /* root-relative, as the capture wrote it */
		int err;
		enum hwc_status st;
	} *marks;
	size_t nmarks;
	bool marks_loaded;
};

/* What a reader may open. A capture or a hostile root can hold FIFOs (an open would block for
 * ever) and device nodes (opening /dev/watchdog arms it; a tape rewinds): readers only open
 * regular files and directories, and device nodes only on the live root. */
enum env_open_kind {
	OPEN_META,    /* O_PATH: anything */
	OPEN_FILE,    /* a regular file to read */
	OPEN_DIR,     /* a directory to list */
	OPEN_ANY_DEV, /* hwc_env_open_path: regular files, directories, char devices when live */
};

/* resolve.c: resolve `path` fully inside the root and open it with flags; the resolved,
 * root-relative path goes to `resolved` if given (also when the object was found but its own open
 * failed, EACCES..., and where a missing last component of a resolved directory would be; empty
 * after any other failure). Returns an fd, -EISDIR for a directory where
 * a file was wanted, -EINVAL for a type readers never open, or another -errno. */
int env_open_resolved(struct hwc_env *e, const char *path, int flags, char *resolved, size_t rsz,
		      enum env_open_kind kind);
/* capture.c: where sample e->sample keeps root-relative path p ("hwcheck/..." -> HWC_WATCH_DIR
 * "/<n>/...", anything else -> HWC_WATCH_DIR "/<n>/files/<p>") into buf; p itself for the main
 * collection or a path already in a sample's place. NULL when it does not fit. */
const char *env_sample_path(const struct hwc_env *e, const char *p, char *buf, size_t n);
/* resolve.c: env_open_resolved in the capture's own shape, whatever sample is set: what the
 * directory cache, links followed and the capture's own lists (marks.c) resolve with, so that a
 * sample's place never stands for a directory of the machine. */
int env_open_unmapped(struct hwc_env *e, const char *path, int flags, char *resolved, size_t rsz,
		      enum env_open_kind kind);
/* resolve.c: closes the cached directories. */
void env_dircache_free(struct hwc_env *e);

/* capture.c: hand what was read to the sink when recording (no-ops otherwise). */
void env_cap_put(struct hwc_env *e, enum hwc_capture_kind kind, const char *path,
		 const void *data, size_t len);
/* A link crossed at dir/leaf (dir resolved, root-relative). */
void env_cap_link(struct hwc_env *e, const char *dir, const char *leaf, const char *target,
		  size_t tl);
/* An entry of a listed directory `res`: its links, subdirectories and the names of its files. */
void env_cap_listed(struct hwc_env *e, DIR *d, const char *res, const struct dirent *de);
/* A file at `res` (resolved, root-relative) that exists but whose open or read failed with err,
 * which gave the status st: kept as such (HWC_CAP_UNREADABLE), unless err says it does not exist
 * or is about this run (ENOMEM). */
void env_cap_unreadable(struct hwc_env *e, const char *res, int err, enum hwc_status st);

/* marks.c: in a replay, whether the capture marked `res` unreadable, and how (*err, *st). */
bool env_mark_find(struct hwc_env *e, const char *res, int *err, enum hwc_status *st);
void env_marks_free(struct hwc_env *e);

#endif
