/* SPDX-License-Identifier: MIT */
/* Fuzz the capture redactor: any bytes as a text file, a PCI config, a VPD or a DMI serial (the
 * first byte picks which). Redaction must keep the shape: outside letters and digits (text) not a
 * byte changes, and two redactors fed the same input agree (placeholders are deterministic). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/redact.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[4] = {
		"hwcheck/commands/mstflint -d 0000:3b:00.0 q/stdout",
		"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/config",
		"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vpd",
		"sys/devices/virtual/dmi/id/board_serial",
	};
	if (size == 0)
		return 0;
	int kind = data[0] & 3;
	data++;
	size--;
	unsigned char *a = malloc(size + 1), *b = malloc(size + 1);
	if (!a || !b)
		abort();
	memcpy(a, data, size);
	memcpy(b, data, size);
	struct hwc_redactor *r1 = hwc_redactor_new(), *r2 = hwc_redactor_new();
	if (!r1 || !r2)
		abort();
	size_t n1 = hwc_redact(r1, paths[kind], a, size);
	size_t n2 = hwc_redact(r2, paths[kind], b, size);
	MUST(n1 == n2 && memcmp(a, b, size) == 0);
	if (kind == 0 || kind == 3)
		for (size_t i = 0; i < size; i++)
			MUST(isalnum(data[i]) || a[i] == data[i]);
	/* a second pass over redacted text finds at most what it placed, never grows */
	hwc_redact(r1, paths[kind], a, size);
	hwc_redactor_free(r1);
	hwc_redactor_free(r2);
	free(a);
	free(b);
	return 0;
}
