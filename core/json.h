/* SPDX-License-Identifier: MIT */
/* Facts <-> JSON: a known value is written as itself; an unknown one as null, with its status in
 * the object's "unavailable" map: {"mtu": null, "unavailable": {"mtu": {"status": "needs_root",
 * "detail": "..."}}}. A fact nobody collected is written the same way ("not_collected"), so the
 * round trip is exact. */
#ifndef HWC_CORE_JSON_H
#define HWC_CORE_JSON_H

#include <jansson.h>
#include <stdio.h>

#include "core/arena.h"
#include "core/fact.h"

#define HWC_JSON_UNAVAILABLE "unavailable"

/* Writers: return 0 or -ENOMEM. */
int hwc_json_put_i64(json_t *obj, const char *key, const struct hwc_fi64 *f);
int hwc_json_put_u64(json_t *obj, const char *key, const struct hwc_fu64 *f);
int hwc_json_put_f64(json_t *obj, const char *key, const struct hwc_ff64 *f);
int hwc_json_put_bool(json_t *obj, const char *key, const struct hwc_fbool *f);
int hwc_json_put_str(json_t *obj, const char *key, const struct hwc_fstr *f);
/* Only the status (for facts whose value is an object or array the caller writes itself). */
int hwc_json_put_meta(json_t *obj, const char *key, const struct hwc_fmeta *m);
/* Sets obj[key] = v (stolen) while keeping "unavailable" the object's last key. */
void hwc_json_set_before_unavail(json_t *obj, const char *key, json_t *v);

/* Moves "unavailable" back to the end of o once the object is complete (keys set after the
 * hwc_json_put_* calls would otherwise follow it). Returns o. */
json_t *hwc_json_unavail_last(json_t *o);

/* Readers: a missing key is "not_collected"; a value of the wrong type is -EINVAL (and the fact
 * is marked invalid). Strings and details are copied into the arena. */
int hwc_json_get_i64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fi64 *f);
int hwc_json_get_u64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fu64 *f);
int hwc_json_get_f64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_ff64 *f);
int hwc_json_get_bool(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fbool *f);
int hwc_json_get_str(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fstr *f);
int hwc_json_get_meta(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fmeta *m);

/* Plain (status-less) helpers for structural fields. hwc_json_string never fails on bytes
 * that are not UTF-8 (they become '?'). */
json_t *hwc_json_string(const char *s);
const char *hwc_json_str_or(const json_t *obj, const char *key, const char *dflt);

/* Serialize deterministically (insertion order, 2-space indent when pretty). Caller frees. */
char *hwc_json_dumps(const json_t *j, bool pretty);
/* The same, streamed to a stream (no copy of a large document in memory). 0 or -EIO. */
int hwc_json_dumpf(const json_t *j, FILE *out, bool pretty);

#endif
