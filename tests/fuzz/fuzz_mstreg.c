/* SPDX-License-Identifier: MIT */
/* Fuzz the mstreg table parser and the small one-line parsers (mstmget_temp, versions, sysfs
 * rate and lockdown). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "mlx/mlx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	const char *s = (const char *)data;
	struct hwc_mlx_reg r;
	uint64_t v;
	if (hwc_mlx_parse_mstreg(s, size, a, &r) == 0 && hwc_mlx_reg_get(&r, "temperature", &v) == 0)
		(void)hwc_mlx_mtmp_to_mdegc(v);
	struct hwc_fi64 t;
	hwc_mlx_parse_mget_temp(s, size, a, &t);
	struct hwc_fstr ver;
	hwc_mlx_parse_tool_version(s, size, a, &ver);
	char *z = hwc_arena_strndup(a, s, size); /* sysfs values are strings */
	if (z) {
		double g;
		const char *w, *sp, *mode;
		hwc_mlx_parse_rate(z, &g, &w, &sp, a);
		hwc_mlx_state_name(z, a);
		hwc_mlx_parse_lockdown(z, a, &mode);
	}
	hwc_arena_free(a);
	return 0;
}
