/* SPDX-License-Identifier: MIT */
/* ConnectX adapters: identity, ports, firmware and its configuration (mstflint). */
#ifndef HWC_MLX_H
#define HWC_MLX_H

#include <jansson.h>

#include "core/env.h"
#include "core/facts.h"

struct hwc_mlx_facts {
	struct hwc_fmeta m; /* status of the section as a whole */
};

/* Fills f->section from the root. Never prints; problems go to hwc_facts_error(). */
int hwc_mlx_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_mlx_to_json(const struct hwc_facts *f);
int hwc_mlx_from_json(const json_t *j, struct hwc_facts *f);

#endif
