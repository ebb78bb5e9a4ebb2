/* SPDX-License-Identifier: MIT */
/* The field-table codec (core/json.h): exact output (key order, nulls, "unavailable" last), the
 * round trip, broken input (wrong types, elements without their key), omission and persist. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/arena.h"
#include "core/json.h"
#include "test.h"

struct el {
	int64_t id;
	struct hwc_fstr name;
};
struct grp {
	struct hwc_fmeta m;
	struct hwc_fi64 x;
};
struct top {
	struct hwc_fi64 a;
	struct hwc_fu64 u;
	struct hwc_ff64 f;
	struct hwc_fbool b;
	struct hwc_fstr s;
	struct grp g, g2;
	struct {
		struct el *items;
		size_t n, cap;
	} els;
	struct hwc_fmeta els_m;
	struct {
		const char **items;
		size_t n, cap;
	} names;
	struct {
		double *items;
		size_t n, cap;
	} speeds;
	struct hwc_fmeta speeds_m;
};

static const struct hwc_jfield el_f[] = {
	HWC_JF(struct el, id, HWC_JT_KEY_I64),
	HWC_JF(struct el, name, HWC_JT_STR),
};
static const struct hwc_jtable el_t = HWC_JTABLE("t.els[]", el_f, 0);
static const struct hwc_jfield grp_f[] = {HWC_JF(struct grp, x, HWC_JT_I64)};
static const struct hwc_jtable grp_t = HWC_JTABLE("t.g", grp_f, 0);
static const struct hwc_jfield top_f[] = {
	HWC_JF(struct top, a, HWC_JT_I64),
	HWC_JF(struct top, u, HWC_JT_U64),
	HWC_JF(struct top, f, HWC_JT_F64),
	HWC_JF(struct top, b, HWC_JT_BOOL),
	HWC_JFF(struct top, "s", s, HWC_JT_STR, HWC_JF_ALWAYS),
	HWC_JSUB(struct top, "g", g, HWC_JT_GROUP, grp_t),
	HWC_JSUB(struct top, "g2", g2, HWC_JT_GROUP, grp_t),
	HWC_JVEC_M(struct top, "els", els, els_m, struct el, el_t),
	HWC_JLIST(struct top, "names", names, HWC_JT_STRV),
	HWC_JLIST_M(struct top, "speeds", speeds, speeds_m, HWC_JT_F64V),
};
static const struct hwc_jtable top_t = HWC_JTABLE("t", top_f, 0);
static const struct hwc_jtable top_omit_t = HWC_JTABLE("t", top_f, HWC_JTAB_OMIT_UNSET);

static char *dump(const void *base, const struct hwc_jtable *t)
{
	json_t *o = hwc_json_from_table(base, t);
	char *s = hwc_json_dumps(o, false);
	json_decref(o);
	return s;
}

static void fill(struct top *t, struct hwc_arena *a)
{
	memset(t, 0, sizeof(*t));
	HWC_FAIL(t->a, HWC_ST_NEEDS_ROOT, 13, "needs CAP_SYS_ADMIN");
	HWC_SET(t->u, UINT64_MAX);
	HWC_SET(t->f, 2.5);
	HWC_SET(t->b, true);
	HWC_SET(t->s, "x");
	hwc_fmeta_set(&t->g.m, HWC_ST_OK, 0, NULL);
	HWC_SET(t->g.x, 7);
	hwc_fmeta_set(&t->els_m, HWC_ST_OK, 0, NULL);
	struct el *e = HWC_VEC_PUSH(a, &t->els);
	e->id = 3;
	HWC_SET(e->name, "n3");
	const char **n = HWC_VEC_PUSH(a, &t->names);
	*n = "p";
	hwc_fmeta_set(&t->speeds_m, HWC_ST_ABSENT, 0, NULL);
}

static void test_put_get(struct hwc_arena *a)
{
	struct top t, back = {0};
	fill(&t, a);
	char *s = dump(&t, &top_t);
	CHECK_STR(s, "{\"a\":null,\"u\":1.8446744073709552e19,\"f\":2.5,\"b\":true,\"s\":\"x\","
		     "\"g\":{\"x\":7},\"els\":[{\"id\":3,\"name\":\"n3\"}],\"names\":[\"p\"],"
		     "\"speeds\":null,\"unavailable\":{\"a\":{\"status\":\"needs_root\",\"errno\":13,"
		     "\"detail\":\"needs CAP_SYS_ADMIN\"},\"speeds\":{\"status\":\"absent\"}}}");
	json_t *o = json_loads(s, 0, NULL);
	CHECK_INT(hwc_json_get_table(o, a, &back, &top_t), 0);
	CHECK_INT(back.u.v == UINT64_MAX, 1);
	CHECK_INT(back.a.m.st, HWC_ST_NEEDS_ROOT);
	CHECK_INT(back.g2.m.st, HWC_ST_UNSET);
	CHECK_INT(back.els.n, 1);
	char *s2 = dump(&back, &top_t);
	CHECK_STR(s2, s); /* the round trip is exact */
	free(s2);
	json_decref(o);
	free(s);

	/* omitted when nobody set them, except what is always known */
	struct top z = {0};
	s = dump(&z, &top_omit_t);
	CHECK_STR(s, "{\"s\":null,\"names\":[],\"unavailable\":{\"s\":{\"status\":\"not_collected\"}}}");
	free(s);
}

