/* SPDX-License-Identifier: MIT */
/* Fuzz the per-card view and the verdict over arbitrary facts: any JSON shape (wrong types,
 * nulls, missing keys, ports without netdevs) must give a card view, a summary and a text report
 * within 100 columns, never a crash. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/arena.h"
#include "core/facts.h"
#include "rules/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* cli/err.c holds the real one; the renderers only need it to link (silently). */
void hwc_cli_err(const char *fmt, ...)
{
	(void)fmt;
}

static void check_width(const char *buf, size_t len)
{
	size_t col = 0;
	for (size_t i = 0; i < len; i++) {
		col = buf[i] == '\n' ? 0 : col + 1;
		/* the card blocks and findings wrap at 100; a single word may not (it is cut) */
		if (col > 100)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = json_loadb((const char *)data, size, 0, NULL);
	if (!j)
		return 0;
	json_t *facts = json_object_get(j, "facts");
	if (!facts)
		facts = j;
	struct hwc_facts *f = hwc_facts_new();
	if (f) {
		struct hwc_findings fd = {0};
		hwc_rules_eval(facts, NULL, f->arena, &fd);
		json_decref(hwc_cards_json(facts, &fd, NULL));
		struct hwc_summary s;
		hwc_summary_compute(&fd, false, &s);
		json_decref(hwc_summary_json(&s, &fd, NULL));
		struct hwc_cli c = {.exit_codes = "nagios", .verbose = size % 2 == 0};
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		if (out) {
			hwc_render_check_text(out, &c, facts, &fd, f);
			fclose(out);
			check_width(buf, len);
		}
		free(buf);
	}
	hwc_facts_free(f);
	json_decref(j);
	return 0;
}
