/* SPDX-License-Identifier: MIT */
/* Querying a facts document (the "facts" object of docs/FACTS.md) in its JSON form: a value or
 * the reason it is unknown, and the objects of the document by their natural key (a PCI function
 * by BDF, a netdev by name, the adapter of a function, netdev or RDMA device). One layer for
 * rules/ and cli/ (diff, merge, prom, report, cards), so each reads the facts the same way. */
#ifndef HWC_CORE_QUERY_H
#define HWC_CORE_QUERY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "core/arena.h"

/* ------------------------------------------------------------ plain values */

/* o[key], treating a JSON null as absent (an unknown fact): NULL when o is not an object. */
const json_t *hwc_q_get(const json_t *o, const char *key);
/* True when o holds key, whatever its value (null included). */
bool hwc_q_has(const json_t *o, const char *key);
/* True when o holds key with the value null (an unknown fact, as against one never collected). */
bool hwc_q_is_null(const json_t *o, const char *key);
/* True when a and b both hold key with equal values (two nulls are equal; an absent key never). */
bool hwc_q_same(const json_t *a, const json_t *b, const char *key);
/* o[key] as a string; NULL when absent, null or not a string. */
const char *hwc_q_string(const json_t *o, const char *key);
/* A dotted path ("link.speed_gts") below o; NULL when any step is absent or null. */
const json_t *hwc_q_at(const json_t *o, const char *dotted);

/* ------------------------------------------------------------ values or why they are unknown */

/* A value looked up by a dotted key ("link.speed_gts") in obj. Returns 1 with the value, or 0
 * with *why set to the unavailable status ("needs_root: detail", "not_collected") of the
 * innermost object that holds the key. */
int hwc_q_find(const json_t *obj, const char *dotted, const json_t **val, const char **why,
	       struct hwc_arena *a);
int hwc_q_find_num(const json_t *obj, const char *dotted, double *out, const char **why,
		   struct hwc_arena *a);
int hwc_q_find_bool(const json_t *obj, const char *dotted, bool *out, const char **why,
		    struct hwc_arena *a);
int hwc_q_find_str(const json_t *obj, const char *dotted, const char **out, const char **why,
		   struct hwc_arena *a);

/* ------------------------------------------------------------ objects of the document */

/* facts.mlx.adapters (NULL when not an array). */
const json_t *hwc_q_adapters(const json_t *facts);
/* The pci.devices[] object of bdf; NULL if none. */
const json_t *hwc_q_pci_dev(const json_t *facts, const char *bdf);
/* The netdevs[] object named name; NULL if none. */
const json_t *hwc_q_netdev(const json_t *facts, const char *name);
/* While set, lookups in this facts document use hash indexes built once (linear cost over
 * thousands of functions); hwc_rules_eval brackets the rules with them. */
void hwc_q_index_begin(const json_t *facts);
void hwc_q_index_end(void);
/* The PCI function (BDF) of an adapter that owns port: its netdev's bdf, else the function_map
 * entry holding its RDMA device or netdev; NULL when unknown. */
const char *hwc_q_port_function(const json_t *facts, const json_t *adapter, const json_t *port);
/* The netdev objects of an adapter (by its netdevs list, else by bdf among its functions). */
size_t hwc_q_adapter_netdevs(const json_t *facts, const json_t *adapter, const json_t **out,
			     size_t max);
/* The thermal.sensors tied to the adapter's functions, in document order (arena array). */
size_t hwc_q_adapter_sensors(const json_t *facts, const json_t *adapter, struct hwc_arena *a,
			     const json_t ***out);
/* The adapter whose functions, netdevs or RDMA devices include name; NULL if none. */
const json_t *hwc_q_adapter_of(const json_t *facts, const char *name);
/* The first adapter of which bdf is a function (its bdf or one of its functions); NULL if none. */
const json_t *hwc_q_function_adapter(const json_t *facts, const char *bdf);
/* True when bdf is one of the adapter's functions. */
bool hwc_q_adapter_has_function(const json_t *adapter, const char *bdf);
/* The fastest port rate of the adapter in Gb/s (active ports, else netdev speeds, else the
 * product maximum); 0 when unknown; *src names the fact used. */
double hwc_q_adapter_port_rate(const json_t *facts, const json_t *adapter, const char **src);

/* ------------------------------------------------------------ sections of the document */

