/* SPDX-License-Identifier: MIT */
/* The module EEPROM decoder against its oracle, ethtool: for each capture of
 * tests/fixtures/module-eeprom (the hex dump and `ethtool -m`'s text of the same module), every
 * line of ethtool's text that maps to one of our facts must agree, to the digits ethtool printed.
 * Then CMIS bytes placed per the CMIS 5 tables (no public capture exists), and broken input. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwinfo/hwinfo.h"
#include "test.h"

static struct hwc_arena *A;

static char *slurp_at(const char *dir, const char *name, const char *ext, size_t *len)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/%s/%s.%s", HWC_FIXTURES, dir, name, ext);
	return t_slurp(p, 1 << 16, len);
}

/* ethtool's number with its printed precision: "8.500 mA" -> 8.5, tolerance 0.0005. */
static bool printed_num(const char *v, double *x, double *tol)
{
	char *end;
	*x = strtod(v, &end);
	if (end == v)
		return false;
	const char *dot = memchr(v, '.', (size_t)(end - v));
	int digits = dot ? (int)(end - dot - 1) : 0;
	*tol = 0.5 * pow(10, -digits) + 1e-9;
	return true;
}

static int checked;

static void check_num(const char *label, const char *v, double ours, bool known)
{
	double x, tol;
	if (!printed_num(v, &x, &tol)) {
		CHECK(!"ethtool's value is no number");
		return;
	}
	checked++;
	if (known && fabs(ours - x) <= tol) {
		t_pass++;
		return;
	}
	t_fail++;
	fprintf(stderr, "%s: ethtool %s, hwcheck %s%g\n", label, v, known ? "" : "unknown ", ours);
}

static void check_str(const char *label, const char *v, const struct hwc_fstr *f, size_t prefix)
{
	checked++;
	if (hwc_ok(*f) && (prefix ? strncmp(f->v, v, prefix) == 0 : strcmp(f->v, v) == 0)) {
		t_pass++;
		return;
	}
	t_fail++;
	fprintf(stderr, "%s: ethtool '%s', hwcheck '%s'\n", label, v, hwc_ok(*f) ? f->v : "(unknown)");
}

/* "Laser bias current high alarm threshold" -> the threshold it names, or NULL. */
static const double *threshold_of(const struct hwc_module *m, const char *label)
{
	static const struct {
		const char *prefix;
		int k;
	} q[] = {{"Laser bias current ", HWC_MOD_BIAS}, {"Laser output power ", HWC_MOD_TXP},
		 {"Laser rx power ", HWC_MOD_RXP},       {"Module temperature ", HWC_MOD_TEMP},
		 {"Module voltage ", HWC_MOD_VCC}};
	if (!strstr(label, " threshold"))
		return NULL;
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		size_t n = strlen(q[i].prefix);
		if (strncmp(label, q[i].prefix, n) != 0 || !hwc_ok(m->thr[q[i].k]))
			continue;
		const struct hwc_module_thr *t = &m->thr[q[i].k];
		const char *r = label + n;
		if (strncmp(r, "high alarm", 10) == 0) return &t->high_alarm.v;
		if (strncmp(r, "low alarm", 9) == 0) return &t->low_alarm.v;
		if (strncmp(r, "high warning", 12) == 0) return &t->high_warning.v;
		if (strncmp(r, "low warning", 11) == 0) return &t->low_warning.v;
	}
	return NULL;
}

/* A lane value: "Laser bias current" (SFP) or "Laser tx bias current (Channel 2)". */
static bool lane_of(const struct hwc_module *m, const char *label, double *v, bool *known)
{
	static const struct {
		const char *prefix;
		size_t off;
	} q[] = {{"Laser bias current", offsetof(struct hwc_module, tx_bias_ma)},
		 {"Laser tx bias current", offsetof(struct hwc_module, tx_bias_ma)},
		 {"Laser output power", offsetof(struct hwc_module, tx_power_mw)},
		 {"Transmit avg optical power", offsetof(struct hwc_module, tx_power_mw)},
		 {"Receiver signal average optical power", offsetof(struct hwc_module, rx_power_mw)},
		 {"Rcvr signal avg optical power", offsetof(struct hwc_module, rx_power_mw)}};
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		size_t n = strlen(q[i].prefix);
		if (strncmp(label, q[i].prefix, n) != 0 || strstr(label, "threshold") || strstr(label, "alarm") ||
		    strstr(label, "warning"))
			continue;
		const struct hwc_module_lanes *l = (const void *)((const char *)m + q[i].off);
		const char *ch = strstr(label, "Channel ");
		size_t lane = ch ? (size_t)atoi(ch + 8) - 1 : 0;
		*known = hwc_ok(*l) && lane < l->v.n;
		*v = *known ? l->v.items[lane] : 0;
		return true;
	}
	return false;
}

