/* SPDX-License-Identifier: MIT */
/* Fuzz the capture redactor: any bytes as a text file, a PCI config, a VPD, a DMI serial, or an
 * lldpcli / smpquery nodedesc answer whose names are learned first (the first byte picks which).
 * Redaction must keep the shape: outside letters and digits (text; and non-ASCII bytes of a name)
 * not a byte changes, and two redactors fed the same input agree (placeholders are deterministic). */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot/redact.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[6] = {
		"hwcheck/commands/mstflint -d 0000:3b:00.0 q/stdout",
		"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/config",
		"sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vpd",
		"sys/devices/virtual/dmi/id/board_serial",
		"hwcheck/commands/lldpcli -f json show neighbors details/stdout",
		"hwcheck/commands/smpquery -C mlx5_0 -P 1 -D nodedesc 0,1/stdout",
	};
	if (size == 0)
		return 0;
	int kind = data[0] % 6;
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
	hwc_redact_learn(r1, paths[kind], data, size);
	hwc_redact_learn(r2, paths[kind], data, size);
	size_t n1 = hwc_redact(r1, paths[kind], a, size);
	size_t n2 = hwc_redact(r2, paths[kind], b, size);
	MUST(n1 == n2 && memcmp(a, b, size) == 0);
	if (kind == 0 || kind == 3)
		for (size_t i = 0; i < size; i++)
			MUST(isalnum(data[i]) || a[i] == data[i]);
	if (kind >= 4)
		for (size_t i = 0; i < size; i++)
			MUST(isalnum(data[i]) || data[i] >= 0x80 || a[i] == data[i]);
	/* a second pass over redacted text finds at most what it placed, never grows */
	hwc_redact(r1, paths[kind], a, size);
	hwc_redactor_free(r1);
	hwc_redactor_free(r2);
	free(a);
	free(b);
	return 0;
}
