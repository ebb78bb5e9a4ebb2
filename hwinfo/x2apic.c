/* SPDX-License-Identifier: MIT */
/* x2APIC mode and interrupt remapping: the kernel log first, then what the unprivileged can see. */
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- the kernel log ----------------------------------------------------------------------- */

/* Text after needle up to the end of the line, or NULL. */
static const char *after(const char *l, size_t n, const char *needle, size_t *rest)
{
	size_t k = strlen(needle);
	for (size_t i = 0; k <= n && i + k <= n; i++)
		if (l[i] == needle[0] && memcmp(l + i, needle, k) == 0) {
			*rest = n - i - k;
			return l + i + k;
		}
	return NULL;
}

/* The first word of r (rn bytes), copied into a. */
static const char *first_word(const char *r, size_t rn, struct hwc_arena *a)
{
	size_t w = 0;
	while (w < rn && r[w] != ' ')
		w++;
	return hwc_arena_strndup(a, r, w);
}

static bool has(const char *l, size_t n, const char *needle)
{
	size_t rest;
	return after(l, n, needle, &rest) != NULL;
}

/* The line without "<6>" and "[    0.000000] " prefixes, and without a trailing '\r'. */
static const char *strip_prefix(const char *l, size_t *n)
{
	if (*n >= 3 && l[0] == '<') {
		size_t i = 1;
		while (i < *n && i < 5 && l[i] >= '0' && l[i] <= '9')
			i++;
		if (i > 1 && i < *n && l[i] == '>') {
			l += i + 1;
			*n -= i + 1;
		}
	}
	if (*n && l[0] == '[') {
		const char *c = memchr(l, ']', *n);
		if (c) {
			*n -= (size_t)(c + 1 - l);
			l = c + 1;
			while (*n && *l == ' ') {
				l++;
				(*n)--;
			}
		}
	}
	while (*n && (l[*n - 1] == '\r' || l[*n - 1] == ' '))
		(*n)--;
	return l;
}

/* A line that says whether the CPU itself can run x2APIC mode (whatever the mode now). */
static void capable(struct hwc_arena *a, const char *l, size_t n, int v, struct hwc_dmesg_host *o)
{
	if (v < 0 || o->x2apic_capable == 1)
		return;
	o->x2apic_capable = v;
	o->capable_line = hwc_arena_strndup(a, l, n);
}

/* The mode of an APIC driver the kernel names in "Switched APIC routing to[:] NAME[.]": 1 x2APIC,
 * 0 xAPIC, -1 a name hwcheck does not map (a driver it does not know, or a garbled line). The
 * names are the drivers' .name as the kernel prints it (pr_info("Switched APIC routing to: %s\n",
 * driver->name) in apic_install_driver(), arch/x86/kernel/apic/init.c since 6.6; before,
 * "Switched APIC routing to %s.\n" in probe_64.c/probe_32.c): "physical x2apic"
 * (x2apic_phys.c) and "cluster x2apic" (x2apic_cluster.c) drive the APIC through its x2APIC
 * MSRs; "flat" and "physical flat" (apic_flat_64.c), "default" (probe_32.c) and "bigsmp"
 * (bigsmp_32.c) through the xAPIC MMIO page. The others ("UV large system", "NumaConnect
 * system", "noop", "Xen PV"...) are not mapped: whether they run x2APIC mode depends on the
 * platform and the kernel version. */
static int routing_mode(const char *r, size_t rn)
{
	static const struct {
		const char *name;
		int x2apic;
	} drivers[] = {{"physical x2apic", 1}, {"cluster x2apic", 1}, {"flat", 0},
		       {"physical flat", 0},   {"default", 0},         {"bigsmp", 0}};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(drivers); i++)
		if (rn == strlen(drivers[i].name) && memcmp(r, drivers[i].name, rn) == 0)
			return drivers[i].x2apic;
	return -1;
}

