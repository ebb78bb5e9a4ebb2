/* SPDX-License-Identifier: MIT */
/* facts.mlx <-> JSON (keys in docs/FACTS.md and docs/schema/mlx.schema.json). */
#include "mlx/mlx.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"

/* ---- writing -------------------------------------------------------------------------------- */

/* A config value: its name as mstconfig prints it ("per_mkey"), or a number; with the enum code
 * under KEY_code when mstconfig printed text(code). */
static void put_cfgval(json_t *o, const char *key, const struct hwc_mlx_cfgval *v)
{
	if (v->m.st != HWC_ST_OK) {
		hwc_json_put_meta(o, key, &v->m);
		return;
	}
	json_object_set_new(o, key, v->text ? hwc_json_string(v->text) : json_integer(v->num));
	if (v->has_code) {
		char k[64];
		snprintf(k, sizeof(k), "%s_code", key);
		json_object_set_new(o, k, json_integer(v->num));
	}
}

static json_t *cfg_json(const struct hwc_mlx_cfg *c)
{
	json_t *o = json_object();
	for (size_t i = 0; o && i < c->params.n; i++) {
		const struct hwc_mlx_cfgparam *p = &c->params.items[i];
		json_t *po = json_object();
		put_cfgval(po, "default", &p->dflt);
		put_cfgval(po, "current", &p->current);
		put_cfgval(po, "next_boot", &p->next_boot);
		hwc_json_put_bool(po, "pending", &p->pending);
		if (p->read_only)
			json_object_set_new(po, "read_only", json_true());
		json_object_set_new(o, p->name, hwc_json_unavail_last(po));
	}
	return o;
}

/* The value of a config column as JSON (string or number); NULL when unknown. */
static json_t *cfgval_json(const struct hwc_mlx_cfgval *v)
{
	if (v->m.st != HWC_ST_OK)
		return json_null();
	return v->text ? hwc_json_string(v->text) : json_integer(v->num);
}

/* Derived from fw_config (not read back: fw_config is the fact): every parameter a reset of the
 * configuration would undo, with what hwcheck judges with it. */
static void put_at_risk(json_t *o, const struct hwc_mlx_cfg *c)
{
	if (!hwc_ok(*c) || !c->has_default_current) {
		struct hwc_fmeta m = hwc_ok(*c) ? (struct hwc_fmeta){HWC_ST_UNSUPPORTED, 0,
					"mstconfig printed no Default column: what differs from the "
					"default is unknown"}
						: c->m;
		hwc_json_put_meta(o, "fw_at_risk", &m);
		return;
	}
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < c->params.n; i++) {
		const struct hwc_mlx_cfgparam *p = &c->params.items[i];
		if (!hwc_mlx_cfg_at_risk(p))
			continue;
		const char *dep = hwc_mlx_cfg_depends(p->name);
		json_array_append_new(arr, json_pack("{s:s, s:o, s:o, s:o, s:o}", "name", p->name,
						     "default", cfgval_json(&p->dflt), "current",
						     cfgval_json(&p->current), "next_boot",
						     cfgval_json(&p->next_boot), "depends_on",
						     dep ? json_string(dep) : json_null()));
	}
	json_object_set_new(o, "fw_at_risk", arr);
}

static json_t *fwreset_list_json(const struct hwc_mlx_fwreset_list *l, const char *key)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < l->n; i++) {
		const struct hwc_mlx_fwreset_opt *x = &l->items[i];
		json_array_append_new(arr, json_pack("{s:I, s:s?, s:b, s:b}", key, (json_int_t)x->num,
						     "description", x->description, "supported",
						     x->supported, "default", x->is_default));
	}
	return arr;
}

static void put_fw_reset(json_t *o, const struct hwc_mlx_fwreset *r)
{
	if (!hwc_ok(*r)) {
		hwc_json_put_meta(o, "fw_reset", &r->m);
		return;
	}
	json_object_set_new(o, "fw_reset",
			    json_pack("{s:o, s:o, s:o}", "levels", fwreset_list_json(&r->levels, "level"),
				      "types", fwreset_list_json(&r->types, "type"), "sync",
				      fwreset_list_json(&r->sync, "sync")));
}

/* ---- reading -------------------------------------------------------------------------------- */

