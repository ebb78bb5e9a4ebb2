/* SPDX-License-Identifier: MIT */
/* Fuzz the config-space decoder (bytes -> facts through libpci's capability walk) and the small
 * sysfs parsers (VPD, aer_dev_*, link speed) on the same bytes. */
#include <stdint.h>
#include <string.h>

#include "pci/pci.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	struct hwc_pci_device d;
	memset(&d, 0, sizeof(d));
	const char *err;
	hwc_pci_decode_config(data, size, a, &d, &err);
	/* every status the decoder leaves must be a known one */
	if (d.link.m.st >= HWC_ST__COUNT || d.port_type.m.st >= HWC_ST__COUNT)
		__builtin_trap();
	struct hwc_pci_device v;
	memset(&v, 0, sizeof(v));
	hwc_pci_parse_vpd(data, size, a, &v);
	long long t;
	hwc_pci_parse_aer_total((const char *)data, size, &t);
	char *s = hwc_arena_strndup(a, (const char *)data, size < 64 ? size : 64);
	double g;
	if (s)
		hwc_pci_parse_speed(s, &g);
	hwc_arena_free(a);
	return 0;
}
