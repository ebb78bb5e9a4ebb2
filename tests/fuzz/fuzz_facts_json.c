/* SPDX-License-Identifier: MIT */
/* Fuzz the facts loader: any bytes, parsed as JSON, loaded into facts, re-serialized. */
#include <jansson.h>
#include <stdint.h>

#include "cli/sections.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = json_loadb((const char *)data, size, 0, NULL);
	if (!j)
		return 0;
	struct hwc_facts *f = hwc_facts_new();
	if (f) {
		const json_t *facts = json_object_get(j, "facts");
		hwc_facts_from_json(facts ? facts : j, f);
		json_t *out = hwc_facts_to_json(f);
		json_decref(out);
		hwc_facts_free(f);
	}
	json_decref(j);
	return 0;
}
