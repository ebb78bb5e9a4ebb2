/* SPDX-License-Identifier: MIT */
/* Our own decoder of a transceiver's EEPROM (issue 14): SFF-8472 (SFP), SFF-8636 (QSFP+/QSFP28)
 * and CMIS 4/5 (QSFP-DD, OSFP, QSFP112): identity, diagnostics (DDM) and the module's own alarm
 * and warning thresholds and flags (latched in SFF-8636 and CMIS, live in SFF-8472). Pure: bytes in, facts out. The byte offsets and units
 * are those of the specifications (SFF-8472 rev 12.4 tables 4-1, 9-5, 9-11; SFF-8636 rev 2.10a
 * tables 6-2..6-9, 6-14, 6-22; CMIS 5.2 tables 8-6..8-10, 8-26, 8-44, 8-62..8-77; SFF-8024 rev 4.11
 * tables 4-1 and 4-3); `ethtool -m` decodes the same bytes and is the oracle of the tests. */
#include "core/scan.h"
#include "hwinfo/hwinfo.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

/* ------------------------------------------------------------------ ethtool's hex dump */

/* One "0x0010:\t\t00 11 ..." line: its offset and up to 16 bytes. -1 when it is no such line. */
static int hex_line(const char *l, size_t n, size_t *off, uint8_t *b, size_t *nb)
{
	size_t i = 0;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (n - i < 3 || l[i] != '0' || l[i + 1] != 'x')
		return -1;
	size_t o = 0, k = i + 2;
	for (; k < n && hwc_hex_digit(l[k]) >= 0 && k - i < 10; k++)
		o = o * 16 + (size_t)hwc_hex_digit(l[k]);
	if (k == i + 2 || k >= n || l[k] != ':')
		return -1;
	*off = o;
	*nb = 0;
	for (k++; k < n;) {
		while (k < n && (l[k] == ' ' || l[k] == '\t' || l[k] == '\r'))
			k++;
		if (k == n)
			break;
		if (k + 1 >= n || hwc_hex_digit(l[k]) < 0 || hwc_hex_digit(l[k + 1]) < 0 || *nb == 16 ||
		    (k + 2 < n && l[k + 2] != ' ' && l[k + 2] != '\t' && l[k + 2] != '\r'))
			return -1;
		b[(*nb)++] = (uint8_t)(hwc_hex_digit(l[k]) * 16 + hwc_hex_digit(l[k + 1]));
		k += 2;
	}
	return 0;
}

int hwc_module_parse_hex(const char *buf, size_t len, uint8_t *out, size_t cap, size_t *base,
			 size_t *n)
{
	size_t pos = 0, got = 0, first = 0;
	bool any = false;
	while (pos < len) {
		const char *l = buf + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t ln = nl ? (size_t)(nl - l) : len - pos;
		pos += ln + 1;
		size_t off, nb;
		uint8_t b[16];
		if (hex_line(l, ln, &off, b, &nb) < 0) {
			if (any && ln && l[0] != '\r')
				return -EINVAL; /* text after the dump: not ethtool's */
			continue;
		}
		if (!any)
			first = off;
		if (off != first + got || got + nb > cap)
			return any && off != first + got ? -EINVAL : -E2BIG;
		memcpy(out + got, b, nb);
		got += nb;
		any = true;
	}
	if (!any || !got)
		return -ENOENT;
	*base = first;
	*n = got;
	return 0;
}

/* ------------------------------------------------------------------ building blocks */

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static double temp_c(const uint8_t *p)
{
	return (int16_t)be16(p) / 256.0;
}

/* "   VENDOR  " -> "VENDOR"; NULL when blank. Non-printable bytes become '?'. */
static const char *ascii(struct hwc_arena *a, const uint8_t *p, size_t n)
{
	while (n && (p[n - 1] == ' ' || p[n - 1] == 0))
		n--;
	size_t s = 0;
	while (s < n && p[s] == ' ')
		s++;
	if (s == n)
		return NULL;
	char *o = hwc_arena_calloc(a, 1, n - s + 1);
	if (!o)
		return NULL;
	for (size_t i = s; i < n; i++)
		o[i - s] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	o[n - s] = 0;
	return o;
}

