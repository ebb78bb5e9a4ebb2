/* SPDX-License-Identifier: MIT */
/* facts.mlx <-> JSON (keys in docs/FACTS.md and docs/schema/mlx.schema.json). */
#include "mlx/mlx.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"

/* ---- writing -------------------------------------------------------------------------------- */

static json_t *strv_json(const struct hwc_mlx_strv *v)
{
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < v->n; i++)
		json_array_append_new(arr, hwc_json_string(v->items[i]));
	return arr;
}

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

static json_t *function_json(const struct hwc_mlx_function *fn)
{
	json_t *o = json_object();
	json_object_set_new(o, "bdf", hwc_json_string(fn->bdf));
	hwc_json_put_str(o, "device_id", &fn->device_id);
	hwc_json_put_str(o, "class", &fn->class_code);
	hwc_json_put_str(o, "driver", &fn->driver);
	json_object_set_new(o, "is_vf", json_boolean(fn->is_vf));
	hwc_json_put_str(o, "physfn", &fn->physfn);
	json_object_set_new(o, "netdevs", strv_json(&fn->netdevs));
	json_object_set_new(o, "rdma_devices", strv_json(&fn->rdma_devices));
	json_object_set_new(o, "hwmon", strv_json(&fn->hwmon));
	return hwc_json_unavail_last(o);
}

static json_t *port_json(const struct hwc_mlx_port *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "port", json_integer(p->port));
	json_object_set_new(o, "rdma_device", hwc_json_string(p->rdma_device));
	hwc_json_put_str(o, "netdev", &p->netdev);
	hwc_json_put_str(o, "state", &p->state);
	hwc_json_put_str(o, "phys_state", &p->phys_state);
	hwc_json_put_str(o, "link_layer", &p->link_layer);
	hwc_json_put_f64(o, "rate_gbps", &p->rate_gbps);
	hwc_json_put_str(o, "active_speed", &p->active_speed);
	hwc_json_put_str(o, "active_width", &p->active_width);
	hwc_json_put_i64(o, "active_mtu", &p->active_mtu);
	hwc_json_put_i64(o, "max_mtu", &p->max_mtu);
	hwc_json_put_i64(o, "netdev_mtu", &p->netdev_mtu);
	hwc_json_put_i64(o, "netdev_speed_mbps", &p->netdev_speed_mbps);
	hwc_json_set_before_unavail(o, "counters", hwc_mlx_port_counters_json(p));
	hwc_json_set_before_unavail(o, "phy", hwc_mlx_phy_json(&p->phy));
	hwc_json_set_before_unavail(o, "module", hwc_mlx_module_json(&p->module));
	return o;
}

static json_t *adapter_json(const struct hwc_mlx_adapter *ad)
{
	json_t *o = json_object();
	json_object_set_new(o, "bdf", hwc_json_string(ad->bdf));
	json_object_set_new(o, "vendor_id", json_string("15b3"));
	hwc_json_put_str(o, "device_id", &ad->device_id);
	json_object_set_new(o, "functions", strv_json(&ad->functions));
	json_t *fm = json_array();
	for (size_t i = 0; i < ad->function_map.n; i++)
		json_array_append_new(fm, function_json(&ad->function_map.items[i]));
	json_object_set_new(o, "function_map", fm);
	hwc_json_put_str(o, "product", &ad->product);
	hwc_json_put_str(o, "generation", &ad->generation);
	json_t *pm = json_object();
	hwc_json_put_f64(pm, "speed_gts", &ad->pcie_max_speed_gts);
	hwc_json_put_i64(pm, "width", &ad->pcie_max_width);
	json_object_set_new(o, "pcie_max", pm);
	hwc_json_put_f64(o, "port_rate_max_gbps", &ad->port_rate_max_gbps);
	hwc_json_put_str(o, "fw_version", &ad->fw_version);
	hwc_json_put_str(o, "fw_version_source", &ad->fw_version_source);
	hwc_json_put_str(o, "fw_version_stored", &ad->fw_version_stored);
	hwc_json_put_bool(o, "fw_pending_reset", &ad->fw_pending_reset);
	hwc_json_put_str(o, "psid", &ad->psid);
	hwc_json_put_str(o, "part_number", &ad->part_number);
	hwc_json_put_str(o, "serial_number", &ad->serial_number);
	json_object_set_new(o, "netdevs", strv_json(&ad->netdevs));
	json_object_set_new(o, "rdma_devices", strv_json(&ad->rdma_devices));
	json_t *ports = json_array();
	for (size_t i = 0; i < ad->ports.n; i++)
		json_array_append_new(ports, port_json(&ad->ports.items[i]));
	json_object_set_new(o, "ports", ports);
	hwc_mlx_kernel_events_json(o, ad);
	if (hwc_ok(ad->cfg)) {
		json_object_set_new(o, "fw_config", cfg_json(&ad->cfg));
		struct hwc_fbool c = {{HWC_ST_OK, 0, NULL}, ad->cfg.complete};
		hwc_json_put_bool(o, "fw_config_complete", &c);
		struct hwc_fstr dt = ad->cfg.device_type;
		hwc_json_put_str(o, "fw_config_device_type", &dt);
	} else {
		hwc_json_put_meta(o, "fw_config", &ad->cfg.m);
		hwc_json_put_meta(o, "fw_config_complete", &ad->cfg.m);
		hwc_json_put_meta(o, "fw_config_device_type", &ad->cfg.m);
	}
	put_at_risk(o, &ad->cfg);
	put_fw_reset(o, &ad->fw_reset);
	json_t *r = json_object();
	hwc_json_put_i64(r, "temp_mdegc", &ad->reg.temp_mdegc);
	hwc_json_put_str(r, "temp_source", &ad->reg.temp_source);
	hwc_json_put_str(r, "power_status", &ad->reg.power_status);
	hwc_json_put_i64(r, "pci_power_w", &ad->reg.pci_power_w);
	json_object_set_new(o, "registers", r);
	return hwc_json_unavail_last(o);
}

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
		json_t *arr = json_array();
		for (size_t i = 0; i < mf->adapters.n; i++)
			json_array_append_new(arr, adapter_json(&mf->adapters.items[i]));
		json_object_set_new(o, "adapters", arr);
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
	json_object_set_new(o, "tools", t);
	return hwc_json_unavail_last(o);
}

