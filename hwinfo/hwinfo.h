/* SPDX-License-Identifier: MIT */
/* The host around the card: CPU, NUMA, x2APIC, IOMMU, power, DMI, kernel; and netdev tuning. */
#ifndef HWC_HWINFO_H
#define HWC_HWINFO_H

#include <jansson.h>

#include "core/env.h"
#include "core/facts.h"

/* ---- host facts (issue 5): every value says how it was known ---------------------------- */

struct hwc_host_kernel {
	struct hwc_fstr release;  /* proc/sys/kernel/osrelease */
	struct hwc_fstr cmdline;  /* proc/cmdline */
	struct hwc_fstr lockdown; /* the bracketed word of sys/kernel/security/lockdown */
	struct hwc_fi64 uptime_s; /* proc/uptime, whole seconds: the window of since-boot counters */
	struct hwc_ff64 log_start_s; /* the kernel log's first record, seconds after boot (0: the boot's) */
};

struct hwc_host_cpu {
	struct hwc_fstr vendor;      /* vendor_id: AuthenticAMD, GenuineIntel */
	struct hwc_fi64 family;      /* CPUID family ("cpu family") */
	struct hwc_fi64 model;       /* CPUID model number ("model") */
	struct hwc_fi64 stepping;
	struct hwc_fstr model_name;  /* "model name" */
	struct hwc_fi64 sockets, cores, threads;
	struct hwc_fbool smt;        /* threads > cores */
	struct hwc_fstr topology_source; /* "sysfs" (cpuN/topology) or "cpuinfo" */
	struct hwc_fbool flags_x2apic;
	struct hwc_fbool hypervisor; /* "hypervisor" flag: a virtual machine */
	struct hwc_fi64 max_apicid;  /* highest apicid / initial apicid in proc/cpuinfo */
};

struct hwc_i64_list {
	int64_t *items;
	size_t n, cap;
};

struct hwc_host_numa_node {
	int64_t id;
	struct hwc_fstr cpulist;    /* node<N>/cpulist as the kernel writes it */
	struct hwc_fi64 cpus;       /* CPUs in cpulist */
	struct hwc_fmeta distances_m;
	struct hwc_i64_list distances; /* node<N>/distance: the SLIT row, 10 = local */
};

struct hwc_host_numa {
	struct hwc_fmeta nodes_m;
	HWC_VEC(struct hwc_host_numa_node) nodes;
	struct hwc_fi64 nodes_with_cpus;
	struct hwc_fi64 nodes_per_socket; /* nodes with CPUs / sockets, when it divides */
	struct hwc_fi64 nps;              /* AMD only: the BIOS NPS setting inferred from it */
};

struct hwc_host_x2apic {
	struct hwc_fbool supported;           /* the CPU can run x2APIC mode */
	struct hwc_fstr supported_source;     /* cpuinfo, dmesg, madt, cpu_model */
	struct hwc_fbool enabled;             /* the kernel runs in x2APIC mode */
	struct hwc_fstr source;               /* what decided enabled: dmesg, apicid, cpuinfo */
	struct hwc_fstr evidence;             /* the log line or fact that decided it */
	struct hwc_fstr routing;              /* "cluster x2apic", "physical x2apic", "physical flat" */
	struct hwc_fbool interrupt_remapping; /* IRQ remapping active */
	struct hwc_fstr interrupt_remapping_source; /* dmesg, interrupts */
	struct hwc_fi64 madt_local_apic;      /* MADT type 0 entries */
	struct hwc_fi64 madt_local_x2apic;    /* MADT type 9 entries */
	struct hwc_fbool dmar_intr_remap;     /* DMAR flags bit 0 */
	struct hwc_fbool dmar_x2apic_opt_out; /* DMAR flags bit 1 */
};

struct hwc_str_list {
	const char **items;
	size_t n, cap;
};

struct hwc_host_iommu_group {
	int64_t id;
	struct hwc_fstr type; /* identity, DMA, DMA-FQ, unmanaged, blocked */
};

struct hwc_host_iommu {
	struct hwc_fbool present;            /* sys/class/iommu has units */
	struct hwc_fmeta units_m;
	struct hwc_str_list units;           /* dmar0, ivhd0, ... */
	struct hwc_fstr default_domain;      /* identity, DMA, DMA-FQ */
	struct hwc_fstr default_domain_source; /* dmesg, groups, cmdline */
	struct hwc_fbool passthrough;        /* default_domain == identity */
	struct hwc_fmeta cmdline_options_m;
	struct hwc_str_list cmdline_options; /* iommu=pt, intel_iommu=on, ... */
	struct hwc_fmeta groups_m;
	HWC_VEC(struct hwc_host_iommu_group) groups;
};

