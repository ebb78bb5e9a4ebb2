/* SPDX-License-Identifier: MIT */
/* Fuzz the ethtool text parsers (-g -l -k -a -S -i): any bytes, every parser, no crash or leak. */
/* Seeds (tests/fuzz/corpus/ethtool_text/) are verbatim copies of corpus/ethtool/ captures:
 * mlx4-i-g-l (cx3-mlx4en_ethtool-i-g-l_2socket-x5650_netutils-example), e810-l-g-c-k-i
 * (intel-e810_ice_..._intel-wired-lan-2025), nfp-l-k-nbsp (netronome-nfp_..._xdp-newbies-2021),
 * mlx5-S-grep-pci (..._linux-pci-2024_FRAGMENT), mlx5-S-nonzero-k5.15 (..._bpf-2024),
 * mlx5-vf-i-blanklines (cx5ex-vf_ethtool-i_...), mlx5-g-old (likely-mlx5_ens1f0np0_ethtool-g_...),
 * cx4lx-S-grep (cx4lx-vs-intel-82599_..._FRAGMENT). */
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
	/* the parsers take (buf, len): no terminator, so overreads show under ASan */
	char *buf = malloc(size ? size : 1);
	if (buf) {
		memcpy(buf, data, size);
		const char *src = "ethtool -x fuzz0";
		struct hwc_netdev nd;
		memset(&nd, 0, sizeof(nd));
		struct hwc_netdev_drvinfo di;
		memset(&di, 0, sizeof(di));
		hwc_ethtool_parse_rings(buf, size, src, a, &nd.rings);
		hwc_ethtool_parse_channels(buf, size, src, a, &nd.channels);
		hwc_ethtool_parse_features(buf, size, src, a, &nd.features);
		hwc_ethtool_parse_pause(buf, size, src, a, &nd.pause);
		hwc_ethtool_parse_stats(buf, size, src, a, &nd.counters);
		hwc_ethtool_parse_drvinfo(buf, size, src, a, &di);
		free(buf);
	}
	hwc_arena_free(a);
	return 0;
}
