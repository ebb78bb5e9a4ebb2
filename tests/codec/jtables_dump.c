/* SPDX-License-Identifier: MIT */
/* Prints every facts field table (core/json.h) as JSON, walked from the section roots, for
 * check_jtables.py to compare with docs/schema/: one line per key with where it sits. */
#include <jansson.h>
#include <stdio.h>

#include "core/json.h"
#include "core/util.h"
#include "hwinfo/hwinfo.h"
#include "hwinfo/roce.h"
#include "mlx/mlx.h"
#include "pci/pci.h"
#include "probe/probe.h"
#include "thermal/thermal.h"

static const char *const type_names[] = {
	[HWC_JT_I64] = "i64",	  [HWC_JT_U64] = "u64",	      [HWC_JT_F64] = "f64",
	[HWC_JT_BOOL] = "bool",	  [HWC_JT_STR] = "str",	      [HWC_JT_META] = "meta",
	[HWC_JT_KEY_I64] = "key_i64", [HWC_JT_KEY_STR] = "key_str", [HWC_JT_OBJ] = "obj",
	[HWC_JT_GROUP] = "group", [HWC_JT_VEC] = "vec",	      [HWC_JT_STRV] = "strv",
	[HWC_JT_I64V] = "i64v",	  [HWC_JT_F64V] = "f64v",     [HWC_JT_CUSTOM] = "custom",
	[HWC_JT_FLAG] = "flag",   [HWC_JT_U64_NAMED] = "u64",
	[HWC_JT_I64_SLOTS] = "i64_slots", [HWC_JT_BOOL_SLOTS] = "bool_slots",
	[HWC_JT_STR_SLOTS] = "str_slots", [HWC_JT_PSTR] = "pstr", [HWC_JT_OPT_F64] = "opt_f64",
	[HWC_JT_MAP] = "map", [HWC_JT_STATUS] = "status", [HWC_JT_DETAIL] = "detail",
};

static void walk(json_t *out, const char *schema, json_t *path, const struct hwc_jtable *t)
{
	json_t *keys = json_array();
	for (size_t i = 0; i < t->n; i++) {
		const struct hwc_jfield *f = &t->f[i];
		for (size_t k = 0; f->t == HWC_JT_U64_NAMED && k < f->elem; k++) {
			json_array_append_new(keys, json_string(f->names[k]));
			json_array_append_new(out, json_pack("{s:s, s:O, s:s, s:s, s:b, s:b}", "schema",
							     schema, "path", path, "key", f->names[k],
							     "type", "u64", "status", 0, "always", 0));
		}
		if (f->t == HWC_JT_U64_NAMED)
			continue;
		json_array_append_new(keys, json_string(f->key));
		json_array_append_new(out, json_pack("{s:s, s:O, s:s, s:s, s:b, s:b, s:b, s:s?, s:s?}",
						     "schema", schema, "path", path, "key", f->key,
						     "type", type_names[f->t], "status",
						     (f->flags & HWC_JF_META) != 0, "always",
						     (f->flags & HWC_JF_ALWAYS) != 0, "null",
						     (f->flags & HWC_JF_NULL) != 0, "types", f->types,
						     "doc", f->doc));
		if (!f->sub)
			continue;
		json_t *sub = json_copy(path);
		json_array_append_new(sub, json_string(f->key));
		if (f->t == HWC_JT_VEC || f->t == HWC_JT_MAP) /* an element; a map's: any key */
			json_array_append_new(sub, json_string(f->t == HWC_JT_VEC ? "[]" : "{}"));
		walk(out, schema, sub, f->sub);
		json_decref(sub);
	}
	/* the table's whole key set, so that the schema's keys can be checked the other way */
	json_array_append_new(out, json_pack("{s:s, s:O, s:o}", "schema", schema, "path", path, "table",
					     keys));
}

int main(void)
{
	/* each root table and the steps from its section's top to its object ("[]": an element) */
	static const struct {
		const char *schema;
		const char *steps[6];
		const struct hwc_jtable *t;
	} roots[] = {
		{"urn:hwcheck:host", {NULL}, &hwc_host_table},
		{"urn:hwcheck:netdevs", {"[]"}, &hwc_netdev_table},
		{"urn:hwcheck:pci", {NULL}, &hwc_pci_table},
		{"urn:hwcheck:probe", {NULL}, &hwc_probe_table},
		{"urn:hwcheck:thermal", {NULL}, &hwc_thermal_table},
		{"urn:hwcheck:roce", {NULL}, &hwc_roce_table},
		{"urn:hwcheck:mlx", {NULL}, &hwc_mlx_table},
		{"urn:hwcheck:watch", {NULL}, &hwc_watch_table},
	};
	json_t *out = json_array();
	for (size_t i = 0; i < HWC_ARRAY_SIZE(roots); i++) {
		json_t *path = json_array();
		for (size_t k = 0; k < 6 && roots[i].steps[k]; k++)
			json_array_append_new(path, json_string(roots[i].steps[k]));
		walk(out, roots[i].schema, path, roots[i].t);
		json_decref(path);
	}
	int rc = hwc_json_dumpf(out, stdout, true);
	json_decref(out);
	return rc ? 1 : 0;
}