static void dmesg_line(const char *l, size_t n, struct hwc_arena *a, struct hwc_dmesg_host *o)
{
	size_t rn;
	const char *r;
	/* Strings as arch/x86/kernel/apic/apic.c, x2apic_*.c and drivers/iommu/intel/irq_remapping.c
	 * print them; the 3.10 wording ("Enabled x2apic", "Switched APIC routing to physical
	 * x2apic.") is in the corpus CentOS 7 log. */
	if ((r = after(l, n, "Switched APIC routing to", &rn))) {
		if (rn && *r == ':') {
			r++;
			rn--;
		}
		while (rn && *r == ' ') {
			r++;
			rn--;
		}
		while (rn && r[rn - 1] == '.')
			rn--;
		if (rn) {
			int mode = routing_mode(r, rn);
			o->routing = hwc_arena_strndup(a, r, rn);
			o->routing_line = hwc_arena_strndup(a, l, n);
			o->routing_known = mode >= 0;
			if (mode >= 0) {
				o->x2apic = mode;
				o->x2apic_line = o->routing_line;
			}
			if (mode == 1)
				capable(a, l, n, 1, o);
		}
		return;
	}
	if (has(l, n, "x2apic: enabled by BIOS") || (n == 14 && memcmp(l, "x2apic enabled", 14) == 0) ||
	    (n == 14 && memcmp(l, "Enabled x2apic", 14) == 0)) {
		if (!o->routing_known) { /* a routing line, when understood, is the final word */
			o->x2apic = 1;
			o->x2apic_line = hwc_arena_strndup(a, l, n);
		}
		capable(a, l, n, 1, o);
		return;
	}
	if (has(l, n, "x2apic is disabled because BIOS sets x2apic opt out bit") ||
	    has(l, n, "IRQ remapping doesn't support X2APIC mode") ||
	    has(l, n, "x2apic: not supported by CPU") || has(l, n, "x2apic disabled")) {
		if (!o->routing_known) {
			o->x2apic = 0;
			o->x2apic_line = hwc_arena_strndup(a, l, n);
		}
		/* the CPU can: the firmware or the remapping unit kept it off */
		capable(a, l, n, has(l, n, "not supported by CPU") ? 0 : has(l, n, "x2apic disabled") ? -1 : 1, o);
		return;
	}
	if (has(l, n, "Enabled IRQ remapping in") || has(l, n, "AMD-Vi: Interrupt remapping enabled")) {
		o->intr_remap = 1;
		o->intr_remap_line = hwc_arena_strndup(a, l, n);
		return;
	}
	if (has(l, n, "Failed to enable irq remapping") || has(l, n, "Not enabling interrupt remapping") ||
	    has(l, n, "IRQ remapping disabled")) {
		if (o->intr_remap != 1) {
			o->intr_remap = 0;
			o->intr_remap_line = hwc_arena_strndup(a, l, n);
		}
		return;
	}
	if ((r = after(l, n, "iommu: Default domain type: ", &rn))) {
		o->iommu_default = first_word(r, rn, a);
		return;
	}
	if ((r = after(l, n, "DMA domain TLB invalidation policy: ", &rn)))
		o->iommu_tlb = first_word(r, rn, a);
}

/* Where the log begins, from its first line (raw: its "<level>" and "[seconds]" still on). The
 * kernel's first record is its banner, 'Linux version ...' (start_kernel's linux_banner), at 0 s:
 * a log that begins there, or at 0 s (arm64 prints 'Booting Linux on physical CPU' first), holds
 * the boot; one whose first record is later lost its start (the ring buffer wrapped, or `dmesg -C`
 * cleared it), and is a window from that record on. */
static void log_start(const char *raw, size_t n, struct hwc_arena *a, struct hwc_dmesg_host *o)
{
	size_t rest = n;
	const char *l = strip_prefix(raw, &rest), *t = raw;
	o->first_line = hwc_arena_strndup(a, raw, n > 120 ? 120 : n);
	o->log_start_s = -1;
	if (rest >= 14 && memcmp(l, "Linux version ", 14) == 0) {
		o->log_start_s = 0;
		return;
	}
	if (n >= 3 && *t == '<') { /* dmesg -r's "<6>" */
		const char *gt = memchr(t, '>', n < 6 ? n : 6);
		t = gt ? gt + 1 : t;
	}
	size_t m = n - (size_t)(t - raw);
	const char *c = m && *t == '[' ? memchr(t, ']', m) : NULL;
	char tmp[32];
	size_t k = c ? (size_t)(c - t - 1) : 0;
	if (!k || k >= sizeof(tmp))
		return; /* no "[seconds]" in front: dmesg -T, journalctl's format, printk.time=0 */
	memcpy(tmp, t + 1, k);
	tmp[k] = 0;
	const char *d = tmp + strspn(tmp, " ");
	char *end;
	double v = *d >= '0' && *d <= '9' ? strtod(d, &end) : -1; /* not dmesg -d's "[  +0.000700]" */
	if (v >= 0 && *end == 0 && v < 1e12)
		o->log_start_s = v;
}