struct hwc_host_cstate {
	struct hwc_fstr name;
	struct hwc_fi64 latency_us; /* exit latency */
	struct hwc_fbool disabled;
};

struct hwc_host_power {
	struct hwc_fstr cpufreq_driver;         /* policy0/scaling_driver */
	struct hwc_fstr governor;               /* policy0/scaling_governor */
	struct hwc_fstr energy_perf_preference; /* policy0/energy_performance_preference */
	struct hwc_fstr pstate_status;          /* intel_pstate/status or amd_pstate/status */
	struct hwc_fbool boost;                 /* cpufreq/boost, or !intel_pstate/no_turbo */
	struct hwc_fstr cpuidle_driver;
	struct hwc_fstr cpuidle_governor;
	struct hwc_fmeta cstates_m;
	HWC_VEC(struct hwc_host_cstate) cstates; /* cpu0/cpuidle/state* */
	struct hwc_fstr aspm_policy;            /* the bracketed pcie_aspm policy */
};

struct hwc_host_dmi {
	struct hwc_fstr sys_vendor, product_name, board_vendor, board_name;
	struct hwc_fstr bios_vendor, bios_version, bios_date;
};

/* ---- host parts: a collector with its own file and field table ---------------------------
 * One line each in HWC_HOST_PARTS: X(member, type, "description"). That line alone makes
 * `member` a member of struct hwc_host_facts, declares the part's collector
 * hwc_host_collect_<member>(env, arena, &member) (it fills every fact, with a status when
 * unknown) and its field table hwc_host_<member>_table (both in hwinfo/<part>.c), has
 * hwc_host_collect call it and writes it as facts.host.<member> (after the built-in parts,
 * before hostname) with the description as its schema entry's. The part's struct sits above
 * the list. Adding a fact: docs/DESIGN.md. */

/* net: the kernel's socket buffer limits (proc/sys/net; hwinfo/host_net.c), bytes */
struct hwc_host_net {
	struct hwc_fi64 rmem_max_bytes, wmem_max_bytes; /* net.core.rmem_max, wmem_max */
	/* net.ipv4.tcp_rmem and tcp_wmem: "min default max" */
	struct hwc_fi64 tcp_rmem_min_bytes, tcp_rmem_default_bytes, tcp_rmem_max_bytes;
	struct hwc_fi64 tcp_wmem_min_bytes, tcp_wmem_default_bytes, tcp_wmem_max_bytes;
};

#define HWC_HOST_PARTS(X)                                                                          \
	X(net, struct hwc_host_net,                                                                \
	  "socket buffer limits of the kernel's network stack (proc/sys/net), in bytes: they bound "  \
	  "the window of one TCP stream")

#define HWC_HOST_PART_DECL(m, T, doc_)                                                             \
	void hwc_host_collect_##m(struct hwc_env *e, struct hwc_arena *a, T *out);                 \
	extern const struct hwc_jtable hwc_host_##m##_table;
HWC_HOST_PARTS(HWC_HOST_PART_DECL)
#define HWC_HOST_PART_MEMBER(m, T, doc_) T m;

struct hwc_host_facts {
	struct hwc_fstr hostname;
	const char *read_from; /* "live" (this machine) or "capture" (a --root): COLLECT_INCOMPLETE */
	struct hwc_host_cpu cpu;
	struct hwc_host_numa numa;
	struct hwc_host_x2apic x2apic;
	struct hwc_host_iommu iommu;
	struct hwc_host_power power;
	struct hwc_host_dmi dmi;
	struct hwc_host_kernel kernel;
	HWC_HOST_PARTS(HWC_HOST_PART_MEMBER)
	/* Not in JSON: the kernel log as dmesg printed it, for the collectors that read it after
	 * the host (mlx5 events, restricted functions). NULL with dmesg_m saying why. */
	const char *dmesg_text;
	size_t dmesg_len;
	struct hwc_fmeta dmesg_m;
};

/* ---- pure parsers (fuzzed; never read files) ---------------------------------------------- */

/* /proc/cpuinfo. Topology counts come from "physical id"/"core id" when present. */
struct hwc_cpuinfo {
	size_t processors;
	const char *vendor, *model_name; /* first block's, arena; NULL when absent */
	int64_t family, model, stepping;
	bool has_family, has_model, has_stepping;
	bool has_flags, flag_x2apic, flag_hypervisor;
	bool has_apicid;
	int64_t max_apicid;
	bool has_topology;       /* every processor had "physical id" and "core id" */
	size_t packages, cores;  /* distinct physical ids, distinct (physical id, core id) */
};
int hwc_host_parse_cpuinfo(const char *buf, size_t len, struct hwc_arena *a, struct hwc_cpuinfo *out);

