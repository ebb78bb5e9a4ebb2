/* SPDX-License-Identifier: MIT */
/* GPUDirect rules over facts.pci.gpudirect: what breaks peer-to-peer between a GPU and its NIC
 * (ACS redirect on the route, a NIC far from its GPU, unbalanced rails, no peer memory, IOMMU/ATS
 * against the platform, a slow hop). Each finding names the pair and the hop. */
#include <stdio.h>
#include <string.h>

#include "pci/pci.h"
#include "rules/rules-int.h"

/* Number of peers of a kind; with nvidia, only NVIDIA GPUs. */
static size_t count_kind(const json_t *facts, const json_t *gd, const char *kind, bool nvidia)
{
	size_t i, n = 0;
	const json_t *p;
	json_array_foreach(hwc_q_get(gd, "peers"), i, p) {
		const char *k = hwc_q_string(p, "kind");
		if (!k || strcmp(k, kind) != 0 || !hwc_q_string(p, "bdf"))
			continue;
		if (nvidia) {
			const char *v = hwc_q_string(hwc_q_pci_dev(facts, hwc_q_string(p, "bdf")), "vendor_id");
			if (!v || strcmp(v, "10de") != 0)
				continue;
		}
		n++;
	}
	return n;
}

/* The rules judge hosts with both GPUs and ConnectX NICs; elsewhere they have nothing to say. */
static const json_t *gpu_host(const json_t *facts)
{
	const json_t *gd = hwc_q_gpudirect(facts);
	return gd && count_kind(facts, gd, "gpu", false) && count_kind(facts, gd, "nic", false) ? gd : NULL;
}

/* A pair as pci/p2p.c writes it; anything else (a hand-edited facts file) is skipped. */
static bool pair_ok(const json_t *p)
{
	return hwc_q_string(p, "gpu") && hwc_q_string(p, "nic") && hwc_q_string(p, "relation") &&
	       json_is_array(hwc_q_get(p, "route"));
}

static int rel_rank(const char *r)
{
	static const char *const order[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
	for (int i = 0; r && i < 5; i++)
		if (!strcmp(r, order[i]))
			return i;
	return 9; /* unknown */
}

static bool near(const char *r) { return rel_rank(r) <= 1; }

static const char *pair_name(struct hwc_rule_ctx *c, const json_t *p)
{
	return hwc_arena_printf(c->a, "GPU %s and NIC %s (%s)", hwc_q_string(p, "gpu"), hwc_q_string(p, "nic"),
				hwc_q_string(p, "relation"));
}

/* "host.platform" from the profile, else the hypervisor flag: "bare_metal", "vm" or NULL with
 * the unknown finding emitted for subject. */
static const char *platform(struct hwc_rule_ctx *c, const char *subject)
{
	const char *p = hwc_profile_host_str(c->prof, "platform");
	if (p)
		return p;
	bool hv;
	if (!need_bool(c, subject, hwc_q_host(c->facts), "host", "cpu.hypervisor", &hv))
		return NULL;
	return hv ? "vm" : "bare_metal";
}

/* ---- ACS redirect on the route of a switch-local pair ------------------------------------- */

/* A route bridge whose ACS sends peer-to-peer up (1), does not (0), or unknown (-1, emitted). */
static int redirects(struct hwc_rule_ctx *c, const char *gpu, const char *b, bool vm, bool *rr, bool *cr)
{
	const json_t *dev = hwc_q_pci_dev(c->facts, b);
	const char *base = fv_pci_path(c, b), *why;
	bool cap, dt = false;
	*rr = *cr = false;
	if (!need_bool(c, gpu, dev, base, "acs_capable", &cap))
		return -1;
	if (!cap)
		return 0;
	if (!need_bool(c, gpu, dev, base, "acs.request_redirect", rr) ||
	    !need_bool(c, gpu, dev, base, "acs.completion_redirect", cr))
		return -1;
	hwc_q_find_bool(dev, "acs.direct_translated", &dt, &why, c->a);
	return (*rr || *cr) && !(vm && dt);
}

static void acs_pair(struct hwc_rule_ctx *c, const json_t *p, bool vm)
{
	const char *gpu = hwc_q_string(p, "gpu"), *nic = hwc_q_string(p, "nic"), *common = hwc_q_string(p, "common");
	const char *list = "";
	const char *ev[16][3];
	size_t nev = 0, i;
	const json_t *h;
	json_array_foreach(hwc_q_get(p, "route"), i, h) {
		const char *b = json_string_value(h);
		bool rr, cr;
		if (!b || !strcmp(b, gpu) || !strcmp(b, nic) || (common && !strcmp(b, common)) ||
		    redirects(c, gpu, b, vm, &rr, &cr) <= 0)
			continue;
		list = hwc_arena_printf(c->a, "%s%s%s (%s%s%s)", list, *list ? ", " : "", b,
					rr ? "ReqRedir+" : "", rr && cr ? " " : "", cr ? "CmpltRedir+" : "");
		if (nev < 16)
			ev[nev][0] = b, ev[nev][1] = rr ? "true" : "false", ev[nev++][2] = cr ? "true" : "false";
	}
	if (!nev)
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, gpu, "%s: ACS redirects their peer-to-peer traffic up to the root complex at %s",
					       pair_name(c, p), list);
	for (size_t k = 0; k < nev; k++) {
		const char *base = fv_pci_path(c, ev[k][0]);
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.acs.request_redirect", base), ev[k][1], "false");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.acs.completion_redirect", base), ev[k][2], "false");
	}
	if (fd)
		fd->fix = hwc_fix_subst(c->a, vm ? "In the VM's host: enable ATS on the NIC (`mstconfig -d <NIC> set ATS_ENABLED=1`) and ACS Direct Translated P2P on the switch ports, so translated peer-to-peer goes direct."
						 : "Disable ACS redirect on the switch ports named: `setpci -s <BDF> ECAP_ACS+0x6.w=0000` for each, at every boot (a udev rule or systemd unit), or the BIOS 'PCIe ACS' setting; Linux enables it when an IOMMU translates (boot bare-metal GPU hosts with `iommu=pt` or the IOMMU off).",
					vm ? "<NIC>" : "<BDF>", vm ? nic : ev[0][0]);
}

