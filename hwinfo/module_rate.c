/* SPDX-License-Identifier: MIT */
/* The fastest Ethernet rate a transceiver or cable declares (issue 14, negotiated vs possible):
 * from its compliance codes (SFF-8472 bytes 3-10 and 36, SFF-8636 bytes 131 and 192, SFF-8024
 * table 4-4) or its CMIS application advertisement (lower page bytes 86.., SFF-8024 table 4-5
 * host electrical interface codes); unsupported with the reason when none of them says. */
#include "hwinfo/hwinfo.h"

#include <string.h>

#include "core/util.h"

/* SFF-8024 table 4-4, extended specification compliance (SFF-8636 byte 192, SFF-8472 byte 36):
 * the rate on a four-lane form factor (QSFP) and on a one-lane one (SFP); 0: not defined there,
 * or not a rate ethtool names for that code (tests/oracle/test_rate_oracle.py holds every row
 * against ethtool -m's 'Transceiver type' for the same byte). */
static const struct {
	uint8_t code;
	double qsfp, sfp;
	const char *name;
} ext_codes[] = {
	{0x01, 100, 25, "100G AOC or 25GAUI C2M AOC"},
	{0x02, 100, 25, "100GBASE-SR4 or 25GBASE-SR"},
	{0x03, 100, 25, "100GBASE-LR4 or 25GBASE-LR"},
	{0x04, 100, 25, "100GBASE-ER4 or 25GBASE-ER"},
	{0x05, 100, 0, "100GBASE-SR10"},
	{0x06, 100, 0, "100G CWDM4"},
	{0x07, 100, 0, "100G PSM4"},
	{0x08, 100, 25, "100G ACC or 25GAUI C2M ACC"},
	{0x0b, 100, 25, "100GBASE-CR4 or 25GBASE-CR CA-L"},
	{0x0c, 25, 25, "25GBASE-CR CA-S"},
	{0x0d, 25, 25, "25GBASE-CR CA-N"},
	{0x10, 40, 0, "40GBASE-ER4"},
	{0x11, 40, 0, "4 x 10GBASE-SR"},
	{0x12, 40, 0, "40G PSM4"},
	{0x16, 0, 10, "10GBASE-T with SFI"},
	{0x17, 100, 0, "100G CLR4"},
	{0x18, 100, 25, "100G AOC or 25GAUI C2M AOC"},
	{0x19, 100, 25, "100G ACC or 25GAUI C2M ACC"},
	{0x1a, 100, 0, "100GE-DWDM2"},
	{0x1c, 0, 10, "10GBASE-T Short Reach"},
	{0x1f, 40, 0, "40G SWDM4"},
	{0x20, 100, 0, "100G SWDM4"},
	{0x21, 100, 0, "100G PAM4 BiDi"},
	{0x25, 100, 100, "100GBASE-DR"},
	{0x26, 100, 100, "100G-FR or 100GBASE-FR1"},
	{0x27, 100, 100, "100G-LR or 100GBASE-LR1"},
	{0x30, 200, 50, "ACC with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M"},
	{0x31, 200, 50, "AOC with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M"},
	{0x32, 200, 50, "ACC with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M"},
	{0x33, 200, 50, "AOC with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M"},
	{0x40, 200, 50, "50GBASE-CR, 100GBASE-CR2 or 200GBASE-CR4"},
	{0x41, 200, 50, "50GBASE-SR, 100GBASE-SR2 or 200GBASE-SR4"},
	{0x42, 200, 50, "50GBASE-FR or 200GBASE-DR4"},
	{0x43, 200, 0, "200GBASE-FR4"},
	{0x44, 200, 0, "200G 1550 nm PSM4"},
	{0x45, 0, 50, "50GBASE-LR"},
	{0x46, 200, 0, "200GBASE-LR4"},
	{0x4a, 0, 0, "50GBASE-ER"},
};

