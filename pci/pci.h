/* SPDX-License-Identifier: MIT */
/* PCIe devices and their paths to the root port, read through libpci. */
#ifndef HWC_PCI_H
#define HWC_PCI_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/env.h"
#include "core/facts.h"

struct hwc_pci_f64list {
	struct hwc_fmeta m;
	double *items;
	size_t n, cap;
};

struct hwc_pci_strlist {
	struct hwc_fmeta m;
	const char **items;
	size_t n, cap;
};

/* LnkCap/LnkSta/LnkCap2/LnkCtl/LnkCtl2 of one link end (m: is there a link object at all). */
struct hwc_pci_link {
	struct hwc_fmeta m;
	struct hwc_ff64 speed_gts, cap_speed_gts, target_speed_gts;
	struct hwc_fi64 width, cap_width;
	struct hwc_fstr aspm, aspm_supported;
	struct hwc_fbool dll_active, flit_mode;
	struct hwc_pci_f64list supported_speeds_gts;
	struct hwc_ff64 gbps;     /* speed x encoding x width, as the kernel counts it */
	struct hwc_ff64 cap_gbps; /* the same for LnkCap: what the device could carry */
};

/* The hop of the path that limits it, with the kernel's figure and the TLP-efficiency one. */
struct hwc_pci_bottleneck {
	struct hwc_fmeta m;
	struct hwc_fstr bdf;
	struct hwc_ff64 speed_gts;
	struct hwc_fi64 width;
	struct hwc_ff64 raw_gbps; /* lane rate x encoding x width: PCIE_SPEED2MBS_ENC, as the kernel */
	struct hwc_ff64 gbps;     /* raw_gbps x TLP efficiency for the MPS in use */
	struct hwc_fi64 mps_bytes; /* the MPS the efficiency was computed for */
	struct hwc_ff64 capable_raw_gbps; /* the device's own LnkCap, as the kernel's "capable of" */
};

/* ACS capability or control bits (lspci ACSCap/ACSCtl: SrcValid TransBlk ReqRedir CmpltRedir
 * UpstreamFwd EgressCtrl DirectTrans). */
struct hwc_pci_acs {
	struct hwc_fmeta m;
	struct hwc_fbool source_validation, translation_blocking, request_redirect,
		completion_redirect, upstream_forwarding, egress_control, direct_translated;
};

/* What peer-to-peer DMA (GPUDirect) depends on at a function: ATS, PRI, PASID (extended
 * capabilities), 10-bit tags and AtomicOps (DevCap2/DevCtl2). */
struct hwc_pci_p2p {
	struct hwc_fmeta m;
	struct hwc_fbool ats_capable, ats_enabled, pri_capable, pri_enabled, pasid_capable,
		pasid_enabled;
	struct hwc_fbool tag10_requester_capable, tag10_requester_enabled, tag10_completer_capable;
	struct hwc_fbool atomic_requester_enabled, atomic_egress_blocking, atomic_routing,
		atomic_completer_32, atomic_completer_64, atomic_completer_128;
};

/* A slot's SltCap: its power limit and physical slot number. */
struct hwc_pci_slot {
	struct hwc_fmeta m;
	struct hwc_ff64 power_limit_w;
	struct hwc_fi64 physical_slot;
};

/* ---- device parts: a decoder with its own file and field table -----------------------------
 * One line each in HWC_PCI_DEVICE_PARTS: X(member, type, "description"), type a struct whose
 * first member is its struct hwc_fmeta (the part's status). That line alone makes `member` a
 * member of struct hwc_pci_device, declares the part's decoder
 * hwc_pci_decode_<member>(cfg, arena, &member) (pure: the config bytes in, every fact of the part
 * with a value or a status out) and its field table hwc_pci_<member>_table (both in
 * pci/<part>.c), has hwc_pci_decode_config call it for every function (sysfs or --pci-dump) and
 * writes it as facts.pci.devices[].<member> after the built-in keys, with the description as its
 * schema entry's. When the bytes hold no capability to decode (64 bytes without root,
 * conventional PCI, a device that does not answer, a chain that loops) the part gets the status
 * the built-in capability facts get, without being called; an SR-IOV VF (its ids read ffff) has
 * no parts: its link is its PF's. The part's struct sits above the list. Adding a fact:
 * docs/DESIGN.md. */

/* What a part decodes: a function's config space as it was read (64, 256 or up to 4096 bytes)
 * and where its PCI Express capability is. */
