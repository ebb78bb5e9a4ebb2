/* SPDX-License-Identifier: MIT */
/* PCI device id -> ConnectX / BlueField product, generation and what its interfaces can do. */
#include "mlx/mlx.h"
#include "core/util.h"

#include <string.h>

/* Names follow the pci.ids database (pciutils; checked against Debian's pciids, version
 * 2023.04.10, /usr/share/misc/pci.ids) and the mlx4/mlx5 driver id tables; PCIe and port
 * figures are the product line's maximum from the vendor's product briefs (a given board may have
 * fewer lanes or slower ports: the facts from sysfs and mstconfig say what it has). pcie_gts 0 =
 * the function is not a data path (SoC management, auxiliary channels): no ceiling from it. A VF
 * carries its PF product's figures: it shares that PCIe link and port. The driver is the kernel
 * driver whose PCI id table lists the id (drivers/net/ethernet/mellanox/mlx4/main.c mlx4_pci_table,
 * mlx5/core/main.c mlx5_core_pci_table, Linux 6.x): NULL where neither does (the BlueField Arm-side
 * and management functions). NO_MST: mstflint 4.21 and later know no such device (ConnectX and
 * ConnectX-2: its 8e08c36 of 2022, "deprecation of legacy devices"); GEN4: what mstflint's dev_mgt
 * calls 4th generation (dm_is_4th_gen: ConnectX-3, ConnectX-3 Pro, every function of the chip);
 * which tool takes which, by the installed mstflint's version: mlx/collect.c tool_refusals. */
#define MLX4 "mlx4_core"
#define MLX5 "mlx5_core"
#define NODRV NULL
#define BY_REV HWC_MLX_ID_BY_REVISION
#define NO_MST HWC_MLX_ID_NO_MSTFLINT
#define RECOVERY HWC_MLX_ID_FLASH_RECOVERY
#define GEN4 HWC_MLX_ID_GEN4

