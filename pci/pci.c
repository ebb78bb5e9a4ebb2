/* SPDX-License-Identifier: MIT */
/* facts.pci <-> JSON, table-driven so that writing and reading cannot drift apart. */
#include "pci/pci.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "core/json.h"

#define D(k, t, m) HWC_JFK(struct hwc_pci_device, k, m, t)
/* A member of one of the device's nested groups (anonymous structs): offset from the group. */
#define G(g, k, t_, m)                                                                             \
	{.key = k, .t = t_,                                                                        \
	 .off = offsetof(struct hwc_pci_device, g.m) - offsetof(struct hwc_pci_device, g)}
#define TAB(path, f) HWC_JTABLE(path, f, HWC_JTAB_OMIT_UNSET)

static const struct hwc_jfield sriov_f[] = {
	G(sriov, "total_vfs", HWC_JT_I64, total_vfs),
	G(sriov, "num_vfs", HWC_JT_I64, num_vfs),
	G(sriov, "vf_device_id", HWC_JT_STR, vf_device_id),
};
static const struct hwc_jfield link_f[] = {
	HWC_JF(struct hwc_pci_link, speed_gts, HWC_JT_F64),
	HWC_JF(struct hwc_pci_link, width, HWC_JT_I64),
	HWC_JF(struct hwc_pci_link, cap_speed_gts, HWC_JT_F64),
	HWC_JF(struct hwc_pci_link, cap_width, HWC_JT_I64),
	HWC_JF(struct hwc_pci_link, target_speed_gts, HWC_JT_F64),
	HWC_JF(struct hwc_pci_link, aspm, HWC_JT_STR),
	HWC_JF(struct hwc_pci_link, aspm_supported, HWC_JT_STR),
	HWC_JF(struct hwc_pci_link, dll_active, HWC_JT_BOOL),
	HWC_JF(struct hwc_pci_link, flit_mode, HWC_JT_BOOL),
	HWC_JF(struct hwc_pci_link, gbps, HWC_JT_F64),
	HWC_JF(struct hwc_pci_link, cap_gbps, HWC_JT_F64),
	HWC_JLIST_M(struct hwc_pci_link, "supported_speeds_gts", supported_speeds_gts.items,
		    supported_speeds_gts.m, HWC_JT_F64V),
};
static const struct hwc_jfield slot_f[] = {
	HWC_JF(struct hwc_pci_slot, power_limit_w, HWC_JT_F64),
	HWC_JF(struct hwc_pci_slot, physical_slot, HWC_JT_I64),
};
static const struct hwc_jfield devsta_f[] = {
	G(dev_status, "correctable", HWC_JT_BOOL, correctable),
	G(dev_status, "nonfatal", HWC_JT_BOOL, nonfatal),
	G(dev_status, "fatal", HWC_JT_BOOL, fatal),
	G(dev_status, "unsupported_request", HWC_JT_BOOL, unsupported_request),
};
static const struct hwc_jfield aer_f[] = {
	G(aer, "correctable", HWC_JT_I64, correctable),
	G(aer, "nonfatal", HWC_JT_I64, nonfatal),
	G(aer, "fatal", HWC_JT_I64, fatal),
};
static const struct hwc_jfield bn_f[] = {
	HWC_JF(struct hwc_pci_bottleneck, bdf, HWC_JT_STR),
	HWC_JF(struct hwc_pci_bottleneck, speed_gts, HWC_JT_F64),
	HWC_JF(struct hwc_pci_bottleneck, width, HWC_JT_I64),
	HWC_JF(struct hwc_pci_bottleneck, gbps, HWC_JT_F64),
	HWC_JF(struct hwc_pci_bottleneck, raw_gbps, HWC_JT_F64),
	HWC_JF(struct hwc_pci_bottleneck, mps_bytes, HWC_JT_I64),
	HWC_JF(struct hwc_pci_bottleneck, capable_raw_gbps, HWC_JT_F64),
};
static const struct hwc_jfield vpd_f[] = {
	G(vpd, "product_name", HWC_JT_STR, product_name),
	G(vpd, "part_number", HWC_JT_STR, part_number),
	G(vpd, "serial_number", HWC_JT_STR, serial_number),
};
#define ACS(m) HWC_JF(struct hwc_pci_acs, m, HWC_JT_BOOL)
static const struct hwc_jfield acs_f[] = {
	ACS(source_validation), ACS(translation_blocking), ACS(request_redirect),
	ACS(completion_redirect), ACS(upstream_forwarding), ACS(egress_control),
	ACS(direct_translated),
};
#define P2P(m) HWC_JF(struct hwc_pci_p2p, m, HWC_JT_BOOL)
static const struct hwc_jfield p2p_f[] = {
	P2P(ats_capable), P2P(ats_enabled), P2P(pri_capable), P2P(pri_enabled),
	P2P(pasid_capable), P2P(pasid_enabled), P2P(tag10_requester_capable),
	P2P(tag10_requester_enabled), P2P(tag10_completer_capable), P2P(atomic_requester_enabled),
	P2P(atomic_egress_blocking), P2P(atomic_routing), P2P(atomic_completer_32),
	P2P(atomic_completer_64), P2P(atomic_completer_128),
};
static const struct hwc_jfield pm_f[] = {
	HWC_JF(struct hwc_pci_peer_memory, nvidia_peermem, HWC_JT_BOOL),
	HWC_JF(struct hwc_pci_peer_memory, nv_peer_mem, HWC_JT_BOOL),
	HWC_JF(struct hwc_pci_peer_memory, nvidia_driver_version, HWC_JT_STR),
};
static const struct hwc_jtable acs_cap_t = TAB("pci.devices[].acs_cap", acs_f);
static const struct hwc_jtable acs_t = TAB("pci.devices[].acs", acs_f);
static const struct hwc_jtable p2p_t = TAB("pci.devices[].p2p", p2p_f);
static const struct hwc_jtable peer_memory_t = TAB("pci.gpudirect.peer_memory", pm_f);
/* The collected part of facts.pci.gpudirect (the rest is derived from the devices). */
static const struct hwc_jfield gd_f[] = {
	HWC_JSUB(struct hwc_pci_facts, "peer_memory", peer_memory, HWC_JT_GROUP, peer_memory_t),
};
static const struct hwc_jtable gpudirect_t = TAB("pci.gpudirect", gd_f);
static const struct hwc_jtable sriov_t = TAB("pci.devices[].sriov", sriov_f);
static const struct hwc_jtable link_t = TAB("pci.devices[].link", link_f);
static const struct hwc_jtable slot_t = TAB("pci.devices[].slot", slot_f);
static const struct hwc_jtable upstream_slot_t = TAB("pci.devices[].upstream_slot", slot_f);
static const struct hwc_jtable dev_status_t = TAB("pci.devices[].dev_status", devsta_f);
static const struct hwc_jtable aer_t = TAB("pci.devices[].aer", aer_f);
static const struct hwc_jtable path_bottleneck_t = TAB("pci.devices[].path_bottleneck", bn_f);
static const struct hwc_jtable vpd_t = TAB("pci.devices[].vpd", vpd_f);

