/* SPDX-License-Identifier: MIT */
/* Device part lane_errors: which lanes of a function's link detected a lane-based error, from the
 * Lane Error Status register of its Secondary PCI Express capability (PCIe base spec 7.7.3.3:
 * one RW1CS bit per lane, set on a framing, block-alignment or symbol error of that lane and kept
 * until software writes 1 to clear it). lspci prints it as "LaneErrStat: LaneErr at lane: 0 1". */
#include "pci/pci.h"

#include "core/json.h"

#define PCI_EXT_CAP_SECONDARY_PCIE 0x19
#define SECONDARY_LANE_ERR_STATUS 0x08 /* after the header (0) and Link Control 3 (4) */

void hwc_pci_decode_lane_errors(const struct hwc_pci_cfg *c, struct hwc_arena *a,
				struct hwc_pci_lane_errors *out)
{
	/* The capability is required of every function whose link supports 8 GT/s or more. */
	size_t cap = hwc_pci_cfg_ext_cap(c, PCI_EXT_CAP_SECONDARY_PCIE,
					 "no Secondary PCI Express capability (required of a link "
					 "that runs 8 GT/s or more): no lane error register",
					 &out->m);
	if (!cap)
		return;
	if (cap + SECONDARY_LANE_ERR_STATUS + 4 > c->len) {
		hwc_fmeta_set(&out->m, HWC_ST_INVALID, 0,
			      "Secondary PCI Express capability runs past the config space");
		return;
	}
	uint32_t v = hwc_pci_cfg_u32(c, cap + SECONDARY_LANE_ERR_STATUS);
	hwc_fmeta_set(&out->m, HWC_ST_OK, 0, NULL);
	for (int64_t lane = 0; lane < 32; lane++) {
		int64_t *p = v & (1u << lane) ? HWC_VEC_PUSH(a, &out->lanes) : NULL;
		if (p)
			*p = lane;
	}
}

static const struct hwc_jfield lane_errors_f[] = {
	{.key = "lanes", .t = HWC_JT_I64V,
	 .off = offsetof(struct hwc_pci_lane_errors, lanes),
	 .doc = "the lanes (0 = the lowest-numbered) whose Lane Error Status bit is set; empty when "
		"no lane has seen an error"},
};
const struct hwc_jtable hwc_pci_lane_errors_table =
	HWC_JTABLE("pci.devices[].lane_errors", lane_errors_f, HWC_JTAB_OMIT_UNSET);
