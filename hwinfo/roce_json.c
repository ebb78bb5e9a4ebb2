/* SPDX-License-Identifier: MIT */
/* facts.roce <-> JSON (docs/FACTS.md, docs/schema/roce.schema.json): exact round trip. */
#include "hwinfo/roce.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"

/* ------------------------------------------------------------------ arrays */

/* A roce array entry: .elem elements, booleans with ARR_BOOL (a flag bit of the entry's own). */
#define ARR_BOOL 0x100u

static int put_arr(json_t *o, const struct hwc_jfield *f, const void *p)
{
	const struct hwc_roce_arr *r = p;
	if (r->m.st != HWC_ST_OK)
		return hwc_json_put_meta(o, f->key, &r->m);
	json_t *arr = json_array();
	for (unsigned i = 0; arr && i < r->n; i++)
		json_array_append_new(arr, !r->has[i] ? json_null()
					   : r->is_bool ? json_boolean(r->v[i])
							: json_integer(r->v[i]));
	return arr && json_object_set_new(o, f->key, arr) == 0 ? 0 : -ENOMEM;
}

static int get_arr(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	struct hwc_roce_arr *r = p;
	unsigned n = (unsigned)f->elem;
	bool is_bool = f->flags & ARR_BOOL;
	hwc_roce_arr_init(r, n, is_bool, NULL);
	const json_t *j = json_object_get(o, f->key);
	if (!j || json_is_null(j))
		return hwc_json_get_meta(o, f->key, a, &r->m);
	if (!json_is_array(j) || json_array_size(j) != n)
		goto bad;
	hwc_fmeta_set(&r->m, HWC_ST_OK, 0, NULL);
	size_t i;
	const json_t *x;
	json_array_foreach(j, i, x) {
		if (json_is_null(x))
			continue;
		if (is_bool ? !json_is_boolean(x) : !json_is_integer(x))
			goto bad;
		hwc_roce_arr_set(r, (unsigned)i, is_bool ? json_is_true(x) : json_integer_value(x));
	}
	return 0;
bad:
	hwc_fmeta_set(&r->m, HWC_ST_INVALID, 0,
		      hwc_arena_printf(a, "%s: not an array of %u", f->key, n));
	return -EINVAL;
}

/* tc_tsa: the custom entry sits at the qos struct itself (the array and its status). */
static int put_tsa(json_t *o, const struct hwc_jfield *f, const void *p)
{
	const struct hwc_roce_qos *q = p;
	if (q->tc_tsa_m.st != HWC_ST_OK)
		return hwc_json_put_meta(o, f->key, &q->tc_tsa_m);
	json_t *arr = json_array();
	for (unsigned i = 0; arr && i < HWC_ROCE_NPRIO; i++)
		json_array_append_new(arr, q->tc_tsa[i] ? hwc_json_string(q->tc_tsa[i]) : json_null());
	return arr && json_object_set_new(o, f->key, arr) == 0 ? 0 : -ENOMEM;
}

static int get_tsa(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	struct hwc_roce_qos *q = p;
	const json_t *j = json_object_get(o, f->key);
	memset(q->tc_tsa, 0, sizeof(q->tc_tsa));
	if (!j || json_is_null(j))
		return hwc_json_get_meta(o, f->key, a, &q->tc_tsa_m);
	if (!json_is_array(j) || json_array_size(j) != HWC_ROCE_NPRIO) {
		hwc_fmeta_set(&q->tc_tsa_m, HWC_ST_INVALID, 0, "tc_tsa: not an array of 8");
		return -EINVAL;
	}
	hwc_fmeta_set(&q->tc_tsa_m, HWC_ST_OK, 0, NULL);
	size_t i;
	const json_t *x;
	int rc = 0;
	json_array_foreach(j, i, x) {
		if (json_is_string(x))
			q->tc_tsa[i] = hwc_arena_strdup(a, json_string_value(x));
		else if (!json_is_null(x))
			rc = -EINVAL;
	}
	return rc;
}

/* ------------------------------------------------------------------ tables */

#define ARR(T, k, m, n, fl)                                                                        \
	{.key = k, .t = HWC_JT_CUSTOM, .off = offsetof(struct T, m), .elem = n, .flags = fl,         \
	 .put = put_arr, .get = get_arr}
