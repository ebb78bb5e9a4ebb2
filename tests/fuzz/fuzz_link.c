/* SPDX-License-Identifier: MIT */
/* Fuzz the wire-side parsers (issue 14): ethtool --show-fec text and the restricted-function
 * check over a kernel log. Any bytes: no crash, no overread, no leak. */
/* Seeds (tests/fuzz/corpus/link/), real public captures: fec-mlx5-dgx-spark (GitHub notes,
 * `ethtool --show-fec enp1s0f1np1` on a DGX Spark ConnectX-7), fec-I-fbnic-netdev (netdev list,
 * fbnic FEC stats patch, Mohsin Bashir), fec-I-ice-patch-indented (intel-wired-lan ice FEC stats
 * series, as mailed), dmesg-access-reg-gpud1164 (leptonai/gpud #1164), dmesg-access-reg-node-
 * exporter3434 (prometheus/node_exporter #3434); mlxlink-bf3-100g-m-c-sigcomm26 (`mlxlink -d ... -p 1
 * -m -c` on a BlueField-3, SIGCOMM 2026 SmartNIC tutorial README), mlxlink-400g-counters-ansi-sichek
 * (scitix/sichek mlxlink_dom_test.go, counters "captured on clnet36 mlx5_1", with terminal
 * colours), mlxlink-module-osfp-sichek (the same file's Module Info of an OSFP optic, "mirrors real
 * output"), mlxlink-cx7-400g-trex1185, mlxlink-cx7-ndr-show-module and mlxlink-pcie-cx6dx-e-c
 * (corpus/mlxlink/), mlxlink-cx7-spark-100g-dac-aerial (`mlxlink -d 0000:01:00.0` on a DGX Spark
 * ConnectX-7 with a 100G DAC, NVIDIA Aerial cuBB docs 'Installing Tools on NVIDIA DGX Spark
 * System'); dmesg-mlx5-cx6dx-health (corpus/dmesg/mlx5-cx6dx_fw22.99_temp_warn_...);
 * mlxlink-pcie-errors-section-skyao (corpus/mlxlink/cx6-ocp3_mlxlink-pcie-e_gen1-x4-..._skyao:
 * `mlxlink --port_type PCIE -e` on a ConnectX-6 at Gen1, one section printed, then the "Errors"
 * section mlxlink prints when a section failed and it exits 1);
 * mlxlink-error is a synthetic one-line -E- message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "hwinfo/hwinfo.h"
#include "mlx/mlx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwc_arena *a = hwc_arena_new();
	if (!a)
		return 0;
	char *buf = malloc(size ? size : 1); /* no terminator: overreads show under ASan */
	if (buf) {
		memcpy(buf, data, size);
		struct hwc_netdev_fec fec;
		memset(&fec, 0, sizeof(fec));
		hwc_ethtool_parse_fec(buf, size, "ethtool --show-fec fuzz0", a, &fec);
		hwc_mlx_counters_harmful("0000:05:00.0", NULL, buf, size, a);
		struct hwc_mlx_phy phy;
		memset(&phy, 0, sizeof(phy));
		hwc_mlx_parse_mlxlink(buf, size, a, &phy);
		struct hwc_mlx_module mod;
		memset(&mod, 0, sizeof(mod));
		hwc_mlx_parse_module(buf, size, a, &mod);
		struct hwc_mlx_kevents ev = {0};
		hwc_mlx_parse_kernel_events(buf, size, 8, a, &ev);
		free(buf);
	}
	hwc_arena_free(a);
	return 0;
}
