/* SPDX-License-Identifier: MIT */
/* Querying the facts document (docs/FACTS.md): values or the reason they are unknown, objects by
 * their key. Shared by rules/ and cli/. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/query.h"

const json_t *hwc_q_get(const json_t *o, const char *key)
{
	const json_t *v = json_is_object(o) && key ? json_object_get(o, key) : NULL;
	return json_is_null(v) ? NULL : v;
}

bool hwc_q_has(const json_t *o, const char *key)
{
	return json_is_object(o) && key && json_object_get(o, key);
}

bool hwc_q_is_null(const json_t *o, const char *key)
{
	return json_is_object(o) && key && json_is_null(json_object_get(o, key));
}

bool hwc_q_same(const json_t *a, const json_t *b, const char *key)
{
	return json_is_object(a) && json_is_object(b) && key &&
	       json_equal(json_object_get(a, key), json_object_get(b, key));
}

const char *hwc_q_string(const json_t *o, const char *key)
{
	return json_string_value(hwc_q_get(o, key));
}

const json_t *hwc_q_at(const json_t *o, const char *dotted)
{
	char key[128];
	const char *p = dotted;
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = 0;
		o = hwc_q_get(o, key);
		if (!o || !dot)
			return o;
		p = dot + 1;
	}
}

static const json_t *q_object(const json_t *v)
{
	return json_is_object(v) ? v : NULL;
}

static const json_t *q_array(const json_t *v)
{
	return json_is_array(v) ? v : NULL;
}

const json_t *hwc_q_host(const json_t *facts)
{
	return hwc_q_get(facts, "host");
}

const json_t *hwc_q_netdevs(const json_t *facts)
{
	return q_array(hwc_q_get(facts, "netdevs"));
}

const json_t *hwc_q_gpudirect(const json_t *facts)
{
	return q_object(hwc_q_at(facts, "pci.gpudirect"));
}

const json_t *hwc_q_fw_image(const json_t *facts)
{
	/* a null image (given, not read) is kept: the image rules then say unknown */
	return json_object_get(hwc_q_get(facts, "mlx"), "fw_image");
}

const json_t *hwc_q_list(const json_t *facts, const char *dotted)
{
	return q_array(hwc_q_at(facts, dotted));
}

const json_t *hwc_q_roce_ports(const json_t *facts)
{
	return q_array(hwc_q_at(facts, "roce.ports"));
}

const json_t *hwc_q_unavailable(const json_t *o, const char *key)
{
	return hwc_q_get(hwc_q_get(o, HWC_JSON_UNAVAILABLE), key);
}

const json_t *hwc_q_pci_link(const json_t *dev)
{
	return hwc_q_get(dev, "link");
}

double hwc_q_pci_link_num(const json_t *dev, const char *key)
{
	return json_number_value(hwc_q_get(hwc_q_pci_link(dev), key));
}

const json_t *hwc_q_path_bottleneck(const json_t *dev)
{
	return hwc_q_get(dev, "path_bottleneck");
}

const char *hwc_q_pci_upstream(const json_t *dev)
{
	return hwc_q_string(dev, "upstream");
}

const json_t *hwc_q_netdev_module(const json_t *nd)
{
	return hwc_q_at(nd, "link.module");
}

const json_t *hwc_q_netdev_link(const json_t *nd)
{
	return hwc_q_get(nd, "link");
}

const json_t *hwc_q_irq_locality(const json_t *nd)
{
	return hwc_q_get(nd, "irq_locality");
}

/* A lane's bias and power as each source names them, and the most a dark lane reads: ethtool -m's
 * decoding in mA (0) and mW (0.0001: one step of the EEPROM's 0.1 uW unit, SFF-8472 A2h, SFF-8636
 * bytes 34-57, CMIS page 11h; a module with no light reads 0 or 1 step, which ethtool prints as
 * '0.0001 mW / -40.00 dBm': a real Finisar QSFP28 whose laser the card switched off reads 1 step
 * of Tx and Rx power with 0 mA of bias, tests/link/REAL-DATA.md, robinchrist), mstlink's Module
 * Info in mA and dBm, which it prints as -40 for no light at all (the firmware reports 0 uW, its
 * unit: mlxlink's getPower, mlxlink_utils.cpp): -40 dBm is also what one 0.1 uW step is. */
static const struct {
	const char *key;
	double dark_max;
} lane_keys[] = {{"tx_bias_ma", 0}, {"tx_power_mw", 0.0001}, {"rx_power_mw", 0.0001},
		 {"bias_ma", 0}, {"tx_power_dbm", -40}, {"rx_power_dbm", -40}};