static void eval_acs(struct hwc_rule_ctx *c)
{
	const json_t *gd = gpu_host(c->facts);
	const char *pf = hwc_profile_host_str(c->prof, "platform");
	bool vm = false;
	const char *why;
	if (pf)
		vm = !strcmp(pf, "vm");
	else
		hwc_q_find_bool(hwc_q_host(c->facts), "cpu.hypervisor", &vm, &why, c->a);
	size_t i;
	const json_t *p;
	json_array_foreach(hwc_q_get(gd, "pairs"), i, p)
		if (pair_ok(p) && near(hwc_q_string(p, "relation")))
			acs_pair(c, p, vm);
}

/* ---- a GPU far from every NIC while others are near ------------------------------------- */

struct gpu_best {
	const char *gpu, *rel;
	size_t near_cards;    /* NIC cards at PIX */
	const json_t *pairs[8];
	size_t n;
};

/* One entry per GPU (pairs hold each GPU's nearest NICs). */
static size_t best_by_gpu(const json_t *facts, const json_t *gd, struct gpu_best *out, size_t max)
{
	size_t n = 0, i;
	const json_t *pe;
	json_array_foreach(hwc_q_get(gd, "peers"), i, pe) {
		if (n < max && hwc_q_string(pe, "kind") && !strcmp(hwc_q_string(pe, "kind"), "gpu") && hwc_q_string(pe, "bdf"))
			out[n++] = (struct gpu_best){.gpu = hwc_q_string(pe, "bdf"), .rel = "unknown"};
	}
	const json_t *p;
	json_array_foreach(hwc_q_get(gd, "pairs"), i, p) {
		for (size_t k = 0; k < n && pair_ok(p); k++) {
			if (strcmp(hwc_q_string(p, "gpu"), out[k].gpu) != 0)
				continue;
			out[k].rel = hwc_q_string(p, "relation");
			if (out[k].n < 8)
				out[k].pairs[out[k].n++] = p;
			/* cards: functions of one device (same bus and device) count once */
			const char *nic = hwc_q_string(p, "nic");
			bool seen = false;
			size_t len = strlen(nic);
			for (size_t q = 0; q + 1 < out[k].n; q++)
				seen |= len > 1 && !strncmp(hwc_q_string(out[k].pairs[q], "nic"), nic, len - 1);
			if (!strcmp(out[k].rel, "PIX") && !seen)
				out[k].near_cards++;
		}
	}
	(void)facts;
	return n;
}