int hwc_host_parse_dmesg(const char *buf, size_t len, struct hwc_arena *a, struct hwc_dmesg_host *out)
{
	memset(out, 0, sizeof(*out));
	out->x2apic = out->intr_remap = out->x2apic_capable = -1;
	out->log_start_s = -1;
	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && buf[e] != '\n')
			e++;
		size_t n = e - i;
		if (!out->first_line && n)
			log_start(buf + i, n, a, out);
		const char *l = strip_prefix(buf + i, &n);
		dmesg_line(l, n, a, out);
		i = e + 1;
	}
	return 0;
}

/* ---- ACPI tables -------------------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ACPI 6.5 5.2.12: 36-byte header, local APIC address (4) and flags (4), then {type, length}
 * entries; type 0 Processor Local APIC (8 bytes: uid, apic id, flags), type 1 I/O APIC, type 9
 * Processor Local x2APIC (16 bytes: reserved 2, x2apic id 4, flags 4, uid 4). */
int hwc_host_parse_madt(const unsigned char *buf, size_t len, struct hwc_acpi_madt *out)
{
	memset(out, 0, sizeof(*out));
	if (len < 44 || memcmp(buf, "APIC", 4) != 0)
		return -EINVAL;
	out->length = le32(buf + 4);
	if (out->length < 44)
		return -EINVAL;
	size_t end = out->length < len ? out->length : len;
	for (size_t off = 44; off < end;) {
		if (end - off < 2)
			return -EBADMSG;
		unsigned type = buf[off], el = buf[off + 1];
		if (el < 2 || el > end - off)
			return -EBADMSG;
		const unsigned char *p = buf + off;
		out->entries++;
		if (type == 0 && el >= 8) {
			out->lapic++;
			if (le32(p + 4) & 1)
				out->lapic_enabled++;
			if (p[3] > out->max_apic_id)
				out->max_apic_id = p[3];
		} else if (type == 1) {
			out->ioapic++;
		} else if (type == 9 && el >= 16) {
			out->x2apic++;
			if (le32(p + 8) & 1)
				out->x2apic_enabled++;
			if (le32(p + 4) > out->max_apic_id)
				out->max_apic_id = le32(p + 4);
		}
		off += el;
	}
	return out->length > len ? -EBADMSG : 0;
}

/* Intel VT-d 3.x 8.1: 36-byte header, host address width (1), flags (1). */
int hwc_host_parse_dmar(const unsigned char *buf, size_t len, struct hwc_acpi_dmar *out)
{
	memset(out, 0, sizeof(*out));
	if (len < 38 || memcmp(buf, "DMAR", 4) != 0)
		return -EINVAL;
	out->haw = buf[36] + 1u;
	out->flags = buf[37];
	return 0;
}

/* ---- /proc/interrupts --------------------------------------------------------------------- */

int hwc_host_scan_interrupts(const char *buf, size_t len, struct hwc_irq_chips *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && buf[e] != '\n')
			e++;
		const char *l = buf + i;
		size_t n = e - i;
		/* chip names follow the per-CPU counts: "IR-PCI-MSI", "IR-IO-APIC", "PCI-MSIX-0000:..." */
		bool ir = false, plain = false;
		for (size_t k = 0; k < n; k++) {
			if (k && l[k - 1] != ' ')
				continue;
			if (n - k >= 3 && memcmp(l + k, "IR-", 3) == 0)
				ir = true;
			else if ((n - k >= 7 && memcmp(l + k, "IO-APIC", 7) == 0) ||
				 (n - k >= 7 && memcmp(l + k, "PCI-MSI", 7) == 0))
				plain = true;
		}
		out->remapped += ir;
		out->plain += plain && !ir;
		i = e + 1;
	}
	return 0;
}

/* ---- collection --------------------------------------------------------------------------- */

