/* SPDX-License-Identifier: MIT */
/* ConnectX adapters: identity, ports, firmware and its configuration (mstflint). */
#ifndef HWC_MLX_H
#define HWC_MLX_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/env.h"
#include "core/facts.h"

/* ---- identity table (mlx/ids.c) -------------------------------------------------------------- */

/* flags of an identity row */
enum {
	HWC_MLX_ID_BY_REVISION = 1,    /* ConnectX or ConnectX-2: the PCI revision decides (hwc_mlx_ident_name) */
	HWC_MLX_ID_NO_MSTFLINT = 2,    /* mstflint >= 4.21 knows no such device (ConnectX, ConnectX-2) */
	HWC_MLX_ID_FLASH_RECOVERY = 4, /* the card's flash recovery ("livefish") id: no firmware runs */
	HWC_MLX_ID_GEN4 = 8,           /* mstflint's "4th generation" (ConnectX-3, ConnectX-3 Pro): some of its
					* tools refuse it (mlx/collect.c tool_refusals) */
};

struct hwc_mlx_ident {
	uint16_t device_id;
	const char *product;    /* "ConnectX-6 Dx", "ConnectX-6 Dx VF" */
	const char *generation; /* "ConnectX-6", "BlueField-2" */
	const char *driver;     /* the kernel driver whose PCI id table holds the id: "mlx4_core",
				 * "mlx5_core"; NULL: neither */
	bool vf;
	double pcie_gts;  /* what the product's PCIe interface can do; 0 = not a data path function */
	int pcie_width;
	double port_gbps; /* highest port rate of the product (one port) */
	unsigned flags;   /* HWC_MLX_ID_* */
};

/* NULL for an id the table does not know (the function is still reported, by vendor). */
const struct hwc_mlx_ident *hwc_mlx_ident_find(uint16_t device_id);
const struct hwc_mlx_ident *hwc_mlx_ident_table(size_t *n);
/* The best InfiniBand lane rate (Gb/s) every InfiniBand-capable board of the id's product line
 * supports (mlx/ids.c cites the source of each); 0 where hwcheck's table has no such figure. */
double hwc_mlx_ident_ib_lane_floor(uint16_t device_id);
/* The product and generation of an id at a PCI revision (< 0: not read). Ids ConnectX and
 * ConnectX-2 share are named by the revision: 0xa0 ConnectX, 0xb0 ConnectX-2, else both names
 * ("ConnectX or ConnectX-2"); every other id by the table alone. */
void hwc_mlx_ident_name(const struct hwc_mlx_ident *id, int64_t revision, struct hwc_arena *a,
			const char **product, const char **generation);

/* ---- parsers (mlx/parse.c): pure functions over the bytes a tool printed --------------------- */

/* One column of an mstconfig row: "per_mkey(0)" -> text "per_mkey", num 0, has_code;
 * "8" -> text NULL, num 8; "Array[0..7]" -> text, no code; "N/A" -> status unsupported. */
struct hwc_mlx_cfgval {
	struct hwc_fmeta m;
	const char *text;
	int64_t num;
	bool has_code;
};

struct hwc_mlx_cfgparam {
	const char *name;
	struct hwc_mlx_cfgval dflt, current, next_boot;
	struct hwc_fbool pending; /* next_boot differs from current */
	bool read_only;           /* "RO" flag of mstflint >= 4.25 */
};

struct hwc_mlx_cfg {
	struct hwc_fmeta m; /* ok when a parameter table was found; else why not */
	struct hwc_fstr device_type, board_name, description;
	bool has_default_current; /* -e columns present (mstflint printed Default/Current) */
	bool complete;            /* the table ended cleanly: no cut row, no foreign line inside */
	unsigned bad_lines;
	const char *first_bad_line;
	HWC_VEC(struct hwc_mlx_cfgparam) params;
};

/* `mstconfig -d BDF [-e] q` output. Returns 0 when a parameter table was parsed, else -EINVAL /
 * -ENODEV with out->m saying why ("-E- ..." messages become statuses with the message). */
int hwc_mlx_parse_mstconfig(const char *buf, size_t len, struct hwc_arena *a,
			    struct hwc_mlx_cfg *out);