size_t hwc_q_module_nlanes(const json_t *m)
{
	size_t n = 0;
	for (size_t k = 0; k < sizeof(lane_keys) / sizeof(lane_keys[0]); k++) {
		size_t a = json_array_size(hwc_q_get(m, lane_keys[k].key));
		n = a > n ? a : n;
	}
	return n;
}

bool hwc_q_lane_dark(const json_t *m, size_t i)
{
	bool any = false;
	for (size_t k = 0; k < sizeof(lane_keys) / sizeof(lane_keys[0]); k++) {
		const json_t *x = json_array_get(hwc_q_get(m, lane_keys[k].key), i);
		if (json_is_number(x) && json_number_value(x) > lane_keys[k].dark_max + 1e-9)
			return false; /* 1e-9: 0.0001 read back from a facts file is still one step */
		any = any || json_is_number(x);
	}
	return any;
}

bool hwc_q_netdev_module_refused(const json_t *nd)
{
	const char *st = json_string_value(hwc_q_at(nd, "link.modes.link_ext_state"));
	const char *sub = json_string_value(hwc_q_at(nd, "link.modes.link_ext_substate"));
	return st && sub && strcmp(st, "Cable issue") == 0 && strcmp(sub, "Unsupported cable") == 0;
}

/* Another netdev's module with this one's vendor and serial number: a breakout's shared module. */
static bool module_shared(const json_t *facts, const json_t *nd, const json_t *m)
{
	const char *v = hwc_q_string(m, "vendor"), *sn = hwc_q_string(m, "serial_number");
	size_t i;
	const json_t *o;
	if (!v || !sn || !*sn)
		return false;
	json_array_foreach(hwc_q_netdevs(facts), i, o) {
		const json_t *om = hwc_q_netdev_module(o);
		if (o != nd && hwc_q_string(om, "vendor") && hwc_q_string(om, "serial_number") &&
		    !strcmp(hwc_q_string(om, "vendor"), v) && !strcmp(hwc_q_string(om, "serial_number"), sn))
			return true;
	}
	return false;
}

void hwc_q_module_lanes(const json_t *facts, const json_t *nd, const json_t *m, struct hwc_q_lanes *o)
{
	*o = (struct hwc_q_lanes){0};
	for (size_t i = 0, n = hwc_q_module_nlanes(m); i < n; i++)
		o->lit += !hwc_q_lane_dark(m, i);
	const char *op = hwc_q_string(nd, "operstate");
	if (op ? strcmp(op, "up") != 0 : !json_is_true(hwc_q_get(nd, "carrier")))
		return; /* no live link (operstate up: the carrier is on): every lane may be dark */
	const json_t *sp = hwc_q_at(nd, "link.modes.speed_mbps"), *ln = hwc_q_at(nd, "link.modes.lanes");
	if (!json_is_number(sp))
		sp = hwc_q_get(nd, "speed_mbps");
	o->speed_gbps = json_is_number(sp) ? json_number_value(sp) / 1000 : 0;
	o->shared = module_shared(facts, nd, m);
	double lanes = json_number_value(hwc_q_get(m, "lanes")), max = json_number_value(hwc_q_get(m, "max_gbps"));
	o->needed = 1;
	o->basis = "a live link needs one at least";
	if (json_is_integer(ln) && json_integer_value(ln) > 0) {
		o->needed = (unsigned)json_integer_value(ln);
		o->basis = "ethtool's Lanes";
	} else if (lanes >= 1 && max > 0 && o->speed_gbps > 0) {
		double d = ceil(o->speed_gbps / (max / lanes) - 1e-9);
		o->needed = (unsigned)(d > lanes ? lanes : d);
		o->basis = "the fewest of the module's lanes that carry that rate";
	}
}

/* "4x" (mstlink's Width), "4X" (the port's active_width): its lanes, else 0. */
static unsigned width_lanes(const char *w)
{
	char *end;
	unsigned long n = w ? strtoul(w, &end, 10) : 0;
	return n && n <= 16 && (*end == 'x' || *end == 'X') && !end[1] ? (unsigned)n : 0;
}

void hwc_q_port_module_lanes(const json_t *facts, const json_t *port, const json_t *m, struct hwc_q_lanes *o)
{
	const json_t *nd = hwc_q_port_netdev(facts, port);
	if (nd) {
		hwc_q_module_lanes(facts, nd, m, o);
		return;
	}
	*o = (struct hwc_q_lanes){0};
	for (size_t i = 0, n = hwc_q_module_nlanes(m); i < n; i++)
		o->lit += !hwc_q_lane_dark(m, i);
	const char *st = hwc_q_string(port, "state"), *phys = hwc_q_string(port, "phys_state");
	const char *mst = hwc_q_string(hwc_q_get(port, "phy"), "state");
	if (!(st && strcmp(st, "ACTIVE") == 0) && !(phys && strcmp(phys, "LinkUp") == 0) && !(mst && strcmp(mst, "Active") == 0))
		return; /* no live link: every lane may be dark */
	const json_t *r = hwc_q_get(port, "rate_gbps");
	o->speed_gbps = json_is_number(r) ? json_number_value(r) : 0;
	unsigned w = width_lanes(hwc_q_string(hwc_q_get(port, "phy"), "width"));
	o->needed = w ? w : width_lanes(hwc_q_string(port, "active_width"));
	o->basis = w ? "mstlink's Width" : "the port's active width";
	if (!o->needed) {
		o->needed = 1;
		o->basis = "a live link needs one at least";
	}
}