/* SFF-8024 table 4-5, host electrical interface codes of a CMIS application (Gb/s). */
static const struct {
	uint8_t code;
	double gbps;
	const char *name;
} host_codes[] = {
	{0x01, 1, "1000BASE-CX"},       {0x02, 10, "XAUI"},          {0x03, 10, "XFI"},
	{0x04, 10, "SFI"},              {0x05, 25, "25GAUI C2M"},    {0x06, 40, "XLAUI C2M"},
	{0x07, 40, "XLPPI"},            {0x08, 50, "LAUI-2 C2M"},    {0x09, 50, "50GAUI-2 C2M"},
	{0x0a, 50, "50GAUI-1 C2M"},     {0x0b, 100, "CAUI-4 C2M"},   {0x0c, 100, "100GAUI-4 C2M"},
	{0x0d, 100, "100GAUI-2 C2M"},   {0x0e, 200, "200GAUI-8 C2M"}, {0x0f, 200, "200GAUI-4 C2M"},
	{0x10, 400, "400GAUI-16 C2M"},  {0x11, 400, "400GAUI-8 C2M"}, {0x13, 10, "10GBASE-CX4"},
	{0x14, 25, "25GBASE-CR CA-25G-L"}, {0x15, 25, "25GBASE-CR CA-25G-S"},
	{0x16, 25, "25GBASE-CR CA-25G-N"}, {0x17, 40, "40GBASE-CR4"}, {0x18, 50, "50GBASE-CR"},
	{0x19, 100, "100GBASE-CR10"},   {0x1a, 100, "100GBASE-CR4"}, {0x1b, 100, "100GBASE-CR2"},
	{0x1c, 200, "200GBASE-CR4"},    {0x1d, 400, "400G CR8"},
	{0x41, 100, "CAUI-4 C2M without FEC"}, {0x42, 100, "CAUI-4 C2M with RS(528,514) FEC"},
	{0x43, 50, "50GBASE-CR2 with RS(528,514) FEC"}, {0x44, 50, "50GBASE-CR2 with BASE-R FEC"},
	{0x45, 50, "50GBASE-CR2 with no FEC"}, {0x46, 100, "100GBASE-CR1"}, {0x47, 200, "200GBASE-CR2"},
	{0x48, 400, "400GBASE-CR4"},    {0x4b, 100, "100GAUI-1-S C2M"}, {0x4c, 100, "100GAUI-1-L C2M"},
	{0x4d, 200, "200GAUI-2-S C2M"}, {0x4e, 200, "200GAUI-2-L C2M"}, {0x4f, 400, "400GAUI-4-S C2M"},
	{0x50, 400, "400GAUI-4-L C2M"}, {0x51, 800, "800G S C2M"},  {0x52, 800, "800G L C2M"},
};

static void set_rate(struct hwc_module *m, double gbps, const char *basis)
{
	HWC_SET(m->max_gbps, gbps);
	HWC_SET(m->rate_basis, basis);
}

static bool ext_rate(struct hwc_arena *a, struct hwc_module *m, const char *spec, int byte, uint8_t code, bool qsfp)
{
	for (size_t i = 0; i < HWC_ARRAY_SIZE(ext_codes); i++) {
		double g = qsfp ? ext_codes[i].qsfp : ext_codes[i].sfp;
		if (ext_codes[i].code != code || g <= 0)
			continue;
		set_rate(m, g, hwc_arena_printf(a, "%s byte %d 0x%02x: %s", spec, byte, code, ext_codes[i].name));
		return true;
	}
	return false;
}

/* A per-lane nominal signalling rate (MBd) as the NRZ Ethernet class it carries: 25.78 GBd is
 * 25G, 10.3 GBd 10G, 1.25 GBd 1G (64b/66b and 8b/10b); PAM4 rates are left to the codes. */
static double nominal_class(double mbd)
{
	return mbd >= 25000 && mbd < 26000 ? 25 : mbd >= 10000 && mbd < 11000 ? 10 : mbd >= 1000 && mbd < 1400 ? 1 : 0;
}

