/* SPDX-License-Identifier: MIT */
/* Host rules: x2APIC, CPU power saving, IOMMU mode, IRQ and NUMA placement of the cards. */
#include <string.h>

#include "rules/rules-int.h"

/* The fix for this host: the BIOS setting, and the kernel options on its command line that keep
 * xAPIC mode (nox2apic; amd_iommu=off and intremap=off take away the interrupt remapping that
 * x2APIC mode needs for APIC IDs above 255). */
static const char *x2apic_fix(struct hwc_rule_ctx *c, const json_t *host)
{
	static const char *const opts[] = {"nox2apic", "amd_iommu=off", "intremap=off", NULL};
	const char *cl = hwc_q_string(hwc_q_get(host, "kernel"), "cmdline");
	const char *rm = "";
	for (int i = 0; cl && opts[i]; i++) {
		size_t k = strlen(opts[i]);
		for (const char *p = strstr(cl, opts[i]); p; p = strstr(p + k, opts[i]))
			if ((p == cl || p[-1] == ' ') && (!p[k] || p[k] == ' ' || p[k] == '\n')) {
				rm = hwc_arena_printf(c->a, "%s%s`%s`", rm, *rm ? " and " : "", opts[i]);
				break;
			}
	}
	const char *bios = "Enable x2APIC in the BIOS (AMD: 'Local APIC Mode' = x2APIC; Intel: 'X2APIC' + "
			   "VT-d interrupt remapping)";
	if (!*rm)
		return hwc_arena_printf(c->a, "%s; the kernel command line holds no option that turns it off.", bios);
	return hwc_arena_printf(c->a, "%s and remove %s from the kernel command line (/etc/default/grub, "
				"then `update-grub` and reboot).", bios, rm);
}

static void eval_x2apic(struct hwc_rule_ctx *c)
{
	const json_t *host = hwc_q_host(c->facts);
	bool sup, en;
	const char *why;
	if (!hwc_q_find_bool(host, "x2apic.supported", &sup, &why, c->a) &&
	    !hwc_q_find_bool(host, "cpu.flags_x2apic", &sup, &why, c->a)) {
		hwc_rule_unknown(c, "host", "host.x2apic.supported", why, NULL);
		return;
	}
	if (!sup)
		return;
	if (!need_bool(c, "host", host, "host", "x2apic.enabled", &en) || en)
		return;
	const json_t *xa = hwc_q_get(host, "x2apic");
	const char *src = hwc_q_string(xa, "source");
	const char *ssrc = hwc_q_string(xa, "supported_source");
	const char *model = hwc_q_string(hwc_q_get(host, "cpu"), "model_name");
	bool opt_out = json_is_true(hwc_q_get(xa, "dmar_x2apic_opt_out"));
	struct hwc_finding *fd = hwc_rule_emit(c, "host", "the CPU supports x2APIC%s%s%s but the kernel runs in xAPIC mode%s%s%s%s: interrupts are limited to 255 APIC IDs and delivered less efficiently",
					       ssrc && !strcmp(ssrc, "cpu_model") && model ? " (" : "",
					       ssrc && !strcmp(ssrc, "cpu_model") && model ? model : "",
					       ssrc && !strcmp(ssrc, "cpu_model") && model ? ": every AMD EPYC and Intel Xeon Scalable does)" : "",
					       src ? " (per " : "", src ? src : "", src ? ")" : "",
					       opt_out ? "; the firmware's DMAR table opts out of x2APIC" : "");
	hwc_evidence_add(fd, c->a, "host.x2apic.enabled", "false", "true");
	hwc_evidence_add(fd, c->a, "host.x2apic.supported", "true", NULL);
	if (ssrc)
		hwc_evidence_add(fd, c->a, "host.x2apic.supported_source", ssrc, NULL);
	if (fd)
		fd->fix = x2apic_fix(c, host);
	const char *evl = hwc_q_string(xa, "evidence");
	if (evl)
		hwc_evidence_add(fd, c->a, "host.x2apic.evidence", evl, NULL);
	if (opt_out)
		hwc_evidence_add(fd, c->a, "host.x2apic.dmar_x2apic_opt_out", "true", "false");
}