static void eval_far(struct hwc_rule_ctx *c)
{
	const json_t *gd = gpu_host(c->facts);
	struct gpu_best b[64];
	size_t n = gd ? best_by_gpu(c->facts, gd, b, 64) : 0, near_n = 0;
	for (size_t i = 0; i < n; i++)
		near_n += near(b[i].rel);
	for (size_t i = 0; i < n && near_n; i++) {
		if (near(b[i].rel))
			continue;
		if (rel_rank(b[i].rel) > 4) {
			hwc_rule_unknown(c, b[i].gpu, "pci.gpudirect.pairs", "the relation of this GPU to the NICs is unknown (a path or NUMA node not known)", "whether its nearest NIC is on its switch");
			continue;
		}
		struct hwc_finding *fd = hwc_rule_emit(c, b[i].gpu, "GPU %s: its nearest NIC %s is at %s while %zu of %zu GPUs have one at PIX/PXB: its GPUDirect traffic crosses %s",
						       b[i].gpu, b[i].n ? hwc_q_string(b[i].pairs[0], "nic") : "(none)", b[i].rel, near_n, n,
						       !strcmp(b[i].rel, "SYS") ? "the socket interconnect"
						       : !strcmp(b[i].rel, "NODE") ? "the interconnect between host bridges" : "the host bridge");
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "pci.gpudirect.matrix[%s]", b[i].gpu), b[i].rel, "PIX or PXB");
	}
}

static void eval_unbalanced(struct hwc_rule_ctx *c)
{
	const json_t *gd = gpu_host(c->facts);
	struct gpu_best b[64];
	size_t n = gd ? best_by_gpu(c->facts, gd, b, 64) : 0;
	const struct gpu_best *two = NULL;
	for (size_t i = 0; i < n; i++)
		if (b[i].near_cards >= 2)
			two = &b[i];
	for (size_t i = 0; i < n && two; i++) {
		if (b[i].near_cards || rel_rank(b[i].rel) > 4)
			continue;
		struct hwc_finding *fd = hwc_rule_emit(c, b[i].gpu, "GPU %s has no NIC on its switch while GPU %s has %zu (%s ...): a rail NIC is in the wrong slot",
						       b[i].gpu, two->gpu, two->near_cards, hwc_q_string(two->pairs[0], "nic"));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "pci.gpudirect.matrix[%s]", b[i].gpu), b[i].rel, "PIX");
	}
}

/* ---- peer memory --------------------------------------------------------------------------- */

static int ver_major(const char *v, int *minor)
{
	int a = 0, b = 0;
	if (!v || sscanf(v, "%d.%d", &a, &b) < 1)
		return -1;
	if (minor)
		*minor = b;
	return a;
}

static void eval_peermem(struct hwc_rule_ctx *c)
{
	const json_t *gd = gpu_host(c->facts);
	if (!gd || !count_kind(c->facts, gd, "gpu", true))
		return;
	bool a, b;
	if (!need_bool(c, "host", gd, "pci.gpudirect", "peer_memory.nvidia_peermem", &a) ||
	    !need_bool(c, "host", gd, "pci.gpudirect", "peer_memory.nv_peer_mem", &b) || a || b)
		return;
	const char *drv = json_string_value(hwc_q_at(gd, "peer_memory.nvidia_driver_version"));
	const char *kr = json_string_value(hwc_q_at(hwc_q_host(c->facts), "kernel.release"));
	int kmin = 0, kmaj = ver_major(kr, &kmin), dmaj = ver_major(drv, NULL);
	bool dmabuf = (kmaj > 5 || (kmaj == 5 && kmin >= 12)) && dmaj >= 515;
	struct hwc_finding *fd = hwc_rule_emit_sev(c, dmabuf ? HWC_SEV_INFO : c->sev, "host",
		"%zu GPUs and %zu NICs, no peer-memory module loaded (nvidia_peermem, nv_peer_mem)%s",
		count_kind(c->facts, gd, "gpu", true), count_kind(c->facts, gd, "nic", false),
		dmabuf ? ": GPUDirect RDMA depends on dma-buf (kernel and driver allow it; the open GPU kernel modules and NCCL/UCX built for it)"
		       : ": GPUDirect RDMA falls back to copies through host memory");
	hwc_evidence_add(fd, c->a, "pci.gpudirect.peer_memory.nvidia_peermem", "false", "true");
	hwc_evidence_addf(fd, c->a, "host.kernel.release", ">= 5.12 and driver >= 515 for dma-buf", "%s, driver %s",
			  kr ? kr : "unknown", drv ? drv : "unknown");
}

/* ---- IOMMU and ATS against the platform -------------------------------------------------- */

