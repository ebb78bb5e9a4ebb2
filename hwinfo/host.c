/* SPDX-License-Identifier: MIT */
/* Host facts: runs the parts (CPU, NUMA, x2APIC, IOMMU, power, DMI, kernel) and maps them to JSON. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/runner.h"
#include "core/util.h"

/* The kernel log through dmesg(1): Debian sets kernel.dmesg_restrict, so it needs root. */
static void read_dmesg(struct hwc_env *e, struct hwc_arena *a, struct hwc_dmesg_host *dm,
		       struct hwc_fmeta *m, struct hwc_host_facts *h)
{
	static const char *const argv[] = {"dmesg", NULL};
	struct hwc_cmd_result r;
	memset(dm, 0, sizeof(*dm));
	dm->x2apic = dm->intr_remap = -1;
	hwc_run(e, a, argv, 0, &r);
	if (r.m.st != HWC_ST_OK && r.m.st != HWC_ST_TRUNCATED) {
		*m = r.m;
		return;
	}
	h->dmesg_text = r.out ? r.out : "";
	h->dmesg_len = r.out ? r.out_len : 0;
	if (r.m.st == HWC_ST_TRUNCATED) {
		/* cut at the output cap (and killed): what is there is parsed, and whatever it does
		 * not decide carries the runner's "truncated" reason */
		hwc_host_parse_dmesg(r.out ? r.out : "", r.out ? r.out_len : 0, a, dm);
		*m = r.m;
		return;
	}
	if (r.signal || r.exit_code != 0) {
		size_t n = r.err ? strcspn(r.err, "\n") : 0;
		const char *msg = n ? hwc_arena_strndup(a, r.err, n) : "no message";
		bool perm = r.err && (strstr(r.err, "Operation not permitted") ||
				      strstr(r.err, "Permission denied"));
		hwc_fmeta_set(m, perm ? HWC_ST_NEEDS_ROOT : HWC_ST_UNREADABLE, 0,
			      hwc_arena_printf(a, "dmesg exited %d: %s%s", r.exit_code, msg,
					       perm ? " (kernel.dmesg_restrict)" : ""));
		return;
	}
	hwc_host_parse_dmesg(r.out ? r.out : "", r.out ? r.out_len : 0, a, dm);
	hwc_fmeta_set(m, HWC_ST_OK, 0, NULL);
}

/* proc/uptime: "350735.47 234388.90" (seconds since boot, idle seconds). */
void hwc_host_read_uptime(struct hwc_env *e, struct hwc_arena *a, struct hwc_fi64 *out)
{
	struct hwc_fstr s = {0};
	if (hwc_read_str(e, "proc/uptime", a, &s) < 0) {
		out->m = s.m;
		return;
	}
	char *end = NULL;
	double v = strtod(s.v, &end);
	if (end == s.v || v < 0 || v > 1e12)
		HWC_FAIL(*out, HWC_ST_INVALID, 0,
			 hwc_arena_printf(a, "proc/uptime: '%.40s' is not seconds", s.v));
	else
		HWC_SET(*out, (int64_t)v);
}

static void collect_dmi(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_dmi *d)
{
	static const struct {
		const char *file;
		size_t off;
	} f[] = {
		{"sys_vendor", offsetof(struct hwc_host_dmi, sys_vendor)},
		{"product_name", offsetof(struct hwc_host_dmi, product_name)},
		{"board_vendor", offsetof(struct hwc_host_dmi, board_vendor)},
		{"board_name", offsetof(struct hwc_host_dmi, board_name)},
		{"bios_vendor", offsetof(struct hwc_host_dmi, bios_vendor)},
		{"bios_version", offsetof(struct hwc_host_dmi, bios_version)},
		{"bios_date", offsetof(struct hwc_host_dmi, bios_date)},
	};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(f); i++)
		hwc_read_str(e, hwc_arena_printf(a, "sys/class/dmi/id/%s", f[i].file), a,
			     (struct hwc_fstr *)(void *)((char *)d + f[i].off));
}

