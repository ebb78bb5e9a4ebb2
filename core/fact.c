/* SPDX-License-Identifier: MIT */
/* Names of fact statuses as they appear in JSON. */
#include "core/fact.h"

#include <string.h>

static const char *const names[HWC_ST__COUNT] = {
	[HWC_ST_UNSET] = "not_collected", [HWC_ST_OK] = "ok",
	[HWC_ST_ABSENT] = "absent",       [HWC_ST_NEEDS_ROOT] = "needs_root",
	[HWC_ST_UNREADABLE] = "unreadable", [HWC_ST_TRUNCATED] = "truncated",
	[HWC_ST_UNSUPPORTED] = "unsupported", [HWC_ST_TIMEOUT] = "timeout",
	[HWC_ST_INVALID] = "invalid",     [HWC_ST_BLOCKED] = "blocked",
};

const char *hwc_status_name(enum hwc_status st)
{
	return (unsigned)st < HWC_ST__COUNT ? names[st] : "invalid";
}

enum hwc_status hwc_status_from_name(const char *name)
{
	if (!name)
		return HWC_ST__COUNT;
	for (unsigned i = 0; i < HWC_ST__COUNT; i++)
		if (strcmp(names[i], name) == 0)
			return (enum hwc_status)i;
	return HWC_ST__COUNT;
}

void hwc_fmeta_set_all(struct hwc_fmeta *const *m, size_t n, enum hwc_status st, const char *detail)
{
	for (size_t i = 0; i < n; i++)
		hwc_fmeta_set(m[i], st, 0, detail);
}

void hwc_fslots_init(struct hwc_fslots *r, unsigned n, bool is_bool, const char *detail)
{
	memset(r, 0, sizeof(*r));
	r->n = n < HWC_FSLOTS_MAX ? n : HWC_FSLOTS_MAX;
	r->is_bool = is_bool;
	hwc_fmeta_set(&r->m, HWC_ST_ABSENT, 0, detail);
}

void hwc_fslots_ok(struct hwc_fslots *r)
{
	if (r->m.st != HWC_ST_OK) {
		memset(r->has, 0, sizeof(r->has));
		hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	}
}

void hwc_fslots_set(struct hwc_fslots *r, unsigned i, int64_t v)
{
	if (i >= r->n)
		return;
	hwc_fslots_ok(r);
	r->has[i] = true;
	r->v[i] = v;
}
