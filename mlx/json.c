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

/* ---- the adapter table: its custom entries wrap the writers and readers above ------------- */

static int vendor_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	(void)p;
	return json_object_set_new(o, f->key, json_string("15b3")) == 0 ? 0 : -ENOMEM;
}

/* Constant keys are not read back. */
static int no_get(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	(void)o, (void)f, (void)a, (void)p;
	return 0;
}

static int at_risk_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	(void)f;
	put_at_risk(o, p);
	return 0;
}

/* fw_at_risk is derived from fw_config (read before it), not read back: what it needs besides
 * the parameters is whether mstconfig printed the Default and Current columns. */
static int at_risk_get(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	struct hwc_mlx_cfg *c = p;
	(void)o, (void)f, (void)a;
	for (size_t i = 0; i < c->params.n; i++)
		if (hwc_ok(c->params.items[i].dflt) || hwc_ok(c->params.items[i].current))
			c->has_default_current = true;
	return 0;
}

static int cfgval_put(json_t *o, const struct hwc_jfield *f, const void *p)
{
	put_cfgval(o, f->key, p);
	return 0;
}

static int cfgval_get(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	return get_cfgval(o, f->key, a, p);
}

/* ---- the tables ----------------------------------------------------------------------------- */

/* One parameter of fw_config, under its mstconfig name (the element's first member). */
#define V(k, m) HWC_JCUSTOM_T(struct hwc_mlx_cfgparam, k, m, cfgval_put, cfgval_get, \
			      "string|integer|null")
static const struct hwc_jfield cfgparam_f[] = {
	V("default", dflt), V("current", current), V("next_boot", next_boot),
	HWC_JF(struct hwc_mlx_cfgparam, pending, HWC_JT_BOOL),
	HWC_JFF(struct hwc_mlx_cfgparam, "read_only", read_only, HWC_JT_FLAG, HWC_JF_TRUE_ONLY),
};
#undef V
static const struct hwc_jtable cfgparam_t = HWC_JTABLE("mlx.adapters[].fw_config{}", cfgparam_f, 0);

/* fw_reset's levels, types and syncs: the number under the list's own key. */
#define RESET_OPT(name, key_, list_)                                                               \
	static const struct hwc_jfield name##_f[] = {                                              \
		HWC_JFK(struct hwc_mlx_fwreset_opt, key_, num, HWC_JT_KEY_I64),                    \
		HWC_JFF(struct hwc_mlx_fwreset_opt, "description", description, HWC_JT_PSTR,       \
			HWC_JF_NULL),                                                              \
		HWC_JF(struct hwc_mlx_fwreset_opt, supported, HWC_JT_FLAG),                        \
		HWC_JFK(struct hwc_mlx_fwreset_opt, "default", is_default, HWC_JT_FLAG),           \
	};                                                                                         \
	static const struct hwc_jtable name##_t =                                                  \
		HWC_JTABLE("mlx.adapters[].fw_reset." list_ "[]", name##_f, 0)
RESET_OPT(reset_level, "level", "levels");
RESET_OPT(reset_type, "type", "types");
RESET_OPT(reset_sync, "sync", "sync");
#undef RESET_OPT
#define L(k, m, t) HWC_JVEC(struct hwc_mlx_fwreset, k, m, struct hwc_mlx_fwreset_opt, t)
static const struct hwc_jfield fwreset_f[] = {
	L("levels", levels, reset_level_t), L("types", types, reset_type_t),
	L("sync", sync, reset_sync_t),
};
#undef L
static const struct hwc_jtable fwreset_t = HWC_JTABLE("mlx.adapters[].fw_reset", fwreset_f, 0);

static const struct hwc_jfield kevent_f[] = {
	HWC_JFK(struct hwc_mlx_kevent, "time_s", time_s, HWC_JT_OPT_F64),
	HWC_JF(struct hwc_mlx_kevent, bdf, HWC_JT_KEY_STR),
	HWC_JF(struct hwc_mlx_kevent, kind, HWC_JT_KEY_STR),
	HWC_JF(struct hwc_mlx_kevent, message, HWC_JT_KEY_STR),
};
static const struct hwc_jtable kevent_t = HWC_JTABLE("mlx.adapters[].kernel_events[]", kevent_f, 0);

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
	HWC_JSUBD(struct hwc_mlx_port, "counters_window", counters_window, HWC_JT_GROUP,
		  hwc_mlx_counters_window_table,
		  "--watch: each counter's increase between the two samples (facts.watch.window_s apart), "
		  "same keys as counters; null with the reason where a delta cannot be had (a counter "
		  "that went backwards was cleared; one at its maximum in either sample saturated); "
		  "absent without --watch"),
	HWC_JSUB(struct hwc_mlx_port, "phy", phy, HWC_JT_OBJ, hwc_mlx_phy_table),
	HWC_JSUB(struct hwc_mlx_port, "module", module, HWC_JT_OBJ, hwc_mlx_module_table),
	/* the far end of an InfiniBand port, else null + why */
	HWC_JSUB(struct hwc_mlx_port, "peer", peer, HWC_JT_GROUP, hwc_mlx_peer_table),
	HWC_JSUBD(struct hwc_mlx_port, "portinfo", portinfo, HWC_JT_GROUP, hwc_mlx_portinfo_table,
		  "an InfiniBand port's own PortInfo link fields (smpquery -C CA -P PORT -D portinfo 0 PORT): the "
		  "active lane rate and width and the speeds and widths it enables, which with the peer's "
		  "(peer.portinfo) say the best rate the link could train to; null + why where the peer is not "
		  "asked either (a port not ACTIVE, a restricted function, no infiniband-diags); absent on Ethernet"),
};
#undef S
#undef STRV
const struct hwc_jtable hwc_mlx_port_table = HWC_JTABLE("mlx.adapters[].ports[]", port_f, 0);