/* The kernel log: what it says about x2APIC, interrupt remapping and the IOMMU domain type.
 * Lines may carry a "[    0.000000] " timestamp (or "<6>") prefix. A tri-state is -1 when the
 * log says nothing. The *_line strings are the deciding lines, arena copies. */
struct hwc_dmesg_host {
	int x2apic;              /* 1 on, 0 off, -1 not said */
	int x2apic_capable;      /* 1 the CPU can (said on or opted out), 0 "not supported by CPU", -1 */
	const char *capable_line;
	const char *x2apic_line;
	const char *routing;     /* last "Switched APIC routing to" target */
	const char *routing_line; /* that line */
	bool routing_known;      /* the target is a driver whose mode hwcheck knows (it decided x2apic) */
	int intr_remap;          /* 1 on, 0 off, -1 not said */
	const char *intr_remap_line;
	const char *iommu_default;   /* "Translated" / "Passthrough" */
	const char *iommu_tlb;       /* "lazy" / "strict" */
	/* Where the log begins: 0 when its first record is the boot's (the kernel's banner 'Linux
	 * version', or a record at 0 s), else that record's seconds after boot (the ring wrapped or
	 * was cleared); -1 when the first line carries no timestamp (first_line says which). */
	double log_start_s;
	const char *first_line;
};
int hwc_host_parse_dmesg(const char *buf, size_t len, struct hwc_arena *a, struct hwc_dmesg_host *out);

/* ACPI MADT ("APIC"): counts of Local APIC (type 0) and Local x2APIC (type 9) entries. Returns
 * -EINVAL for a bad header, -EBADMSG for a malformed entry (counts up to it are kept). */
struct hwc_acpi_madt {
	uint32_t length;
	unsigned lapic, lapic_enabled, x2apic, x2apic_enabled, ioapic, entries;
	uint32_t max_apic_id;
};
int hwc_host_parse_madt(const unsigned char *buf, size_t len, struct hwc_acpi_madt *out);

/* ACPI DMAR: host address width and flags (bit 0 INTR_REMAP, bit 1 X2APIC_OPT_OUT). */
struct hwc_acpi_dmar {
	unsigned haw, flags;
};
int hwc_host_parse_dmar(const unsigned char *buf, size_t len, struct hwc_acpi_dmar *out);

/* /proc/interrupts: chips named "IR-..." (remapped) and IO-APIC / PCI-MSI ones without it. */
struct hwc_irq_chips {
	unsigned remapped, plain;
};
int hwc_host_scan_interrupts(const char *buf, size_t len, struct hwc_irq_chips *out);

/* The IOMMU group type of a group id in collected host facts, NULL when unknown (for rules that
 * join it with a PCI device's iommu_group). */
const char *hwc_host_iommu_group_type(const struct hwc_host_facts *h, int64_t group);

/* Collectors of the parts (hwinfo/cpu.c, x2apic.c, iommu.c, power.c); host.c runs them. */
void hwc_host_collect_cpu(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h,
			  const struct hwc_cpuinfo *ci, const struct hwc_fmeta *ci_m);
void hwc_host_collect_x2apic(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h,
			     const struct hwc_cpuinfo *ci, const struct hwc_dmesg_host *dm,
			     const struct hwc_fmeta *dm_m);
void hwc_host_collect_iommu(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h,
			    const struct hwc_dmesg_host *dm);
void hwc_host_collect_power(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h);
/* proc/uptime in whole seconds (host.kernel.uptime_s; --watch reads it again with its last sample). */
void hwc_host_read_uptime(struct hwc_env *e, struct hwc_arena *a, struct hwc_fi64 *out);
/* "none [integrity] confidentiality": the bracketed word of a sysfs choice file. */
void hwc_host_read_bracketed(struct hwc_env *e, struct hwc_arena *a, const char *path,
			     struct hwc_fstr *out);

/* ---- netdev tuning of ConnectX ports (netdev.c, ethtool_parse.c, irq.c) ---------------------- */

struct hwc_netdev_rings {
	struct hwc_fi64 rx, rx_max, tx, tx_max;
};

struct hwc_netdev_channels {
	struct hwc_fi64 combined, combined_max, rx, rx_max, tx, tx_max;
};

struct hwc_netdev_features {
	struct hwc_fbool lro, gro, gro_hw, tso, gso, rx_checksum, tx_checksum;
};

struct hwc_netdev_pause {
	struct hwc_fbool autoneg, rx, tx;
};

