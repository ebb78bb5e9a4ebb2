/* SPDX-License-Identifier: MIT */
/* The window file of a --watch capture (hwcheck/watch/window: "requested_s=N\nwindow_us=N\n
 * samples=N\n"), parsed on its own (pure, fuzzed: tests/fuzz/fuzz_watch_window.c). */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <string.h>

static bool window_value(const char *v, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t x = 0;
	if (n == 0 || n > 12)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return x <= max;
}

int hwc_watch_parse_window(const char *buf, size_t len, struct hwc_watch_window *out,
			   const char **why)
{
	static const struct {
		const char *key;
		uint64_t min, max;
		const char *bad;
	} keys[] = {
		{"requested_s", 1, 3600, "requested_s is not a whole number of seconds in 1..3600"},
		{"window_us", 1, 7200000000ULL, "window_us is not a number of microseconds in 1..7.2e9"},
		{"samples", 2, 2, "samples is not 2"},
	};
	uint64_t got[3] = {0};
	bool have[3] = {false};
	*why = NULL;
	for (size_t pos = 0; buf && pos < len;) {
		const char *l = buf + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + 1;
		const char *eq = memchr(l, '=', n);
		for (size_t k = 0; eq && k < 3; k++) {
			size_t kl = strlen(keys[k].key);
			if ((size_t)(eq - l) != kl || strncmp(l, keys[k].key, kl) != 0)
				continue;
			if (!window_value(eq + 1, n - kl - 1, keys[k].max, &got[k]) || got[k] < keys[k].min) {
				*why = keys[k].bad;
				return -EINVAL;
			}
			have[k] = true;
		}
	}
	for (size_t k = 0; k < 3; k++)
		if (!have[k]) {
			*why = k == 0 ? "no requested_s line" : k == 1 ? "no window_us line" : "no samples line";
			return -EINVAL;
		}
	if (got[1] > got[0] * 2000000ULL) {
		*why = "window_us is more than twice requested_s";
		return -EINVAL;
	}
	*out = (struct hwc_watch_window){(unsigned)got[0], got[1], (unsigned)got[2]};
	return 0;
}