bool hwc_q_lane_needed_dark(const struct hwc_q_lanes *l, const json_t *m, size_t i)
{
	if (!l->needed || !hwc_q_lane_dark(m, i))
		return false;
	return l->shared ? l->lit < l->needed : i < l->needed;
}

const json_t *hwc_q_numa_node(const json_t *facts, const json_t *node)
{
	size_t i;
	const json_t *e;
	if (!json_is_integer(node))
		return NULL;
	json_array_foreach(hwc_q_at(facts, "host.numa.nodes"), i, e)
		if (json_equal(hwc_q_get(e, "id"), (json_t *)node))
			return e;
	return NULL;
}

const json_t *hwc_q_ports(const json_t *adapter)
{
	return q_array(hwc_q_get(adapter, "ports"));
}

const json_t *hwc_q_function_map(const json_t *adapter)
{
	return q_array(hwc_q_get(adapter, "function_map"));
}

const json_t *hwc_q_registers(const json_t *adapter)
{
	return hwc_q_get(adapter, "registers");
}

const json_t *hwc_q_port_netdev(const json_t *facts, const json_t *port)
{
	return hwc_q_netdev(facts, hwc_q_string(port, "netdev"));
}

const json_t *hwc_q_netdev_port(const json_t *facts, const char *name, const json_t **adapter)
{
	size_t i, j;
	const json_t *ad, *p;
	json_array_foreach(hwc_q_adapters(facts), i, ad) json_array_foreach(hwc_q_ports(ad), j, p) {
		const char *nd = hwc_q_string(p, "netdev");
		if (name && nd && strcmp(nd, name) == 0) {
			if (adapter)
				*adapter = ad;
			return p;
		}
	}
	return NULL;
}

double hwc_q_speed_list_gbps(const char *list)
{
	const char *open = list ? strrchr(list, '(') : NULL;
	double best = 0;
	for (const char *t = open ? open + 1 : list; t && *t;) {
		char *end;
		double g = strtod(t, &end);
		if (end != t && *end == 'G' && g > best)
			best = g;
		t += strcspn(t, ",");
		t += *t == ',';
	}
	return best;
}

const json_t *hwc_q_fw_config(const json_t *adapter)
{
	return q_object(hwc_q_get(adapter, "fw_config"));
}

const json_t *hwc_q_fw_reset(const json_t *adapter)
{
	return q_object(hwc_q_get(adapter, "fw_reset"));
}

const json_t *hwc_q_fw_col(const json_t *param, const char *col)
{
	return hwc_q_get(param, col);
}

const json_t *hwc_q_fw_param(const json_t *adapter, const char *name)
{
	return hwc_q_get(hwc_q_get(adapter, "fw_config"), name);
}

const json_t *hwc_q_fw_value(const json_t *adapter, const char *name, const char *col)
{
	return hwc_q_get(hwc_q_fw_param(adapter, name), col);
}

const json_t *hwc_q_fw_effective(const json_t *param)
{
	const json_t *v = hwc_q_get(param, "current");
	return v ? v : hwc_q_get(param, "next_boot");
}

static const char *why_of(const json_t *obj, const char *key, struct hwc_arena *a)
{
	const json_t *u = json_object_get(json_object_get(obj, HWC_JSON_UNAVAILABLE), key);
	const char *st = json_string_value(json_object_get(u, "status"));
	const char *d = json_string_value(json_object_get(u, "detail"));
	if (!st)
		return json_is_null(json_object_get(obj, key)) ? "null without a status" : "not_collected";
	return d ? hwc_arena_printf(a, "%s: %s", st, d) : st;
}

int hwc_q_find(const json_t *obj, const char *dotted, const json_t **val, const char **why,
	      struct hwc_arena *a)
{
	char key[128];
	const char *p = dotted;
	*val = NULL;
	*why = "not_collected";
	if (!obj) {
		return 0;
	}
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof(key))
			return 0;
		memcpy(key, p, n);
		key[n] = 0;
		if (!json_is_object(obj)) {
			*why = "not_collected";
			return 0;
		}
		const json_t *v = json_object_get(obj, key);
		if (!v || json_is_null(v)) {
			*why = why_of(obj, key, a);
			return 0;
		}
		if (!dot) {
			*val = v;
			return 1;
		}
		obj = v;
		p = dot + 1;
	}
}