/* The counters that reveal loss, in JSON order; hwc_netdev_counter_names[i] names v[i]. */
#define HWC_NETDEV_NCOUNTERS 27
extern const char *const hwc_netdev_counter_names[HWC_NETDEV_NCOUNTERS];
struct hwc_netdev_counters {
	struct hwc_fu64 v[HWC_NETDEV_NCOUNTERS];
	struct hwc_fi64 count; /* how many counters the driver reported in all */
};
/* Their deltas over a --watch window (hwinfo/watch.c): a GROUP, unset (omitted) without --watch. */
struct hwc_netdev_counters_window {
	struct hwc_fmeta m;
	struct hwc_fu64 v[HWC_NETDEV_NCOUNTERS];
};

struct hwc_netdev_drvinfo {
	struct hwc_fstr driver, version, fw_version, bus_info;
};

/* One MSI/MSI-X vector of the card. */
struct hwc_netdev_irq {
	int64_t irq;
	struct hwc_fstr name;   /* proc/interrupts: mlx5_comp3@pci:0000:3b:00.0 */
	struct hwc_fstr cpus;   /* effective_affinity_list (or smp_affinity_list) */
	struct hwc_fbool local; /* every CPU of cpus is in the card's local_cpulist */
};

struct hwc_netdev_irq_locality {
	struct hwc_fi64 numa_node;      /* -1: firmware gave none, locality unknown */
	struct hwc_fstr local_cpulist;
	struct hwc_fi64 vectors;        /* entries of msi_irqs/ */
	struct hwc_fi64 outside_local;  /* vectors with an effective CPU outside local_cpulist */
	struct hwc_fi64 affinity_unknown; /* vectors whose affinity could not be read */
	HWC_VEC(struct hwc_netdev_irq) irqs;
};

/* The wire side of the port (issue 14; hwinfo/port_link.c): flaps and FEC. */
struct hwc_netdev_fec {
	struct hwc_fstr configured;  /* "Auto RS", as ethtool --show-fec prints the list */
	struct hwc_fstr active;      /* "RS", "BaseR", "Off", "None", "LLRS" */
	struct hwc_fu64 corrected_blocks, uncorrectable_blocks; /* ethtool -I (FEC statistics) */
};

/* A transceiver or cable as its own EEPROM describes it (issue 14; hwinfo/module_eeprom.c, our
 * decoder of SFF-8472 / SFF-8636 / CMIS, checked against `ethtool -m`). Values keep the units of
 * ethtool's text: degC, V, mA, mW. */
#define HWC_MODULE_LANES 8
#define HWC_MODULE_PAGES 0x12 /* upper pages 00h..11h */
enum hwc_module_spec { HWC_MODULE_UNKNOWN, HWC_MODULE_SFF8472, HWC_MODULE_SFF8636, HWC_MODULE_CMIS };
enum { HWC_MOD_TEMP, HWC_MOD_VCC, HWC_MOD_BIAS, HWC_MOD_TXP, HWC_MOD_RXP, HWC_MOD__N };
struct hwc_module_lanes {
	struct hwc_fmeta m;
	struct {
		double *items; /* per lane, arena */
		size_t n, cap;
	} v;
};
struct hwc_module_thr { /* the module's alarm/warning thresholds of one reading */
	struct hwc_fmeta m;
	struct hwc_ff64 high_alarm, low_alarm, high_warning, low_warning;
};
struct hwc_module {
	struct hwc_fstr source; /* the argv that answered; its status is the whole module's */
	struct hwc_fstr spec, identifier, vendor, vendor_oui, part_number, revision, serial_number;
	struct hwc_fstr date_code, connector, media, compliance_codes;
	struct hwc_ff64 length_m, nominal_mbd; /* nominal_mbd: per lane (SFF-8472/8636 byte 12/140) */
	struct hwc_ff64 max_gbps;   /* the best Ethernet rate its codes name (module_rate.c) */
	struct hwc_fstr rate_basis; /* which code said so: "SFF-8636 byte 192 0x02 (100GBASE-SR4...)" */
	struct hwc_fi64 lanes;
	struct hwc_fbool ddm; /* the module has digital diagnostics */
	struct hwc_ff64 temperature_c, voltage_v;
	struct hwc_module_lanes tx_bias_ma, tx_power_mw, rx_power_mw;
	struct hwc_module_thr thr[HWC_MOD__N]; /* the module's own alarm/warning thresholds */
	struct {
		struct hwc_fmeta m;
		struct {
			const char **items; /* latched flags that are set: "rx power low alarm (lane 2)" */
			size_t n, cap;
		} v;
	} flags;
};
extern const struct hwc_jtable hwc_module_table;
/* Pointers into the bytes read: SFF-8636/CMIS lower = bytes 0..127 and upper[p] = bytes 128..255
 * of page p; SFF-8472 lower = A0h (256 bytes) and upper[0] = A2h (256 bytes). NULL: not read. */