#define STR(T, k, m) HWC_JFK(struct T, k, m, HWC_JT_STR)
#define I64(T, k, m) HWC_JFK(struct T, k, m, HWC_JT_I64)
static const struct hwc_jfield qos_f[] = {
	STR(hwc_roce_qos, "source", source),
	STR(hwc_roce_qos, "dcbx_mode", dcbx_mode),
	STR(hwc_roce_qos, "trust", trust),
	ARR(hwc_roce_qos, "dscp2prio", dscp2prio, HWC_ROCE_NDSCP, 0),
	ARR(hwc_roce_qos, "pfc_enabled", pfc_enabled, HWC_ROCE_NPRIO, ARR_BOOL),
	ARR(hwc_roce_qos, "prio_tc", prio_tc, HWC_ROCE_NPRIO, 0),
	ARR(hwc_roce_qos, "tc_bw", tc_bw, HWC_ROCE_NPRIO, 0),
	{.key = "tc_tsa", .t = HWC_JT_CUSTOM, .off = 0, .put = put_tsa, .get = get_tsa},
	ARR(hwc_roce_qos, "prio_buffer", prio_buffer, HWC_ROCE_NPRIO, 0),
};
/* ecn and congestion are objects of their own in JSON, members of the port in C (offset 0) */
static const struct hwc_jfield ecn_f[] = {
	ARR(hwc_roce_port, "np_enabled", ecn_np, HWC_ROCE_NPRIO, ARR_BOOL),
	ARR(hwc_roce_port, "rp_enabled", ecn_rp, HWC_ROCE_NPRIO, ARR_BOOL),
};
static const struct hwc_jfield cc_f[] = {
	I64(hwc_roce_port, "cnp_dscp", cnp_dscp),
	I64(hwc_roce_port, "cnp_802p_prio", cnp_802p_prio),
	STR(hwc_roce_port, "cnp_source", cnp_source),
	I64(hwc_roce_port, "cc_prio_mask", cc_prio_mask),
	STR(hwc_roce_port, "cc_algorithm", cc_algorithm),
};
static const struct hwc_jfield gid_f[] = {
	HWC_JF(struct hwc_roce_gid, index, HWC_JT_KEY_I64),
	STR(hwc_roce_gid, "gid", gid),
	STR(hwc_roce_gid, "type", type),
	STR(hwc_roce_gid, "ndev", ndev),
};
static const struct hwc_jfield counters_f[] = {
	HWC_JNAMED(struct hwc_roce_counters, hw, hwc_roce_hw_names, HWC_ROCE_NHW),
	HWC_JFK(struct hwc_roce_counters, "tx_pause_storm_warning_events", pause_storm_warning,
		HWC_JT_U64),
	HWC_JFK(struct hwc_roce_counters, "tx_pause_storm_error_events", pause_storm_error,
		HWC_JT_U64),
	ARR(hwc_roce_counters, "rx_prio_pause", rx_pause, HWC_ROCE_NPRIO, 0),
	ARR(hwc_roce_counters, "tx_prio_pause", tx_pause, HWC_ROCE_NPRIO, 0),
	ARR(hwc_roce_counters, "rx_prio_pause_duration", rx_pause_duration, HWC_ROCE_NPRIO, 0),
	ARR(hwc_roce_counters, "tx_prio_pause_duration", tx_pause_duration, HWC_ROCE_NPRIO, 0),
	ARR(hwc_roce_counters, "rx_prio_discards", rx_discards, HWC_ROCE_NPRIO, 0),
};
static const struct hwc_jtable qos_t = HWC_JTABLE("roce.ports[].qos", qos_f, 0);
static const struct hwc_jtable ecn_t = HWC_JTABLE("roce.ports[].ecn", ecn_f, 0);
static const struct hwc_jtable cc_t = HWC_JTABLE("roce.ports[].congestion", cc_f, 0);
static const struct hwc_jtable gids_t = HWC_JTABLE("roce.ports[].gids[]", gid_f, 0);
static const struct hwc_jtable counters_t = HWC_JTABLE("roce.ports[].counters", counters_f, 0);
static const struct hwc_jfield port_f[] = {
	HWC_JF(struct hwc_roce_port, rdma_device, HWC_JT_KEY_STR),
	HWC_JF(struct hwc_roce_port, port, HWC_JT_KEY_I64),
	STR(hwc_roce_port, "netdev", netdev),
	STR(hwc_roce_port, "bdf", bdf),
	I64(hwc_roce_port, "fw_port", fw_port),
	HWC_JSUB(struct hwc_roce_port, "qos", qos, HWC_JT_OBJ, qos_t),
	{.key = "ecn", .t = HWC_JT_OBJ, .off = 0, .sub = &ecn_t},
	{.key = "congestion", .t = HWC_JT_OBJ, .off = 0, .sub = &cc_t},
	I64(hwc_roce_port, "default_roce_tos", default_roce_tos),
	STR(hwc_roce_port, "default_roce_tos_source", default_roce_tos_source),
	HWC_JVEC_M(struct hwc_roce_port, "gids", gids, gids_m, struct hwc_roce_gid, gids_t),
	I64(hwc_roce_port, "roce_v2_gid_index", roce_v2_gid_index),
	HWC_JSUB(struct hwc_roce_port, "counters", counters, HWC_JT_OBJ, counters_t),
};
static const struct hwc_jtable port_t = HWC_JTABLE("roce.ports[]", port_f, 0);
static const struct hwc_jfield roce_f[] = {
	HWC_JVEC_M(struct hwc_roce_facts, "ports", ports, m, struct hwc_roce_port, port_t),
};
#undef ARR
#undef STR
#undef I64
const struct hwc_jtable hwc_roce_table = HWC_JTABLE("roce", roce_f, 0);

/* ------------------------------------------------------------------ JSON */

json_t *hwc_roce_port_json(const struct hwc_roce_port *p)
{
	return hwc_json_from_table(p, &port_t);
}

json_t *hwc_roce_to_json(const struct hwc_facts *f)
{
	static const struct hwc_roce_facts none; /* before facts.roce: nobody collected it */
	return hwc_json_from_table(f->roce ? f->roce : &none, &hwc_roce_table);
}

int hwc_roce_from_json(const json_t *j, struct hwc_facts *f)
{
	if (!json_is_object(j))
		return -EINVAL;
	struct hwc_roce_facts *rf = hwc_arena_zalloc(f->arena, sizeof(*rf));
	if (!rf)
		return -ENOMEM;
	f->roce = rf;
	return hwc_json_get_table(j, f->arena, rf, &hwc_roce_table);
}