/* A group is written when its status is ok, null + "unavailable" on failure, omitted when
 * nobody set it (so the round trip restores "not there" as not there); so is a fact. */
#define GRP(m) HWC_JSUB(struct hwc_pci_device, #m, m, HWC_JT_GROUP, m##_t)
static const struct hwc_jfield dev_f[] = {
	HWC_JFF(struct hwc_pci_device, "bdf", bdf, HWC_JT_STR, HWC_JF_ALWAYS),
	D("vendor_id", HWC_JT_STR, vendor_id),
	D("device_id", HWC_JT_STR, device_id),
	D("subsystem_vendor_id", HWC_JT_STR, subsystem_vendor_id),
	D("subsystem_device_id", HWC_JT_STR, subsystem_device_id),
	D("class", HWC_JT_STR, class_code),
	D("revision", HWC_JT_I64, revision),
	D("function", HWC_JT_I64, function),
	D("driver", HWC_JT_STR, driver),
	D("numa_node", HWC_JT_I64, numa_node),
	D("iommu_group", HWC_JT_I64, iommu_group),
	D("port_type", HWC_JT_STR, port_type),
	D("is_vf", HWC_JT_BOOL, is_vf),
	D("physfn", HWC_JT_STR, physfn),
	D("link_from", HWC_JT_STR, link_from),
	D("link_status", HWC_JT_STR, link_status),
	D("max_payload_bytes", HWC_JT_I64, max_payload_bytes),
	D("max_payload_supported_bytes", HWC_JT_I64, max_payload_supported_bytes),
	D("max_read_request_bytes", HWC_JT_I64, max_read_request_bytes),
	D("relaxed_ordering", HWC_JT_BOOL, relaxed_ordering),
	D("no_snoop", HWC_JT_BOOL, no_snoop),
	D("extended_tag", HWC_JT_BOOL, extended_tag),
	D("slot_power_limit_w", HWC_JT_F64, slot_power_limit_w),
	D("aer_capable", HWC_JT_BOOL, aer_capable),
	D("acs_capable", HWC_JT_BOOL, acs_capable),
	D("upstream", HWC_JT_STR, upstream),
	D("config_bytes", HWC_JT_I64, config_bytes),
	HWC_JLIST_M(struct hwc_pci_device, "path", path.items, path.m, HWC_JT_STRV),
	GRP(sriov), GRP(link), GRP(slot), GRP(upstream_slot), GRP(dev_status), GRP(aer),
	GRP(path_bottleneck), GRP(vpd), GRP(acs_cap), GRP(acs), GRP(p2p),
#define PART_F(m, T, doc_)                                                                         \
	HWC_JSUBD(struct hwc_pci_device, #m, m, HWC_JT_GROUP, hwc_pci_##m##_table, doc_),
	HWC_PCI_DEVICE_PARTS(PART_F)
#undef PART_F
};
/* One element of facts.pci.devices. */
const struct hwc_jtable hwc_pci_device_table = TAB("pci.devices[]", dev_f);

/* Copy every string and detail of d into a (they were made in a scratch arena). */
void hwc_pci_device_persist(struct hwc_pci_device *d, struct hwc_arena *a)
{
	hwc_json_persist_table(d, a, &hwc_pci_device_table);
}

/* facts.pci.gpudirect: derived from the devices (p2p.c), with the collected peer_memory. */
static int put_gpudirect(json_t *o, const struct hwc_jfield *f, const void *p)
{
	json_t *g = hwc_pci_gpudirect_json(p);
	if (!g || hwc_json_put_table(g, p, &gpudirect_t) < 0 || json_object_set_new(o, f->key, g)) {
		json_decref(g);
		return -ENOMEM;
	}
	return 0;
}

/* Only peer_memory is read back (the rest is derived again from the devices). */
static int get_gpudirect(const json_t *o, const struct hwc_jfield *f, struct hwc_arena *a, void *p)
{
	const json_t *g = json_object_get(o, f->key);
	if (json_is_object(g) && json_object_get(g, "peer_memory"))
		return hwc_json_get_table(g, a, p, &gpudirect_t);
	return 0;
}

/* Without devices nothing was collected: neither the source (not a fact about the machine) nor
 * gpudirect is written. */
static bool collected(const void *base)
{
	return ((const struct hwc_pci_facts *)base)->m.st == HWC_ST_OK;
}

static bool source_known(const void *base)
{
	const struct hwc_pci_facts *p = base;
	return collected(p) && p->source.m.st == HWC_ST_OK;
}

static const struct hwc_jfield pci_f[] = {
	{.key = "source", .t = HWC_JT_STR, .off = offsetof(struct hwc_pci_facts, source),
	 .flags = HWC_JF_ALWAYS, .when = source_known},
	{.key = "devices", .t = HWC_JT_VEC, .off = offsetof(struct hwc_pci_facts, devices),
	 .flags = HWC_JF_META | HWC_JF_UNSET_ARRAY, .meta = offsetof(struct hwc_pci_facts, m),
	 .sub = &hwc_pci_device_table, .elem = sizeof(struct hwc_pci_device)},
	{.key = "gpudirect", .t = HWC_JT_CUSTOM, .put = put_gpudirect, .get = get_gpudirect,
	 .when = collected, .types = "object"},
};
/* facts.pci */
const struct hwc_jtable hwc_pci_table = HWC_JTABLE("pci", pci_f, 0);

json_t *hwc_pci_to_json(const struct hwc_facts *f)
{
	return f->pci ? hwc_json_from_table(f->pci, &hwc_pci_table) : NULL;
}

int hwc_pci_from_json(const json_t *j, struct hwc_facts *f)
{
	int rc;
	struct hwc_pci_facts *p = hwc_json_section_from(j, f->arena, sizeof(*p), &hwc_pci_table, &rc);
	if (!p)
		return rc;
	f->pci = p;
	for (size_t i = 0; i < p->devices.n; i++) { /* the topology is derived again, not read */
		struct hwc_pci_device *d = &p->devices.items[i];
		d->parent = -1;
		d->pcie_type = -1;
		d->sec_bus = d->sub_bus = -1;
	}
	return rc;
}
