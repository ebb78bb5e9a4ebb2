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

int hwc_json_get_i64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fi64 *f)
{
	const json_t *v;
	int rc = get_common(obj, key, a, &f->m, &v);
	if (rc <= 0)
		return rc;
	if (!json_is_integer(v))
		return bad_type(&f->m, a, key, "an integer");
	HWC_SET(*f, (int64_t)json_integer_value(v));
	return 0;
}

int hwc_json_get_u64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fu64 *f)
{
	const json_t *v;
	int rc = get_common(obj, key, a, &f->m, &v);
	if (rc <= 0)
		return rc;
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		HWC_SET(*f, (uint64_t)json_integer_value(v));
		return 0;
	}
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 18446744073709551616.0) {
		HWC_SET(*f, (uint64_t)json_real_value(v));
		return 0;
	}
	/* UINT64_MAX (a counter or register that reads all ones) was written as the nearest
	 * double, 2^64: read it back as UINT64_MAX so the round trip is exact. */
	if (json_is_real(v) && json_real_value(v) == 18446744073709551616.0) {
		HWC_SET(*f, UINT64_MAX);
		return 0;
	}
	return bad_type(&f->m, a, key, "a non-negative integer");
}

int hwc_json_get_f64(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_ff64 *f)
{
	const json_t *v;
	int rc = get_common(obj, key, a, &f->m, &v);
	if (rc <= 0)
		return rc;
	if (!json_is_number(v))
		return bad_type(&f->m, a, key, "a number");
	HWC_SET(*f, json_number_value(v));
	return 0;
}

int hwc_json_get_bool(const json_t *obj, const char *key, struct hwc_arena *a, struct hwc_fbool *f)
{
	const json_t *v;
	int rc = get_common(obj, key, a, &f->m, &v);
	if (rc <= 0)
		return rc;
	if (!json_is_boolean(v))
		return bad_type(&f->m, a, key, "true or false");
	HWC_SET(*f, json_is_true(v));
	return 0;
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
