/* SPDX-License-Identifier: MIT */
/* Fuzz the ACPI MADT and DMAR parsers, with the input's own signature and with each forced. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hwinfo/hwinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_acpi_madt m;
	struct hwc_acpi_dmar d;
	if (hwc_host_parse_madt(data, size, &m) != -EINVAL && m.lapic + m.x2apic + m.ioapic > m.entries)
		__builtin_trap();
	hwc_host_parse_dmar(data, size, &d);
	if (size < 4)
		return 0;
	/* exact-size copies so that ASan sees any read past the end */
	unsigned char *c = malloc(size);
	if (!c)
		return 0;
	memcpy(c, data, size);
	memcpy(c, "APIC", 4);
	if (hwc_host_parse_madt(c, size, &m) != -EINVAL && m.lapic + m.x2apic + m.ioapic > m.entries)
		__builtin_trap();
	memcpy(c, "DMAR", 4);
	hwc_host_parse_dmar(c, size, &d);
	free(c);
	return 0;
}