/* hwc_q_find for a value of one JSON kind ('n' number, 'b' boolean, 's' string): NULL with *why
 * "invalid: not a <what>" when the value is of another kind. */
static const json_t *find_kind(const json_t *obj, const char *dotted, char kind, const char **why,
			       struct hwc_arena *a)
{
	const json_t *v;
	if (!hwc_q_find(obj, dotted, &v, why, a))
		return NULL;
	bool ok = kind == 'n' ? json_is_number(v) : kind == 'b' ? json_is_boolean(v) : json_is_string(v);
	if (ok)
		return v;
	*why = kind == 'n' ? "invalid: not a number" : kind == 'b' ? "invalid: not a boolean" : "invalid: not a string";
	return NULL;
}

int hwc_q_find_num(const json_t *obj, const char *dotted, double *out, const char **why,
		   struct hwc_arena *a)
{
	const json_t *v = find_kind(obj, dotted, 'n', why, a);
	if (v)
		*out = json_number_value(v);
	return v != NULL;
}

int hwc_q_find_bool(const json_t *obj, const char *dotted, bool *out, const char **why,
		    struct hwc_arena *a)
{
	const json_t *v = find_kind(obj, dotted, 'b', why, a);
	if (v)
		*out = json_is_true(v);
	return v != NULL;
}

int hwc_q_find_str(const json_t *obj, const char *dotted, const char **out, const char **why,
		   struct hwc_arena *a)
{
	const json_t *v = find_kind(obj, dotted, 's', why, a);
	if (v)
		*out = json_string_value(v);
	return v != NULL;
}

const json_t *hwc_q_adapters(const json_t *facts)
{
	return q_array(hwc_q_at(facts, "mlx.adapters"));
}

static const json_t *find_by(const json_t *arr, const char *key, const char *val)
{
	size_t i;
	const json_t *e;
	if (!val || !json_is_array(arr))
		return NULL;
	json_array_foreach(arr, i, e) {
		const char *s = json_string_value(json_object_get(e, key));
		if (s && strcmp(s, val) == 0)
			return e;
	}
	return NULL;
}

/* ---- an index of one facts document, for the time its rules run --------------------------
 * Rules look devices up by BDF, adapters by a function, netdev or RDMA name, and netdevs by
 * adapter, for every card: linear searches made a 5,000-function host cost n^2. While
 * hwc_rules_eval runs (hwc_q_index_begin/end) each lookup is a hash lookup (jansson objects) built
 * once; outside it the same functions search as before. Lookups answer exactly what the
 * linear searches answer: the first match in document order. */
static struct hwc_q_index {
	const json_t *facts;
	json_t *pci;      /* bdf -> device */
	json_t *fn, *nd, *rd; /* bdf / netdev / RDMA name -> index of the first adapter having it */
	json_t *netdev;   /* netdev name -> netdev */
	json_t *by_ad;    /* adapter index (decimal) -> [netdevs of it, in document order] */
	json_t *sensors;  /* bdf -> [indexes into thermal.sensors] */
} idx;

static void idx_first(json_t *map, const char *key, size_t i)
{
	if (key && !json_object_get(map, key))
		json_object_set_new(map, key, json_integer((json_int_t)i));
}

static void idx_first_each(json_t *map, const json_t *arr, size_t i)
{
	size_t k;
	const json_t *e;
	json_array_foreach(arr, k, e) idx_first(map, json_string_value(e), i);
}

/* Every adapter a netdev belongs to (hwc_q_adapter_netdevs' rule), via the maps of all adapters. */
static void idx_netdev(const json_t *ads, json_t *all_fn, json_t *all_nd, const json_t *e)
{
	const char *name = json_string_value(json_object_get(e, "name"));
	const char *bdf = json_string_value(json_object_get(e, "bdf"));
	json_t *seen = json_object();
	const json_t *lists[2] = {name ? json_object_get(all_nd, name) : NULL,
				  bdf ? json_object_get(all_fn, bdf) : NULL};
	for (int l = 0; l < 2; l++) {
		size_t k;
		const json_t *ai;
		json_array_foreach(lists[l], k, ai) {
			char key[24];
			snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(ai));
			if (json_object_get(seen, key) || !json_array_get(ads, (size_t)json_integer_value(ai)))
				continue;
			json_object_set_new(seen, key, json_true());
			json_t *arr = json_object_get(idx.by_ad, key);
			if (!arr)
				json_object_set_new(idx.by_ad, key, arr = json_array());
			json_array_append(arr, (json_t *)e);
		}
	}
	json_decref(seen);
}

