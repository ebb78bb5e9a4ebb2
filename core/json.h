/* SPDX-License-Identifier: MIT */
/* Facts <-> JSON: a known value is written as itself; an unknown one as null, with its status in
 * the object's "unavailable" map: {"mtu": null, "unavailable": {"mtu": {"status": "needs_root",
 * "detail": "..."}}}. A fact nobody collected is written the same way ("not_collected"), so the
 * round trip is exact. */
#ifndef HWC_CORE_JSON_H
#define HWC_CORE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/arena.h"
#include "core/fact.h"
#include "core/util.h"

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
/* A scalar (string, number, boolean) as text into buf: "force_relax", "0", "2.5", "true". False,
 * buf untouched, for anything else. */
bool hwc_json_scalar_text(char *buf, size_t n, const json_t *v);

/* Serialize deterministically (insertion order, 2-space indent when pretty). Caller frees. */
char *hwc_json_dumps(const json_t *j, bool pretty);
/* The same, streamed to a stream (no copy of a large document in memory). 0 or -EIO. */
int hwc_json_dumpf(const json_t *j, FILE *out, bool pretty);

/* ---- Field tables: one description of a C struct's facts drives writing, reading and copying.
 * A table lists the keys of one JSON object in output order; "unavailable" is always written
 * last. Offsets are relative to the struct the table describes. */
enum hwc_jtype {
	HWC_JT_I64, HWC_JT_U64, HWC_JT_F64, HWC_JT_BOOL, HWC_JT_STR, /* a fact (struct hwc_f*) */
	HWC_JT_META,     /* only a status (struct hwc_fmeta): the value is written by the caller */
	HWC_JT_KEY_I64,  /* a plain int64_t that identifies an element ("id", "irq"): required */
	HWC_JT_KEY_STR,  /* a plain const char * that identifies an element ("name"): required */
	HWC_JT_OBJ,      /* a nested struct written as an object, always (sub: its table) */
	HWC_JT_GROUP,    /* a nested struct whose first member is its hwc_fmeta: the object when
			  * ok, null + status when it failed, omitted when nobody set it */
	HWC_JT_VEC,      /* an arena vector {T *items; size_t n, cap;} of structs (sub, elem) */
	HWC_JT_STRV,     /* the same of const char * */
	HWC_JT_I64V,     /* of int64_t */
	HWC_JT_F64V,     /* of double */
	HWC_JT_FLAG,     /* a plain bool, always written */
	HWC_JT_U64_NAMED, /* an array of elem struct hwc_fu64 written inline in the object, one
			   * key per entry of names ("rx_discards_phy", ...) */
	HWC_JT_CUSTOM,   /* written and read by the entry's own functions (put, get) */
	HWC_JT_I64_SLOTS,  /* a struct hwc_fslots of elem integers: the array, null per unknown
			    * element; null + status when the whole is not known */
	HWC_JT_BOOL_SLOTS, /* the same of booleans */
	HWC_JT_STR_SLOTS,  /* const char *[elem] with its status at meta (HWC_JF_META): the
			    * array, null per NULL element */
	HWC_JT_PSTR,     /* a plain const char *, left out when NULL (null with HWC_JF_NULL) */
	HWC_JT_OPT_F64,  /* a plain double a source may lack: null (no status) when negative */
	HWC_JT_MAP,      /* a vector (sub, elem) of structs whose first member is their name
			  * (const char *): an object of name -> the element's object */
	HWC_JT_STATUS,   /* a plain struct hwc_fmeta written as its status name ("ok") */
	HWC_JT_DETAIL,   /* the detail of a plain struct hwc_fmeta, left out when it has none */
};