static void check_line(const struct hwc_module *m, const char *label, const char *v)
{
	static const struct {
		const char *label;
		size_t off, prefix;
	} strs[] = {
		{"Identifier", offsetof(struct hwc_module, identifier), 4},
		{"Connector", offsetof(struct hwc_module, connector), 4},
		{"Vendor name", offsetof(struct hwc_module, vendor), 0},
		{"Vendor OUI", offsetof(struct hwc_module, vendor_oui), 0},
		{"Vendor PN", offsetof(struct hwc_module, part_number), 0},
		{"Vendor rev", offsetof(struct hwc_module, revision), 0},
		{"Vendor SN", offsetof(struct hwc_module, serial_number), 0},
		{"Date code", offsetof(struct hwc_module, date_code), 0},
	};
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strcmp(label, strs[i].label) == 0)
			return check_str(label, v, (const void *)((const char *)m + strs[i].off), strs[i].prefix);
	const double *t = threshold_of(m, label);
	double x;
	bool known;
	if (t)
		check_num(label, v, *t, true);
	else if (strstr(label, "threshold"))
		check_num(label, v, 0, false); /* ethtool has a threshold we do not */
	else if (lane_of(m, label, &x, &known))
		check_num(label, v, x, known);
	else if (strcmp(label, "Module temperature") == 0)
		check_num(label, v, m->temperature_c.v, hwc_ok(m->temperature_c));
	else if (strcmp(label, "Module voltage") == 0)
		check_num(label, v, m->voltage_v.v, hwc_ok(m->voltage_v));
	else if (strncmp(label, "Length (Copper", 14) == 0 && hwc_ok(m->media) && strcmp(m->media.v, "optical") != 0)
		check_num(label, v, m->length_m.v, hwc_ok(m->length_m));
	else if (strcmp(label, "Cable assembly length") == 0) /* CMIS byte 202, whatever the media */
		check_num(label, v, m->length_m.v, hwc_ok(m->length_m));
	else if (strcmp(label, "Optical diagnostics support") == 0)
		check_str(label, v, &(struct hwc_fstr){m->ddm.m, m->ddm.v ? "Yes" : "No"}, 0);
}

/* The bytes (DIR/HEX.hex) and ethtool's decoding of them (DIR/TXT.ethtool), DIR under tests/fixtures. */
static void oracle_at(const char *dir, const char *hexname, const char *txtname, int min_checked)
{
	size_t hl, tl, base, n;
	const char *name = txtname;
	char *hex = slurp_at(dir, hexname, "hex", &hl), *txt = slurp_at(dir, txtname, "ethtool", &tl);
	uint8_t buf[640];
	CHECK_INT(hwc_module_parse_hex(hex, hl, buf, sizeof(buf), &base, &n), 0);
	CHECK_INT(base, 0);
	struct hwc_module_map mp;
	hwc_module_map_linear(buf, n, &mp);
	struct hwc_module m;
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_module_decode(&mp, A, &m), 0);
	checked = 0;
	for (char *l = txt, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = 0;
		char *c = strstr(l, " : ");
		if (!c)
			continue;
		char *e = c;
		while (e > l && e[-1] == ' ')
			e--;
		*e = 0;
		while (*l == ' ' || *l == '\t')
			l++;
		check_line(&m, l, c + 3);
	}
	if (checked < min_checked)
		fprintf(stderr, "%s: only %d of ethtool's lines compared\n", name, checked);
	CHECK(checked >= min_checked);
	free(hex);
	free(txt);
}