struct hwc_module_map {
	const uint8_t *lower;
	const uint8_t *upper[HWC_MODULE_PAGES];
};
/* ethtool's hex dump ("Offset\t\tValues" then "0x0000:\t\t03 04 ..."): the bytes (at most cap),
 * the offset of the first line in *base, their count in *n. 0; -ENOENT (no dump), -EINVAL (gaps or
 * a malformed line), -E2BIG (more than cap). */
int hwc_module_parse_hex(const char *buf, size_t len, uint8_t *out, size_t cap, size_t *base,
			 size_t *n);
/* The ioctl layout of `ethtool -m IF hex on` (SFF-8472: 256 or 512 bytes; SFF-8636: 256 or 640). */
void hwc_module_map_linear(const uint8_t *b, size_t n, struct hwc_module_map *mp);
const char *hwc_module_id_name(unsigned id);
enum hwc_module_spec hwc_module_spec_of(unsigned id);
/* Decodes the map into m (m->source is kept). 0; -ENOENT (nothing read), -EPROTONOSUPPORT
 * (an identifier without a known memory map: identifier set, every other fact unsupported). */
int hwc_module_decode(const struct hwc_module_map *mp, struct hwc_arena *a, struct hwc_module *m);
void hwc_module_fail(struct hwc_module *m, const struct hwc_fmeta *why);
void hwc_module_fail_identity(struct hwc_module *m, const struct hwc_fmeta *why);
void hwc_module_fail_dom(struct hwc_module *m, const struct hwc_fmeta *why);
/* `ethtool -m IF hex on`, then CMIS pages over netlink, through the runner. */
void hwc_module_collect(struct hwc_env *e, struct hwc_facts *f, const char *ifname, struct hwc_module *m);

/* The far end of an Ethernet port: the LLDP neighbour lldpd heard on it (issue 14; hwinfo/lldp.c,
 * `lldpcli -f json show neighbors details` through the runner). A GROUP: source's status is the
 * whole neighbour's (absent: lldpd not running, or no neighbour on this port). */
struct hwc_lldp_peer {
	struct hwc_fstr source; /* the argv that answered */
	struct hwc_fstr via;    /* "LLDP", "CDPv2", ... */
	struct hwc_fstr chassis_name, chassis_id, chassis_id_type, system_description;
	struct hwc_fstr port_id, port_id_type, port_description;
	struct hwc_fi64 max_frame_size; /* the 802.3 Maximum Frame Size TLV ("mfs"), bytes */
	struct hwc_fstr mau_type;       /* the 802.3 MAC/PHY TLV's operational MAU type */
};
extern const struct hwc_jtable hwc_lldp_peer_table;
struct hwc_lldp_neighbor {
	const char *ifname; /* the local interface it was heard on */
	struct hwc_lldp_peer peer;
};
struct hwc_lldp_neighbors {
	struct hwc_lldp_neighbor *items;
	size_t n, cap;
};
/* lldpcli's JSON, either shape: "json" (one-element lists and {"value": x} folded, objects with a
 * "name" keyed by it) or "json0" (every list kept). One entry per interface (the first neighbour
 * heard on it); every peer fact ok or absent ("not advertised"). 0 (no neighbour is 0 with n 0),
 * -EINVAL when the text is not lldpcli's JSON (no top-level "lldp"). Pure. */
int hwc_lldp_parse(const char *buf, size_t len, struct hwc_arena *a, struct hwc_lldp_neighbors *out);
/* Link modes and negotiated state as `ethtool IF` prints them (issue 14; hwinfo/ethtool_link.c):
 * what this port supports and advertises, what the partner advertised, what was negotiated. */