static const struct hwc_mlx_ident table[] = {
	/* The mlx4 "Hermon" ids (MT25408 family, the kernel's and rdma-core's mlx4 tables): ConnectX
	 * and ConnectX-2 share them, the chip revision tells them apart (mstflint's dev_mgt table,
	 * before its 8e08c36 of 2022 dropped the legacy devices: ConnectX2 = hw_dev_id 0x190 with
	 * hw_rev_id 0xb0, "useful to distinguish between ConnectX2 and ConnectX"; lspci prints it as
	 * "(rev b0)", ibstat as "Hardware version"). hwc_mlx_ident_name() names them from the PCI
	 * revision; the figures are the id's, the same for both: PCIe 2.0 x8 at the id's rate. */
	{0x6340, "ConnectX", "ConnectX", MLX4, false, 2.5, 8, 10, BY_REV | NO_MST},          /* MT25408A0-FCC-SI, IB SDR / 10GigE */
	{0x634a, "ConnectX", "ConnectX", MLX4, false, 2.5, 8, 20, BY_REV | NO_MST},          /* MT25408A0-FCC-DI, IB DDR / 10GigE */
	{0x6354, "ConnectX", "ConnectX", MLX4, false, 2.5, 8, 40, BY_REV | NO_MST},          /* "Hermon" QDR (kernel mlx4 table) */
	{0x6368, "ConnectX EN", "ConnectX", MLX4, false, 2.5, 8, 10, BY_REV | NO_MST},       /* MT25448, 10GigE */
	{0x6372, "ConnectX EN", "ConnectX", MLX4, false, 2.5, 8, 10, BY_REV | NO_MST},       /* MT25458, 10GBASE-T */
	{0x6732, "ConnectX", "ConnectX", MLX4, false, 5, 8, 20, BY_REV | NO_MST},            /* MT25408A0-FCC-GI, IB DDR / 10GigE */
	{0x673c, "ConnectX", "ConnectX", MLX4, false, 5, 8, 40, BY_REV | NO_MST},            /* MT25408A0-FCC-QI (MT26428), IB QDR / 10GigE */
	{0x6746, "ConnectX", "ConnectX", MLX4, false, 5, 8, 40, BY_REV | NO_MST},            /* MT26438, IB QDR / 10GigE, Virtualization+ */
	{0x6750, "ConnectX EN", "ConnectX", MLX4, false, 5, 8, 10, BY_REV | NO_MST},         /* MT26448, 10GigE */
	{0x675a, "ConnectX EN", "ConnectX", MLX4, false, 5, 8, 10, BY_REV | NO_MST},         /* MT26458, 10GBASE-T */
	{0x6764, "ConnectX EN", "ConnectX", MLX4, false, 5, 8, 10, BY_REV | NO_MST},         /* MT26468, 10GigE, Virtualization+ */
	{0x676e, "ConnectX EN", "ConnectX", MLX4, false, 5, 8, 40, BY_REV | NO_MST},         /* MT26478, 40GigE */
	{0x6778, "ConnectX", "ConnectX", MLX4, false, 5, 8, 20, BY_REV | NO_MST},            /* MT26488, IB DDR / 10GigE, Virtualization+ */
	/* Flash recovery ("livefish"): the card enumerates with its chip's hardware device id when
	 * its firmware does not run (a failed burn, a corrupt or blank flash, the flash-present pins
	 * jumpered): mstflint's dm_is_livefish_mode() (dev_mgt/tools_dev_types.c, b9d9e84) takes a
	 * PCI id equal to the hw_dev_id of its device table as livefish (for ConnectX-3 and
	 * ConnectX-3 Pro: hw_dev_id + 1); the "Secure" ids are the secure-boot parts' recovery ids.
	 * Names from pci.ids (2023.04.10). No driver binds them (no data path, no figures). */
	{0x0191, "ConnectX or ConnectX-2 (flash recovery)", "ConnectX or ConnectX-2", NODRV, false, 0, 0, 0, RECOVERY | NO_MST}, /* MT25408 [ConnectX IB Flash Recovery] */
	{0x01f6, "ConnectX-3 (flash recovery)", "ConnectX-3", NODRV, false, 0, 0, 0, RECOVERY},          /* MT27500 Family [ConnectX-3 Flash Recovery] */
	{0x01f8, "ConnectX-3 Pro (flash recovery)", "ConnectX-3", NODRV, false, 0, 0, 0, RECOVERY},      /* MT27520 Family [ConnectX-3 Pro Flash Recovery] */
	{0x01ff, "Connect-IB (flash recovery)", "Connect-IB", NODRV, false, 0, 0, 0, RECOVERY},          /* MT27600 Family [Connect-IB Flash Recovery] */
	{0x0209, "ConnectX-4 (flash recovery)", "ConnectX-4", NODRV, false, 0, 0, 0, RECOVERY},          /* MT27700 Family [ConnectX-4 Flash Recovery] */
	{0x020b, "ConnectX-4 Lx (flash recovery)", "ConnectX-4", NODRV, false, 0, 0, 0, RECOVERY},       /* MT27710 Family [ConnectX-4 Lx Flash Recovery] */
	{0x020d, "ConnectX-5 (flash recovery)", "ConnectX-5", NODRV, false, 0, 0, 0, RECOVERY},          /* MT28800 Family [ConnectX-5 Flash Recovery] */
	{0x020f, "ConnectX-6 (flash recovery)", "ConnectX-6", NODRV, false, 0, 0, 0, RECOVERY},          /* MT28908A0 Family [ConnectX-6 Flash Recovery] */
	{0x0210, "ConnectX-6 (secure flash recovery)", "ConnectX-6", NODRV, false, 0, 0, 0, RECOVERY},   /* MT28908A0 Family [ConnectX-6 Secure Flash Recovery] */
	{0x0211, "BlueField (flash recovery)", "BlueField-1", NODRV, false, 0, 0, 0, RECOVERY},          /* MT416842 Family [BlueField SoC Flash Recovery] */
	{0x0212, "ConnectX-6 Dx (flash recovery)", "ConnectX-6", NODRV, false, 0, 0, 0, RECOVERY},       /* MT2892 Family [ConnectX-6 Dx Flash Recovery] */
	{0x0213, "ConnectX-6 Dx (secure flash recovery)", "ConnectX-6", NODRV, false, 0, 0, 0, RECOVERY}, /* MT2892 Family [ConnectX-6 Dx Secure Flash Recovery] */
	{0x0214, "BlueField-2 (flash recovery)", "BlueField-2", NODRV, false, 0, 0, 0, RECOVERY},        /* MT42822 Family [BlueField-2 SoC Flash Recovery] */
	{0x0215, "BlueField-2 (secure flash recovery)", "BlueField-2", NODRV, false, 0, 0, 0, RECOVERY}, /* MT42822 Family [BlueField-2 Secure Flash Recovery] */
	{0x0216, "ConnectX-6 Lx (flash recovery)", "ConnectX-6", NODRV, false, 0, 0, 0, RECOVERY},       /* MT2894 Family [ConnectX-6 Lx Flash Recovery] */
	{0x0217, "ConnectX-6 Lx (secure flash recovery)", "ConnectX-6", NODRV, false, 0, 0, 0, RECOVERY}, /* MT2894 Family [ConnectX-6 Lx Secure Flash Recovery] */
	{0x0218, "ConnectX-7 (flash recovery)", "ConnectX-7", NODRV, false, 0, 0, 0, RECOVERY},          /* MT2910 Family [ConnectX-7 Flash Recovery] */
	{0x0219, "ConnectX-7 (secure flash recovery)", "ConnectX-7", NODRV, false, 0, 0, 0, RECOVERY},   /* MT2910 Family [ConnectX-7 Secure Flash Recovery] */
	{0x021a, "BlueField-3 Lx (flash recovery)", "BlueField-3", NODRV, false, 0, 0, 0, RECOVERY},     /* MT43162 Family [BlueField-3 Lx SoC Flash Recovery] */
	{0x021b, "BlueField-3 Lx (secure flash recovery)", "BlueField-3", NODRV, false, 0, 0, 0, RECOVERY}, /* MT43162 Family [BlueField-3 Lx Secure Flash Recovery] */
	{0x021c, "BlueField-3 (flash recovery)", "BlueField-3", NODRV, false, 0, 0, 0, RECOVERY},        /* MT43244 Family [BlueField-3 SoC Flash Recovery] */
	{0x021d, "BlueField-3 (secure flash recovery)", "BlueField-3", NODRV, false, 0, 0, 0, RECOVERY}, /* MT43244 Family [BlueField-3 Secure Flash Recovery] */
	{0x021e, "ConnectX-8 (flash recovery)", "ConnectX-8", NODRV, false, 0, 0, 0, RECOVERY},          /* CX8 Family [ConnectX-8 Flash Recovery] */
	{0x021f, "ConnectX-8 (secure flash recovery)", "ConnectX-8", NODRV, false, 0, 0, 0, RECOVERY},   /* CX8 Family [ConnectX-8 Secure Flash Recovery] */
	{0x0220, "BlueField-4 (flash recovery)", "BlueField-4", NODRV, false, 0, 0, 0, RECOVERY},        /* BF4 Family Flash Recovery [BlueField-4 SoC Flash Recovery] */
	{0x0221, "BlueField-4 (secure flash recovery)", "BlueField-4", NODRV, false, 0, 0, 0, RECOVERY}, /* BF4 Family Secure Flash Recovery [BlueField-4 Secure Flash Recovery] */
	{0x1002, "ConnectX-2 VF", "ConnectX-2", MLX4, true, 0, 0, 0, NO_MST},      /* MT25400 Family [ConnectX-2 Virtual Function] */
	{0x1003, "ConnectX-3", "ConnectX-3", MLX4, false, 8, 8, 56, GEN4},             /* MT27500, FDR / 40-56GbE */
	{0x1004, "ConnectX-3 VF", "ConnectX-3", MLX4, true, 8, 8, 56, GEN4},           /* MT27500/MT27520 VF (CX3 and CX3 Pro) */
	{0x1007, "ConnectX-3 Pro", "ConnectX-3", MLX4, false, 8, 8, 56, GEN4},         /* MT27520 */
	{0x1011, "Connect-IB", "Connect-IB", MLX5, false, 8, 16, 56, 0},            /* MT27600, FDR IB only */
	{0x1012, "Connect-IB VF", "Connect-IB", MLX5, true, 8, 16, 56, 0},          /* MT27600 VF */
	{0x1013, "ConnectX-4", "ConnectX-4", MLX5, false, 8, 16, 100, 0},           /* MT27700, EDR / 100GbE */
	{0x1014, "ConnectX-4 VF", "ConnectX-4", MLX5, true, 8, 16, 100, 0},         /* MT27700 VF */
	{0x1015, "ConnectX-4 Lx", "ConnectX-4", MLX5, false, 8, 8, 50, 0},          /* MT27710, Ethernet 10-50GbE */
	{0x1016, "ConnectX-4 Lx VF", "ConnectX-4", MLX5, true, 8, 8, 50, 0},        /* MT27710 VF */
	{0x1017, "ConnectX-5", "ConnectX-5", MLX5, false, 8, 16, 100, 0},           /* MT27800, EDR / 100GbE, Gen3 */
	{0x1018, "ConnectX-5 VF", "ConnectX-5", MLX5, true, 8, 16, 100, 0},         /* MT27800 VF */
	{0x1019, "ConnectX-5 Ex", "ConnectX-5", MLX5, false, 16, 16, 100, 0},       /* MT28800, Gen4 x16 */
	{0x101a, "ConnectX-5 Ex VF", "ConnectX-5", MLX5, true, 16, 16, 100, 0},     /* MT28800 VF */
	{0x101b, "ConnectX-6", "ConnectX-6", MLX5, false, 16, 16, 200, 0},          /* MT28908, HDR / 200GbE */
	{0x101c, "ConnectX-6 VF", "ConnectX-6", MLX5, true, 16, 16, 200, 0},        /* MT28908 VF */
	{0x101d, "ConnectX-6 Dx", "ConnectX-6", MLX5, false, 16, 16, 200, 0},       /* MT2892, Ethernet up to 200GbE */
	{0x101e, "ConnectX mlx5Gen VF", "ConnectX-6 Dx or later", MLX5, true, 0, 0, 0, 0}, /* VF of CX6 Dx/Lx, CX7, CX8, BF2/3 */
	{0x101f, "ConnectX-6 Lx", "ConnectX-6", MLX5, false, 16, 8, 50, 0},         /* MT2894, Ethernet 10-50GbE */
	{0x1021, "ConnectX-7", "ConnectX-7", MLX5, false, 32, 16, 400, 0},          /* MT2910, NDR / 400GbE, Gen5 */
	{0x1023, "ConnectX-8", "ConnectX-8", MLX5, false, 64, 16, 800, 0},          /* CX8 family, XDR / 800GbE, Gen6 */
	{0xa2d0, "BlueField SoC (crypto)", "BlueField-1", NODRV, false, 0, 0, 0, 0},  /* MT416842 Arm side */
	{0xa2d1, "BlueField SoC", "BlueField-1", NODRV, false, 0, 0, 0, 0},           /* MT416842 Arm side, no crypto */
	{0xa2d2, "BlueField (ConnectX-5)", "BlueField-1", MLX5, false, 16, 16, 100, 0}, /* MT416842 integrated CX5 NIC */
	{0xa2d3, "BlueField VF", "BlueField-1", MLX5, true, 16, 16, 100, 0},         /* MT416842 VF */
	{0xa2d4, "BlueField-2 SoC (crypto)", "BlueField-2", NODRV, false, 0, 0, 0, 0}, /* MT42822 Arm side */
	{0xa2d5, "BlueField-2 SoC", "BlueField-2", NODRV, false, 0, 0, 0, 0},        /* MT42822 Arm side, no crypto */
	{0xa2d6, "BlueField-2 (ConnectX-6 Dx)", "BlueField-2", MLX5, false, 16, 16, 200, 0}, /* MT42822 integrated CX6 Dx */
	{0xa2d7, "BlueField-3 Lx SoC (crypto)", "BlueField-3", NODRV, false, 0, 0, 0, 0}, /* MT43162 Arm side */
	{0xa2d8, "BlueField-3 Lx SoC", "BlueField-3", NODRV, false, 0, 0, 0, 0},     /* MT43162 Arm side, no crypto */
	{0xa2d9, "BlueField-3 Lx (ConnectX-7)", "BlueField-3", NODRV, false, 0, 0, 0, 0}, /* MT43162 integrated CX7: no figures (no brief read) */
	{0xa2da, "BlueField-3 SoC (crypto)", "BlueField-3", NODRV, false, 0, 0, 0, 0}, /* MT43244 Arm side */
	{0xa2db, "BlueField-3 SoC", "BlueField-3", NODRV, false, 0, 0, 0, 0},        /* MT43244 Arm side, no crypto */
	{0xa2dc, "BlueField-3 (ConnectX-7)", "BlueField-3", MLX5, false, 32, 16, 400, 0}, /* MT43244 integrated CX7 */
	{0xa2dd, "BlueField-4 SoC (crypto)", "BlueField-4", NODRV, false, 0, 0, 0, 0}, /* BF4 Family Arm side */
	{0xa2de, "BlueField-4 SoC", "BlueField-4", NODRV, false, 0, 0, 0, 0},        /* BF4 Family Arm side, no crypto */
	{0xa2df, "BlueField-4 (integrated NIC)", "BlueField-4", MLX5, false, 0, 0, 0, 0}, /* BF4 integrated network controller: no figures (no brief read) */
	{0xc2d1, "BlueField auxiliary channel", "BlueField", NODRV, false, 0, 0, 0, 0}, /* DPU communication channel */
	{0xc2d2, "BlueField SoC management", "BlueField-1", NODRV, false, 0, 0, 0, 0}, /* MT416842 */
	{0xc2d3, "BlueField-2 SoC management", "BlueField-2", NODRV, false, 0, 0, 0, 0}, /* MT42822 */
	{0xc2d4, "BlueField-3 Lx SoC management", "BlueField-3", NODRV, false, 0, 0, 0, 0}, /* MT43162 */
	{0xc2d5, "BlueField-3 SoC management", "BlueField-3", NODRV, false, 0, 0, 0, 0}, /* MT43244 */
	{0xc2d6, "BlueField-4 SoC management", "BlueField-4", NODRV, false, 0, 0, 0, 0}, /* BF4 Family */
};

