/* SPDX-License-Identifier: MIT */
/* Test driver: evaluates the rules on the facts of a facts/report file exactly as written (no
 * round trip through the collectors' from_json), with an optional profile, and prints the
 * findings as JSON. Usage: rules_eval FACTS.json [PROFILE.json] */
#include <stdio.h>
#include <stdlib.h>

#include "core/arena.h"
#include "core/json.h"
#include "rules/rules.h"

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: rules_eval FACTS.json [PROFILE.json]\n");
		return 2;
	}
	json_error_t je;
	json_t *doc = json_load_file(argv[1], JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		fprintf(stderr, "%s:%d:%d: %s\n", argv[1], je.line, je.column, je.text);
		return 2;
	}
	const json_t *facts = json_object_get(doc, "facts");
	if (!facts)
		facts = doc;
	struct hwc_profile *p = NULL;
	char err[512];
	if (hwc_profile_load(argc == 3 ? argv[2] : NULL, &p, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		json_decref(doc);
		return 2;
	}
	struct hwc_arena *a = hwc_arena_new();
	struct hwc_findings fd = {0};
	int rc = a ? hwc_rules_eval(facts, p, a, &fd) : -1;
	json_t *out = rc == 0 ? hwc_findings_to_json(&fd) : NULL;
	char *s = out ? hwc_json_dumps(out, true) : NULL;
	if (s)
		printf("%s\n", s);
	char line[96];
	hwc_findings_summary_line(&fd, line, sizeof(line));
	fprintf(stderr, "%s\n", line);
	free(s);
	json_decref(out);
	hwc_arena_free(a);
	hwc_profile_free(p);
	json_decref(doc);
	return s ? 0 : 4;
}