int hwc_host_collect(struct hwc_env *e, struct hwc_facts *f, const struct hwc_collect_opts *o)
{
	(void)o;
	struct hwc_arena *a = f->arena;
	struct hwc_host_facts *h = hwc_arena_zalloc(a, sizeof(*h));
	if (!h)
		return -ENOMEM;
	hwc_read_str(e, "proc/sys/kernel/hostname", a, &h->hostname);
	/* a capture's needs_root is fixed by capturing again as root, not by this run's user */
	h->read_from = hwc_env_only_input(e) ? "pci-dump" : hwc_env_is_live(e) ? "live" : "capture";
	hwc_read_str(e, "proc/sys/kernel/osrelease", a, &h->kernel.release);
	hwc_read_str(e, "proc/cmdline", a, &h->kernel.cmdline);
	hwc_host_read_bracketed(e, a, "sys/kernel/security/lockdown", &h->kernel.lockdown);

	struct hwc_cpuinfo ci;
	struct hwc_fmeta ci_m = {0};
	const unsigned char *d = NULL;
	size_t len = 0;
	memset(&ci, 0, sizeof(ci));
	if (hwc_read_bytes(e, "proc/cpuinfo", 16u << 20, a, &d, &len, &ci_m) == 0 ||
	    ci_m.st == HWC_ST_TRUNCATED) {
		if (hwc_host_parse_cpuinfo((const char *)d, len, a, &ci) < 0)
			hwc_fmeta_set(&ci_m, HWC_ST_INVALID, 0, "proc/cpuinfo: no \"processor\" line");
		else if (ci_m.st == HWC_ST_TRUNCATED)
			hwc_facts_error(f, "host", "proc/cpuinfo", "over 16 MiB: only the start was read");
	}
	hwc_host_collect_cpu(e, a, h, &ci, &ci_m);

	struct hwc_dmesg_host dm;
	struct hwc_fmeta dm_m = {0};
	read_dmesg(e, a, &dm, &dm_m, h);
	h->dmesg_m = dm_m;
	if (dm_m.st != HWC_ST_OK && dm_m.st != HWC_ST_TRUNCATED)
		h->dmesg_text = NULL;
	hwc_host_read_uptime(e, a, &h->kernel.uptime_s);
	if (dm_m.st != HWC_ST_OK && dm_m.st != HWC_ST_TRUNCATED)
		h->kernel.log_start_s.m = dm_m; /* a cut log (the cap) still has its start */
	else if (dm.log_start_s >= 0)
		HWC_SET(h->kernel.log_start_s, dm.log_start_s);
	else
		HWC_FAIL(h->kernel.log_start_s, HWC_ST_ABSENT, 0,
			 dm.first_line ? hwc_arena_printf(a, "the kernel log's first line carries no time since boot: '%s'", dm.first_line)
				       : "the kernel log is empty");
	hwc_host_collect_x2apic(e, a, h, &ci, &dm, &dm_m);
	hwc_host_collect_iommu(e, a, h, dm_m.st == HWC_ST_OK ? &dm : NULL);
	hwc_host_collect_power(e, a, h);
	collect_dmi(e, a, &h->dmi);
#define PART_COLLECT(m, T, doc_) hwc_host_collect_##m(e, a, &h->m);
	HWC_HOST_PARTS(PART_COLLECT)
#undef PART_COLLECT
	f->host = h;
	return 0;
}

/* ---- JSON: one field table per object (core/json.h) drives writing and reading ------------ */

#define STR(T, m) HWC_JF(struct T, m, HWC_JT_STR)
#define I64(T, m) HWC_JF(struct T, m, HWC_JT_I64)
#define BOOL(T, m) HWC_JF(struct T, m, HWC_JT_BOOL)

