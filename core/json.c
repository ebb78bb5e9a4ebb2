/* SPDX-License-Identifier: MIT */
/* Fact values to and from JSON with their statuses. */
#include "core/json.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int put_unavail(json_t *obj, const char *key, const struct hwc_fmeta *m)
{
	if (json_object_set_new(obj, key, json_null()) < 0)
		return -ENOMEM;
	/* Keep "unavailable" the last key of the object, whatever order facts are written in. */
	json_t *u = json_object_get(obj, HWC_JSON_UNAVAILABLE);
	if (u) {
		json_incref(u);
		json_object_del(obj, HWC_JSON_UNAVAILABLE);
	} else if (!(u = json_object())) {
		return -ENOMEM;
	}
	if (json_object_set_new(obj, HWC_JSON_UNAVAILABLE, u) < 0)
		return -ENOMEM;
	json_t *s = json_object();
	if (!s)
		return -ENOMEM;
	json_object_set_new(s, "status", json_string(hwc_status_name(m->st)));
	if (m->err)
		json_object_set_new(s, "errno", json_integer(m->err));
	if (m->detail)
		json_object_set_new(s, "detail", hwc_json_string(m->detail));
	return json_object_set_new(u, key, s) < 0 ? -ENOMEM : 0;
}

#define PUT(obj, key, f, mk)                                                                       \
	do {                                                                                       \
		if ((f)->m.st != HWC_ST_OK)                                                         \
			return put_unavail((obj), (key), &(f)->m);                                 \
		json_t *v_ = (mk);                                                                 \
		return v_ && json_object_set_new((obj), (key), v_) == 0 ? 0 : -ENOMEM;             \
	} while (0)

int hwc_json_put_i64(json_t *obj, const char *key, const struct hwc_fi64 *f)
{
	PUT(obj, key, f, json_integer(f->v));
}

int hwc_json_put_u64(json_t *obj, const char *key, const struct hwc_fu64 *f)
{
	/* json_int_t is 64-bit signed: counters beyond it become reals (not exact, but never
	 * negative). */
	PUT(obj, key, f, f->v <= INT64_MAX ? json_integer((json_int_t)f->v) : json_real((double)f->v));
}

int hwc_json_put_f64(json_t *obj, const char *key, const struct hwc_ff64 *f)
{
	if (f->m.st == HWC_ST_OK && !isfinite(f->v))
		return put_unavail(obj, key, &(struct hwc_fmeta){HWC_ST_INVALID, 0, "not a finite number"});
	PUT(obj, key, f, json_real(f->v));
}

int hwc_json_put_bool(json_t *obj, const char *key, const struct hwc_fbool *f)
{
	PUT(obj, key, f, json_boolean(f->v));
}

int hwc_json_put_str(json_t *obj, const char *key, const struct hwc_fstr *f)
{
	if (f->m.st == HWC_ST_OK && !f->v)
		return put_unavail(obj, key, &(struct hwc_fmeta){HWC_ST_INVALID, 0, "no value"});
	PUT(obj, key, f, hwc_json_string(f->v));
}