static void idx_all(json_t *map, const char *key, size_t i)
{
	if (!key)
		return;
	json_t *arr = json_object_get(map, key);
	if (!arr)
		json_object_set_new(map, key, arr = json_array());
	json_array_append_new(arr, json_integer((json_int_t)i));
}

static void idx_adapters(const json_t *facts)
{
	const json_t *ads = hwc_q_adapters(facts);
	json_t *all_fn = json_object(), *all_nd = json_object();
	size_t i, k;
	const json_t *ad, *e;
	json_array_foreach(ads, i, ad) {
		idx_first(idx.fn, json_string_value(json_object_get(ad, "bdf")), i);
		idx_first_each(idx.fn, json_object_get(ad, "functions"), i);
		idx_first_each(idx.nd, json_object_get(ad, "netdevs"), i);
		idx_first_each(idx.rd, json_object_get(ad, "rdma_devices"), i);
		const char *b = json_string_value(json_object_get(ad, "bdf"));
		idx_all(all_fn, b, i);
		json_array_foreach(json_object_get(ad, "functions"), k, e)
			if (!b || !json_string_value(e) || strcmp(b, json_string_value(e)))
				idx_all(all_fn, json_string_value(e), i);
		json_array_foreach(json_object_get(ad, "netdevs"), k, e) idx_all(all_nd, json_string_value(e), i);
	}
	json_array_foreach(json_object_get(facts, "netdevs"), i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		if (name && !json_object_get(idx.netdev, name))
			json_object_set(idx.netdev, name, (json_t *)e);
		idx_netdev(ads, all_fn, all_nd, e);
	}
	json_decref(all_fn);
	json_decref(all_nd);
}

void hwc_q_index_begin(const json_t *facts)
{
	hwc_q_index_end();
	idx.pci = json_object();
	idx.fn = json_object();
	idx.nd = json_object();
	idx.rd = json_object();
	idx.netdev = json_object();
	idx.by_ad = json_object();
	size_t i;
	const json_t *e;
	json_array_foreach(hwc_q_list(facts, "pci.devices"), i, e) {
		const char *b = json_string_value(json_object_get(e, "bdf"));
		if (b && !json_object_get(idx.pci, b))
			json_object_set(idx.pci, b, (json_t *)e);
	}
	idx_adapters(facts);
	idx.sensors = json_object();
	json_array_foreach(hwc_q_list(facts, "thermal.sensors"), i, e)
		idx_all(idx.sensors, json_string_value(json_object_get(e, "bdf")), i);
	idx.facts = facts;
}

void hwc_q_index_end(void)
{
	json_decref(idx.pci);
	json_decref(idx.fn);
	json_decref(idx.nd);
	json_decref(idx.rd);
	json_decref(idx.netdev);
	json_decref(idx.by_ad);
	json_decref(idx.sensors);
	memset(&idx, 0, sizeof(idx));
}

const json_t *hwc_q_pci_dev(const json_t *facts, const char *bdf)
{
	if (idx.facts && idx.facts == facts)
		return bdf ? json_object_get(idx.pci, bdf) : NULL;
	return find_by(hwc_q_list(facts, "pci.devices"), "bdf", bdf);
}

const json_t *hwc_q_netdev(const json_t *facts, const char *name)
{
	if (idx.facts && idx.facts == facts)
		return name ? json_object_get(idx.netdev, name) : NULL;
	return find_by(json_object_get(facts, "netdevs"), "name", name);
}

static bool str_in(const json_t *arr, const char *s)
{
	size_t i;
	const json_t *e;
	if (!s || !json_is_array(arr))
		return false;
	json_array_foreach(arr, i, e) {
		const char *v = json_string_value(e);
		if (v && strcmp(v, s) == 0)
			return true;
	}
	return false;
}

bool hwc_q_adapter_has_function(const json_t *adapter, const char *bdf)
{
	const char *b = json_string_value(json_object_get(adapter, "bdf"));
	if (b && bdf && strcmp(b, bdf) == 0)
		return true;
	return str_in(json_object_get(adapter, "functions"), bdf);
}

static long idx_get(const json_t *map, const char *key)
{
	const json_t *v = key ? json_object_get(map, key) : NULL;
	return v ? (long)json_integer_value(v) : -1;
}

const json_t *hwc_q_function_adapter(const json_t *facts, const char *bdf)
{
	size_t i;
	const json_t *ad;
	if (idx.facts && idx.facts == facts) {
		long at = idx_get(idx.fn, bdf);
		return at >= 0 ? json_array_get(hwc_q_adapters(facts), (size_t)at) : NULL;
	}
	json_array_foreach(hwc_q_adapters(facts), i, ad)
		if (hwc_q_adapter_has_function(ad, bdf))
			return ad;
	return NULL;
}