struct hwc_jtable;
struct hwc_jfield {
	const char *key;
	enum hwc_jtype t;
	size_t off;
	unsigned flags;                /* HWC_JF_*; bits 8 and up: a custom entry's own */
	size_t meta;                   /* vectors with HWC_JF_META: offset of their hwc_fmeta */
	const struct hwc_jtable *sub;  /* OBJ, GROUP, VEC: the nested table */
	size_t elem; /* VEC: sizeof one element; U64_NAMED: how many; CUSTOM: the entry's own */
	/* CUSTOM: writes the member p under key (and keys that start with key + "_") into o; reads
	 * it back from o. 0, -EINVAL, -ENOMEM, or -ENOENT: the vector element it belongs to cannot
	 * stand without it and is left out. */
	int (*put)(json_t *o, const struct hwc_jfield *f, const void *p);
	int (*get)(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p);
	const char *src; /* the source's own name for the value ("Link Down Counter"), for parsers */
	const char *const *names; /* U64_NAMED: the keys */
	/* Written only when when(base) is true (a key that depends on another fact); read as
	 * usual. NULL: always. */
	bool (*when)(const void *base);
	const char *types; /* CUSTOM: the JSON types it writes ("string|integer"), for the tests */
	/* What the value is and where it comes from: for a key not yet in docs/schema/,
	 * scripts/gen-schema.py (run by `scripts/hwcheck-dev gen`) writes its schema entry with
	 * this as its description; the schema's description is what docs/FACTS.md shows. */
	const char *doc;
};
/* A vector with a status: the array when ok, else null + status. On a fact, flag or string:
 * the status at meta (another member's, a source's) when not ok, else the value. */
#define HWC_JF_META 1u
/* Always known (the collector sets it on every element), so written even in a
 * HWC_JTAB_OMIT_UNSET table; the schema may forbid null for it. */
#define HWC_JF_ALWAYS 2u
#define HWC_JF_TRUE_ONLY 4u   /* a FLAG written only when true */
#define HWC_JF_NULL 8u        /* a PSTR written as null when NULL */
#define HWC_JF_KEEP_UNSET 16u /* a GROUP nobody set is written (null, "not_collected") */
/* A vector with a status (HWC_JF_META) that nobody set is written as its array, [] when empty
 * (a section read from a facts file without the key). */
#define HWC_JF_UNSET_ARRAY 32u

struct hwc_jtable {
	const char *path; /* where the object sits in the facts: "host.numa.nodes[]" (for tests) */
	const struct hwc_jfield *f;
	size_t n;
	unsigned flags;   /* HWC_JTAB_* */
};
/* Facts (and vectors with a status) nobody set are left out instead of written as
 * "not_collected": a PCI function has no SR-IOV, a bridge no VPD. */
#define HWC_JTAB_OMIT_UNSET 1u