static void set_str(struct hwc_arena *a, struct hwc_fstr *f, const char *v, const char *what)
{
	if (v)
		HWC_SET(*f, v);
	else
		HWC_FAIL(*f, HWC_ST_ABSENT, 0, hwc_arena_printf(a, "module EEPROM: %s is blank", what));
}

static const struct {
	uint8_t id;
	const char *name;
} ids[] = {
	{0x01, "GBIC"},    {0x03, "SFP"},     {0x0c, "QSFP"},   {0x0d, "QSFP+"},
	{0x11, "QSFP28"},  {0x18, "QSFP-DD"}, {0x19, "OSFP"},   {0x1a, "SFP-DD"},
	{0x1b, "DSFP"},    {0x1e, "QSFP+ (CMIS)"}, {0x1f, "SFP-DD (CMIS)"}, {0x20, "SFP+ (CMIS)"},
};

const char *hwc_module_id_name(unsigned id)
{
	for (size_t i = 0; i < HWC_ARRAY_SIZE(ids); i++)
		if (ids[i].id == id)
			return ids[i].name;
	return NULL;
}

enum hwc_module_spec hwc_module_spec_of(unsigned id)
{
	switch (id) {
	case 0x01: case 0x03:
		return HWC_MODULE_SFF8472;
	case 0x0c: case 0x0d: case 0x11:
		return HWC_MODULE_SFF8636;
	case 0x18: case 0x19: case 0x1a: case 0x1b: case 0x1e: case 0x1f: case 0x20:
		return HWC_MODULE_CMIS;
	default:
		return HWC_MODULE_UNKNOWN;
	}
}

static const char *connector_name(uint8_t c)
{
	switch (c) {
	case 0x01: return "SC";
	case 0x07: return "LC";
	case 0x0b: return "optical pigtail";
	case 0x0c: return "MPO 1x12";
	case 0x0d: return "MPO 2x16";
	case 0x21: return "copper pigtail";
	case 0x22: return "RJ45";
	case 0x23: return "no separable connector";
	case 0x24: return "MXC 2x16";
	case 0x25: return "CS optical";
	case 0x27: return "MPO 1x16";
	case 0x28: return "MPO 2x12";
	default: return NULL;
	}
}

static void set_identity_common(struct hwc_arena *a, struct hwc_module *m, uint8_t id, uint8_t conn)
{
	const char *nm = hwc_module_id_name(id);
	HWC_SET(m->identifier, hwc_arena_printf(a, "0x%02x (%s)", id, nm ? nm : "unknown"));
	const char *cn = connector_name(conn);
	HWC_SET(m->connector, hwc_arena_printf(a, "0x%02x (%s)", conn, cn ? cn : "other"));
}

static void set_vendor(struct hwc_arena *a, struct hwc_module *m, const uint8_t *name,
		       const uint8_t *oui, const uint8_t *pn, size_t rev_len, const uint8_t *rev,
		       const uint8_t *sn, const uint8_t *date)
{
	set_str(a, &m->vendor, ascii(a, name, 16), "vendor name");
	HWC_SET(m->vendor_oui, hwc_arena_printf(a, "%02x:%02x:%02x", oui[0], oui[1], oui[2]));
	set_str(a, &m->part_number, ascii(a, pn, 16), "vendor part number");
	set_str(a, &m->revision, ascii(a, rev, rev_len), "vendor revision");
	set_str(a, &m->serial_number, ascii(a, sn, 16), "vendor serial number");
	set_str(a, &m->date_code, ascii(a, date, 8), "date code");
}

/* Diagnostics in the units the specifications give: 1/256 degC, 100 uV, 2 uA, 0.1 uW. */
static double volts(const uint8_t *p) { return be16(p) / 10000.0; }
static double bias_ma(const uint8_t *p) { return be16(p) * 0.002; }
static double power_mw(const uint8_t *p) { return be16(p) / 10000.0; }

typedef double (*conv_fn)(const uint8_t *);

