/* SPDX-License-Identifier: MIT */
/* Fuzz the runner's replay: a fuzzed argv names a recording (its key must stay one directory
 * under hwcheck/commands/), a fuzzed `result` file and stdout are served back. Whatever the bytes,
 * the output comes back exactly and a status is always set.
 * Input: "argv0\nargv1\n...\0<result>\0<stdout>". */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/runner.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct hwc_env *env;
static const char *dir;
static int cmds_fd = -1;

static void setup(void)
{
	dir = fuzz_tmp_make("hwc-fuzz-replay");
	char p[640];
	snprintf(p, sizeof(p), "%s/hwcheck", dir);
	if (mkdir(p, 0755) != 0)
		abort();
	snprintf(p, sizeof(p), "%s/hwcheck/commands", dir);
	if (mkdir(p, 0755) != 0)
		abort();
	cmds_fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct hwc_env_opts o = {.root = dir};
	if (cmds_fd < 0 || hwc_env_open(&o, &env) != 0)
		abort();
}

static void put(int dfd, const char *name, const uint8_t *d, size_t n)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (n && write(fd, d, n) != (ssize_t)n))
		abort();
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!env)
		setup();
	const uint8_t *z1 = memchr(data, 0, size);
	size_t alen = z1 ? (size_t)(z1 - data) : size;
	char *args = malloc(alen + 1);
	if (!args)
		return 0;
	memcpy(args, data, alen);
	args[alen] = 0;
	const char *argv[6] = {0};
	size_t n = 0;
	for (char *p = args; n < 5;) {
		argv[n++] = p;
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	struct hwc_arena *a = hwc_arena_new();
	const char *rec = hwc_run_record_dir(a, argv);
	MUST(rec && strncmp(rec, "hwcheck/commands/", 17) == 0);
	const char *key = rec + 17;
	MUST(!strchr(key, '/') && strcmp(key, ".") != 0 && strcmp(key, "..") != 0);
	MUST(strlen(key) <= 200);

	const uint8_t *res = NULL, *out = NULL;
	size_t rlen = 0, olen = 0;
	bool recorded = false;
	if (z1 && *key) {
		res = z1 + 1;
		const uint8_t *z2 = memchr(res, 0, size - (size_t)(res - data));
		rlen = z2 ? (size_t)(z2 - res) : size - (size_t)(res - data);
		out = z2 ? z2 + 1 : NULL;
		olen = out ? size - (size_t)(out - data) : 0;
		if (mkdirat(cmds_fd, key, 0755) == 0) {
			int kfd = openat(cmds_fd, key, O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (kfd < 0)
				abort();
			put(kfd, "result", res, rlen);
			if (out)
				put(kfd, "stdout", out, olen);
			close(kfd);
			recorded = true;
		}
	}
	struct hwc_cmd_result r;
	int rc = hwc_run(env, a, argv, 1000, &r);
	MUST(r.m.st > HWC_ST_UNSET && r.m.st < HWC_ST__COUNT);
	MUST(r.out && r.err);
	const char *slash = strrchr(argv[0], '/');
	if (!*(slash ? slash + 1 : argv[0])) {
		MUST(r.m.st == HWC_ST_INVALID && rc < 0);
	} else if (!recorded) {
		MUST(rc == -ENOENT && r.m.st == HWC_ST_ABSENT);
	} else if (r.m.st == HWC_ST_OK || r.m.st == HWC_ST_TRUNCATED) {
		MUST(r.out_len == olen && (olen == 0 || memcmp(r.out, out, olen) == 0));
		MUST(r.out[r.out_len] == 0);
	} else {
		/* a recorded timeout, or a command that never ran there (not_installed, start_errno,
		 * not_run, or skipped=<status> on purpose: any status but ok and truncated) or could
		 * not be executed (exit 127, no output): each says so */
		MUST(r.m.st != HWC_ST_OK && r.m.st != HWC_ST_TRUNCATED && r.m.detail && *r.m.detail &&
		     rc < 0);
	}
	if (recorded) {
		int kfd = openat(cmds_fd, key, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (kfd >= 0) {
			unlinkat(kfd, "result", 0);
			unlinkat(kfd, "stdout", 0);
			close(kfd);
		}
		if (unlinkat(cmds_fd, key, AT_REMOVEDIR) != 0)
			abort();
	}
	hwc_arena_free(a);
	free(args);
	return 0;
}