const struct hwc_mlx_cfgparam *hwc_mlx_cfg_find(const struct hwc_mlx_cfg *c, const char *name);

/* The parameters hwcheck names (rules read them): always present in fw_config once mstconfig
 * answered, with a status when mstconfig did not print them. */
const char *const *hwc_mlx_cfg_named(size_t *n);

/* `mstflint -d BDF q` output. */
struct hwc_mlx_flint {
	struct hwc_fmeta m;
	struct hwc_fstr image_type, fw_version, fw_version_running, psid, release_date;
};
int hwc_mlx_parse_flint_query(const char *buf, size_t len, struct hwc_arena *a,
			      struct hwc_mlx_flint *out);

/* `mstfwreset -d BDF query` output: the reset levels, types and syncs the card and host support
 * ("N: description   -Supported     (default)" rows under "Reset-levels:", "Reset-types ...:",
 * "Reset-sync ...:" headers; mstflint small_utils/mlxfwresetlib cmd_reg_mfrl.py query_text). */
struct hwc_mlx_fwreset_opt {
	int64_t num;
	const char *description;
	bool supported, is_default;
};
struct hwc_mlx_fwreset_list {
	struct hwc_mlx_fwreset_opt *items;
	size_t n, cap;
};
struct hwc_mlx_fwreset {
	struct hwc_fmeta m;
	struct hwc_mlx_fwreset_list levels, types, sync;
};
int hwc_mlx_parse_fwreset_query(const char *buf, size_t len, struct hwc_arena *a,
				struct hwc_mlx_fwreset *out);

/* A parameter whose current or next-boot value differs from its default: what a reset of the
 * configuration to defaults, or an image that resets it, would silently undo. False when the
 * default is unknown. */
bool hwc_mlx_cfg_at_risk(const struct hwc_mlx_cfgparam *p);
/* What hwcheck judges with a parameter (a rule or a domain: "MLX_WR_ORDERING_PER_MKEY", "SR-IOV"),
 * NULL when nothing does. */
const char *hwc_mlx_cfg_depends(const char *name);

/* `mstreg ... --get` output: "name | 0x%08x" rows (and --detailed rows: first 0x token). */
struct hwc_mlx_regfield {
	const char *name;
	uint64_t v;
};
struct hwc_mlx_reg {
	struct hwc_fmeta m;
	HWC_VEC(struct hwc_mlx_regfield) fields;
};
int hwc_mlx_parse_mstreg(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_reg *out);
/* 0 and *v, or -ENOENT. */
int hwc_mlx_reg_get(const struct hwc_mlx_reg *r, const char *name, uint64_t *v);

/* MTMP temperature field (16-bit two's complement, 0.125 degC) -> millidegrees C. */
int64_t hwc_mlx_mtmp_to_mdegc(uint64_t raw);

/* `mstmget_temp -d BDF`: one integer in degC. Fills *out with millidegrees or a status. */
int hwc_mlx_parse_mget_temp(const char *buf, size_t len, struct hwc_arena *a, struct hwc_fi64 *out);

/* "mstconfig, mstflint 4.21.0, Git SHA Hash: N/A" -> "4.21.0". */
int hwc_mlx_parse_tool_version(const char *buf, size_t len, struct hwc_arena *a,
			       struct hwc_fstr *out);

/* sysfs infiniband port rate "200 Gb/sec (4X HDR)" / "2.5 Gb/sec (1X SDR)" / "10 Gb/sec (4X)". */
int hwc_mlx_parse_rate(const char *s, double *gbps, const char **width, const char **speed,
		       struct hwc_arena *a);

/* sysfs "4: ACTIVE" -> "ACTIVE" (arena copy). */
const char *hwc_mlx_state_name(const char *s, struct hwc_arena *a);

/* /sys/kernel/security/lockdown "none [integrity] confidentiality" -> "integrity". */
int hwc_mlx_parse_lockdown(const char *s, struct hwc_arena *a, const char **mode);