static const struct hwc_jfield cpu_f[] = {
	STR(hwc_host_cpu, vendor),	    I64(hwc_host_cpu, family),	   I64(hwc_host_cpu, model),
	I64(hwc_host_cpu, stepping),	    STR(hwc_host_cpu, model_name), I64(hwc_host_cpu, sockets),
	I64(hwc_host_cpu, cores),	    I64(hwc_host_cpu, threads),	   BOOL(hwc_host_cpu, smt),
	STR(hwc_host_cpu, topology_source), BOOL(hwc_host_cpu, flags_x2apic),
	BOOL(hwc_host_cpu, hypervisor),	    I64(hwc_host_cpu, max_apicid),
};
static const struct hwc_jfield node_f[] = {
	HWC_JF(struct hwc_host_numa_node, id, HWC_JT_KEY_I64),
	STR(hwc_host_numa_node, cpulist),
	I64(hwc_host_numa_node, cpus),
	HWC_JLIST_M(struct hwc_host_numa_node, "distances", distances, distances_m, HWC_JT_I64V),
};
static const struct hwc_jtable node_t = HWC_JTABLE("host.numa.nodes[]", node_f, 0);
static const struct hwc_jfield numa_f[] = {
	HWC_JVEC_M(struct hwc_host_numa, "nodes", nodes, nodes_m, struct hwc_host_numa_node, node_t),
	I64(hwc_host_numa, nodes_with_cpus),
	I64(hwc_host_numa, nodes_per_socket),
	I64(hwc_host_numa, nps),
};
static const struct hwc_jfield x2apic_f[] = {
	BOOL(hwc_host_x2apic, supported),
	STR(hwc_host_x2apic, supported_source),
	BOOL(hwc_host_x2apic, enabled),
	STR(hwc_host_x2apic, source),
	STR(hwc_host_x2apic, evidence),
	STR(hwc_host_x2apic, routing),
	BOOL(hwc_host_x2apic, interrupt_remapping),
	STR(hwc_host_x2apic, interrupt_remapping_source),
	I64(hwc_host_x2apic, madt_local_apic),
	I64(hwc_host_x2apic, madt_local_x2apic),
	BOOL(hwc_host_x2apic, dmar_intr_remap),
	BOOL(hwc_host_x2apic, dmar_x2apic_opt_out),
};
static const struct hwc_jfield group_f[] = {
	HWC_JF(struct hwc_host_iommu_group, id, HWC_JT_KEY_I64),
	STR(hwc_host_iommu_group, type),
};
static const struct hwc_jtable group_t = HWC_JTABLE("host.iommu.groups[]", group_f, 0);
static const struct hwc_jfield iommu_f[] = {
	BOOL(hwc_host_iommu, present),
	STR(hwc_host_iommu, default_domain),
	STR(hwc_host_iommu, default_domain_source),
	BOOL(hwc_host_iommu, passthrough),
	HWC_JLIST_M(struct hwc_host_iommu, "units", units, units_m, HWC_JT_STRV),
	HWC_JLIST_M(struct hwc_host_iommu, "cmdline_options", cmdline_options, cmdline_options_m,
		    HWC_JT_STRV),
	HWC_JVEC_M(struct hwc_host_iommu, "groups", groups, groups_m, struct hwc_host_iommu_group,
		   group_t),
};
static const struct hwc_jfield cstate_f[] = {
	STR(hwc_host_cstate, name),
	I64(hwc_host_cstate, latency_us),
	BOOL(hwc_host_cstate, disabled),
};
static const struct hwc_jtable cstate_t = HWC_JTABLE("host.power.cstates[]", cstate_f, 0);
static const struct hwc_jfield power_f[] = {
	STR(hwc_host_power, cpufreq_driver),
	STR(hwc_host_power, governor),
	STR(hwc_host_power, energy_perf_preference),
	STR(hwc_host_power, pstate_status),
	BOOL(hwc_host_power, boost),
	STR(hwc_host_power, cpuidle_driver),
	STR(hwc_host_power, cpuidle_governor),
	STR(hwc_host_power, aspm_policy),
	HWC_JVEC_M(struct hwc_host_power, "cstates", cstates, cstates_m, struct hwc_host_cstate,
		   cstate_t),
};
static const struct hwc_jfield dmi_f[] = {
	STR(hwc_host_dmi, sys_vendor),	 STR(hwc_host_dmi, product_name), STR(hwc_host_dmi, board_vendor),
	STR(hwc_host_dmi, board_name),	 STR(hwc_host_dmi, bios_vendor),  STR(hwc_host_dmi, bios_version),
	STR(hwc_host_dmi, bios_date),
};
static const struct hwc_jfield kernel_f[] = {
	STR(hwc_host_kernel, release),
	STR(hwc_host_kernel, cmdline),
	STR(hwc_host_kernel, lockdown),
	I64(hwc_host_kernel, uptime_s),
	HWC_JFD(struct hwc_host_kernel, log_start_s, HWC_JT_F64,
		"where the kernel log (dmesg) begins, in seconds after boot: 0 when its first record is the "
		"boot's (the kernel's banner 'Linux version', or a record at 0 s), else its first record's "
		"time: the ring buffer wrapped or was cleared, and what the kernel logged before that is "
		"not in it (absent: its first line carries no [seconds] timestamp)"),
};
static const struct hwc_jtable cpu_t = HWC_JTABLE("host.cpu", cpu_f, 0);
static const struct hwc_jtable numa_t = HWC_JTABLE("host.numa", numa_f, 0);
static const struct hwc_jtable x2apic_t = HWC_JTABLE("host.x2apic", x2apic_f, 0);
static const struct hwc_jtable iommu_t = HWC_JTABLE("host.iommu", iommu_f, 0);
static const struct hwc_jtable power_t = HWC_JTABLE("host.power", power_f, 0);
static const struct hwc_jtable dmi_t = HWC_JTABLE("host.dmi", dmi_f, 0);
static const struct hwc_jtable kernel_t = HWC_JTABLE("host.kernel", kernel_f, 0);