json_t *hwc_json_string(const char *s)
{
	json_t *j = json_string(s);
	if (j || !s)
		return j;
	/* Bytes from a sysfs file or a tool that are not UTF-8 would make jansson refuse the
	 * string: keep ASCII, replace the rest with '?'. */
	size_t n = strlen(s);
	char *c = malloc(n + 1);
	if (!c)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		c[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	j = json_string(c);
	free(c);
	return j;
}

int hwc_json_put_meta(json_t *obj, const char *key, const struct hwc_fmeta *m)
{
	if (m->st == HWC_ST_OK)
		return 0;
	return put_unavail(obj, key, m);
}

json_t *hwc_json_unavail_last(json_t *o)
{
	json_t *u = json_object_get(o, HWC_JSON_UNAVAILABLE);
	if (u) {
		json_incref(u);
		json_object_del(o, HWC_JSON_UNAVAILABLE);
		json_object_set_new(o, HWC_JSON_UNAVAILABLE, u);
	}
	return o;
}

void hwc_json_set_before_unavail(json_t *obj, const char *key, json_t *v)
{
	json_t *u = json_object_get(obj, HWC_JSON_UNAVAILABLE);
	json_incref(u);
	json_object_del(obj, HWC_JSON_UNAVAILABLE);
	json_object_set_new(obj, key, v);
	if (u)
		json_object_set_new(obj, HWC_JSON_UNAVAILABLE, u);
}

int hwc_json_get_meta(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fmeta *m)
{
	const json_t *u = json_object_get(json_object_get(obj, HWC_JSON_UNAVAILABLE), key);
	if (!u) {
		if (json_object_get(obj, key) && !json_is_null(json_object_get(obj, key))) {
			hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
			return 0;
		}
		hwc_fmeta_set(m, HWC_ST_UNSET, 0, NULL);
		return 0;
	}
	enum hwc_status st = hwc_status_from_name(json_string_value(json_object_get(u, "status")));
	if (st == HWC_ST__COUNT || st == HWC_ST_OK) {
		hwc_fmeta_set(m, HWC_ST_INVALID, 0, "unknown status in the facts file");
		return -EINVAL;
	}
	const json_t *er = json_object_get(u, "errno");
	const char *d = json_string_value(json_object_get(u, "detail"));
	hwc_fmeta_set(m, st, json_is_integer(er) ? (int)json_integer_value(er) : 0,
		      d ? hwc_arena_strdup(a, d) : NULL);
	return 0;
}

/* Common prologue: returns 1 when the value is present and must be converted, 0 when the status
 * was set from "unavailable", <0 on a type error. */
static int get_common(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fmeta *m,
		      const json_t **v)
{
	*v = json_object_get(obj, key);
	if (!*v || json_is_null(*v)) {
		int rc = hwc_json_get_meta(obj, key, a, m);
		if (rc == 0 && m->st == HWC_ST_OK) /* null without a status */
			hwc_fmeta_set(m, HWC_ST_UNSET, 0, NULL);
		return rc;
	}
	return 1;
}

static int bad_type(struct hwc_fmeta *m, struct hwc_arena *a, const char *key, const char *want)
{
	hwc_fmeta_set(m, HWC_ST_INVALID, 0,
		      hwc_arena_printf(a, "\"%s\": expected %s in the facts file", key, want));
	return -EINVAL;
}

/* The body of a reader: the status from "unavailable" when the value is null or missing, else
 * the value when is_type(v), else invalid (expected want). */
#define GET(obj, key, a, f, is_type, want, value)                                                  \
	do {                                                                                       \
		const json_t *v;                                                                   \
		int rc_ = get_common((obj), (key), (a), &(f)->m, &v);                              \
		if (rc_ <= 0)                                                                      \
			return rc_;                                                                \
		if (!is_type(v))                                                                   \
			return bad_type(&(f)->m, (a), (key), (want));                              \
		HWC_SET(*(f), (value));                                                            \
		return 0;                                                                          \
	} while (0)

int hwc_json_get_i64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fi64 *f)
{
	GET(obj, key, a, f, json_is_integer, "an integer", (int64_t)json_integer_value(v));
}

/* A counter: a non-negative integer, or one beyond INT64_MAX written as a real. UINT64_MAX (a
 * counter or register that reads all ones) was written as the nearest double, 2^64: it reads
 * back as UINT64_MAX so that the round trip is exact. */
static bool is_u64(const json_t *v)
{
	return (json_is_integer(v) && json_integer_value(v) >= 0) ||
	       (json_is_real(v) && json_real_value(v) >= 0 &&
		json_real_value(v) <= 18446744073709551616.0);
}

static uint64_t u64_value(const json_t *v)
{
	if (json_is_integer(v))
		return (uint64_t)json_integer_value(v);
	return json_real_value(v) < 18446744073709551616.0 ? (uint64_t)json_real_value(v)
							   : UINT64_MAX;
}

int hwc_json_get_u64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fu64 *f)
{
	GET(obj, key, a, f, is_u64, "a non-negative integer", u64_value(v));
}

int hwc_json_get_f64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_ff64 *f)
{
	GET(obj, key, a, f, json_is_number, "a number", json_number_value(v));
}

int hwc_json_get_bool(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fbool *f)
{
	GET(obj, key, a, f, json_is_boolean, "true or false", json_is_true(v));
}

int hwc_json_get_str(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fstr *f)
{
	const json_t *v;
	int rc = get_common(obj, key, a, &f->m, &v);
	if (rc <= 0)
		return rc;
	if (!json_is_string(v))
		return bad_type(&f->m, a, key, "a string");
	const char *s = hwc_arena_strdup(a, json_string_value(v));
	if (!s)
		return -ENOMEM;
	HWC_SET(*f, s);
	return 0;
}

const char *hwc_json_str_or(const json_t *obj, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(obj, key));
	return s ? s : dflt;
}