/* ethtool -i "firmware-version: 16.27.2008 (MT_0000000013)" -> fw and PSID. */
int hwc_mlx_parse_ethtool_fw(const char *buf, size_t len, struct hwc_arena *a, struct hwc_fstr *fw,
			     struct hwc_fstr *psid);

/* ---- the section ---------------------------------------------------------------------------- */

struct hwc_mlx_strv {
	const char **items;
	size_t n, cap;
};

struct hwc_mlx_function {
	const char *bdf;
	struct hwc_fstr device_id, class_code, driver, physfn;
	bool is_vf;
	struct hwc_mlx_strv netdevs, rdma_devices, hwmon;
	int64_t revision; /* the PCI revision, read only where it names the product; -1 not read */
};

/* The error counters of an RDMA port (mlx/port_counters.c): IBA PortCounters under counters/
 * and a few transport-retry counters under hw_counters/, in JSON order. */
#define HWC_MLX_NPORT_COUNTERS 16
extern const char *const hwc_mlx_port_counter_names[HWC_MLX_NPORT_COUNTERS];

/* What mstlink (mstflint's mlxlink) says of a port's physical layer: `mstlink -d BDF -m -c`
 * (mlx/mlxlink.c). Every value has its status; a failed run gives each field its reason. */
struct hwc_mlx_phy {
	struct hwc_fstr source;          /* the argv that answered */
	struct hwc_fstr state, phys_state, speed, width;
	struct hwc_fstr fec;             /* "Standard RS-FEC - RS(528,514)", "No FEC" ... */
	/* Supported Info, verbatim: "0x00003ff2 (200G_2X,...,1G)": the speeds the port is enabled
	 * for (PTYS admin), and those the plugged cable supports (PDDR cable_ext_eth_proto_cap);
	 * "(Ext.)" after the key is dropped */
	struct hwc_fstr enabled_link_speed, supported_cable_speed;
	struct hwc_fstr recommendation;  /* the tool's own verdict ("No issue was observed") */
	struct hwc_fi64 status_opcode;   /* 0: no issue */
	struct hwc_ff64 time_since_clear_min;
	struct hwc_fu64 effective_errors; /* errors left after FEC */
	struct hwc_ff64 effective_ber, raw_ber; /* after / before FEC */
	struct hwc_fu64 link_down_counter, link_error_recovery_counter;
	/* HDR and faster with PLR (physical layer retransmission): what is left after FEC and PLR */
	struct hwc_fu64 symbol_errors;
	struct hwc_ff64 symbol_ber;
	struct hwc_fmeta lanes_m;
	HWC_VEC(uint64_t) raw_errors_per_lane;
	/* not a fact: the first line of the "Errors" section mstlink prints last when a section
	 * failed (and it exits 1), NULL when none; the parser reads no value after that title */
	const char *errors;
};

/* A module diagnostic as mstlink prints it: "54 [-5..75]", "8.380,8.380,8.380,8.380 [2..15]":
 * the value per lane and the module's own threshold range in brackets. */
#define HWC_MLX_MAX_LANES 8
struct hwc_mlx_reading {
	struct hwc_fmeta m;
	double v[HWC_MLX_MAX_LANES];
	size_t n;
	bool has_range;
	double lo, hi;
};

/* The transceiver or cable of a port (`mstlink -m`, Module Info). */
struct hwc_mlx_module {
	struct hwc_fstr identifier, compliance, cable_type, vendor, part_number, serial_number;
	struct hwc_fstr fw_version, ddm;
	struct hwc_ff64 length_m;
	struct hwc_mlx_reading temperature_c, voltage_mv, bias_ma, rx_power_dbm, tx_power_dbm;
	/* "Rx LOS [per lane]": the module's latched Rx loss-of-signal flags, 0 or 1 per lane (no
	 * range): SFF-8636 byte 3 and CMIS page 11h byte 147 latch them until read. */
	struct hwc_mlx_reading rx_los;
};

/* A number that is the whole of v[0..n) ("15E-255", "25074.8", "-8.508"): mstlink's values. */
bool hwc_mlx_text_double(const char *v, size_t n, double *d);

