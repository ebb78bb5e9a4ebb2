/* SPDX-License-Identifier: MIT */
/* Prints the table of the profile's one-value keys (rules/profile-keys.h) as JSON, for
 * scripts/gen-profile.py to write rules/default-profile.json's sections and docs/profile.md's key
 * tables from it. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "rules/profile-keys.h"

static const struct hwc_profile_key keys[] = {HWC_PROFILE_KEYS(HWC_PK_ROW)};
static const char *const types[] = {[HWC_PK_number] = "number", [HWC_PK_integer] = "integer",
				    [HWC_PK_boolean] = "boolean", [HWC_PK_string] = "string"};

int main(void)
{
	json_t *out = json_array();
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct hwc_profile_key *k = &keys[i];
		json_t *row = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "section", k->section, "key",
					k->key, "type", types[k->type], "unit", k->unit, "source",
					k->source, "doc", k->doc);
		json_object_set_new(row, "default", k->def ? json_string(k->def) : json_null());
		json_object_set_new(row, "values", k->values ? json_string(k->values) : json_null());
		if (k->type == HWC_PK_number || k->type == HWC_PK_integer) {
			json_object_set_new(row, "min", json_real(k->min));
			json_object_set_new(row, "max", json_real(k->max));
		}
		json_array_append_new(out, row);
	}
	char *s = json_dumps(out, JSON_INDENT(1));
	puts(s ? s : "[]");
	free(s);
	json_decref(out);
	return s ? 0 : 1;
}