static int get_cfgval(const json_t *o, const char *key, struct hwc_arena *a,
		      struct hwc_mlx_cfgval *v)
{
	const json_t *j = json_object_get(o, key);
	char k[64];
	snprintf(k, sizeof(k), "%s_code", key);
	const json_t *code = json_object_get(o, k);
	if (json_is_string(j)) {
		v->text = hwc_arena_strdup(a, json_string_value(j));
		hwc_fmeta_set(&v->m, HWC_ST_OK, 0, NULL);
		if (json_is_integer(code)) {
			v->num = json_integer_value(code);
			v->has_code = true;
		}
		return v->text ? 0 : -ENOMEM;
	}
	if (json_is_integer(j)) {
		v->num = json_integer_value(j);
		hwc_fmeta_set(&v->m, HWC_ST_OK, 0, NULL);
		return 0;
	}
	if (j && !json_is_null(j)) {
		hwc_fmeta_set(&v->m, HWC_ST_INVALID, 0, "expected a string or an integer");
		return -EINVAL;
	}
	return hwc_json_get_meta(o, key, a, &v->m);
}

static int get_cfg(const json_t *o, struct hwc_arena *a, struct hwc_mlx_cfg *c)
{
	const char *name;
	const json_t *po;
	int rc = 0;
	json_object_foreach((json_t *)o, name, po) {
		if (!json_is_object(po)) {
			rc = -EINVAL;
			continue;
		}
		struct hwc_mlx_cfgparam *p = HWC_VEC_PUSH(a, &c->params);
		if (!p)
			return -ENOMEM;
		p->name = hwc_arena_strdup(a, name);
		if (get_cfgval(po, "default", a, &p->dflt) < 0 ||
		    get_cfgval(po, "current", a, &p->current) < 0 ||
		    get_cfgval(po, "next_boot", a, &p->next_boot) < 0 ||
		    hwc_json_get_bool(po, "pending", a, &p->pending) < 0)
			rc = -EINVAL;
		p->read_only = json_is_true(json_object_get(po, "read_only"));
		if (p->dflt.m.st == HWC_ST_OK || p->current.m.st == HWC_ST_OK)
			c->has_default_current = true;
	}
	return rc;
}

static int get_fwreset_list(const json_t *arr, const char *key, struct hwc_arena *a,
			    struct hwc_mlx_fwreset_list *l)
{
	if (!json_is_array(arr))
		return -EINVAL;
	size_t i;
	const json_t *x;
	json_array_foreach(arr, i, x) {
		const json_t *num = json_object_get(x, key);
		if (!json_is_integer(num))
			return -EINVAL;
		struct hwc_mlx_fwreset_opt *op = HWC_VEC_PUSH(a, l);
		if (!op)
			return -ENOMEM;
		op->num = json_integer_value(num);
		const char *d = hwc_json_str_or(x, "description", NULL);
		op->description = d ? hwc_arena_strdup(a, d) : NULL;
		op->supported = json_is_true(json_object_get(x, "supported"));
		op->is_default = json_is_true(json_object_get(x, "default"));
	}
	return 0;
}

static int get_fw_reset(const json_t *o, struct hwc_arena *a, struct hwc_mlx_fwreset *r)
{
	const json_t *j = json_object_get(o, "fw_reset");
	if (!json_is_object(j))
		return hwc_json_get_meta(o, "fw_reset", a, &r->m);
	hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	int rc = get_fwreset_list(json_object_get(j, "levels"), "level", a, &r->levels);
	rc |= get_fwreset_list(json_object_get(j, "types"), "type", a, &r->types);
	rc |= get_fwreset_list(json_object_get(j, "sync"), "sync", a, &r->sync);
	return rc ? -EINVAL : 0;
}

/* ---- the adapter table: its custom entries wrap the writers and readers above ------------- */

static int vendor_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	(void)p;
	return json_object_set_new(o, f->key, json_string("15b3")) == 0 ? 0 : -ENOMEM;
}

/* Derived or constant keys are not read back (fw_config is the fact fw_at_risk comes from). */
static int no_get(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	(void)o, (void)f, (void)a, (void)p;
	return 0;
}

static int kevents_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	(void)f;
	hwc_mlx_kernel_events_json(o, p);
	return 0;
}