static bool pstate_epp_driver(const char *d)
{
	return d && (!strcmp(d, "intel_pstate") || !strncmp(d, "amd-pstate", 10));
}

static void eval_powersave(struct hwc_rule_ctx *c)
{
	const json_t *host = hwc_q_host(c->facts);
	const json_t *pw = hwc_q_get(host, "power");
	const char *gov, *drv = hwc_q_string(pw, "cpufreq_driver");
	const char *epp = hwc_q_string(pw, "energy_perf_preference");
	const char *why;
	if (!hwc_q_find_str(host, "power.governor", &gov, &why, c->a)) {
		/* no cpufreq at all (VMs, a BIOS that keeps P-states to itself): the OS does not scale
		 * frequency, but the firmware may, in a power-saving profile this host cannot see */
		if (!strncmp(why, "absent", 6))
			why = "no cpufreq: the firmware or a hypervisor sets the frequency; check the BIOS power profile";
		hwc_rule_unknown(c, "host", "host.power.governor", why, NULL);
		return;
	}
	bool gov_bad = strcmp(gov, "performance") != 0;
	bool epp_bad = epp && strcmp(epp, "performance") != 0;
	/* intel_pstate/amd-pstate "powersave" is the active-mode default and fine with EPP performance */
	if (gov_bad && pstate_epp_driver(drv) && epp && !epp_bad)
		gov_bad = false;
	if (!gov_bad && !epp_bad)
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, "host", "CPU frequency scaling favours power: governor %s%s%s", gov,
					       epp ? ", energy preference " : "", epp ? epp : "");
	if (gov_bad)
		hwc_evidence_add(fd, c->a, "host.power.governor", gov, "performance");
	if (epp_bad)
		hwc_evidence_add(fd, c->a, "host.power.energy_perf_preference", epp, "performance");
}

static void eval_cstates(struct hwc_rule_ctx *c)
{
	const json_t *host = hwc_q_host(c->facts);
	const json_t *cs;
	const char *why;
	double max = hwc_profile_threshold(c->prof, HWC_T_CSTATE_MAX_LATENCY_US);
	if (!hwc_q_find(host, "power.cstates", &cs, &why, c->a)) {
		if (!strncmp(why, "absent", 6))
			return; /* no cpuidle: nothing deep to enter */
		hwc_rule_unknown(c, "host", "host.power.cstates", why, NULL);
		return;
	}
	size_t i;
	const json_t *s;
	struct hwc_finding *fd = NULL;
	json_array_foreach(cs, i, s) {
		const json_t *lat = hwc_q_get(s, "latency_us");
		const char *name = hwc_q_string(s, "name");
		if (!json_is_number(lat) || json_number_value(lat) <= max || json_is_true(hwc_q_get(s, "disabled")))
			continue;
		if (!fd)
			fd = hwc_rule_emit(c, "host", "deep C-states are enabled: waking a core from them adds up to %s us to interrupt handling",
					   fv_fmt_num(c->a, json_number_value(lat)));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "host.power.cstates[%s].disabled", name ? name : "?"),
				 hwc_arena_printf(c->a, "false (latency %s us)", fv_fmt_num(c->a, json_number_value(lat))),
				 hwc_arena_printf(c->a, "true for latency > %s us", fv_fmt_num(c->a, max)));
	}
}