struct hwc_pci_cfg {
	const unsigned char *buf;
	size_t len;
	unsigned exp;  /* offset of the PCI Express capability, 0 when it has none */
	int pcie_type; /* PCI_EXP_TYPE_* from it, -1 without one */
};
/* LnkCtl/LnkCap ASPM bits as facts name them: disabled, l0s, l1, l0s_l1 (a LnkCap of 0: none). */
const char *hwc_pci_aspm_name(unsigned v, bool cap);
/* The little-endian word or dword at off; all ones past the bytes read. */
unsigned hwc_pci_cfg_u16(const struct hwc_pci_cfg *c, size_t off);
uint32_t hwc_pci_cfg_u32(const struct hwc_pci_cfg *c, size_t off);
/* The offset of extended capability `id` (the list from 0x100, PCIe base spec 7.6), or 0 with m
 * set to why not: unsupported with the detail `what` when the device has none, absent or
 * needs_root when the extended space was not read (256- or 64-byte config). */
size_t hwc_pci_cfg_ext_cap(const struct hwc_pci_cfg *c, unsigned id, const char *what,
			   struct hwc_fmeta *m);

/* lane_errors: the Lane Error Status register of the Secondary PCI Express capability
 * (pci/lane_errors.c), latched per lane since power-up or the last clear */
struct hwc_pci_lane_errors {
	struct hwc_fmeta m;
	struct {
		int64_t *items;
		size_t n, cap;
	} lanes; /* the lane numbers whose bit is set, ascending */
};

/* function_aspm: this function's own LnkCtl ASPM Control and whether it has the ARI capability
 * (pci/function_aspm.c): a multi-function device's link ASPM follows from every function's */
struct hwc_pci_function_aspm {
	struct hwc_fmeta m;
	struct hwc_fstr control;      /* disabled, l0s, l1, l0s_l1 */
	struct hwc_fbool ari_capable; /* ARI extended capability present */
};

#define HWC_PCI_DEVICE_PARTS(X)                                                                    \
	X(lane_errors, struct hwc_pci_lane_errors,                                                 \
	  "lane-based errors latched at this end of the link (Secondary PCI Express capability, "   \
	  "Lane Error Status): a lane that failed framing or symbol checks since power-up or the "  \
	  "last clear")                                                                             \
	X(function_aspm, struct hwc_pci_function_aspm,                                             \
	  "what this function says about the ASPM of the link it may share with the other "        \
	  "functions of its device: its own LnkCtl ASPM Control and whether it is an ARI function " \
	  "(PCIe r5.0 7.5.3.7: an ARI Device's link follows function 0, a non-ARI multi-function "  \
	  "device's only what every function enables)")

#define HWC_PCI_PART_DECL(m, T, doc_)                                                              \
	void hwc_pci_decode_##m(const struct hwc_pci_cfg *c, struct hwc_arena *a, T *out);         \
	extern const struct hwc_jtable hwc_pci_##m##_table;
struct hwc_jtable;
HWC_PCI_DEVICE_PARTS(HWC_PCI_PART_DECL)
#define HWC_PCI_PART_MEMBER(m, T, doc_) T m;

struct hwc_pci_device {
	struct hwc_fstr bdf;
	struct hwc_fstr vendor_id, device_id, subsystem_vendor_id, subsystem_device_id, class_code;
	struct hwc_fi64 revision, function, header_type;
	struct hwc_fstr driver;
	struct hwc_fi64 numa_node, iommu_group;
	struct hwc_fstr port_type;
	struct hwc_fbool is_vf;
	struct hwc_fstr physfn;
	struct {
		struct hwc_fmeta m;
		struct hwc_fi64 total_vfs, num_vfs;
		struct hwc_fstr vf_device_id;
	} sriov;
	struct hwc_pci_link link;
	struct hwc_fstr link_from; /* BDF whose link registers were read (function 0, the PF) */
	struct hwc_fstr link_status;
	struct hwc_fi64 max_payload_bytes, max_payload_supported_bytes, max_read_request_bytes;
	struct hwc_fbool relaxed_ordering, no_snoop, extended_tag;
	struct hwc_ff64 slot_power_limit_w;
	struct hwc_pci_slot slot;
	struct hwc_pci_slot upstream_slot; /* the slot of the port above (its SltCap), for endpoints
					    * and upstream ports */
	struct {
		struct hwc_fmeta m;
		struct hwc_fbool correctable, nonfatal, fatal, unsupported_request;
	} dev_status; /* DevSta error bits (latched) */
	struct hwc_fbool aer_capable;
	struct hwc_fbool acs_capable;
	struct hwc_pci_acs acs_cap, acs; /* acs: the control register, what is in force */
	struct hwc_pci_p2p p2p;
	struct {
		struct hwc_fmeta m;
		struct hwc_fi64 correctable, nonfatal, fatal;
	} aer; /* TOTAL_ERR_* counters from sysfs */
	struct hwc_fstr upstream;
	struct hwc_pci_strlist path;
	struct hwc_pci_bottleneck path_bottleneck;
	struct {
		struct hwc_fmeta m;
		struct hwc_fstr product_name, part_number, serial_number;
	} vpd;
	struct hwc_fi64 config_bytes;
	HWC_PCI_DEVICE_PARTS(HWC_PCI_PART_MEMBER)

