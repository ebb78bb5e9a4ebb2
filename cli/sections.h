/* SPDX-License-Identifier: MIT */
/* The facts sections in collection order, and the facts document (JSON) built from them. */
#ifndef HWC_CLI_SECTIONS_H
#define HWC_CLI_SECTIONS_H

#include <jansson.h>
#include <stdbool.h>

#include "core/env.h"
#include "core/facts.h"

struct hwc_section {
	const char *name; /* key under "facts" */
	int (*collect)(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
	json_t *(*to_json)(const struct hwc_facts *f);
	int (*from_json)(const json_t *j, struct hwc_facts *f);
};

const struct hwc_section *hwc_sections(size_t *n);

/* Runs every collector; a failing one is recorded in f->errors and the rest go on. */
void hwc_collect_all(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
/* {"host": ..., "pci": ..., ...} */
json_t *hwc_facts_to_json(const struct hwc_facts *f);
/* Loads a facts object (the value of "facts"); problems go to f->errors, returns <0 if none of
 * it could be used. */
int hwc_facts_from_json(const json_t *facts, struct hwc_facts *f);
/* Number of known (non-null) leaf values: 0 means nothing could be collected. */
size_t hwc_facts_known_count(const json_t *facts);

#define HWC_SCHEMA_VERSION 1

#endif
