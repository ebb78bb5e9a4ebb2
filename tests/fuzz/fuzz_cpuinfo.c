/* SPDX-License-Identifier: MIT */
/* Fuzz the /proc/cpuinfo parser and the cpulist counter. */
#include <stdint.h>
#include <string.h>

#include "core/scan.h"
#include "hwinfo/hwinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	struct hwc_cpuinfo ci;
	if (hwc_host_parse_cpuinfo((const char *)data, size, a, &ci) == 0 && ci.has_topology &&
	    (ci.packages > ci.processors || ci.cores > ci.processors))
		__builtin_trap(); /* distinct counts can never exceed the processors */
	/* the same bytes as a cpulist (NUL-terminated copy) */
	char *s = hwc_arena_strndup(a, (const char *)data, size < 4096 ? size : 4096);
	int64_t n;
	if (s && hwc_cpulist_count(s, &n) == 0 && n < 0)
		__builtin_trap();
	hwc_arena_free(a);
	return 0;
}
