/* SPDX-License-Identifier: MIT */
/* Fuzz the `mstfwreset -d BDF query` parser: every parsed row has a number in range and a
 * description; a success has at least one reset level. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "mlx/mlx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_list(const struct hwc_mlx_fwreset_list *l)
{
	if (l->n > 32)
		abort();
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].num < 0 || l->items[i].num > 255 || !l->items[i].description)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	struct hwc_mlx_fwreset r;
	int rc = hwc_mlx_parse_fwreset_query((const char *)data, size, a, &r);
	if (rc == 0 && (!hwc_ok(r) || r.levels.n == 0))
		abort();
	if (rc != 0 && hwc_ok(r))
		abort();
	check_list(&r.levels);
	check_list(&r.types);
	check_list(&r.sync);
	hwc_arena_free(a);
	return 0;
}