/* `mstlink -d BDF -m -c` text. Returns 0 when an "Operational Info" block or a known key was found;
 * -EINVAL (every field invalid) otherwise, or -ENODEV with the tool's "-E-" message as the
 * status detail. Fields the text lacks are absent; "N/A" is unsupported. */
int hwc_mlx_parse_mlxlink(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_phy *out);
/* The Module Info block of the same text (mlx/mlxmodule.c): fields it lacks are absent. 0, or
 * -ENOENT when the text has no Module Info at all (every field then says so). */
int hwc_mlx_parse_module(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_module *out);
void hwc_mlx_module_fail(struct hwc_mlx_module *mod, const struct hwc_fmeta *m);

/* The far end of an InfiniBand port (mlx/ibpeer.c): the node one hop away, reached by
 * direct-routed SMPs from the port (infiniband-diags `smpquery -C CA -P PORT -D ... 0,PORT`), and
 * its PortCounters (`perfquery` with its LID and port). A GROUP: source's status is the peer's. */
#define HWC_MLX_NPEER_COUNTERS 8
extern const char *const hwc_mlx_peer_counter_names[HWC_MLX_NPEER_COUNTERS];
/* A port's PortInfo link fields as smpquery prints them (libibmad's dump): the active lane rate
 * and width, what the port enables, and its MTUs. A GROUP: m is the query's status. */
struct hwc_mlx_f64list {
	struct hwc_fmeta m;
	double *items;
	size_t n, cap;
};
struct hwc_mlx_i64list {
	struct hwc_fmeta m;
	int64_t *items;
	size_t n, cap;
};
struct hwc_mlx_portinfo {
	struct hwc_fmeta m;
	struct hwc_fstr source;                /* the smpquery argv */
	struct hwc_ff64 speed_active_gbps;     /* lane rate: LinkSpeedExtActive2/ExtActive, else LinkSpeedActive */
	struct hwc_fi64 width_active;          /* lanes: LinkWidthActive */
	struct hwc_mlx_f64list speeds_enabled_gbps; /* LinkSpeedEnabled + Ext + Ext2, ascending */
	struct hwc_mlx_i64list widths_enabled;      /* LinkWidthEnabled, lanes, ascending */
	struct hwc_fi64 neighbor_mtu;          /* NeighborMTU, bytes: the link's MTU as the SM set it */
	struct hwc_fi64 mtu_cap;               /* MtuCap, bytes: the largest MTU this port supports */
};
/* smpquery portinfo's link fields into out (its m ok when LinkSpeedActive and LinkWidthActive
 * were read). 0, or -EINVAL (not a PortInfo dump: every field says why). Pure. */
int hwc_mlx_parse_portinfo_link(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_portinfo *out);
extern const struct hwc_jtable hwc_mlx_portinfo_table, hwc_mlx_peer_portinfo_table;

struct hwc_mlx_peer {
	struct hwc_fstr source;           /* the nodedesc argv that answered */
	struct hwc_fstr node_description; /* "leaf-07 MQM9700" (NodeDescription) */
	struct hwc_fstr node_guid, node_type; /* NodeInfo Guid, NodeType (Switch, Channel Adapter) */
	struct hwc_fi64 port;             /* NodeInfo LocalPort: the peer's port the SMP came in by */
	struct hwc_fi64 lid;              /* the peer's LID (its port 0 on a switch) */
	struct hwc_fstr counters_source;  /* the perfquery argv */
	struct hwc_fu64 counters[HWC_MLX_NPEER_COUNTERS]; /* named as the local port counters */
	struct hwc_mlx_portinfo portinfo; /* the peer port's PortInfo link fields */
};
/* "Key:.....value" lines of libibmad's dumps (smpquery, perfquery): the value of key, arena
 * copy; NULL when the text has no such line. Pure. */
