/* SPDX-License-Identifier: MIT */
/* Fuzz the `mstflint -d BDF q` parser and the ethtool -i firmware line parser. */
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
	struct hwc_mlx_flint fl;
	if (hwc_mlx_parse_flint_query((const char *)data, size, a, &fl) == 0 &&
	    (!hwc_ok(fl.fw_version) || !fl.fw_version.v))
		abort();
	struct hwc_fstr fw, psid;
	hwc_mlx_parse_ethtool_fw((const char *)data, size, a, &fw, &psid);
	hwc_arena_free(a);
	return 0;
}