/* Alarm/warning thresholds: high alarm, low alarm, high warning, low warning, 2 bytes each. */
static void set_thr(struct hwc_module_thr *t, const uint8_t *p, conv_fn f)
{
	HWC_SET(t->high_alarm, f(p));
	HWC_SET(t->low_alarm, f(p + 2));
	HWC_SET(t->high_warning, f(p + 4));
	HWC_SET(t->low_warning, f(p + 6));
	hwc_fmeta_set(&t->m, HWC_ST_OK, 0, NULL);
}

static void set_lanes(struct hwc_arena *a, struct hwc_module_lanes *l, const uint8_t *p, size_t n, conv_fn f)
{
	memset(&l->v, 0, sizeof(l->v));
	for (size_t i = 0; i < n && i < HWC_MODULE_LANES; i++) {
		double *d = HWC_VEC_PUSH(a, &l->v);
		if (!d) {
			hwc_fmeta_set(&l->m, HWC_ST_UNREADABLE, ENOMEM, "out of memory");
			return;
		}
		*d = f(p + 2 * i);
	}
	hwc_fmeta_set(&l->m, HWC_ST_OK, 0, NULL);
}

static void add_flag(struct hwc_arena *a, struct hwc_module *m, const char *what, int lane)
{
	const char **v = HWC_VEC_PUSH(a, &m->flags.v);
	if (v)
		*v = lane > 0 ? hwc_arena_printf(a, "%s (lane %d)", what, lane) : what;
}

/* Four flags of one value in bits hi..hi-3: high alarm, low alarm, high warning, low warning. */
static void flag4(struct hwc_arena *a, struct hwc_module *m, uint8_t b, int hi, const char *what, int lane)
{
	static const char *const kind[] = {"high alarm", "low alarm", "high warning", "low warning"};
	for (int k = 0; k < 4; k++)
		if (b & (1u << (hi - k)))
			add_flag(a, m, hwc_arena_printf(a, "%s %s", what, kind[k]), lane);
}

static void media_from_tech(struct hwc_arena *a, struct hwc_module *m, uint8_t tech)
{
	/* SFF-8636 byte 147 / CMIS byte 212 (SFF-8024 table 4-?: transmitter technology) */
	const char *media = tech <= 0x09 ? "optical" : tech <= 0x0b ? "passive_copper" : "active_copper";
	HWC_SET(m->media, hwc_arena_strdup(a, media));
}

/* ------------------------------------------------------------------ SFF-8472 (SFP) */

static float be_float(const uint8_t *p)
{
	uint32_t u = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	float f;
	memcpy(&f, &u, sizeof(f));
	return isfinite(f) ? f : 0;
}

/* External calibration (SFF-8472 section 9.3): slopes (unsigned 8.8) and offsets applied to the
 * raw A2h values, Rx power by the polynomial Rx_PWR(4..0). */
static void sfp_ext_cal(const uint8_t *a2, double *v, double *vcc, double *bias, double *txp, double *rxp)
{
	double tslope = be16(a2 + 84) / 256.0, vslope = be16(a2 + 88) / 256.0;
	double islope = be16(a2 + 76) / 256.0, pslope = be16(a2 + 80) / 256.0;
	*v = (int16_t)be16(a2 + 96) * tslope / 256.0 + (int16_t)be16(a2 + 86) / 256.0;
	*vcc = (be16(a2 + 98) * vslope + (int16_t)be16(a2 + 90)) / 10000.0;
	*bias = (be16(a2 + 100) * islope + (int16_t)be16(a2 + 78)) * 0.002;
	*txp = (be16(a2 + 102) * pslope + (int16_t)be16(a2 + 82)) / 10000.0;
	double r = be16(a2 + 104), acc = 0;
	/* Rx_PWR = sum of Rx_PWR(k) * raw^k; the floats run from Rx_PWR(4) at 56 to Rx_PWR(0) at 72 */
	for (int k = 0; k <= 4; k++)
		acc += be_float(a2 + 72 - 4 * k) * pow(r, k);
	*rxp = acc / 10000.0;
}

