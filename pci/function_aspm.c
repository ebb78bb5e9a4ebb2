/* SPDX-License-Identifier: MIT */
/* Device part function_aspm: what one function of a multi-function device says about the ASPM of
 * the link they share. Its own Link Control ASPM Control field (a further function's `link` holds
 * function 0's registers) and whether it has the ARI extended capability: PCIe base spec r5.0
 * 7.5.3.7, ASPM Control: "For non-ARI Multi-Function Devices, only capabilities enabled in all
 * Functions are enabled for the component as a whole. For ARI Devices, ASPM Control is determined
 * solely by the setting in Function 0" (an ARI Device: every function has the ARI capability).
 * lspci prints them as "LnkCtl: ASPM ..." and "Capabilities: [150 v1] Alternative Routing-ID
 * Interpretation (ARI)". PCIE_ASPM_ENABLED judges the link from them. */
#include "pci/pci.h"

#include "core/json.h"

#define PCI_EXT_CAP_ARI 0x0e
#define PCI_EXP_LNKCTL_OFF 0x10

void hwc_pci_decode_function_aspm(const struct hwc_pci_cfg *c, struct hwc_arena *a,
				  struct hwc_pci_function_aspm *out)
{
	(void)a;
	if (c->exp + PCI_EXP_LNKCTL_OFF + 2 > c->len) {
		hwc_fmeta_set(&out->m, HWC_ST_INVALID, 0, "PCI Express capability runs past the config space");
		return;
	}
	hwc_fmeta_set(&out->m, HWC_ST_OK, 0, NULL);
	HWC_SET(out->control, hwc_pci_aspm_name(hwc_pci_cfg_u16(c, c->exp + PCI_EXP_LNKCTL_OFF) & 3, false));
	struct hwc_fmeta m = {0};
	if (hwc_pci_cfg_ext_cap(c, PCI_EXT_CAP_ARI, "no ARI capability", &m))
		HWC_SET(out->ari_capable, true);
	else if (m.st == HWC_ST_UNSUPPORTED)
		HWC_SET(out->ari_capable, false); /* the extended list was read: none */
	else
		out->ari_capable.m = m;
}

static const struct hwc_jfield function_aspm_f[] = {
	HWC_JFD(struct hwc_pci_function_aspm, control, HWC_JT_STR,
		"this function's own Link Control ASPM Control (LnkCtl bits 1:0, lspci 'LnkCtl: ASPM "
		"...'), even where `link` holds function 0's registers"),
	HWC_JFD(struct hwc_pci_function_aspm, ari_capable, HWC_JT_BOOL,
		"has the ARI (Alternative Routing-ID Interpretation) extended capability: a device whose "
		"functions all have it is an ARI Device, whose link ASPM is function 0's setting alone "
		"(PCIe r5.0 7.5.3.7); needs the extended config space"),
};
const struct hwc_jtable hwc_pci_function_aspm_table =
	HWC_JTABLE("pci.devices[].function_aspm", function_aspm_f, HWC_JTAB_OMIT_UNSET);