/* The best InfiniBand lane rate that every InfiniBand-capable board of a product line supports,
 * Gb/s (the IBA lane rates: FDR 14.0625, EDR 25.78125): a floor for what a board of the line can
 * do on an InfiniBand port, where port_gbps above is the line's ceiling (a ConnectX-5 board may be
 * 25GbE only, but one with an InfiniBand port runs EDR lanes). Only lines whose every
 * InfiniBand board was read in the vendor's ordering tables are listed; a VF carries its PF's. */
static const struct {
	uint16_t device_id;
	double gbps;
} ib_lane_floor[] = {
	/* ConnectX-4: the FDR boards MCX453A/454A/455A/456A-FCAT "InfiniBand: SDR/DDR/QDR/FDR", the EDR
	 * boards MCX455A/456A-ECAT "SDR/DDR/QDR/FDR/EDR" (NVIDIA ConnectX-4 InfiniBand/Ethernet Adapter
	 * Cards User Manual, Introduction, docs.nvidia.com/networking/display/ConnectX4IB) */
	{0x1013, 14.0625},
	{0x1014, 14.0625},
	/* ConnectX-5 and ConnectX-5 Ex: every InfiniBand board "SDR/DDR/QDR/FDR/EDR": the PCIe cards
	 * (MCX555A-ECAT, MCX556A-ECAT, MCX556A-EDAT), OCP 2.0 (MCX545A/B/M-ECAN, MCX546A-EDAN,
	 * docs.nvidia.com/networking/display/ConnectX5VPIOCP2), Socket Direct (MCX556M-ECAT-S25/S35A,
	 * .../display/cx5vpisd); the OCP 3.0 and MCX546A-BCAN/CDAN boards are Ethernet only
	 * (.../display/ConnectX5ENOCP3, .../display/connectx5enocp2) */
	{0x1017, 25.78125},
	{0x1018, 25.78125},
	{0x1019, 25.78125},
	{0x101a, 25.78125},
};