	/* Not in JSON: what collection needs to tie devices together. */
	unsigned domain, bus, dev, fn;
	int pcie_type;      /* PCI_EXP_TYPE_*, -1 without a PCIe capability */
	int sec_bus, sub_bus; /* bridges (header type 1, CardBus 2), else -1 */
	long parent;        /* index in the device array, -1 none/unknown */
};

/* What lets a NIC DMA into GPU memory: the peer-memory modules (sys/module) and the GPU driver. */
struct hwc_pci_peer_memory {
	struct hwc_fmeta m;
	struct hwc_fbool nvidia_peermem, nv_peer_mem;
	struct hwc_fstr nvidia_driver_version; /* sys/module/nvidia/version */
};

struct hwc_pci_facts {
	struct hwc_fmeta m; /* status of the section as a whole */
	struct hwc_fstr source; /* "sysfs" or "dump" */
	struct hwc_pci_peer_memory peer_memory;
	HWC_VEC(struct hwc_pci_device) devices;
};

/* Fills f->section from the root. Never prints; problems go to hwc_facts_error(). */
int hwc_pci_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o);
json_t *hwc_pci_to_json(const struct hwc_facts *f);
/* facts.pci.gpudirect without peer_memory: GPUs, ConnectX NICs and NVMe drives (peers), each
 * GPU's relation to every peer as nvidia-smi topo -m names it (matrix), each GPU's nearest NICs
 * and the route between them (pairs). A pure function of the devices' JSON-visible facts. */
json_t *hwc_pci_gpudirect_json(const struct hwc_pci_facts *p);
/* Reads p->peer_memory from the root (pci/p2p.c). */
void hwc_pci_collect_peer_memory(struct hwc_env *e, struct hwc_arena *a, struct hwc_pci_facts *p);
int hwc_pci_from_json(const json_t *j, struct hwc_facts *f);

/* Copy every string, detail and list of d into a: collection reads into a scratch arena that is
 * freed per function (internal to pci/). */
void hwc_pci_device_persist(struct hwc_pci_device *d, struct hwc_arena *a);
/* The field table of one element of facts.pci.devices (core/json.h). */
extern const struct hwc_jtable hwc_pci_device_table;
/* facts.pci's own table (its devices through hwc_pci_device_table). */
extern const struct hwc_jtable hwc_pci_table;

/* ---- pure parts, exposed for tests and fuzzing ------------------------------------------ */

/* Decode config-space bytes (64, 256 or 4096 of them) into d: identity, class, the PCIe
 * capability (DevCap/DevCtl/DevSta/Link/Slot), AER and SR-IOV presence. libpci walks the
 * capabilities over the bytes (pci_setup_cache); it never touches a device. Facts that need more
 * bytes than were given get needs_root (64 bytes: the kernel's limit without CAP_SYS_ADMIN) or
 * absent (a 256-byte "lspci -xxx" capture has no extended space). Returns 0, or -EINVAL when
 * the bytes are not a config header (fewer than 64, vendor 0xffff/0x0000), -EIO when libpci
 * failed; *err (when not NULL) then says why. */
int hwc_pci_decode_config(const unsigned char *buf, size_t len, struct hwc_arena *a,
			  struct hwc_pci_device *d, const char **err);
/* Every device part (HWC_PCI_DEVICE_PARTS) of d not known, for one reason: its config space was
 * not read, or holds no capability. */
void hwc_pci_parts_fail(struct hwc_pci_device *d, const struct hwc_fmeta *why);
/* Every fact of d that comes from a capability (link, payload sizes, slot power, ...) and every
 * part not known, for one reason (st, why): the bytes hold no capability, or were not read. */
void hwc_pci_caps_fail(struct hwc_pci_device *d, enum hwc_status st, const char *why);

/* GT/s of a LnkSta/LnkCap/LnkCtl2 speed code (1..6 = Gen1..Gen6), 0 for any other code. */
double hwc_pci_speed_code_gts(int code);
/* Per-lane Mb/s after encoding, as the kernel's PCIE_SPEED2MBS_ENC (integer arithmetic):
 * 2.5 -> 2000, 8 -> 7876, 16 -> 15753, 32 -> 31507, 64 -> 64000. 0 for an unknown speed. */