static void sfp_dom(struct hwc_arena *a, struct hwc_module *m, const uint8_t *a0, const uint8_t *a2)
{
	double t, vcc, bias, txp, rxp;
	if (a0[92] & 0x10) {
		sfp_ext_cal(a2, &t, &vcc, &bias, &txp, &rxp);
	} else {
		t = temp_c(a2 + 96), vcc = volts(a2 + 98), bias = bias_ma(a2 + 100);
		txp = power_mw(a2 + 102), rxp = power_mw(a2 + 104);
	}
	HWC_SET(m->temperature_c, t);
	HWC_SET(m->voltage_v, vcc);
	/* one lane: the values as 2-byte big-endian raw words would not carry the calibration */
	struct hwc_module_lanes *l[] = {&m->tx_bias_ma, &m->tx_power_mw, &m->rx_power_mw};
	double v[] = {bias, txp, rxp};
	for (int k = 0; k < 3; k++) {
		memset(&l[k]->v, 0, sizeof(l[k]->v));
		double *d = HWC_VEC_PUSH(a, &l[k]->v);
		if (d)
			*d = v[k];
		hwc_fmeta_set(&l[k]->m, d ? HWC_ST_OK : HWC_ST_UNREADABLE, d ? 0 : ENOMEM, d ? NULL : "out of memory");
	}
	/* thresholds are in the same raw units; external calibration applies to them too, which
	 * only modules with internal calibration (nearly all) spare us: judged as stored */
	set_thr(&m->thr[HWC_MOD_TEMP], a2, temp_c);
	set_thr(&m->thr[HWC_MOD_VCC], a2 + 8, volts);
	set_thr(&m->thr[HWC_MOD_BIAS], a2 + 16, bias_ma);
	set_thr(&m->thr[HWC_MOD_TXP], a2 + 24, power_mw);
	set_thr(&m->thr[HWC_MOD_RXP], a2 + 32, power_mw);
	hwc_fmeta_set(&m->flags.m, HWC_ST_OK, 0, NULL);
	if (!(a0[93] & 0x80)) {
		hwc_fmeta_set(&m->flags.m, HWC_ST_UNSUPPORTED, 0, "module EEPROM: alarm/warning flags not implemented");
		return;
	}
	static const char *const what[] = {"temperature", "voltage", "tx bias", "tx power", "rx power"};
	for (int k = 0; k < 5; k++) {
		/* byte 112/116: temp (7,6) vcc (5,4) bias (3,2) txp (1,0); 113/117: rxp (7,6) */
		int byte = k < 4 ? 0 : 1, bit = k < 4 ? 7 - 2 * k : 7;
		if (a2[112 + byte] & (1u << bit)) add_flag(a, m, hwc_arena_printf(a, "%s high alarm", what[k]), 0);
		if (a2[112 + byte] & (1u << (bit - 1))) add_flag(a, m, hwc_arena_printf(a, "%s low alarm", what[k]), 0);
		if (a2[116 + byte] & (1u << bit)) add_flag(a, m, hwc_arena_printf(a, "%s high warning", what[k]), 0);
		if (a2[116 + byte] & (1u << (bit - 1))) add_flag(a, m, hwc_arena_printf(a, "%s low warning", what[k]), 0);
	}
}

static void decode_sff8472(struct hwc_arena *a, const struct hwc_module_map *mp, struct hwc_module *m)
{
	const uint8_t *a0 = mp->lower; /* A0h: 256 bytes, lower and upper at once */
	set_identity_common(a, m, a0[0], a0[2]);
	set_vendor(a, m, a0 + 20, a0 + 37, a0 + 40, 4, a0 + 56, a0 + 68, a0 + 84);
	HWC_SET(m->compliance_codes, hwc_arena_printf(a, "0x%02x 0x%02x 0x%02x 0x%02x 0x%02x 0x%02x 0x%02x 0x%02x 0x%02x",
						      a0[3], a0[4], a0[5], a0[6], a0[7], a0[8], a0[9], a0[10], a0[36]));
	const char *media = a0[8] & 0x04 ? "passive_copper" : a0[8] & 0x08 ? "active_cable" : "optical";
	HWC_SET(m->media, hwc_arena_strdup(a, media));
	if (a0[8] & 0x0c)
		HWC_SET(m->length_m, (double)a0[18]);
	else if (a0[15])
		HWC_SET(m->length_m, a0[15] * 100.0);
	else
		HWC_SET(m->length_m, (double)(a0[19] ? a0[19] * 10 : a0[16] * 10));
	double br = a0[12] == 0xff ? a0[66] * 250.0 : a0[12] * 100.0;
	HWC_SET(m->nominal_mbd, br);
	HWC_SET(m->lanes, 1);
	bool ddm = a0[92] & 0x40;
	HWC_SET(m->ddm, ddm);
	struct hwc_fmeta why = {HWC_ST_UNSUPPORTED, 0, "module EEPROM: no digital diagnostics (SFF-8472 byte 92 bit 6)"};
	if (ddm && !mp->upper[0])
		why = (struct hwc_fmeta){HWC_ST_ABSENT, 0, "module EEPROM: page A2h (diagnostics) was not read"};
	if (ddm && mp->upper[0]) {
		sfp_dom(a, m, a0, mp->upper[0]);
		return;
	}
	hwc_module_fail_dom(m, &why);
}