static void oracle(const char *name, int min_checked)
{
	oracle_at("module-eeprom", name, name, min_checked);
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* CMIS 5: bytes placed by the tables of the specification, values worked out by hand. */
static void test_cmis(void)
{
	static uint8_t lo[128], up0[128], p1[128], p2[128], p11[128];
	lo[0] = 0x19, lo[1] = 0x50, lo[2] = 0x00;       /* OSFP, CMIS 5.0, paged */
	lo[9] = 0x01;                                    /* latched temperature high alarm */
	put16(lo + 14, 0x1e80);                          /* 30.5 degC */
	put16(lo + 16, 33000);                           /* 3.3 V */
	lo[85] = 0x02, lo[86] = 0x11, lo[87] = 0x1d, lo[88] = 0x88; /* SMF, 8 host / 8 media lanes */
	up0[0] = 0x19;
	memcpy(up0 + 1, "NVIDIA          ", 16);
	up0[17] = 0x00, up0[18] = 0x02, up0[19] = 0xc9;
	memcpy(up0 + 20, "MMS4X00-NS      ", 16);
	memcpy(up0 + 36, "A6", 2);
	memcpy(up0 + 38, "MT2301FT00001   ", 16);
	memcpy(up0 + 54, "230115  ", 8);
	up0[202 - 128] = 0x83;                           /* x10 m, 3: 30 m */
	up0[203 - 128] = 0x0c, up0[212 - 128] = 0x05;    /* MPO 1x12, 1310 nm laser */
	p1[160 - 128] = 0x07 | 0x08;                     /* bias, tx and rx power monitors; bias x2 */
	put16(p2 + 0, 75 * 256), put16(p2 + 2, (uint16_t)(-5 * 256)); /* temp alarms 75 / -5 */
	put16(p2 + 4, 70 * 256), put16(p2 + 6, 0);
	put16(p2 + 194 - 128, 100);                      /* rx power low alarm 0.01 mW */
	put16(p2 + 184 - 128, 7500);                     /* bias high alarm 15 mA raw, 30 mA x2 */
	for (int l = 0; l < 8; l++) {
		put16(p11 + 154 - 128 + 2 * l, 10000);   /* tx power 1.0 mW */
		put16(p11 + 170 - 128 + 2 * l, 5000);    /* bias 10 mA raw, 20 mA x2 */
		put16(p11 + 186 - 128 + 2 * l, l == 2 ? 50 : 8000); /* rx power: lane 3 0.005 mW */
	}
	p11[150 - 128] = 0x04;                           /* rx power low alarm, lane 3 */
	struct hwc_module_map mp = {.lower = lo};
	mp.upper[0] = up0, mp.upper[1] = p1, mp.upper[2] = p2, mp.upper[0x11] = p11;
	struct hwc_module m;
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_module_decode(&mp, A, &m), 0);
	CHECK_STR(m.spec.v, "CMIS 5.0");
	CHECK_STR(m.identifier.v, "0x19 (OSFP)");
	CHECK_STR(m.vendor.v, "NVIDIA");
	CHECK_STR(m.vendor_oui.v, "00:02:c9");
	CHECK_STR(m.part_number.v, "MMS4X00-NS");
	CHECK_STR(m.serial_number.v, "MT2301FT00001");
	CHECK_STR(m.media.v, "optical");
	CHECK(fabs(m.length_m.v - 30) < 1e-9);
	CHECK_INT(m.lanes.v, 8);
	CHECK(m.ddm.v);
	CHECK(fabs(m.temperature_c.v - 30.5) < 1e-9 && fabs(m.voltage_v.v - 3.3) < 1e-9);
	CHECK_INT(m.rx_power_mw.v.n, 8);
	CHECK(fabs(m.rx_power_mw.v.items[2] - 0.005) < 1e-9 && fabs(m.tx_power_mw.v.items[7] - 1.0) < 1e-9);
	CHECK(fabs(m.tx_bias_ma.v.items[0] - 20) < 1e-9);
	CHECK(fabs(m.thr[HWC_MOD_BIAS].high_alarm.v - 30) < 1e-9);
	CHECK(fabs(m.thr[HWC_MOD_RXP].low_alarm.v - 0.01) < 1e-9);
	CHECK(fabs(m.thr[HWC_MOD_TEMP].low_alarm.v + 5) < 1e-9);
	CHECK_INT(m.flags.v.n, 2);
	CHECK_STR(m.flags.v.items[0], "temperature high alarm");
	CHECK_STR(m.flags.v.items[1], "rx power low alarm (lane 3)");
	/* without page 11h the lane monitors are absent, not zero */
	mp.upper[0x11] = NULL;
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_module_decode(&mp, A, &m), 0);
	CHECK_INT(m.rx_power_mw.m.st, HWC_ST_ABSENT);
	/* flat memory (passive copper): no diagnostics to judge */
	lo[2] = 0x80, lo[85] = 0x03;
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_module_decode(&mp, A, &m), 0);
	CHECK(!m.ddm.v);
	CHECK_STR(m.media.v, "passive_copper");
	CHECK_INT(m.thr[HWC_MOD_RXP].m.st, HWC_ST_UNSUPPORTED);
}

