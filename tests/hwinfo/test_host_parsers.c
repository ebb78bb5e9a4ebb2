/* SPDX-License-Identifier: MIT */
/* The host parsers on real captures (corpus files and the host-hw-* fixtures) and on edge cases. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwinfo/hwinfo.h"
#include "test.h"

static char *slurp(const char *rel, size_t *len)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", HWC_SOURCE_DIR, rel);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		*len = 0;
		return NULL;
	}
	char *buf = malloc(1u << 22);
	*len = buf ? fread(buf, 1, (1u << 22) - 1, f) : 0;
	if (buf)
		buf[*len] = 0;
	fclose(f);
	return buf;
}

#define NETUTILS "tests/hwinfo/data/netutils/"
#define CORPUS_DMESG "tests/hwinfo/data/dmesg/"

static void test_cpuinfo(struct hwc_arena *a)
{
	size_t len;
	struct hwc_cpuinfo ci;
	char *b = slurp("tests/fixtures/host-hw-2xe2690-x2apic-unknown/root/proc/cpuinfo", &len);
	CHECK(b != NULL);
	CHECK_INT(hwc_host_parse_cpuinfo(b, len, a, &ci), 0);
	CHECK_INT(ci.processors, 16);
	CHECK_STR(ci.vendor, "GenuineIntel");
	CHECK_STR(ci.model_name, "Intel(R) Xeon(R) CPU E5-2690 0 @ 2.90GHz");
	CHECK(ci.has_family && ci.family == 6 && ci.has_model && ci.model == 45);
	CHECK(ci.has_stepping && ci.stepping == 7);
	CHECK(ci.has_flags && ci.flag_x2apic && !ci.flag_hypervisor);
	CHECK(ci.has_topology);
	CHECK_INT(ci.packages, 2);
	CHECK_INT(ci.cores, 16);
	CHECK(ci.has_apicid && ci.max_apicid < 255);
	free(b);

	b = slurp(NETUTILS "1xE3-1271.I217_and_X710.L2_mixed.masterconf/cpuinfo", &len);
	if (b) {
		CHECK_INT(hwc_host_parse_cpuinfo(b, len, a, &ci), 0);
		CHECK_INT(ci.processors, 4);
		CHECK_INT(ci.packages, 1);
		CHECK(ci.flag_x2apic);
		free(b);
	}

	b = slurp("tests/fixtures/host-hw-this-vm/root/proc/cpuinfo", &len);
	CHECK_INT(hwc_host_parse_cpuinfo(b, len, a, &ci), 0);
	CHECK(ci.processors >= 1 && ci.vendor != NULL);
	free(b);

	/* the x2apic flag is a whole word: "x2apicx" or "nox2apic" are not it */
	const char *s = "processor\t: 0\nflags\t\t: fpu x2apicx nox2apic\n";
	CHECK_INT(hwc_host_parse_cpuinfo(s, strlen(s), a, &ci), 0);
	CHECK(ci.has_flags && !ci.flag_x2apic);
	CHECK(!ci.has_topology && ci.vendor == NULL);
	/* an APIC id only x2APIC mode can address (the unprivileged heuristic) */
	s = "processor : 0\napicid : 300\ninitial apicid : 12\nphysical id : 0\ncore id : 0\n";
	CHECK_INT(hwc_host_parse_cpuinfo(s, strlen(s), a, &ci), 0);
	CHECK(ci.has_apicid && ci.max_apicid == 300 && ci.has_topology && ci.cores == 1);
	/* arm64 style: no vendor_id/family, CPU part instead */
	s = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n\nprocessor\t: 1\n";
	CHECK_INT(hwc_host_parse_cpuinfo(s, strlen(s), a, &ci), 0);
	CHECK(ci.processors == 2 && !ci.has_family && !ci.has_flags && !ci.has_apicid);
	CHECK_INT(hwc_host_parse_cpuinfo("", 0, a, &ci), -ENOENT);
	CHECK_INT(hwc_host_parse_cpuinfo("model : x\n", 10, a, &ci), -ENOENT);
	/* bad numbers are not values */
	s = "processor : 0\ncpu family : six\nmodel : 99999999999999999999999\n";
	CHECK_INT(hwc_host_parse_cpuinfo(s, strlen(s), a, &ci), 0);
	CHECK(!ci.has_family && !ci.has_model);
}