static void eval_iommu(struct hwc_rule_ctx *c)
{
	const char *want = hwc_profile_host_str(c->prof, "iommu");
	if (!want || !strcmp(want, "any"))
		return;
	const json_t *host = hwc_q_host(c->facts);
	bool present, pt, want_pt = !strcmp(want, "passthrough");
	if (!need_bool(c, "host", host, "host", "iommu.present", &present))
		return;
	if (!present) {
		if (want_pt)
			return; /* no IOMMU translates nothing: as fast as passthrough */
		struct hwc_finding *fd = hwc_rule_emit(c, "host", "no IOMMU is active; the profile wants translated mode (DMA isolation)");
		hwc_evidence_add(fd, c->a, "host.iommu.present", "false", "true");
		if (fd)
			fd->fix = "Enable VT-d / AMD-Vi (IOMMU) in the BIOS and boot with `intel_iommu=on` (Intel) or "
				  "without `amd_iommu=off` (AMD), and without `iommu=pt`; or change the profile's host.iommu.";
		return;
	}
	if (!need_bool(c, "host", host, "host", "iommu.passthrough", &pt))
		return;
	if (pt == want_pt)
		return;
	struct hwc_finding *fd = hwc_rule_emit(c, "host", "the IOMMU runs in %s mode; the profile wants %s", pt ? "passthrough" : "translated", want);
	hwc_evidence_add(fd, c->a, "host.iommu.passthrough", pt ? "true" : "false", want_pt ? "true" : "false");
	/* the fix points from the mode found to the mode wanted */
	if (fd && want_pt)
		fd->fix = "Boot with `iommu=pt` (/etc/default/grub, then `update-grub` and reboot); or change "
			  "the profile's host.iommu.";
	else if (fd)
		fd->fix = "Remove `iommu=pt` (and `iommu.passthrough=1`) from the kernel command line and boot "
			  "with `iommu.passthrough=0` (/etc/default/grub, then `update-grub` and reboot); or change "
			  "the profile's host.iommu.";
}

static void eval_irq_far(struct hwc_rule_ctx *c)
{
	size_t i;
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const json_t *nds[32];
		size_t n = hwc_q_adapter_netdevs(c->facts, ad, nds, 32);
		for (size_t k = 0; k < n; k++) {
			const char *name = hwc_q_string(nds[k], "name");
			const char *base = fv_netdev_path(c, name);
			double out, vec;
			const json_t *nn = hwc_q_get(hwc_q_irq_locality(nds[k]), "numa_node");
			if (json_is_integer(nn) && json_integer_value(nn) < 0)
				continue; /* no node to be far from: HOST_NUMA_NODE_MISSING speaks */
			if (!need_num(c, name, nds[k], base, "irq_locality.outside_local", &out) || out <= 0)
				continue;
			const json_t *il = hwc_q_irq_locality(nds[k]);
			vec = json_is_number(hwc_q_get(il, "vectors")) ? json_number_value(hwc_q_get(il, "vectors")) : 0;
			const json_t *node = hwc_q_get(il, "numa_node");
			const char *cl = hwc_q_string(il, "local_cpulist");
			const json_t *nps = hwc_q_at(c->facts, "host.numa.nps");
			const char *layout = json_is_integer(nps) && json_integer_value(nps) > 1
						     ? hwc_arena_printf(c->a, "; NPS%lld splits each socket into %lld nodes", (long long)json_integer_value(nps), (long long)json_integer_value(nps))
						     : "";
			struct hwc_finding *fd = hwc_rule_emit(c, name, "%s of %s interrupt vectors are served by CPUs outside the card's NUMA node %s (local CPUs %s)%s",
							       fv_fmt_num(c->a, out), vec > 0 ? fv_fmt_num(c->a, vec) : "?",
							       json_is_integer(node) ? fv_fmt_num(c->a, (double)json_integer_value(node)) : "?", cl ? cl : "?", layout);
			hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.irq_locality.outside_local", base), fv_fmt_num(c->a, out), "0");
		}
	}
}

static void eval_numa_missing(struct hwc_rule_ctx *c)
{
	const json_t *nodes = hwc_q_at(c->facts, "host.numa.nodes");
	size_t i;
	const json_t *ad;
	json_array_foreach(hwc_q_adapters(c->facts), i, ad) {
		const char *bdf = hwc_q_string(ad, "bdf");
		const json_t *dev = hwc_q_pci_dev(c->facts, bdf);
		double node;
		if (!need_num(c, bdf, dev, fv_pci_path(c, bdf), "numa_node", &node) || node >= 0)
			continue;
		if (!json_is_array(nodes)) {
			const json_t *v;
			const char *why;
			hwc_q_find(c->facts, "host.numa.nodes", &v, &why, c->a);
			hwc_rule_unknown(c, bdf, "host.numa.nodes", why, "whether the host has more than one NUMA node");
			continue;
		}
		if (json_array_size(nodes) < 2)
			continue; /* one node: -1 costs nothing */
		struct hwc_finding *fd = hwc_rule_emit(c, bdf, "the firmware gave the card no NUMA node on a %zu-node host: the driver cannot place its memory and interrupts near it",
						       json_array_size(nodes));
		hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.numa_node", fv_pci_path(c, bdf)), "-1", ">= 0");
	}
}