/* facts.host (NULL when absent or null); facts.netdevs[] and facts.roce.ports[] (NULL when not
 * arrays); facts.pci.gpudirect (NULL when not an object: no GPU peers were looked for);
 * facts.mlx.fw_image, the image to be flashed (a JSON null when it was given but could not be
 * read; NULL when none was given). */
const json_t *hwc_q_host(const json_t *facts);
const json_t *hwc_q_netdevs(const json_t *facts);
const json_t *hwc_q_roce_ports(const json_t *facts);
const json_t *hwc_q_gpudirect(const json_t *facts);
const json_t *hwc_q_fw_image(const json_t *facts);
/* Any other array of the document by its dotted path ("pci.devices", "pci.gpudirect.pairs",
 * "thermal.sensors", "probe.results"); NULL when it is not an array (not collected, or no probe
 * ran). */
const json_t *hwc_q_list(const json_t *facts, const char *dotted);
/* The unavailable status {status, detail} that o gives for its key; NULL when none. */
const json_t *hwc_q_unavailable(const json_t *o, const char *key);
/* The host.numa.nodes[] entry whose id is node (an integer); NULL when none or node is not one. */
const json_t *hwc_q_numa_node(const json_t *facts, const json_t *node);

/* ------------------------------------------------------------ a PCI function, a netdev, a port */

/* A PCI function's link {speed_gts, width, cap_speed_gts, cap_width, gbps, cap_gbps}, its path
 * bottleneck {bdf, speed_gts, width, gbps, raw_gbps}, one number of its link ("speed_gts",
 * "cap_width"...; 0 when unknown) and the bridge above it; NULL when unknown. */
const json_t *hwc_q_pci_link(const json_t *dev);
const json_t *hwc_q_path_bottleneck(const json_t *dev);
double hwc_q_pci_link_num(const json_t *dev, const char *key);
const char *hwc_q_pci_upstream(const json_t *dev);
/* A netdev's transceiver (link.module), its wire side (link: carrier changes, FEC, modes, LLDP
 * peer) and IRQ locality {numa_node, vectors, outside_local, local_cpulist}; NULL when unknown. */
const json_t *hwc_q_netdev_module(const json_t *nd);
const json_t *hwc_q_netdev_link(const json_t *nd);
const json_t *hwc_q_irq_locality(const json_t *nd);
/* The lanes of a netdev's module that its live link needs (issue 14): `needed` is ethtool's Lanes:
 * where it reports them, else the fewest of the module's lanes that carry the
 * speed (ceil(speed / (max_gbps / lanes)), at most its lanes: 100G over a 4-lane 100G QSFP28 needs
 * 4, 25G over it 1), else 1 (a live link needs one at least); `basis` says which; 0 when the link is not up
 * (operstate, else carrier), when every lane may be dark. `shared`: another netdev reads the same
 * module (vendor and serial: a breakout), so which lanes are its own is not known, only how many. */
struct hwc_q_lanes {
	unsigned needed, lit; /* lanes the link needs; lanes not dark (hwc_q_lane_dark) */
	double speed_gbps;
	const char *basis; /* where needed comes from: "ethtool's Lanes" ... */
	bool shared;
};
void hwc_q_module_lanes(const json_t *facts, const json_t *nd, const json_t *m, struct hwc_q_lanes *o);
/* The same for the module mstlink's Module Info shows on an adapter's port (ports[].module):
 * through the port's netdev where it has one; else (InfiniBand) the link is live when the port is
 * ACTIVE or LinkUp or mstlink says Active, and needs the lanes of mstlink's Width ("4x"), else of
 * the port's active_width ("4X"), else 1; never shared. */
void hwc_q_port_module_lanes(const json_t *facts, const json_t *port, const json_t *m, struct hwc_q_lanes *o);
/* Lane i (0-based) of module m reads no bias, no Tx and no Rx power (0 mA of bias, at most one
 * 0.1 uW step of power, in each it reports, at least one; mstlink's dBm: -40 or less, how it prints
 * no light): dark, as a breakout's idle lane
 * or a down port's lanes are. Either source's keys (ethtool -m: tx_bias_ma, tx_power_mw,
 * rx_power_mw; mstlink: bias_ma, tx_power_dbm, rx_power_dbm). */
bool hwc_q_lane_dark(const json_t *m, size_t i);
/* The kernel says the card refused netdev nd's cable or module: ethtool's link_ext_state 'Cable
 * issue' with the substate 'Unsupported cable' (mlx5 maps its firmware's troubleshooting status
 * onto it); such a card keeps the module's laser off (a real ConnectX-4 that refused a Finisar
 * 100G-CWDM4 QSFP28: 0 mA of bias on every lane, tests/link/REAL-DATA.md, robinchrist). */