static void check_log(struct hwc_arena *a, const char *file, int x2apic, const char *routing, int ir,
		      const char *dom, const char *tlb)
{
	size_t len;
	char *b = slurp(file, &len);
	struct hwc_dmesg_host d;
	CHECK(b != NULL);
	if (!b)
		return;
	CHECK_INT(hwc_host_parse_dmesg(b, len, a, &d), 0);
	CHECK_INT(d.x2apic, x2apic);
	if (routing)
		CHECK_STR(d.routing, routing);
	else
		CHECK(d.routing == NULL);
	CHECK_INT(d.intr_remap, ir);
	if (dom)
		CHECK_STR(d.iommu_default, dom);
	else
		CHECK(d.iommu_default == NULL);
	if (tlb)
		CHECK_STR(d.iommu_tlb, tlb);
	free(b);
}

static void test_dmesg(struct hwc_arena *a)
{
	check_log(a, CORPUS_DMESG "boot_x2apic-IR-cluster_intel-h370m-pro4_k6.8_linux-pci-2024.txt", 1,
		  "cluster x2apic", 1, "Translated", "lazy");
	check_log(a,
		  CORPUS_DMESG "boot_x2apic-enabled-by-BIOS_DMAR-IR-x2apic-mode_dell-pro16-lunarlake_k6."
			       "12_intel-wired-lan-2025.txt",
		  1, "cluster x2apic", 1, "Translated", "strict");
	check_log(a, CORPUS_DMESG "boot_x2apic-old-format_nutanix-ahv-vm_centos7-3.10_linux-pci-2022.txt",
		  1, "physical x2apic", -1, NULL, NULL);
	check_log(a, CORPUS_DMESG "boot_x2apic-physical-no-IR_qemu-vm-on-dgx-h100_k6.12_linux-pci-2024.txt",
		  1, "physical x2apic", -1, "Translated", "lazy");
	check_log(a, "tests/fixtures/host-hw-this-vm/root/hwcheck/commands/dmesg/stdout", 1,
		  "physical x2apic", -1, "Translated", "lazy");
	/* a log of mlx5 lines only says nothing about the APIC */
	check_log(a, CORPUS_DMESG "mlx5-cx5_fw16.35.2000_slot-power-27W_supermicro-x10dri_linux-rdma-2023.txt",
		  -1, NULL, -1, NULL, NULL);

	/* x2APIC refused by the firmware's DMAR opt-out, as Intel laptops print it (kernel
	 * drivers/iommu/intel/irq_remapping.c and arch/x86/kernel/apic/apic.c wording); the final
	 * routing line decides, with or without timestamps */
	struct hwc_dmesg_host d;
	const char *off = "[    0.051184] DMAR-IR: x2apic is disabled because BIOS sets x2apic opt out bit.\n"
			  "[    0.051184] DMAR-IR: Use 'intremap=no_x2apic_optout' to override the BIOS setting.\n"
			  "[    0.052649] DMAR-IR: Enabled IRQ remapping in xapic mode\n"
			  "[    0.052650] x2apic: IRQ remapping doesn't support X2APIC mode\n";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.x2apic, 0);
	CHECK_STR(d.x2apic_line, "x2apic: IRQ remapping doesn't support X2APIC mode");
	CHECK_INT(d.intr_remap, 1);
	CHECK_STR(d.intr_remap_line, "DMAR-IR: Enabled IRQ remapping in xapic mode");
	/* off, yet the CPU can: the firmware opted out (the first line that says so is kept) */
	CHECK_INT(d.x2apic_capable, 1);
	CHECK_STR(d.capable_line, "DMAR-IR: x2apic is disabled because BIOS sets x2apic opt out bit.");
	off = "x2apic: not supported by CPU\n";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.x2apic, 0);
	CHECK_INT(d.x2apic_capable, 0);
	off = "<6>Switched APIC routing to physical flat.\r\nx2apic enabled\n";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.x2apic, 0); /* the routing line is the final word */
	CHECK_STR(d.routing, "physical flat");
	CHECK_INT(d.x2apic_capable, 1); /* "x2apic enabled" was said: the CPU can */
	/* only the kernel's driver names decide; anything else is said and decides nothing, so a
	 * later line still can */
	off = "APIC: Switched APIC routing to: physical x2apix\n";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.x2apic, -1);
	CHECK_STR(d.routing, "physical x2apix");
	CHECK_STR(d.routing_line, "APIC: Switched APIC routing to: physical x2apix");
	CHECK(!d.routing_known);
	off = "Switched APIC routing to UV large system.\nx2apic enabled\n";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.x2apic, 1);
	CHECK_STR(d.x2apic_line, "x2apic enabled");
	off = "APIC: Switched APIC routing to: flat\n";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.x2apic, 0);
	CHECK(d.routing_known);
	off = "[  +0.000700] x2apic: enabled by BIOS, switching to x2apic ops";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.x2apic, 1);
	CHECK(d.routing == NULL);
	/* "x2apic enabled" must be the whole message, not part of another */
	off = "AMD-Vi: X2APIC enabled\nfoo: x2apic enabled soon\n";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.x2apic, -1);
	off = "AMD-Vi: Interrupt remapping enabled\niommu: Default domain type: Passthrough (set via "
	      "kernel command line)\n";
	CHECK_INT(hwc_host_parse_dmesg(off, strlen(off), a, &d), 0);
	CHECK_INT(d.intr_remap, 1);
	CHECK_STR(d.iommu_default, "Passthrough");
	CHECK_INT(hwc_host_parse_dmesg("[", 1, a, &d), 0);
	CHECK_INT(hwc_host_parse_dmesg("", 0, a, &d), 0);
	CHECK_INT(d.x2apic, -1);
	CHECK_INT(d.x2apic_capable, -1);
}