/* The round trip one TCP stream must fill at the port's rate, in seconds (the profile's
 * tcp_rtt_ms: a loaded datacenter fabric, or a metro link). Linux lets a stream's window grow to
 * about half its buffer (the rest is the buffer's overhead: tcp_adv_win_scale = 1, or the
 * measured scaling_ratio since 6.6), so a buffer of 2 x rate x RTT keeps the port busy. */
static double tcp_rtt_s(const struct hwc_rule_ctx *c)
{
	return hwc_profile_threshold(c->prof, HWC_T_TCP_RTT_MS) / 1000;
}

/* The fastest card netdev with a link: its name and speed; 0 when none has one. */
static double fastest_port(const json_t *facts, const char **name)
{
	double best = 0;
	size_t i;
	const json_t *nd;
	json_array_foreach(hwc_q_netdevs(facts), i, nd) {
		const json_t *sp = hwc_q_get(nd, "speed_mbps");
		if (json_is_true(hwc_q_get(nd, "carrier")) && json_is_number(sp) &&
		    json_number_value(sp) > best) {
			best = json_number_value(sp);
			*name = hwc_q_string(nd, "name");
		}
	}
	return best;
}

/* The buffer to set: 2 x rate x RTT rounded up to a power of two (32 MiB for 100 Gb/s). */
static double tcp_buffer_for(double mbps, double rtt_s)
{
	double need = 2 * mbps * 1e6 / 8 * rtt_s, v = 1 << 20;
	while (v < need)
		v *= 2;
	return v;
}

static const char *tcp_buffers_fix(struct hwc_rule_ctx *c, const json_t *net, double want)
{
	const char *w = fv_fmt_num(c->a, want), *set = "";
	static const char *const core[] = {"rmem_max", "wmem_max"};
	for (int i = 0; i < 2; i++) {
		const json_t *v = hwc_q_get(net, hwc_arena_printf(c->a, "%s_bytes", core[i]));
		if (!json_is_number(v) || json_number_value(v) < want)
			set = hwc_arena_printf(c->a, "%snet.core.%s=%s ", set, core[i], w);
	}
	const json_t *rmin = hwc_q_get(net, "tcp_rmem_min_bytes"), *rdef = hwc_q_get(net, "tcp_rmem_default_bytes");
	const json_t *wmin = hwc_q_get(net, "tcp_wmem_min_bytes"), *wdef = hwc_q_get(net, "tcp_wmem_default_bytes");
	return hwc_arena_printf(c->a, "`sysctl -w %snet.ipv4.tcp_rmem='%s %s %s' net.ipv4.tcp_wmem='%s %s %s'`, and the same "
				"lines in /etc/sysctl.d/90-tcp-buffers.conf to keep them after a reboot; or, where TCP carries no "
				"bulk data, the profile's host.role.",
				set, json_is_number(rmin) ? fv_fmt_num(c->a, json_number_value(rmin)) : "4096",
				json_is_number(rdef) ? fv_fmt_num(c->a, json_number_value(rdef)) : "131072", w,
				json_is_number(wmin) ? fv_fmt_num(c->a, json_number_value(wmin)) : "4096",
				json_is_number(wdef) ? fv_fmt_num(c->a, json_number_value(wdef)) : "16384", w);
}

/* Judged where the profile's role moves bulk data over TCP (NFS, SMB, iSCSI, NVMe/TCP, Ceph
 * clients): GPU/NCCL compute moves it over RDMA, and without a role hwcheck cannot tell. */