#define HWC_JTABLE(path_, fields_, flags_) {path_, fields_, HWC_ARRAY_SIZE(fields_), flags_}
/* A fact member whose key is its name; a fact under another key. */
#define HWC_JF(T, member, type) {.key = #member, .t = type, .off = offsetof(T, member)}
/* The same with its description (the schema entry scripts/gen-schema.py writes for a new key). */
#define HWC_JFD(T, member, type, doc_)                                                             \
	{.key = #member, .t = type, .off = offsetof(T, member), .doc = doc_}
#define HWC_JFK(T, key_, member, type) {.key = key_, .t = type, .off = offsetof(T, member)}
#define HWC_JFF(T, key_, member, type, flags_)                                                     \
	{.key = key_, .t = type, .off = offsetof(T, member), .flags = flags_}
/* A nested object (OBJ or GROUP) of type T's member. */
#define HWC_JSUB(T, key_, member, type, table)                                                     \
	{.key = key_, .t = type, .off = offsetof(T, member), .sub = &(table)}
#define HWC_JSUBD(T, key_, member, type, table, doc_)                                              \
	{.key = key_, .t = type, .off = offsetof(T, member), .sub = &(table), .doc = doc_}
/* A vector of elements of type E, without and with a status member. */
#define HWC_JVEC(T, key_, member, E, table)                                                        \
	{.key = key_, .t = HWC_JT_VEC, .off = offsetof(T, member), .sub = &(table), .elem = sizeof(E)}
#define HWC_JVEC_M(T, key_, member, meta_, E, table)                                               \
	{.key = key_, .t = HWC_JT_VEC, .off = offsetof(T, member), .flags = HWC_JF_META,             \
	 .meta = offsetof(T, meta_), .sub = &(table), .elem = sizeof(E)}
/* A vector of scalars (STRV, I64V, F64V), without and with a status member. */
#define HWC_JLIST(T, key_, member, type) {.key = key_, .t = type, .off = offsetof(T, member)}
#define HWC_JLIST_M(T, key_, member, meta_, type)                                                  \
	{.key = key_, .t = type, .off = offsetof(T, member), .flags = HWC_JF_META,                  \
	 .meta = offsetof(T, meta_)}
/* Named u64 facts written inline, one key per name. */
#define HWC_JNAMED(T, member, names_, n_)                                                          \
	{.t = HWC_JT_U64_NAMED, .off = offsetof(T, member), .elem = (n_), .names = (names_)}
#define HWC_JCUSTOM(T, key_, member, put_, get_)                                                   \
	{.key = key_, .t = HWC_JT_CUSTOM, .off = offsetof(T, member), .put = put_, .get = get_}
/* The same, with the JSON types it writes declared for the table-vs-schema test. */
#define HWC_JCUSTOM_T(T, key_, member, put_, get_, types_)                                         \
	{.key = key_, .t = HWC_JT_CUSTOM, .off = offsetof(T, member), .put = put_, .get = get_,      \
	 .types = types_}
/* A fixed-size array (struct hwc_fslots of n elements) of integers or booleans. */
#define HWC_JSLOTS(T, key_, member, type, n_)                                                      \
	{.key = key_, .t = type, .off = offsetof(T, member), .elem = (n_)}

/* Writes base's facts into o (an object), "unavailable" last. 0 or -ENOMEM. */
int hwc_json_put_table(json_t *o, const void *base, const struct hwc_jtable *t);
/* A new object of base's facts (NULL on ENOMEM). */
json_t *hwc_json_from_table(const void *base, const struct hwc_jtable *t);
/* Reads o into base (zeroed by the caller), with the statuses of the hwc_json_get_* readers; o
 * NULL leaves every fact not_collected. Elements of a vector that are not objects or lack their
 * key are skipped. 0, or -EINVAL when something was not of its type (the rest is read). */
int hwc_json_get_table(const json_t *o, struct hwc_arena *a, void *base,
		       const struct hwc_jtable *t);
/* Copies every string, detail and vector of base into a (they were made in a scratch arena). */
int hwc_json_persist_table(void *base, struct hwc_arena *a, const struct hwc_jtable *t);
/* Gives every fact of base's table (named arrays too, not nested objects) the status m: a source
 * that failed. */
void hwc_json_fail_table(void *base, const struct hwc_jtable *t, const struct hwc_fmeta *m);
/* A JSON array of the vector {T *items; size_t n, cap;} at vec, one object per element (elements
 * of elem bytes, described by t); and back, appending to the vector (elements that are not
 * objects or lack their key are left out: -EINVAL, the rest is read). */
json_t *hwc_json_array_from_vec(const void *vec, size_t elem, const struct hwc_jtable *t);
int hwc_json_array_to_vec(const json_t *arr, struct hwc_arena *a, void *vec, size_t elem,
			  const struct hwc_jtable *t);

/* A section's reader: a new zeroed struct of size bytes for the section j, an object, read by t
 * (NULL: only made). NULL when j is not an object (*rc = -EINVAL) or without memory (-ENOMEM);
 * else *rc is 0, or -EINVAL when something was not of its type (the rest is read). */
void *hwc_json_section_from(const json_t *j, struct hwc_arena *a, size_t size,
			    const struct hwc_jtable *t, int *rc);

/* Array helper: the array to walk under key, with its status in *m (NULL when not ok); a value
 * that is neither an array nor null is invalid (-EINVAL in *rc). */
const json_t *hwc_json_get_array(const json_t *o, const char *key, struct hwc_arena *a,
				 struct hwc_fmeta *m, int *rc);

#endif