static void ats_nic(struct hwc_rule_ctx *c, const char *nic)
{
	const json_t *ad = hwc_q_adapter_of(c->facts, nic), *v = NULL;
	if (!ad)
		return;
	int r = hwc_fwc_current(c, ad, "ATS_ENABLED", &v);
	if (r <= 0 || hwc_fwc_true(v))
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, nic, "NIC %s in a virtual machine with GPUs: firmware ATS is off, so the IOMMU translates every peer-to-peer access and ACS sends it through the root complex", nic);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.fw_config.ATS_ENABLED", fv_adapter_path(c, hwc_q_string(ad, "bdf"))), "False(0)", "True(1)");
	if (fd)
		fd->fix = hwc_fix_subst(c->a, "`mstconfig -d <NIC> set ATS_ENABLED=1` and a cold reboot (or `mlxfwreset`), with ACS Direct Translated P2P on the host's switch ports.", "<NIC>", nic);
}

static void eval_platform(struct hwc_rule_ctx *c)
{
	const json_t *gd = gpu_host(c->facts);
	if (!gd)
		return;
	const char *pf = platform(c, "host");
	if (!pf)
		return;
	if (!strcmp(pf, "vm")) {
		size_t i;
		const json_t *p;
		json_array_foreach(hwc_q_get(gd, "pairs"), i, p)
			if (pair_ok(p))
				ats_nic(c, hwc_q_string(p, "nic"));
		return;
	}
	const json_t *host = hwc_q_host(c->facts);
	bool present, pt;
	if (!need_bool(c, "host", host, "host", "iommu.present", &present) || !present ||
	    !need_bool(c, "host", host, "host", "iommu.passthrough", &pt) || pt)
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, "host", "bare metal with GPUs and NICs, the IOMMU translates: GPU<->NIC peer-to-peer goes through the IOMMU and the root complex (Linux turns ACS redirect on)");
	hwc_evidence_add(fd, c->a, "host.iommu.passthrough", "false", "true (iommu=pt) or no IOMMU");
	if (fd)
		fd->fix = "Boot with `iommu=pt` (/etc/default/grub, then `update-grub` and reboot), or set the profile's "
			  "host.platform to \"vm\" if this is a virtual machine.";
}

/* ---- a hop slower than the NIC ------------------------------------------------------------ */

/* Gb/s of the link a route element sees; the GPU's own link (and the port right above it) at
 * what both ends can do, since GPUs train down to 2.5 GT/s when idle. */
static double hop_gbps(const json_t *facts, const char *bdf, bool at_cap)
{
	const json_t *dev = hwc_q_pci_dev(facts, bdf);
	double s = hwc_q_pci_link_num(dev, at_cap ? "cap_speed_gts" : "speed_gts");
	double w = hwc_q_pci_link_num(dev, at_cap ? "cap_width" : "width");
	return s > 0 && w > 0 ? hwc_pci_link_gbps(s, (int64_t)w) : 0;
}

static void eval_slow_hop(struct hwc_rule_ctx *c)
{
	const json_t *gd = gpu_host(c->facts);
	size_t i;
	const json_t *p;
	json_array_foreach(hwc_q_get(gd, "pairs"), i, p) {
		if (!pair_ok(p))
			continue;
		const char *gpu = hwc_q_string(p, "gpu"), *nic = hwc_q_string(p, "nic"), *common = hwc_q_string(p, "common");
		double nic_g = hop_gbps(c->facts, nic, false), gpu_g = hop_gbps(c->facts, gpu, true);
		if (gpu_g > 0 && gpu_g < nic_g)
			nic_g = gpu_g; /* the GPU's own link bounds the pair: no hop can be blamed below it */
		if (nic_g <= 0) {
			hwc_rule_unknown(c, gpu, hwc_arena_printf(c->a, "%s.link", fv_pci_path(c, nic)), "the NIC's link is unknown", "whether a hop of the route is slower than the NIC");
			continue;
		}
		const json_t *route = hwc_q_get(p, "route");
		for (size_t k = 0; k < json_array_size(route); k++) {
			const char *b = json_string_value(json_array_get(route, k));
			if (!b || (common && !strcmp(b, common)) || !strcmp(b, nic))
				continue;
			const char *up = hwc_q_pci_upstream(hwc_q_pci_dev(c->facts, gpu));
			if (!strcmp(b, gpu) || (up && !strcmp(b, up)))
				continue; /* the GPU's own link: its speed is the GPU's, judged above */
			double g = hop_gbps(c->facts, b, false);
			if (g <= 0 || g >= nic_g)
				continue;
			struct hwc_finding *fd = hwc_rule_emit(c, gpu, "%s: hop %s carries %s Gb/s, less than the %s Gb/s the pair's ends can move",
							       pair_name(c, p), b, fv_fmt_num(c->a, g), fv_fmt_num(c->a, nic_g));
			hwc_evidence_addf(fd, c->a, hwc_arena_printf(c->a, "%s.link", fv_pci_path(c, b)), hwc_arena_printf(c->a, ">= %s Gb/s", fv_fmt_num(c->a, nic_g)), "%s Gb/s", fv_fmt_num(c->a, g));
			break;
		}
	}
}