static void eval_tcp_buffers(struct hwc_rule_ctx *c)
{
	const char *role = hwc_profile_host_str(c->prof, "role"), *port = NULL;
	if (!role || (strcmp(role, "storage_client") != 0 && strcmp(role, "smb_client") != 0))
		return;
	double mbps = fastest_port(c->facts, &port), rmax, wmax;
	if (mbps <= 0)
		return; /* no port with a link carries a stream */
	const json_t *host = hwc_q_host(c->facts);
	bool r_ok = need_num(c, "host", host, "host", "net.tcp_rmem_max_bytes", &rmax);
	if (!need_num(c, "host", host, "host", "net.tcp_wmem_max_bytes", &wmax) || !r_ok)
		return;
	double rtt = tcp_rtt_s(c), need = 2 * mbps * 1e6 / 8 * rtt;
	if (rmax >= need && wmax >= need)
		return;
	double gbps = (rmax < wmax ? rmax : wmax) / 2 * 8 / rtt / 1e9;
	const char *ms = fv_fmt_num(c->a, rtt * 1000);
	struct hwc_finding *fd = hwc_rule_emit(
		c, "host", "one TCP stream can carry at most %s Gb/s at a %s ms round trip: its window is about half of the kernel's largest TCP buffer (receive %s, send %s bytes), and %s runs at %s Gb/s",
		fv_fmt_num(c->a, gbps), ms, fv_fmt_num(c->a, rmax), fv_fmt_num(c->a, wmax), port ? port : "?",
		fv_fmt_num(c->a, mbps / 1000));
	const char *want = hwc_arena_printf(c->a, ">= %s (2 x rate x %s ms)", fv_fmt_num(c->a, need), ms);
	if (rmax < need)
		hwc_evidence_add(fd, c->a, "host.net.tcp_rmem_max_bytes", fv_fmt_num(c->a, rmax), want);
	if (wmax < need)
		hwc_evidence_add(fd, c->a, "host.net.tcp_wmem_max_bytes", fv_fmt_num(c->a, wmax), want);
	hwc_evidence_add(fd, c->a, hwc_arena_printf(c->a, "%s.speed_mbps", fv_netdev_path(c, port)),
			 fv_fmt_num(c->a, mbps), NULL);
	if (fd)
		fd->fix = tcp_buffers_fix(c, hwc_q_get(host, "net"), tcp_buffer_for(mbps, rtt));
}