/* ---- reading -------------------------------------------------------------------------------- */

static int get_strv(const json_t *o, const char *key, struct hwc_arena *a, struct hwc_mlx_strv *v)
{
	const json_t *arr = json_object_get(o, key);
	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return -EINVAL;
	size_t i;
	const json_t *s;
	json_array_foreach(arr, i, s) {
		if (!json_is_string(s))
			return -EINVAL;
		const char **p = HWC_VEC_PUSH(a, v);
		if (!p || !(*p = hwc_arena_strdup(a, json_string_value(s))))
			return -ENOMEM;
	}
	return 0;
}

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

static int get_function(const json_t *o, struct hwc_arena *a, struct hwc_mlx_function *fn)
{
	int rc = 0;
	fn->bdf = hwc_arena_strdup(a, hwc_json_str_or(o, "bdf", ""));
	rc |= hwc_json_get_str(o, "device_id", a, &fn->device_id);
	rc |= hwc_json_get_str(o, "class", a, &fn->class_code);
	rc |= hwc_json_get_str(o, "driver", a, &fn->driver);
	fn->is_vf = json_is_true(json_object_get(o, "is_vf"));
	rc |= hwc_json_get_str(o, "physfn", a, &fn->physfn);
	rc |= get_strv(o, "netdevs", a, &fn->netdevs);
	rc |= get_strv(o, "rdma_devices", a, &fn->rdma_devices);
	rc |= get_strv(o, "hwmon", a, &fn->hwmon);
	return rc ? -EINVAL : 0;
}

static int get_port(const json_t *o, struct hwc_arena *a, struct hwc_mlx_port *p)
{
	int rc = 0;
	p->port = json_integer_value(json_object_get(o, "port"));
	p->rdma_device = hwc_arena_strdup(a, hwc_json_str_or(o, "rdma_device", ""));
	rc |= hwc_json_get_str(o, "netdev", a, &p->netdev);
	rc |= hwc_json_get_str(o, "state", a, &p->state);
	rc |= hwc_json_get_str(o, "phys_state", a, &p->phys_state);
	rc |= hwc_json_get_str(o, "link_layer", a, &p->link_layer);
	rc |= hwc_json_get_f64(o, "rate_gbps", a, &p->rate_gbps);
	rc |= hwc_json_get_str(o, "active_speed", a, &p->active_speed);
	rc |= hwc_json_get_str(o, "active_width", a, &p->active_width);
	rc |= hwc_json_get_i64(o, "active_mtu", a, &p->active_mtu);
	rc |= hwc_json_get_i64(o, "max_mtu", a, &p->max_mtu);
	rc |= hwc_json_get_i64(o, "netdev_mtu", a, &p->netdev_mtu);
	rc |= hwc_json_get_i64(o, "netdev_speed_mbps", a, &p->netdev_speed_mbps);
	rc |= hwc_mlx_port_counters_from_json(json_object_get(o, "counters"), a, p);
	rc |= hwc_mlx_phy_from_json(json_object_get(o, "phy"), a, &p->phy);
	rc |= hwc_mlx_module_from_json(json_object_get(o, "module"), a, &p->module);
	return rc ? -EINVAL : 0;
}

