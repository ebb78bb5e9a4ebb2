/* SPDX-License-Identifier: MIT */
/* The root every read goes through, and the options of a run (tools, timeouts, recording). Paths
 * inside the root are resolved by resolve.c, read by read.c, kept for snapshots by capture.c. */
#include "core/env.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/env_int.h"

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
	e->sink = o->record;
	e->only_input = o->only_input;
	e->mode = o->only_input ? HWC_RUN_REPLAY : o->mode;
	if (e->mode == HWC_RUN_AUTO)
		e->mode = e->live ? HWC_RUN_EXEC : HWC_RUN_REPLAY;
	e->cmd_timeout_ms = o->cmd_timeout_ms ? o->cmd_timeout_ms : 10000;
	e->cmd_timeout_given = o->cmd_timeout_ms != 0;
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
	env_dircache_free(e);
	env_marks_free(e);
	free(e->root);
	free(e);
}

bool hwc_env_is_live(const struct hwc_env *e) { return e->live; }
enum hwc_run_mode hwc_env_mode(const struct hwc_env *e) { return e->mode; }
bool hwc_env_is_root_user(const struct hwc_env *e) { return e->is_root_user; }
bool hwc_env_no_tools(const struct hwc_env *e) { return e->no_tools; }
const char *hwc_env_only_input(const struct hwc_env *e) { return e->only_input; }
const char *hwc_env_root(const struct hwc_env *e) { return e->root; }
unsigned hwc_env_cmd_timeout_ms(const struct hwc_env *e) { return e->cmd_timeout_ms; }

unsigned hwc_env_cmd_timeout_at_least_ms(const struct hwc_env *e, unsigned floor_ms)
{
	if (e->cmd_timeout_given || floor_ms < e->cmd_timeout_ms)
		return e->cmd_timeout_ms;
	return floor_ms;
}
size_t hwc_env_cmd_output_cap(const struct hwc_env *e) { return e->cmd_output_cap; }
void hwc_env_set_sample(struct hwc_env *e, unsigned n)
{
	e->sample = n <= HWC_WATCH_MAX_SAMPLES ? n : HWC_WATCH_MAX_SAMPLES;
}
unsigned hwc_env_sample(const struct hwc_env *e) { return e->sample; }
bool hwc_env_recording(const struct hwc_env *e) { return e->sink != NULL; }

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
