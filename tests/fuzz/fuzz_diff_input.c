/* SPDX-License-Identifier: MIT */
/* Fuzz what `hwcheck diff` and `merge` read: bytes as a snapshot tar (hwcheck/facts.json found by
 * the tar reader) or as JSON; a JSON array of two documents is diffed as a pair, anything else
 * against itself and against nothing. */
#include <jansson.h>
#include <stdint.h>

#include "cli/diff.h"
#include "snapshot/tar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const json_t *facts_of(const json_t *doc)
{
	const json_t *f = json_object_get(doc, "facts");
	return f ? f : doc;
}

static void diff(const json_t *a, const json_t *b)
{
	struct hwc_diff_opts o = {HWC_DIFF_TEMP_NOISE_DEGC, HWC_DIFF_PROBE_TOL_PCT, NULL};
	json_t *d = hwc_diff_facts(a, b, &o);
	(void)hwc_diff_regressions(d);
	json_decref(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const void *member = data;
	size_t mlen = size;
	const void *found;
	size_t flen;
	if (hwc_tar_find(data, size, "hwcheck/facts.json", &found, &flen) == 0) {
		member = found;
		mlen = flen;
	}
	json_t *j = json_loadb(member, mlen, 0, NULL);
	if (!j)
		return 0;
	json_t *empty = json_object();
	if (json_is_array(j) && json_array_size(j) == 2) {
		diff(facts_of(json_array_get(j, 0)), facts_of(json_array_get(j, 1)));
		diff(facts_of(json_array_get(j, 1)), facts_of(json_array_get(j, 0)));
	} else {
		diff(facts_of(j), facts_of(j));
		diff(facts_of(j), empty);
		diff(empty, facts_of(j));
	}
	json_decref(empty);
	json_decref(j);
	return 0;
}