/* ------------------------------------------------------------------ SFF-8636 (QSFP+/QSFP28) */

static void qsfp_flags(struct hwc_arena *a, struct hwc_module *m, const uint8_t *lo)
{
	hwc_fmeta_set(&m->flags.m, HWC_ST_OK, 0, NULL);
	flag4(a, m, lo[6], 7, "temperature", 0);
	flag4(a, m, lo[7], 7, "voltage", 0);
	static const struct {
		int byte;
		const char *what;
	} lanes[] = {{9, "rx power"}, {11, "tx bias"}, {13, "tx power"}};
	for (size_t k = 0; k < 3; k++)
		for (int ch = 0; ch < 4; ch++)
			flag4(a, m, lo[lanes[k].byte + ch / 2], ch % 2 ? 3 : 7, lanes[k].what, ch + 1);
}

static void qsfp_dom(struct hwc_arena *a, const struct hwc_module_map *mp, struct hwc_module *m)
{
	const uint8_t *lo = mp->lower, *p3 = mp->upper[3];
	HWC_SET(m->ddm, true); /* SFF-8636 modules always have the monitors (copper reads 0) */
	HWC_SET(m->temperature_c, temp_c(lo + 22));
	HWC_SET(m->voltage_v, volts(lo + 26));
	set_lanes(a, &m->rx_power_mw, lo + 34, 4, power_mw);
	set_lanes(a, &m->tx_bias_ma, lo + 42, 4, bias_ma);
	set_lanes(a, &m->tx_power_mw, lo + 50, 4, power_mw);
	qsfp_flags(a, m, lo);
	if (!p3) {
		struct hwc_fmeta why = {HWC_ST_ABSENT, 0, lo[2] & 0x04 ? "module EEPROM: flat memory, no page 03h (thresholds)"
										 : "module EEPROM: page 03h (thresholds) was not read"};
		for (int k = 0; k < HWC_MOD__N; k++)
			m->thr[k].m = why;
		return;
	}
	/* page 03h, offsets from 128: temperature 128, voltage 144, rx power 176, bias 184, tx power 192 */
	set_thr(&m->thr[HWC_MOD_TEMP], p3 + 0, temp_c);
	set_thr(&m->thr[HWC_MOD_VCC], p3 + 16, volts);
	set_thr(&m->thr[HWC_MOD_RXP], p3 + 48, power_mw);
	set_thr(&m->thr[HWC_MOD_BIAS], p3 + 56, bias_ma);
	set_thr(&m->thr[HWC_MOD_TXP], p3 + 64, power_mw);
}

static void decode_sff8636(struct hwc_arena *a, const struct hwc_module_map *mp, struct hwc_module *m)
{
	const uint8_t *up = mp->upper[0]; /* index i is byte 128 + i */
	if (!up) {
		struct hwc_fmeta why = {HWC_ST_ABSENT, 0, "module EEPROM: upper page 00h was not read"};
		hwc_module_fail_identity(m, &why);
		HWC_SET(m->identifier, hwc_arena_printf(a, "0x%02x (%s)", mp->lower[0], hwc_module_id_name(mp->lower[0])));
	} else {
		set_identity_common(a, m, up[0], up[2]);
		set_vendor(a, m, up + 20, up + 37, up + 40, 2, up + 56, up + 68, up + 84);
		HWC_SET(m->compliance_codes, hwc_arena_printf(a, "0x%02x 0x%02x 0x%02x 0x%02x 0x%02x 0x%02x 0x%02x 0x%02x 0x%02x",
							      up[3], up[4], up[5], up[6], up[7], up[8], up[9], up[10], up[64]));
		media_from_tech(a, m, up[19] >> 4);
		/* byte 146: copper or active cable length (m); else the OM3 / SMF lengths */
		if (up[18])
			HWC_SET(m->length_m, (double)up[18]);
		else
			HWC_SET(m->length_m, up[14] ? up[14] * 1000.0 : up[15] * 2.0);
		HWC_SET(m->nominal_mbd, up[12] == 0xff ? up[94] * 250.0 : up[12] * 100.0);
		HWC_SET(m->lanes, 4);
	}
	qsfp_dom(a, mp, m);
}