static void test_broken(void)
{
	uint8_t b[640];
	size_t base, n;
	const char *bad[] = {"", "Offset\t\tValues\n------\t\t------\n",
			     "0x0000:\t\t03 04\n0x0020:\t\t00\n",        /* a gap */
			     "0x0000:\t\t03 0g 21\n",                     /* not hex */
			     "0x0000:\t\t03 04\nnetlink error: Input/output error\n",
			     "0x0000:\t\t031 04\n"};
	const int want[] = {-2, -2, -22, -2, -22, -2};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(hwc_module_parse_hex(bad[i], strlen(bad[i]), b, sizeof(b), &base, &n), want[i]);
	char big[4096] = "";
	for (int l = 0; l < 50; l++)
		snprintf(big + strlen(big), sizeof(big) - strlen(big), "0x%04x:\t\t00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n", l * 16);
	CHECK_INT(hwc_module_parse_hex(big, strlen(big), b, 640, &base, &n), -7); /* more than 640 */
	/* too short for a lower page; an identifier without a memory map hwcheck knows */
	struct hwc_module_map mp;
	struct hwc_module m;
	memset(b, 0, sizeof(b));
	hwc_module_map_linear(b, 100, &mp);
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_module_decode(&mp, A, &m), -2);
	CHECK_INT(m.vendor.m.st, HWC_ST_ABSENT);
	b[0] = 0x07;
	hwc_module_map_linear(b, 256, &mp);
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_module_decode(&mp, A, &m), -EPROTONOSUPPORT);
	CHECK_INT(m.temperature_c.m.st, HWC_ST_UNSUPPORTED);
	/* a QSFP28 of 256 bytes: no page 03h, thresholds absent with the reason */
	b[0] = 0x11, b[128] = 0x11;
	hwc_module_map_linear(b, 256, &mp);
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_module_decode(&mp, A, &m), 0);
	CHECK_INT(m.thr[HWC_MOD_TEMP].m.st, HWC_ST_ABSENT);
	CHECK_INT(m.vendor.m.st, HWC_ST_ABSENT); /* blank name */
}

int main(void)
{
	A = hwc_arena_new();
	oracle("sfp-mikrotik-s-ao0005", 9);
	oracle("qsfp28-mellanox-mlxsw-sfp42", 14);
	/* CMIS: bytes RECONSTRUCTED per the CMIS tables, decoded by ethtool 6.1 through its ioctl
	 * path (tests/oracle/: the .ethtool files are ethtool's own text, checked again by the test
	 * ethtool_oracle wherever ethtool is installed) */
	oracle("cmis-osfp-sr8-reconstructed", 11);
	oracle("cmis-qsfpdd-dac-reconstructed", 9);
	oracle("cmis-qsfpdd-aoc-reconstructed", 11);
	/* a real QSFP28's two published decodings (robinchrist/100G-CWDM4-docs), the bytes rebuilt
	 * from them by tests/link/mk_sfp_rebuilt.py (ethtool prints both back line for line: test
	 * link_sfp_rebuilt_oracle): refused by a ConnectX-4 (every lane dark), then at 40G */
	oracle_at("../link/real-data", "qsfp28-finisar-cwdm4-refused-rebuilt", "qsfp28-finisar-cwdm4-refused-robinchrist", 40);
	oracle_at("../link/real-data", "qsfp28-finisar-cwdm4-40g-rebuilt", "qsfp28-finisar-cwdm4-40g-robinchrist", 40);
	test_cmis();
	test_broken();
	hwc_arena_free(A);
	TEST_MAIN_END();
}
