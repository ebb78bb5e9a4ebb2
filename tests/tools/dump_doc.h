/* SPDX-License-Identifier: MIT */
/* The frame of the test helpers that render a facts/report JSON file as given (tests/cli/cards_dump,
 * tests/fleet/prom_dump): the document and the default profile, each saying why it failed. */
#ifndef HWC_TEST_DUMP_DOC_H
#define HWC_TEST_DUMP_DOC_H

#include <jansson.h>

struct hwc_profile;

/* The JSON document at path; NULL after "path:line: why" on stderr. */
json_t *hwc_dump_load_doc(const char *path);
/* The default profile; NULL after "default profile: why" on stderr. */
struct hwc_profile *hwc_dump_default_profile(void);

#endif
