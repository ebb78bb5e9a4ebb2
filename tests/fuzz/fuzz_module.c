/* SPDX-License-Identifier: MIT */
/* Fuzz the module EEPROM decoder (issue 14): ethtool's hex dump of any text, then the bytes both
 * as the ioctl layout (SFF-8472 / SFF-8636) and as CMIS pages, decoded and written to JSON and
 * back. Any bytes: no crash, no overread, no leak. */
/* Seeds (tests/fuzz/corpus/module/): the real `ethtool -m IF hex on` dumps of
 * tests/fixtures/module-eeprom (MikroTik SFP AOC, Mellanox QSFP28 with page 03h; SOURCE.md there),
 * a netlink page dump (offset 0x0080, RECONSTRUCTED from the QSFP28's page 03h), and ethtool's
 * error line for a port without a module (netdev, Gal Pressman's mlx5 fix, 2021). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/json.h"
#include "hwinfo/hwinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode_json(const struct hwc_module_map *mp, struct hwc_arena *a)
{
	struct hwc_module m, back;
	memset(&m, 0, sizeof(m));
	hwc_module_decode(mp, a, &m);
	json_t *j = hwc_json_from_table(&m, &hwc_module_table);
	memset(&back, 0, sizeof(back));
	hwc_json_get_table(j, a, &back, &hwc_module_table);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	char *buf = malloc(size ? size : 1); /* no terminator: overreads show under ASan */
	uint8_t bytes[640];
	size_t base, n;
	struct hwc_module_map mp;
	if (buf) {
		memcpy(buf, data, size);
		if (hwc_module_parse_hex(buf, size, bytes, sizeof(bytes), &base, &n) == 0) {
			hwc_module_map_linear(bytes, n, &mp);
			decode_json(&mp, a);
		}
	}
	/* the raw input itself: as a linear dump, then cut in 128-byte CMIS pages */
	uint8_t *raw = malloc(size ? size : 1);
	if (raw) {
		memcpy(raw, data, size);
		hwc_module_map_linear(raw, size, &mp);
		decode_json(&mp, a);
		memset(&mp, 0, sizeof(mp));
		static const size_t pages[] = {0, 1, 2, 0x11};
		if (size >= 128)
			mp.lower = raw;
		for (size_t i = 0; i < 4 && size >= 128 * (i + 2); i++)
			mp.upper[pages[i]] = raw + 128 * (i + 1);
		if (mp.lower)
			decode_json(&mp, a);
		free(raw);
	}
	free(buf);
	hwc_arena_free(a);
	return 0;
}
