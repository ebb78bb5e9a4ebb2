/* SPDX-License-Identifier: MIT */
/* Fuzz the mstconfig parser, and the facts.mlx JSON round trip of what it parsed (must be exact). */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/facts.h"
#include "mlx/mlx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_facts *f = hwc_facts_new();
	if (!f)
		return 0;
	struct hwc_mlx_facts *mf = hwc_arena_zalloc(f->arena, sizeof(*mf));
	struct hwc_mlx_adapter *ad = mf ? HWC_VEC_PUSH(f->arena, &mf->adapters) : NULL;
	if (!ad) {
		hwc_facts_free(f);
		return 0;
	}
	f->mlx = mf;
	hwc_fmeta_set(&mf->m, HWC_ST_OK, 0, NULL);
	ad->bdf = "0000:3b:00.0";
	hwc_mlx_parse_mstconfig((const char *)data, size, f->arena, &ad->cfg);
	size_t n;
	const char *const *named = hwc_mlx_cfg_named(&n);
	if (hwc_ok(ad->cfg))
		for (size_t i = 0; i < n; i++)
			if (!hwc_mlx_cfg_find(&ad->cfg, named[i]))
				abort(); /* the named parameters are always there once parsed */
	json_t *j1 = hwc_mlx_to_json(f);
	struct hwc_facts *g = hwc_facts_new();
	if (j1 && g) {
		hwc_mlx_from_json(j1, g);
		json_t *j2 = hwc_mlx_to_json(g);
		if (j2 && !json_equal(j1, j2))
			abort();
		json_decref(j2);
	}
	json_decref(j1);
	hwc_facts_free(g);
	hwc_facts_free(f);
	return 0;
}
