/* SPDX-License-Identifier: MIT */
/* hwcheck snapshot: what a recording run captured, written as a tar that is itself a valid
 * --root (the capture replays to the same facts). */
#ifndef HWC_SNAPSHOT_SNAPSHOT_H
#define HWC_SNAPSHOT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/env.h"

/* ---- the capture set ------------------------------------------------------------------------
 * What a recording run read, as the env hands it over (core/env.h's capture sink): open the env
 * with .record = hwc_capset_sink(set), collect, then visit or write the set. */
struct hwc_capset;
struct hwc_capture {
	enum hwc_capture_kind kind;
	const char *path;          /* root-relative */
	const unsigned char *data; /* file content, or link target */
	size_t len;
};
struct hwc_capset *hwc_capset_new(void); /* NULL on ENOMEM */
void hwc_capset_free(struct hwc_capset *c);
struct hwc_capture_sink *hwc_capset_sink(struct hwc_capset *c);
/* Visits what was captured, sorted by path; stops at the first non-zero return of fn. */
int hwc_capset_visit(const struct hwc_capset *c, int (*fn)(const struct hwc_capture *, void *),
		     void *ctx);

/* ---- the tar ---------------------------------------------------------------------------------- */
struct hwc_snapshot_stats {
	size_t files, links, dirs;
	size_t moved, left_out; /* members below a link: written where it points / left out */
	size_t redacted;        /* serial numbers, MACs and GUIDs replaced (redact) */
	size_t unreadable;      /* files that existed but could not be read (HWC_UNREADABLE_LIST) */
};

/* Writes every capture of the set to fp as a pax tar, then the list of files that could not be
 * read (HWC_UNREADABLE_LIST: each is also an empty file), `facts_json` (when not NULL) as
 * hwcheck/facts.json, and the end of the archive. A member below a captured link is
 * written at the path the link resolves to inside the capture (never a tar slip). With `redact`
 * serial numbers, MACs and GUIDs are replaced (snapshot/redact.h). Returns 0 or -errno. */
int hwc_snapshot_write(FILE *fp, const struct hwc_capset *c, const char *facts_json, bool redact,
		       struct hwc_snapshot_stats *st);

#endif
