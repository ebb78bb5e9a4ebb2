/* SPDX-License-Identifier: MIT */
/* Temperatures: hwmon sensors, thermal zones and the cards' own sensors. */
#ifndef HWC_THERMAL_H
#define HWC_THERMAL_H

#include <jansson.h>

#include "core/env.h"
#include "core/facts.h"

struct hwc_thermal_facts {
	struct hwc_fmeta m; /* status of the section as a whole */
};

/* Fills f->section from the root. Never prints; problems go to hwc_facts_error(). */
int hwc_thermal_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_thermal_to_json(const struct hwc_facts *f);
int hwc_thermal_from_json(const json_t *j, struct hwc_facts *f);

#endif