static int kevents_get(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	(void)f;
	return hwc_mlx_kernel_events_from_json(o, a, p);
}

/* fw_config, with fw_config_complete and fw_config_device_type beside it. */
static int cfg_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	const struct hwc_mlx_cfg *c = p;
	(void)f;
	if (!hwc_ok(*c)) {
		hwc_json_put_meta(o, "fw_config", &c->m);
		hwc_json_put_meta(o, "fw_config_complete", &c->m);
		return hwc_json_put_meta(o, "fw_config_device_type", &c->m);
	}
	json_object_set_new(o, "fw_config", cfg_json(c));
	struct hwc_fbool complete = {{HWC_ST_OK, 0, NULL}, c->complete};
	hwc_json_put_bool(o, "fw_config_complete", &complete);
	struct hwc_fstr dt = c->device_type;
	return hwc_json_put_str(o, "fw_config_device_type", &dt);
}

static int cfg_get(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	struct hwc_mlx_cfg *c = p;
	(void)f;
	const json_t *cfg = json_object_get(o, "fw_config");
	if (!json_is_object(cfg))
		return hwc_json_get_meta(o, "fw_config", a, &c->m);
	hwc_fmeta_set(&c->m, HWC_ST_OK, 0, NULL);
	int rc = get_cfg(cfg, a, c);
	struct hwc_fbool complete = {0};
	rc |= hwc_json_get_bool(o, "fw_config_complete", a, &complete);
	c->complete = hwc_ok(complete) && complete.v;
	rc |= hwc_json_get_str(o, "fw_config_device_type", a, &c->device_type);
	return rc ? -EINVAL : 0;
}

static int at_risk_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	(void)f;
	put_at_risk(o, p);
	return 0;
}

static int fw_reset_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	(void)f;
	put_fw_reset(o, p);
	return 0;
}

static int fw_reset_get(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	(void)f;
	return get_fw_reset(o, a, p);
}

#define S(T, k, m) HWC_JFK(struct T, k, m, HWC_JT_STR)
#define STRV(T, m) HWC_JLIST(struct T, #m, m, HWC_JT_STRV)
static const struct hwc_jfield function_f[] = {
	HWC_JF(struct hwc_mlx_function, bdf, HWC_JT_KEY_STR),
	S(hwc_mlx_function, "device_id", device_id),
	S(hwc_mlx_function, "class", class_code),
	S(hwc_mlx_function, "driver", driver),
	HWC_JF(struct hwc_mlx_function, is_vf, HWC_JT_FLAG),
	S(hwc_mlx_function, "physfn", physfn),
	STRV(hwc_mlx_function, netdevs),
	STRV(hwc_mlx_function, rdma_devices),
	STRV(hwc_mlx_function, hwmon),
};
const struct hwc_jtable hwc_mlx_function_table =
	HWC_JTABLE("mlx.adapters[].function_map[]", function_f, 0);

/* The port's counters are members of the port: their object is the port read by another table. */
static const struct hwc_jfield port_f[] = {
	HWC_JF(struct hwc_mlx_port, port, HWC_JT_KEY_I64),
	HWC_JF(struct hwc_mlx_port, rdma_device, HWC_JT_KEY_STR),
	S(hwc_mlx_port, "netdev", netdev),
	S(hwc_mlx_port, "state", state),
	S(hwc_mlx_port, "phys_state", phys_state),
	S(hwc_mlx_port, "link_layer", link_layer),
	HWC_JF(struct hwc_mlx_port, rate_gbps, HWC_JT_F64),
	S(hwc_mlx_port, "active_speed", active_speed),
	S(hwc_mlx_port, "active_width", active_width),
	HWC_JF(struct hwc_mlx_port, active_mtu, HWC_JT_I64),
	HWC_JF(struct hwc_mlx_port, max_mtu, HWC_JT_I64),
	HWC_JF(struct hwc_mlx_port, netdev_mtu, HWC_JT_I64),
	HWC_JF(struct hwc_mlx_port, netdev_speed_mbps, HWC_JT_I64),
	{.key = "counters", .t = HWC_JT_OBJ, .off = 0, .sub = &hwc_mlx_port_counters_table},
	HWC_JSUB(struct hwc_mlx_port, "phy", phy, HWC_JT_OBJ, hwc_mlx_phy_table),
	HWC_JSUB(struct hwc_mlx_port, "module", module, HWC_JT_OBJ, hwc_mlx_module_table),
	/* the far end of an InfiniBand port, else null + why */
	HWC_JSUB(struct hwc_mlx_port, "peer", peer, HWC_JT_GROUP, hwc_mlx_peer_table),
};
#undef S
#undef STRV
const struct hwc_jtable hwc_mlx_port_table = HWC_JTABLE("mlx.adapters[].ports[]", port_f, 0);