bool hwc_q_netdev_module_refused(const json_t *nd);
/* The lanes module m reports readings for (the longest of those per-lane arrays). */
size_t hwc_q_module_nlanes(const json_t *m);
/* Lane i is dark although the live link needs it (l of hwc_q_module_lanes): its readings are not
 * measurements (a lane that carries a link has bias and light). A breakout's: while fewer lanes
 * are lit than it needs, each dark one. */
bool hwc_q_lane_needed_dark(const struct hwc_q_lanes *l, const json_t *m, size_t i);
/* The netdev of an adapter's port (by the port's "netdev"; NULL when none is known), the
 * adapter's ports[] and function_map[] ({bdf, netdevs, rdma_devices...} per function) (NULL
 * when not arrays) and its access registers {temp_mdegc, power_status...} (NULL when not read). */
const json_t *hwc_q_port_netdev(const json_t *facts, const json_t *port);
/* The reverse: the adapters[].ports[] entry whose netdev is name, and its adapter in *adapter;
 * NULL when no port names it. */
const json_t *hwc_q_netdev_port(const json_t *facts, const char *name, const json_t **adapter);
/* The fastest Ethernet speed of an mstlink speed list (phy.supported_cable_speed,
 * phy.enabled_link_speed: "0x000002f2 (100G_4X,50G_2X,40G,25G,10G,1G)" -> 100), Gb/s; 0 when it
 * names none (InfiniBand names NDR, HDR ...; N/A; NULL). */
double hwc_q_speed_list_gbps(const char *list);
const json_t *hwc_q_ports(const json_t *adapter);
const json_t *hwc_q_function_map(const json_t *adapter);
const json_t *hwc_q_registers(const json_t *adapter);

/* ------------------------------------------------------------ a card's firmware configuration */

/* fw_config NAME of an adapter (mstconfig names: {default, current, next_boot, *_code, ...});
 * NULL when the firmware does not report it or it is unknown. */
const json_t *hwc_q_fw_param(const json_t *adapter, const char *name);
/* Its value in column col ("current", "next_boot", "default", "current_code"...); NULL when
 * unknown. */
const json_t *hwc_q_fw_value(const json_t *adapter, const char *name, const char *col);
/* adapter.fw_config {NAME: {...}, unavailable} and adapter.fw_reset (mstfwreset query {levels,
 * sync}); NULL when not objects. */
const json_t *hwc_q_fw_config(const json_t *adapter);
const json_t *hwc_q_fw_reset(const json_t *adapter);
/* A column of a parameter's object (hwc_q_fw_param): "current", "default", "next_boot"...;
 * NULL when unknown. */
const json_t *hwc_q_fw_col(const json_t *param, const char *col);
/* The value that is in force: current, else next_boot (a firmware that prints one column). */
const json_t *hwc_q_fw_effective(const json_t *param);

/* The maximum of an IBA PortCounter the kernel shows under counters/ (its width: symbol_error 16
 * bits, link_downed 8, local_link_integrity_errors 4...), where it stops; 0 for a counter of no
 * such width (hw_counters, any other name). */
uint64_t hwc_q_ib_counter_max(const char *name);

/* What the kernel log read covers (host.kernel.log_start_s), for a text that would say "since
 * boot": "since boot" where it begins with the boot; "since 1234 s after boot (where the kernel
 * log begins: ...)" where its start is gone (the ring wrapped or was cleared); "in the kernel
 * log read (whether it reaches back to boot is unknown)" otherwise (the fact's status says
 * why). */
const char *hwc_q_klog_window(const json_t *facts, struct hwc_arena *a);

/* ------------------------------------------------------------ walking path expressions */

/* Walks a path expression ("netdevs[].mtu") calling cb for each match; the subject is the
 * natural key of the innermost array element ("host" when none). Missing values are passed
 * as val NULL with why. */
typedef void (*hwc_q_walk_cb)(void *ud, const char *path, const char *subject, const json_t *val,
			      const char *why);
void hwc_q_walk(const json_t *facts, const char *expr, struct hwc_arena *a, hwc_q_walk_cb cb,
		void *ud);
/* Element key: bdf, name, rdma_device, chip/label... */
const char *hwc_q_elem_key(const json_t *o, struct hwc_arena *a);

#endif