static void madt_dmar(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_x2apic *x)
{
	const unsigned char *d;
	size_t len;
	struct hwc_fmeta m = {0}; /* the read's status, or invalid when the table does not parse */
	struct hwc_acpi_madt madt;
	const char *p = "sys/firmware/acpi/tables/APIC";
	if (hwc_read_bytes(e, p, 1u << 20, a, &d, &len, &m) == 0 &&
	    hwc_host_parse_madt(d, len, &madt) < 0)
		hwc_fmeta_set(&m, HWC_ST_INVALID, 0,
			      hwc_arena_printf(a, "%s: not a valid MADT (%zu bytes)", p, len));
	if (m.st != HWC_ST_OK) {
		x->madt_local_apic.m = x->madt_local_x2apic.m = m;
	} else {
		HWC_SET(x->madt_local_apic, (int64_t)madt.lapic);
		HWC_SET(x->madt_local_x2apic, (int64_t)madt.x2apic);
	}
	struct hwc_acpi_dmar dmar;
	p = "sys/firmware/acpi/tables/DMAR";
	if (hwc_read_bytes(e, p, 1u << 20, a, &d, &len, &m) == 0 &&
	    hwc_host_parse_dmar(d, len, &dmar) < 0)
		hwc_fmeta_set(&m, HWC_ST_INVALID, 0,
			      hwc_arena_printf(a, "%s: not a valid DMAR table (%zu bytes)", p, len));
	/* only a root whose ACPI tables are there can tell that this one is missing */
	if (m.st == HWC_ST_ABSENT && hwc_env_is_dir(e, "sys/firmware/acpi/tables") &&
	    x->madt_local_apic.m.st != HWC_ST_ABSENT)
		m.detail = hwc_arena_printf(a, "%s: no DMAR table (not an Intel VT-d platform, "
					    "or VT-d off in the BIOS)", p);
	if (m.st != HWC_ST_OK) {
		x->dmar_intr_remap.m = x->dmar_x2apic_opt_out.m = m;
	} else {
		HWC_SET(x->dmar_intr_remap, (dmar.flags & 1) != 0);
		HWC_SET(x->dmar_x2apic_opt_out, (dmar.flags & 2) != 0);
	}
}

/* Every AMD EPYC and every Intel Xeon Scalable (family 6: Skylake-SP/Cascade/Cooper Lake 0x55,
 * Ice Lake-SP/-D 0x6a/0x6c, Sapphire/Emerald Rapids 0x8f/0xcf, Granite Rapids 0xad/0xae,
 * Sierra/Clearwater Forest 0xaf/0xdd) implements x2APIC (AMD PPR for each EPYC family; Intel
 * SDM vol. 3 ch. 11.12). Their cpuinfo flag disappears when the kernel does not use the mode. */
static bool model_has_x2apic(const struct hwc_cpuinfo *ci)
{
	static const int64_t scalable[] = {0x55, 0x6a, 0x6c, 0x8f, 0xcf, 0xad, 0xae, 0xaf, 0xdd};
	if (!ci->vendor)
		return false;
	if (!strcmp(ci->vendor, "AuthenticAMD"))
		return ci->model_name && strstr(ci->model_name, "AMD EPYC");
	if (strcmp(ci->vendor, "GenuineIntel") || !ci->has_family || ci->family != 6 || !ci->has_model)
		return false;
	for (size_t i = 0; i < HWC_ARRAY_SIZE(scalable); i++)
		if (ci->model == scalable[i])
			return true;
	return false;
}

/* A whole word of the kernel command line. */
static bool cmdline_has(const struct hwc_fstr *cmdline, const char *word)
{
	size_t k = strlen(word);
	for (const char *p = hwc_ok(*cmdline) ? cmdline->v : NULL; p && (p = strstr(p, word)); p += k)
		if ((p == cmdline->v || p[-1] == ' ') && (p[k] == 0 || p[k] == ' ' || p[k] == '\n'))
			return true;
	return false;
}

static void set_supported(struct hwc_host_x2apic *x, bool v, const char *src)
{
	HWC_SET(x->supported, v);
	HWC_SET(x->supported_source, src);
}

/* Whether the CPU can run x2APIC mode, from every source and not only the cpuinfo flag, which the
 * kernel clears when it does not use the mode (nox2apic, firmware left it off). A virtual CPU is
 * judged by its flags alone: the hypervisor decides what it exposes. */
