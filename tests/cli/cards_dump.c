/* SPDX-License-Identifier: MIT */
/* Test helper: judges a facts/report JSON file as given (the facts object untouched, so that a
 * key of the contract reaches the rules and the per-card view before its collector's loader
 * exists: facts.watch and the *_window deltas) and prints the cards' text blocks, then the cards'
 * JSON on one line. Usage: cards_dump FACTS.json */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/arena.h"
#include "rules/rules.h"
#include "../tools/dump_doc.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: cards_dump FACTS.json\n");
		return 2;
	}
	json_t *doc = hwc_dump_load_doc(argv[1]);
	if (!doc)
		return 2;
	const json_t *facts = json_object_get(doc, "facts");
	facts = facts ? facts : doc;
	struct hwc_arena *a = hwc_arena_new();
	if (!a) {
		fprintf(stderr, "out of memory\n");
		return 4;
	}
	struct hwc_profile *prof = hwc_dump_default_profile();
	if (!prof)
		return 4;
	struct hwc_findings fd = {0};
	int rc = hwc_rules_eval(facts, prof, a, &fd) < 0 ? 4 : 0;
	json_t *cards = hwc_cards_json(facts, &fd, prof);
	struct hwc_cli c;
	memset(&c, 0, sizeof(c));
	hwc_render_cards_text(stdout, &c, cards);
	char *s = json_dumps(cards, JSON_COMPACT);
	printf("%s\n", s ? s : "null");
	free(s);
	json_decref(cards);
	hwc_profile_free(prof);
	hwc_arena_free(a);
	json_decref(doc);
	return rc;
}
