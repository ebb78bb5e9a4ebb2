/* SPDX-License-Identifier: MIT */
/* Fuzz the rules over arbitrary facts: any JSON shape (wrong types, nulls, huge numbers, missing
 * keys) must give findings or unknowns, never a crash. */
#include <jansson.h>
#include <stdint.h>

#include "core/arena.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = json_loadb((const char *)data, size, 0, NULL);
	if (!j)
		return 0;
	const json_t *facts = json_object_get(j, "facts");
	struct hwc_arena *a = hwc_arena_new();
	if (a) {
		struct hwc_findings fd = {0};
		hwc_rules_eval(facts ? facts : j, NULL, a, &fd);
		json_decref(hwc_findings_to_json(&fd));
		char line[96];
		hwc_findings_summary_line(&fd, line, sizeof(line));
	}
	hwc_arena_free(a);
	json_decref(j);
	return 0;
}
