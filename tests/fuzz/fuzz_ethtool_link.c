/* SPDX-License-Identifier: MIT */
/* Fuzz the `ethtool IF` parser (issue 14, negotiated vs possible) and the module rate decoder:
 * any bytes, no crash, no overread, no leak. */
/* Seeds (tests/fuzz/corpus/ethtool_link/), real public captures: mlx5-100g-p1-cut (corpus
 * ethtool/mlx5-100G_ethtool-p1_..., cut by its author after 'Port: FIBRE'), e810-em1-tabs-stripped
 * (corpus ethtool/intel-e810_ice_..._intel-wired-lan-2025, Gmail stripped the tabs),
 * mlxsw-swp1-lanes4-netdev2020 (netdev, '[PATCH net-next v2 3/7] ethtool: Expose the number of
 * lanes in use', Danielle Ratson, 2020-12-17: Lanes 4 and a repeated 'Advertised link modes'
 * label), hccn-200g-not-reported (public GitHub notes on Huawei's hccn_tool: 'Advertised link
 * modes: Not reported', 200G). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "hwinfo/hwinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	char *buf = malloc(size ? size : 1); /* no terminator: overreads show under ASan */
	if (buf) {
		memcpy(buf, data, size);
		struct hwc_netdev_modes m;
		memset(&m, 0, sizeof(m));
		hwc_ethtool_parse_link(buf, size, "ethtool fuzz0", a, &m);
		/* the same bytes as a module EEPROM (256 bytes at least: every offset the rate reads) */
		if (size >= 256) {
			struct hwc_module_map mp;
			struct hwc_module mod;
			memset(&mod, 0, sizeof(mod));
			hwc_module_map_linear(data, size, &mp);
			hwc_module_decode(&mp, a, &mod);
		}
		free(buf);
	}
	hwc_arena_free(a);
	return 0;
}
