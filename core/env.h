/* SPDX-License-Identifier: MIT */
/* The one door to the world: a root directory every read goes through, never escaping it. */
#ifndef HWC_CORE_ENV_H
#define HWC_CORE_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/fact.h"
#include "core/parse.h"

struct hwc_env;
struct hwc_capture_sink;

/* How external commands and ioctls are served. */
enum hwc_run_mode {
	HWC_RUN_AUTO = 0, /* exec on the live root "/", replay on any other root */
	HWC_RUN_EXEC,     /* run the real tools */
	HWC_RUN_REPLAY,   /* serve recordings from <root>/hwcheck/commands */
};

struct hwc_env_opts {
	const char *root;        /* NULL or "/" = the live machine */
	enum hwc_run_mode mode;
	unsigned cmd_timeout_ms; /* default per external command; 0 = 10000 */
	size_t cmd_output_cap;   /* bytes per stream; 0 = 8 MiB */
	unsigned total_timeout_ms; /* whole run (--timeout); 0 = none */
	bool no_tools;           /* never run external tools (statuses say "blocked") */
	/* Recording (snapshot): every read and command output goes there; NULL = not recording. */
	struct hwc_capture_sink *record;
	/* The input holds nothing but what this names (e.g. --pci-dump alone: "the --pci-dump
	 * file"): every path is absent and every command unrecorded, and the statuses say so;
	 * nothing of the machine running hwcheck is read. */
	const char *only_input;
};

/* Opens the root. Returns 0 or -errno (-ENOENT, -ENOTDIR, -EACCES...). */
int hwc_env_open(const struct hwc_env_opts *opts, struct hwc_env **out);
void hwc_env_free(struct hwc_env *e);

bool hwc_env_is_live(const struct hwc_env *e);
enum hwc_run_mode hwc_env_mode(const struct hwc_env *e); /* never AUTO */
bool hwc_env_is_root_user(const struct hwc_env *e);     /* euid 0 (live) */
bool hwc_env_no_tools(const struct hwc_env *e);
const char *hwc_env_only_input(const struct hwc_env *e); /* NULL unless opts.only_input */
const char *hwc_env_root(const struct hwc_env *e);       /* the root's real path */
unsigned hwc_env_cmd_timeout_ms(const struct hwc_env *e);
/* The per-command timeout of a tool known to take longer than the default: floor_ms when the run
 * has the default (no --cmd-timeout) and floor_ms is above it; a --cmd-timeout given is kept. */
unsigned hwc_env_cmd_timeout_at_least_ms(const struct hwc_env *e, unsigned floor_ms);
size_t hwc_env_cmd_output_cap(const struct hwc_env *e);
/* Milliseconds left of the whole-run budget, UINT32_MAX when unbounded. */
unsigned hwc_env_time_left_ms(const struct hwc_env *e);

/* ---- samples (--watch) -------------------------------------------------------------------
 * The main collection is sample 0: its reads and commands are where they always were. While a
 * sample n > 0 is set, the counters read again for --watch are kept apart: recorded at, and
 * replayed from, HWC_WATCH_DIR "/<n>/files/<the path, resolved inside the root>" for a file and
 * HWC_WATCH_DIR "/<n>/commands/<key>" for a command (or ethtool query), beside the main
 * collection's. Links and directories are the machine's shape, shared by every sample. On the
 * live root the files are read where they are (and recorded in the sample's place); on a capture
 * they are read from the sample's place only, so a capture without the sample answers "absent"
 * and never the main collection's value. */
#define HWC_WATCH_DIR "hwcheck/watch"
#define HWC_WATCH_MAX_SAMPLES 9
void hwc_env_set_sample(struct hwc_env *e, unsigned n); /* 0: back to the main collection */
unsigned hwc_env_sample(const struct hwc_env *e);

/* ---- paths ---------------------------------------------------------------------------------
 * Paths are relative to the root ("sys/class/net" or "/sys/class/net": same thing). Symbolic
 * links are followed *inside* the root: an absolute target restarts at the root and ".." stops at
 * it, the way a chroot resolves them. More than 40 links is -ELOOP. */

/* Open a file for reading (O_RDONLY|O_CLOEXEC). Returns an fd or -errno; FIFOs, sockets and block
 * devices are refused (-EINVAL), character devices too unless the root is the live "/". */
int hwc_env_open_path(struct hwc_env *e, const char *path);
/* The path with every link resolved, relative to the root, no leading '/'. */
int hwc_env_realpath(struct hwc_env *e, const char *path, struct hwc_arena *a, const char **out);
/* Target of a symbolic link as stored (not resolved). -EINVAL if not a link. */
int hwc_env_readlink(struct hwc_env *e, const char *path, struct hwc_arena *a, const char **out);
/* 0 if it exists (after links), else -errno. */
int hwc_env_access(struct hwc_env *e, const char *path);
bool hwc_env_is_dir(struct hwc_env *e, const char *path);

/* Sorted entry names of a directory, "." and ".." excluded. A file named HWC_KEEP_FILE is skipped
 * too: fixtures kept in git use it to hold directories that were empty on the captured machine
 * (git stores no empty directory). */
#define HWC_KEEP_FILE ".hwcheck-keep"
struct hwc_dirlist {
	const char **names;
	size_t n;
};
int hwc_env_list_dir(struct hwc_env *e, const char *path, struct hwc_arena *a,
		     struct hwc_dirlist *out);