double hwc_mlx_ident_ib_lane_floor(uint16_t device_id)
{
	for (size_t i = 0; i < HWC_ARRAY_SIZE(ib_lane_floor); i++)
		if (ib_lane_floor[i].device_id == device_id)
			return ib_lane_floor[i].gbps;
	return 0;
}

const struct hwc_mlx_ident *hwc_mlx_ident_find(uint16_t device_id)
{
	for (size_t i = 0; i < HWC_ARRAY_SIZE(table); i++)
		if (table[i].device_id == device_id)
			return &table[i];
	return NULL;
}

const struct hwc_mlx_ident *hwc_mlx_ident_table(size_t *n)
{
	*n = HWC_ARRAY_SIZE(table);
	return table;
}

void hwc_mlx_ident_name(const struct hwc_mlx_ident *id, int64_t revision, struct hwc_arena *a,
			const char **product, const char **generation)
{
	*product = id->product;
	*generation = id->generation;
	if (!(id->flags & HWC_MLX_ID_BY_REVISION))
		return;
	/* id->product is "ConnectX" or "ConnectX EN": the suffix stays */
	const char *rest = id->product + strlen("ConnectX");
	const char *gen = revision == 0xb0 ? "ConnectX-2" : revision == 0xa0 ? "ConnectX" : "ConnectX or ConnectX-2";
	*generation = gen;
	const char *named = hwc_arena_printf(a, "%s%s", gen, rest);
	*product = named ? named : gen;
}