const struct hwc_rule hwc_rules_gpudirect[] = {
	{"GPUDIRECT_ACS_REDIRECT", HWC_SEV_WARN, "pci", "ACS redirects GPU<->NIC peer-to-peer through the root complex",
	 "A GPU and its NIC under one PCIe switch exchange GPUDirect RDMA traffic inside the switch; with ACS Request or "
	 "Completion Redirect on a port of that route every request goes up to the root complex and back, costing "
	 "bandwidth and latency (or failing). Linux turns it on when an IOMMU translates. In a virtual machine it is "
	 "expected, and ACS Direct Translated P2P with ATS lets translated traffic go direct (the profile's host.platform "
	 "or the hypervisor flag says which).",
	 "Disable ACS redirect on the switch ports the finding names: `setpci -s <BDF> ECAP_ACS+0x6.w=0000` at every boot, "
	 "or the BIOS 'PCIe ACS' setting; boot bare-metal GPU hosts with `iommu=pt`.",
	 eval_acs},
	{"GPUDIRECT_PAIR_FAR", HWC_SEV_WARN, "pci", "A GPU's nearest NIC is beyond its switch while other GPUs have one on theirs",
	 "The host is built in rails (each GPU with a NIC under its PCIe switch: PIX/PXB in nvidia-smi topo -m); a GPU "
	 "whose nearest NIC is across the host bridge (PHB), another root complex (NODE) or the other socket (SYS) sends "
	 "its GPUDirect traffic through the CPU.",
	 "Move the NIC into the slot on the GPU's switch (the board manual's rail map), or pin the job's NIC for that GPU "
	 "(NCCL_IB_HCA / UCX_NET_DEVICES) knowing the cost.",
	 eval_far},
	{"GPUDIRECT_RAILS_UNBALANCED", HWC_SEV_WARN, "pci", "A GPU has no NIC on its switch while another has two",
	 "Rails pair each GPU with NICs on its own switch; one switch with two NIC cards and another with none is a card "
	 "in the wrong slot: two GPUs share one rail's bandwidth and one crosses the host.",
	 "Move one NIC card from the switch with two to the switch of the GPU without one.",
	 eval_unbalanced},
	{"GPUDIRECT_PEERMEM_MISSING", HWC_SEV_WARN, "pci", "GPUs and NICs without peer memory",
	 "GPUDirect RDMA needs the NIC to register GPU memory: the nvidia_peermem module (nv_peer_mem before it), or "
	 "dma-buf (Linux >= 5.12, NVIDIA driver >= 515 with the open kernel modules). Without either, NCCL and UCX copy "
	 "through host memory.",
	 "`modprobe nvidia_peermem` and add it to /etc/modules-load.d/; or use dma-buf (open GPU kernel modules, NCCL >= 2.19).",
	 eval_peermem},
	{"GPUDIRECT_PLATFORM_SETTINGS", HWC_SEV_WARN, "pci", "IOMMU or ATS settings do not suit GPUDirect on this platform",
	 "Bare metal: with the IOMMU translating, GPU<->NIC peer-to-peer goes through it and ACS redirect; NVIDIA asks for "
	 "IOMMU passthrough or off. Virtual machine: peer-to-peer through the virtual IOMMU needs ATS on the NIC "
	 "(firmware ATS_ENABLED) so that translated requests go direct. The profile's host.platform (\"bare_metal\" or "
	 "\"vm\") says which; without it the CPU's hypervisor flag.",
	 "Bare metal: boot with `iommu=pt` (/etc/default/grub, `update-grub`, reboot). VM: `mstconfig -d <NIC> set "
	 "ATS_ENABLED=1` and a cold reboot.",
	 eval_platform},
	{"GPUDIRECT_SLOW_HOP", HWC_SEV_WARN, "pci", "A hop between a GPU and its NIC is slower than the NIC's link",
	 "GPUDirect RDMA moves the NIC's traffic across every link between it and the GPU; a narrower or slower link on "
	 "that route caps it below what the NIC's own link carries (or the GPU's, when that is less). The GPU's own link "
	 "is not judged here: GPUs train down to 2.5 GT/s when idle.",
	 "Reseat or re-cable the hop named (a riser, retimer or MCIO cable), check its BIOS link speed/width settings.",
	 eval_slow_hop},
	HWC_RULES_END,
};