unsigned hwc_pci_lane_mbps(double speed_gts);
/* Gb/s of a link as the kernel counts it: hwc_pci_lane_mbps x width / 1000 ("63.008 Gb/s
 * available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link"). 0 for an unknown speed. */
double hwc_pci_link_gbps(double speed_gts, int64_t width);
/* Fraction of link bytes that carry payload for posted writes of `mps_bytes`: MPS/(MPS+24)
 * (framing, sequence, 4-DW header, LCRC), in flit mode (64 GT/s) 236/256 x MPS/(MPS+16). */
double hwc_pci_tlp_efficiency(double speed_gts, int mps_bytes);

/* Whether a Mellanox PCI device id (hex text, "1007") is of ConnectX-3 (Pro, and its VF) or older
 * (ConnectX, ConnectX-2: 6xxx, and the ConnectX-2 VF 1002), which mstflint's mstlink refuses (mlx/mlxlink.c, rules/fix_mstlink.c);
 * false for an id that is not hex. */
bool hwc_pci_mlx_before_connectib(const char *device_id);
/* The RDMA driver of a ConnectX card's kernel driver (facts.mlx.adapters[].kernel_driver, from the
 * identity table): "mlx4_ib" for mlx4_core, "mlx5_ib" for mlx5_core, NULL for anything else or
 * NULL (rules/rule-netdev.c, cli/cards.c). */
const char *hwc_pci_mlx_rdma_driver(const char *kernel_driver);

/* One hop of a path: the link as the device at that hop sees it (LnkSta). */
struct hwc_pci_hop {
	const char *bdf;
	double speed_gts; /* 0 = unknown / no link */
	int width;
};
/* The kernel's pcie_bandwidth_available(): walk from the device (hops[0]) up, the hop with the
 * smallest width x lane rate limits, a later (upper) hop winning ties. Returns the index of the
 * limiting hop, -EINVAL when n == 0; *raw_mbps gets its bandwidth in Mb/s. */
int hwc_pci_path_limit(const struct hwc_pci_hop *hops, size_t n, unsigned long *raw_mbps);

/* A PCIe link that the paths of several of the given functions cross. It is named, as the
 * kernel names a path's limit, by the port above it (a root or downstream port). */
#define HWC_PCI_MAX_SHARED 256
struct hwc_pci_shared_link {
	const char *port_bdf;  /* points into the JSON given */
	double speed_gts;      /* LnkSta of the link; 0 unknown */
	int width;
	double raw_gbps;       /* after encoding, as the kernel counts it */
	double gbps;           /* payload at the members' smallest MPS; 0 when an MPS is unknown */
	int mps_bytes;
	bool switch_uplink;    /* the link above a PCIe switch (its upstream port's) */
	unsigned long long members; /* bit i: bdfs[i]'s path crosses it (the first 64 BDFs) */
};
/* The links crossed by at least two of bdfs[] (facts.pci.devices[].path), from the card up:
 * pure, for the rules (before any probe) and the all-ports probe. Returns how many were written
 * to out (at most cap). */
size_t hwc_pci_shared_links(const json_t *devices, const char *const *bdfs, size_t n,
			    struct hwc_pci_shared_link *out, size_t cap);

/* "ok", "downgraded" (the link trained below what both ends can do), "slot_limited" (trained at
 * what the other end allows, and this end can do more), "unknown" (an end's capability unknown). */
const char *hwc_pci_link_verdict(double cur_speed, int cur_width, double cap_speed, int cap_width,
				 double other_cap_speed, int other_cap_width);

/* Parse an aer_dev_* file: the TOTAL_ERR_* line. Returns 0 or -EINVAL. */
int hwc_pci_parse_aer_total(const char *buf, size_t len, long long *total);
/* Parse current_link_speed / max_link_speed ("8.0 GT/s PCIe", "8 GT/s", "Unknown"). */
int hwc_pci_parse_speed(const char *s, double *gts);
/* Parse VPD bytes (large-resource ID string, VPD-R PN/SN). Fields not found stay absent. */
int hwc_pci_parse_vpd(const unsigned char *buf, size_t len, struct hwc_arena *a,
		      struct hwc_pci_device *d);

/* Read an 'lspci -x/-xxx/-xxxx' dump through libpci's dump method (its errors come back here,
 * they do not exit); one decoded device per function appended to *out, sorted by BDF, with
 * config_bytes = what the dump held. Returns 0 or -errno (*err says why). */
int hwc_pci_read_dump(const char *file, struct hwc_arena *a, struct hwc_pci_facts *out,
		      const char **err);

#endif