static bool nominal_rate(struct hwc_arena *a, struct hwc_module *m, const char *spec, int lanes)
{
	double c = hwc_ok(m->nominal_mbd) ? nominal_class(m->nominal_mbd.v) : 0;
	if (c <= 0)
		return false;
	set_rate(m, c * lanes, hwc_arena_printf(a, "%s nominal signalling rate %.0f MBd x %d lane%s (no rate code)", spec,
						    m->nominal_mbd.v, lanes, lanes > 1 ? "s" : ""));
	return true;
}

static bool rate_sff8472(struct hwc_arena *a, const uint8_t *a0, struct hwc_module *m)
{
	if (ext_rate(a, m, "SFF-8472", 36, a0[36], false))
		return true;
	if (a0[3] & 0xf0) { /* byte 3 bits 7-4: 10GBASE-ER, -LRM, -LR, -SR */
		set_rate(m, 10, hwc_arena_printf(a, "SFF-8472 byte 3 0x%02x: 10GBASE-SR/LR/LRM/ER", a0[3]));
		return true;
	}
	if (nominal_rate(a, m, "SFF-8472", 1))
		return true;
	if (a0[6] & 0x0f) { /* byte 6 bits 3-0: 1000BASE-T, -CX, -LX, -SX */
		set_rate(m, 1, hwc_arena_printf(a, "SFF-8472 byte 6 0x%02x: 1000BASE-SX/LX/CX/T", a0[6]));
		return true;
	}
	return false;
}

static bool rate_sff8636(struct hwc_arena *a, const uint8_t *up, struct hwc_module *m)
{
	/* byte 131 (up[3]): bit 7 see byte 192; bits 3-0 40G; bits 6-4 10G */
	if ((up[3] & 0x80) && ext_rate(a, m, "SFF-8636", 192, up[64], true))
		return true;
	if (up[3] & 0x0f) {
		set_rate(m, 40, hwc_arena_printf(a, "SFF-8636 byte 131 0x%02x: 40GBASE-CR4/SR4/LR4 or 40G active cable", up[3]));
		return true;
	}
	if (nominal_rate(a, m, "SFF-8636", 4))
		return true;
	if (up[3] & 0x70) {
		set_rate(m, 10, hwc_arena_printf(a, "SFF-8636 byte 131 0x%02x: 10GBASE-SR/LR/LRM", up[3]));
		return true;
	}
	return false;
}

/* Every application of the lower page (bytes 86..117, four bytes each, 0xff ends the list). */
static bool rate_cmis(struct hwc_arena *a, const uint8_t *lo, struct hwc_module *m)
{
	double best = 0;
	const char *name = NULL;
	for (int k = 0; k < 8 && lo[86 + 4 * k] != 0xff; k++)
		for (size_t i = 0; i < HWC_ARRAY_SIZE(host_codes); i++)
			if (host_codes[i].code == lo[86 + 4 * k] && host_codes[i].gbps > best)
				best = host_codes[i].gbps, name = host_codes[i].name;
	if (best <= 0)
		return false;
	set_rate(m, best, hwc_arena_printf(a, "CMIS application host interface %s (SFF-8024 table 4-5)", name));
	return true;
}

void hwc_module_rate(const struct hwc_module_map *mp, struct hwc_arena *a, struct hwc_module *m)
{
	bool ok = false;
	if (!mp->lower)
		return;
	switch (hwc_module_spec_of(mp->lower[0])) {
	case HWC_MODULE_SFF8472:
		ok = rate_sff8472(a, mp->lower, m);
		break;
	case HWC_MODULE_SFF8636:
		ok = mp->upper[0] && rate_sff8636(a, mp->upper[0], m);
		if (!mp->upper[0]) {
			HWC_FAIL(m->max_gbps, HWC_ST_ABSENT, 0, "module EEPROM: upper page 00h (compliance codes) was not read");
			m->rate_basis.m = m->max_gbps.m;
			return;
		}
		break;
	case HWC_MODULE_CMIS:
		ok = rate_cmis(a, mp->lower, m);
		break;
	default:
		return;
	}
	if (!ok) {
		HWC_FAIL(m->max_gbps, HWC_ST_UNSUPPORTED, 0, "module EEPROM: no compliance code or application names an Ethernet rate hwcheck knows");
		m->rate_basis.m = m->max_gbps.m;
	}
}
