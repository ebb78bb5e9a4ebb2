/* SPDX-License-Identifier: MIT */
/* facts.roce <-> JSON (docs/FACTS.md, docs/schema/roce.schema.json): exact round trip. */
#include "hwinfo/roce.h"

#include <errno.h>
#include <string.h>

#include "core/json.h"

/* ------------------------------------------------------------------ tables */

/* per-priority (and per-DSCP) arrays of integers and of booleans */
#define I64A(T, k, m, n) HWC_JSLOTS(struct T, k, m, HWC_JT_I64_SLOTS, n)
#define BOOLA(T, k, m, n) HWC_JSLOTS(struct T, k, m, HWC_JT_BOOL_SLOTS, n)
#define STR(T, k, m) HWC_JFK(struct T, k, m, HWC_JT_STR)
#define I64(T, k, m) HWC_JFK(struct T, k, m, HWC_JT_I64)
static const struct hwc_jfield qos_f[] = {
	STR(hwc_roce_qos, "source", source),
	STR(hwc_roce_qos, "dcbx_mode", dcbx_mode),
	STR(hwc_roce_qos, "trust", trust),
	I64A(hwc_roce_qos, "dscp2prio", dscp2prio, HWC_ROCE_NDSCP),
	BOOLA(hwc_roce_qos, "pfc_enabled", pfc_enabled, HWC_ROCE_NPRIO),
	I64A(hwc_roce_qos, "prio_tc", prio_tc, HWC_ROCE_NPRIO),
	I64A(hwc_roce_qos, "tc_bw", tc_bw, HWC_ROCE_NPRIO),
	{.key = "tc_tsa", .t = HWC_JT_STR_SLOTS, .off = offsetof(struct hwc_roce_qos, tc_tsa),
	 .flags = HWC_JF_META, .meta = offsetof(struct hwc_roce_qos, tc_tsa_m),
	 .elem = HWC_ROCE_NPRIO},
	I64A(hwc_roce_qos, "prio_buffer", prio_buffer, HWC_ROCE_NPRIO),
};
/* ecn and congestion are objects of their own in JSON, members of the port in C (offset 0) */
static const struct hwc_jfield ecn_f[] = {
	BOOLA(hwc_roce_port, "np_enabled", ecn_np, HWC_ROCE_NPRIO),
	BOOLA(hwc_roce_port, "rp_enabled", ecn_rp, HWC_ROCE_NPRIO),
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
/* the netdev's counters (ethtool -S): a port's and a LAG member's */
#define PAUSE_COUNTERS_F                                                                           \
	HWC_JFK(struct hwc_roce_counters, "tx_pause_storm_warning_events", pause_storm_warning,    \
		HWC_JT_U64),                                                                       \
	HWC_JFK(struct hwc_roce_counters, "tx_pause_storm_error_events", pause_storm_error,        \
		HWC_JT_U64),                                                                       \
	I64A(hwc_roce_counters, "rx_prio_pause", rx_pause, HWC_ROCE_NPRIO),                        \
	I64A(hwc_roce_counters, "tx_prio_pause", tx_pause, HWC_ROCE_NPRIO),                        \
	I64A(hwc_roce_counters, "rx_prio_pause_duration", rx_pause_duration, HWC_ROCE_NPRIO),      \
	I64A(hwc_roce_counters, "tx_prio_pause_duration", tx_pause_duration, HWC_ROCE_NPRIO),      \
	I64A(hwc_roce_counters, "rx_prio_discards", rx_discards, HWC_ROCE_NPRIO)
/* The slot entries are what dcb_parse.c reads from ethtool -S: each key is the counter's ethtool
 * name without its priority (rx_prio3_pause -> "rx_prio_pause"). */
static const struct hwc_jfield counters_f[] = {
	HWC_JNAMED(struct hwc_roce_counters, hw, hwc_roce_hw_names, HWC_ROCE_NHW),
	PAUSE_COUNTERS_F,
};
static const struct hwc_jtable qos_t = HWC_JTABLE("roce.ports[].qos", qos_f, 0);
static const struct hwc_jtable ecn_t = HWC_JTABLE("roce.ports[].ecn", ecn_f, 0);
static const struct hwc_jtable cc_t = HWC_JTABLE("roce.ports[].congestion", cc_f, 0);
static const struct hwc_jtable gids_t = HWC_JTABLE("roce.ports[].gids[]", gid_f, 0);
const struct hwc_jtable hwc_roce_counters_table =
	HWC_JTABLE("roce.ports[].counters", counters_f, 0);
/* A LAG member's counters: its netdev's; hw_counters are the LAG port's. */
static const struct hwc_jfield member_counters_f[] = {
	PAUSE_COUNTERS_F,
};
#undef PAUSE_COUNTERS_F
static const struct hwc_jtable member_counters_t =
	HWC_JTABLE("roce.ports[].members[].counters", member_counters_f, 0);
static const struct hwc_jtable member_qos_t = HWC_JTABLE("roce.ports[].members[].qos", qos_f, 0);
static const struct hwc_jtable member_ecn_t = HWC_JTABLE("roce.ports[].members[].ecn", ecn_f, 0);
static const struct hwc_jtable member_cc_t =
	HWC_JTABLE("roce.ports[].members[].congestion", cc_f, 0);
/* A RoCE LAG member: the facts its netdev holds, under the same keys as a port's. */
static const struct hwc_jfield member_f[] = {
	/* the member's netdev, its PCI function and its PF's _P<n> (docs/schema/roce.schema.json) */
	STR(hwc_roce_port, "netdev", netdev),
	STR(hwc_roce_port, "bdf", bdf),
	I64(hwc_roce_port, "fw_port", fw_port),
	HWC_JSUB(struct hwc_roce_port, "qos", qos, HWC_JT_OBJ, member_qos_t),
	{.key = "ecn", .t = HWC_JT_OBJ, .off = 0, .sub = &member_ecn_t},
	{.key = "congestion", .t = HWC_JT_OBJ, .off = 0, .sub = &member_cc_t},
	HWC_JSUB(struct hwc_roce_port, "counters", counters, HWC_JT_OBJ, member_counters_t),
};
static const struct hwc_jtable member_t = HWC_JTABLE("roce.ports[].members[]", member_f, 0);
static bool is_lag(const void *base)
{
	return ((const struct hwc_roce_port *)base)->members_m.st != HWC_ST_UNSET;
}
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
	HWC_JSUB(struct hwc_roce_port, "counters", counters, HWC_JT_OBJ, hwc_roce_counters_table),
	{.key = "members", .t = HWC_JT_VEC, .off = offsetof(struct hwc_roce_port, members),
	 .flags = HWC_JF_META, .meta = offsetof(struct hwc_roce_port, members_m), .sub = &member_t,
	 .elem = sizeof(struct hwc_roce_port), .when = is_lag,
	 .doc = "RoCE LAG port only (its netdev is a bond): each member netdev's QoS, ECN, CNP, "
		"DCQCN and pause counters, which the bond does not hold"},
};
static const struct hwc_jtable port_t = HWC_JTABLE("roce.ports[]", port_f, 0);
static const struct hwc_jfield roce_f[] = {
	HWC_JVEC_M(struct hwc_roce_facts, "ports", ports, m, struct hwc_roce_port, port_t),
};
#undef I64A
#undef BOOLA
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
	int rc;
	f->roce = hwc_json_section_from(j, f->arena, sizeof(*f->roce), &hwc_roce_table, &rc);
	return rc;
}