const char *hwc_q_port_function(const json_t *facts, const json_t *adapter, const json_t *port)
{
	const char *rd = json_string_value(json_object_get(port, "rdma_device"));
	const char *nd = json_string_value(json_object_get(port, "netdev"));
	const char *bdf = json_string_value(json_object_get(hwc_q_netdev(facts, nd), "bdf"));
	if (bdf)
		return bdf;
	size_t i;
	const json_t *fn;
	json_array_foreach(hwc_q_function_map(adapter), i, fn) {
		if (str_in(json_object_get(fn, "rdma_devices"), rd) ||
		    str_in(json_object_get(fn, "netdevs"), nd))
			return json_string_value(json_object_get(fn, "bdf"));
	}
	return NULL;
}

size_t hwc_q_adapter_netdevs(const json_t *facts, const json_t *adapter, const json_t **out,
			  size_t max)
{
	const json_t *nd = json_object_get(facts, "netdevs");
	size_t i, n = 0;
	const json_t *e;
	if (!json_is_array(nd))
		return 0;
	if (idx.facts && idx.facts == facts) {
		/* the adapter's index in the document: adapters are few per lookup's caller, but
		 * found through the function map all the same */
		const char *b = json_string_value(json_object_get(adapter, "bdf"));
		const json_t *ai = b ? json_object_get(idx.fn, b) : NULL;
		if (ai && json_array_get(hwc_q_adapters(facts), (size_t)json_integer_value(ai)) == adapter) {
			char key[24];
			snprintf(key, sizeof(key), "%lld", (long long)json_integer_value(ai));
			json_array_foreach(json_object_get(idx.by_ad, key), i, e) {
				if (n < max)
					out[n++] = e;
			}
			return n;
		}
	}
	json_array_foreach(nd, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *bdf = json_string_value(json_object_get(e, "bdf"));
		if (n < max && (str_in(json_object_get(adapter, "netdevs"), name) ||
				(bdf && hwc_q_adapter_has_function(adapter, bdf))))
			out[n++] = e;
	}
	return n;
}