bool hwc_json_scalar_text(char *buf, size_t n, const json_t *v)
{
	if (json_is_string(v))
		snprintf(buf, n, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, n, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, n, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, n, "%s", json_is_true(v) ? "true" : "false");
	else
		return false;
	return true;
}

static size_t dump_flags(bool pretty)
{
	size_t flags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17);
	return flags | (pretty ? JSON_INDENT(2) : JSON_COMPACT);
}

char *hwc_json_dumps(const json_t *j, bool pretty)
{
	return json_dumps(j, dump_flags(pretty));
}

int hwc_json_dumpf(const json_t *j, FILE *out, bool pretty)
{
	return json_dumpf(j, out, dump_flags(pretty)) == 0 ? 0 : -EIO;
}

/* ---- Field tables --------------------------------------------------------------------------- */

/* The layout every arena vector shares ({T *items; size_t n, cap;}), copied in and out with
 * memcpy so that no vector is read through another struct type. */
struct jvec {
	void *items;
	size_t n, cap;
};

static const void *cfield(const void *base, size_t off)
{
	return (const char *)base + off;
}

static void *field(void *base, size_t off)
{
	return (char *)base + off;
}

static bool is_fact(enum hwc_jtype t)
{
	return t <= HWC_JT_META;
}

static int put_fact(json_t *o, const char *key, enum hwc_jtype t, const void *p)
{
	switch (t) {
	case HWC_JT_I64: return hwc_json_put_i64(o, key, p);
	case HWC_JT_U64: return hwc_json_put_u64(o, key, p);
	case HWC_JT_F64: return hwc_json_put_f64(o, key, p);
	case HWC_JT_BOOL: return hwc_json_put_bool(o, key, p);
	case HWC_JT_STR: return hwc_json_put_str(o, key, p);
	default: return hwc_json_put_meta(o, key, p);
	}
}

static json_t *vec_json(const struct hwc_jfield *f, const void *p)
{
	struct jvec v;
	memcpy(&v, p, sizeof(v));
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < v.n; i++) {
		json_t *x = NULL;
		switch (f->t) {
		case HWC_JT_VEC:
			x = hwc_json_from_table((const char *)v.items + i * f->elem, f->sub);
			break;
		case HWC_JT_STRV: x = hwc_json_string(((const char *const *)v.items)[i]); break;
		case HWC_JT_I64V: x = json_integer(((const int64_t *)v.items)[i]); break;
		default: x = json_real(((const double *)v.items)[i]); break;
		}
		json_array_append_new(arr, x);
	}
	return arr;
}

/* A vector with a status: the array when ok, else null + status (omitted when unset and
 * omit_unset); arr is stolen. 0 or -ENOMEM. */
static int put_array(json_t *o, const char *key, const struct hwc_fmeta *m, json_t *arr,
		     bool omit_unset)
{
	if (m->st == HWC_ST_OK && arr)
		return json_object_set_new(o, key, arr) == 0 ? 0 : -ENOMEM;
	json_decref(arr);
	if (m->st == HWC_ST_UNSET && omit_unset)
		return 0;
	static const struct hwc_fmeta nomem = {HWC_ST_INVALID, 0, "no memory"};
	return hwc_json_put_meta(o, key, m->st == HWC_ST_OK ? &nomem : m);
}

/* Sets o[key] = v (stolen); a NULL v (no memory, or no value to write) leaves the key out. */
static int set_value(json_t *o, const char *key, json_t *v)
{
	return v ? (json_object_set_new(o, key, v) == 0 ? 0 : -ENOMEM) : 0;
}

static json_t *slots_json(const struct hwc_fslots *r)
{
	json_t *arr = json_array();
	for (unsigned i = 0; arr && i < r->n; i++)
		json_array_append_new(arr, !r->has[i] ? json_null()
					   : r->is_bool ? json_boolean(r->v[i])
							: json_integer(r->v[i]));
	return arr;
}

static json_t *str_slots_json(const struct hwc_jfield *f, const void *p)
{
	const char *const *v = p;
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < f->elem; i++)
		json_array_append_new(arr, v[i] ? hwc_json_string(v[i]) : json_null());
	return arr;
}

/* An object of name -> element for a HWC_JT_MAP vector (each element's name leads it). */
static json_t *map_json(const struct hwc_jfield *f, const void *p)
{
	struct jvec v;
	memcpy(&v, p, sizeof(v));
	json_t *o = json_object();
	for (size_t i = 0; o && i < v.n; i++) {
		const char *el = (const char *)v.items + i * f->elem, *name;
		memcpy(&name, el, sizeof(name));
		if (name)
			json_object_set_new(o, name, hwc_json_from_table(el, f->sub));
	}
	return o;
}