/* ------------------------------------------------------------------ CMIS 4/5 */

static void cmis_lane_flags(struct hwc_arena *a, struct hwc_module *m, const uint8_t *p11, size_t lanes)
{
	/* page 11h bytes 139..146 (tx power, tx bias) and 149..152 (rx power): one bit per lane,
	 * in the order high alarm, low alarm, high warning, low warning */
	static const struct {
		int first;
		const char *what;
	} g[] = {{139 - 128, "tx power"}, {143 - 128, "tx bias"}, {149 - 128, "rx power"}};
	static const char *const kind[] = {"high alarm", "low alarm", "high warning", "low warning"};
	for (size_t k = 0; k < 3; k++)
		for (int j = 0; j < 4; j++)
			for (size_t ln = 0; ln < lanes; ln++)
				if (p11[g[k].first + j] & (1u << ln))
					add_flag(a, m, hwc_arena_printf(a, "%s %s", g[k].what, kind[j]), (int)ln + 1);
}

static double bias_x(const uint8_t *p, int mult)
{
	return bias_ma(p) * mult;
}

static void cmis_lanes(struct hwc_arena *a, const struct hwc_module_map *mp, struct hwc_module *m, size_t lanes)
{
	const uint8_t *p1 = mp->upper[1], *p2 = mp->upper[2], *p11 = mp->upper[0x11];
	struct hwc_fmeta why = {HWC_ST_ABSENT, 0, "module EEPROM: page 01h (monitor advertisement) was not read"};
	if (!p1) {
		m->tx_bias_ma.m = m->tx_power_mw.m = m->rx_power_mw.m = why;
		return;
	}
	uint8_t adv = p1[160 - 128]; /* bit 0 tx bias, 1 tx power, 2 rx power; bits 4-3 bias multiplier */
	int mult = 1 << ((adv >> 3) & 3);
	struct hwc_fmeta nomon = {HWC_ST_UNSUPPORTED, 0, "module EEPROM: the module has no such monitor (page 01h byte 160)"};
	struct hwc_fmeta nop11 = {HWC_ST_ABSENT, 0, "module EEPROM: page 11h (lane monitors) was not read"};
	struct hwc_module_lanes *dst[] = {&m->tx_power_mw, &m->tx_bias_ma, &m->rx_power_mw};
	const int bit[] = {1, 0, 2}, off[] = {154 - 128, 170 - 128, 186 - 128};
	for (int k = 0; k < 3; k++) {
		if (!(adv & (1u << bit[k])))
			dst[k]->m = nomon;
		else if (!p11)
			dst[k]->m = nop11;
		else
			set_lanes(a, dst[k], p11 + off[k], lanes, power_mw);
	}
	for (size_t i = 0; hwc_ok(m->tx_bias_ma) && i < m->tx_bias_ma.v.n; i++)
		m->tx_bias_ma.v.items[i] = bias_x(p11 + off[1] + 2 * i, mult);
	if (p11)
		cmis_lane_flags(a, m, p11, lanes);
	if (!p2)
		return;
	/* page 02h thresholds: tx power 176, tx bias 184, rx power 192 */
	set_thr(&m->thr[HWC_MOD_TXP], p2 + 48, power_mw);
	set_thr(&m->thr[HWC_MOD_BIAS], p2 + 56, bias_ma);
	set_thr(&m->thr[HWC_MOD_RXP], p2 + 64, power_mw);
	struct hwc_module_thr *b = &m->thr[HWC_MOD_BIAS];
	b->high_alarm.v *= mult, b->low_alarm.v *= mult, b->high_warning.v *= mult, b->low_warning.v *= mult;
}

