/* SPDX-License-Identifier: MIT */
/* Fuzz the kernel log parser (x2APIC, interrupt remapping, IOMMU default domain lines, where the
 * log begins). */
#include <stdint.h>
#include <string.h>

#include "hwinfo/hwinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	struct hwc_dmesg_host d;
	hwc_host_parse_dmesg((const char *)data, size, a, &d);
	if (d.x2apic < -1 || d.x2apic > 1 || (d.x2apic >= 0 && !d.x2apic_line))
		__builtin_trap(); /* a decision always names its line */
	if (d.intr_remap >= 0 && !d.intr_remap_line)
		__builtin_trap();
	if (d.log_start_s != -1 && !(d.log_start_s >= 0 && d.log_start_s < 1e12 && d.first_line))
		__builtin_trap(); /* where the log begins: -1, or seconds read from its first line */
	hwc_arena_free(a);
	return 0;
}
