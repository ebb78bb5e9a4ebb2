/* SPDX-License-Identifier: MIT */
/* What a recording run keeps: every file read, link crossed and directory listed goes to the
 * capture sink the run was opened with (snapshot/ keeps them and writes the tar). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env_int.h"

const char *env_sample_path(const struct hwc_env *e, const char *p, char *buf, size_t n)
{
	static const char watch[] = HWC_WATCH_DIR "/";
	while (*p == '/')
		p++;
	if (!e->sample || strncmp(p, watch, sizeof(watch) - 1) == 0)
		return p;
	bool own = strncmp(p, "hwcheck/", 8) == 0; /* a recording, not a file of the machine */
	int k = snprintf(buf, n, "%s%u/%s%s", watch, e->sample, own ? "" : "files/", own ? p + 8 : p);
	return k > 0 && (size_t)k < n ? buf : NULL;
}

/* A file's content (or its unreadable mark) goes to the sample's place; links and directories
 * are the machine's shape, the same in every sample. */
void env_cap_put(struct hwc_env *e, enum hwc_capture_kind kind, const char *path,
		 const void *data, size_t len)
{
	if (!e->sink || !*path)
		return;
	char buf[PATH_MAX];
	if (kind == HWC_CAP_FILE || kind == HWC_CAP_UNREADABLE)
		path = env_sample_path(e, path, buf, sizeof(buf));
	if (path)
		e->sink->put(e->sink, kind, path, data, len);
}

void env_cap_link(struct hwc_env *e, const char *dir, const char *leaf, const char *target,
		  size_t tl)
{
	if (!e->sink)
		return;
	char lp[PATH_MAX];
	int n = snprintf(lp, sizeof(lp), "%s%s%s", dir, *dir ? "/" : "", leaf);
	if (n > 0 && (size_t)n < sizeof(lp))
		env_cap_put(e, HWC_CAP_LINK, lp, target, tl);
}

/* Keeps the shape of a listed directory: links, subdirectories, and the names of regular files
 * (empty until read: a collector that uses only the names, like msi_irqs/<irq>, replays the
 * same). */
void env_cap_listed(struct hwc_env *e, DIR *d, const char *res, const struct dirent *de)
{
	if (!e->sink)
		return;
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
		env_cap_put(e, HWC_CAP_DIR, ep, NULL, 0);
	} else if (type == DT_LNK) {
		char target[PATH_MAX];
		ssize_t tl = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
		if (tl >= 0)
			env_cap_put(e, HWC_CAP_LINK, ep, target, (size_t)tl);
	} else if (type == DT_REG) {
		e->sink->listed(e->sink, ep);
	}
}

void env_cap_unreadable(struct hwc_env *e, const char *res, int err, enum hwc_status st)
{
	if (!e->sink || !res || !*res || err <= 0 || err > 4095 || err == ENOENT || err == ENOTDIR ||
	    err == ELOOP || err == ENAMETOOLONG || err == ENOMEM || err == EISDIR)
		return;
	for (const char *p = res; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return; /* not a line of the list: replays as before */
	char why[48];
	int n = snprintf(why, sizeof(why), "%d %s", err, hwc_status_name(st));
	env_cap_put(e, HWC_CAP_UNREADABLE, res, why, (size_t)n);
}

int hwc_env_capture_blob(struct hwc_env *e, const char *path, const void *data, size_t len)
{
	while (*path == '/')
		path++;
	env_cap_put(e, HWC_CAP_FILE, path, data, len);
	return 0;
}