static void cmis_identity(struct hwc_arena *a, const struct hwc_module_map *mp, struct hwc_module *m)
{
	const uint8_t *lo = mp->lower, *up = mp->upper[0];
	set_identity_common(a, m, up[0], up[203 - 128]);
	set_vendor(a, m, up + 1, up + 17, up + 20, 2, up + 36, up + 38, up + 54);
	/* first application: host interface id, media interface id (bytes 86, 87) */
	HWC_SET(m->compliance_codes, hwc_arena_printf(a, "media type 0x%02x, host 0x%02x, media 0x%02x", lo[85], lo[86], lo[87]));
	uint8_t mt = lo[85]; /* SFF-8024 table 4-? media type: 1 MMF, 2 SMF, 3 passive copper, 4 active */
	if (mt == 3)
		HWC_SET(m->media, hwc_arena_strdup(a, "passive_copper"));
	else
		media_from_tech(a, m, up[212 - 128]);
	uint8_t len = up[202 - 128];
	static const double mul[] = {0.1, 1, 10, 100};
	HWC_SET(m->length_m, (len & 0x3f) * mul[len >> 6]);
	size_t lanes = lo[88] & 0x0f;
	HWC_SET(m->lanes, (int64_t)(lanes && lanes <= 8 ? lanes : 8));
	HWC_FAIL(m->nominal_mbd, HWC_ST_UNSUPPORTED, 0, "module EEPROM: CMIS advertises applications, not a nominal rate");
}

static void decode_cmis(struct hwc_arena *a, const struct hwc_module_map *mp, struct hwc_module *m)
{
	const uint8_t *lo = mp->lower;
	HWC_SET(m->spec, hwc_arena_printf(a, "CMIS %u.%u", lo[1] >> 4, lo[1] & 0x0f));
	if (!mp->upper[0]) {
		struct hwc_fmeta why = {HWC_ST_ABSENT, 0, "module EEPROM: upper page 00h was not read"};
		hwc_module_fail_identity(m, &why);
		HWC_SET(m->identifier, hwc_arena_printf(a, "0x%02x (%s)", lo[0], hwc_module_id_name(lo[0])));
	} else {
		cmis_identity(a, mp, m);
	}
	bool flat = lo[2] & 0x80; /* flat memory: passive copper, only page 00h */
	HWC_SET(m->ddm, !flat);
	HWC_SET(m->temperature_c, temp_c(lo + 14));
	HWC_SET(m->voltage_v, volts(lo + 16));
	hwc_fmeta_set(&m->flags.m, HWC_ST_OK, 0, NULL);
	/* byte 9, from bit 0: temperature then voltage, each high/low alarm, high/low warning */
	static const char *const kind[] = {"high alarm", "low alarm", "high warning", "low warning"};
	for (int k = 0; k < 8; k++)
		if (lo[9] & (1u << k))
			add_flag(a, m, hwc_arena_printf(a, "%s %s", k < 4 ? "temperature" : "voltage", kind[k % 4]), 0);
	struct hwc_fmeta why = {HWC_ST_UNSUPPORTED, 0, "module EEPROM: flat memory (no diagnostics pages)"};
	if (flat) {
		hwc_module_fail_dom(m, &why);
		HWC_SET(m->temperature_c, temp_c(lo + 14));
		HWC_SET(m->voltage_v, volts(lo + 16));
		return;
	}
	struct hwc_fmeta nop2 = {HWC_ST_ABSENT, 0, "module EEPROM: page 02h (thresholds) was not read"};
	for (int k = 0; k < HWC_MOD__N; k++)
		m->thr[k].m = nop2;
	if (mp->upper[2]) {
		set_thr(&m->thr[HWC_MOD_TEMP], mp->upper[2], temp_c);
		set_thr(&m->thr[HWC_MOD_VCC], mp->upper[2] + 8, volts);
	}
	cmis_lanes(a, mp, m, (size_t)(hwc_ok(m->lanes) ? m->lanes.v : 8));
}

