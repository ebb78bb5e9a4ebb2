/* SPDX-License-Identifier: MIT */
/* hwcheck snapshot: what a recording run captured, written as a tar that is itself a valid
 * --root (the capture replays to the same facts). */
#ifndef HWC_SNAPSHOT_SNAPSHOT_H
#define HWC_SNAPSHOT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/env.h"

struct hwc_snapshot_stats {
	size_t files, links, dirs;
	size_t moved, left_out; /* members below a link: written where it points / left out */
	size_t redacted;        /* serial numbers, MACs and GUIDs replaced (redact) */
};

/* Writes every capture of the recording env `e` to fp as a pax tar, then `facts_json` (when not
 * NULL) as hwcheck/facts.json, and the end of the archive. A member below a captured link is
 * written at the path the link resolves to inside the capture (never a tar slip). With `redact`
 * serial numbers, MACs and GUIDs are replaced (snapshot/redact.h). Returns 0 or -errno. */
int hwc_snapshot_write(FILE *fp, const struct hwc_env *e, const char *facts_json, bool redact,
		       struct hwc_snapshot_stats *st);

#endif