static int get_adapter(const json_t *o, struct hwc_arena *a, struct hwc_mlx_adapter *ad)
{
	int rc = 0;
	ad->bdf = hwc_arena_strdup(a, hwc_json_str_or(o, "bdf", ""));
	rc |= hwc_json_get_str(o, "device_id", a, &ad->device_id);
	rc |= get_strv(o, "functions", a, &ad->functions);
	const json_t *fm = json_object_get(o, "function_map");
	size_t i;
	const json_t *x;
	if (json_is_array(fm))
		json_array_foreach(fm, i, x) {
			struct hwc_mlx_function *fn = HWC_VEC_PUSH(a, &ad->function_map);
			if (!fn)
				return -ENOMEM;
			rc |= json_is_object(x) ? get_function(x, a, fn) : -EINVAL;
		}
	rc |= hwc_json_get_str(o, "product", a, &ad->product);
	rc |= hwc_json_get_str(o, "generation", a, &ad->generation);
	const json_t *pm = json_object_get(o, "pcie_max");
	rc |= hwc_json_get_f64(pm, "speed_gts", a, &ad->pcie_max_speed_gts);
	rc |= hwc_json_get_i64(pm, "width", a, &ad->pcie_max_width);
	rc |= hwc_json_get_f64(o, "port_rate_max_gbps", a, &ad->port_rate_max_gbps);
	rc |= hwc_json_get_str(o, "fw_version", a, &ad->fw_version);
	rc |= hwc_json_get_str(o, "fw_version_source", a, &ad->fw_version_source);
	rc |= hwc_json_get_str(o, "fw_version_stored", a, &ad->fw_version_stored);
	rc |= hwc_json_get_bool(o, "fw_pending_reset", a, &ad->fw_pending_reset);
	rc |= hwc_json_get_str(o, "psid", a, &ad->psid);
	rc |= hwc_json_get_str(o, "part_number", a, &ad->part_number);
	rc |= hwc_json_get_str(o, "serial_number", a, &ad->serial_number);
	rc |= get_strv(o, "netdevs", a, &ad->netdevs);
	rc |= get_strv(o, "rdma_devices", a, &ad->rdma_devices);
	const json_t *ports = json_object_get(o, "ports");
	if (json_is_array(ports))
		json_array_foreach(ports, i, x) {
			struct hwc_mlx_port *p = HWC_VEC_PUSH(a, &ad->ports);
			if (!p)
				return -ENOMEM;
			rc |= json_is_object(x) ? get_port(x, a, p) : -EINVAL;
		}
	rc |= hwc_mlx_kernel_events_from_json(o, a, ad);
	const json_t *cfg = json_object_get(o, "fw_config");
	if (json_is_object(cfg)) {
		hwc_fmeta_set(&ad->cfg.m, HWC_ST_OK, 0, NULL);
		rc |= get_cfg(cfg, a, &ad->cfg);
		struct hwc_fbool c = {0};
		rc |= hwc_json_get_bool(o, "fw_config_complete", a, &c);
		ad->cfg.complete = hwc_ok(c) && c.v;
		rc |= hwc_json_get_str(o, "fw_config_device_type", a, &ad->cfg.device_type);
	} else {
		rc |= hwc_json_get_meta(o, "fw_config", a, &ad->cfg.m);
	}
	rc |= get_fw_reset(o, a, &ad->fw_reset);
	const json_t *r = json_object_get(o, "registers");
	rc |= hwc_json_get_i64(r, "temp_mdegc", a, &ad->reg.temp_mdegc);
	rc |= hwc_json_get_str(r, "temp_source", a, &ad->reg.temp_source);
	rc |= hwc_json_get_str(r, "power_status", a, &ad->reg.power_status);
	rc |= hwc_json_get_i64(r, "pci_power_w", a, &ad->reg.pci_power_w);
	return rc ? -EINVAL : 0;
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
		size_t i;
		const json_t *x;
		json_array_foreach(arr, i, x) {
			struct hwc_mlx_adapter *ad = HWC_VEC_PUSH(a, &mf->adapters);
			if (!ad)
				return -ENOMEM;
			if (!json_is_object(x) || get_adapter(x, a, ad) < 0)
				rc = -EINVAL;
		}
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