/* ------------------------------------------------------------------ entry */

void hwc_module_fail_identity(struct hwc_module *m, const struct hwc_fmeta *why)
{
	struct hwc_fstr *s[] = {&m->spec, &m->identifier, &m->vendor, &m->vendor_oui, &m->part_number,
				&m->revision, &m->serial_number, &m->date_code, &m->connector, &m->media,
				&m->compliance_codes};
	for (size_t i = 0; i < HWC_ARRAY_SIZE(s); i++)
		s[i]->m = *why;
	m->length_m.m = m->nominal_mbd.m = m->lanes.m = *why;
	m->max_gbps.m = m->rate_basis.m = *why;
}

void hwc_module_fail_dom(struct hwc_module *m, const struct hwc_fmeta *why)
{
	m->temperature_c.m = m->voltage_v.m = *why;
	m->tx_bias_ma.m = m->tx_power_mw.m = m->rx_power_mw.m = *why;
	for (int k = 0; k < HWC_MOD__N; k++)
		m->thr[k].m = *why;
	m->flags.m = *why;
}

void hwc_module_fail(struct hwc_module *m, const struct hwc_fmeta *why)
{
	hwc_module_fail_identity(m, why);
	m->ddm.m = *why;
	hwc_module_fail_dom(m, why);
}

int hwc_module_decode(const struct hwc_module_map *mp, struct hwc_arena *a, struct hwc_module *m)
{
	const char *src = m->source.v;
	memset(m, 0, sizeof(*m));
	if (src)
		HWC_SET(m->source, src);
	if (!mp->lower) {
		struct hwc_fmeta why = {HWC_ST_ABSENT, 0, "module EEPROM: nothing was read"};
		hwc_module_fail(m, &why);
		return -ENOENT;
	}
	switch (hwc_module_spec_of(mp->lower[0])) {
	case HWC_MODULE_SFF8472:
		HWC_SET(m->spec, hwc_arena_strdup(a, "SFF-8472"));
		decode_sff8472(a, mp, m);
		hwc_module_rate(mp, a, m);
		return 0;
	case HWC_MODULE_SFF8636:
		HWC_SET(m->spec, hwc_arena_strdup(a, mp->lower[0] == 0x0c ? "SFF-8436" : "SFF-8636"));
		decode_sff8636(a, mp, m);
		hwc_module_rate(mp, a, m);
		return 0;
	case HWC_MODULE_CMIS:
		decode_cmis(a, mp, m);
		hwc_module_rate(mp, a, m);
		return 0;
	default: {
		struct hwc_fmeta why = {HWC_ST_UNSUPPORTED, 0,
					hwc_arena_printf(a, "module EEPROM: identifier 0x%02x is no memory map hwcheck decodes", mp->lower[0])};
		hwc_module_fail(m, &why);
		HWC_SET(m->identifier, hwc_arena_printf(a, "0x%02x (%s)", mp->lower[0],
							 hwc_module_id_name(mp->lower[0]) ? hwc_module_id_name(mp->lower[0]) : "unknown"));
		return -EPROTONOSUPPORT;
	}
	}
}

/* The linear buffer of `ethtool -m IF hex on` (the ioctl's layout): SFF-8472 A0h then A2h;
 * SFF-8636 lower, upper page 00h, then the upper halves of pages 01h..03h (640 bytes). */
void hwc_module_map_linear(const uint8_t *b, size_t n, struct hwc_module_map *mp)
{
	memset(mp, 0, sizeof(*mp));
	if (n < 128)
		return;
	mp->lower = b;
	if (hwc_module_spec_of(b[0]) == HWC_MODULE_SFF8472) {
		if (n < 256)
			mp->lower = NULL;
		else if (n >= 512)
			mp->upper[0] = b + 256;
		return;
	}
	for (size_t p = 0; p < 4 && n >= 256 + 128 * (p ? p : 0); p++)
		mp->upper[p] = p == 0 ? b + 128 : b + 256 + 128 * (p - 1);
	if (b[2] & 0x04 && hwc_module_spec_of(b[0]) == HWC_MODULE_SFF8636)
		mp->upper[1] = mp->upper[2] = mp->upper[3] = NULL; /* flat: no pages beyond 00h */
}