static void test_broken(struct hwc_arena *a)
{
	json_t *o = json_loads("{\"a\":\"x\",\"g\":5,\"els\":[{\"name\":\"no id\"},{\"id\":2},7],"
			       "\"names\":[\"ok\",1],\"speeds\":{}}",
			       0, NULL);
	struct top t = {0};
	CHECK_INT(hwc_json_get_table(o, a, &t, &top_t), -EINVAL);
	CHECK_INT(t.a.m.st, HWC_ST_INVALID);
	CHECK_INT(t.g.m.st, HWC_ST_INVALID);
	CHECK_INT(t.els.n, 1); /* the element without its id and the number are left out */
	CHECK_INT(t.els.items[0].id, 2);
	CHECK_INT(t.els.items[0].name.m.st, HWC_ST_UNSET);
	CHECK_INT(t.names.n, 1);
	CHECK_INT(t.speeds_m.st, HWC_ST_INVALID);
	CHECK_INT(t.u.m.st, HWC_ST_UNSET); /* missing: not collected */
	json_decref(o);
	struct top n = {0};
	CHECK_INT(hwc_json_get_table(NULL, a, &n, &top_t), 0);
	CHECK_INT(n.els_m.st, HWC_ST_UNSET);
	json_t *arr = json_loads("[{\"id\":1},{\"id\":\"x\"}]", 0, NULL);
	CHECK_INT(hwc_json_array_to_vec(arr, a, &n.els, sizeof(struct el), &el_t), -EINVAL);
	CHECK_INT(n.els.n, 1);
	json_decref(arr);
	CHECK_INT(hwc_json_array_to_vec(json_object_get(NULL, "x"), a, &n.els, sizeof(struct el),
					&el_t),
		  0);
}

static void test_persist(void)
{
	struct hwc_arena *scratch = hwc_arena_new(), *keep = hwc_arena_new();
	struct top t;
	fill(&t, scratch);
	char *before = dump(&t, &top_t);
	CHECK_INT(hwc_json_persist_table(&t, keep, &top_t), 0);
	hwc_arena_free(scratch); /* nothing of t may point into it any more (ASan checks) */
	char *after = dump(&t, &top_t);
	CHECK_STR(after, before);
	free(before);
	free(after);
	hwc_arena_free(keep);
}

int main(void)
{
	struct hwc_arena *a = hwc_arena_new();
	test_put_get(a);
	test_broken(a);
	test_persist();
	hwc_arena_free(a);
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
