/* SPDX-License-Identifier: MIT */
/* The facts container. */
#include "core/facts.h"

#include <errno.h>
#include <stdlib.h>

struct hwc_facts *hwc_facts_new(void)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return NULL;
	struct hwc_facts *f = hwc_arena_zalloc(a, sizeof(*f));
	if (!f) {
		hwc_arena_free(a);
		errno = ENOMEM;
		return NULL;
	}
	f->arena = a;
	return f;
}

void hwc_facts_free(struct hwc_facts *f)
{
	if (f)
		hwc_arena_free(f->arena);
}

void hwc_facts_error(struct hwc_facts *f, const char *source, const char *subject,
		     const char *fmt, ...)
{
	struct hwc_diag *d = HWC_VEC_PUSH(f->arena, &f->errors);
	if (!d)
		return;
	va_list ap;
	va_start(ap, fmt);
	d->source = hwc_arena_strdup(f->arena, source);
	d->subject = subject ? hwc_arena_strdup(f->arena, subject) : NULL;
	d->message = hwc_arena_vprintf(f->arena, fmt, ap);
	va_end(ap);
}