/* The plain (status-less) kinds and the fixed-size arrays. */
static int put_plain(json_t *o, const struct hwc_jfield *f, const void *p)
{
	switch (f->t) {
	case HWC_JT_FLAG:
		if ((f->flags & HWC_JF_TRUE_ONLY) && !*(const bool *)p)
			return 0;
		return set_value(o, f->key, json_boolean(*(const bool *)p));
	case HWC_JT_KEY_I64: return set_value(o, f->key, json_integer(*(const int64_t *)p));
	case HWC_JT_KEY_STR: return set_value(o, f->key, hwc_json_string(*(const char *const *)p));
	case HWC_JT_PSTR: {
		const char *v = *(const char *const *)p;
		return set_value(o, f->key, v ? hwc_json_string(v)
					  : (f->flags & HWC_JF_NULL) ? json_null() : NULL);
	}
	case HWC_JT_OPT_F64: {
		double v = *(const double *)p;
		return set_value(o, f->key, v >= 0 ? json_real(v) : json_null());
	}
	case HWC_JT_STATUS:
		return set_value(o, f->key, json_string(hwc_status_name(((const struct hwc_fmeta *)p)->st)));
	case HWC_JT_DETAIL: {
		const char *d = ((const struct hwc_fmeta *)p)->detail;
		return set_value(o, f->key, d ? hwc_json_string(d) : NULL);
	}
	case HWC_JT_I64_SLOTS:
	case HWC_JT_BOOL_SLOTS: {
		const struct hwc_fslots *r = p;
		if (r->m.st != HWC_ST_OK)
			return hwc_json_put_meta(o, f->key, &r->m);
		return set_value(o, f->key, slots_json(r));
	}
	default: return set_value(o, f->key, str_slots_json(f, p)); /* HWC_JT_STR_SLOTS */
	}
}

static bool is_vector(enum hwc_jtype t)
{
	return t == HWC_JT_VEC || t == HWC_JT_STRV || t == HWC_JT_I64V || t == HWC_JT_F64V ||
	       t == HWC_JT_MAP;
}

static int put_field(json_t *o, const void *base, const struct hwc_jfield *f, unsigned tflags)
{
	const void *p = cfield(base, f->off);
	bool omit = (tflags & HWC_JTAB_OMIT_UNSET) && !(f->flags & HWC_JF_ALWAYS);
	if (f->when && !f->when(base))
		return 0;
	if ((f->flags & HWC_JF_META) && is_vector(f->t)) {
		json_t *arr = f->t == HWC_JT_MAP ? map_json(f, p) : vec_json(f, p);
		const struct hwc_fmeta *m = cfield(base, f->meta);
		if (m->st == HWC_ST_UNSET && (f->flags & HWC_JF_UNSET_ARRAY))
			return set_value(o, f->key, arr);
		return put_array(o, f->key, m, arr, omit);
	}
	if (f->flags & HWC_JF_META) { /* the status of another member decides */
		const struct hwc_fmeta *m = cfield(base, f->meta);
		if (m->st != HWC_ST_OK)
			return omit && m->st == HWC_ST_UNSET ? 0 : hwc_json_put_meta(o, f->key, m);
	}
	if (is_fact(f->t)) {
		if (omit && ((const struct hwc_fmeta *)p)->st == HWC_ST_UNSET)
			return 0;
		return put_fact(o, f->key, f->t, p);
	}
	switch (f->t) {
	case HWC_JT_U64_NAMED: {
		int rc = 0;
		for (size_t i = 0; i < f->elem; i++)
			rc |= hwc_json_put_u64(o, f->names[i], (const struct hwc_fu64 *)p + i);
		return rc ? -ENOMEM : 0;
	}
	case HWC_JT_OBJ: return set_value(o, f->key, hwc_json_from_table(p, f->sub));
	case HWC_JT_GROUP: {
		const struct hwc_fmeta *m = p;
		if (m->st == HWC_ST_UNSET && !(f->flags & HWC_JF_KEEP_UNSET))
			return 0;
		if (m->st != HWC_ST_OK)
			return hwc_json_put_meta(o, f->key, m);
		return set_value(o, f->key, hwc_json_from_table(p, f->sub));
	}
	case HWC_JT_CUSTOM: return f->put(o, f, p);
	case HWC_JT_MAP: return set_value(o, f->key, map_json(f, p));
	default:
		if (is_vector(f->t))
			return set_value(o, f->key, vec_json(f, p));
		return put_plain(o, f, p);
	}
}

