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

/* base is written as want, and read back into back (zeroed) gives the same bytes. */
static void check_round_trip(struct hwc_arena *a, const void *base, void *back,
			     const struct hwc_jtable *t, const char *want)
{
	char *s = dump(base, t);
	CHECK_STR(s, want);
	json_t *o = json_loads(s, 0, NULL);
	CHECK_INT(hwc_json_get_table(o, a, back, t), 0);
	char *s2 = dump(back, t);
	CHECK_STR(s2, s); /* the round trip is exact */
	free(s2);
	json_decref(o);
	free(s);
}

/* Once persisted, nothing of base may point into the scratch arena fill used (ASan checks). */
static void check_persist(void (*fill_fn)(void *, struct hwc_arena *), void *base,
			  const struct hwc_jtable *t)
{
	struct hwc_arena *scratch = hwc_arena_new(), *keep = hwc_arena_new();
	fill_fn(base, scratch);
	char *before = dump(base, t);
	CHECK_INT(hwc_json_persist_table(base, keep, t), 0);
	hwc_arena_free(scratch);
	char *after = dump(base, t);
	CHECK_STR(after, before);
	free(before);
	free(after);
	hwc_arena_free(keep);
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
	check_round_trip(a, &t, &back, &top_t,
			 "{\"a\":null,\"u\":1.8446744073709552e19,\"f\":2.5,\"b\":true,\"s\":\"x\","
			 "\"g\":{\"x\":7},\"els\":[{\"id\":3,\"name\":\"n3\"}],\"names\":[\"p\"],"
			 "\"speeds\":null,\"unavailable\":{\"a\":{\"status\":\"needs_root\",\"errno\":13,"
			 "\"detail\":\"needs CAP_SYS_ADMIN\"},\"speeds\":{\"status\":\"absent\"}}}");
	CHECK_INT(back.u.v == UINT64_MAX, 1);
	CHECK_INT(back.a.m.st, HWC_ST_NEEDS_ROOT);
	CHECK_INT(back.g2.m.st, HWC_ST_UNSET);
	CHECK_INT(back.els.n, 1);

	/* omitted when nobody set them, except what is always known */
	struct top z = {0};
	char *s = dump(&z, &top_omit_t);
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

/* ---- the kinds issue 19 added: maps, fixed-size arrays, plain optional values, a status of
 * another member, keys written only when a predicate holds */
struct param {
	const char *name; /* a map element's first member: its key */
	struct hwc_fbool on;
	bool ro;
};
struct kinds {
	struct hwc_fmeta m; /* the status of map, flag and str below */
	struct {
		struct param *items;
		size_t n, cap;
	} map;
	bool flag;
	struct hwc_fstr str;
	struct hwc_fslots prio, ecn;
	struct hwc_fmeta tsa_m;
	const char *tsa[3];
	const char *desc, *note;
	double t;
	struct hwc_fmeta tool;
	struct grp g;
	bool show;
};
static const struct hwc_jfield param_f[] = {
	HWC_JF(struct param, on, HWC_JT_BOOL),
	HWC_JFF(struct param, "ro", ro, HWC_JT_FLAG, HWC_JF_TRUE_ONLY),
};
static const struct hwc_jtable param_t = HWC_JTABLE("k.map{}", param_f, 0);
static bool shown(const void *base)
{
	return ((const struct kinds *)base)->show;
}
#define MK(k, member, type)                                                                        \
	{.key = k, .t = type, .off = offsetof(struct kinds, member), .flags = HWC_JF_META,           \
	 .meta = offsetof(struct kinds, m)}
static const struct hwc_jfield kinds_f[] = {
	{.key = "map", .t = HWC_JT_MAP, .off = offsetof(struct kinds, map), .flags = HWC_JF_META,
	 .meta = offsetof(struct kinds, m), .sub = &param_t, .elem = sizeof(struct param)},
	MK("flag", flag, HWC_JT_FLAG),
	MK("str", str, HWC_JT_STR),
	HWC_JSLOTS(struct kinds, "prio", prio, HWC_JT_I64_SLOTS, 4),
	HWC_JSLOTS(struct kinds, "ecn", ecn, HWC_JT_BOOL_SLOTS, 2),
	{.key = "tsa", .t = HWC_JT_STR_SLOTS, .off = offsetof(struct kinds, tsa),
	 .flags = HWC_JF_META, .meta = offsetof(struct kinds, tsa_m), .elem = 3},
	HWC_JFF(struct kinds, "desc", desc, HWC_JT_PSTR, HWC_JF_NULL),
	HWC_JFK(struct kinds, "note", note, HWC_JT_PSTR),
	HWC_JFK(struct kinds, "t", t, HWC_JT_OPT_F64),
	HWC_JFK(struct kinds, "status", tool, HWC_JT_STATUS),
	HWC_JFK(struct kinds, "detail", tool, HWC_JT_DETAIL),
	{.key = "g", .t = HWC_JT_GROUP, .off = offsetof(struct kinds, g), .sub = &grp_t,
	 .flags = HWC_JF_KEEP_UNSET},
	{.key = "shown", .t = HWC_JT_FLAG, .off = offsetof(struct kinds, show), .when = shown},
};
#undef MK
static const struct hwc_jtable kinds_t = HWC_JTABLE("k", kinds_f, 0);

static void fill_kinds(struct kinds *k, struct hwc_arena *a)
{
	memset(k, 0, sizeof(*k));
	hwc_fmeta_set(&k->m, HWC_ST_OK, 0, NULL);
	struct param *p = HWC_VEC_PUSH(a, &k->map);
	p->name = hwc_arena_strdup(a, "SRIOV_EN");
	HWC_SET(p->on, true);
	p->ro = true;
	p = HWC_VEC_PUSH(a, &k->map);
	p->name = hwc_arena_strdup(a, "NUM_OF_VFS");
	HWC_FAIL(p->on, HWC_ST_ABSENT, 0, NULL);
	k->flag = true;
	HWC_SET(k->str, "cx6");
	hwc_fslots_init(&k->prio, 4, false, NULL);
	hwc_fslots_set(&k->prio, 1, 3);
	hwc_fslots_init(&k->ecn, 2, true, hwc_arena_strdup(a, "no ecn/ tree"));
	hwc_fmeta_set(&k->tsa_m, HWC_ST_OK, 0, NULL);
	k->tsa[0] = "ets";
	k->note = hwc_arena_strdup(a, "n");
	k->t = -1;
	hwc_fmeta_set(&k->tool, HWC_ST_NEEDS_ROOT, 0, hwc_arena_strdup(a, "run as root"));
}

static void test_kinds(struct hwc_arena *a)
{
	struct kinds k, back = {0};
	fill_kinds(&k, a);
	check_round_trip(a, &k, &back, &kinds_t,
			 "{\"map\":{\"SRIOV_EN\":{\"on\":true,\"ro\":true},\"NUM_OF_VFS\":{\"on\":null,"
			 "\"unavailable\":{\"on\":{\"status\":\"absent\"}}}},\"flag\":true,"
			 "\"str\":\"cx6\",\"prio\":[null,3,null,null],\"ecn\":null,"
			 "\"tsa\":[\"ets\",null,null],\"desc\":null,\"note\":\"n\",\"t\":null,"
			 "\"status\":\"needs_root\",\"detail\":\"run as root\",\"g\":null,"
			 "\"unavailable\":{\"ecn\":{\"status\":\"absent\",\"detail\":\"no ecn/ tree\"},"
			 "\"g\":{\"status\":\"not_collected\"}}}");
	CHECK_INT(back.map.n, 2);
	CHECK_STR(back.map.items[1].name, "NUM_OF_VFS");
	CHECK_INT(back.prio.has[1] && back.prio.v[1] == 3 && !back.prio.has[0], 1);
	CHECK_INT(back.tool.st, HWC_ST_NEEDS_ROOT);

	/* the status of another member stands for the map, the flag and the string; a predicate */
	k.show = true, k.t = 1.5;
	hwc_fmeta_set(&k.m, HWC_ST_TIMEOUT, 0, NULL);
	char *s = dump(&k, &kinds_t);
	CHECK_STR(s, "{\"map\":null,\"flag\":null,\"str\":null,\"prio\":[null,3,null,null],"
		     "\"ecn\":null,\"tsa\":[\"ets\",null,null],\"desc\":null,\"note\":\"n\","
		     "\"t\":1.5,\"status\":\"needs_root\",\"detail\":\"run as root\",\"g\":null,"
		     "\"shown\":true,\"unavailable\":{\"map\":{\"status\":\"timeout\"},\"flag\":"
		     "{\"status\":\"timeout\"},\"str\":{\"status\":\"timeout\"},\"ecn\":{\"status\":"
		     "\"absent\",\"detail\":\"no ecn/ tree\"},\"g\":{\"status\":\"not_collected\"}}}");
	free(s);
}

static void test_kinds_broken(struct hwc_arena *a)
{
	json_t *o = json_loads("{\"map\":{\"A\":1,\"B\":{\"on\":\"yes\"}},\"prio\":[1,2],\"ecn\":"
			       "[true,3],\"tsa\":[\"ets\",4,null],\"desc\":7,\"t\":\"x\",\"status\":"
			       "\"sleepy\"}",
			       0, NULL);
	struct kinds k = {0};
	CHECK_INT(hwc_json_get_table(o, a, &k, &kinds_t), -EINVAL);
	CHECK_INT(k.m.st, HWC_ST_OK);
	CHECK_INT(k.map.n, 1); /* the value that is not an object is left out */
	CHECK_INT(k.map.items[0].on.m.st, HWC_ST_INVALID);
	CHECK_INT(k.prio.m.st, HWC_ST_INVALID); /* not 4 elements */
	CHECK_STR(k.prio.m.detail, "prio: not an array of 4");
	CHECK_INT(k.ecn.m.st, HWC_ST_INVALID); /* 3 is not a boolean */
	CHECK_INT(k.tsa_m.st, HWC_ST_OK);
	CHECK_STR(k.tsa[0], "ets");
	CHECK_INT(k.tsa[1] == NULL, 1);
	CHECK_INT(k.desc == NULL && k.t < 0, 1);
	CHECK_INT(k.tool.st, HWC_ST_INVALID);
	json_decref(o);
	o = json_loads("{\"map\":[],\"tsa\":[]}", 0, NULL);
	struct kinds z = {0};
	CHECK_INT(hwc_json_get_table(o, a, &z, &kinds_t), -EINVAL);
	CHECK_INT(z.m.st, HWC_ST_INVALID);
	CHECK_INT(z.tsa_m.st, HWC_ST_INVALID);
	CHECK_INT(z.tool.st, HWC_ST_UNSET); /* no status key: not collected */
	json_decref(o);
}

static void fill_top(void *t, struct hwc_arena *a)
{
	fill(t, a);
}

static void fill_kinds_v(void *k, struct hwc_arena *a)
{
	fill_kinds(k, a);
}

int main(void)
{
	struct hwc_arena *a = hwc_arena_new();
	test_put_get(a);
	test_broken(a);
	test_kinds(a);
	test_kinds_broken(a);
	struct top t;
	check_persist(fill_top, &t, &top_t);
	struct kinds k;
	check_persist(fill_kinds_v, &k, &kinds_t);
	hwc_arena_free(a);
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