#define S(k, m) HWC_JFK(struct hwc_mlx_adapter, k, m, HWC_JT_STR)
#define CFG(k, member, type)                                                                       \
	{.key = k, .t = type, .off = offsetof(struct hwc_mlx_adapter, member), .flags = HWC_JF_META, \
	 .meta = offsetof(struct hwc_mlx_adapter, cfg.m)}
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
static bool has_rerun(const void *base)
{
	return ((const struct hwc_mlx_adapter *)base)->tools_rerun.n > 0;
}
static const struct hwc_jfield adapter_f[] = {
	HWC_JF(struct hwc_mlx_adapter, bdf, HWC_JT_KEY_STR),
	HWC_JCUSTOM_T(struct hwc_mlx_adapter, "vendor_id", bdf, vendor_put, no_get, "string"),
	S("device_id", device_id),
	HWC_JLIST(struct hwc_mlx_adapter, "functions", functions, HWC_JT_STRV),
	HWC_JVEC(struct hwc_mlx_adapter, "function_map", function_map, struct hwc_mlx_function,
		 hwc_mlx_function_table),
	S("product", product),
	S("generation", generation),
	HWC_JFD(struct hwc_mlx_adapter, kernel_driver, HWC_JT_STR,
		"the kernel driver of the product, from hwcheck's identity table (the driver whose PCI id "
		"table lists the device id): `mlx4_core` (ConnectX to ConnectX-3 Pro: RDMA by mlx4_ib) or "
		"`mlx5_core` (Connect-IB and later, BlueField's NIC: RDMA by mlx5_ib); function_map[].driver "
		"is the one bound"),
	HWC_JFD(struct hwc_mlx_adapter, flash_recovery, HWC_JT_BOOL,
		"the card enumerates with its flash recovery (\"livefish\") device id (pci.ids' \"... Flash "
		"Recovery\" ids, mstflint's dm_is_livefish_mode): its firmware does not run"),
	{.key = "pcie_max", .t = HWC_JT_OBJ, .off = 0, .sub = &pcie_max_t},
	HWC_JF(struct hwc_mlx_adapter, port_rate_max_gbps, HWC_JT_F64),
	HWC_JFD(struct hwc_mlx_adapter, ib_lane_floor_gbps, HWC_JT_F64,
		"the best InfiniBand lane rate that every InfiniBand-capable board of the product line supports, "
		"Gb/s (14.0625 FDR, 25.78125 EDR; hwcheck's identity table, from the vendor's user manuals): what "
		"an InfiniBand port of this card can do at least, where port_rate_max_gbps is the line's best"),
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
	HWC_JVEC_M(struct hwc_mlx_adapter, "kernel_events", kernel_events, kernel_events_m,
		   struct hwc_mlx_kevent, kevent_t),
	/* fw_config, and beside it what the same mstconfig answer says, with its status */
	{.key = "fw_config", .t = HWC_JT_MAP, .off = offsetof(struct hwc_mlx_adapter, cfg.params),
	 .flags = HWC_JF_META, .meta = offsetof(struct hwc_mlx_adapter, cfg.m), .sub = &cfgparam_t,
	 .elem = sizeof(struct hwc_mlx_cfgparam)},
	CFG("fw_config_complete", cfg.complete, HWC_JT_FLAG),
	CFG("fw_config_device_type", cfg.device_type, HWC_JT_STR),
	HWC_JCUSTOM_T(struct hwc_mlx_adapter, "fw_at_risk", cfg, at_risk_put, at_risk_get,
		      "array|null"),
	{.key = "fw_reset", .t = HWC_JT_GROUP, .off = offsetof(struct hwc_mlx_adapter, fw_reset),
	 .flags = HWC_JF_KEEP_UNSET, .sub = &fwreset_t},
	{.key = "registers", .t = HWC_JT_OBJ, .off = 0, .sub = &reg_t},
	{.key = "tools_rerun", .t = HWC_JT_STRV, .off = offsetof(struct hwc_mlx_adapter, tools_rerun),
	 .when = has_rerun},
#define PART_F(m, T, doc_)                                                                         \
	HWC_JSUBD(struct hwc_mlx_adapter, #m, m, HWC_JT_GROUP, hwc_mlx_##m##_table, doc_),
	HWC_MLX_ADAPTER_PARTS(PART_F)
#undef PART_F
};
#undef S
#undef CFG
const struct hwc_jtable hwc_mlx_adapter_table = HWC_JTABLE("mlx.adapters[]", adapter_f, 0);

/* The section's top: the adapters, then (when the PCI device list was read) the image given
 * with --fw-image and the tools' state. */
static bool section_ok(const void *base)
{
	return ((const struct hwc_mlx_facts *)base)->m.st == HWC_ST_OK;
}

static bool has_image(const void *base)
{
	return section_ok(base) && ((const struct hwc_mlx_facts *)base)->fw_image_file;
}

/* fw_image: members of the section (offset 0); the flint facts with the status of the query */
#define IMG(k, member)                                                                             \
	{.key = k, .t = HWC_JT_STR, .off = offsetof(struct hwc_mlx_facts, fw_image.member),         \
	 .flags = HWC_JF_META, .meta = offsetof(struct hwc_mlx_facts, fw_image.m)}
static const struct hwc_jfield image_f[] = {
	HWC_JFK(struct hwc_mlx_facts, "file", fw_image_file, HWC_JT_PSTR),
	IMG("image_type", image_type), IMG("fw_version", fw_version), IMG("psid", psid),
	IMG("release_date", release_date),
};
#undef IMG
static const struct hwc_jtable image_t = HWC_JTABLE("mlx.fw_image", image_f, 0);
static const struct hwc_jfield tools_f[] = {
	HWC_JFK(struct hwc_mlx_facts, "mstflint_version", tools.mstflint_version, HWC_JT_STR),
	HWC_JFK(struct hwc_mlx_facts, "status", tools.access, HWC_JT_STATUS),
	HWC_JFK(struct hwc_mlx_facts, "detail", tools.access, HWC_JT_DETAIL),
};
static const struct hwc_jtable tools_t = HWC_JTABLE("mlx.tools", tools_f, 0);
static const struct hwc_jfield mlx_f[] = {
	HWC_JVEC_M(struct hwc_mlx_facts, "adapters", adapters, m, struct hwc_mlx_adapter,
		   hwc_mlx_adapter_table),
	{.key = "fw_image", .t = HWC_JT_OBJ, .off = 0, .sub = &image_t, .when = has_image},
	{.key = "tools", .t = HWC_JT_OBJ, .off = 0, .sub = &tools_t, .when = section_ok},
};
const struct hwc_jtable hwc_mlx_table = HWC_JTABLE("mlx", mlx_f, 0);

json_t *hwc_mlx_to_json(const struct hwc_facts *f)
{
	static const struct hwc_mlx_facts none; /* nobody collected the section */
	return hwc_json_from_table(f->mlx ? f->mlx : &none, &hwc_mlx_table);
}

int hwc_mlx_from_json(const json_t *j, struct hwc_facts *f)
{
	int rc;
	struct hwc_mlx_facts *mf = f->mlx =
		hwc_json_section_from(j, f->arena, sizeof(*mf), &hwc_mlx_table, &rc);
	if (!mf)
		return rc;
	/* the query's status: what the facts say of the version it read */
	struct hwc_mlx_flint *fl = &mf->fw_image;
	fl->m = hwc_ok(fl->fw_version) ? (struct hwc_fmeta){HWC_ST_OK, 0, NULL} : fl->fw_version.m;
	return rc;
}