struct hwc_link_modes_list {
	struct hwc_fmeta m; /* unsupported: "Not reported" */
	struct {
		const char **items; /* "100000baseCR4/Full", as printed */
		size_t n, cap;
	} v;
};
struct hwc_netdev_modes {
	struct hwc_fmeta m; /* the group: ethtool IF answered */
	struct hwc_fstr source;
	struct hwc_link_modes_list supported, advertised, partner;
	/* the fastest mode of each list, Mb/s (the number in front of "base") */
	struct hwc_fi64 supported_max_mbps, advertised_max_mbps, partner_max_mbps;
	struct hwc_fi64 speed_mbps, lanes; /* Speed: absent when "Unknown!" (no link) */
	struct hwc_fstr duplex, port;
	struct hwc_fbool autoneg, link_detected;
	/* Why there is no link, in the kernel's words: what ethtool prints in brackets after
	 * "Link detected: no" (netlink LINKSTATE ext_state and ext_substate, Linux >= 5.10; ethtool's
	 * names, or the number where that ethtool knows no name), verbatim. Absent with a link;
	 * unsupported when a down link has none (an older kernel or ethtool, or the driver gave none). */
	struct hwc_fstr link_ext_state, link_ext_substate;
};
extern const struct hwc_jtable hwc_netdev_modes_table;
/* Parses `ethtool IF` into out (out->m and out->source are left to the caller). 0, or -EINVAL
 * when the text has no "Settings for" line (every fact invalid). */
int hwc_ethtool_parse_link(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			   struct hwc_netdev_modes *out);
/* `ethtool IF` through the runner, into nd->link.modes. */
struct hwc_netdev;
void hwc_netdev_collect_modes(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev *nd);
/* The fastest Ethernet rate a module's codes name (SFF-8472 / SFF-8636 / CMIS), into
 * m->max_gbps and m->rate_basis (unsupported with the reason when no code says). */
void hwc_module_rate(const struct hwc_module_map *mp, struct hwc_arena *a, struct hwc_module *m);

/* The port's bit error ratios from ethtool -S's PPCNT physical layer statistical counters
 * (hwinfo/port_link.c), over those counters' own window (since they were last cleared): only
 * where the driver reports rx_bits_phy, the bits the FEC decoder received in that window. */
struct hwc_netdev_ber {
	struct hwc_fstr source;        /* what it was computed from */
	struct hwc_ff64 raw_ber;       /* (rx_corrected_bits_phy + rx_pcs_symbol_err_phy) / rx_bits_phy */
	struct hwc_ff64 effective_ber; /* rx_pcs_symbol_err_phy / rx_bits_phy */
};

/* The same ratios over a --watch window (port_link.c, hwc_netdev_ber_window): the deltas of the
 * two samples over the bits the port received at its line rate in the window. A GROUP. */
struct hwc_netdev_ber_window {
	struct hwc_fmeta m;
	struct hwc_fstr source;
	struct hwc_fu64 bits;          /* speed_mbps x 1e6 x window_s */
	struct hwc_ff64 raw_ber, effective_ber;
};

struct hwc_netdev_link {
	struct hwc_fi64 carrier_changes;    /* sys/class/net/IF/carrier_changes: ups and downs */
	struct hwc_fi64 carrier_changes_window; /* --watch: its delta (unset without) */
	struct hwc_fi64 carrier_up_count;   /* Linux >= 4.16 */
	struct hwc_fi64 carrier_down_count;
	struct hwc_netdev_fec fec;
	struct hwc_netdev_ber ber;
	struct hwc_netdev_ber_window ber_window;
	struct hwc_module module; /* the transceiver of the port (ethtool -m) */
	struct hwc_lldp_peer peer; /* the far end (LLDP) */
	struct hwc_netdev_modes modes; /* ethtool IF: link modes, speed, lanes */
};

/* The bond a netdev is a member of (hwinfo/bond.c). Its status is the membership's: absent when
 * the netdev has no master, unsupported when the master is not a bond (a bridge, a team). */
struct hwc_netdev_bond {
	struct hwc_fmeta m;
	struct hwc_fstr name;         /* sys/class/net/<if>/master, the link's last component */
	struct hwc_fstr mode;         /* bonding/mode: "802.3ad 4", "active-backup 1" */
	struct hwc_fmeta slaves_m;
	struct {
		const char **items;   /* bonding/slaves, in the bond's order */
		size_t n, cap;
	} slaves;
	struct hwc_fstr active_slave; /* bonding/active_slave; absent when empty */
	struct hwc_fi64 mtu;          /* the bond's own MTU */
	struct hwc_fstr member_state; /* sys/class/net/<if>/bonding_slave/state: active, backup */
	/* The bond's own state: a RoCE LAG port's netdev is the bond, which facts.netdevs (ConnectX
	 * netdevs only) does not list; its port goes down with the bond's carrier. */
	struct hwc_fstr operstate;
	struct hwc_fbool admin_up, carrier;
};
/* IFF_UP of <net>/flags and <net>/carrier (net: "sys/class/net/<if>"), a netdev's or a bond's. */
/* The members bond lists in sys/class/net/<bond>/bonding/slaves, in its order, into b->slaves
 * (b->slaves_m absent when bond is not a bond). */
