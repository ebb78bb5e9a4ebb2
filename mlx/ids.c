/* SPDX-License-Identifier: MIT */
/* PCI device id -> ConnectX / BlueField product, generation and what its interfaces can do. */
#include "mlx/mlx.h"
#include "core/util.h"

/* Names follow the pci.ids database (pciutils) and the mlx4/mlx5 driver id tables; PCIe and port
 * figures are the product line's maximum from the vendor's product briefs (a given board may have
 * fewer lanes or slower ports: the facts from sysfs and mstconfig say what it has). pcie_gts 0 =
 * the function is not a data path (SoC management, auxiliary channels): no ceiling from it. A VF
 * carries its PF product's figures: it shares that PCIe link and port. */
static const struct hwc_mlx_ident table[] = {
	{0x1003, "ConnectX-3", "ConnectX-3", false, 8, 8, 56},             /* MT27500, FDR / 40-56GbE */
	{0x1004, "ConnectX-3 VF", "ConnectX-3", true, 8, 8, 56},           /* MT27500/MT27520 VF (CX3 and CX3 Pro) */
	{0x1007, "ConnectX-3 Pro", "ConnectX-3", false, 8, 8, 56},         /* MT27520 */
	{0x1011, "Connect-IB", "Connect-IB", false, 8, 16, 56},            /* MT27600, FDR IB only */
	{0x1012, "Connect-IB VF", "Connect-IB", true, 8, 16, 56},          /* MT27600 VF */
	{0x1013, "ConnectX-4", "ConnectX-4", false, 8, 16, 100},           /* MT27700, EDR / 100GbE */
	{0x1014, "ConnectX-4 VF", "ConnectX-4", true, 8, 16, 100},         /* MT27700 VF */
	{0x1015, "ConnectX-4 Lx", "ConnectX-4", false, 8, 8, 50},          /* MT27710, Ethernet 10-50GbE */
	{0x1016, "ConnectX-4 Lx VF", "ConnectX-4", true, 8, 8, 50},        /* MT27710 VF */
	{0x1017, "ConnectX-5", "ConnectX-5", false, 8, 16, 100},           /* MT27800, EDR / 100GbE, Gen3 */
	{0x1018, "ConnectX-5 VF", "ConnectX-5", true, 8, 16, 100},         /* MT27800 VF */
	{0x1019, "ConnectX-5 Ex", "ConnectX-5", false, 16, 16, 100},       /* MT28800, Gen4 x16 */
	{0x101a, "ConnectX-5 Ex VF", "ConnectX-5", true, 16, 16, 100},     /* MT28800 VF */
	{0x101b, "ConnectX-6", "ConnectX-6", false, 16, 16, 200},          /* MT28908, HDR / 200GbE */
	{0x101c, "ConnectX-6 VF", "ConnectX-6", true, 16, 16, 200},        /* MT28908 VF */
	{0x101d, "ConnectX-6 Dx", "ConnectX-6", false, 16, 16, 200},       /* MT2892, Ethernet up to 200GbE */
	{0x101e, "ConnectX mlx5Gen VF", "ConnectX-6 Dx or later", true, 0, 0, 0}, /* VF of CX6 Dx/Lx, CX7, CX8, BF2/3 */
	{0x101f, "ConnectX-6 Lx", "ConnectX-6", false, 16, 8, 50},         /* MT2894, Ethernet 10-50GbE */
	{0x1021, "ConnectX-7", "ConnectX-7", false, 32, 16, 400},          /* MT2910, NDR / 400GbE, Gen5 */
	{0x1023, "ConnectX-8", "ConnectX-8", false, 64, 16, 800},          /* CX8 family, XDR / 800GbE, Gen6 */
	{0xa2d0, "BlueField SoC (crypto)", "BlueField-1", false, 0, 0, 0},  /* MT416842 Arm side */
	{0xa2d1, "BlueField SoC", "BlueField-1", false, 0, 0, 0},           /* MT416842 Arm side, no crypto */
	{0xa2d2, "BlueField (ConnectX-5)", "BlueField-1", false, 16, 16, 100}, /* MT416842 integrated CX5 NIC */
	{0xa2d3, "BlueField VF", "BlueField-1", true, 16, 16, 100},         /* MT416842 VF */
	{0xa2d4, "BlueField-2 SoC (crypto)", "BlueField-2", false, 0, 0, 0}, /* MT42822 Arm side */
	{0xa2d5, "BlueField-2 SoC", "BlueField-2", false, 0, 0, 0},        /* MT42822 Arm side, no crypto */
	{0xa2d6, "BlueField-2 (ConnectX-6 Dx)", "BlueField-2", false, 16, 16, 200}, /* MT42822 integrated CX6 Dx */
	{0xa2da, "BlueField-3 SoC (crypto)", "BlueField-3", false, 0, 0, 0}, /* MT43244 Arm side */
	{0xa2db, "BlueField-3 SoC", "BlueField-3", false, 0, 0, 0},        /* MT43244 Arm side, no crypto */
	{0xa2dc, "BlueField-3 (ConnectX-7)", "BlueField-3", false, 32, 16, 400}, /* MT43244 integrated CX7 */
	{0xc2d1, "BlueField auxiliary channel", "BlueField", false, 0, 0, 0}, /* DPU communication channel */
	{0xc2d2, "BlueField SoC management", "BlueField-1", false, 0, 0, 0}, /* MT416842 */
	{0xc2d3, "BlueField-2 SoC management", "BlueField-2", false, 0, 0, 0}, /* MT42822 */
	{0xc2d5, "BlueField-3 SoC management", "BlueField-3", false, 0, 0, 0}, /* MT43244 */
};

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
