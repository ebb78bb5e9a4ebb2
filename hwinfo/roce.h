/* SPDX-License-Identifier: MIT */
/* RoCE lossless chain per RoCE port: DCB (trust, DSCP map, PFC, ETS, DCBX), ECN/DCQCN, CNP,
 * RDMA-CM default ToS, the GID table and the counters that show the chain working. */
#ifndef HWC_HWINFO_ROCE_H
#define HWC_HWINFO_ROCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/env.h"
#include "core/facts.h"
#include "core/runner.h"

#define HWC_ROCE_NPRIO 8
#define HWC_ROCE_NDSCP 64

_Static_assert(HWC_ROCE_NDSCP <= HWC_FSLOTS_MAX, "a DSCP map fits a struct hwc_fslots");

struct hwc_roce_qos {
	struct hwc_fstr source;    /* "dcb" (iproute2 dcbnl) or "mlnx_qos" (MLNX_OFED) */
	struct hwc_fstr dcbx_mode; /* "host" (OS controlled) or "firmware" */
	struct hwc_fstr trust;     /* "dscp" or "pcp" */
	struct hwc_fslots dscp2prio;   /* 64: the priority of each DSCP */
	struct hwc_fslots pfc_enabled; /* 8 booleans */
	struct hwc_fslots prio_tc;     /* 8: the traffic class of each priority */
	struct hwc_fslots tc_bw;       /* 8: ETS bandwidth percent of each TC */
	struct hwc_fmeta tc_tsa_m;
	const char *tc_tsa[HWC_ROCE_NPRIO]; /* "ets", "strict", "vendor", "cbs" */
	struct hwc_fslots prio_buffer; /* 8: receive buffer of each priority */
};

struct hwc_roce_gid {
	int64_t index;
	struct hwc_fstr gid, type, ndev;
};

/* hw_counters of the RDMA port, in JSON order. */
#define HWC_ROCE_NHW 9
extern const char *const hwc_roce_hw_names[HWC_ROCE_NHW];

struct hwc_roce_counters {
	struct hwc_fu64 hw[HWC_ROCE_NHW];
	struct hwc_fu64 pause_storm_warning, pause_storm_error; /* ethtool -S tx_pause_storm_* */
	struct hwc_fslots rx_pause, tx_pause, rx_pause_duration, tx_pause_duration, rx_discards;
};

struct hwc_roce_port {
	const char *rdma_device;
	int64_t port;
	struct hwc_fstr netdev, bdf;
	struct hwc_fi64 fw_port; /* the _P<n> of the firmware parameters */
	struct hwc_roce_qos qos;
	struct hwc_fslots ecn_np, ecn_rp; /* 8 booleans: ecn/roce_np|roce_rp/enable/<prio> */
	struct hwc_fi64 cnp_dscp, cnp_802p_prio;
	struct hwc_fstr cnp_source; /* "sysfs" (ecn/roce_np/params) or "mstconfig" */
	struct hwc_fi64 cc_prio_mask; /* ROCE_CC_PRIO_MASK_P<n>: priorities with DCQCN */
	struct hwc_fstr cc_algorithm;
	struct hwc_fi64 default_roce_tos;
	struct hwc_fstr default_roce_tos_source; /* "configfs" or "kernel_default" */
	struct hwc_fmeta gids_m;
	HWC_VEC(struct hwc_roce_gid) gids;
	struct hwc_fi64 roce_v2_gid_index; /* first RoCE v2 GID on a routable address */
	struct hwc_roce_counters counters;
	/* RoCE LAG (the port's netdev is a bond of the card's PFs, mlx5_bond_<n>): the QoS, ECN,
	 * CNP, DCQCN and pause counters live on each member's netdev, not on the bond; each member
	 * is a port of its own here (rdma_device and port the LAG's, no GIDs, ToS or hw_counters).
	 * Written only for a LAG port. */
	struct hwc_fmeta members_m;
	HWC_VEC(struct hwc_roce_port) members;
};

struct hwc_roce_facts {
	struct hwc_fmeta m;
	HWC_VEC(struct hwc_roce_port) ports;
};

/* ---- pure parsers (hwinfo/dcb_parse.c; fuzzed) ---------------------------------------------- */

enum hwc_dcb_show { HWC_DCB_APP, HWC_DCB_PFC, HWC_DCB_ETS, HWC_DCB_DCBX, HWC_DCB_BUFFER };

/* Marks the facts one `dcb <what> show` answers with status st. */
void hwc_dcb_fail(enum hwc_dcb_show what, struct hwc_roce_qos *q, enum hwc_status st,
		  const char *detail);
/* Empties every fact of q (absent, detail naming src). */
void hwc_roce_qos_init(struct hwc_roce_qos *q, struct hwc_arena *a, const char *src);
/* `dcb -j <what> show dev X` (iproute2's JSON): fills the facts that answer carries. 0, or
 * -EINVAL when it is not that JSON (those facts are then invalid, naming src). */
int hwc_dcb_parse(enum hwc_dcb_show what, const char *buf, size_t len, const char *src,
		  struct hwc_arena *a, struct hwc_roce_qos *q);
/* `mlnx_qos -i X` text: DCBX mode, trust, dscp2prio, PFC (+ buffer row), TCs. 0 or -EINVAL. */
int hwc_mlnx_qos_parse(const char *buf, size_t len, const char *src, struct hwc_arena *a,
		       struct hwc_roce_qos *q);
/* `ethtool -S X` text: the per-priority pause/discard counters and the pause storm events. */
int hwc_roce_parse_ethtool(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			   struct hwc_roce_counters *c);
/* "fe80:0000:...": true for an all-zero GID (an empty table slot). */
bool hwc_roce_gid_zero(const char *gid);
/* RoCE v2 on a routable address (IPv4-mapped ::ffff:a.b.c.d or non-link-local IPv6). */
bool hwc_roce_gid_routable(const char *gid);

/* ---- the section (hwinfo/roce.c) ------------------------------------------------------------- */

int hwc_roce_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);

/* The `dcb -j X show dev NETDEV` calls of a RoCE port, for the caller to start ahead
 * (hwc_run_start): HWC_ROCE_DCB_CMDS commands into out; 0 when out of memory. */
#define HWC_ROCE_DCB_CMDS 5
size_t hwc_roce_dcb_cmds(struct hwc_arena *a, const char *netdev, struct hwc_cmd *out);
/* The same for the port whose netdev is nd: for a RoCE LAG port (nd a bond) its members'. At
 * most room commands into out; how many. */
size_t hwc_roce_port_dcb_cmds(struct hwc_env *e, struct hwc_arena *a, const char *nd,
			      struct hwc_cmd *out, size_t room);
json_t *hwc_roce_to_json(const struct hwc_facts *f);
int hwc_roce_from_json(const json_t *j, struct hwc_facts *f);
json_t *hwc_roce_port_json(const struct hwc_roce_port *p);
/* The field table of facts.roce (core/json.h). */
struct hwc_jtable;
extern const struct hwc_jtable hwc_roce_table;
/* roce.ports[].counters: its integer slot entries are the per-priority counters of ethtool -S,
 * keyed by their name without the priority ("rx_prio_pause" for rx_prio3_pause). */
extern const struct hwc_jtable hwc_roce_counters_table;

#endif