const char *hwc_mlx_ibdiag_value(const char *buf, size_t len, const char *key, struct hwc_arena *a);
/* smpquery nodedesc: "Node Description:....name" (dots pad the line to 32 columns). 0 or -EINVAL. */
int hwc_mlx_parse_nodedesc(const char *buf, size_t len, struct hwc_arena *a, struct hwc_fstr *out);
/* smpquery nodeinfo: node_type, node_guid, port (LocalPort). 0 or -EINVAL (no NodeType). */
int hwc_mlx_parse_nodeinfo(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_peer *p);
/* smpquery portinfo: the Lid line. 0 or -EINVAL. */
int hwc_mlx_parse_portinfo_lid(const char *buf, size_t len, struct hwc_arena *a, struct hwc_fi64 *lid);
/* Why an infiniband-diags tool failed, from its NUL-terminated stderr e: its last "iberror: "
 * message and its first "ibwarn: [pid] " cause ("failed: operation NodeInfo: node info query
 * failed (mad_rpc: _do_madrpc failed; dport (Lid 4))"), else its first line. Arena string. */
const char *hwc_mlx_ibdiag_words(struct hwc_arena *a, const char *e);
/* perfquery [-x]: the error counters into p->counters (absent when not printed). 0 or -EINVAL
 * (not a counters dump: no PortSelect). */
int hwc_mlx_parse_perfquery(const char *buf, size_t len, struct hwc_arena *a, struct hwc_mlx_peer *p);
extern const struct hwc_jtable hwc_mlx_peer_table;

/* The counters' deltas over a --watch window (hwinfo/watch.c): a GROUP, unset (omitted) without
 * --watch. */
struct hwc_mlx_counters_window {
	struct hwc_fmeta m;
	struct hwc_fu64 v[HWC_MLX_NPORT_COUNTERS];
};

struct hwc_mlx_port {
	const char *rdma_device;
	int64_t port;
	struct hwc_fu64 counters[HWC_MLX_NPORT_COUNTERS];
	struct hwc_mlx_counters_window counters_window;
	struct hwc_mlx_phy phy;
	struct hwc_mlx_module module;
	struct hwc_mlx_peer peer; /* the far end (InfiniBand) */
	struct hwc_mlx_portinfo portinfo; /* this port's PortInfo link fields (smpquery -D 0) */
	struct hwc_fstr netdev, state, phys_state, link_layer, active_speed, active_width;
	struct hwc_ff64 rate_gbps;
	struct hwc_fi64 active_mtu, max_mtu; /* verbs only: not collected from sysfs */
	struct hwc_fi64 netdev_mtu, netdev_speed_mbps;
};

/* An mlx5 line of the kernel log (mlx/kernel_events.c): what happened to a function, when. */
struct hwc_mlx_kevent {
	double time_s;      /* seconds since boot ("[  131.207065]"); < 0 when the line has none */
	const char *bdf;
	const char *kind;   /* insufficient_power, module_error, module_unplugged, high_temperature,
			     * health, fatal, command_error */
	const char *message; /* the text after "mlx5_core BDF: " (cut at 240 bytes) */
};
struct hwc_mlx_kevents {
	struct hwc_mlx_kevent *items;
	size_t n, cap;
};

/* Every mlx5 event of the log; at most `max` per function (a flood is cut, not grown). */
int hwc_mlx_parse_kernel_events(const char *buf, size_t len, size_t max, struct hwc_arena *a,
				struct hwc_mlx_kevents *out);

/* ---- adapter parts: a collector with its own file and field table, per ConnectX card -------
 * One line each in HWC_MLX_ADAPTER_PARTS: X(member, type, "description"), type a struct whose
 * first member is its struct hwc_fmeta (the part's status). That line alone makes `member` a
 * member of struct hwc_mlx_adapter, declares the part's collector
 * hwc_mlx_collect_<member>(env, facts, adapter, &member) (it reads through the root or the
 * runner, may read what the adapter already holds: functions, ports, netdevs, fw_config,
 * registers, and gives every fact a value or a status) and its field table
 * hwc_mlx_<member>_table (both in mlx/<part>.c), has hwc_mlx_collect call it for every adapter
 * once the mstflint tools have run, and writes it as facts.mlx.adapters[].<member> after the
 * built-in keys. The part's struct sits above the list. Adding a fact: docs/DESIGN.md. */
#define HWC_MLX_ADAPTER_PARTS(X)

