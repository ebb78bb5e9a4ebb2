/* SPDX-License-Identifier: MIT */
/* Test helper: renders --prom metrics from a facts/report JSON file as given (the facts object
 * untouched, so every key of the contract reaches the renderer even before its collector's loader
 * exists), with the report's findings if it has any. Usage: prom_dump FACTS.json OUT.prom */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/arena.h"
#include "../tools/dump_doc.h"

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: prom_dump FACTS.json OUT.prom\n");
		return 2;
	}
	json_t *doc = hwc_dump_load_doc(argv[1]);
	if (!doc)
		return 2;
	struct hwc_arena *a = hwc_arena_new();
	struct hwc_findings fd = {0};
	size_t i;
	json_t *f;
	json_array_foreach(json_object_get(doc, "findings"), i, f) {
		struct hwc_finding *x = HWC_VEC_PUSH(a, &fd);
		if (!x)
			return 4;
		x->rule_id = json_string_value(json_object_get(f, "rule_id"));
		int sev = hwc_severity_from_name(json_string_value(json_object_get(f, "severity")));
		x->severity = sev < 0 ? HWC_SEV_UNKNOWN : (enum hwc_severity)sev;
		x->subject = json_string_value(json_object_get(f, "subject"));
		x->message = "";
		x->waived_reason = json_string_value(json_object_get(f, "waiver_reason"));
	}
	struct hwc_cli c;
	memset(&c, 0, sizeof(c));
	c.prom = argv[2];
	struct hwc_profile *prof = hwc_dump_default_profile();
	if (!prof)
		return 4;
	int rc = hwc_prom_write(&c, json_object_get(doc, "facts"), &fd, prof);
	hwc_profile_free(prof);
	hwc_arena_free(a);
	json_decref(doc);
	return rc;
}