static void decide_supported(struct hwc_host_facts *h, const struct hwc_cpuinfo *ci,
			     const struct hwc_dmesg_host *dm, bool dm_ok)
{
	struct hwc_host_x2apic *x = &h->x2apic;
	const struct hwc_fbool *flag = &h->cpu.flags_x2apic;
	if (hwc_ok(*flag) && flag->v)
		set_supported(x, true, "cpuinfo");
	else if (dm_ok && dm->x2apic_capable >= 0)
		set_supported(x, dm->x2apic_capable == 1, "dmesg");
	else if (hwc_ok(x->madt_local_x2apic) && x->madt_local_x2apic.v > 0)
		set_supported(x, true, "madt");
	else if (!(hwc_ok(h->cpu.hypervisor) && h->cpu.hypervisor.v) && model_has_x2apic(ci))
		set_supported(x, true, "cpu_model");
	else if (hwc_ok(*flag) && cmdline_has(&h->kernel.cmdline, "nox2apic")) {
		const char *why = "no x2apic flag in proc/cpuinfo, which nox2apic on the kernel command "
				  "line hides: the CPU's own support is not known";
		HWC_FAIL(x->supported, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(x->supported_source, HWC_ST_ABSENT, 0, why);
	} else if (hwc_ok(*flag)) {
		set_supported(x, false, "cpuinfo");
	} else {
		x->supported = *flag;
		x->supported_source.m = flag->m;
	}
}

/* enabled, strongest source first: what the kernel said it did; then APIC ids only x2APIC mode
 * can address; then a CPU (as the kernel sees it) without the feature. Silence from a source is
 * never "off"; the cpuinfo flag alone is never "on" (below). */
static void decide_enabled(struct hwc_arena *a, struct hwc_host_facts *h, const struct hwc_cpuinfo *ci,
			   const struct hwc_dmesg_host *dm, const struct hwc_fmeta *dm_m)
{
	struct hwc_host_x2apic *x = &h->x2apic;
	const char *tried;
	if (dm_m->st == HWC_ST_OK && dm->x2apic >= 0) {
		HWC_SET(x->enabled, dm->x2apic == 1);
		HWC_SET(x->source, "dmesg");
		HWC_SET(x->evidence, dm->x2apic_line);
	} else if (ci->has_apicid && ci->max_apicid > 254) {
		HWC_SET(x->enabled, true);
		HWC_SET(x->source, "apicid");
		HWC_SET(x->evidence, hwc_arena_printf(a, "proc/cpuinfo: apicid %lld needs x2APIC mode",
						      (long long)ci->max_apicid));
	} else if (cmdline_has(&h->kernel.cmdline, "nox2apic")) {
		HWC_SET(x->enabled, false);
		HWC_SET(x->source, "cmdline");
		HWC_SET(x->evidence, "proc/cmdline: nox2apic");
	} else if (hwc_ok(h->cpu.flags_x2apic) && !h->cpu.flags_x2apic.v) {
		HWC_SET(x->enabled, false);
		HWC_SET(x->source, "cpuinfo");
		HWC_SET(x->evidence, "proc/cpuinfo: no x2apic flag (the kernel cannot use x2APIC mode)");
	} else {
		enum hwc_status st = dm_m->st == HWC_ST_NEEDS_ROOT ? HWC_ST_NEEDS_ROOT : HWC_ST_ABSENT;
		if (dm_m->st == HWC_ST_OK && dm->routing && !dm->routing_known)
			tried = hwc_arena_printf(a, "the kernel log's APIC routing '%s' is not a driver "
						 "whose mode hwcheck knows (\"%s\")", dm->routing,
						 dm->routing_line);
		else if (dm_m->st == HWC_ST_OK && dm->log_start_s > 0)
			tried = hwc_arena_printf(a, "the kernel log says nothing about x2APIC: it begins %.6g s after boot "
						 "(the ring buffer wrapped or was cleared), so the boot's lines, which say the "
						 "mode, are not in it", dm->log_start_s);
		else if (dm_m->st == HWC_ST_OK)
			tried = dm->log_start_s == 0 ? "the kernel log, which begins with the boot, says nothing about x2APIC (an old kernel)"
						     : "the kernel log says nothing about x2APIC (it may have wrapped: its first line carries "
						       "no timestamp; or an old kernel)";
		else
			tried = hwc_arena_printf(a, "kernel log unavailable (%s%s%s)",
						 hwc_status_name(dm_m->st), dm_m->detail ? ": " : "",
						 dm_m->detail ? dm_m->detail : "");
		/* the kernel keeps the flag when it falls back to xAPIC mode (x2apic_disable() in
		 * arch/x86/kernel/apic/apic.c; only nox2apic clears it): support, not the mode */
		const char *why = hwc_arena_printf(
			a, "%s; %s%s", tried,
			ci->has_apicid ? hwc_arena_printf(a, "APIC ids up to %lld fit xAPIC mode too",
							  (long long)ci->max_apicid)
				       : "no apicid in proc/cpuinfo",
			hwc_ok(h->cpu.flags_x2apic) && h->cpu.flags_x2apic.v
				? "; the x2apic flag in proc/cpuinfo says the CPU supports the mode, not "
				  "that the kernel runs in it"
				: "");
		HWC_FAIL(x->enabled, st, 0, why);
		HWC_FAIL(x->source, st, 0, why);
		HWC_FAIL(x->evidence, st, 0, why);
	}
}

/* interrupt remapping: the kernel log, else the chip names in proc/interrupts (IR-...) */
static void decide_remapping(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_x2apic *x,
			     const struct hwc_dmesg_host *dm, const struct hwc_fmeta *dm_m)
{
	if (dm_m->st == HWC_ST_OK && dm->intr_remap >= 0) {
		HWC_SET(x->interrupt_remapping, dm->intr_remap == 1);
		HWC_SET(x->interrupt_remapping_source, "dmesg");
		return;
	}
	const unsigned char *d;
	size_t len;
	struct hwc_fmeta m = {0};
	struct hwc_irq_chips chips;
	if (hwc_read_bytes(e, "proc/interrupts", 8u << 20, a, &d, &len, &m) < 0 &&
	    m.st != HWC_ST_TRUNCATED) {
		x->interrupt_remapping.m = x->interrupt_remapping_source.m = m;
		return;
	}
	hwc_host_scan_interrupts((const char *)d, len, &chips);
	if (chips.remapped || chips.plain) {
		HWC_SET(x->interrupt_remapping, chips.remapped > 0);
		HWC_SET(x->interrupt_remapping_source, "interrupts");
	} else {
		const char *why = "neither the kernel log nor proc/interrupts (no IO-APIC/PCI-MSI lines) "
				  "tells";
		HWC_FAIL(x->interrupt_remapping, HWC_ST_ABSENT, 0, why);
		HWC_FAIL(x->interrupt_remapping_source, HWC_ST_ABSENT, 0, why);
	}
}

/* Readable without root (proc/interrupts, the cpuinfo flags): on bare metal the kernel runs
 * x2APIC mode only with interrupt remapping in x2APIC mode; without it, it falls back to xAPIC
 * ("x2apic: IRQ remapping doesn't support X2APIC mode", try_to_enable_x2apic() in
 * arch/x86/kernel/apic/apic.c: "Using X2APIC without IR is not architecturally supported on bare
 * metal"); a guest may run it without (the hypervisor's x2apic_available). So interrupts that no
 * IR- chip delivers on a CPU without the hypervisor flag decide "off" where nothing stronger did. */
static void enabled_from_remapping(struct hwc_host_facts *h)
{
	struct hwc_host_x2apic *x = &h->x2apic;
	if (hwc_ok(x->enabled) || !hwc_ok(x->interrupt_remapping) || x->interrupt_remapping.v ||
	    !hwc_ok(x->interrupt_remapping_source) || strcmp(x->interrupt_remapping_source.v, "interrupts") ||
	    !hwc_ok(h->cpu.hypervisor) || h->cpu.hypervisor.v)
		return;
	HWC_SET(x->enabled, false);
	HWC_SET(x->source, "interrupts");
	HWC_SET(x->evidence, "proc/interrupts: no IR- interrupt chip (no interrupt remapping) on bare "
			     "metal, where the kernel runs x2APIC mode only with remapping");
}

void hwc_host_collect_x2apic(struct hwc_env *e, struct hwc_arena *a, struct hwc_host_facts *h,
			     const struct hwc_cpuinfo *ci, const struct hwc_dmesg_host *dm,
			     const struct hwc_fmeta *dm_m)
{
	struct hwc_host_x2apic *x = &h->x2apic;
	madt_dmar(e, a, x);
	decide_supported(h, ci, dm, dm_m->st == HWC_ST_OK);
	decide_enabled(a, h, ci, dm, dm_m);
	if (dm_m->st == HWC_ST_OK && dm->routing)
		HWC_SET(x->routing, dm->routing);
	else if (dm_m->st == HWC_ST_OK)
		HWC_FAIL(x->routing, HWC_ST_ABSENT, 0, "no \"Switched APIC routing\" line in the kernel log");
	else
		x->routing.m = *dm_m;
	decide_remapping(e, a, x, dm, dm_m);
	enabled_from_remapping(h);
}