int hwc_json_put_table(json_t *o, const void *base, const struct hwc_jtable *t)
{
	int rc = 0;
	for (size_t i = 0; i < t->n; i++)
		if (put_field(o, base, &t->f[i], t->flags) < 0)
			rc = -ENOMEM;
	hwc_json_unavail_last(o);
	return rc;
}

json_t *hwc_json_from_table(const void *base, const struct hwc_jtable *t)
{
	json_t *o = json_object();
	if (o && hwc_json_put_table(o, base, t) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

const json_t *hwc_json_get_array(const json_t *o, const char *key, struct hwc_arena *a,
				 struct hwc_fmeta *m, int *rc)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_array(v)) {
		hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
		return v;
	}
	if (v && !json_is_null(v)) {
		hwc_fmeta_set(m, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: not an array", key));
		*rc = -EINVAL;
		return NULL;
	}
	if (hwc_json_get_meta(o, key, a, m) < 0)
		*rc = -EINVAL;
	if (m->st == HWC_ST_OK) /* null without a status */
		hwc_fmeta_set(m, HWC_ST_UNSET, 0, NULL);
	return NULL;
}

static int get_fact(const json_t *o, const char *key, enum hwc_jtype t, struct hwc_arena *a,
		    void *p)
{
	switch (t) {
	case HWC_JT_I64: return hwc_json_get_i64(o, key, a, p);
	case HWC_JT_U64: return hwc_json_get_u64(o, key, a, p);
	case HWC_JT_F64: return hwc_json_get_f64(o, key, a, p);
	case HWC_JT_BOOL: return hwc_json_get_bool(o, key, a, p);
	case HWC_JT_STR: return hwc_json_get_str(o, key, a, p);
	default: return hwc_json_get_meta(o, key, a, p);
	}
}

static int get_field(const json_t *o, struct hwc_arena *a, void *base, const struct hwc_jfield *f);

/* One element of a vector into el; -ENOENT when it is not one (not of its type, or without its
 * key): it is then left out. */
static int get_elem(const json_t *v, struct hwc_arena *a, void *el, const struct hwc_jfield *f)
{
	switch (f->t) {
	case HWC_JT_VEC: {
		if (!json_is_object(v))
			return -ENOENT;
		int rc = 0;
		for (size_t i = 0; i < f->sub->n; i++) {
			int r = get_field(v, a, el, &f->sub->f[i]);
			if (r == -ENOENT || (r < 0 && (f->sub->f[i].t == HWC_JT_KEY_I64 ||
						       f->sub->f[i].t == HWC_JT_KEY_STR)))
				return -ENOENT;
			if (r < 0 && rc != -ENOMEM)
				rc = r;
		}
		return rc;
	}
	case HWC_JT_STRV:
		if (!json_is_string(v))
			return -ENOENT;
		*(const char **)el = hwc_arena_strdup(a, json_string_value(v));
		return *(const char **)el ? 0 : -ENOMEM;
	case HWC_JT_I64V:
		if (!json_is_integer(v))
			return -ENOENT;
		*(int64_t *)el = json_integer_value(v);
		return 0;
	default:
		if (!json_is_number(v))
			return -ENOENT;
		*(double *)el = json_number_value(v);
		return 0;
	}
}

static size_t elem_size(const struct hwc_jfield *f)
{
	switch (f->t) {
	case HWC_JT_VEC:
	case HWC_JT_MAP: return f->elem;
	case HWC_JT_STRV: return sizeof(const char *);
	case HWC_JT_I64V: return sizeof(int64_t);
	default: return sizeof(double);
	}
}

/* The elements of arr (an array, or NULL) appended to the vector at p. */
static int get_vec_arr(const json_t *arr, struct hwc_arena *a, void *p, const struct hwc_jfield *f)
{
	struct jvec vec;
	memcpy(&vec, p, sizeof(vec));
	size_t i, es = elem_size(f);
	const json_t *v;
	int rc = 0;
	json_array_foreach(arr, i, v) {
		if (hwc_arena_grow(a, &vec.items, es, &vec.cap, vec.n + 1) < 0) {
			rc = -ENOMEM;
			break;
		}
		void *el = (char *)vec.items + vec.n * es;
		memset(el, 0, es);
		int r = get_elem(v, a, el, f);
		if (r == -ENOMEM) {
			rc = r;
			break;
		}
		if (r != -ENOENT)
			vec.n++;
		if (r < 0)
			rc = -EINVAL;
	}
	memcpy(p, &vec, sizeof(vec));
	return rc;
}

static int get_vec(const json_t *o, struct hwc_arena *a, void *base, const struct hwc_jfield *f)
{
	int rc = 0;
	const json_t *arr = json_object_get(o, f->key);
	if (f->flags & HWC_JF_META)
		arr = hwc_json_get_array(o, f->key, a, field(base, f->meta), &rc);
	else if (json_is_null(arr))
		arr = NULL;
	else if (arr && !json_is_array(arr))
		return -EINVAL;
	int r = get_vec_arr(arr, a, field(base, f->off), f);
	return r < 0 ? r : rc;
}

json_t *hwc_json_array_from_vec(const void *vec, size_t elem, const struct hwc_jtable *t)
{
	const struct hwc_jfield f = {.t = HWC_JT_VEC, .sub = t, .elem = elem};
	return vec_json(&f, vec);
}

int hwc_json_array_to_vec(const json_t *arr, struct hwc_arena *a, void *vec, size_t elem,
			  const struct hwc_jtable *t)
{
	const struct hwc_jfield f = {.t = HWC_JT_VEC, .sub = t, .elem = elem};
	if (arr && !json_is_array(arr))
		return -EINVAL;
	return get_vec_arr(arr, a, vec, &f);
}

static int get_sub(const json_t *o, struct hwc_arena *a, void *p, const struct hwc_jfield *f)
{
	const json_t *v = json_object_get(o, f->key);
	if (f->t == HWC_JT_GROUP) {
		struct hwc_fmeta *m = p;
		int rc = hwc_json_get_meta(o, f->key, a, m);
		if (m->st != HWC_ST_OK)
			return rc;
		if (!json_is_object(v)) {
			hwc_fmeta_set(m, HWC_ST_INVALID, 0, "expected an object");
			return -EINVAL;
		}
		int r = hwc_json_get_table(v, a, p, f->sub);
		return rc < 0 ? rc : r;
	}
	if (!v || json_is_null(v))
		return 0; /* an older facts file: every fact stays not_collected */
	return json_is_object(v) ? hwc_json_get_table(v, a, p, f->sub) : -EINVAL;
}

/* A fixed-size array of f->elem integers or booleans (null elements stay unknown). */
static int get_slots(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a,
		     struct hwc_fslots *r)
{
	bool is_bool = f->t == HWC_JT_BOOL_SLOTS;
	hwc_fslots_init(r, (unsigned)f->elem, is_bool, NULL);
	const json_t *j = json_object_get(o, f->key), *x;
	if (!j || json_is_null(j))
		return hwc_json_get_meta(o, f->key, a, &r->m);
	if (!json_is_array(j) || json_array_size(j) != r->n)
		goto bad;
	hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	size_t i;
	json_array_foreach(j, i, x) {
		if (json_is_null(x))
			continue;
		if (is_bool ? !json_is_boolean(x) : !json_is_integer(x))
			goto bad;
		hwc_fslots_set(r, (unsigned)i, is_bool ? json_is_true(x) : json_integer_value(x));
	}
	return 0;
bad:
	hwc_fmeta_set(&r->m, HWC_ST_INVALID, 0,
		      hwc_arena_printf(a, "%s: not an array of %u", f->key, r->n));
	return -EINVAL;
}

/* const char *[f->elem] with its status at f->meta. */
static int get_str_slots(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a,
			 void *base)
{
	const char **v = field(base, f->off);
	struct hwc_fmeta *m = field(base, f->meta);
	const json_t *j = json_object_get(o, f->key), *x;
	memset(v, 0, f->elem * sizeof(*v));
	if (!j || json_is_null(j))
		return hwc_json_get_meta(o, f->key, a, m);
	if (!json_is_array(j) || json_array_size(j) != f->elem) {
		hwc_fmeta_set(m, HWC_ST_INVALID, 0,
			      hwc_arena_printf(a, "%s: not an array of %zu", f->key, f->elem));
		return -EINVAL;
	}
	hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
	size_t i;
	int rc = 0;
	json_array_foreach(j, i, x) {
		if (json_is_string(x) && !(v[i] = hwc_arena_strdup(a, json_string_value(x))))
			return -ENOMEM;
		if (!json_is_string(x) && !json_is_null(x))
			rc = -EINVAL;
	}
	return rc;
}

/* The elements of a HWC_JT_MAP object (values that are not objects are left out: -EINVAL). */
static int get_map(const json_t *o, struct hwc_arena *a, void *base, const struct hwc_jfield *f)
{
	int rc = 0;
	const json_t *j = json_object_get(o, f->key), *v;
	if (f->flags & HWC_JF_META) {
		struct hwc_fmeta *m = field(base, f->meta);
		if (!json_is_object(j) && j && !json_is_null(j)) {
			hwc_fmeta_set(m, HWC_ST_INVALID, 0, hwc_arena_printf(a, "%s: not an object", f->key));
			return -EINVAL;
		}
		if (!json_is_object(j))
			return hwc_json_get_meta(o, f->key, a, m);
		hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
	} else if (j && !json_is_object(j)) {
		return json_is_null(j) ? 0 : -EINVAL;
	}
	struct jvec vec;
	memcpy(&vec, field(base, f->off), sizeof(vec));
	const char *name;
	json_object_foreach((json_t *)j, name, v) {
		if (!json_is_object(v)) {
			rc = -EINVAL;
			continue;
		}
		if (hwc_arena_grow(a, &vec.items, f->elem, &vec.cap, vec.n + 1) < 0)
			return -ENOMEM;
		char *el = (char *)vec.items + vec.n++ * f->elem;
		memset(el, 0, f->elem);
		const char *nm = hwc_arena_strdup(a, name);
		memcpy(el, &nm, sizeof(nm));
		memcpy(field(base, f->off), &vec, sizeof(vec));
		int r = hwc_json_get_table(v, a, el, f->sub);
		if (!nm || r == -ENOMEM)
			return -ENOMEM;
		if (r < 0)
			rc = r;
	}
	memcpy(field(base, f->off), &vec, sizeof(vec));
	return rc;
}

/* The plain (status-less) kinds and the fixed-size arrays. */
static int get_plain(const json_t *o, struct hwc_arena *a, void *base, const struct hwc_jfield *f)
{
	void *p = field(base, f->off);
	const json_t *v = json_object_get(o, f->key);
	switch (f->t) {
	case HWC_JT_FLAG:
		*(bool *)p = json_is_true(v);
		return 0;
	case HWC_JT_KEY_I64:
		if (!json_is_integer(v))
			return -EINVAL;
		*(int64_t *)p = json_integer_value(v);
		return 0;
	case HWC_JT_KEY_STR:
	case HWC_JT_PSTR:
		if (!json_is_string(v))
			return f->t == HWC_JT_PSTR ? 0 : -EINVAL;
		*(const char **)p = hwc_arena_strdup(a, json_string_value(v));
		return *(const char **)p ? 0 : -ENOMEM;
	case HWC_JT_OPT_F64:
		*(double *)p = json_is_number(v) ? json_number_value(v) : -1;
		return 0;
	case HWC_JT_STATUS: {
		enum hwc_status st = v ? hwc_status_from_name(json_string_value(v)) : HWC_ST_UNSET;
		((struct hwc_fmeta *)p)->st = st == HWC_ST__COUNT ? HWC_ST_INVALID : st;
		return 0;
	}
	case HWC_JT_DETAIL:
		((struct hwc_fmeta *)p)->detail =
			json_is_string(v) ? hwc_arena_strdup(a, json_string_value(v)) : NULL;
		return 0;
	case HWC_JT_I64_SLOTS:
	case HWC_JT_BOOL_SLOTS: return get_slots(o, f, a, p);
	default: return get_str_slots(o, f, a, base);
	}
}

static int get_field(const json_t *o, struct hwc_arena *a, void *base, const struct hwc_jfield *f)
{
	void *p = field(base, f->off);
	if (is_fact(f->t))
		return get_fact(o, f->key, f->t, a, p);
	switch (f->t) {
	case HWC_JT_U64_NAMED: {
		int rc = 0;
		for (size_t i = 0; i < f->elem; i++)
			if (hwc_json_get_u64(o, f->names[i], a, (struct hwc_fu64 *)p + i) < 0)
				rc = -EINVAL;
		return rc;
	}
	case HWC_JT_OBJ:
	case HWC_JT_GROUP: return get_sub(o, a, p, f);
	case HWC_JT_CUSTOM: return f->get(o, f, a, p);
	case HWC_JT_MAP: return get_map(o, a, base, f);
	default:
		if (is_vector(f->t))
			return get_vec(o, a, base, f);
		return get_plain(o, a, base, f);
	}
}

int hwc_json_get_table(const json_t *o, struct hwc_arena *a, void *base, const struct hwc_jtable *t)
{
	int rc = 0;
	for (size_t i = 0; i < t->n; i++) {
		int r = get_field(o, a, base, &t->f[i]);
		if (r < 0 && rc != -ENOMEM)
			rc = r;
	}
	return rc;
}

void *hwc_json_section_from(const json_t *j, struct hwc_arena *a, size_t size,
			    const struct hwc_jtable *t, int *rc)
{
	void *base = json_is_object(j) ? hwc_arena_zalloc(a, size) : NULL;
	*rc = !json_is_object(j) ? -EINVAL : !base ? -ENOMEM : 0;
	if (base && t)
		*rc = hwc_json_get_table(j, a, base, t);
	if (*rc < 0 && *rc != -ENOMEM)
		*rc = -EINVAL;
	return base;
}

/* ---- persist ---- */

static int persist_str(struct hwc_arena *a, const char **s)
{
	if (*s && !(*s = hwc_arena_strdup(a, *s)))
		return -ENOMEM;
	return 0;
}

static int persist_vec(void *base, struct hwc_arena *a, const struct hwc_jfield *f)
{
	struct jvec v;
	memcpy(&v, field(base, f->off), sizeof(v));
	size_t es = elem_size(f);
	void *items = v.n ? hwc_arena_calloc(a, v.n, es) : NULL;
	if (v.n && !items)
		return -ENOMEM;
	if (v.n)
		memcpy(items, v.items, v.n * es);
	v.items = items;
	v.cap = v.n;
	memcpy(field(base, f->off), &v, sizeof(v));
	int rc = 0;
	for (size_t i = 0; i < v.n; i++) {
		void *el = (char *)items + i * es;
		if (f->t == HWC_JT_MAP)
			rc |= persist_str(a, (const char **)el);
		if (f->t == HWC_JT_VEC || f->t == HWC_JT_MAP)
			rc |= hwc_json_persist_table(el, a, f->sub);
		else if (f->t == HWC_JT_STRV)
			rc |= persist_str(a, (const char **)el);
	}
	return rc ? -ENOMEM : 0;
}

static int persist_field(void *base, struct hwc_arena *a, const struct hwc_jfield *f)
{
	void *p = field(base, f->off);
	int rc = 0;
	if (is_fact(f->t) || f->t == HWC_JT_GROUP)
		rc |= persist_str(a, &((struct hwc_fmeta *)p)->detail);
	if (f->t == HWC_JT_STR && ((struct hwc_fstr *)p)->m.st == HWC_ST_OK)
		rc |= persist_str(a, &((struct hwc_fstr *)p)->v);
	if (f->t == HWC_JT_STATUS || f->t == HWC_JT_DETAIL || f->t == HWC_JT_I64_SLOTS ||
	    f->t == HWC_JT_BOOL_SLOTS)
		return persist_str(a, &((struct hwc_fmeta *)p)->detail);
	if ((f->flags & HWC_JF_META) && (is_vector(f->t) || f->t == HWC_JT_STR_SLOTS))
		rc |= persist_str(a, &((struct hwc_fmeta *)field(base, f->meta))->detail);
	switch (f->t) {
	case HWC_JT_KEY_STR:
	case HWC_JT_PSTR: return persist_str(a, p);
	case HWC_JT_STR_SLOTS:
		for (size_t i = 0; i < f->elem; i++)
			rc |= persist_str(a, (const char **)p + i);
		return rc;
	case HWC_JT_U64_NAMED:
		for (size_t i = 0; i < f->elem; i++)
			rc |= persist_str(a, &((struct hwc_fu64 *)p + i)->m.detail);
		return rc;
	case HWC_JT_OBJ:
	case HWC_JT_GROUP: return rc | hwc_json_persist_table(p, a, f->sub);
	default: return is_vector(f->t) ? rc | persist_vec(base, a, f) : rc;
	}
}

int hwc_json_persist_table(void *base, struct hwc_arena *a, const struct hwc_jtable *t)
{
	int rc = 0;
	for (size_t i = 0; i < t->n; i++)
		rc |= persist_field(base, a, &t->f[i]);
	return rc ? -ENOMEM : 0;
}

void hwc_json_fail_table(void *base, const struct hwc_jtable *t, const struct hwc_fmeta *m)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct hwc_jfield *f = &t->f[i];
		if (is_fact(f->t))
			*(struct hwc_fmeta *)field(base, f->off) = *m;
		for (size_t k = 0; f->t == HWC_JT_U64_NAMED && k < f->elem; k++)
			((struct hwc_fu64 *)field(base, f->off) + k)->m = *m;
	}
}
