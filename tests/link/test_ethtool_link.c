/* SPDX-License-Identifier: MIT */
/* Unit tests of negotiated vs possible (issue 14): `ethtool IF` on real captures and broken text,
 * and the module rate read from real EEPROM dumps (tests/fixtures/module-eeprom/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwinfo/hwinfo.h"
#include "test.h"

static struct hwc_arena *A;

static char *seed(const char *name, size_t *len)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/ethtool_link/%s", HWC_SEEDS, name);
	char *raw = t_slurp(p, 1 << 16, len);
	char *buf = hwc_arena_zalloc(A, *len + 1);
	memcpy(buf, raw, *len);
	free(raw);
	return buf;
}

static int parse(const char *name, struct hwc_netdev_modes *m)
{
	size_t len;
	char *t = seed(name, &len);
	memset(m, 0, sizeof(*m));
	return hwc_ethtool_parse_link(t, len, "ethtool t", A, m);
}

static void test_captures(void)
{
	struct hwc_netdev_modes m;
	/* mlx5 100GbE, cut after Port: no partner, autoneg or link-detected line */
	CHECK_INT(parse("mlx5-100g-p1-cut.txt", &m), 0);
	CHECK_INT(m.supported.v.n, 23);
	CHECK_STR(m.supported.v.items[0], "1000baseT/Full");
	CHECK_INT(m.supported_max_mbps.v, 100000);
	CHECK_INT(m.advertised_max_mbps.v, 100000);
	CHECK_INT(m.partner_max_mbps.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(m.speed_mbps.v, 100000);
	CHECK_STR(m.duplex.v, "Full");
	CHECK_STR(m.port.v, "FIBRE");
	CHECK_INT(m.link_detected.m.st, HWC_ST_ABSENT);
	CHECK_INT(m.lanes.m.st, HWC_ST_ABSENT);
	/* ice with its tabs stripped by the mailer: continuation lines still belong to their list */
	CHECK_INT(parse("e810-em1-tabs-stripped.txt", &m), 0);
	CHECK_INT(m.supported.v.n, 7);
	CHECK_INT(m.supported_max_mbps.v, 25000);
	CHECK_INT(m.advertised.v.n, 2);
	CHECK_INT(m.speed_mbps.v, 25000);
	CHECK(m.autoneg.m.st == HWC_ST_OK && !m.autoneg.v);
	CHECK(m.link_detected.m.st == HWC_ST_OK && m.link_detected.v);
	CHECK_STR(m.port.v, "Direct Attach Copper");
	/* mlxsw: Lanes, a FEC pseudo-mode, a repeated 'Advertised link modes' label (the first wins) */
	CHECK_INT(parse("mlxsw-swp1-lanes4-netdev2020.txt", &m), 0);
	CHECK_INT(m.supported_max_mbps.v, 200000);
	CHECK_INT(m.advertised.v.n, 29);
	CHECK_INT(m.advertised_max_mbps.v, 200000);
	CHECK_INT(m.lanes.v, 4);
	CHECK_INT(m.speed_mbps.v, 100000);
	CHECK(m.autoneg.v);
	/* 'Not reported' is unsupported, not empty; the message level's continuation is skipped */
	CHECK_INT(parse("hccn-200g-not-reported.txt", &m), 0);
	CHECK_INT(m.advertised.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(m.advertised_max_mbps.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(m.supported_max_mbps.v, 200000);
	CHECK_INT(m.supported.v.n, 18);
	CHECK_INT(m.link_ext_state.m.st, HWC_ST_ABSENT); /* no Link detected line */
	/* robinchrist/100G-CWDM4-docs README @ 5db7e7f: a ConnectX-4 CX416A port that refused a
	 * Finisar FTLC1152RGPL6-FB forced to 40G: the kernel's reason in brackets (it used to make
	 * link_detected invalid), and the same port after the module's OUI was reprogrammed */
	CHECK_INT(parse("cx416a-unsupported-cable-robinchrist.txt", &m), 0);
	CHECK(m.link_detected.m.st == HWC_ST_OK && !m.link_detected.v);
	CHECK(m.link_ext_state.m.st == HWC_ST_OK && m.link_ext_substate.m.st == HWC_ST_OK);
	CHECK_STR(m.link_ext_state.v, "Cable issue");
	CHECK_STR(m.link_ext_substate.v, "Unsupported cable");
	CHECK_INT(m.speed_mbps.m.st, HWC_ST_ABSENT);
	CHECK_INT(m.advertised_max_mbps.v, 40000);
	CHECK_INT(m.supported_max_mbps.v, 100000);
	CHECK_INT(parse("cx416a-cwdm4-40g-robinchrist.txt", &m), 0);
	CHECK(m.link_detected.m.st == HWC_ST_OK && m.link_detected.v);
	CHECK_INT(m.link_ext_state.m.st, HWC_ST_ABSENT);
	CHECK(strstr(m.link_ext_state.m.detail, "link detected") != NULL);
	CHECK_INT(m.speed_mbps.v, 40000);
	/* a blog note on Proxmox VE 9.2 (tests/link/make_ext_fixtures.py): a ConnectX-4 Lx 25G port
	 * on a DAC to a 10G switch port, then at 10G after a firmware update and a forced speed */
	CHECK_INT(parse("cx4lx-link-training-pve-blog.txt", &m), 0);
	CHECK(m.link_detected.m.st == HWC_ST_OK && !m.link_detected.v);
	CHECK_STR(m.link_ext_state.v, "Link training failure");
	CHECK_STR(m.link_ext_substate.v, "Remote side is not ready yet");
	CHECK_INT(m.advertised_max_mbps.v, 25000);
	CHECK_INT(parse("cx4lx-10g-linked-pve-blog.txt", &m), 0);
	CHECK(m.link_detected.m.st == HWC_ST_OK && m.link_detected.v);
	CHECK_INT(m.link_ext_state.m.st, HWC_ST_ABSENT);
	CHECK_INT(m.speed_mbps.v, 10000);
	CHECK_INT(m.lanes.v, 1);
}

/* The bracket after "Link detected: no" in each form ethtool prints (netlink/settings.c,
 * linkstate_reply_cb): a state alone, a state and a substate, numbers where ethtool has no
 * name (kept verbatim), none at all (an older kernel), and broken forms. */
static void ext_state(const char *line, struct hwc_netdev_modes *m)
{
	char *t = hwc_arena_printf(A, "Settings for p0:\n\tSpeed: Unknown!\n\t%s\n", line);
	memset(m, 0, sizeof(*m));
	CHECK_INT(hwc_ethtool_parse_link(t, strlen(t), "ethtool p0", A, m), 0);
}

static void test_ext_state(void)
{
	struct hwc_netdev_modes m;
	ext_state("Link detected: no (No cable)", &m);
	CHECK(m.link_detected.m.st == HWC_ST_OK && !m.link_detected.v);
	CHECK_STR(m.link_ext_state.v, "No cable");
	CHECK_INT(m.link_ext_substate.m.st, HWC_ST_ABSENT);
	CHECK(strstr(m.link_ext_substate.m.detail, "no substate after 'No cable'") != NULL);
	ext_state("Link detected: no (Autoneg, No partner detected)", &m);
	CHECK_STR(m.link_ext_state.v, "Autoneg");
	CHECK_STR(m.link_ext_substate.v, "No partner detected");
	/* an ethtool older than the kernel prints the numbers: verbatim, never dropped */
	ext_state("Link detected: no (12, 7)", &m);
	CHECK_STR(m.link_ext_state.v, "12");
	CHECK_STR(m.link_ext_substate.v, "7");
	ext_state("Link detected: no (Module, 3)", &m);
	CHECK_STR(m.link_ext_state.v, "Module");
	CHECK_STR(m.link_ext_substate.v, "3");
	/* no bracket on a down link: unsupported, with why */
	ext_state("Link detected: no", &m);
	CHECK(m.link_detected.m.st == HWC_ST_OK && !m.link_detected.v);
	CHECK_INT(m.link_ext_state.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(m.link_ext_substate.m.st, HWC_ST_UNSUPPORTED);
	CHECK(strstr(m.link_ext_state.m.detail, "5.10") != NULL);
	/* broken: no ')', an empty reason, an empty substate, a bracket after 'maybe' */
	ext_state("Link detected: no (Cable issue, Unsupported cable", &m);
	CHECK(m.link_detected.m.st == HWC_ST_OK && !m.link_detected.v);
	CHECK_INT(m.link_ext_state.m.st, HWC_ST_INVALID);
	CHECK(strstr(m.link_ext_state.m.detail, "no ')'") != NULL);
	CHECK_INT(m.link_ext_substate.m.st, HWC_ST_INVALID);
	ext_state("Link detected: no ( )", &m);
	CHECK_INT(m.link_ext_state.m.st, HWC_ST_INVALID);
	ext_state("Link detected: no (Cable issue, )", &m);
	CHECK_STR(m.link_ext_state.v, "Cable issue");
	CHECK_INT(m.link_ext_substate.m.st, HWC_ST_INVALID);
	ext_state("Link detected: maybe (Overheat)", &m);
	CHECK_INT(m.link_detected.m.st, HWC_ST_INVALID);
	CHECK_INT(m.link_ext_state.m.st, HWC_ST_INVALID);
	ext_state("Link detected: (Overheat)", &m);
	CHECK_INT(m.link_detected.m.st, HWC_ST_INVALID);
	ext_state("Link detected: yes (Overheat)", &m);
	CHECK(m.link_detected.m.st == HWC_ST_OK && m.link_detected.v);
	CHECK_INT(m.link_ext_state.m.st, HWC_ST_ABSENT);
}

static void test_broken(void)
{
	struct hwc_netdev_modes m;
	/* not ethtool IF at all */
	const char *fec = "FEC parameters for p0:\nActive FEC encoding: RS\n";
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_ethtool_parse_link(fec, strlen(fec), "t", A, &m), -22);
	CHECK_INT(m.speed_mbps.m.st, HWC_ST_INVALID);
	CHECK_INT(m.supported.m.st, HWC_ST_INVALID);
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_ethtool_parse_link("", 0, "t", A, &m), -22);
	/* no link, values it cannot read, a list cut in its first line, no newline at the end */
	const char *down = "Settings for p0:\n\tSupported link modes:   100000baseCR4/Full 25000baseCR\n"
			   "\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tLanes: four\n"
			   "\tAuto-negotiation: maybe\n\tLink detected: no";
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_ethtool_parse_link(down, strlen(down), "t", A, &m), 0);
	CHECK_INT(m.supported.v.n, 2);
	CHECK_INT(m.supported_max_mbps.v, 100000); /* 25000baseCR has no duplex: not counted */
	CHECK_INT(m.speed_mbps.m.st, HWC_ST_ABSENT);
	CHECK_INT(m.lanes.m.st, HWC_ST_INVALID);
	CHECK_INT(m.autoneg.m.st, HWC_ST_INVALID);
	CHECK(m.link_detected.m.st == HWC_ST_OK && !m.link_detected.v);
	/* a list of nothing with a speed: unsupported, and an absurd number is no speed */
	const char *odd = "Settings for p0:\n\tSupported link modes:   Nonsense\n"
			  "\tAdvertised link modes:  99999999999999999999baseX/Full\n\tSpeed: -5Mb/s\n";
	memset(&m, 0, sizeof(m));
	CHECK_INT(hwc_ethtool_parse_link(odd, strlen(odd), "t", A, &m), 0);
	CHECK_INT(m.supported_max_mbps.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(m.advertised_max_mbps.m.st, HWC_ST_UNSUPPORTED);
	CHECK_INT(m.speed_mbps.m.st, HWC_ST_INVALID);
}

static void module_from(const char *name, struct hwc_module *m)
{
	char p[4096];
	size_t len, base = 0, n = 0;
	snprintf(p, sizeof(p), "%s/module-eeprom/%s", HWC_FIXTURES, name);
	char *raw = t_slurp(p, 1 << 16, &len);
	uint8_t *b = hwc_arena_zalloc(A, 640);
	CHECK_INT(hwc_module_parse_hex(raw, len, b, 640, &base, &n), 0);
	free(raw);
	struct hwc_module_map mp;
	hwc_module_map_linear(b, n, &mp);
	memset(m, 0, sizeof(*m));
	CHECK_INT(hwc_module_decode(&mp, A, m), 0);
}

static void test_module_rate(void)
{
	struct hwc_module m;
	/* ethtool -m prints this module's byte 131 as 0x80 and 192 as 0x02 (100GBASE-SR4) */
	module_from("qsfp28-mellanox-mlxsw-sfp42.hex", &m);
	CHECK(m.max_gbps.m.st == HWC_ST_OK && m.max_gbps.v == 100);
	CHECK_STR(m.rate_basis.v, "SFF-8636 byte 192 0x02: 100GBASE-SR4 or 25GBASE-SR");
	/* ethtool: 'Transceiver codes : 0x00 ... 0x08 ...', 'BR, Nominal : 10300MBd': no rate code */
	module_from("sfp-mikrotik-s-ao0005.hex", &m);
	CHECK(m.max_gbps.m.st == HWC_ST_OK && m.max_gbps.v == 10);
	CHECK(strstr(m.rate_basis.v, "10300 MBd") != NULL);
	/* CMIS: the fastest application (400GAUI-8 first, then CAUI-4), 0xff ends the list */
	uint8_t lo[256] = {0x18, 0x50};
	const uint8_t apps[] = {0x11, 0x1c, 0x88, 0x01, 0x0b, 0x1c, 0x44, 0x11, 0xff};
	memcpy(lo + 86, apps, sizeof(apps));
	struct hwc_module_map mp = {.lower = lo};
	memset(&m, 0, sizeof(m));
	hwc_module_rate(&mp, A, &m);
	CHECK(m.max_gbps.m.st == HWC_ST_OK && m.max_gbps.v == 400);
	/* no code known: unsupported with the reason */
	lo[86] = 0xfe, lo[90] = 0xff;
	memset(&m, 0, sizeof(m));
	hwc_module_rate(&mp, A, &m);
	CHECK_INT(m.max_gbps.m.st, HWC_ST_UNSUPPORTED);
}

int main(void)
{
	A = hwc_arena_new();
	test_captures();
	test_broken();
	test_ext_state();
	test_module_rate();
	hwc_arena_free(A);
	TEST_MAIN_END();
}