struct hwc_mlx_adapter;
struct hwc_jtable;
#define HWC_MLX_PART_DECL(m, T, doc_)                                                              \
	void hwc_mlx_collect_##m(struct hwc_env *e, struct hwc_facts *f,                           \
				 const struct hwc_mlx_adapter *ad, T *out);                        \
	extern const struct hwc_jtable hwc_mlx_##m##_table;
HWC_MLX_ADAPTER_PARTS(HWC_MLX_PART_DECL)
#define HWC_MLX_PART_MEMBER(m, T, doc_) T m;

struct hwc_mlx_adapter {
	const char *bdf; /* function 0 (lowest PF) */
	struct hwc_fmeta kernel_events_m; /* ok, or why the kernel log could not be read */
	struct hwc_mlx_kevents kernel_events;
	struct hwc_mlx_strv functions;
	HWC_VEC(struct hwc_mlx_function) function_map;
	struct hwc_fstr device_id, product, generation;
	struct hwc_fstr kernel_driver; /* mlx4_core / mlx5_core, from the identity table */
	struct hwc_fbool flash_recovery; /* enumerates with its flash recovery id: no firmware runs */
	struct hwc_ff64 pcie_max_speed_gts;
	struct hwc_fi64 pcie_max_width;
	struct hwc_ff64 port_rate_max_gbps;
	struct hwc_ff64 ib_lane_floor_gbps; /* hwc_mlx_ident_ib_lane_floor */
	struct hwc_fstr fw_version, fw_version_source, fw_version_stored, psid, part_number;
	struct hwc_fstr serial_number;
	struct hwc_fbool fw_pending_reset;
	struct hwc_mlx_strv netdevs, rdma_devices;
	HWC_VEC(struct hwc_mlx_port) ports;
	struct hwc_mlx_cfg cfg; /* cfg.m is the status of fw_config as a whole */
	struct hwc_mlx_fwreset fw_reset; /* mstfwreset query */
	struct {
		struct hwc_fi64 temp_mdegc;
		struct hwc_fstr temp_source; /* "mstreg" (MTMP) or "mstmget_temp" */
		struct hwc_fstr power_status; /* MPEIN pwr_status: sufficient / insufficient / unknown */
		struct hwc_fi64 pci_power_w;
	} reg;
	/* the card's mstflint tools that answered busy (lost a device semaphore to another tool of
	 * the card running at once) and were re-run alone, with the outcome; JSON only when any */
	struct hwc_mlx_strv tools_rerun;
	HWC_MLX_ADAPTER_PARTS(HWC_MLX_PART_MEMBER)
};

struct hwc_mlx_facts {
	struct hwc_fmeta m; /* status of the section as a whole */
	HWC_VEC(struct hwc_mlx_adapter) adapters;
	/* --fw-image FILE: `mstflint -i FILE query`; fw_image_file NULL when none was given */
	const char *fw_image_file;
	struct hwc_mlx_flint fw_image;
	struct {
		struct hwc_fstr mstflint_version;
		struct hwc_fmeta access; /* may mstflint tools run: ok / needs_root / blocked / absent */
	} tools;
	bool tools_serial; /* --serial-tools: one card's tools one after the other (not in JSON) */
	size_t adapters_seen; /* cards found before -d kept those it names (not in JSON) */
};

/* The function an RDMA device belongs to; NULL when none. */
const struct hwc_mlx_function *hwc_mlx_rdma_owner(const struct hwc_mlx_adapter *ad,
						  const char *dev);

/* ---- the wire side (issue 14) --------------------------------------------------------------- */

/* Why reading a function's IB counters would do harm, or NULL. On restricted PFs (DGX/HGX/GB200
 * "internal" ConnectX, Fabric-Manager-limited PFs) each counters/ read makes mlx5 issue an
 * ACCESS_REG (0x805) the firmware refuses, and the kernel logs one mlx5_cmd_out_err line per
 * read. Evidence: the function's VPD product name says "internal", or the kernel log already holds
 * such failures for the function. Pure (dmesg may be NULL). */
const char *hwc_mlx_counters_harmful(const char *bdf, const char *vpd_product, const char *dmesg,
				     size_t dmesg_len, struct hwc_arena *a);

/* One port's counters into out (every one blocked with harm when harm is not NULL); the reader
 * of the main collection and of each --watch sample. */