/* Keeps the entries of dl named prefix and a decimal number ("cpu12", "3"), in their order or,
 * by_number, in the order of their numbers ("2" before "10"). Returns their numbers, [i] that of
 * dl->names[i] (NULL when none is kept, or without memory: then dl->n is 0). */
int64_t *hwc_dirlist_numbered(struct hwc_dirlist *dl, const char *prefix, bool by_number,
			      struct hwc_arena *a);

/* ---- readers that say why -------------------------------------------------------------------
 * Each fills a fact: ok with the value, or the status (absent / needs_root / unreadable errno /
 * truncated / invalid) with a detail that names the path. They return 0 when the fact is ok and a
 * negative errno otherwise, so callers may ignore the return value. */

/* Whole file as bytes, up to cap; larger is HWC_ST_TRUNCATED (the first cap bytes are kept).
 * Only regular files are opened: anything else is HWC_ST_INVALID, never a blocking open. */
int hwc_read_bytes(struct hwc_env *e, const char *path, size_t cap, struct hwc_arena *a,
		   const unsigned char **data, size_t *len, struct hwc_fmeta *m);
/* Text, trailing whitespace removed (sysfs values end in '\n'). */
int hwc_read_str(struct hwc_env *e, const char *path, struct hwc_arena *a, struct hwc_fstr *out);
/* Integer: decimal, or hex with 0x prefix, optional sign; "-1" is a value, not an error. */
int hwc_read_i64(struct hwc_env *e, const char *path, struct hwc_arena *a, struct hwc_fi64 *out);
/* Hex with or without 0x ("0x15b3" or "15b3"). */
int hwc_read_hex(struct hwc_env *e, const char *path, struct hwc_arena *a, struct hwc_fu64 *out);
/* Basename of a link's target (driver -> ../../bus/pci/drivers/mlx5_core gives "mlx5_core"). */
int hwc_read_link_name(struct hwc_env *e, const char *path, struct hwc_arena *a,
		       struct hwc_fstr *out);

/* A directory resolved once inside the root, for collectors that read many attributes of one
 * sysfs directory (a 1,000-function host): each file directly in it is then one openat() with
 * O_NOFOLLOW instead of a walk from the root. A leaf that is a link, or holds a '/', is read the
 * general way (resolved inside the root). Reads are recorded for snapshots like the others. */
struct hwc_env_dir {
	int fd;
	const char *path; /* resolved, root-relative (arena string) */
};
int hwc_env_dir_open(struct hwc_env *e, const char *path, struct hwc_arena *a,
		     struct hwc_env_dir *out);
void hwc_env_dir_close(struct hwc_env_dir *d);
int hwc_read_bytes_at(struct hwc_env *e, const struct hwc_env_dir *d, const char *leaf, size_t cap,
		      struct hwc_arena *a, const unsigned char **data, size_t *len,
		      struct hwc_fmeta *m);
int hwc_read_link_name_at(struct hwc_env *e, const struct hwc_env_dir *d, const char *leaf,
			  struct hwc_arena *a, struct hwc_fstr *out);

/* Map a failed open/read to a fact status (ENOENT -> absent, EACCES as non-root -> needs_root). */
void hwc_env_fail(struct hwc_env *e, struct hwc_fmeta *m, struct hwc_arena *a, const char *path,
		  int err);

/* ---- capture (snapshot) --------------------------------------------------------------------
 * In record mode every file read, every link crossed, every directory listed and every command
 * run goes to the sink (snapshot/'s capture set), so the capture replays to the same facts. */
enum hwc_capture_kind {
	HWC_CAP_FILE,
	HWC_CAP_LINK,
	HWC_CAP_DIR,
	/* A file that exists but whose open or read failed (EACCES as non-root, EIO from a device
	 * that did not answer): data is "<errno> <status>" ("13 needs_root"), the status the
	 * run gave. Written as an empty file plus its line in HWC_UNREADABLE_LIST. */
	HWC_CAP_UNREADABLE,
};
struct hwc_capture_sink {
	/* A file's bytes, a link's target, or a directory (no data); path root-relative, not
	 * empty. Called again for the same path: the first content is what the collectors used. */
	void (*put)(struct hwc_capture_sink *s, enum hwc_capture_kind kind, const char *path,
		    const void *data, size_t len);
	/* A regular file seen in a directory listing, perhaps never read: its name is kept (empty
	 * content) and a later put() of it fills it. */
	void (*listed)(struct hwc_capture_sink *s, const char *path);
};
bool hwc_env_recording(const struct hwc_env *e);

/* The capture's list of files that existed but could not be read, one line each:
 * "<errno> <status> <path>" ("13 needs_root sys/bus/pci/devices/0000:3b:00.0/vpd"; status
 * needs_root, unreadable or absent; path root-relative, to the end of the line). A replayed read of
 * such a path fails with that errno and status, as the captured run's did; a capture without the
 * list replays as before. */
#define HWC_UNREADABLE_LIST "hwcheck/unreadable"
/* One line of the list (without its '\n'): 0 and its fields (*path points into line, *plen
 * bytes), or -EINVAL for anything else (a '#' comment, an errno out of 1..4095, another status,
 * an empty path or one with a control character). */
int hwc_unreadable_line(const char *line, size_t len, int *err, enum hwc_status *st,
			const char **path, size_t *plen);
/* Keep an arbitrary blob (ioctl answers) at a root-relative path. */
int hwc_env_capture_blob(struct hwc_env *e, const char *path, const void *data, size_t len);

#endif