static long idx_min(long a, long b)
{
	return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/* hwc_q_adapter_of through the maps: the same first adapter the searches below find. */
static const json_t *adapter_of_indexed(const json_t *facts, const json_t *ads, const char *name)
{
	long i = idx_min(idx_get(idx.fn, name), idx_min(idx_get(idx.nd, name), idx_get(idx.rd, name)));
	if (i >= 0)
		return json_array_get(ads, (size_t)i);
	const json_t *nd = json_object_get(idx.netdev, name);
	const char *bdf = nd ? json_string_value(json_object_get(nd, "bdf")) : NULL;
	const json_t *dev = hwc_q_pci_dev(facts, bdf ? bdf : name);
	const char *pf = dev ? json_string_value(json_object_get(dev, "physfn")) : NULL;
	i = idx_min(idx_get(idx.fn, bdf), idx_get(idx.fn, pf));
	const char *slash = strchr(name, '/');
	if (slash && (size_t)(slash - name) < 64) {
		char dev_name[64];
		memcpy(dev_name, name, (size_t)(slash - name));
		dev_name[slash - name] = 0;
		i = idx_min(i, idx_get(idx.rd, dev_name));
	}
	return i >= 0 ? json_array_get(ads, (size_t)i) : NULL;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* The functions of an adapter whose sensors count: its bdf, then its other functions. */
static size_t sensor_lists(const json_t *adapter, const json_t **lists, size_t max)
{
	const char *b = json_string_value(json_object_get(adapter, "bdf"));
	size_t n = 0, i;
	const json_t *e;
	if (b && json_object_get(idx.sensors, b))
		lists[n++] = json_object_get(idx.sensors, b);
	json_array_foreach(json_object_get(adapter, "functions"), i, e) {
		const char *fb = json_string_value(e);
		if (n < max && fb && !(b && !strcmp(fb, b)) && json_object_get(idx.sensors, fb))
			lists[n++] = json_object_get(idx.sensors, fb);
	}
	return n;
}

size_t hwc_q_adapter_sensors(const json_t *facts, const json_t *adapter, struct hwc_arena *a,
			  const json_t ***out)
{
	const json_t *sensors = hwc_q_list(facts, "thermal.sensors");
	size_t n = 0, i, k;
	const json_t *e, *f;
	if (!(idx.facts && idx.facts == facts)) {
		*out = hwc_arena_calloc(a, json_array_size(sensors) + 1, sizeof(**out));
		json_array_foreach(sensors, i, e) {
			const char *bdf = json_string_value(json_object_get(e, "bdf"));
			if (*out && bdf && hwc_q_adapter_has_function(adapter, bdf))
				(*out)[n++] = e;
		}
		return n;
	}
	/* the sensors of each of its functions, then back in document order */
	size_t maxl = json_array_size(json_object_get(adapter, "functions")) + 1;
	const json_t **lists = hwc_arena_calloc(a, maxl, sizeof(*lists));
	if (!lists)
		return 0;
	size_t nl = sensor_lists(adapter, lists, maxl), total = 0;
	for (i = 0; i < nl; i++)
		total += json_array_size(lists[i]);
	size_t *at = hwc_arena_calloc(a, total + 1, sizeof(*at));
	*out = hwc_arena_calloc(a, total + 1, sizeof(**out));
	if (!at || !*out)
		return 0;
	for (i = 0; i < nl; i++)
		json_array_foreach(lists[i], k, f) at[n++] = (size_t)json_integer_value(f);
	qsort(at, n, sizeof(*at), cmp_size);
	size_t m = 0;
	for (i = 0; i < n; i++)
		if (!i || at[i] != at[i - 1])
			(*out)[m++] = json_array_get(sensors, at[i]);
	return m;
}

const json_t *hwc_q_adapter_of(const json_t *facts, const char *name)
{
	const json_t *ads = hwc_q_adapters(facts);
	size_t i;
	const json_t *ad;
	if (!name || !ads)
		return NULL;
	if (idx.facts && idx.facts == facts)
		return adapter_of_indexed(facts, ads, name);
	json_array_foreach(ads, i, ad) {
		if (hwc_q_adapter_has_function(ad, name) || str_in(json_object_get(ad, "netdevs"), name) ||
		    str_in(json_object_get(ad, "rdma_devices"), name))
			return ad;
	}
	/* a netdev or VF known only by its bdf, or a "mlx5_0/1" port subject */
	const json_t *nd = find_by(json_object_get(facts, "netdevs"), "name", name);
	const char *bdf = nd ? json_string_value(json_object_get(nd, "bdf")) : NULL;
	const json_t *dev = hwc_q_pci_dev(facts, bdf ? bdf : name);
	const char *pf = dev ? json_string_value(json_object_get(dev, "physfn")) : NULL;
	const char *slash = strchr(name, '/');
	json_array_foreach(ads, i, ad) {
		if ((bdf && hwc_q_adapter_has_function(ad, bdf)) || (pf && hwc_q_adapter_has_function(ad, pf)))
			return ad;
		if (slash) {
			char dev_name[64];
			size_t n = (size_t)(slash - name);
			if (n < sizeof(dev_name)) {
				memcpy(dev_name, name, n);
				dev_name[n] = 0;
				if (str_in(json_object_get(ad, "rdma_devices"), dev_name))
					return ad;
			}
		}
	}
	return NULL;
}

double hwc_q_adapter_port_rate(const json_t *facts, const json_t *adapter, const char **src)
{
	double best = 0;
	size_t i;
	const json_t *p;
	*src = NULL;
	json_array_foreach(json_object_get(adapter, "ports"), i, p) {
		const char *st = json_string_value(json_object_get(p, "state"));
		const json_t *r = json_object_get(p, "rate_gbps");
		if (st && strcasestr(st, "active") && json_is_number(r) && json_number_value(r) > best) {
			best = json_number_value(r);
			*src = "ports[].rate_gbps";
		}
	}
	if (best > 0)
		return best;
	const json_t *nds[32];
	size_t n = hwc_q_adapter_netdevs(facts, adapter, nds, 32);
	for (size_t k = 0; k < n; k++) {
		const json_t *s = json_object_get(nds[k], "speed_mbps");
		if (json_is_number(s) && json_number_value(s) / 1000.0 > best) {
			best = json_number_value(s) / 1000.0;
			*src = "netdevs[].speed_mbps";
		}
	}
	if (best > 0)
		return best;
	const json_t *m = json_object_get(adapter, "port_rate_max_gbps");
	if (json_is_number(m) && json_number_value(m) > 0) {
		*src = "port_rate_max_gbps";
		return json_number_value(m);
	}
	return 0;
}

const char *hwc_q_elem_key(const json_t *o, struct hwc_arena *a)
{
	static const char *const keys[] = {"bdf", "rdma_device", "id", NULL};
	const char *chip = json_string_value(json_object_get(o, "chip"));
	const char *label = json_string_value(json_object_get(o, "label"));
	const char *name = json_string_value(json_object_get(o, "name"));
	if (name)
		return name;
	if (chip) {
		/* two cards both have an "mlx5/asic": the BDF tells them apart */
		const char *bdf = json_string_value(json_object_get(o, "bdf"));
		const char *cl = label ? hwc_arena_printf(a, "%s/%s", chip, label) : chip;
		return bdf ? hwc_arena_printf(a, "%s@%s", cl, bdf) : cl;
	}
	if (json_is_integer(json_object_get(o, "port")) && json_string_value(json_object_get(o, "rdma_device")))
		return hwc_arena_printf(a, "%s/%lld", json_string_value(json_object_get(o, "rdma_device")),
					(long long)json_integer_value(json_object_get(o, "port")));
	for (int i = 0; keys[i]; i++) {
		const json_t *v = json_object_get(o, keys[i]);
		if (json_is_string(v))
			return json_string_value(v);
		if (json_is_integer(v))
			return hwc_arena_printf(a, "%lld", (long long)json_integer_value(v));
	}
	return NULL;
}

/* path expression walker: "a.b[].c" */
static void walk(const json_t *obj, const char *expr, char *path, size_t plen, size_t cap,
		 const char *subject, struct hwc_arena *a, hwc_q_walk_cb cb, void *ud)
{
	const char *p = expr;
	while (*p == '.')
		p++;
	size_t n = strcspn(p, ".[");
	char key[128];
	if (n == 0 || n >= sizeof(key))
		return;
	memcpy(key, p, n);
	key[n] = 0;
	const char *rest = p + n;
	bool iter = strncmp(rest, "[]", 2) == 0;
	if (iter)
		rest += 2;
	int w = snprintf(path + plen, cap - plen, "%s%s", plen ? "." : "", key);
	if (w < 0 || (size_t)w >= cap - plen)
		return;
	size_t nl = plen + (size_t)w;
	const json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
	if (!v || json_is_null(v)) {
		cb(ud, hwc_arena_strdup(a, path), subject, NULL, why_of(obj, key, a));
		return;
	}
	if (iter) {
		if (!json_is_array(v)) {
			cb(ud, hwc_arena_strdup(a, path), subject, NULL, "invalid: not an array");
			return;
		}
		size_t i;
		const json_t *e;
		json_array_foreach(v, i, e) {
			const char *k = json_is_object(e) ? hwc_q_elem_key(e, a) : NULL;
			char *ep = hwc_arena_printf(a, "%s[%s]", path, k ? k : hwc_arena_printf(a, "%zu", i));
			char sub[512];
			snprintf(sub, sizeof(sub), "%s", ep ? ep : "");
			if (!*rest)
				cb(ud, hwc_arena_strdup(a, sub), k ? k : subject, e, NULL);
			else
				walk(e, rest, sub, strlen(sub), sizeof(sub), k ? k : subject, a, cb, ud);
		}
		return;
	}
	if (!*rest) {
		cb(ud, hwc_arena_strdup(a, path), subject, v, NULL);
		return;
	}
	walk(v, rest, path, nl, cap, subject, a, cb, ud);
}

void hwc_q_walk(const json_t *facts, const char *expr, struct hwc_arena *a, hwc_q_walk_cb cb, void *ud)
{
	char path[512] = "";
	walk(facts, expr, path, 0, sizeof(path), "host", a, cb, ud);
}

/* The widths of the IBA PortCounters the kernel shows (PORT_PMA_ATTR in
 * drivers/infiniband/core/sysfs.c): such a counter stops at its maximum. */
uint64_t hwc_q_ib_counter_max(const char *name)
{
	static const struct {
		const char *name;
		uint64_t max;
	} w[] = {
		{"symbol_error", 0xffff},
		{"link_error_recovery", 0xff},
		{"link_downed", 0xff},
		{"port_rcv_errors", 0xffff},
		{"port_rcv_remote_physical_errors", 0xffff},
		{"port_rcv_switch_relay_errors", 0xffff},
		{"port_xmit_discards", 0xffff},
		{"port_xmit_constraint_errors", 0xff},
		{"port_rcv_constraint_errors", 0xff},
		{"local_link_integrity_errors", 0xf},
		{"excessive_buffer_overrun_errors", 0xf},
		{"VL15_dropped", 0xffff},
	};
	for (size_t i = 0; name && i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(w[i].name, name))
			return w[i].max;
	return 0;
}

const char *hwc_q_klog_window(const json_t *facts, struct hwc_arena *a)
{
	double s = -1;
	const char *why = NULL;
	bool known = hwc_q_find_num(facts, "host.kernel.log_start_s", &s, &why, a) && s >= 0;
	if (known && s == 0)
		return "since boot";
	if (known)
		return hwc_arena_printf(a, "since %s s after boot (where the kernel log begins: it wrapped or was cleared, "
					"older lines are not in it)", hwc_arena_printf(a, s >= 100 ? "%.0f" : "%.3g", s));
	return "in the kernel log read (whether it reaches back to boot is unknown)";
}