#define SUB(m) HWC_JSUB(struct hwc_host_facts, #m, m, HWC_JT_OBJ, m##_t)
static const struct hwc_jfield host_f[] = {
	SUB(cpu), SUB(numa), SUB(x2apic), SUB(iommu), SUB(power), SUB(dmi), SUB(kernel),
#define PART_F(m, T, doc_)                                                                         \
	HWC_JSUBD(struct hwc_host_facts, #m, m, HWC_JT_OBJ, hwc_host_##m##_table, doc_),
	HWC_HOST_PARTS(PART_F)
#undef PART_F
	STR(hwc_host_facts, hostname),
	HWC_JFD(struct hwc_host_facts, read_from, HWC_JT_PSTR,
		"where the facts were read: live (this machine, root /), capture (a captured or "
		"hand-built root given with --root, its tools replayed from hwcheck/commands) or "
		"pci-dump (an lspci dump given with --pci-dump and no --root: nothing else was read); "
		"left out by hwcheck before this key"),
};
const struct hwc_jtable hwc_host_table = HWC_JTABLE("host", host_f, 0);

json_t *hwc_host_to_json(const struct hwc_facts *f)
{
	return f->host ? hwc_json_from_table(f->host, &hwc_host_table) : NULL;
}

int hwc_host_from_json(const json_t *j, struct hwc_facts *f)
{
	struct hwc_host_facts *h = hwc_arena_zalloc(f->arena, sizeof(*h));
	if (!h)
		return -ENOMEM;
	f->host = h;
	int rc = hwc_json_get_table(j, f->arena, h, &hwc_host_table);
	return rc == -ENOMEM ? rc : rc ? -EINVAL : 0;
}