#define S(k, m) HWC_JFK(struct hwc_mlx_adapter, k, m, HWC_JT_STR)
#define C(k, m, put_, get_) HWC_JCUSTOM(struct hwc_mlx_adapter, k, m, put_, get_)
/* pcie_max and registers: members of the adapter (offset 0), objects of their own in JSON */
static const struct hwc_jfield pcie_max_f[] = {
	HWC_JFK(struct hwc_mlx_adapter, "speed_gts", pcie_max_speed_gts, HWC_JT_F64),
	HWC_JFK(struct hwc_mlx_adapter, "width", pcie_max_width, HWC_JT_I64),
};
static const struct hwc_jtable pcie_max_t = HWC_JTABLE("mlx.adapters[].pcie_max", pcie_max_f, 0);
static const struct hwc_jfield reg_f[] = {
	HWC_JFK(struct hwc_mlx_adapter, "temp_mdegc", reg.temp_mdegc, HWC_JT_I64),
	S("temp_source", reg.temp_source),
	S("power_status", reg.power_status),
	HWC_JFK(struct hwc_mlx_adapter, "pci_power_w", reg.pci_power_w, HWC_JT_I64),
};
static const struct hwc_jtable reg_t = HWC_JTABLE("mlx.adapters[].registers", reg_f, 0);
static const struct hwc_jfield adapter_f[] = {
	HWC_JF(struct hwc_mlx_adapter, bdf, HWC_JT_KEY_STR),
	C("vendor_id", bdf, vendor_put, no_get),
	S("device_id", device_id),
	HWC_JLIST(struct hwc_mlx_adapter, "functions", functions, HWC_JT_STRV),
	HWC_JVEC(struct hwc_mlx_adapter, "function_map", function_map, struct hwc_mlx_function,
		 hwc_mlx_function_table),
	S("product", product),
	S("generation", generation),
	{.key = "pcie_max", .t = HWC_JT_OBJ, .off = 0, .sub = &pcie_max_t},
	HWC_JF(struct hwc_mlx_adapter, port_rate_max_gbps, HWC_JT_F64),
	S("fw_version", fw_version),
	S("fw_version_source", fw_version_source),
	S("fw_version_stored", fw_version_stored),
	HWC_JF(struct hwc_mlx_adapter, fw_pending_reset, HWC_JT_BOOL),
	S("psid", psid),
	S("part_number", part_number),
	S("serial_number", serial_number),
	HWC_JLIST(struct hwc_mlx_adapter, "netdevs", netdevs, HWC_JT_STRV),
	HWC_JLIST(struct hwc_mlx_adapter, "rdma_devices", rdma_devices, HWC_JT_STRV),
	HWC_JVEC(struct hwc_mlx_adapter, "ports", ports, struct hwc_mlx_port, hwc_mlx_port_table),
	{.key = "kernel_events", .t = HWC_JT_CUSTOM, .off = 0, .put = kevents_put,
	 .get = kevents_get},
	C("fw_config", cfg, cfg_put, cfg_get),
	C("fw_at_risk", cfg, at_risk_put, no_get),
	C("fw_reset", fw_reset, fw_reset_put, fw_reset_get),
	{.key = "registers", .t = HWC_JT_OBJ, .off = 0, .sub = &reg_t},
};
#undef S
#undef C
const struct hwc_jtable hwc_mlx_adapter_table = HWC_JTABLE("mlx.adapters[]", adapter_f, 0);