void hwc_bond_read_slaves(struct hwc_env *e, struct hwc_arena *a, const char *bond,
			  struct hwc_netdev_bond *b);
void hwc_netdev_admin_facts(struct hwc_env *e, struct hwc_arena *a, const char *net,
			    struct hwc_fbool *admin_up, struct hwc_fbool *carrier);

/* ---- netdev parts: a collector with its own file and field table, per ConnectX netdev -----
 * One line each in HWC_NETDEV_PARTS: X(member, type, kind, "description"), kind HWC_JT_OBJ or
 * HWC_JT_GROUP (an object with its own status). The line makes `member` a member of struct
 * hwc_netdev, declares hwc_netdev_collect_<member>(env, arena, ifname, &member) and
 * hwc_netdev_<member>_table (in hwinfo/<part>.c), has hwinfo/netdev.c call it after the sysfs
 * basics and write it as facts.netdevs[].<member>, after the built-in keys. */
#define HWC_NETDEV_PARTS(X)                                                                        \
	X(bond, struct hwc_netdev_bond, HWC_JT_GROUP,                                              \
	  "the bond this netdev is a member of (sys/class/net/<if>/master)")

#define HWC_NETDEV_PART_DECL(m, T, kind_, doc_)                                                    \
	void hwc_netdev_collect_##m(struct hwc_env *e, struct hwc_arena *a, const char *ifname,    \
				    T *out);                                                       \
	extern const struct hwc_jtable hwc_netdev_##m##_table;
HWC_NETDEV_PARTS(HWC_NETDEV_PART_DECL)
#define HWC_NETDEV_PART_MEMBER(m, T, kind_, doc_) T m;

struct hwc_netdev {
	const char *name;
	struct hwc_fstr bdf, driver, fw_version, operstate;
	struct hwc_fi64 mtu, speed_mbps;
	struct hwc_fbool admin_up; /* IFF_UP of sys/class/net/<if>/flags: `ip link set up` */
	struct hwc_fbool carrier;  /* sys/class/net/<if>/carrier; unreadable while admin down */
	struct hwc_netdev_rings rings;
	struct hwc_netdev_channels channels;
	struct hwc_netdev_features features;
	struct hwc_netdev_pause pause;
	struct hwc_netdev_counters counters;
	struct hwc_netdev_counters_window counters_window;
	struct hwc_netdev_irq_locality irq_locality;
	struct hwc_netdev_link link;
	HWC_NETDEV_PARTS(HWC_NETDEV_PART_MEMBER)
};

struct hwc_netdev_facts {
	struct hwc_fmeta m;
	HWC_VEC(struct hwc_netdev) netdevs; /* ConnectX netdevs, sorted by name */
};

/* Pure parsers of ethtool's text (a capture of the tool or hwinfo/ethtool_io.h's rendering of the
 * ioctl answers). `src` names the command for details ("ethtool -g eth0"). Each fills every fact
 * of its out-struct: ok, unsupported ("n/a"), or absent (not in the text). They return 0, or
 * -EINVAL when the text is not that command's output at all (the facts are then invalid). */
int hwc_ethtool_parse_rings(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_rings *out);
int hwc_ethtool_parse_channels(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			       struct hwc_netdev_channels *out);
int hwc_ethtool_parse_features(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			       struct hwc_netdev_features *out);
int hwc_ethtool_parse_pause(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_pause *out);
int hwc_ethtool_parse_stats(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			    struct hwc_netdev_counters *out);
int hwc_ethtool_parse_drvinfo(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			      struct hwc_netdev_drvinfo *out);

/* ethtool [-I] --show-fec IF: the FEC in use and its block counters. */
int hwc_ethtool_parse_fec(const char *buf, size_t len, const char *src, struct hwc_arena *a,
			  struct hwc_netdev_fec *out);

/* The wire side of a netdev (port_link.c): carrier counters and FEC through the runner. */
void hwc_netdev_collect_link(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev *nd);
/* The counter readers of the main collection, again for each --watch sample: ethtool -S of
 * ifname into out (netdev.c; problems go to f's errors), and the carrier counters into link's
 * carrier_changes, carrier_up_count, carrier_down_count (port_link.c). */
void hwc_netdev_read_stats(struct hwc_env *e, struct hwc_facts *f, const char *ifname,
			   struct hwc_netdev_counters *out);
void hwc_netdev_read_carrier(struct hwc_env *e, struct hwc_arena *a, const char *ifname,
			     struct hwc_netdev_link *link);
/* nd->link.ber_window from nd->counters_window over window_s seconds at nd->speed_mbps. */
void hwc_netdev_ber_window(struct hwc_arena *a, struct hwc_netdev *nd, double window_s);
/* link.ber from nd's counters (since they were last cleared); --watch calls it again once the
 * counters are the last sample's. */
