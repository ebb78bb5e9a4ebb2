/* SPDX-License-Identifier: MIT */
/* Unit-test helper for capture sets (snapshot/snapshot.h): find one capture by its path. */
#ifndef HWC_TEST_CAPSET_H
#define HWC_TEST_CAPSET_H

#include <stdbool.h>
#include <string.h>

#include "snapshot/snapshot.h"

/* Looks for one capture by path: its kind and content (NUL-terminated; a capture too large for
 * data is not taken). */
struct cap_find {
	const char *path;
	enum hwc_capture_kind kind;
	char data[256];
	bool found;
};

/* A hwc_capset_visit callback: fills the struct cap_find p when the capture's path is its path. */
static inline int cap_find(const struct hwc_capture *c, void *p)
{
	struct cap_find *f = p;
	if (strcmp(c->path, f->path) == 0 && c->len < sizeof(f->data)) {
		memcpy(f->data, c->data, c->len);
		f->data[c->len] = 0;
		f->kind = c->kind;
		f->found = true;
	}
	return 0;
}

#endif
