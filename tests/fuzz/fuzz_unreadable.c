/* SPDX-License-Identifier: MIT */
/* Fuzz a capture's list of unreadable files (hwcheck/unreadable, core/marks.c): the bytes are
 * the list of a scratch capture, replayed by a fresh env. Whatever the bytes, each line parses to
 * fields inside it or to nothing, a read either gives the file's content or fails with a status
 * a mark may carry (absent, needs_root, unreadable) and a detail that names the path. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *dir;
static char list[600];

static void put(const char *rel, const void *d, size_t n)
{
	char p[700];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (n && write(fd, d, n) != (ssize_t)n))
		abort();
	close(fd);
}

static void setup(void)
{
	dir = fuzz_tmp_make("hwc-fuzz-unreadable");
	char p[640];
	snprintf(p, sizeof(p), "%s/hwcheck", dir);
	if (mkdir(p, 0755) != 0)
		abort();
	snprintf(p, sizeof(p), "%s/b", dir);
	if (mkdir(p, 0755) != 0)
		abort();
	put("a", "", 0);
	put("b/c", "1\n", 2);
	snprintf(list, sizeof(list), "%s/hwcheck/unreadable", dir);
}

static void check_lines(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	for (size_t at = 0; at < size;) {
		const char *nl = memchr(s + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (s + at)) : size - at;
		int err;
		enum hwc_status st;
		const char *p;
		size_t plen;
		if (hwc_unreadable_line(s + at, len, &err, &st, &p, &plen) == 0) {
			MUST(err >= 1 && err <= 4095);
			MUST(st == HWC_ST_ABSENT || st == HWC_ST_NEEDS_ROOT || st == HWC_ST_UNREADABLE);
			MUST(plen > 0 && p > s + at && p + plen == s + at + len);
		}
		at += len + 1;
	}
}

static void check_read(struct hwc_env *e, struct hwc_arena *a, const char *path, const char *want)
{
	struct hwc_fstr s = {0};
	int rc = hwc_read_str(e, path, a, &s);
	if (rc == 0) {
		MUST(want && s.v && strcmp(s.v, want) == 0);
		return;
	}
	MUST(s.m.st == HWC_ST_ABSENT || s.m.st == HWC_ST_NEEDS_ROOT || s.m.st == HWC_ST_UNREADABLE);
	MUST(s.m.detail && s.m.detail[0] == '/' && strstr(s.m.detail, path));
	MUST((s.m.st == HWC_ST_UNREADABLE) == (s.m.err != 0));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir)
		setup();
	check_lines(data, size);
	put("hwcheck/unreadable", data, size);
	struct hwc_env *e;
	struct hwc_env_opts o = {.root = dir};
	if (hwc_env_open(&o, &e) != 0)
		abort();
	struct hwc_arena *a = hwc_arena_new();
	check_read(e, a, "a", "");
	check_read(e, a, "b/c", "1");
	check_read(e, a, "b/none", NULL);
	check_read(e, a, "hwcheck/nothing", NULL);
	hwc_arena_free(a);
	hwc_env_free(e);
	return 0;
}
