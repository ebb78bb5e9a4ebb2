/* SPDX-License-Identifier: MIT */
#include "dump_doc.h"

#include <stdio.h>

#include "rules/rules.h"

json_t *hwc_dump_load_doc(const char *path)
{
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je);
	if (!doc)
		fprintf(stderr, "%s:%d: %s\n", path, je.line, je.text);
	return doc;
}

struct hwc_profile *hwc_dump_default_profile(void)
{
	struct hwc_profile *prof = NULL;
	char perr[256];
	if (hwc_profile_load(NULL, &prof, perr, sizeof(perr)) < 0) {
		fprintf(stderr, "default profile: %s\n", perr);
		return NULL;
	}
	return prof;
}
