/* SPDX-License-Identifier: MIT */
/* RDMA-verbs bandwidth probes and the ceiling that explains them. */
#ifndef HWC_PROBE_H
#define HWC_PROBE_H

#include <jansson.h>

#include "core/env.h"
#include "core/facts.h"

struct hwc_probe_facts {
	struct hwc_fmeta m; /* status of the section as a whole */
};

/* Fills f->section from the root. Never prints; problems go to hwc_facts_error(). */
int hwc_probe_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_probe_to_json(const struct hwc_facts *f);
int hwc_probe_from_json(const json_t *j, struct hwc_facts *f);

#endif