json_t *hwc_mlx_to_json(const struct hwc_facts *f)
{
	const struct hwc_mlx_facts *mf = f->mlx;
	json_t *o = json_object();
	if (!o)
		return NULL;
	if (!mf) {
		struct hwc_fmeta m = {0};
		hwc_json_put_meta(o, "adapters", &m);
		return o;
	}
	if (mf->m.st == HWC_ST_OK) {
		json_object_set_new(o, "adapters",
				    hwc_json_array_from_vec(&mf->adapters, sizeof(struct hwc_mlx_adapter),
							    &hwc_mlx_adapter_table));
	} else {
		hwc_json_put_meta(o, "adapters", &mf->m);
	}
	if (mf->m.st != HWC_ST_OK)
		return hwc_json_unavail_last(o); /* no PCI device list: nothing was tried, the status above says why */
	if (mf->fw_image_file) {
		json_t *im = json_object();
		json_object_set_new(im, "file", hwc_json_string(mf->fw_image_file));
		const struct hwc_mlx_flint *fl = &mf->fw_image;
		if (hwc_ok(*fl)) {
			hwc_json_put_str(im, "image_type", &fl->image_type);
			hwc_json_put_str(im, "fw_version", &fl->fw_version);
			hwc_json_put_str(im, "psid", &fl->psid);
			hwc_json_put_str(im, "release_date", &fl->release_date);
		} else {
			static const char *const keys[] = {"image_type", "fw_version", "psid", "release_date"};
			for (size_t i = 0; i < 4; i++)
				hwc_json_put_meta(im, keys[i], &fl->m);
		}
		json_object_set_new(o, "fw_image", hwc_json_unavail_last(im));
	}
	json_t *t = json_object();
	hwc_json_put_str(t, "mstflint_version", &mf->tools.mstflint_version);
	json_object_set_new(t, "status", json_string(hwc_status_name(mf->tools.access.st)));
	if (mf->tools.access.detail)
		json_object_set_new(t, "detail", hwc_json_string(mf->tools.access.detail));
	json_object_set_new(o, "tools", hwc_json_unavail_last(t));
	return hwc_json_unavail_last(o);
}

int hwc_mlx_from_json(const json_t *j, struct hwc_facts *f)
{
	struct hwc_arena *a = f->arena;
	if (!json_is_object(j))
		return -EINVAL;
	struct hwc_mlx_facts *mf = hwc_arena_zalloc(a, sizeof(*mf));
	if (!mf)
		return -ENOMEM;
	f->mlx = mf;
	int rc = 0;
	const json_t *arr = json_object_get(j, "adapters");
	if (json_is_array(arr)) {
		hwc_fmeta_set(&mf->m, HWC_ST_OK, 0, NULL);
		rc = hwc_json_array_to_vec(arr, a, &mf->adapters, sizeof(struct hwc_mlx_adapter),
					   &hwc_mlx_adapter_table);
		if (rc == -ENOMEM)
			return rc;
	} else {
		rc |= hwc_json_get_meta(j, "adapters", a, &mf->m);
	}
	const json_t *im = json_object_get(j, "fw_image");
	if (json_is_object(im)) {
		const char *file = hwc_json_str_or(im, "file", "");
		mf->fw_image_file = hwc_arena_strdup(a, file);
		struct hwc_mlx_flint *fl = &mf->fw_image;
		rc |= hwc_json_get_str(im, "image_type", a, &fl->image_type);
		rc |= hwc_json_get_str(im, "fw_version", a, &fl->fw_version);
		rc |= hwc_json_get_str(im, "psid", a, &fl->psid);
		rc |= hwc_json_get_str(im, "release_date", a, &fl->release_date);
		fl->m = hwc_ok(fl->fw_version) ? (struct hwc_fmeta){HWC_ST_OK, 0, NULL} : fl->fw_version.m;
	}
	const json_t *t = json_object_get(j, "tools");
	rc |= hwc_json_get_str(t, "mstflint_version", a, &mf->tools.mstflint_version);
	const char *st = hwc_json_str_or(t, "status", "not_collected");
	enum hwc_status s = hwc_status_from_name(st);
	if (s == HWC_ST__COUNT)
		s = HWC_ST_INVALID;
	const char *d = hwc_json_str_or(t, "detail", NULL);
	hwc_fmeta_set(&mf->tools.access, s, 0, d ? hwc_arena_strdup(a, d) : NULL);
	return rc ? -EINVAL : 0;
}