void hwc_mlx_read_port_counters(struct hwc_env *e, struct hwc_arena *a, const char *rdma_device,
				int64_t port, const char *harm, struct hwc_fu64 out[HWC_MLX_NPORT_COUNTERS]);
/* Reads every port's counters of the adapters (after fill_ports). */
void hwc_mlx_collect_port_counters(struct hwc_env *e, struct hwc_facts *f,
				   struct hwc_mlx_adapter *ad);
/* The adapter's events from the host's kernel log (after the host section). */
void hwc_mlx_collect_kernel_events(struct hwc_facts *f, struct hwc_mlx_adapter *ad);
/* Every port of the adapters, in order, with its adapter (*n of them; NULL when none or without
 * memory): what the per-port collectors that ask all ports at once walk. */
struct hwc_mlx_port_ref {
	struct hwc_mlx_adapter *ad;
	struct hwc_mlx_port *p;
};
struct hwc_mlx_port_ref *hwc_mlx_all_ports(struct hwc_arena *a, struct hwc_mlx_facts *mf, size_t *n);
/* mstlink for every port of the adapters, in parallel (after the tools gate). */
void hwc_mlx_collect_phy(struct hwc_env *e, struct hwc_facts *f, struct hwc_mlx_facts *mf);
/* The argv of mstlink for port p (`mstlink -d BDF -m -c`), or NULL with *why (tools gate, VF,
 * second port of a multi-port function). */
const char **hwc_mlx_phy_argv(struct hwc_arena *a, const struct hwc_mlx_facts *mf,
			      const struct hwc_mlx_adapter *ad, const struct hwc_mlx_port *p,
			      struct hwc_fmeta *why);
struct hwc_cmd;
struct hwc_cmd_result;
/* Runs n mstflint tools (ads[i]: the card of cmds[i]): all at once, or with mf->tools_serial
 * in rounds of at most one per card; then re-runs alone, one by one, each that answered busy
 * (hwc_mlx_tool_busy), noting it in its card's tools_rerun. */
void hwc_mlx_run_tools(struct hwc_env *e, struct hwc_arena *a, const struct hwc_mlx_facts *mf,
		       size_t n, const struct hwc_cmd *cmds, struct hwc_cmd_result *res,
		       struct hwc_mlx_adapter *const *ads);
/* Whether a tool failed because it lost a race for one of the device's semaphores (mstflint's
 * own error strings: "Semaphore locked", "ICMD semaphore", "Flash semaphore", EBUSY...). */
bool hwc_mlx_tool_busy(const struct hwc_cmd_result *r);
/* The far end of every active InfiniBand port (after the counters; infiniband-diags): its first
 * round started ahead, as soon as the ports and their counters are known (start), so that it runs
 * while the cards' mstflint tools run; then every round (collect), all ports at once per round,
 * all rounds within one --cmd-timeout. */
void hwc_mlx_start_peers(struct hwc_env *e, struct hwc_facts *f, struct hwc_mlx_facts *mf);
/* v (n words) with infiniband-diags' per-MAD timeout "-t 200" after its first five words
 * (tool -C CA -P PORT), or after all of them when fewer; NULL-terminated, arena; NULL on ENOMEM. */
const char *const *hwc_mlx_mad_argv(struct hwc_arena *a, const char *const *v, size_t n);
void hwc_mlx_collect_peers(struct hwc_env *e, struct hwc_facts *f, struct hwc_mlx_facts *mf);
/* The field tables of a port's phy and module objects (core/json.h). */
struct hwc_jtable;
extern const struct hwc_jtable hwc_mlx_phy_table, hwc_mlx_module_table;
extern const struct hwc_jtable hwc_mlx_port_counters_table, hwc_mlx_counters_window_table,
	hwc_mlx_port_table,
	hwc_mlx_function_table, hwc_mlx_adapter_table, hwc_mlx_table;

/* Fills f->section from the root. Never prints; problems go to hwc_facts_error(). */
int hwc_mlx_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_mlx_to_json(const struct hwc_facts *f);
int hwc_mlx_from_json(const json_t *j, struct hwc_facts *f);

#endif
