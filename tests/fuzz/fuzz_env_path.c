/* SPDX-License-Identifier: MIT */
/* Fuzz root confinement: a symbolic link with a fuzzed target inside a root, and a fuzzed path
 * resolved through it. Whatever they say, nothing outside the root is ever read, listed or named:
 * a canary file beside the root must never show, and resolved paths stay relative and clean.
 * Input: "<link target>\n<path>". */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hwc_env *env;
static const char *dir;
static char linkpath[640];

static void setup(void)
{
	dir = fuzz_tmp_make("hwc-fuzz-root");
	/* outside/ is the host: the canary; root/ is the capture, with links that try to leave */
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkdir -p outside root/sys/a/b root/etc && echo HOST-CANARY > "
		 "outside/canary && echo root-own > root/etc/canary && echo 42 > root/sys/a/b/v && "
		 "ln -s ../../.. root/sys/up && ln -s / root/sys/abs && ln -s /../outside/canary "
		 "root/sys/esc && ln -s '%s/outside' root/sys/hostabs && mkfifo root/sys/fifo",
		 dir, dir);
	if (system(cmd) != 0)
		abort();
	snprintf(linkpath, sizeof(linkpath), "%s/root/sys/fz", dir);
	char r[640];
	snprintf(r, sizeof(r), "%s/root", dir);
	struct hwc_env_opts o = {.root = r};
	if (hwc_env_open(&o, &env) != 0)
		abort();
}

static void clean_rel(const char *p)
{
	MUST(p[0] != '/');
	MUST(strstr(p, "outside") == NULL);
	for (const char *q = p; *q; q = strchr(q, '/') ? strchr(q, '/') + 1 : q + strlen(q))
		MUST(strncmp(q, "../", 3) != 0 && strcmp(q, "..") != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!env)
		setup();
	if (size > 8192 || memchr(data, 0, size))
		return 0;
	char *in = malloc(size + 1);
	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = 0;
	char *nl = strchr(in, '\n');
	const char *path = nl ? nl + 1 : in;
	if (nl) {
		*nl = 0;
		unlink(linkpath);
		if (*in && symlink(in, linkpath) != 0 && errno != ENAMETOOLONG)
			abort();
	}
	struct hwc_arena *a = hwc_arena_new();
	const unsigned char *d;
	size_t len;
	struct hwc_fmeta m;
	if (hwc_read_bytes(env, path, 4096, a, &d, &len, &m) == 0 || m.st == HWC_ST_TRUNCATED)
		MUST(!memmem(d, len, "HOST-CANARY", 11));
	const char *rp;
	if (hwc_env_realpath(env, path, a, &rp) == 0)
		clean_rel(rp);
	struct hwc_dirlist dl;
	if (hwc_env_list_dir(env, path, a, &dl) == 0)
		for (size_t i = 0; i < dl.n; i++)
			MUST(strcmp(dl.names[i], "outside") != 0 && strcmp(dl.names[i], "root") != 0);
	const char *t;
	hwc_env_readlink(env, path, a, &t);
	hwc_env_is_dir(env, path);
	hwc_env_access(env, path);
	struct hwc_fstr s = {0};
	hwc_read_link_name(env, path, a, &s);
	hwc_arena_free(a);
	free(in);
	return 0;
}