/* Where the kernel log begins (host.kernel.log_start_s): 0 when it holds the boot, the first
 * record's seconds when its start is gone, -1 when its first line has no timestamp. */
static double log_start_of(struct hwc_arena *a, const char *file, const char *text)
{
	size_t len = text ? strlen(text) : 0;
	char *b = file ? slurp(file, &len) : NULL;
	struct hwc_dmesg_host d;
	CHECK(!file || b != NULL);
	CHECK_INT(hwc_host_parse_dmesg(b ? b : text ? text : "", b || text ? len : 0, a, &d), 0);
	free(b);
	CHECK(d.log_start_s == -1 || d.first_line != NULL);
	return d.log_start_s;
}

static void test_log_start(struct hwc_arena *a)
{
	/* real full boot logs: the banner first, or (CentOS 7) a first record at 0 s */
	CHECK(log_start_of(a, CORPUS_DMESG "boot_x2apic-IR-cluster_intel-h370m-pro4_k6.8_linux-pci-2024.txt", NULL) == 0);
	CHECK(log_start_of(a, CORPUS_DMESG "boot_x2apic-old-format_nutanix-ahv-vm_centos7-3.10_linux-pci-2022.txt", NULL) == 0);
	/* a real dmesg excerpt as its poster showed it (a Proxmox host, corpus INDEX.md): its first
	 * record at 3852.066855 s, a window from there, not since boot */
	CHECK(fabs(log_start_of(a, CORPUS_DMESG "vfio-cx3pro_hiding-ecap-0x19_genirq-flags-mismatch-irq16_pve_skyao.txt", NULL) -
		   3852.066855) < 1e-9);
	/* journalctl's format (a real capture) and a shell prompt carry no time since boot */
	CHECK(log_start_of(a, CORPUS_DMESG "mlx5-cx5_fw16.35.2000_slot-power-27W_supermicro-x10dri_linux-rdma-2023.txt", NULL) == -1);
	CHECK(log_start_of(a, NULL, "[root@server ~]# dmesg\n[ 5.0] x\n") == -1);
	/* the banner decides whatever its prefix; dmesg -r's level prefix is skipped */
	CHECK(log_start_of(a, NULL, "<5>[    0.000000] Linux version 6.1.0\n") == 0);
	CHECK(log_start_of(a, NULL, "Linux version 6.1.0 (no timestamps)\n[ 9.0] x\n") == 0);
	CHECK(fabs(log_start_of(a, NULL, "<6>[12345.500000] mlx5_core 0000:21:00.0: x\n") - 12345.5) < 1e-9);
	/* broken or other formats: dmesg -d's deltas, dmesg -T's dates, junk, an empty log */
	CHECK(log_start_of(a, NULL, "[  +0.000700] x2apic: enabled by BIOS\n") == -1);
	CHECK(log_start_of(a, NULL, "[Thu Dec  3 05:00:00 2026] mlx5_core\n") == -1);
	CHECK(log_start_of(a, NULL, "[12.5x] a\n") == -1);
	CHECK(log_start_of(a, NULL, "[-3.0] a\n") == -1);
	CHECK(log_start_of(a, NULL, "[nan] a\n") == -1);
	CHECK(log_start_of(a, NULL, "[1e999] a\n") == -1);
	CHECK(log_start_of(a, NULL, "[] a\n") == -1);
	CHECK(log_start_of(a, NULL, "[") == -1);
	CHECK(log_start_of(a, NULL, "") == -1);
	CHECK(log_start_of(a, NULL, "\n\n[ 7.25] after blank lines\n") == 7.25);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

static void test_madt_dmar(void)
{
	size_t len;
	struct hwc_acpi_madt m;
	char *b = slurp("tests/fixtures/host-hw-this-vm/root/sys/firmware/acpi/tables/APIC", &len);
	CHECK(b != NULL);
	if (b) {
		/* this VM: 2 CPUs as type 0 entries, no type 9, one I/O APIC */
		CHECK_INT(hwc_host_parse_madt((unsigned char *)b, len, &m), 0);
		CHECK_INT(m.lapic, 2);
		CHECK_INT(m.lapic_enabled, 2);
		CHECK_INT(m.x2apic, 0);
		CHECK_INT(m.ioapic, 1);
		CHECK_INT(m.length, len);
		/* cut inside an entry */
		CHECK_INT(hwc_host_parse_madt((unsigned char *)b, len - 3, &m), -EBADMSG);
		CHECK(m.lapic <= 2);
		free(b);
	}
	/* a built table: header + 8 + two x2APIC entries (ids 256, 300) + one local APIC */
	unsigned char t[44 + 16 * 2 + 8];
	memset(t, 0, sizeof(t));
	memcpy(t, "APIC", 4);
	put32(t + 4, sizeof(t));
	for (int i = 0; i < 2; i++) {
		unsigned char *e = t + 44 + 16 * i;
		e[0] = 9;
		e[1] = 16;
		put32(e + 4, i ? 300 : 256);
		put32(e + 8, 1);
	}
	t[76] = 0;
	t[77] = 8;
	t[79] = 7;
	CHECK_INT(hwc_host_parse_madt(t, sizeof(t), &m), 0);
	CHECK_INT(m.x2apic, 2);
	CHECK_INT(m.x2apic_enabled, 2);
	CHECK_INT(m.lapic, 1);
	CHECK_INT(m.lapic_enabled, 0);
	CHECK_INT(m.max_apic_id, 300);
	t[45 + 16] = 1; /* an entry length below 2 */
	CHECK_INT(hwc_host_parse_madt(t, sizeof(t), &m), -EBADMSG);
	CHECK_INT(m.x2apic, 1);
	t[45 + 16] = 16;
	put32(t + 4, 400); /* a length past the data */
	CHECK_INT(hwc_host_parse_madt(t, sizeof(t), &m), -EBADMSG);
	CHECK_INT(m.x2apic, 2);
	put32(t + 4, 10); /* shorter than a header */
	CHECK_INT(hwc_host_parse_madt(t, sizeof(t), &m), -EINVAL);
	memcpy(t, "FACP", 4);
	CHECK_INT(hwc_host_parse_madt(t, sizeof(t), &m), -EINVAL);
	CHECK_INT(hwc_host_parse_madt(t, 10, &m), -EINVAL);

	struct hwc_acpi_dmar dm;
	unsigned char d[48] = "DMAR";
	d[36] = 38; /* HAW 39 bits */
	d[37] = 3;  /* INTR_REMAP | X2APIC_OPT_OUT */
	CHECK_INT(hwc_host_parse_dmar(d, sizeof(d), &dm), 0);
	CHECK_INT(dm.haw, 39);
	CHECK_INT(dm.flags & 1, 1);
	CHECK_INT(dm.flags & 2, 2);
	CHECK_INT(hwc_host_parse_dmar(d, 37, &dm), -EINVAL);
	d[0] = 'X';
	CHECK_INT(hwc_host_parse_dmar(d, sizeof(d), &dm), -EINVAL);
}

static void test_interrupts(void)
{
	size_t len;
	struct hwc_irq_chips c;
	char *b = slurp("tests/hwinfo/data/sysfs/proc-interrupts_IR-PCI-MSIX_mlx4-cx3pro_intel-12cpu_pve_"
			"skyao.txt",
			&len);
	if (b) {
		CHECK_INT(hwc_host_scan_interrupts(b, len, &c), 0);
		CHECK(c.remapped > 10);
		CHECK_INT(c.plain, 0);
		free(b);
	}
	b = slurp("tests/fixtures/host-hw-2xe2690-x2apic-unknown/root/proc/interrupts", &len);
	CHECK(b != NULL);
	if (b) {
		CHECK_INT(hwc_host_scan_interrupts(b, len, &c), 0);
		CHECK_INT(c.remapped, 0);
		CHECK(c.plain >= 9);
		free(b);
	}
	CHECK_INT(hwc_host_scan_interrupts("", 0, &c), 0);
	CHECK(c.remapped == 0 && c.plain == 0);
}

static void test_group_type(struct hwc_arena *a)
{
	struct hwc_host_facts *h = hwc_arena_zalloc(a, sizeof(*h));
	struct hwc_host_iommu_group *g = HWC_VEC_PUSH(a, &h->iommu.groups);
	g->id = 7;
	HWC_SET(g->type, "DMA-FQ");
	g = HWC_VEC_PUSH(a, &h->iommu.groups);
	g->id = 8;
	HWC_FAIL(g->type, HWC_ST_ABSENT, 0, "before 5.11");
	CHECK_STR(hwc_host_iommu_group_type(h, 7), "DMA-FQ");
	CHECK(hwc_host_iommu_group_type(h, 8) == NULL);
	CHECK(hwc_host_iommu_group_type(h, 9) == NULL);
	CHECK(hwc_host_iommu_group_type(NULL, 7) == NULL);
}

int main(void)
{
	struct hwc_arena *a = hwc_arena_new();
	test_cpuinfo(a);
	test_dmesg(a);
	test_log_start(a);
	test_madt_dmar();
	test_interrupts();
	test_group_type(a);
	hwc_arena_free(a);
	TEST_MAIN_END();
}