const struct hwc_rule hwc_rules_host[] = {
	{"HOST_X2APIC_OFF", HWC_SEV_WARN, "host", "x2APIC supported but not enabled",
	 "In xAPIC mode interrupts can target only 255 APIC IDs and each delivery costs an MMIO write; "
	 "with many cores and many card queues, interrupt affinity fails or concentrates on few CPUs. "
	 "Support is decided from the cpuinfo flag, the kernel log, the MADT's x2APIC entries and the "
	 "CPU model (every AMD EPYC and Intel Xeon Scalable), since the kernel hides the flag when it "
	 "does not use the mode; the mode from the kernel log, APIC ids, `nox2apic` and the flag, and, "
	 "readable without root, interrupts that no remapping chip delivers (proc/interrupts) on bare "
	 "metal, where the kernel runs x2APIC mode only with interrupt remapping "
	 "(try_to_enable_x2apic(), arch/x86/kernel/apic/apic.c). The cpuinfo flag alone never says "
	 "the mode is on: the kernel keeps it when it falls back to xAPIC mode.",
	 "Enable x2APIC in the BIOS (AMD: 'Local APIC Mode' = x2APIC; Intel: 'X2APIC' + VT-d interrupt "
	 "remapping) and remove `nox2apic`, `amd_iommu=off` or `intremap=off` from the kernel command "
	 "line where present (the finding names those it found).",
	 eval_x2apic},
	{"HOST_CPU_POWERSAVE", HWC_SEV_WARN, "host", "CPU frequency scaling favours power saving",
	 "A powersave governor or energy preference ramps the cores that serve the card slowly, "
	 "costing throughput at line rate and latency for every packet. Unknown without cpufreq: the "
	 "firmware then sets the frequency, in a BIOS power profile the host cannot read.",
	 "`cpupower frequency-set -g performance` and, with intel_pstate/amd-pstate, "
	 "`echo performance | tee /sys/devices/system/cpu/cpu*/cpufreq/energy_performance_preference`; "
	 "or the BIOS 'performance' power profile.",
	 eval_powersave},
	{"HOST_DEEP_CSTATES", HWC_SEV_INFO, "host", "Deep CPU C-states enabled",
	 "Cores parked in deep C-states take tens to hundreds of microseconds to wake, adding that to "
	 "interrupt handling; latency-sensitive sites disable them.",
	 "`cpupower idle-set -D <max_latency_us>` (disables the states with a longer exit latency), or boot with "
	 "`processor.max_cstate=1 intel_idle.max_cstate=1`, or the BIOS C-state setting.",
	 eval_cstates},
	{"HOST_IOMMU_TRANSLATED", HWC_SEV_WARN, "host", "IOMMU mode differs from the profile",
	 "In translated mode every DMA of the card goes through IOTLB lookups and map/unmap calls, "
	 "costing throughput on fast NICs; sites that do not need DMA isolation use passthrough. Sites "
	 "that need the isolation (the profile's `translated`) are told when the host runs passthrough "
	 "or no IOMMU at all.",
	 "To passthrough (the profile's `passthrough`): boot with `iommu=pt`; to translated: remove `iommu=pt` "
	 "and boot with `iommu.passthrough=0`; or change the profile's host.iommu. The finding gives the one "
	 "for its direction.",
	 eval_iommu},
	{"HOST_IRQ_FAR_NODE", HWC_SEV_WARN, "host", "Card interrupts served on a far NUMA node",
	 "Interrupt vectors of the card are affined to CPUs outside its NUMA node (common with AMD "
	 "NPS2/NPS4 layouts or irqbalance), so every packet crosses the socket interconnect.",
	 "Pin the vectors to local CPUs: for each vector N listed in /sys/class/net/<netdev>/device/msi_irqs, "
	 "`echo <cpulist> > /proc/irq/N/smp_affinity_list` (or MLNX tools' `set_irq_affinity_cpulist.sh "
	 "<cpulist> <netdev>`); stop irqbalance or give it a policy.",
	 eval_irq_far},
	{"HOST_NUMA_NODE_MISSING", HWC_SEV_WARN, "host", "Card on NUMA node -1",
	 "The firmware's ACPI tables do not say which node the card's root port belongs to; on a "
	 "multi-node host the driver allocates memory and spreads interrupts without locality.",
	 "Update the BIOS; enable 'ACPI SRAT L3 Cache as NUMA' / PXM reporting options; as a stopgap "
	 "write the node of the socket the slot is wired to (the board manual's slot table) to "
	 "/sys/bus/pci/devices/<BDF>/numa_node before the driver loads.",
	 eval_numa_missing},
	{"HOST_TCP_BUFFERS_SMALL", HWC_SEV_WARN, "host", "TCP buffer limits cap one stream below the port's rate",
	 "A TCP stream keeps at most one window of data in flight, and Linux lets that window grow to "
	 "about half the buffer autotuning may give the socket (net.ipv4.tcp_rmem/tcp_wmem's maximum; "
	 "Documentation/networking/ip-sysctl.rst: tcp_adv_win_scale). To keep a port busy the window "
	 "must cover the port's rate times the round trip (the bandwidth-delay product; ESnet's "
	 "fasterdata Linux host tuning sizes the buffers so): the kernel's defaults (6 MiB receive, 4 "
	 "MiB send) cap one stream at 25 and 16 Gb/s at a 1 ms round trip, far below a 100-400 Gb/s "
	 "ConnectX port. Judged against the fastest card netdev with a link, for the profile's round "
	 "trip (thresholds.tcp_rtt_ms, default 1 ms), "
	 "where the profile's host.role is storage_client or smb_client (NFS, SMB, iSCSI, NVMe/TCP and "
	 "Ceph clients move their data over TCP); not for gpu_compute or without a role.",
	 "Raise the maxima to 2 x rate x RTT (32 MiB for 100 Gb/s, 64 MiB for 200, 128 MiB for 400): "
	 "`sysctl -w net.core.rmem_max=N net.core.wmem_max=N net.ipv4.tcp_rmem='4096 131072 N' "
	 "net.ipv4.tcp_wmem='4096 16384 N'` and the same lines in /etc/sysctl.d/ (the finding gives N "
	 "and keeps the host's own first two values).",
	 eval_tcp_buffers},
	HWC_RULES_END,
};