void hwc_netdev_ber_since_clear(struct hwc_arena *a, struct hwc_netdev *nd);

/* The first tool calls hwc_netdev_collect_link makes for a netdev (FEC, module EEPROM, modes),
 * for the caller to start ahead (hwc_run_start): n = HWC_NETDEV_LINK_CMDS argvs into out. */
#define HWC_NETDEV_LINK_CMDS 3
void hwc_netdev_link_cmds(struct hwc_arena *a, const char *ifname, const char *const *out[HWC_NETDEV_LINK_CMDS]);
/* `ethtool IF`: the link modes (ethtool_link.c). */
const char *const *hwc_modes_argv(struct hwc_arena *a, const char *ifname);
/* `ethtool -m IF hex on`: the module EEPROM's first read (port_module.c). */
const char *const *hwc_module_argv(struct hwc_arena *a, const char *ifname);
/* After the first reads were started ahead (hwc_run_start): starts, for the n netdevs whose
 * answer calls for them, the netlink page reads hwc_module_collect will make (a CMIS module),
 * all ports at once. */
void hwc_module_start_pages(struct hwc_env *e, struct hwc_arena *a, const char *const *ifnames, size_t n);
struct hwc_jtable;
/* Every ConnectX netdev's LLDP neighbour: one lldpcli run for the host (after the netdevs). */
struct hwc_netdev_facts;
void hwc_lldp_collect(struct hwc_env *e, struct hwc_facts *f, struct hwc_netdev_facts *nf);
/* Its argv, for the caller to start ahead (hwc_run_start). */
extern const char *const hwc_lldp_argv[];
/* The field table of netdevs[].link (core/json.h). */
extern const struct hwc_jtable hwc_netdev_link_table;

/* proc/interrupts: the action name of each numbered interrupt (the last column). */
struct hwc_irq_name {
	int64_t irq;
	const char *name;
};
struct hwc_irq_names {
	struct hwc_irq_name *items;
	size_t n, cap;
};
int hwc_proc_interrupts_parse(const char *buf, size_t len, struct hwc_arena *a,
			      struct hwc_irq_names *out);

/* Fills irq_locality for PCI function bdf: msi_irqs, effective affinity, numa_node. */
void hwc_netdev_irq_locality(struct hwc_env *e, struct hwc_arena *a, const char *bdf,
			     const struct hwc_irq_names *names, struct hwc_netdev_irq_locality *out);

int hwc_host_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_host_to_json(const struct hwc_facts *f);
int hwc_host_from_json(const json_t *j, struct hwc_facts *f);
/* The field table of facts.host (core/json.h), checked against docs/schema/host.schema.json. */
extern const struct hwc_jtable hwc_host_table;

/* ---- --watch (hwinfo/watch.c): the port counters sampled twice, their deltas over the window --
 * facts.watch, and per port mlx.adapters[].ports[].counters_window, netdevs[].counters_window,
 * netdevs[].link.carrier_changes_window and .ber_window. */
struct hwc_watch_facts {
	struct hwc_fmeta m;          /* the section's: ok when it was asked for or recorded */
	struct hwc_fi64 requested_s; /* the SEC of --watch (the captured run's, in a replay) */
	struct hwc_ff64 window_s;    /* measured between the two samples (recorded in a capture) */
	struct hwc_fi64 samples;     /* 2 */
};
/* What a capture keeps at HWC_WATCH_DIR "/window": "requested_s=N\nwindow_us=N\nsamples=N\n". */
#define HWC_WATCH_WINDOW HWC_WATCH_DIR "/window"
struct hwc_watch_window {
	unsigned requested_s;  /* 1..3600 */
	uint64_t window_us;    /* > 0, at most 2 x requested_s */
	unsigned samples;      /* 2 */
};
/* Pure: 0, or -EINVAL with the offending field (or line) named in *why (a static string). Unknown
 * keys are ignored; every one of the three is required. */
int hwc_watch_parse_window(const char *buf, size_t len, struct hwc_watch_window *out,
			   const char **why);
int hwc_watch_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_watch_to_json(const struct hwc_facts *f);
int hwc_watch_from_json(const json_t *j, struct hwc_facts *f);
extern const struct hwc_jtable hwc_watch_table;

int hwc_netdev_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_netdev_to_json(const struct hwc_facts *f);
int hwc_netdev_from_json(const json_t *j, struct hwc_facts *f);
/* The field table of one element of facts.netdevs. */
extern const struct hwc_jtable hwc_netdev_table;

#endif
